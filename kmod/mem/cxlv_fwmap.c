// SPDX-License-Identifier: GPL-2.0-only
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "cxlv.h"

/**
 * DOC: cxl_virt's reading of the firmware memory map
 *
 * A range may become a device only if the firmware called it RAM: memmap=
 * turns RAM into Reserved in the kernel's own map, but MMIO, EFI runtime
 * regions and stolen memory are Reserved too. Where the kernel exports no
 * reader of the firmware's table to modules (e820__mapped_raw_any() is
 * KVM's alone from 7.x), the same table is read where the kernel publishes
 * it: /sys/firmware/memmap/N/{start,end,type} (drivers/firmware/memmap.c),
 * built from e820 as firmware gave it, before memmap= edits. It is read
 * through a private sysfs mount, so the caller's mount namespace (a chroot,
 * a bind mount over /sys) cannot show the module another map.
 */

#define CXLV_FWMAP_MAX	1024	/* entries read at most; e820 holds 128 */
#define CXLV_FWMAP_ATTR	64	/* longest value read: "System RAM\n", "0x..." */

struct cxlv_fwmap_entry {
	u64 start, end;		/* end is inclusive, as the map gives it */
	bool ram;
};

/* Reads firmware/memmap/@index/@attr into @buf; -ENOENT past the last. */
static int cxlv_fwmap_attr(struct vfsmount *mnt, int index, const char *attr,
			   char *buf)
{
	char path[48];
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "firmware/memmap/%d/%s", index, attr);
	f = file_open_root_mnt(mnt, path, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, buf, CXLV_FWMAP_ATTR - 1, &pos);
	fput(f);
	if (n < 0)
		return n;
	buf[n] = '\0';
	strim(buf);
	return 0;
}

static int cxlv_fwmap_entry(struct vfsmount *mnt, int index,
			    struct cxlv_fwmap_entry *e)
{
	char buf[CXLV_FWMAP_ATTR];
	int rc;

	rc = cxlv_fwmap_attr(mnt, index, "start", buf);
	if (!rc)
		rc = kstrtoull(buf, 0, &e->start);
	if (!rc)
		rc = cxlv_fwmap_attr(mnt, index, "end", buf);
	if (!rc)
		rc = kstrtoull(buf, 0, &e->end);
	if (!rc)
		rc = cxlv_fwmap_attr(mnt, index, "type", buf);
	if (rc)
		return rc;
	e->ram = !strcmp(buf, "System RAM");
	return e->start <= e->end ? 0 : -EINVAL;
}

/* 1 when RAM entries of @map cover [@start, @last] without a gap, else 0. */
static int cxlv_fwmap_covers(const struct cxlv_fwmap_entry *map, int n,
			     u64 start, u64 last)
{
	u64 next = start;
	bool found;
	int i;

	do {
		found = false;
		for (i = 0; i < n; i++) {
			if (!map[i].ram || map[i].start > next ||
			    map[i].end < next)
				continue;
			if (map[i].end >= last)
				return 1;
			next = map[i].end + 1;
			found = true;
		}
	} while (found);
	return 0;
}

/**
 * cxlv_fwmap_is_ram() - is all of [@start, @last] RAM to the firmware?
 * @start: first byte
 * @last: last byte
 *
 * Return: 1 when it is, 0 when any byte is not, or a negative errno when
 * the kernel's copy of the firmware map cannot be read.
 */
int cxlv_fwmap_is_ram(u64 start, u64 last)
{
	struct file_system_type *sysfs = get_fs_type("sysfs");
	struct cxlv_fwmap_entry *map;
	struct vfsmount *mnt;
	int n, rc;

	/* sysfs is built in: get_fs_type() took no module reference */
	if (!sysfs)
		return -EOPNOTSUPP;
	mnt = vfs_kern_mount(sysfs, SB_RDONLY, "sysfs", NULL);
	if (IS_ERR(mnt))
		return PTR_ERR(mnt);
	map = kvcalloc(CXLV_FWMAP_MAX, sizeof(*map), GFP_KERNEL);
	if (!map) {
		mntput(mnt);
		return -ENOMEM;
	}
	for (n = 0; n < CXLV_FWMAP_MAX; n++) {
		rc = cxlv_fwmap_entry(mnt, n, &map[n]);
		if (rc)
			break;
	}
	mntput(mnt);
	if (n == CXLV_FWMAP_MAX)
		rc = -E2BIG;
	else if (rc == -ENOENT)
		rc = n ? cxlv_fwmap_covers(map, n, start, last) : -EOPNOTSUPP;
	kvfree(map);
	return rc;
}

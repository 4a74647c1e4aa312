// SPDX-License-Identifier: GPL-2.0-only
/**
 * DOC: cxl_virt control files
 *
 * The same create/remove grammar (cxlv_parse.h) is accepted in two places:
 *
 * - /sys/kernel/debug/cxl/cxlv/{create,remove}, as in the cxlv RFC;
 * - /sys/bus/cxl_virt/{create,remove}, for kernels in lockdown, where
 *   debugfs refuses writes.
 *
 * Both are write-only for root. A write returns its length on success and
 * the errno of the failure otherwise; ``last_error`` (root-only, in both
 * places) then holds the one-line reason, or is empty after a success.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "cxlv.h"
#include "cxlmem.h"
#include "cxlv_compat.h"

#define CXLV_CTL_MAX	256	/* longest request accepted */

static struct dentry *cxlv_debugfs;

int cxlv_ctl_create(const char *buf, size_t len)
{
	struct cxlv_params p = { 0 };
	char why[CXLV_ERR_LEN];
	int rc;

	rc = cxlv_parse_create(buf, len, &p, why, sizeof(why));
	if (rc) {
		cxlv_set_error("create: %s", why);
		return rc;
	}
	rc = cxlv_create(&p);
	return rc < 0 ? rc : 0;
}

int cxlv_ctl_remove(const char *buf, size_t len)
{
	char why[CXLV_ERR_LEN];
	u32 id;
	int rc;

	rc = cxlv_parse_remove(buf, len, &id, why, sizeof(why));
	if (rc) {
		cxlv_set_error("remove: %s", why);
		return rc;
	}
	return cxlv_remove(id);
}

static ssize_t create_store(CXLV_BUS_CONST struct bus_type *bus,
			    const char *buf, size_t count)
{
	int rc = cxlv_ctl_create(buf, count);

	return rc ? rc : count;
}

static ssize_t remove_store(CXLV_BUS_CONST struct bus_type *bus,
			    const char *buf, size_t count)
{
	int rc = cxlv_ctl_remove(buf, count);

	return rc ? rc : count;
}

static ssize_t last_error_show(CXLV_BUS_CONST struct bus_type *bus, char *buf)
{
	return cxlv_show_error(buf, PAGE_SIZE);
}

static struct bus_attribute bus_attr_create = __ATTR(create, 0200, NULL,
						     create_store);
static struct bus_attribute bus_attr_remove = __ATTR(remove, 0200, NULL,
						     remove_store);
static struct bus_attribute bus_attr_last_error = __ATTR(last_error, 0400,
							 last_error_show,
							 NULL);

static struct attribute *cxlv_bus_attrs[] = {
	&bus_attr_create.attr,
	&bus_attr_remove.attr,
	&bus_attr_last_error.attr,
	NULL,
};

static const struct attribute_group cxlv_bus_group = {
	.attrs = cxlv_bus_attrs,
};

const struct attribute_group *cxlv_bus_groups[] = {
	&cxlv_bus_group,
	NULL,
};

/* Copies a debugfs write in and hands it to @handler. */
static ssize_t cxlv_debugfs_write(const char __user *ubuf, size_t count,
				  int (*handler)(const char *, size_t))
{
	char *buf;
	int rc;

	if (count > CXLV_CTL_MAX) {
		cxlv_set_error("request longer than %d bytes", CXLV_CTL_MAX);
		return -E2BIG;
	}
	buf = memdup_user(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	rc = handler(buf, count);
	kfree(buf);
	return rc ? rc : count;
}

static ssize_t cxlv_create_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	return cxlv_debugfs_write(ubuf, count, cxlv_ctl_create);
}

static ssize_t cxlv_remove_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	return cxlv_debugfs_write(ubuf, count, cxlv_ctl_remove);
}

static ssize_t cxlv_last_error_read(struct file *file, char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	char buf[CXLV_ERR_LEN + 1];
	ssize_t n = cxlv_show_error(buf, sizeof(buf));

	return simple_read_from_buffer(ubuf, count, ppos, buf, n);
}

static const struct file_operations cxlv_create_fops = {
	.owner = THIS_MODULE,
	.write = cxlv_create_write,
	.llseek = noop_llseek,
};

static const struct file_operations cxlv_remove_fops = {
	.owner = THIS_MODULE,
	.write = cxlv_remove_write,
	.llseek = noop_llseek,
};

static const struct file_operations cxlv_last_error_fops = {
	.owner = THIS_MODULE,
	.read = cxlv_last_error_read,
	.llseek = default_llseek,
};

int cxlv_ctl_init(void)
{
	cxlv_debugfs = cxl_debugfs_create_dir("cxlv");
	debugfs_create_file("create", 0200, cxlv_debugfs, NULL,
			    &cxlv_create_fops);
	debugfs_create_file("remove", 0200, cxlv_debugfs, NULL,
			    &cxlv_remove_fops);
	debugfs_create_file("last_error", 0400, cxlv_debugfs, NULL,
			    &cxlv_last_error_fops);
	return 0;
}

void cxlv_ctl_exit(void)
{
	debugfs_remove_recursive(cxlv_debugfs);
}

// SPDX-License-Identifier: GPL-2.0-only
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "cxlv_ctl.h"
#include "cxlmem.h"
#include "cxlv_compat.h"

/**
 * DOC: cxl_virt control files
 *
 * The same create/remove/release grammar (cxlv_parse.h) is accepted in two
 * places:
 *
 * - /sys/kernel/debug/cxl/cxlv/{create,remove,release}, as in the cxlv RFC;
 * - /sys/bus/cxl_virt/{create,remove,release}, for kernels without debugfs.
 *
 * ``inject_event`` (debugfs only, write-only for root) adds event records
 * to an endpoint's event logs (cxlv_events.c) and raises its MSI where the
 * log's interrupt policy and the endpoint's MSI Enable ask for it; the
 * grammar is in cxlv_parse.h.
 *
 * ``set_health`` (debugfs only, write-only for root) changes the figures an
 * endpoint's Get Health Info reports (cxlv_health.c); a change crossing an
 * enabled warning threshold adds a Memory Module event record and raises
 * the MSI as inject_event does.
 *
 * ``borrowed`` (root-only, read-only, in both places) lists the ranges
 * borrowed from System RAM (cxlv_borrow.c), one per line:
 * ``<start> <size> <node> <free|cxlvN>``.
 *
 * Both are write-only for root, take at most CXLV_REQUEST_MAX bytes and
 * need CAP_SYS_RAWIO from the writer, not just an open file: a device hands
 * physical memory to user space. For the same reason create is refused on
 * both while the kernel is locked down (integrity or confidentiality,
 * LOCKDOWN_DEV_MEM: what /dev/mem is refused under); remove stays allowed.
 *
 * A write returns its length on success and the errno of the failure
 * otherwise; ``last_error`` (root-only, in both places) then holds the
 * one-line reason, or is empty after a success. Requests are serialised
 * from parsing to the recorded reason, so a reason belongs to one request.
 */

static DEFINE_MUTEX(cxlv_ctl_lock);
static struct dentry *cxlv_debugfs;

static int cxlv_ctl_create(const char *buf, size_t len)
{
	struct cxlv_params p = { 0 };
	char why[CXLV_ERR_LEN];
	int rc;

	/* what /dev/mem is refused under, on every path that makes a device */
	rc = security_locked_down(LOCKDOWN_DEV_MEM);
	if (rc) {
		cxlv_set_error("create: the kernel is locked down; a device would give user space physical memory (see kernel_lockdown(7))");
		return rc;
	}
	rc = cxlv_parse_create(buf, len, &p, why, sizeof(why));
	if (rc) {
		cxlv_set_error("create: %s", why);
		return rc;
	}
	if (p.borrow) {
		rc = cxlv_borrow(&p);
		if (rc)
			return rc;
	}
	rc = cxlv_create(&p);
	/* a device that could not be made leaves no borrowed memory behind */
	if (rc < 0 && p.borrow)
		cxlv_borrow_release(p.memstart);
	return rc < 0 ? rc : 0;
}

static int cxlv_ctl_remove(const char *buf, size_t len)
{
	char why[CXLV_ERR_LEN];
	bool release;
	u32 id;
	int rc;

	rc = cxlv_parse_remove(buf, len, &id, &release, why, sizeof(why));
	if (rc) {
		cxlv_set_error("remove: %s", why);
		return rc;
	}
	return cxlv_remove(id, release);
}

static int cxlv_ctl_release(const char *buf, size_t len)
{
	char why[CXLV_ERR_LEN];
	u64 start;
	int rc;

	rc = cxlv_parse_release(buf, len, &start, why, sizeof(why));
	if (rc) {
		cxlv_set_error("release: %s", why);
		return rc;
	}
	return cxlv_borrow_release(start);
}

static int cxlv_ctl_inject_event(const char *buf, size_t len)
{
	struct cxlv_event_request req;
	char why[CXLV_ERR_LEN];
	int rc;

	rc = cxlv_parse_event(buf, len, &req, why, sizeof(why));
	if (rc) {
		cxlv_set_error("inject_event: %s", why);
		return rc;
	}
	return cxlv_inject_event(&req);
}

static int cxlv_ctl_set_health(const char *buf, size_t len)
{
	struct cxlv_health_request req;
	char why[CXLV_ERR_LEN];
	int rc;

	rc = cxlv_parse_health(buf, len, &req, why, sizeof(why));
	if (rc) {
		cxlv_set_error("set_health: %s", why);
		return rc;
	}
	return cxlv_set_health(&req);
}

/* One request, from the checks to the recorded reason, under one lock. */
static ssize_t cxlv_ctl_request(const char *buf, size_t count,
				int (*handler)(const char *, size_t))
{
	int rc;

	mutex_lock(&cxlv_ctl_lock);
	cxlv_clear_error();
	if (!capable(CAP_SYS_RAWIO)) {
		cxlv_set_error("request needs CAP_SYS_RAWIO");
		rc = -EPERM;
	} else if (count > CXLV_REQUEST_MAX) {
		cxlv_set_error("request longer than %d bytes", CXLV_REQUEST_MAX);
		rc = -E2BIG;
	} else {
		rc = handler(buf, count);
	}
	mutex_unlock(&cxlv_ctl_lock);
	return rc ? rc : count;
}

static ssize_t create_store(CXLV_BUS_CONST struct bus_type *bus,
			    const char *buf, size_t count)
{
	return cxlv_ctl_request(buf, count, cxlv_ctl_create);
}

static ssize_t remove_store(CXLV_BUS_CONST struct bus_type *bus,
			    const char *buf, size_t count)
{
	return cxlv_ctl_request(buf, count, cxlv_ctl_remove);
}

static ssize_t release_store(CXLV_BUS_CONST struct bus_type *bus,
			     const char *buf, size_t count)
{
	return cxlv_ctl_request(buf, count, cxlv_ctl_release);
}

static ssize_t borrowed_show(CXLV_BUS_CONST struct bus_type *bus, char *buf)
{
	return cxlv_borrow_show(buf);
}

static ssize_t last_error_show(CXLV_BUS_CONST struct bus_type *bus, char *buf)
{
	return cxlv_show_error(buf, PAGE_SIZE);
}

static struct bus_attribute bus_attr_create = __ATTR(create, 0200, NULL,
						     create_store);
static struct bus_attribute bus_attr_remove = __ATTR(remove, 0200, NULL,
						     remove_store);
static struct bus_attribute bus_attr_release = __ATTR(release, 0200, NULL,
						      release_store);
static struct bus_attribute bus_attr_borrowed = __ATTR(borrowed, 0400,
						       borrowed_show, NULL);
static struct bus_attribute bus_attr_last_error = __ATTR(last_error, 0400,
							 last_error_show,
							 NULL);

/* last_error first: the files that act go live last and go away first */
static struct bus_attribute *cxlv_bus_attrs[] = {
	&bus_attr_last_error,
	&bus_attr_cache_invalidation,
	&bus_attr_hooks,
	&bus_attr_borrowed,
	&bus_attr_create,
	&bus_attr_remove,
	&bus_attr_release,
};

/* Copies a debugfs write in and hands it to @handler. */
static ssize_t cxlv_debugfs_write(const char __user *ubuf, size_t count,
				  int (*handler)(const char *, size_t))
{
	char *buf;
	ssize_t rc;

	/* too long: refused without copying, with the reason recorded */
	if (count > CXLV_REQUEST_MAX)
		return cxlv_ctl_request(NULL, count, handler);
	buf = memdup_user(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	rc = cxlv_ctl_request(buf, count, handler);
	kfree(buf);
	return rc;
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

static ssize_t cxlv_release_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	return cxlv_debugfs_write(ubuf, count, cxlv_ctl_release);
}

static ssize_t cxlv_inject_event_write(struct file *file,
				       const char __user *ubuf, size_t count,
				       loff_t *ppos)
{
	return cxlv_debugfs_write(ubuf, count, cxlv_ctl_inject_event);
}

static ssize_t cxlv_set_health_write(struct file *file,
				     const char __user *ubuf, size_t count,
				     loff_t *ppos)
{
	return cxlv_debugfs_write(ubuf, count, cxlv_ctl_set_health);
}

static ssize_t cxlv_borrowed_read(struct file *file, char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	char *buf = (char *)__get_free_page(GFP_KERNEL);
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	n = cxlv_borrow_show(buf);
	n = simple_read_from_buffer(ubuf, count, ppos, buf, n);
	free_page((unsigned long)buf);
	return n;
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

static const struct file_operations cxlv_release_fops = {
	.owner = THIS_MODULE,
	.write = cxlv_release_write,
	.llseek = noop_llseek,
};

static const struct file_operations cxlv_inject_event_fops = {
	.owner = THIS_MODULE,
	.write = cxlv_inject_event_write,
	.llseek = noop_llseek,
};

static const struct file_operations cxlv_set_health_fops = {
	.owner = THIS_MODULE,
	.write = cxlv_set_health_write,
	.llseek = noop_llseek,
};

static const struct file_operations cxlv_borrowed_fops = {
	.owner = THIS_MODULE,
	.read = cxlv_borrowed_read,
	.llseek = default_llseek,
};

static const struct file_operations cxlv_last_error_fops = {
	.owner = THIS_MODULE,
	.read = cxlv_last_error_read,
	.llseek = default_llseek,
};

static void cxlv_ctl_remove_bus_files(CXLV_BUS_CONST struct bus_type *bus,
				      int n)
{
	while (n--)
		bus_remove_file(bus, cxlv_bus_attrs[n]);
}

/**
 * cxlv_ctl_init() - publish the control files
 * @bus: the cxl_virt bus, with its driver and notifier registered
 *
 * Return: 0 or a negative errno; nothing is left published on failure.
 */
int cxlv_ctl_init(CXLV_BUS_CONST struct bus_type *bus)
{
	int i, rc;

	for (i = 0; i < ARRAY_SIZE(cxlv_bus_attrs); i++) {
		rc = bus_create_file(bus, cxlv_bus_attrs[i]);
		if (rc) {
			cxlv_ctl_remove_bus_files(bus, i);
			return rc;
		}
	}
	/* debugfs is optional: its helpers accept the error pointers */
	cxlv_debugfs = cxl_debugfs_create_dir("cxlv");
	debugfs_create_file("last_error", 0400, cxlv_debugfs, NULL,
			    &cxlv_last_error_fops);
	debugfs_create_file("create", 0200, cxlv_debugfs, NULL,
			    &cxlv_create_fops);
	debugfs_create_file("remove", 0200, cxlv_debugfs, NULL,
			    &cxlv_remove_fops);
	debugfs_create_file("release", 0200, cxlv_debugfs, NULL,
			    &cxlv_release_fops);
	debugfs_create_file("borrowed", 0400, cxlv_debugfs, NULL,
			    &cxlv_borrowed_fops);
	debugfs_create_file("inject_event", 0200, cxlv_debugfs, NULL,
			    &cxlv_inject_event_fops);
	debugfs_create_file("set_health", 0200, cxlv_debugfs, NULL,
			    &cxlv_set_health_fops);
	return 0;
}

/* Takes the control files away; a request already inside finishes first. */
void cxlv_ctl_exit(CXLV_BUS_CONST struct bus_type *bus)
{
	debugfs_remove_recursive(cxlv_debugfs);
	cxlv_ctl_remove_bus_files(bus, ARRAY_SIZE(cxlv_bus_attrs));
}

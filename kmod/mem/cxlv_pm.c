// SPDX-License-Identifier: GPL-2.0-only
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/notifier.h>
#include <linux/slab.h>
#include <linux/suspend.h>

#include "cxlv.h"

/**
 * DOC: cxl_virt hibernation
 *
 * A hibernation image holds the kernel's RAM, the pages it has struct pages
 * for. A device's range is not among them: a memmap= range is Reserved, a
 * borrowed range left System RAM, and namespaces map device memory as
 * ZONE_DEVICE. So the image never holds a device's registers, label area or
 * data, and after resume they hold whatever the boot kernel left there (for
 * a borrowed range: that kernel's own pages). The kernel refuses hibernation
 * only while cxl_mem has a memdev bound (cxl_mem_active(), CXL_SUSPEND),
 * which says nothing of a device whose endpoint has no driver, one between
 * create and bind, or a free borrowed range whose data and labels wait for
 * the next create.
 *
 * So the module refuses it itself: its PM notifier fails
 * PM_HIBERNATION_PREPARE with -EBUSY while any cxlvN exists, bound or not,
 * or any borrowed range is free, and logs one rate-limited line naming them.
 * hibernate() on 6.1, 6.12 and 7.3 checks hibernation_available() (EPERM),
 * the compressor (6.9+) and /dev/snapshot's owner, all without side
 * effects, then runs the notifiers before it syncs, freezes or snapshots
 * anything; an open of /dev/snapshot for an image (uswsusp) runs them too.
 * The writer of /sys/power/state gets EBUSY. Suspend to RAM keeps the range
 * powered and is not refused.
 */

static int cxlv_pm_notify(struct notifier_block *nb, unsigned long action,
			  void *data)
{
	struct cxlv_names n = {};

	if (action != PM_HIBERNATION_PREPARE)
		return NOTIFY_DONE;
	n.buf = kzalloc(PAGE_SIZE, GFP_KERNEL);
	if (!n.buf)
		return notifier_from_errno(-ENOMEM);
	cxlv_bus_names(&n);
	cxlv_borrow_free_names(&n);
	if (n.len)
		pr_warn_ratelimited("hibernation refused: %s hold data that the image would not keep; remove them first%s\n",
				    n.buf, n.borrowed ?
				    " (borrowed ranges: release)" : "");
	kfree(n.buf);
	return n.len ? notifier_from_errno(-EBUSY) : NOTIFY_DONE;
}

static struct notifier_block cxlv_pm_nb = {
	.notifier_call = cxlv_pm_notify,
};

int cxlv_pm_init(void)
{
	return register_pm_notifier(&cxlv_pm_nb);
}

void cxlv_pm_exit(void)
{
	unregister_pm_notifier(&cxlv_pm_nb);
}

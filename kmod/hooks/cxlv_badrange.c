// SPDX-License-Identifier: GPL-2.0-only
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/badblocks.h>
#include <linux/blkdev.h>
#include <linux/kfifo.h>
#include <linux/libnvdimm.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/nd.h>
#include <linux/ndctl.h>
#include <linux/string.h>

#include "cxlv_hooks.h"
#include "cxl.h"

/**
 * DOC: cxl_virt media errors on the nvdimm bus
 *
 * A pmem read fails with EIO, and a DAX access with EHWPOISON, only for
 * the sectors in the namespace's badblocks, which libnvdimm fills from its
 * bus's list of bad address ranges when a region is probed or notified
 * with NVDIMM_REVALIDATE_POISON. On an NFIT platform the machine-check
 * handler adds to that list; for CXL the bus is the nvdimm bridge's, and
 * 6.12's and 7.3's kernels never add to it: on a real CXL device a read of
 * a poisoned line fails through the machine check in copy_mc and the
 * badblocks stay empty. A device of this module has no machine check, so
 * its poison goes to its own bridge's bus instead:
 *
 * - Inject Poison adds the line to the bus (nvdimm_bus_add_badrange()) and
 *   notifies every region of the bus: the region's and each pmem disk's
 *   badblocks get the 512-byte sector, `ndctl list --media-errors` shows
 *   it, and reads of it fail.
 * - Clear Poison forgets the sector through the kernel's own
 *   nvdimm_clear_poison() (which drops it from the bus list and the
 *   region's badblocks). Lines of the device still poisoned in the sector
 *   are added again; then each pmem disk's badblocks are emptied and the
 *   regions notified, so the disks read the list anew (libnvdimm only ever
 *   adds to them).
 *
 * No kernel this module builds for (6.1, 6.12, 7.3) exports another way to
 * take a range off a bus's list: badrange_forget() needs the bus's struct
 * badrange, inside libnvdimm's private struct nvdimm_bus, and a region's
 * badblocks sit in its private struct nd_region. nvdimm_clear_poison()
 * asks the bus's ndctl first, and the CXL bus driver answers no bus
 * command. So for that one call the bridge's ndctl is a function of this
 * module that answers ARS Capabilities and Clear Uncorrectable Error for
 * exactly that sector and hands everything else to the stock one. The swap
 * holds the bus device's lock, which __nd_ioctl() takes first for every
 * bus command, so no bus command of user space runs through it. (It cannot
 * also take nvdimm_bus_lock(), which __nd_ioctl() takes next: that is a
 * plain EXPORT_SYMBOL, which symbol_get() refuses from 6.6 on, and a
 * direct call would make libnvdimm a load dependency. The bus lock guards
 * reconfiguration, not the ndctl pointer; commands to a DIMM, which hold
 * only it, carry an nvdimm and get the stock answer.) The pmem driver's
 * nvdimm_clear_poison() on a write takes no lock and may meet the swapped
 * function, which gives it the stock answer for any other sector.
 * nvdimm_clear_poison() is declared only in libnvdimm's private nd.h: the
 * build takes its declaration from that file of the target kernel's
 * source (scripts/extract-headers.sh, which stops the build if it is not
 * the one this file calls). The
 * badrange_clear parameter turns the swap off at run time: a Clear Poison
 * then leaves the bus's bad ranges and the badblocks as they are, and
 * reads of the sector keep failing, as on a real CXL device on these
 * kernels.
 *
 * A write to a bad sector still fails, as nvdimm_clear_poison() from the
 * pmem driver gets the stock answer. With an interleave granularity of
 * 256 bytes a sector holds two endpoints' lines; a clear knows only its
 * own endpoint's, so it forgets the other's too.
 *
 * The mailbox handlers may run with preemption off and hold the mailbox
 * that label writes wait for under the namespace's device lock, so they
 * only queue; a worker does the rest with the bridge's device lock held (so
 * that its driver and bus stay) and is never waited for by the handlers.
 * The libnvdimm functions are taken with symbol_get(): a bound bridge means
 * libnvdimm is loaded, and a RAM-only device does not need it.
 */

#include "cxlv_nd.h"

/* Poison changes on their way to the nvdimm bus; one more is lost. */
#define CXLV_BADRANGE_OPS	256

/**
 * struct cxlv_badrange_op - a poison change for the nvdimm bus
 * @hpa: the 64-byte line
 * @inject: poisoned; else cleared
 * @keep: for a clear, the lines of its 512-byte sector still poisoned
 */
struct cxlv_badrange_op {
	u64 hpa;
	bool inject;
	u8 keep;
};

/**
 * struct cxlv_badrange - the device's poison on its bridge's nvdimm bus
 * @lock: guards @nvb
 * @nvb: the nvdimm bridge, NULL before and while it goes
 * @ops_lock: guards @ops against the mailbox handlers
 * @ops: from the mailbox handlers to @work
 * @work: applies @ops
 */
struct cxlv_badrange {
	struct mutex lock;
	struct cxl_nvdimm_bridge *nvb;
	spinlock_t ops_lock;
	DECLARE_KFIFO(ops, struct cxlv_badrange_op, CXLV_BADRANGE_OPS);
	struct work_struct work;
};

static bool badrange_clear = true;
module_param(badrange_clear, bool, 0644);
MODULE_PARM_DESC(badrange_clear,
		 "Clear Poison forgets the sector's bad range on the nvdimm bus (swapping the CXL bridge's ndctl for one call; N: badblocks keep it)");

/**
 * cxlv_badrange_armed() - may a Clear Poison swap the bridge's ndctl?
 *
 * Return: the badrange_clear switch. The swap itself lasts one
 * nvdimm_clear_poison() call of the worker.
 */
bool cxlv_badrange_armed(void)
{
	return READ_ONCE(badrange_clear);
}

#define CXLV_LINE	64

struct cxlv_nd_ops {
	typeof(&nvdimm_bus_add_badrange) add_badrange;
	typeof(&nvdimm_region_notify) region_notify;
	typeof(&nvdimm_clear_poison) clear_poison;
	typeof(&to_nd_region) to_region;
	typeof(&to_nvdimm_bus_dev) bus_dev;
};

static void cxlv_nd_put(struct cxlv_nd_ops *nd)
{
	if (nd->add_badrange)
		symbol_put(nvdimm_bus_add_badrange);
	if (nd->region_notify)
		symbol_put(nvdimm_region_notify);
	if (nd->clear_poison)
		symbol_put(nvdimm_clear_poison);
	if (nd->to_region)
		symbol_put(to_nd_region);
	if (nd->bus_dev)
		symbol_put(to_nvdimm_bus_dev);
}

static bool cxlv_nd_get(struct cxlv_nd_ops *nd)
{
	nd->add_badrange = symbol_get(nvdimm_bus_add_badrange);
	nd->region_notify = symbol_get(nvdimm_region_notify);
	nd->clear_poison = symbol_get(nvdimm_clear_poison);
	nd->to_region = symbol_get(to_nd_region);
	nd->bus_dev = symbol_get(to_nvdimm_bus_dev);
	if (nd->add_badrange && nd->region_notify && nd->clear_poison &&
	    nd->to_region && nd->bus_dev)
		return true;
	cxlv_nd_put(nd);
	return false;
}

/* The sector a clear is forgetting, and the bridge's own ndctl. */
static DEFINE_MUTEX(cxlv_clearing_lock);
static phys_addr_t cxlv_clearing = PHYS_ADDR_MAX;
static ndctl_fn cxlv_stock_ndctl;

/*
 * The NVDIMM root device _DSM functions ARS Capabilities and Clear
 * Uncorrectable Error (as libnvdimm's nd_cmd_ars_cap and nd_cmd_clear_error
 * carry them) for the one sector being cleared: 512-byte units, all of it
 * cleared. Anything else goes to the bridge's own ndctl.
 */
static int cxlv_clearing_ctl(struct nvdimm_bus_descriptor *nd_desc,
			     struct nvdimm *nvdimm, unsigned int cmd,
			     void *buf, unsigned int buf_len, int *cmd_rc)
{
	phys_addr_t sector = READ_ONCE(cxlv_clearing);

	if (!nvdimm && cmd == ND_CMD_ARS_CAP &&
	    buf_len >= sizeof(struct nd_cmd_ars_cap)) {
		struct nd_cmd_ars_cap *cap = buf;

		if (cap->address == sector && cap->length == SECTOR_SIZE) {
			cap->status = 0;
			cap->max_ars_out = 0;
			cap->clear_err_unit = SECTOR_SIZE;
			cap->flags = 0;
			*cmd_rc = 0;
			return 0;
		}
	}
	if (!nvdimm && cmd == ND_CMD_CLEAR_ERROR &&
	    buf_len >= sizeof(struct nd_cmd_clear_error)) {
		struct nd_cmd_clear_error *clear = buf;

		if (clear->address == sector && clear->length == SECTOR_SIZE) {
			clear->status = 0;
			clear->cleared = SECTOR_SIZE;
			*cmd_rc = 0;
			return 0;
		}
	}
	return cxlv_stock_ndctl(nd_desc, nvdimm, cmd, buf, buf_len, cmd_rc);
}

/* Is @dev a pmem region (uevent DEVTYPE nd_pmem)? */
static bool cxlv_is_pmem_region(const struct device *dev)
{
	return dev->type && dev->type->name &&
	       !strcmp(dev->type->name, "nd_pmem");
}

static int cxlv_region_revalidate(struct device *dev, void *data)
{
	const struct cxlv_nd_ops *nd = data;

	if (cxlv_is_pmem_region(dev))
		nd->region_notify(nd->to_region(dev),
				  NVDIMM_REVALIDATE_POISON);
	return 0;
}

/* A disk (class block, DEVTYPE disk) below a namespace or pfn device. */
static int cxlv_disk_forget(struct device *dev, void *data)
{
	struct gendisk *disk;
	sector_t s, n, end;

	if (!dev->class || strcmp(dev->class->name, "block") || !dev->type ||
	    !dev->type->name || strcmp(dev->type->name, "disk"))
		return 0;
	disk = dev_to_disk(dev);
	if (!disk->bb)
		return 0;
	end = get_capacity(disk);
	for (s = 0; s < end; s += n) {
		n = min_t(sector_t, end - s, SZ_1G);
		badblocks_clear(disk->bb, s, n);
	}
	return 0;
}

/* The disks of a namespace or pfn device, its driver held bound. */
static int cxlv_region_child_forget(struct device *dev, void *data)
{
	device_lock(dev);
	if (dev->driver)
		device_for_each_child(dev, NULL, cxlv_disk_forget);
	device_unlock(dev);
	return 0;
}

/* The disks below a region. */
static int cxlv_region_disks_forget(struct device *region, void *data)
{
	if (cxlv_is_pmem_region(region))
		device_for_each_child(region, NULL, cxlv_region_child_forget);
	return 0;
}

static void cxlv_badrange_forget(const struct cxlv_nd_ops *nd,
				 struct cxl_nvdimm_bridge *nvb,
				 const struct cxlv_badrange_op *op)
{
	struct nvdimm_bus_descriptor *nd_desc = &nvb->nd_desc;
	struct device *bus = nd->bus_dev(nvb->nvdimm_bus);
	phys_addr_t sector = ALIGN_DOWN(op->hpa, SECTOR_SIZE);
	unsigned int i;
	long cleared;

	mutex_lock(&cxlv_clearing_lock);
	/* As __nd_ioctl() runs the bus's commands: none in between. */
	device_lock(bus);
	cxlv_stock_ndctl = nd_desc->ndctl;
	WRITE_ONCE(cxlv_clearing, sector);
	WRITE_ONCE(nd_desc->ndctl, cxlv_clearing_ctl);
	cleared = nd->clear_poison(bus, sector, SECTOR_SIZE);
	WRITE_ONCE(nd_desc->ndctl, cxlv_stock_ndctl);
	WRITE_ONCE(cxlv_clearing, PHYS_ADDR_MAX);
	device_unlock(bus);
	mutex_unlock(&cxlv_clearing_lock);
	if (cleared != SECTOR_SIZE)
		dev_warn_ratelimited(bus, "cannot forget bad sector %pa: %ld\n",
				     &sector, cleared);

	for (i = 0; i < SECTOR_SIZE / CXLV_LINE; i++)
		if (op->keep & BIT(i))
			nd->add_badrange(nvb->nvdimm_bus, sector + i * CXLV_LINE,
					 CXLV_LINE);
	device_for_each_child(bus, NULL, cxlv_region_disks_forget);
}

static void cxlv_badrange_apply(const struct cxlv_nd_ops *nd,
				struct cxl_nvdimm_bridge *nvb,
				const struct cxlv_badrange_op *op)
{
	struct device *bus = nd->bus_dev(nvb->nvdimm_bus);

	if (op->inject)
		nd->add_badrange(nvb->nvdimm_bus, op->hpa, CXLV_LINE);
	else if (cxlv_badrange_armed())
		cxlv_badrange_forget(nd, nvb, op);
	else
		dev_dbg(bus, "badrange_clear off: bad sector of %pa kept\n",
			&op->hpa);
	device_for_each_child(bus, (void *)nd, cxlv_region_revalidate);
}

static void cxlv_badrange_work(struct work_struct *work)
{
	struct cxlv_badrange *br = container_of(work, struct cxlv_badrange,
						work);
	struct cxlv_badrange_op op;
	struct cxl_nvdimm_bridge *nvb;
	struct cxlv_nd_ops nd = {};

	mutex_lock(&br->lock);
	nvb = br->nvb;
	if (nvb)
		device_lock(&nvb->dev);
	while (kfifo_out_spinlocked(&br->ops, &op, 1, &br->ops_lock)) {
		if (!nvb || !nvb->dev.driver || !nvb->nvdimm_bus)
			continue;
		if (!nd.add_badrange && !cxlv_nd_get(&nd))
			continue;
		cxlv_badrange_apply(&nd, nvb, &op);
	}
	if (nd.add_badrange)
		cxlv_nd_put(&nd);
	if (nvb)
		device_unlock(&nvb->dev);
	mutex_unlock(&br->lock);
}

static void cxlv_badrange_stop(void *data)
{
	struct cxlv_badrange *br = data;

	cancel_work_sync(&br->work);
}

/**
 * cxlv_badrange_init() - an empty queue, stopped after the emulators
 * @cxlv: device being probed, before its emulators start
 *
 * Return: 0 or a negative errno.
 */
int cxlv_badrange_init(struct cxlv_dev *cxlv)
{
	struct cxlv_badrange *br;

	br = devm_kzalloc(&cxlv->dev, sizeof(*br), GFP_KERNEL);
	if (!br)
		return -ENOMEM;
	cxlv->badrange = br;
	mutex_init(&br->lock);
	spin_lock_init(&br->ops_lock);
	INIT_KFIFO(br->ops);
	INIT_WORK(&br->work, cxlv_badrange_work);
	return devm_add_action_or_reset(&cxlv->dev, cxlv_badrange_stop, br);
}

static void cxlv_badrange_detach(void *data)
{
	struct cxlv_badrange *br = data;

	mutex_lock(&br->lock);
	br->nvb = NULL;
	mutex_unlock(&br->lock);
}

/**
 * cxlv_badrange_attach() - the bridge whose bus gets the device's poison
 * @cxlv: device being probed
 * @nvb: its nvdimm bridge, devm on cxlvN
 *
 * Registered after the bridge, so it lets go of it first.
 *
 * Return: 0 or a negative errno.
 */
int cxlv_badrange_attach(struct cxlv_dev *cxlv, struct cxl_nvdimm_bridge *nvb)
{
	struct cxlv_badrange *br = cxlv->badrange;

	mutex_lock(&br->lock);
	br->nvb = nvb;
	mutex_unlock(&br->lock);
	return devm_add_action_or_reset(&cxlv->dev, cxlv_badrange_detach, br);
}

/**
 * cxlv_badrange_queue() - tell the nvdimm bus about poison, later
 * @dev: the cxlvN device
 * @hpa: the line's host address
 * @inject: poisoned; else cleared
 * @keep: for a clear, the lines of its 512-byte sector still poisoned
 *
 * Any context. A full queue loses the change, with a message.
 */
void cxlv_badrange_queue(struct device *dev, phys_addr_t hpa, bool inject,
			 u8 keep)
{
	struct cxlv_dev *cxlv = to_cxlv_dev(dev);
	struct cxlv_badrange *br = cxlv->badrange;
	struct cxlv_badrange_op op = {
		.hpa = hpa,
		.inject = inject,
		.keep = keep,
	};

	if (!cxlv->params.pmem)
		return;
	if (!kfifo_in_spinlocked(&br->ops, &op, 1, &br->ops_lock))
		dev_warn_ratelimited(dev, "badblocks miss poison at %pa\n",
				     &hpa);
	schedule_work(&br->work);
}

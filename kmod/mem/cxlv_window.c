// SPDX-License-Identifier: GPL-2.0-only
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ioport.h>
#include <linux/module.h>
#include <linux/workqueue.h>

#include "cxlv.h"

/**
 * DOC: cxl_virt CXL window ownership
 *
 * The CXL window is the one part of a device's range where others may claim
 * memory: CXL regions insert their HPA range there, and nd_pmem, device-dax
 * and kmem claim below those. While the device has no region nobody has any
 * business there, so the window is fenced: one busy claim over all of it
 * (over each of its two parts where the device has a root window for each
 * kind of capacity, cxlv_window_split()), below which nobody can request
 * anything. The first region takes the fence
 * down, and the module is pinned (a module reference) for as long as the
 * window is open. Once the last region has gone the fence goes up again and
 * the pin is dropped. When the fence cannot go up, the window holds memory
 * of another owner (the "System RAM (kmem)" kmem could not take offline,
 * another driver's request_mem_region() made while a region was there): the
 * pin stays, so rmmod is refused and so is remove, the log says where, and
 * the fence is tried again every second and on every remove until that
 * memory is released.
 *
 * Hence a window that holds anything of another owner always pins the
 * module, and module exit only ever meets fenced, empty windows.
 */

#define CXLV_REFENCE_DELAY	HZ

/* Drops the fence; the caller holds window_lock. */
static void cxlv_window_unfence(struct cxlv_dev *cxlv)
{
	while (cxlv->fenced) {
		struct cxlv_span *f = &cxlv->fence[--cxlv->fenced];

		__release_region(cxlv->window_res, f->start, f->size);
	}
}

/*
 * Puts the fence up over each root window (the whole CXL window, or its
 * volatile and persistent parts); the caller holds window_lock. @hpa is the
 * HPA range of a region that just went, which the CXL core removes from its
 * root window right after: the fence then covers it from the inside, and
 * remove_resource() hands that piece up to the root window.
 */
static bool cxlv_window_fence(struct cxlv_dev *cxlv, struct resource *hpa)
{
	struct resource *parent[ARRAY_SIZE(cxlv->fence)];
	struct cxlv_span want[ARRAY_SIZE(cxlv->fence)];
	unsigned int i, n = 0;

	if (cxlv->fenced)
		return true;
	if (cxlv->regions)
		return false;
	for (i = 0; i < cxlv->nr_windows; i++) {
		struct resource *w = cxlv->windows[i];

		if (!hpa || hpa->parent != w) {
			parent[n] = w;
			want[n++] = (struct cxlv_span){ w->start,
							resource_size(w) };
			continue;
		}
		if (hpa->start > w->start) {
			parent[n] = w;
			want[n++] = (struct cxlv_span){ w->start,
							hpa->start - w->start };
		}
		parent[n] = hpa;
		want[n++] = (struct cxlv_span){ hpa->start, resource_size(hpa) };
		if (hpa->end < w->end) {
			parent[n] = w;
			want[n++] = (struct cxlv_span){ hpa->end + 1,
							w->end - hpa->end };
		}
	}
	for (i = 0; i < n; i++) {
		if (!__request_region(parent[i], want[i].start, want[i].size,
				      "cxl_virt idle", 0)) {
			cxlv_window_unfence(cxlv);
			return false;
		}
		cxlv->fence[cxlv->fenced++] = want[i];
	}
	if (cxlv->pinned) {
		cxlv->pinned = false;
		module_put(THIS_MODULE);
	}
	return true;
}

/* The first busy claim in the window, as walk_iomem_res_desc() copies it. */
static int cxlv_window_first_busy(struct resource *res, void *arg)
{
	*(struct resource *)arg = *res;
	return 1;
}

/* Says where the window holds memory of another owner. */
static void cxlv_window_report(struct cxlv_dev *cxlv, bool log)
{
	struct resource *w = cxlv->window_res;
	struct resource found = *w;

	walk_iomem_res_desc(IORES_DESC_NONE, IORESOURCE_MEM | IORESOURCE_BUSY,
			    w->start, w->end, &found, cxlv_window_first_busy);
	if (!log) {
		cxlv_set_error("%s: %s holds memory of another owner at %#llx-%#llx (see /proc/iomem); refusing to release it",
			       dev_name(&cxlv->dev), w->name, (u64)found.start,
			       (u64)found.end);
		return;
	}
	dev_err(&cxlv->dev, "%s holds memory of another owner at %#llx-%#llx (%s, see /proc/iomem); rmmod and remove refused until it is released\n",
		w->name, (u64)found.start, (u64)found.end,
		found.flags & IORESOURCE_SYSRAM ?
		"System RAM that could not go offline" : "a driver's claim");
}

static void cxlv_window_refence(struct work_struct *work)
{
	struct cxlv_dev *cxlv = container_of(to_delayed_work(work),
					     struct cxlv_dev, refence);

	mutex_lock(&cxlv->window_lock);
	if (cxlv->fenced || cxlv->regions) {
		mutex_unlock(&cxlv->window_lock);
		return;
	}
	if (cxlv_window_fence(cxlv, NULL)) {
		if (cxlv->reported)
			dev_info(&cxlv->dev, "%s is free again\n",
				 cxlv->window_res->name);
	} else {
		if (!cxlv->reported)
			cxlv_window_report(cxlv, true);
		cxlv->reported = true;
		schedule_delayed_work(&cxlv->refence, CXLV_REFENCE_DELAY);
	}
	mutex_unlock(&cxlv->window_lock);
}

/**
 * cxlv_window_init() - prepare the window's state
 * @cxlv: device whose range is about to be claimed
 *
 * Before anything can fail: cxlv_window_exit() runs on every way out. The
 * fence goes up with cxlv_window_check() once the window is in iomem.
 */
void cxlv_window_init(struct cxlv_dev *cxlv)
{
	mutex_init(&cxlv->window_lock);
	INIT_DELAYED_WORK(&cxlv->refence, cxlv_window_refence);
}

/**
 * cxlv_window_exit() - drop the fence, or the pin, before the window goes
 * @cxlv: device being torn down; a pinned window means its probe failed
 *
 * Whatever still hangs in the window is handed up, not unlinked
 * (cxlv_mem_unclaim()). A region that a racing create-region adds while
 * the device unbinds goes only with the device itself, after this: its
 * events find the window closed and leave it alone.
 */
void cxlv_window_exit(struct cxlv_dev *cxlv)
{
	if (!cxlv->window_res)
		return;
	cancel_delayed_work_sync(&cxlv->refence);
	mutex_lock(&cxlv->window_lock);
	cxlv->closed = true;
	cxlv_window_unfence(cxlv);
	if (cxlv->pinned)
		module_put(THIS_MODULE);
	cxlv->pinned = false;
	mutex_unlock(&cxlv->window_lock);
}

/**
 * cxlv_window_split() - a root window for each kind of capacity
 * @cxlv: device being probed, its endpoints' partition layouts read
 *
 * A root decoder gives a region the lowest free HPA of its window, and the
 * identity the data relies on (HPA = window start + ways x DPA,
 * cxlv_emu.c) wants a region over the persistent partition after the
 * volatile partition's HPA. So a device with both kinds gets two root
 * windows, as a platform with a volatile and a persistent CFMWS has: the
 * volatile part of the CXL window, then the persistent part, each a child
 * of it in iomem and fenced on its own. Other devices keep the one window.
 * A claim that slips into the window while the fence is down fails the
 * split, and the probe with it.
 *
 * Return: 0, or a negative errno (logged).
 */
int cxlv_window_split(struct cxlv_dev *cxlv)
{
	struct resource *w = cxlv->window_res;
	u64 ram = cxlv_ram_bytes(cxlv);
	unsigned int i;
	int rc = 0;

	cxlv->windows[0] = w;
	cxlv->nr_windows = 1;
	if (!ram || ram >= resource_size(w))
		return 0;
	cxlv->parts[0] = (struct resource)
		DEFINE_RES_MEM_NAMED(w->start, ram, "CXL volatile window");
	cxlv->parts[1] = (struct resource)
		DEFINE_RES_MEM_NAMED(w->start + ram, resource_size(w) - ram,
				     "CXL persistent window");
	mutex_lock(&cxlv->window_lock);
	cxlv_window_unfence(cxlv);
	for (i = 0; i < ARRAY_SIZE(cxlv->parts) && !rc; i++)
		rc = request_resource(w, &cxlv->parts[i]);
	if (!rc) {
		for (i = 0; i < ARRAY_SIZE(cxlv->parts); i++)
			cxlv->windows[i] = &cxlv->parts[i];
		cxlv->nr_windows = ARRAY_SIZE(cxlv->parts);
	}
	if (!cxlv_window_fence(cxlv, NULL) && !rc)
		rc = -EBUSY;
	mutex_unlock(&cxlv->window_lock);
	if (rc)
		dev_err(&cxlv->dev, "cannot split %s into its volatile and persistent windows: %d (see /proc/iomem)\n",
			w->name, rc);
	return rc;
}

/**
 * cxlv_window_region_added() - a region came: open the window, pin
 * @cxlv: device whose root decoder got a region
 *
 * If the module is already going, the window stays fenced and the region
 * cannot get memory; it goes with the device.
 */
void cxlv_window_region_added(struct cxlv_dev *cxlv)
{
	mutex_lock(&cxlv->window_lock);
	if (cxlv->closed) {
		mutex_unlock(&cxlv->window_lock);
		return;
	}
	if (!cxlv->regions++ && cxlv->fenced) {
		if (try_module_get(THIS_MODULE)) {
			cxlv_window_unfence(cxlv);
			cxlv->pinned = true;
		} else {
			dev_dbg(&cxlv->dev, "unloading: %s stays fenced\n",
				cxlv->window_res->name);
		}
	}
	mutex_unlock(&cxlv->window_lock);
}

/**
 * cxlv_window_region_removed() - a region went: fence the window again
 * @cxlv: device whose root decoder lost a region
 * @hpa: the region's HPA range, which the CXL core removes after this
 *
 * If the fence cannot go up now, it is tried again (and the reason logged)
 * a second later, once everything the region's teardown releases is gone.
 */
void cxlv_window_region_removed(struct cxlv_dev *cxlv, struct resource *hpa)
{
	mutex_lock(&cxlv->window_lock);
	if (cxlv->closed) {
		mutex_unlock(&cxlv->window_lock);
		return;
	}
	if (!--cxlv->regions && !cxlv_window_fence(cxlv, hpa)) {
		cxlv->reported = false;
		schedule_delayed_work(&cxlv->refence, CXLV_REFENCE_DELAY);
	}
	mutex_unlock(&cxlv->window_lock);
}

/**
 * cxlv_window_check() - fence the window, or say why it cannot be
 * @cxlv: a device just tiled, or about to be removed and with no region
 *
 * Return: 0, or -EBUSY with the reason recorded.
 */
int cxlv_window_check(struct cxlv_dev *cxlv)
{
	int rc = 0;

	mutex_lock(&cxlv->window_lock);
	if (!cxlv_window_fence(cxlv, NULL)) {
		cxlv_window_report(cxlv, false);
		rc = -EBUSY;
	}
	mutex_unlock(&cxlv->window_lock);
	return rc;
}

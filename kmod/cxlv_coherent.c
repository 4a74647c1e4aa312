// SPDX-License-Identifier: GPL-2.0-only
/**
 * DOC: cxl_virt regions on a CPU that cannot invalidate its caches
 *
 * From 6.2 the CXL core invalidates the CPU caches before it commits a
 * region's decoders and before it resets them (drivers/cxl/core/region.c
 * cxl_region_invalidate_memregion(), from commit_store() and
 * cxl_region_decode_reset()): on real hardware a decoder change puts other
 * media behind the region's host physical addresses, and lines cached
 * before would be stale. The invalidation is WBINVD on every CPU, which
 * cpu_cache_has_invalidate_memregion() allows only when the CPU reports no
 * hypervisor. In a VM the core refuses instead: a dev_WARN "Failed to
 * synchronize CPU cache state" and -ENXIO, so no region commits.
 *
 * A cxl_virt region's memory is host RAM that stays at the same physical
 * address whatever the decoders say, and no device writes to it behind the
 * caches: there is nothing to invalidate. So while the CPU cannot invalidate,
 * kprobes make the check succeed and the invalidation do nothing, for the
 * task inside commit_store() or cxl_region_decode_reset() of a region below
 * a cxl_virt root decoder only. Every target of such a region is a cxl_virt
 * memdev (the root's one downstream port leads to the device's own
 * endpoint); every other region meets the kernel's check unchanged. Where
 * the CPU can invalidate (bare metal) nothing is armed and the core
 * invalidates as always. coherent_regions=0 turns this off; then, and on a
 * kernel where a probe cannot be placed, the core refuses cxl_virt's
 * regions in a VM as it refuses any other. /sys/bus/cxl_virt/cache_invalidation
 * says which case holds.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/memregion.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "cxlv.h"

static bool coherent_regions = true;
module_param(coherent_regions, bool, 0444);
MODULE_PARM_DESC(coherent_regions,
		 "under a hypervisor, let cxl_virt's regions commit without the CPU cache invalidation the CXL core cannot do there (default: on)");

enum cxlv_coherent_state {
	CXLV_COHERENT_NONE,		/* the CXL core never invalidates */
	CXLV_COHERENT_CPU,		/* the CPU invalidates, as asked */
	CXLV_COHERENT_SKIPPED,		/* cxl_virt's regions skip it */
	CXLV_COHERENT_OFF,		/* coherent_regions=0: refused */
	CXLV_COHERENT_UNAVAILABLE,	/* no probe on this kernel: refused */
};

static const char *const cxlv_coherent_names[] = {
	[CXLV_COHERENT_NONE] = "none",
	[CXLV_COHERENT_CPU] = "cpu",
	[CXLV_COHERENT_SKIPPED] = "skipped",
	[CXLV_COHERENT_OFF] = "off",
	[CXLV_COHERENT_UNAVAILABLE] = "unavailable",
};

static enum cxlv_coherent_state cxlv_coherent_state;

static ssize_t cache_invalidation_show(CXLV_BUS_CONST struct bus_type *bus,
				       char *buf)
{
	return sysfs_emit(buf, "%s\n", cxlv_coherent_names[cxlv_coherent_state]);
}

struct bus_attribute bus_attr_cache_invalidation =
	__ATTR(cache_invalidation, 0444, cache_invalidation_show, NULL);

#ifdef CXLV_HAVE_REGION_CACHE_INVALIDATE
CXLV_IMPORT_NS_DEVMEM();

/*
 * A task inside commit_store() or cxl_region_decode_reset() of one of
 * cxl_virt's regions; lives in the kretprobe instance of that call.
 */
struct cxlv_coherent_task {
	struct list_head node;
	struct task_struct *task;
	struct device *region;
};

/* One of cxl_virt's regions, from its device_add() to its device_del(). */
struct cxlv_coherent_region {
	struct list_head node;
	struct device *dev;
};

/* Both lists; taken in probe handlers, so never sleeps. */
static DEFINE_RAW_SPINLOCK(cxlv_coherent_lock);
static LIST_HEAD(cxlv_coherent_tasks);
static LIST_HEAD(cxlv_coherent_regions);

/* The region whose commit or reset the current task is in, or NULL. */
static struct device *cxlv_coherent_current(void)
{
	struct cxlv_coherent_task *t;
	struct device *region = NULL;
	unsigned long flags;

	raw_spin_lock_irqsave(&cxlv_coherent_lock, flags);
	list_for_each_entry(t, &cxlv_coherent_tasks, node) {
		if (t->task == current) {
			region = t->region;
			break;
		}
	}
	raw_spin_unlock_irqrestore(&cxlv_coherent_lock, flags);
	return region;
}

static void cxlv_coherent_enter(struct kretprobe_instance *ri,
				struct device *region)
{
	struct cxlv_coherent_task *t = (void *)ri->data;
	unsigned long flags;

	t->task = current;
	t->region = region;
	raw_spin_lock_irqsave(&cxlv_coherent_lock, flags);
	list_add(&t->node, &cxlv_coherent_tasks);
	raw_spin_unlock_irqrestore(&cxlv_coherent_lock, flags);
}

static int cxlv_coherent_leave(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	struct cxlv_coherent_task *t = (void *)ri->data;
	unsigned long flags;

	raw_spin_lock_irqsave(&cxlv_coherent_lock, flags);
	list_del(&t->node);
	raw_spin_unlock_irqrestore(&cxlv_coherent_lock, flags);
	return 0;
}

/*
 * commit_store(dev, ...): @dev is compared with cxl_virt's live regions
 * only, never dereferenced, so a probe that met another function of that
 * name would do nothing. Non-zero: no return probe for this call.
 */
static int cxlv_commit_store_entry(struct kretprobe_instance *ri,
				   struct pt_regs *regs)
{
	struct device *dev = (void *)regs_get_kernel_argument(regs, 0);
	struct cxlv_coherent_region *r;
	bool ours = false;
	unsigned long flags;

	raw_spin_lock_irqsave(&cxlv_coherent_lock, flags);
	list_for_each_entry(r, &cxlv_coherent_regions, node)
		ours |= r->dev == dev;
	raw_spin_unlock_irqrestore(&cxlv_coherent_lock, flags);
	if (!ours)
		return 1;
	cxlv_coherent_enter(ri, dev);
	return 0;
}

/*
 * cxl_region_decode_reset(cxlr, count) also runs after device_del() of a
 * committed region being deleted, so it is matched by ancestry: the region
 * pins its root decoder until it is released.
 */
static int cxlv_decode_reset_entry(struct kretprobe_instance *ri,
				   struct pt_regs *regs)
{
	struct cxl_region *cxlr = (void *)regs_get_kernel_argument(regs, 0);

	if (!cxlv_is_our_region(&cxlr->dev))
		return 1;
	cxlv_coherent_enter(ri, &cxlr->dev);
	return 0;
}

static struct kretprobe cxlv_coherent_scopes[] = {
	{
		.kp.symbol_name = "commit_store",
		.entry_handler = cxlv_commit_store_entry,
		.handler = cxlv_coherent_leave,
		.data_size = sizeof(struct cxlv_coherent_task),
	},
	{
		.kp.symbol_name = "cxl_region_decode_reset",
		.entry_handler = cxlv_decode_reset_entry,
		.handler = cxlv_coherent_leave,
		.data_size = sizeof(struct cxlv_coherent_task),
	},
};

/* What the two memregion functions become inside those scopes. */
static bool cxlv_cache_can_invalidate(void)
{
	return true;
}

static int cxlv_cache_invalidate_nothing(CXLV_MEMREGION_INVALIDATE_PARAMS)
{
	return 0;
}

static_assert(__same_type(&cxlv_cache_can_invalidate,
			  &cpu_cache_has_invalidate_memregion));
static_assert(__same_type(&cxlv_cache_invalidate_nothing,
			  &cpu_cache_invalidate_memregion));

/*
 * In scope, the probed function does not run: the handler sends the task
 * to the replacement, entered with the same arguments and return address.
 * Non-zero tells kprobes that the handler moved the instruction pointer.
 */
static int cxlv_has_invalidate_hit(struct kprobe *p, struct pt_regs *regs)
{
	struct device *region = cxlv_coherent_current();

	if (!region)
		return 0;
	dev_info_ratelimited(region,
			     "CPU cache invalidation skipped: cxl_virt memory is host RAM that no device writes behind the caches (cxl_virt.coherent_regions)\n");
	instruction_pointer_set(regs, (unsigned long)cxlv_cache_can_invalidate);
	return 1;
}

static int cxlv_invalidate_hit(struct kprobe *p, struct pt_regs *regs)
{
	if (!cxlv_coherent_current())
		return 0;
	instruction_pointer_set(regs,
				(unsigned long)cxlv_cache_invalidate_nothing);
	return 1;
}

static struct kprobe cxlv_coherent_redirects[] = {
	{
		.symbol_name = "cpu_cache_has_invalidate_memregion",
		.pre_handler = cxlv_has_invalidate_hit,
	},
	{
		.symbol_name = "cpu_cache_invalidate_memregion",
		.pre_handler = cxlv_invalidate_hit,
	},
};

static int cxlv_coherent_region_event(struct notifier_block *nb,
				      unsigned long action, void *data)
{
	struct cxlv_coherent_region *r, *n;
	struct device *dev = data;
	unsigned long flags;

	if (!cxlv_is_our_region(dev))
		return NOTIFY_DONE;
	if (action == BUS_NOTIFY_ADD_DEVICE) {
		/* Without an entry the core refuses the commit: ENXIO. */
		r = kzalloc(sizeof(*r), GFP_KERNEL);
		if (!r)
			return NOTIFY_DONE;
		r->dev = dev;
		raw_spin_lock_irqsave(&cxlv_coherent_lock, flags);
		list_add(&r->node, &cxlv_coherent_regions);
		raw_spin_unlock_irqrestore(&cxlv_coherent_lock, flags);
	} else if (action == BUS_NOTIFY_REMOVED_DEVICE) {
		/* Its attributes are gone: no commit_store() can come now. */
		raw_spin_lock_irqsave(&cxlv_coherent_lock, flags);
		list_for_each_entry_safe(r, n, &cxlv_coherent_regions, node) {
			if (r->dev == dev) {
				list_del(&r->node);
				kfree(r);
			}
		}
		raw_spin_unlock_irqrestore(&cxlv_coherent_lock, flags);
	}
	return NOTIFY_OK;
}

static struct notifier_block cxlv_coherent_nb = {
	.notifier_call = cxlv_coherent_region_event,
};

/* Unregisters the redirects, then the first @scopes scopes, then the notifier. */
static void cxlv_coherent_disarm(size_t redirects, size_t scopes)
{
	while (redirects--)
		unregister_kprobe(&cxlv_coherent_redirects[redirects]);
	while (scopes--)
		unregister_kretprobe(&cxlv_coherent_scopes[scopes]);
	bus_unregister_notifier(&cxl_bus_type, &cxlv_coherent_nb);
}

/* Arms every probe or none; names the one that failed. */
static int cxlv_coherent_arm(void)
{
	size_t scopes, redirects = 0;
	const char *what;
	int rc;

	rc = bus_register_notifier(&cxl_bus_type, &cxlv_coherent_nb);
	if (rc) {
		pr_notice("no CXL bus notifier (%d): cxl_virt regions cannot skip the CPU cache invalidation\n",
			  rc);
		return rc;
	}
	for (scopes = 0; scopes < ARRAY_SIZE(cxlv_coherent_scopes); scopes++) {
		what = cxlv_coherent_scopes[scopes].kp.symbol_name;
		rc = register_kretprobe(&cxlv_coherent_scopes[scopes]);
		if (rc)
			goto undo;
	}
	for (; redirects < ARRAY_SIZE(cxlv_coherent_redirects); redirects++) {
		what = cxlv_coherent_redirects[redirects].symbol_name;
		rc = register_kprobe(&cxlv_coherent_redirects[redirects]);
		if (rc)
			goto undo;
	}
	return 0;

undo:
	cxlv_coherent_disarm(redirects, scopes);
	pr_notice("no kprobe on %s (%d): under this hypervisor the CXL core refuses cxl_virt's regions\n",
		  what, rc);
	return rc;
}

/**
 * cxlv_coherent_init() - decide, once, what region commits need here
 *
 * The CPU's answer does not change while the system runs, so neither
 * does the state.
 */
void cxlv_coherent_init(void)
{
	if (cpu_cache_has_invalidate_memregion()) {
		cxlv_coherent_state = CXLV_COHERENT_CPU;
	} else if (!coherent_regions) {
		cxlv_coherent_state = CXLV_COHERENT_OFF;
		pr_info("the CPU reports a hypervisor and coherent_regions=0: the CXL core refuses cxl_virt's regions\n");
	} else if (cxlv_coherent_arm()) {
		cxlv_coherent_state = CXLV_COHERENT_UNAVAILABLE;
	} else {
		cxlv_coherent_state = CXLV_COHERENT_SKIPPED;
		pr_info("the CPU reports a hypervisor: cxl_virt's regions commit without CPU cache invalidation (coherent_regions=0 to refuse them)\n");
	}
}

void cxlv_coherent_exit(void)
{
	if (cxlv_coherent_state == CXLV_COHERENT_SKIPPED)
		cxlv_coherent_disarm(ARRAY_SIZE(cxlv_coherent_redirects),
				     ARRAY_SIZE(cxlv_coherent_scopes));
}
#else
/* This kernel's CXL core never invalidates: nothing to arm. */
void cxlv_coherent_init(void)
{
	cxlv_coherent_state = CXLV_COHERENT_NONE;
}

void cxlv_coherent_exit(void)
{
}
#endif

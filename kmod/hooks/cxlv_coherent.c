// SPDX-License-Identifier: GPL-2.0-only
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/memregion.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "cxlv_hooks.h"

/**
 * DOC: cxl_virt regions on a CPU that reports a hypervisor
 *
 * From 6.2 the CXL core invalidates the CPU caches before it commits a
 * region's decoders and before it resets them (drivers/cxl/core/region.c
 * cxl_region_invalidate_memregion(), from commit_store() and
 * cxl_region_decode_reset()): on real hardware a decoder change puts other
 * media behind the region's host physical addresses, and lines cached
 * before would be stale. It first asks cpu_cache_has_invalidate_memregion(),
 * which says no when the CPU reports a hypervisor; then the core refuses:
 * a dev_WARN "Failed to synchronize CPU cache state" and -ENXIO, so no
 * region commits in a VM. The kernel offers no other way on x86 (no region
 * flag; 7.x's registered cache-maintenance agents are for architectures
 * with GENERIC_CPU_CACHE_MAINTENANCE, which x86 does not select).
 *
 * A cxl_virt region's memory is host RAM that stays at the same physical
 * address whatever the decoders say. So, while the CPU reports a
 * hypervisor, a kretprobe on cpu_cache_has_invalidate_memregion() changes
 * its answer to yes for the task inside commit_store() or
 * cxl_region_decode_reset() of a region below a cxl_virt root decoder
 * (two more kretprobes mark those tasks), and nothing else: no instruction
 * pointer moves, every handler returns 0 so any other kprobe on the same
 * functions (perf, tracefs, bpftrace) still runs, and the kernel's own
 * cpu_cache_invalidate_memregion() then runs for real (it asks the same
 * function again, a real call on 6.12 and 7.3, and writes back and
 * invalidates every CPU's caches as on bare metal). Every other region and
 * caller meets the kernel's check unchanged. Where the CPU can invalidate
 * (bare metal) nothing is armed.
 *
 * Each probe is placed on the CXL core's function: "cxl_core:SYM" when the
 * core is a module, else the built-in SYM; if the compiler made a clone of
 * a scope function (SYM.constprop.0, .isra.0, .part.0) some calls would not
 * be marked, so nothing is armed and the state is "unavailable", as on a
 * kernel where a probe cannot be placed: the core then refuses cxl_virt's
 * regions as any other.
 *
 * coherent_regions (a module parameter, writable at run time) arms and
 * disarms the probes: turned off, the next commit of a cxl_virt region is
 * refused the kernel's way; turned on again, it passes.
 *
 * A region being deleted is reset after its device is gone (the CXL core's
 * unregister_region() detaches its targets after device_del()), when the
 * region no longer pins the module (cxlv_window.c). So a committed region
 * takes a module reference when its device goes, and the return of its
 * reset drops it: rmmod cannot pull the probes from under that reset.
 * (Module exit also removes the devices before it disarms, and their
 * endpoints' teardown waits for the CXL core's region lock that the
 * deleting task holds over the reset; the reference does not rely on it.)
 */

enum cxlv_coherent_state {
	CXLV_COHERENT_NONE,		/* the CXL core never invalidates */
	CXLV_COHERENT_CPU,		/* the CPU invalidates, as asked */
	CXLV_COHERENT_SKIPPED,		/* cxl_virt's regions pass the check */
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

/* Serializes the switch, init and exit; the state changes under it. */
static DEFINE_MUTEX(cxlv_coherent_mutex);
static enum cxlv_coherent_state cxlv_coherent_state;
static bool coherent_regions = true;

static ssize_t cache_invalidation_show(CXLV_BUS_CONST struct bus_type *bus,
				       char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  cxlv_coherent_names[READ_ONCE(cxlv_coherent_state)]);
}

struct bus_attribute bus_attr_cache_invalidation =
	__ATTR(cache_invalidation, 0444, cache_invalidation_show, NULL);

/**
 * cxlv_coherent_armed() - are the coherent-regions probes in place now?
 *
 * Return: true while cxl_virt's regions pass the kernel's cache check.
 */
bool cxlv_coherent_armed(void)
{
	return READ_ONCE(cxlv_coherent_state) == CXLV_COHERENT_SKIPPED;
}

/**
 * cxlv_coherent_applies() - does this kernel and CPU need the hook?
 *
 * Return: true when the CXL core invalidates on commit and the CPU
 * reports a hypervisor, whatever the switch says.
 */
bool cxlv_coherent_applies(void)
{
	enum cxlv_coherent_state s = READ_ONCE(cxlv_coherent_state);

	return s != CXLV_COHERENT_NONE && s != CXLV_COHERENT_CPU;
}

#ifdef CXLV_HAVE_REGION_CACHE_INVALIDATE
CXLV_IMPORT_NS_DEVMEM();

/* Between init and exit: the switch arms and disarms, else it only stores. */
static bool cxlv_coherent_up;

/*
 * A task inside commit_store() or cxl_region_decode_reset() of one of
 * cxl_virt's regions; lives in the kretprobe instance of that call.
 */
struct cxlv_coherent_task {
	struct list_head node;
	struct task_struct *task;
	struct device *region;
};

/*
 * One of cxl_virt's regions, from its device_add() to its device_del(),
 * or, when it was committed then, to the end of its last reset (@pending:
 * it holds a module reference until then).
 */
struct cxlv_coherent_region {
	struct list_head node;
	struct device *dev;
	bool pending;
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

/* Ends a scope; @reset: a reset ended, which releases a pending region. */
static void cxlv_coherent_leave(struct kretprobe_instance *ri, bool reset)
{
	struct cxlv_coherent_task *t = (void *)ri->data;
	struct cxlv_coherent_region *r, *found = NULL;
	unsigned long flags;

	raw_spin_lock_irqsave(&cxlv_coherent_lock, flags);
	list_del(&t->node);
	list_for_each_entry(r, &cxlv_coherent_regions, node) {
		if (reset && r->pending && r->dev == t->region) {
			list_del(&r->node);
			found = r;
			break;
		}
	}
	raw_spin_unlock_irqrestore(&cxlv_coherent_lock, flags);
	if (!found)
		return;
	kfree(found);
	/* Last: unregistering the probes waits for this handler to return. */
	module_put(THIS_MODULE);
}

static int cxlv_commit_store_exit(struct kretprobe_instance *ri,
				  struct pt_regs *regs)
{
	cxlv_coherent_leave(ri, false);
	return 0;
}

static int cxlv_decode_reset_exit(struct kretprobe_instance *ri,
				  struct pt_regs *regs)
{
	cxlv_coherent_leave(ri, true);
	return 0;
}

/*
 * commit_store(dev, ...): @dev is first compared with cxl_virt's regions,
 * then looked at. Non-zero: no return probe for this call (the other
 * probes on the function run either way).
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
		ours |= r->dev == dev && !r->pending;
	raw_spin_unlock_irqrestore(&cxlv_coherent_lock, flags);
	/* A region in the list is one to look at (an entry may be stale). */
	if (!ours || !cxlv_is_our_region(dev))
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

/* In scope only: the return value is changed, nothing else. */
static int cxlv_has_invalidate_entry(struct kretprobe_instance *ri,
				     struct pt_regs *regs)
{
	struct device *region = cxlv_coherent_current();

	if (!region)
		return 1;
	*(struct device **)ri->data = region;
	return 0;
}

static int cxlv_has_invalidate_exit(struct kretprobe_instance *ri,
				    struct pt_regs *regs)
{
	struct device *region = *(struct device **)ri->data;

	dev_info_ratelimited(region,
			     "CPU cache check answered yes: cxl_virt memory is host RAM that stays at its address (cxl_virt.coherent_regions)\n");
	regs_set_return_value(regs, true);
	return 0;
}

static_assert(__same_type(&cpu_cache_has_invalidate_memregion,
			  bool (*)(void)));

/* "cxl_core:", a function's name and a clone suffix fit. */
#define CXLV_SYM_LEN	96

/* What each probe is; the kretprobes are set up anew from it each time. */
struct cxlv_coherent_probe {
	const char *symbol;
	kretprobe_handler_t entry, exit;
	size_t data_size;
	bool builtin;			/* never in a module */
	char name[CXLV_SYM_LEN];	/* where it was placed */
	struct kretprobe rp;
};

/* The scopes first: the answer is armed last and disarmed first. */
static struct cxlv_coherent_probe cxlv_coherent_probes[] = {
	{
		.symbol = "commit_store",
		.entry = cxlv_commit_store_entry,
		.exit = cxlv_commit_store_exit,
		.data_size = sizeof(struct cxlv_coherent_task),
	},
	{
		.symbol = "cxl_region_decode_reset",
		.entry = cxlv_decode_reset_entry,
		.exit = cxlv_decode_reset_exit,
		.data_size = sizeof(struct cxlv_coherent_task),
	},
	{
		.symbol = "cpu_cache_has_invalidate_memregion",
		.entry = cxlv_has_invalidate_entry,
		.exit = cxlv_has_invalidate_exit,
		.data_size = sizeof(struct device *),
		.builtin = true,
	},
};

/* Is there a function called @name? Placing a bare kprobe tells. */
static bool cxlv_coherent_symbol_exists(const char *name)
{
	struct kprobe kp = { .symbol_name = name };

	if (register_kprobe(&kp))
		return false;
	unregister_kprobe(&kp);
	return true;
}

/* Places @p on the CXL core's function, qualified when it is a module. */
static int cxlv_coherent_place(struct cxlv_coherent_probe *p)
{
	static const char *const clones[] = {
		".constprop.0", ".isra.0", ".part.0",
	};
	static const char *const qualifiers[] = { "cxl_core:", "" };
	char clone[CXLV_SYM_LEN];
	size_t i, q;
	int rc = -ENOENT;

	for (q = p->builtin; q < ARRAY_SIZE(qualifiers); q++) {
		snprintf(p->name, sizeof(p->name), "%s%s", qualifiers[q],
			 p->symbol);
		p->rp = (struct kretprobe) {
			.kp.symbol_name = p->name,
			.entry_handler = p->entry,
			.handler = p->exit,
			.data_size = p->data_size,
		};
		rc = register_kretprobe(&p->rp);
		if (rc != -ENOENT)
			break;
	}
	if (rc) {
		pr_notice("no kretprobe on %s (%d)\n", p->symbol, rc);
		return rc;
	}
	for (i = 0; i < ARRAY_SIZE(clones); i++) {
		snprintf(clone, sizeof(clone), "%s%s", p->name, clones[i]);
		if (cxlv_coherent_symbol_exists(clone)) {
			unregister_kretprobe(&p->rp);
			pr_notice("%s has a clone %s that the probe would not see\n",
				  p->name, clone);
			return -ENOENT;
		}
	}
	return 0;
}

/* Unregisters the first @n probes, last first. */
static void cxlv_coherent_unplace(size_t n)
{
	while (n--)
		unregister_kretprobe(&cxlv_coherent_probes[n].rp);
}

/*
 * Gives a region of ours, live, an entry unless it has one: without it the
 * core refuses the region's commits (ENXIO).
 */
static int cxlv_coherent_track(struct device *dev)
{
	struct cxlv_coherent_region *r, *new;
	unsigned long flags;

	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return 0;
	new->dev = dev;
	raw_spin_lock_irqsave(&cxlv_coherent_lock, flags);
	list_for_each_entry(r, &cxlv_coherent_regions, node) {
		if (r->dev == dev && !r->pending) {
			raw_spin_unlock_irqrestore(&cxlv_coherent_lock, flags);
			kfree(new);
			return 0;
		}
	}
	list_add(&new->node, &cxlv_coherent_regions);
	raw_spin_unlock_irqrestore(&cxlv_coherent_lock, flags);
	return 0;
}

/* bus_for_each_dev() callback: tracks the regions of ours there already. */
static int cxlv_coherent_track_existing(struct device *dev, void *unused)
{
	return cxlv_is_our_region(dev) ? cxlv_coherent_track(dev) : 0;
}

/*
 * Regions of ours are known from their device_add(). Runs before
 * cxlv_port.c's notifier (a higher priority), so that a committed
 * region's reference is taken while its window still pins the module.
 */
static int cxlv_coherent_region_event(struct notifier_block *nb,
				      unsigned long action, void *data)
{
	struct cxlv_coherent_region *r, *found = NULL;
	struct device *dev = data;
	struct cxl_region *cxlr;
	unsigned long flags;
	bool pending;

	if (!cxlv_is_our_region(dev))
		return NOTIFY_DONE;
	if (action == BUS_NOTIFY_ADD_DEVICE) {
		cxlv_coherent_track(dev);
	} else if (action == BUS_NOTIFY_REMOVED_DEVICE) {
		/*
		 * Its attributes are gone: no commit_store() can come now.
		 * Committed, it is reset next (the targets' detach).
		 */
		cxlr = container_of(dev, struct cxl_region, dev);
		pending = cxlr->params.state > CXL_CONFIG_ACTIVE &&
			  try_module_get(THIS_MODULE);
		raw_spin_lock_irqsave(&cxlv_coherent_lock, flags);
		list_for_each_entry(r, &cxlv_coherent_regions, node) {
			if (r->dev == dev && !r->pending) {
				found = r;
				break;
			}
		}
		if (found && pending)
			found->pending = true;
		else if (found)
			list_del(&found->node);
		raw_spin_unlock_irqrestore(&cxlv_coherent_lock, flags);
		if (found && pending)
			return NOTIFY_OK;
		kfree(found);
		if (pending)
			module_put(THIS_MODULE);
	}
	return NOTIFY_OK;
}

static struct notifier_block cxlv_coherent_nb = {
	.notifier_call = cxlv_coherent_region_event,
	.priority = 1,
};

/* Disarms: no handler runs after this, so pending regions let go. */
static void cxlv_coherent_disarm(void)
{
	struct cxlv_coherent_region *r, *n;
	unsigned int puts = 0;
	LIST_HEAD(gone);

	cxlv_coherent_unplace(ARRAY_SIZE(cxlv_coherent_probes));
	bus_unregister_notifier(&cxl_bus_type, &cxlv_coherent_nb);
	raw_spin_lock_irq(&cxlv_coherent_lock);
	list_splice_init(&cxlv_coherent_regions, &gone);
	/* Calls still in a scope never come back to a handler. */
	INIT_LIST_HEAD(&cxlv_coherent_tasks);
	raw_spin_unlock_irq(&cxlv_coherent_lock);
	list_for_each_entry_safe(r, n, &gone, node) {
		puts += r->pending;
		kfree(r);
	}
	while (puts--)
		module_put(THIS_MODULE);
}

/* Arms every probe or none: 0, or a negative errno (logged). */
static int cxlv_coherent_arm(void)
{
	size_t i;
	int rc;

	/* First the notifier, then the regions there already (switch on). */
	rc = bus_register_notifier(&cxl_bus_type, &cxlv_coherent_nb);
	if (rc) {
		pr_notice("no CXL bus notifier (%d)\n", rc);
		return rc;
	}
	bus_for_each_dev(&cxl_bus_type, NULL, NULL,
			 cxlv_coherent_track_existing);
	for (i = 0; i < ARRAY_SIZE(cxlv_coherent_probes); i++) {
		rc = cxlv_coherent_place(&cxlv_coherent_probes[i]);
		if (rc) {
			cxlv_coherent_unplace(i);
			bus_unregister_notifier(&cxl_bus_type,
						&cxlv_coherent_nb);
			return rc;
		}
	}
	return 0;
}

/* The state for switch @on under a hypervisor; arms or disarms. */
static void cxlv_coherent_switch(bool on)
{
	bool armed = cxlv_coherent_state == CXLV_COHERENT_SKIPPED;

	lockdep_assert_held(&cxlv_coherent_mutex);
	if (armed && !on) {
		cxlv_coherent_disarm();
		WRITE_ONCE(cxlv_coherent_state, CXLV_COHERENT_OFF);
		pr_info("coherent_regions=0: the CXL core refuses cxl_virt's regions under this hypervisor\n");
	} else if (!armed && on) {
		if (cxlv_coherent_arm()) {
			WRITE_ONCE(cxlv_coherent_state,
				   CXLV_COHERENT_UNAVAILABLE);
			pr_notice("under this hypervisor the CXL core refuses cxl_virt's regions\n");
			return;
		}
		WRITE_ONCE(cxlv_coherent_state, CXLV_COHERENT_SKIPPED);
		pr_info("the CPU reports a hypervisor: cxl_virt's regions pass the CXL core's cache check (coherent_regions=0 to refuse them)\n");
	} else if (!on) {
		WRITE_ONCE(cxlv_coherent_state, CXLV_COHERENT_OFF);
	}
}

/**
 * cxlv_coherent_init() - decide what region commits need here, arm if on
 *
 * The CPU's answer does not change while the system runs; the switch can.
 */
void cxlv_coherent_init(void)
{
	mutex_lock(&cxlv_coherent_mutex);
	if (cpu_cache_has_invalidate_memregion()) {
		cxlv_coherent_state = CXLV_COHERENT_CPU;
	} else {
		cxlv_coherent_state = CXLV_COHERENT_OFF;
		cxlv_coherent_switch(coherent_regions);
	}
	cxlv_coherent_up = true;
	mutex_unlock(&cxlv_coherent_mutex);
}

void cxlv_coherent_exit(void)
{
	mutex_lock(&cxlv_coherent_mutex);
	cxlv_coherent_up = false;
	if (cxlv_coherent_state == CXLV_COHERENT_SKIPPED)
		cxlv_coherent_disarm();
	mutex_unlock(&cxlv_coherent_mutex);
}

/* coherent_regions written at run time: arm or disarm now. */
static int cxlv_coherent_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int rc;

	rc = kstrtobool(val, &on);
	if (rc)
		return rc;
	mutex_lock(&cxlv_coherent_mutex);
	coherent_regions = on;
	if (cxlv_coherent_up && cxlv_coherent_applies())
		cxlv_coherent_switch(on);
	mutex_unlock(&cxlv_coherent_mutex);
	return 0;
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

static int cxlv_coherent_set(const char *val, const struct kernel_param *kp)
{
	return param_set_bool(val, kp);
}
#endif

static const struct kernel_param_ops cxlv_coherent_ops = {
	.set = cxlv_coherent_set,
	.get = param_get_bool,
};
module_param_cb(coherent_regions, &cxlv_coherent_ops, &coherent_regions,
		0644);
MODULE_PARM_DESC(coherent_regions,
		 "under a hypervisor, let cxl_virt's regions pass the CXL core's CPU cache check (default: on; writable at run time)");

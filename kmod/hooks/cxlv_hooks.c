// SPDX-License-Identifier: GPL-2.0-only
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/sysfs.h>

#include "cxlv_hooks.h"

/**
 * DOC: cxl_virt's hooks into other drivers
 *
 * Every place where the module reaches into another driver, in one table:
 * /sys/bus/cxl_virt/hooks gives each hook's name, whether it is armed now,
 * what it hooks, the kernels it applies to, the run-time switch that turns
 * it off and why it is there (kmod/Documentation/ABI/testing/
 * sysfs-bus-cxl_virt). Each hook's state is read from the file that owns
 * it, through one function declared in cxlv_hooks.h; none of them moves an
 * instruction pointer, so the module never taints the kernel for them.
 */

/*
 * A hook: its name, the state its owner reports and the four facts that do
 * not change: what it hooks, the kernels, its run-time switch and why,
 * tab-separated.
 */
struct cxlv_hook {
	const char *name;
	const char *(*state)(void);
	const char *facts;
};

static const char *cxlv_coherent_hook_state(void)
{
	if (!cxlv_coherent_applies())
		return "not-needed";
	return cxlv_coherent_armed() ? "armed" : "off";
}

static const char *cxlv_doorbell_state(void)
{
	return cxlv_hint_state(true);
}

static const char *cxlv_commit_state(void)
{
	return cxlv_hint_state(false);
}

/* The two switches read at each use: on or off. */
static const char *cxlv_badrange_state(void)
{
	return cxlv_badrange_armed() ? "on" : "off";
}

static const char *cxlv_event_msi_state(void)
{
	return cxlv_event_msi_armed() ? "on" : "off";
}

static const struct cxlv_hook cxlv_hooks[] = {
	{ "coherent-regions", cxlv_coherent_hook_state,
	  "kretprobes: cpu_cache_has_invalidate_memregion (return value), cxl_core:commit_store and cxl_core:cxl_region_decode_reset (scope)\t"
	  "6.2 and later, CPU reports a hypervisor\t/sys/module/cxl_virt/parameters/coherent_regions\t"
	  "the CXL core refuses region commits under a hypervisor; cxl_virt memory is host RAM at a fixed address" },
	{ "mailbox-doorbell", cxlv_doorbell_state,
	  "kprobe: cxl_pci:cxl_pci_mbox_wait_for_doorbell\twhere cxl_pci has it (6.1, 6.12, 7.3)\t/sys/module/cxl_virt/parameters/doorbell_hint\t"
	  "a mailbox command is answered when the doorbell rings, not at the next poll" },
	{ "decoder-commit", cxlv_commit_state,
	  "kprobe: cxl_core:cxl_decoder_commit\tall\t/sys/module/cxl_virt/parameters/commit_hint\t"
	  "the decoder state catches up before the core reads Control" },
	{ "badrange-clear", cxlv_badrange_state,
	  "ops pointer: cxl_pmem nvdimm bus nd_desc->ndctl, for one nvdimm_clear_poison() under the bus device lock\t6.4 and later (poison)\t/sys/module/cxl_virt/parameters/badrange_clear\t"
	  "a cleared poison line leaves the nvdimm bus's badblocks" },
	{ "event-msi", cxlv_event_msi_state,
	  "generic_handle_irq_safe() on the endpoint's MSI irq, from an irq_work on its affinity CPU\t6.3 and later (events)\t/sys/module/cxl_virt/parameters/event_msi\t"
	  "event records are signalled as the device's MSI" },
};

/* One line per hook: name, state, target, kernels, switch, why; tabs. */
static ssize_t hooks_show(CXLV_BUS_CONST struct bus_type *bus, char *buf)
{
	const struct cxlv_hook *h;
	int n = 0;

	for (h = cxlv_hooks; h < cxlv_hooks + ARRAY_SIZE(cxlv_hooks); h++) {
		n += sysfs_emit_at(buf, n, "%s\t%s\t%s\n", h->name, h->state(),
				   h->facts);
	}
	return n;
}

struct bus_attribute bus_attr_hooks = __ATTR(hooks, 0444, hooks_show, NULL);

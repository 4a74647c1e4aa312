// SPDX-License-Identifier: GPL-2.0-only
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitfield.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <asm/cacheflush.h>

#include "cxlv.h"

/**
 * DOC: cxl_virt reserved-range handling
 *
 * Decides whether a range may become a device, computes where BAR0, the
 * label storage area and the 256 MiB aligned device memory go, claims the
 * range in iomem and maps the metadata area once for the emulator.
 *
 * A range is accepted only when the firmware's own memory map (e820 as
 * firmware gave it, before ``memmap=``) calls every page of it RAM, the
 * kernel's map withholds all of it (top-level Reserved, no System RAM), and
 * nobody holds any part of it at any depth of the iomem tree.
 *
 * The claim is one request_mem_region(): under the resource lock it fails
 * on any overlap with anything at any depth and adopts nothing. It is busy,
 * so nobody can request inside it; in it the module places the device's
 * own resource "cxlvN" over the same range, not busy, and tiles that with
 * its children: the PCI windows, the CXL window, fenced (cxlv_window.c),
 * and busy fillers for the unused pieces. Only then does the busy claim
 * leave iomem: remove_resource() moves "cxlvN" up in its place, in one step
 * under the resource lock, and no flag of a resource in the tree ever
 * changes. "cxlvN" must not be busy, because the kernel's stacks must nest
 * below the windows: regions insert their HPA range in the CXL window once
 * the fence is down, nd_pmem, device-dax and kmem request_mem_region()
 * inside those, and the PCI core claims the bridge window and BAR0 in the
 * PCI window. Once the PCI devices exist, every byte of the PCI window that
 * no stock driver claims is made busy too: BAR0 but for the register
 * capabilities a bound cxl_pci and endpoint port map (cxlv_bar.c), and
 * beyond it (cxlv_mem_guard()) the host-bridge component block (no kernel
 * claims it: it has no capability to map) and the label storage area.
 *
 * A range borrowed from System RAM (cxlv_borrow.c) is proven the module's
 * by its own record instead: it is no longer in the kernel's map at all,
 * and the firmware's map was read when it was borrowed (the kernel drops an
 * exactly matching firmware map entry when it removes memory). Its claim
 * nests in the borrowed range's resource, and the borrowed resource lets
 * the stock drivers through only while the claim is tiled.
 *
 * Teardown never unlinks what the module did not insert: resources are
 * removed with remove_resource(), which hands any foreign child to the
 * parent instead of dropping it, and removal is refused before that while
 * the CXL window cannot be fenced (cxlv_window_check()).
 */

/* Walk state for the check below; @next is the first address not seen. */
struct cxlv_walk {
	u64 next;
};

static int cxlv_walk_reserved(struct resource *res, void *arg)
{
	struct cxlv_walk *w = arg;

	if (res->parent != &iomem_resource)
		return 0;	/* only the kernel map's top-level entries count */
	if (res->start > w->next)
		return 1;	/* a hole before this entry */
	w->next = res->end + 1;
	return 0;
}

/**
 * cxlv_mem_validate() - check a requested range and lay it out
 * @p: the request
 * @l: receives the layout on success
 * @borrowed: the range lies in a free range the module borrowed
 *
 * Return: 0; -EINVAL for a misaligned start; -ENOSPC when no ways x 256 MiB
 * aligned block of device memory remains after ways x 1 MiB of metadata;
 * -EBUSY when the range holds System RAM;
 * -EADDRNOTAVAIL when the kernel's map does not withhold all of it or the
 * firmware's map does not call all of it RAM; -EOPNOTSUPP when the kernel
 * does not let modules read the firmware's map. Whether anyone else holds
 * part of it, the claim itself decides. The reason is recorded.
 */
int cxlv_mem_validate(const struct cxlv_params *p, struct cxlv_layout *l,
		       bool borrowed)
{
	static_assert(CXLV_BAR_SIZE <= CXLV_BRIDGE_REGS_OFFSET);
	static_assert(CXLV_BRIDGE_REGS_OFFSET + CXLV_BRIDGE_REGS_SIZE <=
		      CXLV_LSA_OFFSET);
	static_assert(CXLV_META_MAP_SIZE <= CXLV_PCI_WINDOW_SIZE);
	u64 end = p->memstart + p->memsize;	/* no wrap: checked by parser */
	u64 last = end - 1;
	u64 align = (u64)CXLV_WINDOW_ALIGN * p->ways;
	u64 meta = (u64)CXLV_META_SIZE * p->ways;
	struct cxlv_walk w = { .next = p->memstart };
	u64 meta_end;
	int rc;

	if (!IS_ALIGNED(p->memstart, CXLV_START_ALIGN)) {
		cxlv_set_error("create: memstart=%#llx is not 1 MiB aligned",
			       p->memstart);
		return -EINVAL;
	}

	/* alloc_hpa() places a region at a multiple of 256 MiB x ways */
	if (check_add_overflow(p->memstart, meta + align - 1, &meta_end) ||
	    ALIGN_DOWN(meta_end, align) >= end ||
	    ALIGN_DOWN(end, align) <= ALIGN_DOWN(meta_end, align)) {
		cxlv_set_error("create: range %#llx+%#llx too small for ways=%u: need a %llu MiB (ways x 256 MiB) aligned block after %llu KiB of metadata",
			       p->memstart, p->memsize, p->ways, align / SZ_1M,
			       meta / SZ_1K);
		return -ENOSPC;
	}
	l->bar0 = p->memstart;
	l->window_start = ALIGN_DOWN(meta_end, align);
	l->capacity = ALIGN_DOWN(end, align) - l->window_start;

	if (region_intersects(p->memstart, p->memsize, IORESOURCE_SYSTEM_RAM,
			      IORES_DESC_NONE) != REGION_DISJOINT) {
		cxlv_set_error("create: range %#llx-%#llx overlaps System RAM; reserve it with memmap=SIZE$START",
			       p->memstart, last);
		return -EBUSY;
	}
	if (borrowed)
		return 0;

	rc = walk_iomem_res_desc(IORES_DESC_RESERVED, IORESOURCE_MEM,
				 p->memstart, last, &w, cxlv_walk_reserved);
	if (rc || w.next <= last) {
		cxlv_set_error("create: range %#llx-%#llx is not all reserved memory; boot with memmap=SIZE$START",
			       p->memstart, last);
		return -EADDRNOTAVAIL;
	}

	rc = cxlv_fwmap_is_ram(p->memstart, last);
	if (rc < 0) {
		cxlv_set_error("create: cannot read the firmware memory map (/sys/firmware/memmap, CONFIG_FIRMWARE_MEMMAP): %d; no range can be proven RAM",
			       rc);
		return -EOPNOTSUPP;
	}
	if (!rc) {
		cxlv_set_error("create: range %#llx-%#llx is not all RAM in the firmware memory map (e820); only RAM withheld with memmap= can back a device",
			       p->memstart, last);
		return -EADDRNOTAVAIL;
	}
	return 0;
}

bool cxlv_mem_overlaps(const struct cxlv_params *a,
		       const struct cxlv_params *b)
{
	return a->memstart < b->memstart + b->memsize &&
	       b->memstart < a->memstart + a->memsize;
}

/* Stable per range, never 0: "CXLV" above the range's start in MiB. */
u64 cxlv_default_serial(u64 memstart)
{
	return FIELD_PREP(CXLV_SERIAL_TAG_MASK, CXLV_SERIAL_TAG) |
	       FIELD_PREP(CXLV_SERIAL_START_MASK, memstart / SZ_1M);
}

/* Removes one of our resources; a foreign child moves up, it is not lost. */
static void cxlv_res_remove(struct cxlv_dev *cxlv, struct resource *res)
{
	if (!res || !res->parent)
		return;
	if (res->child)
		dev_warn(&cxlv->dev, "%s still holds another owner's resource; it moves up to %s, untouched\n",
			 res->name, res->parent->name);
	remove_resource(res);
}

/* Inserts @res into @parent, while the busy claim keeps others out. */
static int cxlv_res_add(struct cxlv_dev *cxlv, struct resource *parent,
			struct resource *res)
{
	int rc = request_resource(parent, res);

	if (rc)
		cxlv_set_error("%s: cannot place %s at %#llx in the range: %d",
			       dev_name(&cxlv->dev), res->name,
			       (u64)res->start, rc);
	return rc;
}

/*
 * Lets the busy claim go: its child, the device's own resource, moves up in
 * its place in the same step. request_mem_region() allocated it with
 * kzalloc().
 */
static void cxlv_claim_release(struct resource *claim)
{
	remove_resource(claim);
	kfree(claim);
}

/* Tiles the claimed range with the PCI window, the CXL window and fillers. */
static int cxlv_mem_tile(struct cxlv_dev *cxlv, const char *window_name)
{
	const struct cxlv_layout *l = &cxlv->layout;
	u64 end = cxlv->params.memstart + cxlv->params.memsize;
	u64 window_end = l->window_start + l->capacity;
	u64 meta_end = l->bar0 + (u64)CXLV_META_SIZE * cxlv->params.ways;
	struct cxlv_ep *ep;
	int rc, i;

	cxlv_for_each_ep(cxlv, ep) {
		ep->pci_res = (struct resource)
			DEFINE_RES_NAMED(ep->bar0, CXLV_PCI_WINDOW_SIZE,
					 "cxl_virt PCI",
					 IORESOURCE_MEM | IORESOURCE_PREFETCH |
					 IORESOURCE_MEM_64);
		rc = cxlv_res_add(cxlv, cxlv->range_res, &ep->pci_res);
		if (rc)
			return rc;
	}

	*cxlv->window_res = (struct resource)
		DEFINE_RES_MEM_NAMED(l->window_start, l->capacity,
				     window_name);
	cxlv->window_res->desc = IORES_DESC_CXL;
	rc = cxlv_res_add(cxlv, cxlv->range_res, cxlv->window_res);
	if (rc)
		return rc;
	/* one root window until the probe knows the partitions */
	cxlv->windows[0] = cxlv->window_res;
	cxlv->nr_windows = 1;

	cxlv->unused[0] = (struct resource)
		DEFINE_RES_NAMED(meta_end, l->window_start - meta_end,
				 "cxl_virt unused", IORESOURCE_MEM | IORESOURCE_BUSY);
	cxlv->unused[1] = (struct resource)
		DEFINE_RES_NAMED(window_end, end - window_end,
				 "cxl_virt unused", IORESOURCE_MEM | IORESOURCE_BUSY);
	for (i = 0; i < ARRAY_SIZE(cxlv->unused); i++) {
		if (!resource_size(&cxlv->unused[i]))
			continue;
		rc = cxlv_res_add(cxlv, cxlv->range_res, &cxlv->unused[i]);
		if (rc)
			return rc;
	}
	return 0;
}

/**
 * cxlv_mem_claim() - claim the range for a device about to be registered
 * @cxlv: the device, named, not yet added
 *
 * Claims the range in one busy request, places "cxlvN" in it and tiles
 * that, then lets the busy claim go (see DOC). Called under the same lock
 * as cxlv_mem_validate(), so that a request is checked and claimed in one
 * step. Undone by cxlv_mem_unclaim().
 *
 * Return: 0, -ENOMEM, or -EBUSY when anyone holds any part of the range.
 */
int cxlv_mem_claim(struct cxlv_dev *cxlv)
{
	const struct cxlv_params *p = &cxlv->params;
	struct resource *claim;
	const char *window_name;
	int rc;

	cxlv_window_init(cxlv);
	window_name = kasprintf(GFP_KERNEL, "CXL Window %s",
				dev_name(&cxlv->dev));
	cxlv->window_res = kzalloc(sizeof(*cxlv->window_res), GFP_KERNEL);
	cxlv->range_res = kzalloc(sizeof(*cxlv->range_res), GFP_KERNEL);
	if (!window_name || !cxlv->window_res || !cxlv->range_res) {
		kfree(window_name);
		kfree(cxlv->window_res);
		kfree(cxlv->range_res);
		cxlv->window_res = NULL;
		cxlv->range_res = NULL;
		return -ENOMEM;
	}
	cxlv->window_res->name = window_name;
	*cxlv->range_res = (struct resource)
		DEFINE_RES_MEM_NAMED(p->memstart, p->memsize,
				     dev_name(&cxlv->dev));

	claim = __request_region(cxlv->borrow ?
				 cxlv_borrow_res(cxlv->borrow) :
				 &iomem_resource, p->memstart, p->memsize,
				 "cxl_virt claiming", 0);
	if (!claim) {
		cxlv_mem_unclaim(cxlv);
		cxlv_set_error("create: part of range %#llx-%#llx is already claimed (see /proc/iomem)",
			       p->memstart, p->memstart + p->memsize - 1);
		return -EBUSY;
	}

	rc = cxlv_res_add(cxlv, claim, cxlv->range_res);
	if (!rc)
		rc = cxlv_mem_tile(cxlv, window_name);
	if (!rc)
		rc = cxlv_window_check(cxlv);
	if (rc) {
		cxlv_mem_unclaim(cxlv);
		cxlv_claim_release(claim);
		return rc;
	}
	/* tiled and fenced: "cxlvN" takes the claim's place, busy no more */
	cxlv_claim_release(claim);
	if (cxlv->borrow) {
		rc = cxlv_borrow_open(cxlv->borrow, cxlv);
		if (rc) {
			cxlv_set_error("create: cannot cover the rest of the borrowed range around %s",
				       dev_name(&cxlv->dev));
			cxlv_mem_unclaim(cxlv);
		}
	}
	return rc;
}

/**
 * cxlv_mem_unclaim() - give the range back; idempotent
 * @cxlv: the device
 *
 * Only what cxlv_mem_claim() inserted is removed, children first. The
 * window's resource leaves iomem but stays allocated (cxlv_mem_free()):
 * the root decoder, and a region made while the device unbinds, may still
 * point at it.
 */
void cxlv_mem_unclaim(struct cxlv_dev *cxlv)
{
	struct cxlv_ep *ep;
	int i;

	/* busy again first: nobody may request into it while it empties */
	if (cxlv->borrow && cxlv->range_res)
		cxlv_borrow_close(cxlv->borrow);
	if (cxlv->window_res) {
		cxlv_window_exit(cxlv);
		for (i = 0; i < ARRAY_SIZE(cxlv->parts); i++)
			cxlv_res_remove(cxlv, &cxlv->parts[i]);
		cxlv_res_remove(cxlv, cxlv->window_res);
	}
	for (i = 0; i < ARRAY_SIZE(cxlv->unused); i++)
		cxlv_res_remove(cxlv, &cxlv->unused[i]);
	cxlv_for_each_ep(cxlv, ep)
		cxlv_res_remove(cxlv, &ep->pci_res);
	if (cxlv->range_res) {
		cxlv_res_remove(cxlv, cxlv->range_res);
		kfree(cxlv->range_res);
		cxlv->range_res = NULL;
	}
	cxlv->borrow = NULL;
}

/**
 * cxlv_mem_free() - free the window's resource, once the device is released
 * @cxlv: the device, unclaimed
 */
void cxlv_mem_free(struct cxlv_dev *cxlv)
{
	if (!cxlv->window_res)
		return;
	kfree(cxlv->window_res->name);
	kfree(cxlv->window_res);
	cxlv->window_res = NULL;
}

static void cxlv_mem_release(void *data)
{
	struct cxlv_dev *cxlv = data;
	struct cxlv_ep *ep;

	cxlv_for_each_ep(cxlv, ep) {
		if (ep->meta)
			iounmap(ep->meta);
		ep->meta = NULL;
	}
	cxlv_mem_unclaim(cxlv);
}

/*
 * Writes back and drops every cached line of @ep's PCI window before it is
 * mapped uncached: the range was RAM mapped write-back (the kernel's, the
 * zeroing of a borrow, a namespace of an earlier device laid out
 * differently), and a dirty line evicted later would overwrite what the
 * emulator and cxl_pci wrote through the uncached mappings. Return: 0 or
 * -ENOMEM.
 */
static int cxlv_mem_flush(struct cxlv_ep *ep)
{
	void *va = memremap(ep->bar0, CXLV_PCI_WINDOW_SIZE, MEMREMAP_WB);

	if (!va)
		return -ENOMEM;
	clflush_cache_range(va, CXLV_PCI_WINDOW_SIZE);
	memunmap(va);
	return 0;
}

/**
 * cxlv_mem_setup() - map the metadata areas of the claimed range
 * @cxlv: device being probed
 *
 * Maps each endpoint's BAR0 and LSA with one uncached mapping, once the
 * caches hold none of its PCI window. Unmapping and the release of the
 * claim are devm: they go when the device unbinds.
 */
int cxlv_mem_setup(struct cxlv_dev *cxlv)
{
	struct cxlv_ep *ep;
	int rc;

	rc = devm_add_action_or_reset(&cxlv->dev, cxlv_mem_release, cxlv);
	if (rc)
		return rc;
	cxlv_for_each_ep(cxlv, ep) {
		if (cxlv_mem_flush(ep))
			return dev_err_probe(&cxlv->dev, -ENOMEM,
					     "cannot map the PCI window of endpoint %u to flush it\n",
					     ep->pos);
		ep->meta = ioremap(ep->bar0, CXLV_META_MAP_SIZE);
		if (!ep->meta)
			return dev_err_probe(&cxlv->dev, -ENOMEM,
					     "cannot map metadata area of endpoint %u\n",
					     ep->pos);
	}
	return 0;
}

/* Marks [@start, @start + @size) of the range busy for the emulator. */
static int cxlv_mem_guard_span(struct cxlv_dev *cxlv, u64 start, u64 size)
{
	if (devm_request_mem_region(&cxlv->dev, start, size,
				    "cxl_virt metadata"))
		return 0;
	return dev_err_probe(&cxlv->dev, -EBUSY,
			     "cannot guard the metadata at %#llx+%#llx: claimed by someone else\n",
			     start, size);
}

/**
 * cxlv_mem_guard() - mark each PCI window beyond BAR0 busy
 * @cxlv: device whose PCI devices are added
 *
 * Only the emulator may touch that memory: the host-bridge component block
 * and the label storage area. BAR0 has its own covers (cxlv_bar.c). The
 * HDM decoders of a host bridge's block are the exception: the host-bridge
 * port's driver maps them (the whole block on 6.1) and holds them while
 * bound (cxlv_emu_bridge_claim()).
 *
 * Return: 0 or -EBUSY with the reason logged.
 */
int cxlv_mem_guard(struct cxlv_dev *cxlv)
{
	const struct cxlv_bar_range *hdm = cxlv_emu_bridge_claim();
	const u64 claim = CXLV_BRIDGE_REGS_OFFSET + hdm->offset;
	const u64 claim_end = claim + hdm->size;
	struct cxlv_ep *ep;
	int rc;

	cxlv_for_each_ep(cxlv, ep) {
		if (!cxlv_hb_decodes(ep)) {
			rc = cxlv_mem_guard_span(cxlv, ep->bar0 + CXLV_BAR_SIZE,
						 CXLV_PCI_WINDOW_SIZE -
						 CXLV_BAR_SIZE);
		} else {
			rc = cxlv_mem_guard_span(cxlv, ep->bar0 + CXLV_BAR_SIZE,
						 claim - CXLV_BAR_SIZE);
			if (!rc)
				rc = cxlv_mem_guard_span(cxlv,
							 ep->bar0 + claim_end,
							 CXLV_PCI_WINDOW_SIZE -
							 claim_end);
		}
		if (rc)
			return rc;
	}
	return 0;
}

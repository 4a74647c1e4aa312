// SPDX-License-Identifier: GPL-2.0-only
/**
 * DOC: cxl_virt reserved-range handling
 *
 * Decides whether a range may become a device (it must be reserved memory,
 * for instance from ``memmap=nn$ss``, free of System RAM and of any other
 * user), computes where BAR0, the label storage area and the 256 MiB
 * aligned device memory go, claims the range in iomem and maps the metadata
 * area once for the emulator.
 */
#include <linux/io.h>
#include <linux/ioport.h>

#include "cxlv.h"

/* Walk state for the checks below; @next is the first address not seen. */
struct cxlv_walk {
	u64 next;
	bool foreign;
};

static int cxlv_walk_reserved(struct resource *res, void *arg)
{
	struct cxlv_walk *w = arg;

	if (res->parent != &iomem_resource)
		return 0;	/* only firmware's top-level entries count */
	if (res->start > w->next)
		return 1;	/* a hole before this entry */
	w->next = res->end + 1;
	return 0;
}

static int cxlv_walk_users(struct resource *res, void *arg)
{
	struct cxlv_walk *w = arg;

	if (res->parent == &iomem_resource && res->desc == IORES_DESC_RESERVED)
		return 0;
	w->foreign = true;
	return 1;
}

/**
 * cxlv_mem_validate() - check a requested range and lay it out
 * @p: the request
 * @l: receives the layout on success
 *
 * Return: 0; -EINVAL for a misaligned start; -ENOSPC when under 256 MiB of
 * device memory remain; -EBUSY when the range holds System RAM or anything
 * else in iomem; -EADDRNOTAVAIL when it is not entirely reserved memory.
 * The reason is recorded with cxlv_set_error().
 */
int cxlv_mem_validate(const struct cxlv_params *p, struct cxlv_layout *l)
{
	static_assert(CXLV_BAR_SIZE <= CXLV_BRIDGE_REGS_OFFSET);
	static_assert(CXLV_BRIDGE_REGS_OFFSET + CXLV_BRIDGE_REGS_SIZE <=
		      CXLV_LSA_OFFSET);
	static_assert(CXLV_META_MAP_SIZE <= CXLV_PCI_WINDOW_SIZE);
	u64 end = p->memstart + p->memsize;	/* no wrap: checked by parser */
	u64 last = end - 1;
	struct cxlv_walk w = { .next = p->memstart };
	int rc;

	if (!IS_ALIGNED(p->memstart, CXLV_START_ALIGN)) {
		cxlv_set_error("create: memstart=%#llx is not 1 MiB aligned",
			       p->memstart);
		return -EINVAL;
	}

	l->bar0 = p->memstart;
	l->lsa = p->memstart + CXLV_LSA_OFFSET;
	l->window_start = ALIGN(p->memstart + CXLV_META_SIZE,
				CXLV_WINDOW_ALIGN);
	if (end < l->window_start ||
	    ALIGN_DOWN(end, CXLV_WINDOW_ALIGN) <= l->window_start) {
		cxlv_set_error("create: range %#llx+%#llx too small: need a 256 MiB aligned block after %u KiB of metadata",
			       p->memstart, p->memsize, CXLV_META_SIZE / SZ_1K);
		return -ENOSPC;
	}
	l->capacity = ALIGN_DOWN(end, CXLV_WINDOW_ALIGN) - l->window_start;

	if (region_intersects(p->memstart, p->memsize, IORESOURCE_SYSTEM_RAM,
			      IORES_DESC_NONE) != REGION_DISJOINT) {
		cxlv_set_error("create: range %#llx-%#llx overlaps System RAM; reserve it with memmap=SIZE$START",
			       p->memstart, last);
		return -EBUSY;
	}

	rc = walk_iomem_res_desc(IORES_DESC_RESERVED, IORESOURCE_MEM,
				 p->memstart, last, &w, cxlv_walk_reserved);
	if (rc || w.next <= last) {
		cxlv_set_error("create: range %#llx-%#llx is not all reserved memory; boot with memmap=SIZE$START",
			       p->memstart, last);
		return -EADDRNOTAVAIL;
	}

	walk_iomem_res_desc(IORES_DESC_NONE, IORESOURCE_MEM, p->memstart, last,
			    &w, cxlv_walk_users);
	if (w.foreign) {
		cxlv_set_error("create: part of range %#llx-%#llx is already in use (see /proc/iomem)",
			       p->memstart, last);
		return -EBUSY;
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
	return CXLV_SERIAL_TAG << 32 | (u32)(memstart >> 20);
}

static void cxlv_mem_release(void *data)
{
	struct cxlv_dev *cxlv = data;

	iounmap(cxlv->meta);
	release_resource(&cxlv->pci_res);
	release_resource(&cxlv->range_res);
}

/**
 * cxlv_mem_setup() - claim the range and map the metadata area
 * @cxlv: device being probed
 *
 * Publishes the range as "cxlvN" and the PCI window inside it in iomem
 * (both nest under the firmware's Reserved entry) and maps BAR0 and the
 * LSA with one uncached mapping. Undone by devm.
 */
int cxlv_mem_setup(struct cxlv_dev *cxlv)
{
	const struct cxlv_params *p = &cxlv->params;
	const char *name = dev_name(&cxlv->dev);
	int rc;

	cxlv->pci_res = (struct resource)
		DEFINE_RES_NAMED(cxlv->layout.bar0, CXLV_PCI_WINDOW_SIZE,
				 "cxl_virt PCI",
				 IORESOURCE_MEM | IORESOURCE_PREFETCH |
				 IORESOURCE_MEM_64);
	rc = insert_resource(&iomem_resource, &cxlv->pci_res);
	if (rc) {
		cxlv_set_error("%s: cannot claim PCI window: %d", name, rc);
		return rc;
	}

	/*
	 * The range may equal the firmware's Reserved entry exactly; inserted
	 * from the top, it would then adopt that entry and take it along on
	 * release. The PCI window is strictly smaller and found the entry, so
	 * insert the range right below it.
	 */
	cxlv->range_res = (struct resource)
		DEFINE_RES_MEM_NAMED(p->memstart, p->memsize, name);
	rc = insert_resource(cxlv->pci_res.parent, &cxlv->range_res);
	if (rc) {
		release_resource(&cxlv->pci_res);
		cxlv_set_error("%s: cannot claim %pR: %d", name,
			       &cxlv->range_res, rc);
		return rc;
	}

	cxlv->meta = ioremap(cxlv->layout.bar0, CXLV_META_MAP_SIZE);
	if (!cxlv->meta) {
		release_resource(&cxlv->pci_res);
		release_resource(&cxlv->range_res);
		cxlv_set_error("%s: cannot map metadata area", name);
		return -ENOMEM;
	}

	return devm_add_action_or_reset(&cxlv->dev, cxlv_mem_release, cxlv);
}

// SPDX-License-Identifier: GPL-2.0-only
/**
 * DOC: cxl_virt BAR0 ownership
 *
 * Endpoint BAR0 is RAM of the device's range, so every byte of it that no
 * stock driver maps is kept busy: "cxl_virt registers" covers below the
 * BAR's resource. The register capabilities (cxlv_emu_bar_caps()) are
 * covered as well whenever their driver is not bound: the device
 * capabilities while cxl_pci is not bound to the endpoint, the HDM decoders
 * while cxl_port is not bound to the endpoint port. A bus notifier uncovers
 * them at BUS_NOTIFY_BIND_DRIVER, before the driver's probe maps them, and
 * covers them again at BUS_NOTIFY_UNBOUND_DRIVER (or DRIVER_NOT_BOUND),
 * after the driver's devm claims are gone.
 *
 * The PCI core releases a removed endpoint's BAR with everything below it,
 * so all covers go at BUS_NOTIFY_DEL_DEVICE, before pci_free_resources().
 * When a rescan brings the endpoint back, BUS_NOTIFY_ADD_DEVICE claims its
 * BAR0 where it was, as probe does, and puts the covers back before any
 * driver can bind. Between the removal and the rescan BAR0's range is free
 * space of the root port's window.
 *
 * The notifiers run in process context under the device lock of the device
 * concerned (and, for PCI add and delete, the PCI rescan lock); bar_lock is
 * taken last and only resource calls happen under it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ioport.h>
#include <linux/pci.h>

#include "cxlv.h"

/*
 * Span @i of BAR0: even spans are the gaps before each capability and after
 * the last (always covered), odd spans the capabilities.
 */
static void cxlv_bar_span(unsigned int i, struct cxlv_span *span,
			  int *owner)
{
	const struct cxlv_bar_range *cap = cxlv_emu_bar_caps();
	unsigned int c = i / 2;
	u32 from, to;

	if (i % 2) {
		span->start = cap[c].offset;
		span->size = cap[c].size;
		*owner = cap[c].owner;
		return;
	}
	from = c ? cap[c - 1].offset + cap[c - 1].size : 0;
	to = c < CXLV_BAR_CAPS ? cap[c].offset : CXLV_BAR_SIZE;
	span->start = from;
	span->size = to > from ? to - from : 0;
	*owner = -1;
}

/*
 * Brings the covers to what the state asks for; the caller holds bar_lock.
 * Return: 0, or -EBUSY if someone else holds part of a span to be covered.
 */
static int cxlv_bar_sync(struct cxlv_dev *cxlv)
{
	struct pci_dev *ep = cxlv->bar_ep;
	unsigned int i;
	int rc = 0;

	for (i = 0; i < ARRAY_SIZE(cxlv->bar_cover); i++) {
		struct resource **cover = &cxlv->bar_cover[i];
		struct cxlv_span span;
		bool want;
		int owner;

		cxlv_bar_span(i, &span, &owner);
		want = ep && span.size &&
		       (owner < 0 || !cxlv->bar_bound[owner]);
		span.start += cxlv->layout.bar0;
		if (!want && *cover) {
			__release_region(&iomem_resource, span.start, span.size);
			*cover = NULL;
		} else if (want && !*cover) {
			*cover = __request_region(&iomem_resource, span.start,
						  span.size,
						  "cxl_virt registers", 0);
			if (!*cover) {
				dev_err_ratelimited(&cxlv->dev, "cannot cover BAR0 at %#llx+%#llx: claimed by someone else (see /proc/iomem)\n",
						    span.start, span.size);
				rc = -EBUSY;
			}
		}
	}
	return rc;
}

static void cxlv_bar_stop(void *data)
{
	struct cxlv_dev *cxlv = data;

	mutex_lock(&cxlv->bar_lock);
	cxlv->bar_live = false;
	cxlv->bar_ep = NULL;
	cxlv_bar_sync(cxlv);
	mutex_unlock(&cxlv->bar_lock);
}

/**
 * cxlv_bar_init() - prepare BAR0's covers
 * @cxlv: device being probed, before its PCI domain exists
 *
 * Return: 0 or -ENOMEM; every cover goes when the device unbinds.
 */
int cxlv_bar_init(struct cxlv_dev *cxlv)
{
	mutex_init(&cxlv->bar_lock);
	return devm_add_action_or_reset(&cxlv->dev, cxlv_bar_stop, cxlv);
}

/**
 * cxlv_bar_start() - cover BAR0 of the endpoint just added
 * @cxlv: device being probed; the caller holds the PCI rescan lock
 *
 * From here on the notifiers keep the covers in step with the drivers.
 *
 * Return: 0 or -EBUSY with the reason recorded.
 */
int cxlv_bar_start(struct cxlv_dev *cxlv)
{
	int rc;

	mutex_lock(&cxlv->bar_lock);
	cxlv->bar_live = true;
	cxlv->bar_ep = cxlv_pci_get_ep(cxlv);
	pci_dev_put(cxlv->bar_ep);	/* only compared from here on */
	rc = cxlv_bar_sync(cxlv);
	mutex_unlock(&cxlv->bar_lock);
	if (rc)
		cxlv_set_error("%s: cannot guard BAR0 at %#llx: claimed by someone else",
			       dev_name(&cxlv->dev), cxlv->layout.bar0);
	return rc;
}

/* Claims a rescanned endpoint's BAR0 where probe had it. */
static void cxlv_bar_claim(struct cxlv_dev *cxlv, struct pci_dev *ep)
{
	struct resource *bar = &ep->resource[0];

	if (bar->parent)
		return;
	if (bar->start != cxlv->layout.bar0 ||
	    pci_claim_resource(ep, 0))
		dev_err(&cxlv->dev, "%s: cannot claim BAR0 %pR at %#llx again\n",
			pci_name(ep), bar, cxlv->layout.bar0);
}

/*
 * Records whether @owner's driver is bound; the caller holds bar_lock.
 * Return: false if @action says nothing about that.
 */
static bool cxlv_bar_bind_event(struct cxlv_dev *cxlv,
				enum cxlv_bar_owner owner, unsigned long action)
{
	switch (action) {
	case BUS_NOTIFY_BIND_DRIVER:
		cxlv->bar_bound[owner] = true;
		return true;
	case BUS_NOTIFY_UNBOUND_DRIVER:
	case BUS_NOTIFY_DRIVER_NOT_BOUND:
		cxlv->bar_bound[owner] = false;
		return true;
	}
	return false;
}

/**
 * cxlv_bar_pci_event() - the endpoint came, went, or changed driver
 * @cxlv: the device whose endpoint it is
 * @ep: the endpoint
 * @action: the BUS_NOTIFY_* event
 */
void cxlv_bar_pci_event(struct cxlv_dev *cxlv, struct pci_dev *ep,
			unsigned long action)
{
	mutex_lock(&cxlv->bar_lock);
	if (action == BUS_NOTIFY_ADD_DEVICE) {
		/* probe's own scan: cxlv_bar_start() covers that one */
		if (!cxlv->bar_live)
			goto unlock;
		cxlv_bar_claim(cxlv, ep);
		if (!ep->resource[0].parent)
			goto unlock;
		cxlv->bar_ep = ep;
		cxlv->bar_bound[CXLV_BAR_OWNER_PCI] = false;
	} else if (action == BUS_NOTIFY_DEL_DEVICE) {
		if (cxlv->bar_ep == ep)
			cxlv->bar_ep = NULL;
	} else if (!cxlv_bar_bind_event(cxlv, CXLV_BAR_OWNER_PCI, action)) {
		goto unlock;
	}
	if (cxlv->bar_live)
		cxlv_bar_sync(cxlv);
unlock:
	mutex_unlock(&cxlv->bar_lock);
}

/**
 * cxlv_bar_port_event() - the endpoint port changed driver
 * @cxlv: the device whose endpoint's port it is
 * @action: the BUS_NOTIFY_* event
 */
void cxlv_bar_port_event(struct cxlv_dev *cxlv, unsigned long action)
{
	mutex_lock(&cxlv->bar_lock);
	if (cxlv_bar_bind_event(cxlv, CXLV_BAR_OWNER_PORT, action) &&
	    cxlv->bar_live)
		cxlv_bar_sync(cxlv);
	mutex_unlock(&cxlv->bar_lock);
}

// SPDX-License-Identifier: GPL-2.0-only
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ioport.h>
#include <linux/pci.h>

#include "cxlv.h"

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
static int cxlv_bar_sync(struct cxlv_ep *ep)
{
	struct pci_dev *pdev = ep->bar_ep;
	unsigned int i;
	int rc = 0;

	for (i = 0; i < ARRAY_SIZE(ep->bar_cover); i++) {
		struct resource **cover = &ep->bar_cover[i];
		struct cxlv_span span;
		bool want;
		int owner;

		cxlv_bar_span(i, &span, &owner);
		want = pdev && span.size &&
		       (owner < 0 || !ep->bar_bound[owner]);
		span.start += ep->bar0;
		if (!want && *cover) {
			__release_region(&iomem_resource, span.start, span.size);
			*cover = NULL;
		} else if (want && !*cover) {
			*cover = __request_region(&iomem_resource, span.start,
						  span.size,
						  "cxl_virt registers", 0);
			if (!*cover) {
				dev_err_ratelimited(&ep->cxlv->dev, "cannot cover BAR0 at %#llx+%#llx: claimed by someone else (see /proc/iomem)\n",
						    span.start, span.size);
				rc = -EBUSY;
			}
		}
	}
	return rc;
}

static void cxlv_bar_stop(void *data)
{
	struct cxlv_ep *ep = data;

	mutex_lock(&ep->bar_lock);
	ep->bar_live = false;
	ep->bar_ep = NULL;
	cxlv_bar_sync(ep);
	mutex_unlock(&ep->bar_lock);
}

/**
 * cxlv_bar_init() - prepare BAR0's covers
 * @ep: endpoint of a device being probed, before its PCI domain exists
 *
 * Return: 0 or -ENOMEM; every cover goes when the device unbinds.
 */
int cxlv_bar_init(struct cxlv_ep *ep)
{
	mutex_init(&ep->bar_lock);
	return devm_add_action_or_reset(&ep->cxlv->dev, cxlv_bar_stop, ep);
}

/**
 * cxlv_bar_start() - cover BAR0 of the endpoint just added
 * @ep: endpoint of a device being probed; the caller holds the PCI rescan
 *	lock
 *
 * From here on the notifiers keep the covers in step with the drivers.
 *
 * Return: 0 or -EBUSY with the reason logged.
 */
int cxlv_bar_start(struct cxlv_ep *ep)
{
	int rc;

	mutex_lock(&ep->bar_lock);
	ep->bar_live = true;
	ep->bar_ep = cxlv_pci_get_ep(ep);
	pci_dev_put(ep->bar_ep);	/* only compared from here on */
	rc = cxlv_bar_sync(ep);
	mutex_unlock(&ep->bar_lock);
	if (rc)
		return dev_err_probe(&ep->cxlv->dev, rc,
				     "cannot guard BAR0 at %#llx: claimed by someone else\n",
				     ep->bar0);
	return 0;
}

/* Claims a rescanned endpoint's BAR0 where probe had it. */
static void cxlv_bar_claim(struct cxlv_ep *ep, struct pci_dev *pdev)
{
	struct resource *bar = &pdev->resource[0];

	if (bar->parent)
		return;
	if (bar->start != ep->bar0 || pci_claim_resource(pdev, 0))
		dev_err(&ep->cxlv->dev, "%s: cannot claim BAR0 %pR at %#llx again\n",
			pci_name(pdev), bar, ep->bar0);
}

/*
 * Records whether @owner's driver is bound; the caller holds bar_lock.
 * Return: false if @action says nothing about that.
 */
static bool cxlv_bar_bind_event(struct cxlv_ep *ep,
				enum cxlv_bar_owner owner, unsigned long action)
{
	switch (action) {
	case BUS_NOTIFY_BIND_DRIVER:
		ep->bar_bound[owner] = true;
		return true;
	case BUS_NOTIFY_UNBOUND_DRIVER:
	case BUS_NOTIFY_DRIVER_NOT_BOUND:
		ep->bar_bound[owner] = false;
		return true;
	}
	return false;
}

/**
 * cxlv_bar_pci_event() - the endpoint came, went, or changed driver
 * @ep: the endpoint of the set it is
 * @pdev: the endpoint's PCI function
 * @action: the BUS_NOTIFY_* event
 */
void cxlv_bar_pci_event(struct cxlv_ep *ep, struct pci_dev *pdev,
			unsigned long action)
{
	mutex_lock(&ep->bar_lock);
	if (action == BUS_NOTIFY_ADD_DEVICE) {
		/* probe's own scan: cxlv_bar_start() covers that one */
		if (!ep->bar_live)
			goto unlock;
		cxlv_bar_claim(ep, pdev);
		if (!pdev->resource[0].parent)
			goto unlock;
		ep->bar_ep = pdev;
		ep->bar_bound[CXLV_BAR_OWNER_PCI] = false;
	} else if (action == BUS_NOTIFY_DEL_DEVICE) {
		if (ep->bar_ep == pdev)
			ep->bar_ep = NULL;
	} else if (!cxlv_bar_bind_event(ep, CXLV_BAR_OWNER_PCI, action)) {
		goto unlock;
	}
	if (ep->bar_live)
		cxlv_bar_sync(ep);
unlock:
	mutex_unlock(&ep->bar_lock);
}

/**
 * cxlv_bar_port_event() - the endpoint port changed driver
 * @ep: the endpoint whose port it is
 * @action: the BUS_NOTIFY_* event
 */
void cxlv_bar_port_event(struct cxlv_ep *ep, unsigned long action)
{
	mutex_lock(&ep->bar_lock);
	if (cxlv_bar_bind_event(ep, CXLV_BAR_OWNER_PORT, action) &&
	    ep->bar_live)
		cxlv_bar_sync(ep);
	mutex_unlock(&ep->bar_lock);
}

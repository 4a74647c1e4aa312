// SPDX-License-Identifier: GPL-2.0-only
#include <linux/pci.h>

#include "cxlv.h"

/**
 * DOC: cxl_virt software PCI domains
 *
 * Each host bridge of a device gets its own PCI domain (from
 * CXLV_DOMAIN_BASE up, like VMD, as ACPI gives each host bridge its own
 * segment) whose host bridge is a child of cxlvN and whose memory windows
 * are the 1 MiB PCI windows of its endpoints in the reserved range. Bus 0
 * holds one emulated root port per endpoint, root port r at devfn (r, 0)
 * with port number r and secondary bus r + 1, where its type-3 endpoint
 * sits.
 * BARs come pre-programmed inside the window and are claimed, not assigned,
 * so they show up in /proc/iomem and pci_enable_device() accepts them.
 *
 * The host bridge offers no AER, PME, hotplug, LTR or DPC: there are no
 * interrupts to deliver them. Config accessors run under the PCI core's raw
 * pci_lock, so they only touch the in-memory models and never sleep.
 *
 * A global ``echo 1 > /sys/bus/pci/rescan`` may run at any moment, and it
 * scans, assigns and adds the devices of every root bus. So the domain is
 * created, scanned and claimed, and its devices added, all in the one
 * section of cxlv_probe() that holds the PCI rescan lock: no rescan sees the
 * domain before its CXL objects and emulator are ready. On the way down the
 * endpoint reads as absent (all-ones, no device) and is removed from the bus
 * in one locked step, so a rescan during teardown finds nothing to bind. That
 * happens before cxlvN unbinds, outside its device lock (cxlv_unregister()).
 * The root port, which the CXL ports name as their dport, goes with the
 * domain.
 */

static struct cxlv_hb *cxlv_pci_hb(struct pci_bus *bus)
{
	return container_of(bus->sysdata, struct cxlv_hb, sysdata);
}

/* The endpoint whose root port forwards to secondary bus @busnr, or NULL. */
static struct cxlv_ep *cxlv_pci_bus_ep(struct cxlv_hb *hb, unsigned int busnr)
{
	unsigned int rp;

	for (rp = 0; rp < cxlv_root_ports(hb->cxlv); rp++) {
		struct cxlv_ep *ep = cxlv_hb_ep(hb, rp);

		if (busnr == ep->rp_cfg.data[PCI_SECONDARY_BUS])
			return ep;
	}
	return NULL;
}

static struct cxlv_cfg_func *cxlv_pci_func(struct pci_bus *bus,
					   unsigned int devfn)
{
	struct cxlv_hb *hb = cxlv_pci_hb(bus);
	struct cxlv_cfg_func *f = NULL;
	struct cxlv_ep *ep;

	if (PCI_FUNC(devfn))
		return NULL;
	if (pci_is_root_bus(bus)) {
		if (PCI_SLOT(devfn) < cxlv_root_ports(hb->cxlv))
			f = &cxlv_hb_ep(hb, PCI_SLOT(devfn))->rp_cfg;
	} else if (!PCI_SLOT(devfn)) {
		ep = cxlv_pci_bus_ep(hb, bus->number);
		f = ep ? &ep->ep_cfg : NULL;
	}
	return f && READ_ONCE(f->present) ? f : NULL;
}

static int cxlv_pci_read(struct pci_bus *bus, unsigned int devfn, int where,
			 int size, u32 *val)
{
	struct cxlv_cfg_func *f = cxlv_pci_func(bus, devfn);

	if (!f) {
		PCI_SET_ERROR_RESPONSE(val);
		return PCIBIOS_DEVICE_NOT_FOUND;
	}
	if (where < 0 || where + size > PCI_CFG_SPACE_EXP_SIZE)
		return PCIBIOS_BAD_REGISTER_NUMBER;
	*val = cxlv_cfg_read(f, where, size);
	return PCIBIOS_SUCCESSFUL;
}

static int cxlv_pci_write(struct pci_bus *bus, unsigned int devfn, int where,
			  int size, u32 val)
{
	struct cxlv_cfg_func *f = cxlv_pci_func(bus, devfn);

	if (!f)
		return PCIBIOS_DEVICE_NOT_FOUND;
	if (where < 0 || where + size > PCI_CFG_SPACE_EXP_SIZE)
		return PCIBIOS_BAD_REGISTER_NUMBER;
	cxlv_cfg_write(f, where, size, val);
	return PCIBIOS_SUCCESSFUL;
}

static struct pci_ops cxlv_pci_ops = {
	.read = cxlv_pci_read,
	.write = cxlv_pci_write,
};

static int cxlv_pci_find_domain(void)
{
	int domain;

	for (domain = CXLV_DOMAIN_BASE;
	     domain < CXLV_DOMAIN_BASE + CXLV_DOMAIN_COUNT; domain++) {
		struct pci_bus *bus = pci_find_bus(domain, 0);

		if (!bus)
			return domain;
	}
	return -ENOSPC;
}

static void cxlv_pci_remove(void *data)
{
	struct cxlv_hb *hb = data;
	struct pci_host_bridge *bridge;
	unsigned int rp;

	if (!hb->bus)
		return;
	bridge = to_pci_host_bridge(hb->bus->bridge);
	pci_lock_rescan_remove();
	for (rp = 0; rp < cxlv_root_ports(hb->cxlv); rp++) {
		struct cxlv_ep *ep = cxlv_hb_ep(hb, rp);

		WRITE_ONCE(ep->rp_cfg.present, false);
		WRITE_ONCE(ep->ep_cfg.present, false);
	}
	pci_stop_root_bus(hb->bus);
	pci_remove_root_bus(hb->bus);
	pci_unlock_rescan_remove();
	put_device(&bridge->dev);
	hb->bus = NULL;
}

/* Every BAR and bridge window must have landed in the PCI window. */
static int cxlv_pci_check_claims(struct cxlv_ep *ep)
{
	struct pci_dev *pdev = cxlv_pci_get_ep(ep);
	struct device *host = &ep->cxlv->dev;
	struct resource *bar;
	int rc = 0;

	if (!pdev)
		return dev_err_probe(host, -ENODEV,
				     "endpoint %u not found on the PCI bus\n",
				     ep->pos);
	bar = &pdev->resource[0];
	if (!bar->parent || resource_size(bar) != CXLV_BAR_SIZE)
		rc = dev_err_probe(host, -EBUSY,
				   "endpoint %u BAR0 %pR not claimed\n",
				   ep->pos, bar);
	pci_dev_put(pdev);
	return rc;
}

/**
 * cxlv_pci_setup() - create, scan and claim a host bridge's PCI domain
 * @hb: host bridge of a device being probed; the PCI windows of its
 *	endpoints must be in iomem
 *
 * The caller holds pci_lock_rescan_remove() until cxlv_pci_add_devices().
 * Devices are scanned but not yet added: drivers may bind only after the
 * CXL ports exist (cxlv_pci_add_devices()). Removal of the whole domain is
 * registered with devm.
 */
int cxlv_pci_setup(struct cxlv_hb *hb)
{
	struct cxlv_dev *cxlv = hb->cxlv;
	struct device *host = &cxlv->dev;
	unsigned int rp, root_ports = cxlv_root_ports(cxlv);
	struct pci_host_bridge *bridge;
	struct pci_bus *bus;
	LIST_HEAD(resources);
	int domain, rc;

	for (rp = 0; rp < root_ports; rp++) {
		struct cxlv_ep *ep = cxlv_hb_ep(hb, rp);

		cxlv_cfg_init_rp(&ep->rp_cfg, ep);
		cxlv_doe_init(&ep->doe, dev_name(host), cxlv_ep_capacity(cxlv),
			      ep->ram_bytes, cxlv->params.pmem,
			      &cxlv->params.perf);
		cxlv_cfg_init_ep(&ep->ep_cfg, ep);
	}
	/*
	 * The host bridge's component block, in its first endpoint's PCI
	 * window: HDM decoders when cxlv_hb_decodes() says so, laid out
	 * before that endpoint's emulator starts answering them.
	 */
	cxlv_emu_init_bridge_regs(cxlv_hb_ep(hb, 0)->meta +
				  CXLV_BRIDGE_REGS_OFFSET,
				  cxlv_hb_decodes(cxlv_hb_ep(hb, 0)) ?
				  root_ports : 0);

	domain = cxlv_pci_find_domain();
	if (domain < 0)
		return dev_err_probe(host, domain, "no free PCI domain\n");
	/* before the bus exists: the action must not run under our lock */
	rc = devm_add_action(host, cxlv_pci_remove, hb);
	if (rc)
		return rc;
	hb->sysdata.domain = domain;
	hb->sysdata.node = NUMA_NO_NODE;
	hb->busn_res = (struct resource)
		DEFINE_RES_NAMED(0, root_ports + 1, "cxl_virt bus",
				 IORESOURCE_BUS);
	for (rp = 0; rp < root_ports; rp++)
		pci_add_resource(&resources, &cxlv_hb_ep(hb, rp)->pci_res);
	pci_add_resource(&resources, &hb->busn_res);

	bus = pci_create_root_bus(host, 0, &cxlv_pci_ops, &hb->sysdata,
				  &resources);
	if (!bus) {
		pci_free_resource_list(&resources);
		return dev_err_probe(host, -ENODEV,
				     "cannot create PCI domain %04x\n", domain);
	}
	hb->bus = bus;

	bridge = to_pci_host_bridge(bus->bridge);
	bridge->native_aer = 0;
	bridge->native_pcie_hotplug = 0;
	bridge->native_shpc_hotplug = 0;
	bridge->native_pme = 0;
	bridge->native_ltr = 0;
	bridge->native_dpc = 0;

	pci_scan_child_bus(bus);
	pci_bus_claim_resources(bus);
	for (rp = 0; rp < root_ports; rp++) {
		rc = cxlv_pci_check_claims(cxlv_hb_ep(hb, rp));
		if (rc)
			return rc;
	}
	return 0;
}

/**
 * cxlv_pci_stop_devices() - take the endpoints off their buses
 * @cxlv: device about to unregister
 *
 * Each endpoint goes absent and leaves the bus in one step, waiting for
 * cxl_pci's probe if one is running and unbinding it: the memdev and its
 * cxl_nvdimm must not outlive the nvdimm bridge, whose 6.12 probe path no
 * longer checks that the bridge is still there. The caller must not hold
 * cxlvN's device lock (see cxlv_unregister()).
 */
void cxlv_pci_stop_devices(struct cxlv_dev *cxlv)
{
	struct cxlv_ep *ep;

	pci_lock_rescan_remove();
	cxlv_for_each_ep(cxlv, ep) {
		struct pci_dev *pdev;

		WRITE_ONCE(ep->ep_cfg.present, false);
		pdev = cxlv_pci_get_ep(ep);
		if (pdev) {
			pci_stop_and_remove_bus_device(pdev);
			pci_dev_put(pdev);
		}
	}
	pci_unlock_rescan_remove();
}

/**
 * cxlv_pci_add_devices() - let cxl_pci (and pcieport) bind
 * @hb: host bridge of a device whose CXL ports and emulators are ready
 *
 * The caller still holds pci_lock_rescan_remove() and cxlvN's device lock:
 * pcieport binds the root ports here, cxl_pci binds the endpoints later in
 * a worker (PROBE_PREFER_ASYNCHRONOUS) that needs cxlvN's lock on 7.x.
 */
void cxlv_pci_add_devices(struct cxlv_hb *hb)
{
	pci_bus_add_devices(hb->bus);
}

/**
 * cxlv_pci_get_ep() - the endpoint's pci_dev, with a reference
 * @ep: endpoint of a device
 *
 * Return: the endpoint or NULL; release with pci_dev_put().
 */
struct pci_dev *cxlv_pci_get_ep(struct cxlv_ep *ep)
{
	if (!ep->hb->sysdata.domain)
		return NULL;
	return pci_get_domain_bus_and_slot(ep->hb->sysdata.domain,
					   ep->rp_cfg.data[PCI_SECONDARY_BUS],
					   PCI_DEVFN(0, 0));
}

/**
 * cxlv_pci_owner() - the endpoint of a device that @dev is
 * @dev: any device
 *
 * Return: the endpoint of a cxlvN or NULL; valid for as long as @dev is
 * registered.
 */
struct cxlv_ep *cxlv_pci_owner(struct device *dev)
{
	struct pci_dev *pdev;

	if (!dev || !dev_is_pci(dev))
		return NULL;
	pdev = to_pci_dev(dev);
	if (pdev->bus->ops != &cxlv_pci_ops || pci_is_root_bus(pdev->bus))
		return NULL;
	return cxlv_pci_bus_ep(cxlv_pci_hb(pdev->bus), pdev->bus->number);
}

/*
 * BAR0's covers follow the endpoint and its driver (cxlv_bar.c). Only an
 * endpoint of one of our domains counts; its domain, whose host bridge
 * holds cxlvN, outlives it.
 */
static int cxlv_pci_event(struct notifier_block *nb, unsigned long action,
			  void *data)
{
	struct cxlv_ep *ep = cxlv_pci_owner(data);

	if (!ep)
		return NOTIFY_DONE;
	cxlv_bar_pci_event(ep, to_pci_dev(data), action);
	return NOTIFY_OK;
}

static struct notifier_block cxlv_pci_nb = {
	.notifier_call = cxlv_pci_event,
};

int cxlv_pci_notifier_init(void)
{
	return bus_register_notifier(&pci_bus_type, &cxlv_pci_nb);
}

void cxlv_pci_notifier_exit(void)
{
	bus_unregister_notifier(&pci_bus_type, &cxlv_pci_nb);
}

// SPDX-License-Identifier: GPL-2.0-only
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/notifier.h>
#include <linux/slab.h>

#include "cxlv.h"
#include "cxl.h"
#include "cxlmem.h"
#include "cxlv_compat.h"

/**
 * DOC: cxl_virt CXL topology
 *
 * Does for one cxlvN what cxl_acpi does for a platform, with the cxlvN
 * device as the bound host:
 *
 * - the CXL root port (rootN), with cxlvN as host and uport;
 * - its dports, one per host bridge: the PCI host bridge of that bridge's
 *   domain, dport id = its index, which is also the uport of the
 *   host-bridge port (the pairing region setup checks);
 * - the device's window, published in iomem by cxlv_mem_setup() as an
 *   IORES_DESC_CXL resource, given to the root decoder for region
 *   allocation (cxl_acpi's pair_cxl_resource(), which 6.1 keeps static);
 * - a root decoder over each root window (the window, or its volatile and
 *   its persistent part: cxlv_window_split()), as many ways as host
 *   bridges, at the set's granularity (CXL r3.0 9.17.1.3 CFMWS), targeting
 *   the dports in order, so that position p of a region sits below target
 *   p mod H;
 * - per host bridge, the PCI bus registration and the host-bridge port,
 *   whose probe finds the root ports as its dports (on kernels that add
 *   dports lazily the module adds them, cxlv_port_add_root_port()). Its
 *   component block has CXLV_HDM_DECODERS HDM decoders (CXL r3.0
 *   8.2.4.19), which the kernel programs for each region through it (to
 *   interleave across the root ports when there are several) and the
 *   emulator of the bridge's first endpoint commits; but with one root
 *   port on a kernel that decodes such a port pass-through anyway (6.1,
 *   CXLV_SINGLE_DPORT_HDM) it has none, so nothing unused is left there;
 * - an nvdimm bridge when the device is persistent;
 * - from 6.9, what cxl_acpi reads from ACPI for the kernel's performance
 *   computation (HMAT generic-port coordinates of each host bridge, the
 *   QTG id of the root decoder and of the device's memory, qos_class=):
 *   cxlv_root_set_perf().
 *
 * Everything is devm on cxlvN and goes away, in reverse, when it unbinds.
 * Regions are devm on the root's uport too, so removal is refused while
 * one exists; a region opens the device's CXL window and pins the module
 * until the window can be fenced again (cxlv_window.c).
 */

/*
 * The CPUs' path to the host bridge, which a generic port's HMAT entries
 * would describe: a few ns through the root complex, and more bandwidth
 * than any device figure (CXLV_PERF_MAX), so that only the device and its
 * link limit what the kernel computes.
 */
#define CXLV_HB_LATENCY_NS	10
#define CXLV_HB_BANDWIDTH_MBS	(CXLV_PERF_MAX + 1)

/**
 * cxlv_port_add_root_port() - make a root port a dport of its host bridge
 * @port: the host-bridge port, bound to cxl_port
 * @rp: a root port below it
 * @port_id: the root port's LNKCAP port number
 *
 * Up to 6.x, cxl_port's probe enumerates a switch port's dports and sets up
 * its decoders. Later kernels do both when the first endpoint below it
 * enumerates (cxl_port's add_dport), and only for a root port that names a
 * component register block in a Register Locator DVSEC; cxl_virt's root
 * port has none (CXL r3.0 8.1.9 makes it optional there). So on those
 * kernels the module does the same steps, in the same order, with no
 * component registers for the dport, before any endpoint can probe.
 *
 * Context: cxlvN's probe, under its device lock and the PCI rescan lock.
 * Takes the port's lock after cxlvN's, the order of those kernels'
 * find_or_add_dport() (the port's host, then the port), which also means
 * that their endpoint probes wait for cxlvN's lock (cxlv_unregister()).
 *
 * Return: 0 or a negative errno.
 */
static int cxlv_port_add_root_port(struct cxl_port *port,
				   struct pci_dev *rp, int port_id)
{
#ifdef CXLV_HAVE_LAZY_DPORTS
	struct cxl_dport *dport;
	int rc;

	guard(device)(&port->dev);
	if (!port->dev.driver)
		return -ENXIO;
	/* the first dport sets the port up, as cxl_port_add_dport() does */
	if (!port->nr_dports) {
		rc = cxl_port_setup_regs(port, port->component_reg_phys);
		if (rc)
			return rc;
		rc = devm_cxl_switch_port_decoders_setup(port);
		if (rc)
			return rc;
	}
	dport = devm_cxl_add_dport(port, &rp->dev, port_id, CXL_RESOURCE_NONE);
	if (IS_ERR(dport))
		return PTR_ERR(dport);
	cxl_port_update_decoder_targets(port, dport);
#endif
	return 0;
}

#ifdef CXLV_HAVE_CXL_ROOT
/*
 * The platform's QTG method (cxl_acpi: the QTG _DSM): every coordinate of
 * the device's memory gets the device's one QoS Throttling Group.
 */
static int cxlv_root_qos_class(struct cxl_root *cxl_root,
			       struct access_coordinate *coord,
			       int entries, int *qos_class)
{
	struct cxlv_dev *cxlv = to_cxlv_dev(cxl_root->port.uport_dev);
	int i;

	for (i = 0; i < entries; i++)
		qos_class[i] = cxlv->params.qos_class;
	return entries;
}
#endif

/**
 * cxlv_root_set_perf() - what a platform gives the CXL core for performance
 * @cxlv: the device, its root decoders added
 * @dport: the root's dport for a host bridge
 * @latency: ns from the CPUs to the host bridge
 * @bandwidth: MB/s from the CPUs to the host bridge
 *
 * From 6.9 the CXL core computes a device's performance from its CDAT
 * (core/cdat.c) only if the root has a qos_class op, the host bridge's
 * dport has access coordinates and a root decoder carries the qos_class
 * that op hands out; cxl_acpi takes them from the QTG _DSM, HMAT's generic
 * port and CFMWS. The op sits behind a pointer in 6.x and is embedded in
 * struct cxl_root in 7.x; 6.1 has none of this and reads no CDAT figures.
 */
static void cxlv_root_set_perf(struct cxlv_dev *cxlv, struct cxl_dport *dport,
			       u32 latency, u32 bandwidth)
{
#ifdef CXLV_HAVE_CXL_ROOT
	static const struct cxl_root_ops ops = {
		.qos_class = cxlv_root_qos_class,
	};
	unsigned int i;

	cxlv_root_set_qos_class(cxlv->root, &ops);
	for (i = 0; i < ACCESS_COORDINATE_MAX; i++)
		dport->coord[i] = (struct access_coordinate) {
			.read_latency = latency,
			.write_latency = latency,
			.read_bandwidth = bandwidth,
			.write_bandwidth = bandwidth,
		};
	for (i = 0; i < cxlv->nr_windows; i++)
		cxlv->cxlrd[i]->qos_class = cxlv->params.qos_class;
#endif
}

/*
 * The root decoder over root window @w (cxlv_window_split()): the volatile
 * or the persistent part of a device with both kinds of capacity, else the
 * whole window, capable of what it holds.
 */
static int cxlv_root_decoder_add(struct cxlv_dev *cxlv, unsigned int w)
{
	struct resource *res = cxlv->windows[w];
	int target_map[CXL_DECODER_MAX_INTERLEAVE] = { 0 };
	u64 ram = cxlv_ram_bytes(cxlv);
	struct cxl_root_decoder *cxlrd;
	struct cxl_decoder *cxld;
	unsigned int i;
	int rc;

	cxlrd = cxl_root_decoder_alloc(cxlv->root, cxlv->params.host_bridges);
	if (IS_ERR(cxlrd))
		return PTR_ERR(cxlrd);

	cxld = &cxlrd->cxlsd.cxld;
	cxld->flags = CXL_DECODER_F_ENABLE | CXL_DECODER_F_TYPE3;
	/* the volatile part comes first in the window */
	if (ram && res->start < cxlv->layout.window_start + ram)
		cxld->flags |= CXL_DECODER_F_RAM;
	if (ram < cxlv->layout.capacity &&
	    res->end >= cxlv->layout.window_start + ram)
		cxld->flags |= CXL_DECODER_F_PMEM;
	cxld->target_type = CXLV_DECODER_TYPE3;
	cxld->hpa_range = (struct range) {
		.start = res->start,
		.end = res->end,
	};
	cxld->interleave_ways = cxlv->params.host_bridges;
	cxld->interleave_granularity = cxlv->params.granularity;
	/* what cxl_acpi's pair_cxl_resource() does: regions allocate here */
	cxlrd->res = res;

	/* the dports in id order: position p sits below target p mod H */
	for (i = 0; i < cxlv->params.host_bridges; i++)
		target_map[i] = i;
	rc = cxlv_decoder_add(cxld, target_map);
	if (rc) {
		put_device(&cxld->dev);
		return rc;
	}
	rc = cxl_decoder_autoremove(&cxlv->dev, cxld);
	if (rc)
		return rc;
	cxlv->cxlrd[w] = cxlrd;
	return 0;
}

/*
 * Host bridge @hb, once it is the root's dport: the PCI bus and the
 * host-bridge port with its root ports as dports. Its component block,
 * in the PCI window of its first endpoint, is laid out already
 * (cxlv_pci_setup()).
 */
static int cxlv_port_add_hb(struct cxlv_hb *hb)
{
	struct cxlv_dev *cxlv = hb->cxlv;
	struct cxlv_ep *first = cxlv_hb_ep(hb, 0);
	struct device *host = &cxlv->dev;
	struct device *bridge = hb->bus->bridge;
	unsigned int rp;
	struct cxl_port *port;
	int rc;

	rc = devm_cxl_register_pci_bus(host, bridge, hb->bus);
	if (rc)
		return dev_err_probe(host, rc,
				     "cannot register PCI bus with CXL\n");

	port = devm_cxl_add_port(host, bridge,
				 first->bar0 + CXLV_BRIDGE_REGS_OFFSET,
				 hb->dport);
	if (IS_ERR(port))
		return dev_err_probe(host, PTR_ERR(port),
				     "cannot add host-bridge port\n");
	if (!port->dev.driver)
		return dev_err_probe(host, -ENXIO,
				     "host-bridge port %s found no root port\n",
				     dev_name(&port->dev));
	for (rp = 0; rp < cxlv_root_ports(cxlv); rp++) {
		struct pci_dev *pdev = pci_get_slot(hb->bus, PCI_DEVFN(rp, 0));

		rc = pdev ? cxlv_port_add_root_port(port, pdev, rp) : -ENODEV;
		pci_dev_put(pdev);
		if (rc)
			return dev_err_probe(host, rc,
					     "cannot add root port %u to %s\n",
					     rp, dev_name(&port->dev));
	}
	return 0;
}

/**
 * cxlv_port_setup() - build the CXL objects of a device
 * @cxlv: device being probed; its PCI domains are scanned, not yet added
 *
 * Return: 0 or a negative errno, with the reason logged.
 */
int cxlv_port_setup(struct cxlv_dev *cxlv)
{
	struct device *host = &cxlv->dev;
	struct cxlv_hb *hb;
	unsigned int i;
	int rc;

	cxlv->root = devm_cxl_add_port(host, host, CXL_RESOURCE_NONE, NULL);
	if (IS_ERR(cxlv->root)) {
		rc = PTR_ERR(cxlv->root);
		cxlv->root = NULL;
		return dev_err_probe(host, rc, "cannot add CXL root port\n");
	}

	/* the dports first: the root decoder targets them */
	cxlv_for_each_hb(cxlv, hb) {
		struct device *bridge = hb->bus->bridge;

		hb->dport = devm_cxl_add_dport(cxlv->root, bridge, hb->idx,
					       CXL_RESOURCE_NONE);
		if (IS_ERR(hb->dport)) {
			rc = PTR_ERR(hb->dport);
			hb->dport = NULL;
			return dev_err_probe(host, rc,
					     "cannot add root dport %s\n",
					     dev_name(bridge));
		}
	}

	for (i = 0; i < cxlv->nr_windows; i++) {
		rc = cxlv_root_decoder_add(cxlv, i);
		if (rc)
			return dev_err_probe(host, rc,
					     "cannot add root decoder\n");
	}
	cxlv_for_each_hb(cxlv, hb)
		cxlv_root_set_perf(cxlv, hb->dport, CXLV_HB_LATENCY_NS,
				   CXLV_HB_BANDWIDTH_MBS);

	cxlv_for_each_hb(cxlv, hb) {
		rc = cxlv_port_add_hb(hb);
		if (rc)
			return rc;
	}

	return 0;
}

/**
 * cxlv_port_add_nvdimm_bridge() - the nvdimm bridge of a pmem device
 * @cxlv: device being probed, after cxlv_port_setup()
 *
 * Return: the bridge, devm on cxlvN, or an ERR_PTR with the reason logged.
 */
struct cxl_nvdimm_bridge *cxlv_port_add_nvdimm_bridge(struct cxlv_dev *cxlv)
{
	struct cxl_nvdimm_bridge *nvb;

	nvb = devm_cxl_add_nvdimm_bridge(&cxlv->dev, cxlv->root);
	if (IS_ERR(nvb))
		dev_err_probe(&cxlv->dev, PTR_ERR(nvb),
			      "cannot add nvdimm bridge\n");
	return nvb;
}

static int cxlv_match_region(struct device *dev, void *data)
{
	const char **region = data;

	if (!is_cxl_region(dev))
		return 0;
	if (region)
		*region = dev_name(dev);
	return 1;
}

/**
 * cxlv_port_has_region() - does a region use the device?
 * @cxlv: a device
 * @region: if not NULL, receives the name of one region
 *
 * Regions hang below the root decoders, and their teardown on unbind would
 * pull memory from under namespaces and mounts, so removal is refused
 * while one exists. Not atomic against a concurrent create_pmem_region,
 * which 6.1 gives modules no lock against.
 */
bool cxlv_port_has_region(struct cxlv_dev *cxlv, const char **region)
{
	unsigned int i;

	for (i = 0; i < cxlv->nr_windows; i++)
		if (cxlv->cxlrd[i] &&
		    device_for_each_child(&cxlv->cxlrd[i]->cxlsd.cxld.dev,
					  region, cxlv_match_region))
			return true;
	return false;
}

/* Is @dev a region below a root decoder of a cxl_virt device? */
bool cxlv_is_our_region(struct device *dev)
{
	struct device *decoder = dev->parent;
	struct cxl_port *root;

	if (!is_cxl_region(dev) || !decoder || !is_root_decoder(decoder))
		return false;
	root = to_cxl_port(decoder->parent);
	return cxlv_port_uport(root) && cxlv_dev_on_bus(cxlv_port_uport(root));
}

/* The device a region of ours belongs to. */
static struct cxlv_dev *cxlv_region_owner(struct device *region)
{
	struct cxl_port *root = to_cxl_port(region->parent->parent);

	return to_cxlv_dev(cxlv_port_uport(root));
}

/* The endpoint of a device whose port @dev is, or NULL. */
static struct cxlv_ep *cxlv_endpoint_port_owner(struct device *dev)
{
	struct device *uport;

	if (!is_cxl_port(dev))
		return NULL;
	uport = cxlv_port_uport(to_cxl_port(dev));
	if (!uport || !is_cxl_memdev(uport))
		return NULL;
	return cxlv_pci_owner(uport->parent);
}

/*
 * Regions open the device's CXL window and pin the module (cxlv_window.c);
 * the endpoint port's driver owns the HDM decoders in BAR0 (cxlv_bar.c).
 */
static int cxlv_region_event(struct notifier_block *nb, unsigned long action,
			     void *data)
{
	struct device *dev = data;
	struct cxlv_ep *owner = cxlv_endpoint_port_owner(dev);

	if (owner) {
		cxlv_bar_port_event(owner, action);
		return NOTIFY_OK;
	}
	if (!cxlv_is_our_region(dev))
		return NOTIFY_DONE;
	if (action == BUS_NOTIFY_ADD_DEVICE)
		cxlv_window_region_added(cxlv_region_owner(dev));
	else if (action == BUS_NOTIFY_REMOVED_DEVICE)
		cxlv_window_region_removed(cxlv_region_owner(dev),
					   container_of(dev, struct cxl_region,
							 dev)->params.res);
	return NOTIFY_OK;
}

static struct notifier_block cxlv_region_nb = {
	.notifier_call = cxlv_region_event,
};

int cxlv_port_region_notifier_init(void)
{
	return bus_register_notifier(&cxl_bus_type, &cxlv_region_nb);
}

void cxlv_port_region_notifier_exit(void)
{
	bus_unregister_notifier(&cxl_bus_type, &cxlv_region_nb);
}

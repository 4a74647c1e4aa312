/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __CXLV_COMPAT_H__
#define __CXLV_COMPAT_H__

#include <linux/device.h>
#include <linux/hrtimer.h>
#include <linux/pci.h>
#include <linux/pci_ids.h>
#include "cxl.h"
#include "cxlv_features.h"
#ifdef CXLV_HAVE_PCI_DVSEC_CXL
#include <cxl/pci.h>
#endif

/**
 * DOC: cxl_virt kernel differences
 *
 * The one place that knows which kernel the module is built for. The base
 * is Debian 12's 6.1; every difference the module meets up to Debian's
 * 6.12 and trixie-backports' 7.3 is a helper or a constant here, named
 * after what it does, so the other files read the same on every kernel. The CXLV_HAVE_* switches come
 * from cxlv_features.h, which scripts/extract-headers.sh generates from the
 * exact kernel's sources: stable updates backport changes, so the version
 * number alone would not say what is there.
 */

/*
 * 6.4 made bus types const: bus_register() and the bus attribute callbacks
 * take a const struct bus_type.
 */
#ifdef CXLV_HAVE_CONST_BUS
#define CXLV_BUS_CONST const
#else
#define CXLV_BUS_CONST
#endif

/*
 * An HDM port's driver claims its whole component register block in 6.1
 * (devm_cxl_setup_hdm()), only the HDM Decoder Capability in it from 6.12
 * on (cxl_map_component_regs() with the HDM bit).
 */
#ifdef CXLV_HAVE_HDM_CAP_CLAIM
#define CXLV_HDM_CLAIMS_BLOCK	0
#else
#define CXLV_HDM_CLAIMS_BLOCK	1
#endif

/* 6.5 renamed cxl_port.uport to uport_dev. */
static inline struct device *cxlv_port_uport(struct cxl_port *port)
{
#ifdef CXLV_HAVE_PORT_UPORT_DEV
	return port->uport_dev;
#else
	return port->uport;
#endif
}

/* 6.5 renamed the type-3 (host-only memory) decoder target type. */
#ifdef CXLV_HAVE_DECODER_HOSTONLYMEM
#define CXLV_DECODER_TYPE3	CXL_DECODER_HOSTONLYMEM
#else
#define CXLV_DECODER_TYPE3	CXL_DECODER_EXPANDER
#endif

/* 6.6 moved the CXL DVSEC vendor ID to pci_ids.h as PCI_VENDOR_ID_CXL. */
#ifdef PCI_VENDOR_ID_CXL
#define CXLV_DVSEC_VENDOR_ID	PCI_VENDOR_ID_CXL
#else
#define CXLV_DVSEC_VENDOR_ID	PCI_DVSEC_VENDOR_ID_CXL
#endif

/*
 * Memory removed from the middle of a System RAM entry splits it in two.
 * Up to 6.x release_mem_region_adjustable() keeps every child in the lower
 * part and WARNs, leaving the entry whole, when one lies above the removed
 * range; 7.x moves such children to the upper part. So before 7.x a borrow
 * from the middle of an entry needs the part above it free of children.
 */
#ifdef CXLV_HAVE_SPLIT_REPARENT
#define CXLV_SPLIT_NEEDS_BARE_TOP	0
#else
#define CXLV_SPLIT_NEEDS_BARE_TOP	1
#endif

/* 6.13 made the namespace of MODULE_IMPORT_NS() a string literal. */
#ifdef CXLV_HAVE_IMPORT_NS_STRING
#define CXLV_IMPORT_NS_CXL()	MODULE_IMPORT_NS("CXL")
#define CXLV_IMPORT_NS_DEVMEM()	MODULE_IMPORT_NS("DEVMEM")
#else
#define CXLV_IMPORT_NS_CXL()	MODULE_IMPORT_NS(CXL)
#define CXLV_IMPORT_NS_DEVMEM()	MODULE_IMPORT_NS(DEVMEM)
#endif

/*
 * 6.14 made the match callback of device_find_child() a device_match_t,
 * whose data is const.
 */
#ifdef CXLV_HAVE_CONST_FIND_CHILD
#define CXLV_FIND_CHILD_DATA	const void
#else
#define CXLV_FIND_CHILD_DATA	void
#endif

/*
 * 7.x names the unbound system workqueue system_dfl_wq and warns once about
 * work queued on the old system_unbound_wq.
 */
#ifdef CXLV_HAVE_SYSTEM_DFL_WQ
#define cxlv_unbound_wq		system_dfl_wq
#else
#define cxlv_unbound_wq		system_unbound_wq
#endif

/* 6.15 replaced hrtimer_init() and the function assignment by hrtimer_setup(). */
static inline void
cxlv_hrtimer_setup(struct hrtimer *timer,
		   enum hrtimer_restart (*fn)(struct hrtimer *),
		   clockid_t clock, enum hrtimer_mode mode)
{
#ifdef CXLV_HAVE_HRTIMER_SETUP
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

/*
 * 6.17 took the target list out of cxl_decoder_add(): the decoder carries
 * it in cxld->target_map. Adds a decoder whose targets are dport ids
 * 0..@ways-1, in that order.
 */
static inline int cxlv_decoder_add(struct cxl_decoder *cxld, int ways)
{
#ifdef CXLV_HAVE_DECODER_TARGET_MAP
	int *target_map = cxld->target_map;
#else
	int target_map[CXL_DECODER_MAX_INTERLEAVE] = { 0 };
#endif
	int i;

	for (i = 0; i < ways; i++)
		target_map[i] = i;
#ifdef CXLV_HAVE_DECODER_TARGET_MAP
	return cxl_decoder_add(cxld);
#else
	return cxl_decoder_add(cxld, target_map);
#endif
}

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
static inline int cxlv_port_add_root_port(struct cxl_port *port,
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
/* cxl_virt's one QoS Throttling Group: every device and root decoder */
#define CXLV_QTG_ID	0

static inline int cxlv_root_qos_class(struct cxl_root *cxl_root,
				      struct access_coordinate *coord,
				      int entries, int *qos_class)
{
	int i;

	for (i = 0; i < entries; i++)
		qos_class[i] = CXLV_QTG_ID;
	return entries;
}
#endif

/**
 * cxlv_root_set_perf() - what a platform gives the CXL core for performance
 * @root: the CXL root port
 * @dport: its dport for the host bridge
 * @cxlrd: its root decoder over that host bridge
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
static inline void cxlv_root_set_perf(struct cxl_port *root,
				      struct cxl_dport *dport,
				      struct cxl_root_decoder *cxlrd,
				      u32 latency, u32 bandwidth)
{
#ifdef CXLV_HAVE_CXL_ROOT
#ifdef CXLV_HAVE_ROOT_OPS_PTR
	static const struct cxl_root_ops ops = {
		.qos_class = cxlv_root_qos_class,
	};

	to_cxl_root(root)->ops = &ops;
#else
	to_cxl_root(root)->ops.qos_class = cxlv_root_qos_class;
#endif
	for (int i = 0; i < ACCESS_COORDINATE_MAX; i++)
		dport->coord[i] = (struct access_coordinate) {
			.read_latency = latency,
			.write_latency = latency,
			.read_bandwidth = bandwidth,
			.write_bandwidth = bandwidth,
		};
	cxlrd->qos_class = CXLV_QTG_ID;
#endif
}

/*
 * 7.x moved the CXL DVSEC definitions from drivers/cxl/cxlpci.h to
 * uapi/linux/pci_regs.h (PCI_DVSEC_CXL_*, fields as masks) and the register
 * block identifiers to <cxl/pci.h>. The module keeps the cxlpci.h names,
 * CXL r3.0 8.1.3 (PCIe DVSEC for CXL Devices) and 8.1.9 (Register Locator
 * DVSEC).
 */
#ifdef CXLV_HAVE_PCI_DVSEC_CXL
#define PCI_DVSEC_HEADER1_LENGTH_MASK		GENMASK(31, 20)
#define CXL_DVSEC_PCIE_DEVICE			PCI_DVSEC_CXL_DEVICE
#define CXL_DVSEC_CAP_OFFSET			PCI_DVSEC_CXL_CAP
#define CXL_DVSEC_MEM_CAPABLE			PCI_DVSEC_CXL_MEM_CAPABLE
#define CXL_DVSEC_HDM_COUNT_MASK		PCI_DVSEC_CXL_HDM_COUNT
#define CXL_DVSEC_CTRL_OFFSET			PCI_DVSEC_CXL_CTRL
#define CXL_DVSEC_MEM_ENABLE			PCI_DVSEC_CXL_MEM_ENABLE
#define CXL_DVSEC_RANGE_SIZE_HIGH(i)		PCI_DVSEC_CXL_RANGE_SIZE_HIGH(i)
#define CXL_DVSEC_RANGE_SIZE_LOW(i)		PCI_DVSEC_CXL_RANGE_SIZE_LOW(i)
#define CXL_DVSEC_MEM_INFO_VALID		PCI_DVSEC_CXL_MEM_INFO_VALID
#define CXL_DVSEC_MEM_ACTIVE			PCI_DVSEC_CXL_MEM_ACTIVE
#define CXL_DVSEC_MEM_SIZE_LOW_MASK		PCI_DVSEC_CXL_MEM_SIZE_LOW
#define CXL_DVSEC_RANGE_BASE_HIGH(i)		PCI_DVSEC_CXL_RANGE_BASE_HIGH(i)
#define CXL_DVSEC_RANGE_BASE_LOW(i)		PCI_DVSEC_CXL_RANGE_BASE_LOW(i)
#define CXL_DVSEC_MEM_BASE_LOW_MASK		PCI_DVSEC_CXL_MEM_BASE_LOW
#define CXL_DVSEC_REG_LOCATOR			PCI_DVSEC_CXL_REG_LOCATOR
#define CXL_DVSEC_REG_LOCATOR_BLOCK1_OFFSET	PCI_DVSEC_CXL_REG_LOCATOR_BLOCK1
#define CXL_DVSEC_REG_LOCATOR_BIR_MASK		PCI_DVSEC_CXL_REG_LOCATOR_BIR
#define CXL_DVSEC_REG_LOCATOR_BLOCK_ID_MASK	PCI_DVSEC_CXL_REG_LOCATOR_BLOCK_ID
#define CXL_DVSEC_REG_LOCATOR_BLOCK_OFF_LOW_MASK \
	PCI_DVSEC_CXL_REG_LOCATOR_BLOCK_OFF_LOW
#endif

#endif /* __CXLV_COMPAT_H__ */

/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __CXLV_COMPAT_H__
#define __CXLV_COMPAT_H__

#include <linux/acpi.h>
#include <linux/device.h>
#include <linux/hrtimer.h>
#include <linux/pci.h>
#include <linux/pci_ids.h>
#include <linux/stddef.h>
#include <linux/uuid.h>
#include "cxl.h"
#include "cxlmem.h"
#include "cxlpci.h"
#include "cxlv_features.h"
#ifdef CXLV_HAVE_PCI_DVSEC_CXL
#include <cxl/pci.h>
#endif

/**
 * DOC: cxl_virt kernel differences
 *
 * The one place that knows which kernel the module is built for. The base
 * is Debian 12's 6.1; every difference the module meets up to Debian's
 * 6.12 and trixie-backports' 7.3 is a switch, a constant or a thin shim
 * here, named after what it does, so the other files read the same on
 * every kernel. Where a kernel needs steps of its own rather than another
 * name (cxlv_port_add_root_port(), cxlv_root_set_perf()), the file that
 * takes them holds them, under the same switch. The CXLV_HAVE_* switches
 * come from cxlv_features.h, which scripts/extract-headers.sh generates
 * from the exact kernel's sources: stable updates backport changes, so the
 * version number alone would not say what is there.
 *
 * Definitions the kernel has are the kernel's: compat.h supplies them, by
 * the kernel's names, only to a kernel whose sources lack them. A layout
 * the module must write on kernels without the kernel's struct (event,
 * poison and CDAT records) is the module's own, asserted field by field
 * against the kernel's where there is one (CXLV_FIELD_AT()).
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
 * RAM regions (create_ram_region, 6.3 on). A partitioned device's pmem
 * region maps its DPA only at the HPA after the volatile part (HPA = window
 * start + DPA, cxlv_emu.c), which the kernel gives it when a RAM region
 * took the window's start first: without RAM regions (6.1) a pmem region
 * over the pmem part would get the window's start and could not commit. So
 * 6.1 has no partitions: Identify's partition alignment is 0 and ram_size=
 * is refused (cxlv_partition.c).
 */
#ifdef CXLV_HAVE_RAM_REGIONS
#define CXLV_PARTITIONS		1
#else
#define CXLV_PARTITIONS		0
#endif

/*
 * Regions committed before the OS looks: from 6.3 (cxl_add_to_region(),
 * drivers/cxl/core/region.c) the endpoint port's probe assembles a region
 * from committed decoders. 6.1 only reports them, and refuses a region
 * over a committed decoder: auto_region=1 is refused there.
 */
#ifdef CXLV_HAVE_AUTO_REGIONS
#define CXLV_AUTO_REGIONS	1
#else
#define CXLV_AUTO_REGIONS	0
#endif

/*
 * Locked regions: from 7.x a region over a decoder committed with Lock On
 * Commit is locked (CXL_REGION_F_LOCK): the core refuses to reset it, and
 * says so in the region's "locked". 6.12 resets it regardless, which the
 * device would ignore while the core believes it: locked=1 is refused
 * there.
 */
#ifdef CXLV_HAVE_REGION_LOCK
#define CXLV_REGION_LOCKS	1
#else
#define CXLV_REGION_LOCKS	0
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

/*
 * A port with one dport: 6.1's cxl_port_probe() always decodes it
 * pass-through, with one decoder, so a host bridge with one root port
 * carries one region at a time whatever its registers say; from 6.12 on
 * the port uses the HDM decoders its component block has and falls back to
 * pass-through only without them (the "Fallback to passthrough decoder"
 * path).
 */
#ifdef CXLV_HAVE_SINGLE_DPORT_HDM
#define CXLV_SINGLE_DPORT_HDM	1
#else
#define CXLV_SINGLE_DPORT_HDM	0
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
 * it in cxld->target_map (of u32 in 7.3).
 */
static inline int cxlv_decoder_add(struct cxl_decoder *cxld,
				   int target_map[CXL_DECODER_MAX_INTERLEAVE])
{
#ifdef CXLV_HAVE_DECODER_TARGET_MAP
	static_assert(sizeof(cxld->target_map) ==
		      CXL_DECODER_MAX_INTERLEAVE * sizeof(*target_map));
	memcpy(cxld->target_map, target_map, sizeof(cxld->target_map));
	return cxl_decoder_add(cxld);
#else
	return cxl_decoder_add(cxld, target_map);
#endif
}

/*
 * 6.9 added struct cxl_root, whose ops sit behind a pointer in 6.x and are
 * embedded in 7.x. Gives the root @ops' qos_class op. Before it no QoS
 * class exists: qos_class= is refused.
 */
#ifdef CXLV_HAVE_CXL_ROOT
#define CXLV_QOS_CLASSES	1
static inline void cxlv_root_set_qos_class(struct cxl_port *root,
					   const struct cxl_root_ops *ops)
{
#ifdef CXLV_HAVE_ROOT_OPS_PTR
	to_cxl_root(root)->ops = ops;
#else
	to_cxl_root(root)->ops.qos_class = ops->qos_class;
#endif
}
#else
#define CXLV_QOS_CLASSES	0
#endif

/*
 * Definitions 6.1's drivers/cxl headers and ACPICA lack, by the names the
 * later kernels give them: the Events and Timestamp opcodes (CXL r3.0
 * 8.2.9.2, 8.2.9.4), the event record UUIDs (Tables 8-43 to 8-45), Get
 * Event Records' and Get Poison List's flags (Table 8-50, 8.2.9.8.4.1), and
 * the CDAT structure types (CDAT r1.03 Tables 3 and 5).
 */
#ifndef CXLV_HAVE_EVENT_OPCODES
#define CXL_MBOX_OP_GET_EVENT_RECORD	0x0100
#define CXL_MBOX_OP_CLEAR_EVENT_RECORD	0x0101
#define CXL_MBOX_OP_GET_EVT_INT_POLICY	0x0102
#define CXL_MBOX_OP_SET_EVT_INT_POLICY	0x0103
#endif
/* 6.1 names Get FW Info and Activate FW, not Transfer FW (CXL r3.0 8.2.9.3) */
#ifndef CXLV_HAVE_FW_TRANSFER
#define CXL_MBOX_OP_TRANSFER_FW		0x0201
#endif
#ifndef CXLV_HAVE_TIMESTAMP_OPCODES
#define CXL_MBOX_OP_GET_TIMESTAMP	0x0300
#define CXL_MBOX_OP_SET_TIMESTAMP	0x0301
#endif
/* the three came in together, with the event records */
#ifndef CXL_EVENT_GEN_MEDIA_UUID
#define CXL_EVENT_GEN_MEDIA_UUID	UUID_INIT(0xfbcd0a77, 0xc260, 0x417f, \
	0x85, 0xa9, 0x08, 0x8b, 0x16, 0x21, 0xeb, 0xa6)
#define CXL_EVENT_DRAM_UUID		UUID_INIT(0x601dcbb3, 0x9c06, 0x4eab, \
	0xb8, 0xaf, 0x4e, 0x9b, 0xfb, 0x5c, 0x96, 0x24)
#define CXL_EVENT_MEM_MODULE_UUID	UUID_INIT(0xfe927475, 0xdd59, 0x4339, \
	0xa5, 0x86, 0x79, 0xba, 0xb1, 0x13, 0xb7, 0x74)
#endif
#ifndef CXL_GET_EVENT_FLAG_OVERFLOW
#define CXL_GET_EVENT_FLAG_OVERFLOW	BIT(0)
#endif
#ifndef CXL_POISON_LEN_MULT
#define CXL_POISON_LEN_MULT		64
#endif
#ifndef CXL_POISON_FLAG_OVERFLOW
#define CXL_POISON_FLAG_OVERFLOW	BIT(1)
#endif
#ifndef CXL_POISON_SOURCE_INJECTED
#define CXL_POISON_SOURCE_INJECTED	3
#endif
#ifndef CXLV_HAVE_ACPI_CDAT
#define ACPI_CDAT_TYPE_DSMAS		0
#define ACPI_CDAT_TYPE_DSLBIS		1
#endif
#ifndef ACPI_CDAT_DSMAS_NON_VOLATILE
#define ACPI_CDAT_DSMAS_NON_VOLATILE	BIT(2)
#endif

/*
 * For static_assert(): field @f of the module's struct @t is field @kf of
 * the kernel's @kt, which starts @at bytes into @t: same place, same size.
 */
#define CXLV_FIELD_AT(t, f, at, kt, kf)					\
	(offsetof(t, f) == (at) + offsetof(kt, kf) &&			\
	 sizeof_field(t, f) == sizeof_field(kt, kf))
#define CXLV_SAME_SIZE(t, kt)	(sizeof(t) == sizeof(kt))

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

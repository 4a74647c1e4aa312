// SPDX-License-Identifier: GPL-2.0-only
#include <linux/bitfield.h>
#include <linux/pci.h>

#include "cxlv.h"
#include "cxlpci.h"
#include "cxlv_compat.h"

/**
 * DOC: cxl_virt configuration space model
 *
 * Builds the configuration space of the two emulated functions and applies
 * writes to it the way hardware would: each byte has a mask of bits software
 * may write and a mask of bits it clears by writing 1 (RW1C); everything
 * else is read-only. That is enough for BAR sizing, bridge window probing,
 * COMMAND and bus numbers, STATUS and the CXL DVSEC's Mem_Enable.
 *
 * Root port (00:00.0): type 1 header, PCIe capability (LNKCAP port number =
 * the dport id), I/O and 32-bit memory windows disabled, a 64-bit
 * prefetchable window over the PCI window that holds the endpoint's BAR0.
 *
 * Endpoint (01:00.0): class 0502/10 (CXL memory device), 64-bit prefetchable
 * BAR0, PCIe capability, an MSI capability with one vector, Device Serial
 * Number, the PCIe DVSEC for CXL
 * devices (CXL r3.0 8.1.3), the Register Locator DVSEC (CXL r3.0 8.1.9)
 * naming the device and component register blocks in BAR0, a DOE
 * mailbox (PCIe r6.0 7.9.24) whose registers cxlv_doe.c answers, and the
 * GPF DVSEC for CXL Devices (CXL r3.0 8.1.7): 7.x's cxl_pmem reads the
 * Dirty Shutdown Count into the nvdimm's dirty_shutdown only where a
 * device has one. cxl_virt runs no GPF flow, so its phase 2 takes no time
 * and no power (cxlv_health.c: what a clean shutdown is).
 *
 * Both ends of the link train at 32 GT/s, as wide as the device's bandwidth
 * figures need (cxlv_cdat_link_width()): the kernel takes link latency and
 * bandwidth from LNKSTA when it computes the device's performance.
 *
 * No INTx (INTERRUPT_PIN 0: CXL r3.0 3.1.1 forbids it to a CXL.mem
 * function). The endpoint's MSI capability (PCI 3.0 6.8.1) has a 64-bit
 * address, one vector and no per-vector masking; 6.12's and 7.3's cxl_pci
 * enable it for the event logs' interrupt (cxlv_events.c), which
 * cxlv_msi.c raises only while MSI Enable is set here. 6.1's never do.
 */

#define CXLV_PCI_VENDOR_ID	0x7c73	/* as in the cxlv RFC */
#define CXLV_PCI_DEVICE_EP	0x0110
#define CXLV_PCI_DEVICE_RP	0x0111

#define CXLV_PCIE_CAP		0x40
/* after the PCIe capability (PCI_CAP_EXP_ENDPOINT_SIZEOF_V2 bytes) */
#define CXLV_MSI_CAP		0x80
#define CXLV_EXT_DSN		0x100
#define CXLV_DSN_LEN		0x0c
#define CXLV_EXT_DVSEC_DEV	(CXLV_EXT_DSN + CXLV_DSN_LEN)
#define CXLV_DVSEC_DEV_LEN	0x38
#define CXLV_EXT_DVSEC_REGLOC	(CXLV_EXT_DVSEC_DEV + CXLV_DVSEC_DEV_LEN)
#define CXLV_REGLOC_BLOCKS	2
#define CXLV_DVSEC_REGLOC_LEN	(CXL_DVSEC_REG_LOCATOR_BLOCK1_OFFSET + \
				 CXLV_REGLOC_BLOCKS * 8)
#define CXLV_EXT_DOE		(CXLV_EXT_DVSEC_REGLOC + CXLV_DVSEC_REGLOC_LEN)
/* PCIe r6.0 7.9.24.1: DOE Extended Capability version */
#define CXLV_DOE_CAP_VERSION	1
/* CXL r3.0 8.1.7: GPF DVSEC for CXL Devices, after the DOE capability */
#define CXLV_EXT_GPF		(CXLV_EXT_DOE + CXLV_DOE_CAP_LEN)
#define CXLV_DVSEC_DEVICE_GPF	5
#define CXLV_DVSEC_GPF_LEN	0x10

/* PCI status bits software clears by writing 1 (PCI 3.0 6.2.3) */
#define CXLV_STATUS_RW1C	(PCI_STATUS_DETECTED_PARITY | \
				 PCI_STATUS_SIG_SYSTEM_ERROR | \
				 PCI_STATUS_REC_MASTER_ABORT | \
				 PCI_STATUS_REC_TARGET_ABORT | \
				 PCI_STATUS_SIG_TARGET_ABORT | \
				 PCI_STATUS_PARITY)
#define CXLV_COMMAND_RW		(PCI_COMMAND_IO | PCI_COMMAND_MEMORY | \
				 PCI_COMMAND_MASTER | PCI_COMMAND_PARITY | \
				 PCI_COMMAND_SERR | PCI_COMMAND_INTX_DISABLE)

/* CXL r3.0 8.1.3.1-2: DVSEC CXL Capability and Control */
#define CXLV_DVSEC_HDM_RANGES	1
#define CXLV_DVSEC_IO_CAPABLE	BIT(1)
#define CXLV_DVSEC_IO_ENABLE	BIT(1)
/* CXL r3.0 8.1.3.8.2: Range Size Low, Media_Type and Memory_Class */
#define CXLV_DVSEC_MEDIA_TYPE	GENMASK(4, 2)
#define CXLV_DVSEC_MEM_CLASS	GENMASK(7, 5)
#define CXLV_DVSEC_NONVOLATILE	1
/* PCIe 5.0 7.9.6: DVSEC header 1 revision */
#define CXLV_DVSEC_REVISION	GENMASK(19, 16)

/* Registers every bit of which software may write */
#define CXLV_RW8		GENMASK(7, 0)
#define CXLV_RW16		GENMASK(15, 0)
#define CXLV_RW32		GENMASK(31, 0)

/* PCI 3.0 6.2.1: Class Code register over Prog IF, Sub-Class and Class */
#define CXLV_CLASS_CODE		GENMASK(23, 8)
#define CXLV_CLASS_PROG_IF	GENMASK(7, 0)

/* PCIe 5.0 7.6.3: PCI Express Extended Capability Header */
#define CXLV_EXT_CAP_ID		GENMASK(15, 0)
#define CXLV_EXT_CAP_VER	GENMASK(19, 16)
#define CXLV_EXT_CAP_NEXT	GENMASK(31, 20)

/* PCIe 5.0 7.5.3.2: PCI Express Capabilities Register version */
#define CXLV_EXP_FLAGS_VERSION	2

/* PCIe 5.0 7.5.3.4: Device Control, all but Initiate FLR is RW */
#define CXLV_EXP_DEVCTL_RW	((u16)~PCI_EXP_DEVCTL_BCR_FLR)
/* PCIe 5.0 7.5.3.5: Device Status error bits, RW1C */
#define CXLV_EXP_DEVSTA_RW1C	(PCI_EXP_DEVSTA_CED | PCI_EXP_DEVSTA_NFED | \
				 PCI_EXP_DEVSTA_FED | PCI_EXP_DEVSTA_URD)
/* PCIe 5.0 7.5.3.7: Link Control bits a link without ASPM L1 PM keeps */
#define CXLV_EXP_LNKCTL_RW	(PCI_EXP_LNKCTL_ASPMC | PCI_EXP_LNKCTL_CCC | \
				 PCI_EXP_LNKCTL_ES | \
				 PCI_EXP_LNKCTL_CLKREQ_EN | \
				 PCI_EXP_LNKCTL_HAWD | PCI_EXP_LNKCTL_LBMIE | \
				 PCI_EXP_LNKCTL_LABIE)
/* PCIe 5.0 7.5.3.12: Root Control, the error and PME enables and CRS SV */
#define CXLV_EXP_RTCTL_RW	GENMASK(4, 0)

/* PCI-to-PCI Bridge 1.2 3.2.5: window registers, address bits only RW */
#define CXLV_BRIDGE_IO_ADDR	GENMASK(7, 4)
#define CXLV_BRIDGE_MEM_ADDR	GENMASK(15, 4)
/* PCI-to-PCI Bridge 1.2 3.2.5.18: Bridge Control, bits 0-11 defined */
#define CXLV_BRIDGE_CTL_RW	GENMASK(11, 0)

/* Stores the low @size bytes of @val at @reg, little-endian. */
static void cxlv_cfg_put(u8 *reg, int size, u32 val)
{
	__le32 le = cpu_to_le32(val);

	memcpy(reg, &le, size);
}

static void cxlv_cfg_set(struct cxlv_cfg_func *f, int off, int size, u32 val)
{
	cxlv_cfg_put(&f->data[off], size, val);
}

static void cxlv_cfg_rw(struct cxlv_cfg_func *f, int off, int size, u32 mask)
{
	cxlv_cfg_put(&f->wmask[off], size, mask);
}

static void cxlv_cfg_rw1c(struct cxlv_cfg_func *f, int off, int size, u32 mask)
{
	cxlv_cfg_put(&f->w1cmask[off], size, mask);
}

/* Registers both header types share (PCI 3.0 6.2). */
static void cxlv_cfg_init_common(struct cxlv_cfg_func *f, u16 device, u32 class,
				 u8 type)
{
	memset(f, 0, sizeof(*f));
	f->present = true;
	cxlv_cfg_set(f, PCI_VENDOR_ID, 2, CXLV_PCI_VENDOR_ID);
	cxlv_cfg_set(f, PCI_DEVICE_ID, 2, device);
	cxlv_cfg_rw(f, PCI_COMMAND, 2, CXLV_COMMAND_RW);
	cxlv_cfg_set(f, PCI_STATUS, 2, PCI_STATUS_CAP_LIST);
	cxlv_cfg_rw1c(f, PCI_STATUS, 2, CXLV_STATUS_RW1C);
	cxlv_cfg_set(f, PCI_REVISION_ID, 1, 1);
	cxlv_cfg_set(f, PCI_CLASS_PROG, 3, class);
	cxlv_cfg_rw(f, PCI_CACHE_LINE_SIZE, 1, CXLV_RW8);
	cxlv_cfg_rw(f, PCI_LATENCY_TIMER, 1, CXLV_RW8);
	cxlv_cfg_set(f, PCI_HEADER_TYPE, 1, type);
	cxlv_cfg_set(f, PCI_CAPABILITY_LIST, 1, CXLV_PCIE_CAP);
	cxlv_cfg_rw(f, PCI_INTERRUPT_LINE, 1, CXLV_RW8);
}

/* PCIe 5.0 7.5.3.18: every speed up to 32 GT/s */
#define CXLV_EXP_LNKCAP2_SLS	(PCI_EXP_LNKCAP2_SLS_2_5GB | \
				 PCI_EXP_LNKCAP2_SLS_5_0GB | \
				 PCI_EXP_LNKCAP2_SLS_8_0GB | \
				 PCI_EXP_LNKCAP2_SLS_16_0GB | \
				 PCI_EXP_LNKCAP2_SLS_32_0GB)

/* PCIe 5.0 7.5.3: PCI Express Capability, version 2, @width at 32 GT/s. */
static void cxlv_cfg_init_pcie(struct cxlv_cfg_func *f, u8 type, u8 port,
			       u8 width)
{
	int c = CXLV_PCIE_CAP;

	cxlv_cfg_set(f, c, 1, PCI_CAP_ID_EXP);
	cxlv_cfg_set(f, c + PCI_EXP_FLAGS, 2,
		     FIELD_PREP(PCI_EXP_FLAGS_TYPE, type) |
		     FIELD_PREP(PCI_EXP_FLAGS_VERS, CXLV_EXP_FLAGS_VERSION));
	cxlv_cfg_set(f, c + PCI_EXP_DEVCAP, 4, PCI_EXP_DEVCAP_RBER |
		     FIELD_PREP(PCI_EXP_DEVCAP_PAYLOAD, 1));
	cxlv_cfg_rw(f, c + PCI_EXP_DEVCTL, 2, CXLV_EXP_DEVCTL_RW);
	cxlv_cfg_rw1c(f, c + PCI_EXP_DEVSTA, 2, CXLV_EXP_DEVSTA_RW1C);
	cxlv_cfg_set(f, c + PCI_EXP_LNKCAP, 4, PCI_EXP_LNKCAP_SLS_32_0GB |
		     FIELD_PREP(PCI_EXP_LNKCAP_MLW, width) |
		     FIELD_PREP(PCI_EXP_LNKCAP_PN, port));
	cxlv_cfg_rw(f, c + PCI_EXP_LNKCTL, 2, CXLV_EXP_LNKCTL_RW);
	cxlv_cfg_set(f, c + PCI_EXP_LNKSTA, 2, PCI_EXP_LNKSTA_CLS_32_0GB |
		     FIELD_PREP(PCI_EXP_LNKSTA_NLW, width));
	cxlv_cfg_rw1c(f, c + PCI_EXP_LNKSTA, 2, PCI_EXP_LNKSTA_LBMS |
		      PCI_EXP_LNKSTA_LABS);
	cxlv_cfg_rw(f, c + PCI_EXP_DEVCTL2, 2, CXLV_RW16);
	cxlv_cfg_set(f, c + PCI_EXP_LNKCAP2, 4, CXLV_EXP_LNKCAP2_SLS);
	cxlv_cfg_set(f, c + PCI_EXP_LNKCTL2, 2, PCI_EXP_LNKCTL2_TLS_32_0GT);
	cxlv_cfg_rw(f, c + PCI_EXP_LNKCTL2, 2, CXLV_RW16);
	if (type == PCI_EXP_TYPE_ROOT_PORT) {
		cxlv_cfg_rw(f, c + PCI_EXP_RTCTL, 2, CXLV_EXP_RTCTL_RW);
		cxlv_cfg_rw1c(f, c + PCI_EXP_RTSTA, 4, PCI_EXP_RTSTA_PME);
	}
}

/*
 * PCI 3.0 6.8.1: MSI capability, 64-bit address, Multiple Message Capable
 * 1 vector, no per-vector masking: Enable, Multiple Message Enable, the
 * address (dword aligned) and the data are what software writes.
 */
static void cxlv_cfg_init_msi(struct cxlv_cfg_func *f)
{
	int c = CXLV_MSI_CAP;

	static_assert(CXLV_PCIE_CAP + PCI_CAP_EXP_ENDPOINT_SIZEOF_V2 <=
		      CXLV_MSI_CAP);
	cxlv_cfg_set(f, c, 1, PCI_CAP_ID_MSI);
	cxlv_cfg_set(f, c + PCI_MSI_FLAGS, 2, PCI_MSI_FLAGS_64BIT);
	cxlv_cfg_rw(f, c + PCI_MSI_FLAGS, 2, PCI_MSI_FLAGS_ENABLE |
		    PCI_MSI_FLAGS_QSIZE);
	cxlv_cfg_rw(f, c + PCI_MSI_ADDRESS_LO, 4, ~3U);
	cxlv_cfg_rw(f, c + PCI_MSI_ADDRESS_HI, 4, CXLV_RW32);
	cxlv_cfg_rw(f, c + PCI_MSI_DATA_64, 2, CXLV_RW16);
}

/**
 * cxlv_cfg_msi_enabled() - may the endpoint send its MSI?
 * @f: the endpoint's model
 *
 * Return: MSI Enable is set; config writes change it under the PCI config
 * lock, a single byte read here sees it before or after.
 */
bool cxlv_cfg_msi_enabled(const struct cxlv_cfg_func *f)
{
	return READ_ONCE(f->data[CXLV_MSI_CAP + PCI_MSI_FLAGS]) &
	       PCI_MSI_FLAGS_ENABLE;
}

static void cxlv_cfg_ext_header(struct cxlv_cfg_func *f, int off, u16 id,
				u8 ver, int next)
{
	cxlv_cfg_set(f, off, 4, FIELD_PREP(CXLV_EXT_CAP_ID, id) |
		     FIELD_PREP(CXLV_EXT_CAP_VER, ver) |
		     FIELD_PREP(CXLV_EXT_CAP_NEXT, next));
}

static void cxlv_cfg_dvsec_header(struct cxlv_cfg_func *f, int off, u8 rev,
				  u16 len, u16 id)
{
	cxlv_cfg_set(f, off + PCI_DVSEC_HEADER1, 4, CXLV_DVSEC_VENDOR_ID |
		     FIELD_PREP(CXLV_DVSEC_REVISION, rev) |
		     FIELD_PREP(PCI_DVSEC_HEADER1_LENGTH_MASK, len));
	cxlv_cfg_set(f, off + PCI_DVSEC_HEADER2, 2, id);
}

/**
 * cxlv_cfg_init_rp() - build the root port's configuration space
 * @f: model to fill
 * @ep: endpoint the root port leads to
 */
void cxlv_cfg_init_rp(struct cxlv_cfg_func *f, const struct cxlv_ep *ep)
{
	u64 base = ep->pci_res.start, limit = ep->pci_res.end;

	cxlv_cfg_init_common(f, CXLV_PCI_DEVICE_RP,
			     FIELD_PREP(CXLV_CLASS_CODE, PCI_CLASS_BRIDGE_PCI),
			     PCI_HEADER_TYPE_BRIDGE);
	cxlv_cfg_set(f, PCI_PRIMARY_BUS, 1, 0);
	cxlv_cfg_set(f, PCI_SECONDARY_BUS, 1, ep->rp + 1);
	cxlv_cfg_set(f, PCI_SUBORDINATE_BUS, 1, ep->rp + 1);
	cxlv_cfg_rw(f, PCI_PRIMARY_BUS, 4, CXLV_RW32);

	/* I/O and non-prefetchable windows: base above limit, disabled */
	cxlv_cfg_set(f, PCI_IO_BASE, 1, CXLV_BRIDGE_IO_ADDR);
	cxlv_cfg_rw(f, PCI_IO_BASE, 1, CXLV_BRIDGE_IO_ADDR);
	cxlv_cfg_rw(f, PCI_IO_LIMIT, 1, CXLV_BRIDGE_IO_ADDR);
	cxlv_cfg_rw1c(f, PCI_SEC_STATUS, 2, CXLV_STATUS_RW1C);
	cxlv_cfg_set(f, PCI_MEMORY_BASE, 2, CXLV_BRIDGE_MEM_ADDR);
	cxlv_cfg_rw(f, PCI_MEMORY_BASE, 2, CXLV_BRIDGE_MEM_ADDR);
	cxlv_cfg_rw(f, PCI_MEMORY_LIMIT, 2, CXLV_BRIDGE_MEM_ADDR);

	/* 64-bit prefetchable window, 1 MiB granular, over the PCI window */
	cxlv_cfg_set(f, PCI_PREF_MEMORY_BASE, 2, PCI_PREF_RANGE_TYPE_64 |
		     FIELD_PREP(CXLV_BRIDGE_MEM_ADDR,
				lower_32_bits(base) / CXLV_PCI_WINDOW_SIZE));
	cxlv_cfg_set(f, PCI_PREF_MEMORY_LIMIT, 2, PCI_PREF_RANGE_TYPE_64 |
		     FIELD_PREP(CXLV_BRIDGE_MEM_ADDR,
				lower_32_bits(limit) / CXLV_PCI_WINDOW_SIZE));
	cxlv_cfg_rw(f, PCI_PREF_MEMORY_BASE, 2, CXLV_BRIDGE_MEM_ADDR);
	cxlv_cfg_rw(f, PCI_PREF_MEMORY_LIMIT, 2, CXLV_BRIDGE_MEM_ADDR);
	cxlv_cfg_set(f, PCI_PREF_BASE_UPPER32, 4, upper_32_bits(base));
	cxlv_cfg_set(f, PCI_PREF_LIMIT_UPPER32, 4, upper_32_bits(limit));
	cxlv_cfg_rw(f, PCI_PREF_BASE_UPPER32, 4, CXLV_RW32);
	cxlv_cfg_rw(f, PCI_PREF_LIMIT_UPPER32, 4, CXLV_RW32);

	cxlv_cfg_rw(f, PCI_BRIDGE_CONTROL, 2, CXLV_BRIDGE_CTL_RW);
	/* the port number is the CXL dport id the host-bridge port sees */
	cxlv_cfg_init_pcie(f, PCI_EXP_TYPE_ROOT_PORT, ep->rp,
			   cxlv_cdat_link_width(&ep->cxlv->params.perf));
}

/**
 * cxlv_cfg_init_ep() - build the endpoint's configuration space
 * @f: model to fill
 * @ep: the endpoint; its DOE mailbox is ready
 */
void cxlv_cfg_init_ep(struct cxlv_cfg_func *f, struct cxlv_ep *ep)
{
	const struct cxlv_params *p = &ep->cxlv->params;
	u64 capacity = cxlv_ep_capacity(ep->cxlv), serial = p->serial + ep->pos;
	u32 size_lo, media = p->pmem ? CXLV_DVSEC_NONVOLATILE : 0;
	int d = CXLV_EXT_DVSEC_DEV, r = CXLV_EXT_DVSEC_REGLOC;

	cxlv_cfg_init_common(f, CXLV_PCI_DEVICE_EP,
			     FIELD_PREP(CXLV_CLASS_CODE, PCI_CLASS_MEMORY_CXL) |
			     FIELD_PREP(CXLV_CLASS_PROG_IF, CXL_MEMORY_PROGIF),
			     PCI_HEADER_TYPE_NORMAL);
	cxlv_cfg_set(f, PCI_BASE_ADDRESS_0, 4, lower_32_bits(ep->bar0) |
		     PCI_BASE_ADDRESS_MEM_TYPE_64 | PCI_BASE_ADDRESS_MEM_PREFETCH);
	cxlv_cfg_rw(f, PCI_BASE_ADDRESS_0, 4, ~(CXLV_BAR_SIZE - 1));
	cxlv_cfg_set(f, PCI_BASE_ADDRESS_1, 4, upper_32_bits(ep->bar0));
	cxlv_cfg_rw(f, PCI_BASE_ADDRESS_1, 4, CXLV_RW32);
	cxlv_cfg_set(f, PCI_SUBSYSTEM_VENDOR_ID, 2, CXLV_PCI_VENDOR_ID);
	cxlv_cfg_set(f, PCI_SUBSYSTEM_ID, 2, CXLV_PCI_DEVICE_EP);
	cxlv_cfg_init_pcie(f, PCI_EXP_TYPE_ENDPOINT, 0,
			   cxlv_cdat_link_width(&p->perf));
	cxlv_cfg_set(f, CXLV_PCIE_CAP + PCI_CAP_LIST_NEXT, 1, CXLV_MSI_CAP);
	cxlv_cfg_init_msi(f);

	/* PCIe 5.0 7.9.3: Device Serial Number */
	cxlv_cfg_ext_header(f, CXLV_EXT_DSN, PCI_EXT_CAP_ID_DSN, 1, d);
	cxlv_cfg_set(f, CXLV_EXT_DSN + 4, 4, lower_32_bits(serial));
	cxlv_cfg_set(f, CXLV_EXT_DSN + 8, 4, upper_32_bits(serial));

	/*
	 * CXL r3.0 8.1.3: PCIe DVSEC for CXL devices. HDM_Count (8.1.3.1)
	 * counts the DVSEC's own HDM ranges, one here, not the HDM decoders
	 * of the component block.
	 */
	cxlv_cfg_ext_header(f, d, PCI_EXT_CAP_ID_DVSEC, 1, r);
	cxlv_cfg_dvsec_header(f, d, 1, CXLV_DVSEC_DEV_LEN, CXL_DVSEC_PCIE_DEVICE);
	cxlv_cfg_set(f, d + CXL_DVSEC_CAP_OFFSET, 2, CXLV_DVSEC_IO_CAPABLE |
		     CXL_DVSEC_MEM_CAPABLE |
		     FIELD_PREP(CXL_DVSEC_HDM_COUNT_MASK, CXLV_DVSEC_HDM_RANGES));
	/* CXL.mem already on where firmware set the device up (auto_region) */
	cxlv_cfg_set(f, d + CXL_DVSEC_CTRL_OFFSET, 2, CXLV_DVSEC_IO_ENABLE |
		     (p->auto_region ? CXL_DVSEC_MEM_ENABLE : 0));
	cxlv_cfg_rw(f, d + CXL_DVSEC_CTRL_OFFSET, 2, CXL_DVSEC_MEM_ENABLE);
	size_lo = (lower_32_bits(capacity) & CXL_DVSEC_MEM_SIZE_LOW_MASK) |
		  CXL_DVSEC_MEM_INFO_VALID | CXL_DVSEC_MEM_ACTIVE |
		  FIELD_PREP(CXLV_DVSEC_MEDIA_TYPE, media) |
		  FIELD_PREP(CXLV_DVSEC_MEM_CLASS, media);
	cxlv_cfg_set(f, d + CXL_DVSEC_RANGE_SIZE_HIGH(0), 4,
		     upper_32_bits(capacity));
	cxlv_cfg_set(f, d + CXL_DVSEC_RANGE_SIZE_LOW(0), 4, size_lo);
	cxlv_cfg_rw(f, d + CXL_DVSEC_RANGE_BASE_HIGH(0), 4, CXLV_RW32);
	cxlv_cfg_rw(f, d + CXL_DVSEC_RANGE_BASE_LOW(0), 4,
		    CXL_DVSEC_MEM_BASE_LOW_MASK);

	/* CXL r3.0 8.1.9: Register Locator, both blocks in BAR0 */
	cxlv_cfg_ext_header(f, r, PCI_EXT_CAP_ID_DVSEC, 1, CXLV_EXT_DOE);
	cxlv_cfg_dvsec_header(f, r, 0, CXLV_DVSEC_REGLOC_LEN,
			      CXL_DVSEC_REG_LOCATOR);
	r += CXL_DVSEC_REG_LOCATOR_BLOCK1_OFFSET;
	cxlv_cfg_set(f, r, 4, FIELD_PREP(CXL_DVSEC_REG_LOCATOR_BIR_MASK, 0) |
		     FIELD_PREP(CXL_DVSEC_REG_LOCATOR_BLOCK_ID_MASK,
				CXL_REGLOC_RBI_MEMDEV) |
		     (CXLV_DEV_REGS_OFFSET & CXL_DVSEC_REG_LOCATOR_BLOCK_OFF_LOW_MASK));
	cxlv_cfg_set(f, r + 8, 4, FIELD_PREP(CXL_DVSEC_REG_LOCATOR_BIR_MASK, 0) |
		     FIELD_PREP(CXL_DVSEC_REG_LOCATOR_BLOCK_ID_MASK,
				CXL_REGLOC_RBI_COMPONENT) |
		     (CXLV_COMP_REGS_OFFSET & CXL_DVSEC_REG_LOCATOR_BLOCK_OFF_LOW_MASK));

	/* PCIe r6.0 7.9.24: DOE; cxlv_doe.c has the rest */
	cxlv_cfg_ext_header(f, CXLV_EXT_DOE, PCI_EXT_CAP_ID_DOE,
			    CXLV_DOE_CAP_VERSION, CXLV_EXT_GPF);
	f->doe = &ep->doe;

	/*
	 * CXL r3.0 8.1.7: GPF DVSEC for CXL Devices, the last capability;
	 * GPF Phase 2 Duration and Power 0
	 */
	cxlv_cfg_ext_header(f, CXLV_EXT_GPF, PCI_EXT_CAP_ID_DVSEC, 1, 0);
	cxlv_cfg_dvsec_header(f, CXLV_EXT_GPF, 0, CXLV_DVSEC_GPF_LEN,
			      CXLV_DVSEC_DEVICE_GPF);
}

/* The DOE register @where falls in, relative to the capability, or 0. */
static int cxlv_cfg_doe_reg(const struct cxlv_cfg_func *f, int where)
{
	int reg = where - CXLV_EXT_DOE;

	if (!f->doe || reg < PCI_DOE_CAP || reg >= CXLV_DOE_CAP_LEN)
		return 0;
	return ALIGN_DOWN(reg, 4);
}

/**
 * cxlv_cfg_read() - read a register
 * @f: function model
 * @where: byte offset, @size aligned and inside config space
 * @size: 1, 2 or 4
 *
 * Return: the little-endian value.
 */
u32 cxlv_cfg_read(const struct cxlv_cfg_func *f, int where, int size)
{
	int doe = cxlv_cfg_doe_reg(f, where);
	__le32 le = 0;

	if (doe) {
		u32 val = cxlv_doe_read(f->doe, doe) >> 8 * (where % 4);

		return size == 4 ? val : val & GENMASK(8 * size - 1, 0);
	}

	memcpy(&le, &f->data[where], size);
	return le32_to_cpu(le);
}

/**
 * cxlv_cfg_write() - write a register, honouring RW and RW1C masks
 * @f: function model
 * @where: byte offset, @size aligned and inside config space
 * @size: 1, 2 or 4
 * @val: value written
 */
void cxlv_cfg_write(struct cxlv_cfg_func *f, int where, int size, u32 val)
{
	int doe = cxlv_cfg_doe_reg(f, where);
	__le32 le32 = cpu_to_le32(val);
	const u8 *le = (const u8 *)&le32;
	int i;

	if (doe) {
		if (size == 4)
			cxlv_doe_write(f->doe, doe, val);
		return;
	}

	for (i = 0; i < size; i++) {
		u8 *reg = &f->data[where + i];
		u8 rw = f->wmask[where + i];

		*reg = (*reg & ~rw) | (le[i] & rw);
		*reg &= ~(le[i] & f->w1cmask[where + i]);
	}
}

// SPDX-License-Identifier: GPL-2.0-only
#include <linux/bitfield.h>
#include <linux/build_bug.h>
#include <linux/io.h>
#include <linux/log2.h>
#include "cxlmem.h"
#include "cxlv_compat.h"
#include "cxlv_emu_internal.h"

/**
 * DOC: cxl_virt register blocks
 *
 * Lays out the two register blocks of the emulated type-3 endpoint, and the
 * host bridge's component block, the way cxl_pci and the cxl_port driver
 * expect to discover them:
 *
 * - the device register block (CXL r3.0 8.2.8): a capability array naming the
 *   device status, primary mailbox and memory device capabilities, a 4 KiB
 *   mailbox payload, and a memory device status that says the mailbox is
 *   ready and the media is ready;
 * - the component register block (CXL r3.0 8.2.4): a CXL.cachemem capability
 *   array with one entry, the HDM Decoder Capability, with CXLV_HDM_DECODERS
 *   decoders of one target each, all uncommitted;
 * - the host bridge's component block: an empty CXL.cachemem capability
 *   array, which makes its port decode pass-through, or with more than one
 *   root port an HDM Decoder Capability of CXLV_HDM_DECODERS decoders with
 *   a target per root port.
 *
 * Everything else in both blocks reads as zero. The emulator's poller owns
 * the registers from then on.
 */

/* CXL r3.0 8.2.8.1 Device Capabilities Array Register fields 6.1 lacks */
#define CXLV_DEV_CAP_ARRAY_VERSION_MASK	GENMASK_ULL(23, 16)
#define CXLV_DEV_CAP_ARRAY_TYPE_MASK	GENMASK_ULL(27, 24)
#define   CXLV_DEV_CAP_ARRAY_TYPE_MEMDEV	1

/* CXL r3.0 8.2.8.2 Device Capability Header Register */
#define CXLV_DEV_CAP_HDR_VERSION_MASK	GENMASK(23, 16)
#define CXLV_DEV_CAP_HDR_OFFSET		0x4
#define CXLV_DEV_CAP_HDR_LENGTH		0x8
#define CXLV_DEV_CAP_HDR_STRIDE		0x10

static void cxlv_regs_add_dev_cap(void __iomem *regs, int index, u16 cap_id,
				  u32 offset, u32 length)
{
	void __iomem *hdr = regs + index * CXLV_DEV_CAP_HDR_STRIDE;

	writel(FIELD_PREP(CXLDEV_CAP_HDR_CAP_ID_MASK, cap_id) |
	       FIELD_PREP(CXLV_DEV_CAP_HDR_VERSION_MASK, 1), hdr);
	writel(offset, hdr + CXLV_DEV_CAP_HDR_OFFSET);
	writel(length, hdr + CXLV_DEV_CAP_HDR_LENGTH);
}

static void cxlv_regs_init_device(void __iomem *regs)
{
	u64 memdev_status;

	/* The header occupies slot 0; capabilities 1..n follow it. */
	static_assert(CXLV_DEV_STATUS_OFFSET >=
		      (CXLV_DEV_CAP_COUNT + 1) * CXLV_DEV_CAP_HDR_STRIDE);
	static_assert(CXLV_MBOX_OFFSET + CXLV_MBOX_SIZE <= CXLV_DEV_REGS_SIZE);

	writeq(FIELD_PREP(CXLDEV_CAP_ARRAY_ID_MASK, CXLDEV_CAP_ARRAY_CAP_ID) |
	       FIELD_PREP(CXLV_DEV_CAP_ARRAY_VERSION_MASK, 1) |
	       FIELD_PREP(CXLV_DEV_CAP_ARRAY_TYPE_MASK,
			  CXLV_DEV_CAP_ARRAY_TYPE_MEMDEV) |
	       FIELD_PREP(CXLDEV_CAP_ARRAY_COUNT_MASK, CXLV_DEV_CAP_COUNT),
	       regs + CXLDEV_CAP_ARRAY_OFFSET);

	cxlv_regs_add_dev_cap(regs, 1, CXLDEV_CAP_CAP_ID_DEVICE_STATUS,
			      CXLV_DEV_STATUS_OFFSET, CXLV_DEV_STATUS_SIZE);
	cxlv_regs_add_dev_cap(regs, 2, CXLDEV_CAP_CAP_ID_PRIMARY_MAILBOX,
			      CXLV_MBOX_OFFSET, CXLV_MBOX_SIZE);
	cxlv_regs_add_dev_cap(regs, 3, CXLDEV_CAP_CAP_ID_MEMDEV,
			      CXLV_MEMDEV_OFFSET, CXLV_MEMDEV_SIZE);

	/*
	 * CXL r3.0 8.2.8.4.3 Mailbox Capabilities: payload size as log2, the
	 * background command completion interrupt on the one MSI message
	 */
	writel(FIELD_PREP(CXLDEV_MBOX_CAP_PAYLOAD_SIZE_MASK,
			  ilog2(CXLV_MBOX_PAYLOAD_SIZE)) | CXLV_MBOX_CAP_BG_IRQ |
	       FIELD_PREP(CXLV_MBOX_CAP_IRQ_MSGNUM, CXLV_MBOX_BG_MSGNUM),
	       regs + CXLV_MBOX_OFFSET + CXLDEV_MBOX_CAPS_OFFSET);

	/* CXL r3.0 8.2.8.5.1.1 Memory Device Status */
	memdev_status = CXLMDEV_MBOX_IF_READY |
			FIELD_PREP(CXLMDEV_STATUS_MEDIA_STATUS_MASK,
				   CXLMDEV_MS_READY);
	writeq(memdev_status, regs + CXLV_MEMDEV_OFFSET + CXLMDEV_STATUS_OFFSET);
}

/*
 * CXL r3.0 8.2.4.19.1 HDM Decoder Capability Register: the decoder count is
 * encoded as 0 for one decoder and n / 2 for 2, 4, 6 or 8 decoders.
 */
#define CXLV_HDM_DECODER_COUNT_CODE \
	(CXLV_HDM_DECODERS == 1 ? 0 : CXLV_HDM_DECODERS / 2)

/* CXL r3.0 8.2.4.1 CXL Capability Header: @count capabilities follow */
static void cxlv_regs_init_cm_header(void __iomem *cm, u32 count)
{
	writel(FIELD_PREP(CXL_CM_CAP_HDR_ID_MASK, CM_CAP_HDR_CAP_ID) |
	       FIELD_PREP(CXL_CM_CAP_HDR_VERSION_MASK, CM_CAP_HDR_CAP_VERSION) |
	       FIELD_PREP(CXL_CM_CAP_HDR_CACHE_MEM_VERSION_MASK,
			  CM_CAP_HDR_CACHE_MEM_VERSION) |
	       FIELD_PREP(CXL_CM_CAP_HDR_ARRAY_SIZE_MASK, count),
	       cm + CXL_CM_CAP_HDR_OFFSET);
}

/*
 * A CXL.cachemem capability array whose one entry is the HDM Decoder
 * Capability (CXL r3.0 8.2.4, 8.2.4.19) of CXLV_HDM_DECODERS decoders of
 * @targets targets each.
 */
static void cxlv_regs_init_hdm_cap(void __iomem *cm, unsigned int targets)
{
	cxlv_regs_init_cm_header(cm, 1);

	/* CXL r3.0 8.2.4: HDM Decoder Capability Header, pointing at 8.2.4.19 */
	writel(FIELD_PREP(CXL_CM_CAP_HDR_ID_MASK, CXL_CM_CAP_CAP_ID_HDM) |
	       FIELD_PREP(CXL_CM_CAP_HDR_VERSION_MASK,
			  CXL_CM_CAP_CAP_HDM_VERSION) |
	       FIELD_PREP(CXL_CM_CAP_PTR_MASK, CXLV_HDM_OFFSET),
	       cm + 4);

	/*
	 * CXL r3.0 8.2.4.19.1: HPA bits 11:8 and 14:12 take part in
	 * interleaving, so every granularity of 256 B to 16 KiB at up to 8 ways
	 * decodes (6.12+ check_interleave_cap() wants them for a set).
	 */
	writel(FIELD_PREP(CXL_HDM_DECODER_COUNT_MASK,
			  CXLV_HDM_DECODER_COUNT_CODE) |
	       FIELD_PREP(CXL_HDM_DECODER_TARGET_COUNT_MASK, targets) |
	       CXL_HDM_DECODER_INTERLEAVE_11_8 |
	       CXL_HDM_DECODER_INTERLEAVE_14_12,
	       cm + CXLV_HDM_OFFSET + CXL_HDM_DECODER_CAP_OFFSET);
}

static void cxlv_regs_init_component(void __iomem *regs)
{
	static_assert(CXLV_HDM_DECODERS == 1 ||
		      (CXLV_HDM_DECODERS % 2 == 0 && CXLV_HDM_DECODERS <= 8));
	static_assert(CXL_CM_OFFSET + CXLV_HDM_OFFSET +
		      CXL_HDM_DECODER0_TL_HIGH(CXLV_HDM_DECODERS - 1) + 4 <=
		      CXLV_COMP_REGS_SIZE);

	cxlv_regs_init_hdm_cap(regs + CXL_CM_OFFSET, 1);
}

/*
 * Visits the read-only words the kernel's register locator bounds its reads
 * by: both capability array headers (the counts it loops over), each
 * device capability's ID, offset and length, the HDM capability pointer and
 * the decoder count. With @ro_check it compares them with @ro and returns
 * false at the first that differs; else it records them in @ro.
 */
static bool cxlv_regs_ro_visit(const struct cxlv_emu_config *cfg, u32 *ro,
			       bool ro_check)
{
	void __iomem *dev = cfg->dev_regs;
	void __iomem *cm = cfg->comp_regs + CXL_CM_OFFSET;
	void __iomem *word[CXLV_REGS_RO_WORDS];
	int i, n = 0;

	word[n++] = dev + CXLDEV_CAP_ARRAY_OFFSET;
	word[n++] = dev + CXLDEV_CAP_ARRAY_OFFSET + 4;
	for (i = 1; i <= CXLV_DEV_CAP_COUNT; i++) {
		void __iomem *hdr = dev + i * CXLV_DEV_CAP_HDR_STRIDE;

		word[n++] = hdr;
		word[n++] = hdr + CXLV_DEV_CAP_HDR_OFFSET;
		word[n++] = hdr + CXLV_DEV_CAP_HDR_LENGTH;
	}
	word[n++] = cm + CXL_CM_CAP_HDR_OFFSET;
	word[n++] = cm + 4;
	word[n++] = cm + CXLV_HDM_OFFSET + CXL_HDM_DECODER_CAP_OFFSET;

	for (i = 0; i < n; i++) {
		u32 val = readl(word[i]);

		if (!ro_check)
			ro[i] = val;
		else if (val != ro[i])
			return false;
	}
	return true;
}

/**
 * cxlv_regs_init() - reset both register blocks to their power-on contents
 * @cfg: the device; its label storage area is left alone
 * @ro: receives the read-only layout, for cxlv_regs_restore()
 */
void cxlv_regs_init(const struct cxlv_emu_config *cfg, u32 *ro)
{
	memset_io(cfg->dev_regs, 0, CXLV_DEV_REGS_SIZE);
	memset_io(cfg->comp_regs, 0, CXLV_COMP_REGS_SIZE);
	cxlv_regs_init_device(cfg->dev_regs);
	cxlv_regs_init_component(cfg->comp_regs);
	cxlv_regs_ro_visit(cfg, ro, false);
}

/**
 * cxlv_regs_restore() - undo software writes to the read-only layout
 * @cfg: the device
 * @ro: the layout cxlv_regs_init() recorded
 *
 * The registers are RAM: a store to a capability count or offset would stay
 * and send the next probe's locator past the mapped BAR. This rewrites the
 * capability arrays (never the mailbox or decoder registers) when one of the
 * words differs.
 *
 * Return: true if it had to.
 */
bool cxlv_regs_restore(const struct cxlv_emu_config *cfg, u32 *ro)
{
	if (cxlv_regs_ro_visit(cfg, ro, true))
		return false;
	cxlv_regs_init_device(cfg->dev_regs);
	cxlv_regs_init_component(cfg->comp_regs);
	return true;
}

/**
 * cxlv_emu_init_bridge_regs() - lay out the host bridge's component block
 * @regs: mapping of CXLV_BRIDGE_REGS_SIZE bytes
 * @root_ports: root ports below the host bridge, or 0 for no HDM decoders
 *
 * With @root_ports: CXLV_HDM_DECODERS HDM decoders with a target per root
 * port, which the emulator of the bridge's first endpoint commits. Without:
 * an empty capability array, so the port decodes pass-through.
 */
void cxlv_emu_init_bridge_regs(void __iomem *regs, unsigned int root_ports)
{
	static_assert(CXL_CM_OFFSET + CXLV_HDM_OFFSET +
		      CXL_HDM_DECODER0_TL_HIGH(CXLV_HDM_DECODERS - 1) + 4 <=
		      CXLV_BRIDGE_REGS_SIZE);

	memset_io(regs, 0, CXLV_BRIDGE_REGS_SIZE);
	if (root_ports)
		cxlv_regs_init_hdm_cap(regs + CXL_CM_OFFSET, root_ports);
	else
		cxlv_regs_init_cm_header(regs + CXL_CM_OFFSET, 0);
}

void __iomem *cxlv_regs_mbox(const struct cxlv_emu_config *cfg)
{
	return cfg->dev_regs + CXLV_MBOX_OFFSET;
}

/* The HDM Decoder Capability Structure of a component block. */
void __iomem *cxlv_regs_hdm(void __iomem *comp_regs)
{
	return comp_regs + CXL_CM_OFFSET + CXLV_HDM_OFFSET;
}

/*
 * What the CXL core maps of BAR0: the device capabilities by their length
 * in the capability array (CXL r3.0 8.2.8.2), and the HDM Decoder Capability
 * Structure up to its last decoder (CXL r3.0 8.2.4.19), or, where an HDM port
 * claims all of it, the whole component block.
 */
static const struct cxlv_bar_range cxlv_bar_caps[CXLV_BAR_CAPS] = {
	{ CXLV_DEV_REGS_OFFSET + CXLV_DEV_STATUS_OFFSET, CXLV_DEV_STATUS_SIZE,
	  CXLV_BAR_OWNER_PCI },
	{ CXLV_DEV_REGS_OFFSET + CXLV_MEMDEV_OFFSET, CXLV_MEMDEV_SIZE,
	  CXLV_BAR_OWNER_PCI },
	{ CXLV_DEV_REGS_OFFSET + CXLV_MBOX_OFFSET, CXLV_MBOX_SIZE,
	  CXLV_BAR_OWNER_PCI },
#if CXLV_HDM_CLAIMS_BLOCK
	{ CXLV_COMP_REGS_OFFSET, CXLV_COMP_REGS_SIZE, CXLV_BAR_OWNER_PORT },
#else
	{ CXLV_COMP_REGS_OFFSET + CXL_CM_OFFSET + CXLV_HDM_OFFSET,
	  CXL_HDM_DECODER0_BASE_LOW_OFFSET(CXLV_HDM_DECODERS),
	  CXLV_BAR_OWNER_PORT },
#endif
};

const struct cxlv_bar_range *cxlv_emu_bar_caps(void)
{
	return cxlv_bar_caps;
}

/* The same claim of a host bridge's port on its block of HDM decoders. */
static const struct cxlv_bar_range cxlv_bridge_claim = {
#if CXLV_HDM_CLAIMS_BLOCK
	0, CXLV_BRIDGE_REGS_SIZE, CXLV_BAR_OWNER_PORT
#else
	CXL_CM_OFFSET + CXLV_HDM_OFFSET,
	CXL_HDM_DECODER0_BASE_LOW_OFFSET(CXLV_HDM_DECODERS),
	CXLV_BAR_OWNER_PORT
#endif
};

const struct cxlv_bar_range *cxlv_emu_bridge_claim(void)
{
	return &cxlv_bridge_claim;
}

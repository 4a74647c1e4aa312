/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __CXLV_EMU_H__
#define __CXLV_EMU_H__

#include <linux/sizes.h>
#include <linux/types.h>
#include "cxlv_parse.h"

/**
 * DOC: cxl_virt device emulator interface
 *
 * The topology code (PCI config space, BARs, CXL ports) places the register
 * blocks of the emulated type-3 endpoint in its BAR0, which lives in the
 * reserved range, and maps that memory once. The emulator owns the contents
 * of those blocks: it lays out the capability arrays, answers the primary
 * mailbox and commits or resets HDM decoders the way hardware would. It never
 * maps or unmaps memory itself.
 */

/* Endpoint BAR0 layout; offsets are what the Register Locator DVSEC names. */
#define CXLV_BAR_SIZE		SZ_128K
#define CXLV_DEV_REGS_OFFSET	0x00000	/* CXL r3.0 8.2.8 device registers */
#define CXLV_DEV_REGS_SIZE	SZ_64K
#define CXLV_COMP_REGS_OFFSET	0x10000	/* CXL r3.0 8.2.4 component registers */
#define CXLV_COMP_REGS_SIZE	SZ_64K

/*
 * Host-bridge component registers (CXL r3.0 8.2.4), in the PCI window of the
 * host bridge's first endpoint, after BAR0: CXLV_HDM_DECODERS HDM decoders,
 * or, for a single root port where the kernel decodes pass-through anyway,
 * a capability array without an HDM Decoder Capability, which such a host
 * bridge may omit (CXL r3.0 9.13.1). 6.12 probes this block when the port
 * is added.
 */
#define CXLV_BRIDGE_REGS_OFFSET	SZ_256K
#define CXLV_BRIDGE_REGS_SIZE	SZ_64K

/* Label storage area: outside every BAR, so labels outlive remove/create. */
#define CXLV_LSA_SIZE		SZ_128K

/*
 * Non-volatile device state (security, firmware slots, health counters):
 * outside every BAR like the LSA, so it outlives remove and create on the
 * same range as it would a power cycle. One block per feature, each with a
 * magic and a checksum of its own, since a range that was never a cxl_virt
 * device holds whatever the previous boot left there: a block that fails
 * its check is read as the factory state.
 */
#define CXLV_NV_SIZE		SZ_64K
#define CXLV_NV_BLOCK_SIZE	SZ_4K

/*
 * HDM decoders of an endpoint, and of a host bridge with more than one root
 * port (CXL r3.0 8.2.4.19.1 Decoder Count). Four, as QEMU's type-3 device
 * has: a memdev carries up to four regions at once.
 */
#define CXLV_HDM_DECODERS	4

/*
 * A register capability in BAR0 that the CXL core claims with
 * devm_request_mem_region() while its driver is bound: cxl_pci the device
 * capabilities, the endpoint port the HDM decoders. cxl_virt keeps the rest
 * of BAR0 busy, and each capability too while its driver is not bound.
 * Offsets are from the start of BAR0, in increasing order.
 */
enum cxlv_bar_owner {
	CXLV_BAR_OWNER_PCI,	/* cxl_pci, bound to the endpoint */
	CXLV_BAR_OWNER_PORT,	/* cxl_port, bound to the endpoint port */
	CXLV_BAR_OWNERS,
};

struct cxlv_bar_range {
	u32 offset;
	u32 size;
	enum cxlv_bar_owner owner;
};

/* How many capabilities cxlv_emu_bar_caps() lists. */
#define CXLV_BAR_CAPS		4

/* The capabilities cxlv_emu_start() lays out, CXLV_BAR_CAPS of them. */
const struct cxlv_bar_range *cxlv_emu_bar_caps(void);

/*
 * What the port of a host bridge with HDM decoders claims of its component
 * block while bound, offset from the start of the block.
 */
const struct cxlv_bar_range *cxlv_emu_bridge_claim(void);

struct device;

/**
 * struct cxlv_emu_ops - what the emulator asks of the layers above it,
 *	which it never calls directly
 * @poison_changed: the 64-byte line at @hpa of @dev was poisoned (@inject)
 *	or cleared, @keep lines of its 512-byte sector still poisoned; called
 *	from mailbox handlers, possibly with preemption off, so it must not
 *	sleep
 * @mbox_irq: raise MSI message @msgnum of endpoint @pos of @dev, as the
 *	device would for a background command's completion; process context
 */
struct cxlv_emu_ops {
	void (*poison_changed)(struct device *dev, phys_addr_t hpa, bool inject,
			       u8 keep);
	void (*mbox_irq)(struct device *dev, unsigned int pos,
			 unsigned int msgnum);
};

/**
 * struct cxlv_emu_config - what the emulator needs to know about a device
 * @dev: the cxlvN device, for messages
 * @pos: the endpoint's position in the device's interleave set, for messages
 * @dev_regs: mapping of the device register block (CXLV_DEV_REGS_SIZE)
 * @comp_regs: mapping of the component register block (CXLV_COMP_REGS_SIZE)
 * @lsa: mapping of the label storage area (CXLV_LSA_SIZE), never cleared
 * @nv: mapping of the non-volatile state area (CXLV_NV_SIZE), never cleared
 * @capacity: bytes of device memory, a multiple of SZ_256M
 * @hpa_base: host physical address that DPA 0 must decode to; a decoder
 *	commit that breaks this identity mapping (HPA = @hpa_base + DPA, for
 *	each decoder) gets COMMIT_ERROR. In a set of more than one way, the
 *	start of the set's window
 * @ways: endpoints in the set; with more than one, a decoder commits at
 *	@ways ways and @granularity over a whole @ways x 256 MiB part of the
 *	window (@ways x @capacity from @hpa_base) at HPA = @hpa_base + @ways x
 *	its DPA
 * @granularity: the set's interleave granularity in bytes
 * @bridge_regs: mapping of the component block (CXLV_BRIDGE_REGS_SIZE) of
 *	a host bridge with HDM decoders, whose decoders this emulator answers
 *	too, or NULL; the endpoint at position h answers for host bridge h
 * @bridge_ways: root ports below that host bridge
 * @pmem: a persistent device: all capacity is persistent but the first
 *	@ram_bytes (else all volatile)
 * @partitionable: @pmem where the kernel has RAM regions: Set Partition
 *	Info moves the boundary (cxlv_partition.c)
 * @ram_bytes: the volatile bytes at DPA 0 of a partitionable device when
 *	it is created, from cxlv_partition_boot()
 * @auto_commit: born as platform firmware leaves a device it set up
 *	before the OS: HDM decoding enabled, and in the endpoint's block (and
 *	the host bridge's, with @bridge_regs) a decoder committed over each
 *	partition, the volatile then the persistent part of the window
 * @lock_on_commit: those decoders have Lock On Commit set
 * @fw_slots: firmware slots, CXLV_FW_MIN_SLOTS to CXLV_FW_MAX_SLOTS
 * @fw_rev: the revision slot 1 holds from the factory, NUL-padded
 * @ops: the callbacks of the layer above
 */
struct cxlv_emu_config {
	struct device *dev;
	unsigned int pos;
	void __iomem *dev_regs;
	void __iomem *comp_regs;
	void __iomem *lsa;
	void __iomem *nv;
	u64 capacity;
	u64 hpa_base;
	unsigned int ways;
	unsigned int granularity;
	void __iomem *bridge_regs;
	unsigned int bridge_ways;
	bool pmem;
	bool partitionable;
	u64 ram_bytes;
	bool auto_commit;
	bool lock_on_commit;
	unsigned int fw_slots;
	char fw_rev[CXLV_FW_REV_LEN];
	const struct cxlv_emu_ops *ops;
};

struct cxlv_emu;

/*
 * The partition layout a device is created with, read from (or with
 * @ram_size given, written to) its non-volatile area @nv; cxlv_partition.c.
 */
u64 cxlv_partition_boot(void __iomem *nv, u64 capacity, bool partitionable,
			const u64 *ram_size);

/*
 * cxlv_emu_start() writes the initial register contents (never the LSA) and
 * starts the poller; it returns an ERR_PTR on failure. cxlv_emu_stop() stops
 * the poller synchronously and frees the emulator; no register is touched
 * after it returns. Both may sleep.
 */
struct cxlv_emu *cxlv_emu_start(const struct cxlv_emu_config *cfg);
void cxlv_emu_stop(struct cxlv_emu *emu);

/*
 * Writes the host-bridge block; with more than one root port its decoder is
 * then answered by an emulator whose @bridge_regs point at it.
 */
void cxlv_emu_init_bridge_regs(void __iomem *regs, unsigned int root_ports);

/* Counters for the device's sysfs attributes. */
u64 cxlv_emu_mbox_cmds(const struct cxlv_emu *emu);
u64 cxlv_emu_commits(const struct cxlv_emu *emu);
u64 cxlv_emu_events_injected(const struct cxlv_emu *emu);
u64 cxlv_emu_events_cleared(const struct cxlv_emu *emu);
u64 cxlv_emu_events_pending(const struct cxlv_emu *emu);

/*
 * For the hints (cxlv_hint.c): cxlv_emu_for_each() calls @act on every
 * running emulator, under RCU and with preemption off; the two acts catch
 * up with what the host just did to the mailbox or to a decoder.
 */
void cxlv_emu_for_each(void (*act)(struct cxlv_emu *emu));
void cxlv_emu_mbox_hint(struct cxlv_emu *emu);
void cxlv_emu_hdm_sync(struct cxlv_emu *emu);

struct cxlv_event_request;
int cxlv_emu_inject_event(struct cxlv_emu *emu,
			  const struct cxlv_event_request *req);
struct cxlv_health_request;
int cxlv_emu_set_health(struct cxlv_emu *emu,
			const struct cxlv_health_request *req);

#endif /* __CXLV_EMU_H__ */

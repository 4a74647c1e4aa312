/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __CXLV_H__
#define __CXLV_H__

#include <linux/bits.h>
#include <linux/device.h>
#include <linux/ioport.h>
#include <linux/kfifo.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/sizes.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "cxlv_compat.h"
#include "cxlv_doe.h"
#include "cxlv_emu.h"
#include "cxlv_parse.h"
#include "cxlv_report.h"

/**
 * DOC: cxl_virt device model
 *
 * The device model layer's header (topology and, through cxlv_mem.h,
 * memory): what a cxlvN device is made of and the API of the files that
 * build it. The layers above it (hooks, control) include it; the emulator
 * and the common headers below never do.
 *
 * A cxl_virt device turns a reserved range of host RAM into a CXL type-3
 * memory expander, or an interleave set of ways of them below one to four
 * PCI host bridges, each endpoint below a root port of its own. The range
 * is laid out as::
 *
 *   memstart + p MiB     1 MiB PCI window that the emulated root port of
 *                        position p forwards; it starts with that
 *                        endpoint's BAR0 (CXLV_BAR_SIZE)
 *    .. + 512 KiB        its label storage area (CXLV_LSA_SIZE), in the
 *                        window but in no BAR; cxlvN's label_offset and
 *                        label_size attributes say where
 *    .. + 640 KiB        its non-volatile state (CXLV_NV_SIZE), likewise
 *   ALIGN(.., ways x 256 MiB)
 *                        device memory, up to ALIGN_DOWN(end, ways x
 *                        256 MiB); this is also the root decoder's window,
 *                        which the set's region covers exactly
 *
 * Each endpoint's metadata area (BAR0 and LSA) is mapped once, before its
 * PCI domain exists, uncached like cxl_pci's own mapping of the BAR, so both see one
 * memory type.
 */

#define CXLV_MAX_DEVICES	16
#define CXLV_PCI_WINDOW_SIZE	SZ_1M	/* bridge window granularity */
#define CXLV_LSA_OFFSET		SZ_512K
#define CXLV_META_SIZE		CXLV_PCI_WINDOW_SIZE
#define CXLV_NV_OFFSET		(CXLV_LSA_OFFSET + CXLV_LSA_SIZE)
#define CXLV_META_MAP_SIZE	(CXLV_NV_OFFSET + CXLV_NV_SIZE)
#define CXLV_START_ALIGN	SZ_1M
#define CXLV_WINDOW_ALIGN	SZ_256M	/* CXL_CAPACITY_MULTIPLIER */
#define CXLV_DOMAIN_BASE	0x10000	/* above any ACPI segment, like VMD */
#define CXLV_DOMAIN_COUNT	0x10000	/* domains tried from CXLV_DOMAIN_BASE */
#define CXLV_SERIAL_TAG		0x43584c56ULL	/* "CXLV" */
/* Default serial: CXLV_SERIAL_TAG above the range's start in MiB */
#define CXLV_SERIAL_TAG_MASK	GENMASK_ULL(63, 32)
#define CXLV_SERIAL_START_MASK	GENMASK_ULL(31, 0)

/**
 * struct cxlv_layout - where everything lives inside the reserved range
 * @bar0: BAR0 of the endpoint at position 0, also the start of its PCI
 *	window; position p's is @bar0 + p MiB
 * @window_start: first byte of device memory (HPA of DPA 0)
 * @capacity: bytes of device memory, a multiple of CXLV_WINDOW_ALIGN
 */
struct cxlv_layout {
	u64 bar0;
	u64 window_start;
	u64 capacity;
};

/**
 * struct cxlv_cfg_func - config space model of one emulated PCI function
 * @data: current register contents
 * @wmask: bits software may write
 * @w1cmask: bits software clears by writing 1
 * @present: answers config cycles; cleared once the function starts to go
 * @doe: the DOE mailbox whose registers the function has, or NULL
 */
struct cxlv_cfg_func {
	u8 data[PCI_CFG_SPACE_EXP_SIZE];
	u8 wmask[PCI_CFG_SPACE_EXP_SIZE];
	u8 w1cmask[PCI_CFG_SPACE_EXP_SIZE];
	bool present;
	struct cxlv_doe *doe;
};

/*
 * Root windows of a device: its CXL window, or the volatile and the
 * persistent part of it (cxlv_window_split()).
 */
#define CXLV_MAX_WINDOWS	2

/* A piece of physical address space. */
struct cxlv_span {
	u64 start;
	u64 size;
};

struct cxlv_emu;
struct cxlv_borrow;
struct cxlv_badrange;
struct cxl_dport;
struct cxl_nvdimm_bridge;
struct cxl_port;
struct cxl_root_decoder;

/**
 * struct cxlv_hb - one PCI host bridge of a device, a dport of its CXL root
 * @cxlv: the device (set) it belongs to
 * @idx: its place in the root decoder's target list, 0..host_bridges-1,
 *	also its dport id
 * @dport: the CXL root's dport for it
 * @busn_res: bus numbers of its PCI domain: 0 and one per root port
 * @sysdata: x86 PCI sysdata carrying the PCI domain
 * @bus: root bus of the software PCI domain
 */
struct cxlv_hb {
	struct cxlv_dev *cxlv;
	unsigned int idx;
	struct cxl_dport *dport;
	struct resource busn_res;
	struct pci_sysdata sysdata;
	struct pci_bus *bus;
};

/**
 * struct cxlv_ep - one endpoint of a device, below a root port of its own
 * @cxlv: the device (set) it belongs to
 * @pos: its position in the set's interleave, 0..ways-1
 * @hb: its host bridge, number @pos mod host_bridges
 * @rp: its root port's index on the host bridge, @pos div host_bridges:
 *	devfn (@rp, 0) on bus 0, port number @rp, secondary bus @rp + 1
 * @bar0: its BAR0, also the start of its 1 MiB PCI window
 * @pci_res: its 1 MiB PCI window, one of the host bridge's memory windows
 *	and the window of its root port
 * @rp_cfg: config space of the root port
 * @ep_cfg: config space of the endpoint, device 0 of the secondary bus
 * @meta: single mapping of BAR0 and the LSA
 * @emu: the register emulator, once started
 * @bar_lock: guards @bar_cover, @bar_bound, @bar_live and @bar_ep
 * @bar_cover: busy covers of BAR0's pieces (cxlv_bar.c)
 * @bar_bound: which owners of BAR0's capabilities have their driver bound
 * @bar_live: probe has covered BAR0; the notifiers keep it so
 * @bar_ep: the endpoint whose BAR0 is covered; only compared
 * @doe: the endpoint's DOE mailbox and CDAT
 * @ram_bytes: the volatile bytes at DPA 0 it was created with (pmem=1:
 *	cxlv_partition_boot())
 */
struct cxlv_ep {
	struct cxlv_dev *cxlv;
	unsigned int pos;
	struct cxlv_hb *hb;
	unsigned int rp;
	u64 bar0;
	struct resource pci_res;
	struct cxlv_cfg_func rp_cfg;
	struct cxlv_cfg_func ep_cfg;
	void __iomem *meta;
	struct cxlv_emu *emu;
	struct mutex bar_lock;
	struct resource *bar_cover[2 * CXLV_BAR_CAPS + 1];
	bool bar_bound[CXLV_BAR_OWNERS];
	bool bar_live;
	struct pci_dev *bar_ep;
	struct cxlv_doe doe;
	u64 ram_bytes;
};

/**
 * struct cxlv_dev - one virtual CXL memory device: an interleave set of
 *	@params.ways endpoints below @params.host_bridges host bridges
 * @dev: the cxlvN device on the cxl_virt bus; host of the CXL root
 * @id: N of cxlvN
 * @params: what the user asked for
 * @layout: derived placement inside the reserved range
 * @range_res: the device's resource over its whole range, never busy,
 *	placed while a busy claim kept others out (cxlv_mem_claim())
 * @unused: busy fillers of the range outside all windows
 * @window_lock: guards @fence, @fenced, @regions, @pinned, @reported and
 *	@closed
 * @fence: busy claims that cover the CXL window while it has no region
 * @fenced: how many of @fence are held
 * @regions: regions below the device's root decoder
 * @pinned: holds a module reference because the window is not fenced
 * @reported: the log said why the fence cannot go up
 * @closed: the window has left iomem; region events no longer touch it
 * @refence: tries the fence again while the window is unfenced and idle
 * @eps: the endpoints by position, @params.ways of them
 * @hbs: the host bridges, @params.host_bridges of them
 * @root: CXL root port (rootN)
 * @window_res: the device's CXL window published in iomem; allocated
 *	until the device is released, since a root decoder may point at it
 * @parts: the volatile and the persistent part of @window_res, children of
 *	it, when the device has both (cxlv_window_split())
 * @windows: where each root decoder allocates regions: @window_res, or
 *	@parts; @nr_windows of them
 * @nr_windows: 1, or 2 for a device with both kinds of capacity
 * @cxlrd: the root decoder over each of @windows
 * @probe_rc: why probe failed, for the creator to report
 * @probe_reported: probe said why in last_error, which the creator keeps
 * @borrow: the borrowed range the device is on, until its claim goes
 * @borrowed: the device was made on a borrowed range
 * @badrange: its poison on the nvdimm bus of its bridge (cxlv_badrange.c)
 */
struct cxlv_dev {
	struct device dev;
	int id;
	struct cxlv_params params;
	struct cxlv_layout layout;
	struct resource *range_res;
	struct resource unused[2];
	struct mutex window_lock;
	struct cxlv_span fence[CXLV_MAX_WINDOWS + 2];
	unsigned int fenced;
	unsigned int regions;
	bool pinned;
	bool reported;
	bool closed;
	struct delayed_work refence;
	struct cxlv_ep *eps;
	struct cxlv_hb *hbs;
	struct cxl_port *root;
	struct resource *window_res;
	struct resource parts[CXLV_MAX_WINDOWS];
	struct resource *windows[CXLV_MAX_WINDOWS];
	unsigned int nr_windows;
	struct cxl_root_decoder *cxlrd[CXLV_MAX_WINDOWS];
	int probe_rc;
	bool probe_reported;
	struct cxlv_borrow *borrow;
	bool borrowed;
	struct cxlv_badrange *badrange;
};

#define cxlv_for_each_ep(cxlv, ep)					\
	for ((ep) = (cxlv)->eps; (ep) < (cxlv)->eps + (cxlv)->params.ways; \
	     (ep)++)

#define cxlv_for_each_hb(cxlv, hb)					\
	for ((hb) = (cxlv)->hbs;					\
	     (hb) < (cxlv)->hbs + (cxlv)->params.host_bridges; (hb)++)

/*
 * Volatile bytes of the set, at the start of its window: each endpoint's
 * volatile partition (a persistent device) or all of a volatile one.
 */
static inline u64 cxlv_ram_bytes(const struct cxlv_dev *cxlv)
{
	if (!cxlv->params.pmem)
		return cxlv->layout.capacity;
	return cxlv->eps[0].ram_bytes * cxlv->params.ways;
}

/* Root ports per host bridge, one endpoint below each. */
static inline unsigned int cxlv_root_ports(const struct cxlv_dev *cxlv)
{
	return cxlv->params.ways / cxlv->params.host_bridges;
}

/* The endpoint below root port @rp of @hb. */
static inline struct cxlv_ep *cxlv_hb_ep(const struct cxlv_hb *hb,
					 unsigned int rp)
{
	return &hb->cxlv->eps[rp * hb->cxlv->params.host_bridges + hb->idx];
}

/*
 * Does the component block in @ep's PCI window hold its host bridge's HDM
 * decoders? The first endpoint of a bridge with more than one root port,
 * and of every bridge where the kernel uses a one-port bridge's decoders
 * (CXLV_SINGLE_DPORT_HDM): there several regions can pass through it,
 * where a pass-through port's one decoder carries one region at a time.
 */
static inline bool cxlv_hb_decodes(const struct cxlv_ep *ep)
{
	return !ep->rp &&
	       (cxlv_root_ports(ep->cxlv) > 1 || CXLV_SINGLE_DPORT_HDM);
}

static inline struct cxlv_dev *to_cxlv_dev(struct device *dev)
{
	return container_of(dev, struct cxlv_dev, dev);
}

/* Each endpoint offers an equal share of the set's window. */
static inline u64 cxlv_ep_capacity(const struct cxlv_dev *cxlv)
{
	return div_u64(cxlv->layout.capacity, cxlv->params.ways);
}

/* cxlv_bus.c: the bus the cxlvN devices sit on */
extern CXLV_BUS_CONST struct bus_type cxlv_bus;
void cxlv_dev_set_bus(struct device *dev);
bool cxlv_dev_on_bus(const struct device *dev);
void cxlv_bus_names(struct cxlv_names *n);

/* cxlv_bar.c: BAR0 busy but for what a bound driver maps */
int cxlv_bar_init(struct cxlv_ep *ep);
int cxlv_bar_start(struct cxlv_ep *ep);
void cxlv_bar_pci_event(struct cxlv_ep *ep, struct pci_dev *pdev,
			unsigned long action);
void cxlv_bar_port_event(struct cxlv_ep *ep, unsigned long action);

/* cxlv_cfg.c: config space of the root port and the endpoint */
void cxlv_cfg_init_rp(struct cxlv_cfg_func *f, const struct cxlv_ep *ep);
void cxlv_cfg_init_ep(struct cxlv_cfg_func *f, struct cxlv_ep *ep);
u32 cxlv_cfg_read(const struct cxlv_cfg_func *f, int where, int size);
bool cxlv_cfg_msi_enabled(const struct cxlv_cfg_func *f);
void cxlv_cfg_write(struct cxlv_cfg_func *f, int where, int size, u32 val);

/* cxlv_pci.c: the software PCI domain */
int cxlv_pci_setup(struct cxlv_hb *hb);
void cxlv_pci_add_devices(struct cxlv_hb *hb);
void cxlv_pci_stop_devices(struct cxlv_dev *cxlv);
struct pci_dev *cxlv_pci_get_ep(struct cxlv_ep *ep);
struct cxlv_ep *cxlv_pci_owner(struct device *dev);
int cxlv_pci_notifier_init(void);
void cxlv_pci_notifier_exit(void);

/* cxlv_port.c: CXL topology objects */
int cxlv_port_setup(struct cxlv_dev *cxlv);
struct cxl_nvdimm_bridge *cxlv_port_add_nvdimm_bridge(struct cxlv_dev *cxlv);
bool cxlv_port_has_region(struct cxlv_dev *cxlv, const char **region);
bool cxlv_is_our_region(struct device *dev);
int cxlv_port_region_notifier_init(void);
void cxlv_port_region_notifier_exit(void);

#include "cxlv_mem.h"

#endif /* __CXLV_H__ */

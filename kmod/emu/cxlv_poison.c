// SPDX-License-Identifier: GPL-2.0-only
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk_types.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/memory_hotplug.h>
#include <linux/string.h>
#include "cxlmem.h"
#include "cxlv_compat.h"
#include "cxlv_emu_internal.h"

/**
 * DOC: cxl_virt poison list
 *
 * The media error commands of CXL r3.0 8.2.9.8.4: Get Poison List, Inject
 * Poison and Clear Poison, answered on a list of up to
 * CXLV_POISON_MAX_RECORDS 64-byte lines the emulator keeps per device.
 * IDENTIFY advertises the list's size and the CEL the three opcodes, which
 * is what makes 6.12's and 7.3's cxl core offer the debugfs inject_poison
 * and clear_poison files and the memdev's trigger_poison_list. 6.1's core
 * only lets them through its ioctl, where they answer the same way.
 *
 * An injection the full list cannot record sets the Overflow flag and its
 * timestamp, as a device that lost track of its media errors does; a Clear
 * Poison that leaves the list empty resets them (without Scan Media there
 * is nothing else that could). Clear Poison writes its 64 bytes of data to
 * the line whether or not the line was poisoned, as the spec says.
 *
 * What hardware poison does to the host, as far as the kernel lets a
 * module: an injected line whose page the kernel manages (an online page of
 * a RAM region, or a ZONE_DEVICE page of a devdax or fsdax namespace) goes
 * to memory_failure(), queued from any context, flagged MF_SW_SIMULATED so
 * that it can be undone: mappings of the page go and their processes get
 * SIGBUS (BUS_MCEERR_*), a free RAM page leaves the allocator. A Clear
 * Poison that leaves no record in the page gives an online page back
 * (unpoison_memory()). Memory without struct pages (no namespace, a raw
 * one) has only the list. The data write and unpoison_memory() run in a
 * worker, which the handler waits for when it was answered in process
 * context (cmd->may_sleep, as cxlv_emu.c decides); answered with
 * preemption off (one CPU, no preemption) the command completes first. Under a pmem region the line's sector
 * also goes on (and comes off) the badblocks of the region and its
 * namespaces, which is what fails pmem reads with EIO: the emulator tells
 * the layer above through &cxlv_emu_ops.poison_changed (cxlv_badrange.c).
 *
 * The list lives and dies with the emulator: a remove drops it, and a device
 * created again on the same range starts with no poison, while the data a
 * Clear Poison wrote stays in the range like any other data.
 */

/*
 * The payloads below are the module's: 6.1 has none of them. Where the
 * kernel has its own (cxlmem.h), they are asserted to match field by field.
 */

/* CXL r3.0 8.2.9.8.4.1 Get Poison List input payload */
struct cxlv_poison_list_in {
	__le64 address;	/* bits 63:6 the DPA, 5:0 reserved */
	__le64 length;	/* in CXLV_POISON_LINE units */
} __packed;

/* CXL r3.0 8.2.9.8.4.1 Media Error Record */
struct cxlv_poison_record {
	__le64 address;	/* bits 63:6 the DPA, 2:0 the error source */
	__le32 length;	/* in CXLV_POISON_LINE units */
	__le32 reserved;
} __packed;

/* CXL r3.0 8.2.9.8.4.1 Get Poison List output payload */
struct cxlv_poison_list_out {
	u8 flags;
	u8 reserved1;
	__le64 overflow_ts;
	__le16 count;
	u8 reserved2[0x14];
	struct cxlv_poison_record record[];
} __packed;

/* CXL r3.0 8.2.9.8.4.3 Clear Poison input payload */
struct cxlv_poison_clear_in {
	__le64 address;
	u8 data[64];
} __packed;

/* A record's unit: one 64-byte line */
#define CXLV_POISON_LINE		CXL_POISON_LEN_MULT

static_assert(sizeof(struct cxlv_poison_list_in) == CXLV_POISON_LIST_IN_LEN);
static_assert(sizeof(struct cxlv_poison_clear_in) == CXLV_POISON_CLEAR_IN_LEN);
static_assert(sizeof(struct cxlv_poison_list_out) + CXLV_POISON_MAX_RECORDS *
	      sizeof(struct cxlv_poison_record) <= CXLV_MBOX_PAYLOAD_SIZE);

#ifdef CXLV_HAVE_POISON_PAYLOADS
/* field @f of struct cxlv_poison_@s is field @kf of the kernel's @kt */
#define CXLV_PAYLOAD(s, f, kt, kf)					\
	CXLV_FIELD_AT(struct cxlv_poison_##s, f, 0, struct kt, kf)
static_assert(CXLV_PAYLOAD(list_in, address, cxl_mbox_poison_in, offset) &&
	      CXLV_PAYLOAD(list_in, length, cxl_mbox_poison_in, length) &&
	      CXLV_SAME_SIZE(struct cxlv_poison_list_in,
			     struct cxl_mbox_poison_in));
static_assert(CXLV_PAYLOAD(record, address, cxl_poison_record, address) &&
	      CXLV_PAYLOAD(record, length, cxl_poison_record, length) &&
	      CXLV_PAYLOAD(record, reserved, cxl_poison_record, rsvd) &&
	      CXLV_SAME_SIZE(struct cxlv_poison_record,
			     struct cxl_poison_record));
static_assert(CXLV_PAYLOAD(list_out, flags, cxl_mbox_poison_out, flags) &&
	      CXLV_PAYLOAD(list_out, reserved1, cxl_mbox_poison_out, rsvd1) &&
	      CXLV_PAYLOAD(list_out, overflow_ts, cxl_mbox_poison_out,
			   overflow_ts) &&
	      CXLV_PAYLOAD(list_out, count, cxl_mbox_poison_out, count) &&
	      CXLV_PAYLOAD(list_out, reserved2, cxl_mbox_poison_out, rsvd2) &&
	      offsetof(struct cxlv_poison_list_out, record) ==
	      offsetof(struct cxl_mbox_poison_out, record) &&
	      CXLV_SAME_SIZE(struct cxlv_poison_list_out,
			     struct cxl_mbox_poison_out));
static_assert(sizeof(struct cxl_mbox_inject_poison) ==
	      CXLV_POISON_INJECT_IN_LEN);
static_assert(CXLV_PAYLOAD(clear_in, address, cxl_mbox_clear_poison,
			   address) &&
	      CXLV_PAYLOAD(clear_in, data, cxl_mbox_clear_poison, write_data) &&
	      CXLV_SAME_SIZE(struct cxlv_poison_clear_in,
			     struct cxl_mbox_clear_poison));
#endif

/* Writes the data of queued Clear Poisons; gives pages back to mm. */
static void cxlv_poison_work(struct work_struct *work)
{
	struct cxlv_poison *poison = container_of(work, struct cxlv_poison,
						  work);
	struct cxlv_poison_clear clear;

	while (kfifo_get(&poison->clears, &clear)) {
		phys_addr_t addr = clear.hpa;
		struct page *page;
		void *line;

		line = memremap(addr, CXLV_POISON_LINE, MEMREMAP_WB);
		if (line) {
			memcpy(line, clear.data, CXLV_POISON_LINE);
			memunmap(line);
		} else {
			pr_err_ratelimited("cannot map %pa to clear poison\n",
					   &addr);
		}
		page = pfn_to_online_page(PHYS_PFN(addr));
		if (clear.unpoison && page && PageHWPoison(page))
			unpoison_memory(PHYS_PFN(addr));
	}
}

/**
 * cxlv_poison_start() - an empty list
 * @poison: the device's list
 * @cfg: the device
 */
void cxlv_poison_start(struct cxlv_poison *poison,
		       const struct cxlv_emu_config *cfg)
{
	poison->count = 0;
	poison->overflow_ts = 0;
	INIT_KFIFO(poison->clears);
	INIT_WORK(&poison->work, cxlv_poison_work);
}

/* After the last command: the clears already answered still happen. */
void cxlv_poison_stop(struct cxlv_poison *poison)
{
	flush_work(&poison->work);
}

/* The line at @addr if it is a 64-byte aligned DPA of the device, else -1. */
static s64 cxlv_poison_line(const struct cxlv_emu_config *cfg, __le64 addr)
{
	u64 dpa = le64_to_cpu(addr);

	if (!IS_ALIGNED(dpa, CXLV_POISON_LINE) || dpa >= cfg->capacity)
		return -1;
	return dpa;
}

/* The index of the first record in [@dpa, @dpa + @len), or -1. */
static int cxlv_poison_find(const struct cxlv_poison *poison, u64 dpa,
			    u64 len)
{
	unsigned int i;

	for (i = 0; i < poison->count; i++)
		if (poison->dpa[i] >= dpa && poison->dpa[i] - dpa < len)
			return i;
	return -1;
}

/*
 * Where a DPA of this endpoint is in host memory: the set's window holds
 * granularity-sized chunks of the endpoints in turn (CXL r3.0 9.13.1).
 */
static phys_addr_t cxlv_poison_hpa(const struct cxlv_emu_config *cfg,
				   u64 dpa)
{
	u32 rem;
	u64 chunk;

	if (cfg->ways == 1)
		return cfg->hpa_base + dpa;
	chunk = div_u64_rem(dpa, cfg->granularity, &rem);
	return cfg->hpa_base +
	       (chunk * cfg->ways + cfg->pos) * cfg->granularity + rem;
}

/* The DPA of this endpoint at @hpa, or -1 if another endpoint has it. */
static s64 cxlv_poison_dpa(const struct cxlv_emu_config *cfg, phys_addr_t hpa)
{
	u64 chunk;
	u32 rem;

	if (cfg->ways == 1)
		return hpa - cfg->hpa_base;
	chunk = div_u64_rem(hpa - cfg->hpa_base, cfg->granularity, &rem);
	if (do_div(chunk, cfg->ways) != cfg->pos)
		return -1;
	return chunk * cfg->granularity + rem;
}

/* The lines of @hpa's 512-byte sector this endpoint still has poisoned. */
static u8 cxlv_poison_sector_left(const struct cxlv_emu_config *cfg,
				  const struct cxlv_poison *poison,
				  phys_addr_t hpa)
{
	phys_addr_t sector = ALIGN_DOWN(hpa, SECTOR_SIZE);
	unsigned int i;
	u8 left = 0;
	s64 dpa;

	for (i = 0; i < SECTOR_SIZE / CXLV_POISON_LINE; i++) {
		dpa = cxlv_poison_dpa(cfg, sector + i * CXLV_POISON_LINE);
		if (dpa >= 0 &&
		    cxlv_poison_find(poison, dpa, CXLV_POISON_LINE) >= 0)
			left |= BIT(i);
	}
	return left;
}

/*
 * No record of this endpoint is left in the host page of @dpa (at @hpa).
 * The window is 256 MiB aligned, so from a page-sized granularity up a host
 * page is a DPA page; below it the page holds chunks of several endpoints,
 * and only this endpoint's own are looked at.
 */
static bool cxlv_poison_page_clean(const struct cxlv_emu_config *cfg,
				   const struct cxlv_poison *poison, u64 dpa,
				   phys_addr_t hpa)
{
	phys_addr_t page = ALIGN_DOWN(hpa, PAGE_SIZE), h;
	u64 g = cfg->granularity;
	s64 chunk;

	if (cfg->ways == 1 || g >= PAGE_SIZE)
		return cxlv_poison_find(poison, ALIGN_DOWN(dpa, PAGE_SIZE),
					PAGE_SIZE) < 0;
	for (h = page; h < page + PAGE_SIZE; h += g) {
		chunk = cxlv_poison_dpa(cfg, h);
		if (chunk >= 0 && cxlv_poison_find(poison, chunk, g) >= 0)
			return false;
	}
	return true;
}

/*
 * CXL r3.0 8.2.9.8.4.1 Get Poison List: the records inside the range. A
 * misaligned address is Invalid Input; a range reaching past the capacity
 * is Invalid Physical Address, as on QEMU's device: the kernel asks for
 * the volatile capacity left after its last committed decoder even when
 * none is left (6.12's cxl_get_poison_unmapped(), a zero length at the
 * capacity), and takes that answer as no records.
 */
u16 cxlv_poison_get_list(const struct cxlv_emu_config *cfg,
			 struct cxlv_mbox_cmd *cmd)
{
	const struct cxlv_poison_list_in *in = cmd->in;
	const struct cxlv_poison *poison = &cmd->state->poison;
	struct cxlv_poison_list_out *out = cmd->out;
	u64 start = le64_to_cpu(in->address);
	u64 length = le64_to_cpu(in->length);
	unsigned int i, n = 0;

	if (!IS_ALIGNED(start, CXLV_POISON_LINE))
		return CXL_MBOX_CMD_RC_INPUT;
	if (start >= cfg->capacity ||
	    length > (cfg->capacity - start) / CXLV_POISON_LINE)
		return CXL_MBOX_CMD_RC_PADDR;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < poison->count; i++) {
		u64 dpa = poison->dpa[i];

		if (dpa < start || dpa - start >= length * CXLV_POISON_LINE)
			continue;
		out->record[n].address =
			cpu_to_le64(dpa | CXL_POISON_SOURCE_INJECTED);
		out->record[n].length = cpu_to_le32(1);
		out->record[n].reserved = 0;
		n++;
	}
	if (poison->overflow_ts) {
		out->flags = CXL_POISON_FLAG_OVERFLOW;
		out->overflow_ts = cpu_to_le64(poison->overflow_ts);
	}
	out->count = cpu_to_le16(n);
	cmd->out_len = struct_size(out, record, n);
	return CXL_MBOX_CMD_RC_SUCCESS;
}

/*
 * CXL r3.0 8.2.9.8.4.2 Inject Poison: a line already poisoned stays one; a
 * page the kernel manages fails as on a machine check.
 */
u16 cxlv_poison_inject(const struct cxlv_emu_config *cfg,
		       struct cxlv_mbox_cmd *cmd)
{
	struct cxlv_poison *poison = &cmd->state->poison;
	unsigned long pfn;
	phys_addr_t hpa;
	__le64 addr;
	s64 dpa;

	static_assert(sizeof(addr) == CXLV_POISON_INJECT_IN_LEN);
	memcpy(&addr, cmd->in, sizeof(addr));
	dpa = cxlv_poison_line(cfg, addr);
	if (dpa < 0)
		return CXL_MBOX_CMD_RC_INPUT;
	if (cxlv_poison_find(poison, dpa, CXLV_POISON_LINE) >= 0)
		return CXL_MBOX_CMD_RC_SUCCESS;

	if (poison->count < CXLV_POISON_MAX_RECORDS) {
		poison->dpa[poison->count++] = dpa;
	} else {
		if (!poison->overflow_ts)
			poison->overflow_ts = cxlv_mbox_now(cmd->state) ?: 1;
		dev_dbg_ratelimited(cfg->dev,
				    "poison list full, DPA %#llx not recorded\n",
				    dpa);
	}
	hpa = cxlv_poison_hpa(cfg, dpa);
	cfg->ops->poison_changed(cfg->dev, hpa, true, 0);
	pfn = PHYS_PFN(hpa);
	if (pfn_valid(pfn))
		memory_failure_queue(pfn, MF_SW_SIMULATED);
	return CXL_MBOX_CMD_RC_SUCCESS;
}

/* CXL r3.0 8.2.9.8.4.3 Clear Poison: write the data, drop the record */
u16 cxlv_poison_clear(const struct cxlv_emu_config *cfg,
		      struct cxlv_mbox_cmd *cmd)
{
	const struct cxlv_poison_clear_in *in = cmd->in;
	struct cxlv_poison *poison = &cmd->state->poison;
	struct cxlv_poison_clear clear;
	s64 dpa = cxlv_poison_line(cfg, in->address);
	int i;

	if (dpa < 0)
		return CXL_MBOX_CMD_RC_INPUT;
	if (kfifo_is_full(&poison->clears))
		return CXL_MBOX_CMD_RC_BUSY;

	i = cxlv_poison_find(poison, dpa, CXLV_POISON_LINE);
	if (i >= 0)
		poison->dpa[i] = poison->dpa[--poison->count];
	if (!poison->count)
		poison->overflow_ts = 0;

	clear.hpa = cxlv_poison_hpa(cfg, dpa);
	clear.unpoison = cxlv_poison_page_clean(cfg, poison, dpa, clear.hpa);
	memcpy(clear.data, in->data, sizeof(clear.data));
	kfifo_put(&poison->clears, clear);
	cfg->ops->poison_changed(cfg->dev, clear.hpa, false,
				 cxlv_poison_sector_left(cfg, poison, clear.hpa));
	schedule_work(&poison->work);
	if (cmd->may_sleep)
		flush_work(&poison->work);
	return CXL_MBOX_CMD_RC_SUCCESS;
}

/**
 * cxlv_poison_clear_all() - forget every record, as an erase of the media does
 * @cfg: the device
 * @poison: its list
 *
 * The layer above hears of each line as of a Clear Poison. Nothing is
 * written (the erase wrote zeros) and no page goes back to mm: the kernel
 * erases only a device without a region, whose lines have no struct page.
 */
void cxlv_poison_clear_all(const struct cxlv_emu_config *cfg,
			   struct cxlv_poison *poison)
{
	phys_addr_t hpa;

	while (poison->count) {
		hpa = cxlv_poison_hpa(cfg, poison->dpa[--poison->count]);
		cfg->ops->poison_changed(cfg->dev, hpa, false,
					 cxlv_poison_sector_left(cfg, poison,
								 hpa));
	}
	poison->overflow_ts = 0;
}

/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __CXLV_EMU_INTERNAL_H__
#define __CXLV_EMU_INTERNAL_H__

#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include "cxl.h"
#include "cxlv_emu.h"

/**
 * DOC: cxl_virt emulator internals
 *
 * Shared by the emulator's three files only: cxlv_regs.c lays out the
 * register blocks, cxlv_mbox.c answers mailbox commands on plain buffers,
 * cxlv_emu.c polls the registers and moves data between them.
 */

/* CXL 3.0 8.2.8 device register block: where each capability lives. */
#define CXLV_DEV_CAP_COUNT	3
#define CXLV_DEV_STATUS_OFFSET	0x100	/* CXL 3.0 8.2.8.3 */
#define CXLV_DEV_STATUS_SIZE	0x8
#define CXLV_MEMDEV_OFFSET	0x200	/* CXL 3.0 8.2.8.5 */
#define CXLV_MEMDEV_SIZE	0x8
#define CXLV_MBOX_OFFSET	0x1000	/* CXL 3.0 8.2.8.4 */
#define CXLV_MBOX_PAYLOAD_SIZE	SZ_4K
#define CXLV_MBOX_SIZE		(CXLDEV_MBOX_PAYLOAD_OFFSET + CXLV_MBOX_PAYLOAD_SIZE)

/*
 * CXL 3.0 8.2.4 component register block: the HDM Decoder Capability
 * Structure, relative to the CXL.cachemem capability array at CXL_CM_OFFSET.
 */
#define CXLV_HDM_OFFSET		0x100

/**
 * struct cxlv_mbox_state - what mailbox commands change on the device
 * @timestamp: CXL 3.0 8.2.9.4.2 the host's time at its last Set Timestamp,
 *	in ns since the epoch
 * @timestamp_set_at: ktime_get_ns() at that Set Timestamp; 0: never set
 */
struct cxlv_mbox_state {
	u64 timestamp;
	u64 timestamp_set_at;
};

/**
 * struct cxlv_mbox_cmd - one mailbox command as the handlers see it
 * @opcode: CXL 3.0 8.2.8.4.5 Command Register opcode
 * @in: input payload, already copied out of the payload registers
 * @in_len: bytes in @in
 * @out: output buffer of CXLV_MBOX_PAYLOAD_SIZE bytes
 * @out_len: bytes of @out the handler produced
 * @state: the device's state, under the emulator's lock
 */
struct cxlv_mbox_cmd {
	u16 opcode;
	const void *in;
	size_t in_len;
	void *out;
	size_t out_len;
	struct cxlv_mbox_state *state;
};

/**
 * struct cxlv_hdm_decoder - the registers of one HDM decoder
 * @ctrl: CXL 3.0 8.2.4.19.7 HDM Decoder Control
 * @base: HPA base
 * @size: HPA size
 * @skip: DPA skip (endpoint decoders)
 */
struct cxlv_hdm_decoder {
	u32 ctrl;
	u64 base;
	u64 size;
	u64 skip;
};

/**
 * struct cxlv_emu - one emulated device
 * @cfg: what the topology code told us, including the register mappings
 * @mbox: the primary mailbox registers inside @cfg.dev_regs
 * @hdm: the HDM Decoder Capability Structure inside @cfg.comp_regs
 * @timer: the poller; fires in hard interrupt context
 * @node: in the list of running emulators the doorbell hint walks
 * @lock: serializes the poller and the doorbell hint
 * @period_ns: current poll period, short while busy, backing off when idle
 * @last_busy: when the poller last found work
 * @mbox_cmds: mailbox commands answered
 * @commits: HDM decoder commits accepted
 * @mbox_state: what mailbox commands have changed
 * @hdm_accepted: each decoder's programming when its commit was accepted
 * @payload_in: bounce buffer for the input payload
 * @payload_out: bounce buffer for the output payload
 */
struct cxlv_emu {
	struct cxlv_emu_config cfg;
	void __iomem *mbox;
	void __iomem *hdm;
	struct hrtimer timer;
	struct list_head node;
	raw_spinlock_t lock;
	u64 period_ns;
	ktime_t last_busy;
	u64 mbox_cmds;
	u64 commits;
	struct cxlv_mbox_state mbox_state;
	struct cxlv_hdm_decoder hdm_accepted[CXLV_HDM_DECODERS];
	u8 payload_in[CXLV_MBOX_PAYLOAD_SIZE];
	u8 payload_out[CXLV_MBOX_PAYLOAD_SIZE];
};

void cxlv_regs_init(const struct cxlv_emu_config *cfg);
void __iomem *cxlv_regs_mbox(const struct cxlv_emu_config *cfg);
void __iomem *cxlv_regs_hdm(const struct cxlv_emu_config *cfg);

u16 cxlv_mbox_handle(const struct cxlv_emu_config *cfg,
		     struct cxlv_mbox_cmd *cmd);

#endif /* __CXLV_EMU_INTERNAL_H__ */

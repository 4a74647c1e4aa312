/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __CXLV_SANITIZE_H__
#define __CXLV_SANITIZE_H__

#include <linux/bits.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

/**
 * DOC: cxl_virt background commands, Sanitize and Secure Erase
 *
 * Included by cxlv_emu_internal.h only, like the poison list's header.
 * One background command at a time (CXL r3.0 8.2.8.4.7); its state is
 * part of &struct cxlv_mbox_state.
 */

/* CXL r3.0 8.2.9.8.5 opcodes: 6.1's cxlmem.h has neither. */
#define CXLV_MBOX_OP_SANITIZE		0x4400
#define CXLV_MBOX_OP_SECURE_ERASE	0x4401

/* CXL r3.0 8.2.8.4 mailbox register fields 6.1's cxl.h lacks */
#define CXLV_MBOX_CAP_BG_IRQ		BIT(6)		/* Capabilities */
#define CXLV_MBOX_CAP_IRQ_MSGNUM	GENMASK(10, 7)
#define CXLV_MBOX_CTRL_BG_IRQ		BIT(2)		/* Control */
#define CXLV_MBOX_STATUS_BG		BIT_ULL(0)	/* Status */
#define CXLV_MBOX_BG_OPCODE		GENMASK_ULL(15, 0) /* 8.2.8.4.7 */
#define CXLV_MBOX_BG_PCT		GENMASK_ULL(22, 16)
#define CXLV_MBOX_BG_RC			GENMASK_ULL(47, 32)

/* The MSI message number of background command completion: the only one. */
#define CXLV_MBOX_BG_MSGNUM		0

struct cxlv_emu_config;
struct cxlv_mbox_cmd;
struct cxlv_mbox_state;

/**
 * struct cxlv_bg - the device's one background command
 * @lock: orders the end of a command against the Mailbox Status write of
 *	a command answered meanwhile (any context)
 * @work: runs the command
 * @cfg: the device, for the worker
 * @state: the device's mailbox state, for the worker
 * @opcode: the command running or last run
 * @background: the host sees @opcode as a background command (Sanitize);
 *	else it was answered at once (Secure Erase) and only zeroes on
 * @running: an erase holds the device
 * @stopping: the emulator is stopping: no completion interrupt
 */
struct cxlv_bg {
	raw_spinlock_t lock;
	struct work_struct work;
	const struct cxlv_emu_config *cfg;
	struct cxlv_mbox_state *state;
	u16 opcode;
	bool background;
	bool running;
	bool stopping;
};

void cxlv_bg_start(struct cxlv_bg *bg, const struct cxlv_emu_config *cfg,
		   struct cxlv_mbox_state *state);
void cxlv_bg_stop(struct cxlv_bg *bg);
u16 cxlv_bg_refuse(struct cxlv_bg *bg, u16 opcode, bool background);
void cxlv_bg_write_status(struct cxlv_bg *bg, void __iomem *mbox, u16 rc);

int cxlv_media_zero(const struct cxlv_emu_config *cfg, struct cxlv_bg *bg);

u16 cxlv_sanitize(const struct cxlv_emu_config *cfg,
		  struct cxlv_mbox_cmd *cmd);
u16 cxlv_secure_erase(const struct cxlv_emu_config *cfg,
		      struct cxlv_mbox_cmd *cmd);

#endif /* __CXLV_SANITIZE_H__ */

// SPDX-License-Identifier: GPL-2.0-only
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitfield.h>
#include <linux/device.h>
#include <linux/io.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include "cxlmem.h"
#include "cxlv_compat.h"
#include "cxlv_emu_internal.h"

/**
 * DOC: cxl_virt Sanitize and Secure Erase
 *
 * Background commands (CXL r3.0 8.2.8.4): the Mailbox Capabilities
 * register offers the Background Command Complete Interrupt on MSI message
 * CXLV_MBOX_BG_MSGNUM; a command that goes to the background answers
 * Background Command Started, sets the Background Operation bit of the
 * Mailbox Status register and reports its opcode, percentage complete and
 * final return code in the Background Command Status register (8.2.8.4.7).
 * One runs at a time: another background command gets Busy.
 *
 * Sanitize (8.2.9.8.5.1) is the one background command. A worker zeroes
 * every byte of the endpoint's capacity in SZ_2M pieces (in an interleave
 * set only this endpoint's granules), rescheduling between them and
 * updating the percentage, then the label storage area, then empties the
 * poison list; 100% is written only at the end, since cxl_pci takes it as
 * the completion. While it runs, only commands that read the device's
 * identity and health answer; the others get Media Disabled and change
 * nothing. At the end, the completion interrupt is raised through
 * &cxlv_emu_ops.mbox_irq if the host's driver has it enabled in the
 * Mailbox Control register; else the host polls. (6.12's and 7.3's
 * cxl_pci enable it at probe but clear the bit with every later doorbell
 * write, so on those kernels they poll.)
 *
 * Secure Erase (8.2.9.8.5.2) erases the same but cannot go to the
 * background: 6.12's and 7.3's cxl_mem_sanitize() send it with no
 * background polling (poll_count 0), and cxl_pci gives up on a doorbell
 * after 2 s, while a TCG guest takes 4 to 9 s a GiB. So it is answered at
 * once, as a device that changes its media encryption key does, and the
 * same worker zeroes on, the device refusing as during Sanitize (and
 * refusing decoder commits, so no region maps old data) until it ends.
 * Neither is stopped halfway: cxlv_bg_stop() waits for the erase.
 *
 * The kernel itself refuses both while the memdev has a committed decoder
 * (a region), and 6.1's has neither path.
 */

/* Zeroed between two reschedules and progress updates. */
#define CXLV_ERASE_CHUNK	SZ_2M

/* Mailbox Status, its Background Operation bit set while one runs. */
void cxlv_bg_write_status(struct cxlv_bg *bg, void __iomem *mbox, u16 rc)
{
	unsigned long flags;
	u64 status = FIELD_PREP(CXLDEV_MBOX_STATUS_RET_CODE_MASK, rc);

	raw_spin_lock_irqsave(&bg->lock, flags);
	if (bg->running && bg->background)
		status |= CXLV_MBOX_STATUS_BG;
	writeq(status, mbox + CXLDEV_MBOX_STATUS_OFFSET);
	raw_spin_unlock_irqrestore(&bg->lock, flags);
}

/* CXL r3.0 8.2.8.4.7 Background Command Status */
static void cxlv_bg_report(const struct cxlv_emu_config *cfg, u16 opcode,
			   unsigned int pct, u16 rc)
{
	writeq(FIELD_PREP(CXLV_MBOX_BG_OPCODE, opcode) |
	       FIELD_PREP(CXLV_MBOX_BG_PCT, pct) |
	       FIELD_PREP(CXLV_MBOX_BG_RC, rc),
	       cxlv_regs_mbox(cfg) + CXLDEV_MBOX_BG_CMD_STATUS_OFFSET);
}

/*
 * Commands that leave media, labels and logs alone: what a host may ask
 * while Sanitize runs (6.12's cxl_pci itself sends only Get Health Info).
 */
static bool cxlv_bg_allowed(u16 opcode)
{
	switch (opcode) {
	case CXL_MBOX_OP_IDENTIFY:
	case CXL_MBOX_OP_GET_HEALTH_INFO:
	case CXL_MBOX_OP_GET_SUPPORTED_LOGS:
	case CXL_MBOX_OP_GET_LOG:
	case CXL_MBOX_OP_GET_TIMESTAMP:
		return true;
	default:
		return false;
	}
}

/**
 * cxlv_bg_refuse() - what a command gets while a background command runs
 * @bg: the device's background command
 * @opcode: the command
 * @background: it would run in the background itself
 *
 * Return: 0 if it may run, else Busy or Media Disabled.
 */
u16 cxlv_bg_refuse(struct cxlv_bg *bg, u16 opcode, bool background)
{
	if (!READ_ONCE(bg->running))
		return CXL_MBOX_CMD_RC_SUCCESS;
	if (background)
		return CXL_MBOX_CMD_RC_BUSY;
	if (cxlv_bg_allowed(opcode))
		return CXL_MBOX_CMD_RC_SUCCESS;
	return CXL_MBOX_CMD_RC_MEDIADISABLED;
}

/* Zeroes this endpoint's granules in @len bytes of the window at @off. */
static void cxlv_zero_piece(const struct cxlv_emu_config *cfg, u8 *piece,
			    u64 off, size_t len)
{
	u64 g = cfg->granularity, at;

	if (cfg->ways == 1) {
		memset(piece, 0, len);
		return;
	}
	for (at = 0; at < len; at += g)
		if (div_u64(off + at, g) % cfg->ways == cfg->pos)
			memset(piece + at, 0, g);
}

/**
 * cxlv_media_zero() - zero every byte of the device's memory
 * @cfg: the device
 * @bg: the background command to report progress in, or NULL
 *
 * For every command that erases user data (Sanitize, Secure Erase,
 * Passphrase Secure Erase); labels and poison list are the caller's.
 * Process context: it sleeps between pieces. In an interleave set only
 * this endpoint's granules of the window.
 *
 * Return: 0, or -ENOMEM if a piece could not be mapped.
 */
int cxlv_media_zero(const struct cxlv_emu_config *cfg, struct cxlv_bg *bg)
{
	u64 window = cfg->capacity * cfg->ways, off;
	ktime_t start = ktime_get();

	static_assert(IS_ALIGNED(CXLV_ERASE_CHUNK, SZ_16K * 8));
	for (off = 0; off < window; off += CXLV_ERASE_CHUNK) {
		phys_addr_t hpa = cfg->hpa_base + off;
		void *piece;

		piece = memremap(hpa, CXLV_ERASE_CHUNK, MEMREMAP_WB);
		if (!piece) {
			dev_err(cfg->dev, "endpoint %u: cannot map %pa to erase it\n",
				cfg->pos, &hpa);
			return -ENOMEM;
		}
		cxlv_zero_piece(cfg, piece, off, CXLV_ERASE_CHUNK);
		memunmap(piece);
		/* 100% only at the end: cxl_pci takes it as the completion */
		if (bg && bg->background)
			cxlv_bg_report(cfg, bg->opcode,
				       div64_u64(off * 100, window), 0);
		cond_resched();
	}
	dev_info(cfg->dev, "endpoint %u: %llu MiB of media zeroed in %lld ms\n",
		 cfg->pos, cfg->capacity >> 20,
		 ktime_ms_delta(ktime_get(), start));
	return 0;
}

/*
 * Runs the erase that Sanitize or Secure Erase started: media, then the
 * labels and the poison list, then the completion.
 */
static void cxlv_bg_work(struct work_struct *work)
{
	struct cxlv_bg *bg = container_of(work, struct cxlv_bg, work);
	const struct cxlv_emu_config *cfg = bg->cfg;
	void __iomem *mbox = cxlv_regs_mbox(cfg);
	unsigned long flags;
	bool irq;
	u16 rc = CXL_MBOX_CMD_RC_SUCCESS;

	if (cxlv_media_zero(cfg, bg)) {
		rc = CXL_MBOX_CMD_RC_INTERNAL;
	} else {
		memset_io(cfg->lsa, 0, CXLV_LSA_SIZE);
		cxlv_poison_clear_all(cfg, &bg->state->poison);
	}
	raw_spin_lock_irqsave(&bg->lock, flags);
	if (bg->background) {
		cxlv_bg_report(cfg, bg->opcode, 100, rc);
		writeq(readq(mbox + CXLDEV_MBOX_STATUS_OFFSET) &
		       ~CXLV_MBOX_STATUS_BG, mbox + CXLDEV_MBOX_STATUS_OFFSET);
	}
	WRITE_ONCE(bg->running, false);
	raw_spin_unlock_irqrestore(&bg->lock, flags);
	if (!bg->background)
		return;

	irq = readl(mbox + CXLDEV_MBOX_CTRL_OFFSET) & CXLV_MBOX_CTRL_BG_IRQ;
	dev_dbg(cfg->dev, "endpoint %u: background command %#06x done: %u%s\n",
		cfg->pos, bg->opcode, rc, irq ? ", interrupt" : "");
	if (irq && !READ_ONCE(bg->stopping))
		cfg->ops->mbox_irq(cfg->dev, cfg->pos, CXLV_MBOX_BG_MSGNUM);
}

/**
 * cxlv_bg_start() - no background command yet
 * @bg: the device's
 * @cfg: the device, as the emulator keeps it
 * @state: its mailbox state
 */
void cxlv_bg_start(struct cxlv_bg *bg, const struct cxlv_emu_config *cfg,
		   struct cxlv_mbox_state *state)
{
	raw_spin_lock_init(&bg->lock);
	INIT_WORK(&bg->work, cxlv_bg_work);
	bg->cfg = cfg;
	bg->state = state;
	bg->running = false;
	bg->stopping = false;
}

/*
 * After the last command: an erase that began ends first, as on a device
 * whose power stays on, so that the same range made again holds none of
 * the old data; it raises no interrupt any more.
 */
void cxlv_bg_stop(struct cxlv_bg *bg)
{
	WRITE_ONCE(bg->stopping, true);
	flush_work(&bg->work);
}

/*
 * Hands the erase to the worker. @background: the host sees it as a
 * background command (Sanitize), else as done (Secure Erase).
 */
static void cxlv_bg_begin(const struct cxlv_emu_config *cfg,
			  struct cxlv_bg *bg, u16 opcode, bool background)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&bg->lock, flags);
	bg->opcode = opcode;
	bg->background = background;
	WRITE_ONCE(bg->running, true);
	if (background)
		cxlv_bg_report(cfg, opcode, 0, 0);
	raw_spin_unlock_irqrestore(&bg->lock, flags);
	queue_work(cxlv_unbound_wq, &bg->work);
}

/* CXL r3.0 8.2.9.8.5.1 Sanitize: no input, goes to the background */
u16 cxlv_sanitize(const struct cxlv_emu_config *cfg, struct cxlv_mbox_cmd *cmd)
{
	cxlv_bg_begin(cfg, &cmd->state->bg, cmd->opcode, true);
	return CXL_MBOX_CMD_RC_BACKGROUND;
}

/*
 * CXL r3.0 8.2.9.8.5.2 Secure Erase: no input. Answered at once, as a
 * device that changes its media encryption key does; the zeroing goes on
 * in the worker, the device refusing as during Sanitize until it ends.
 */
u16 cxlv_secure_erase(const struct cxlv_emu_config *cfg,
		      struct cxlv_mbox_cmd *cmd)
{
	cxlv_bg_begin(cfg, &cmd->state->bg, cmd->opcode, false);
	return CXL_MBOX_CMD_RC_SUCCESS;
}

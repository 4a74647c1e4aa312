// SPDX-License-Identifier: GPL-2.0-only
#include <linux/bitfield.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/io.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include "cxlmem.h"
#include "cxlv_compat.h"
#include "cxlv_emu_internal.h"

/**
 * DOC: cxl_virt device emulator
 *
 * The registers of an emulated endpoint are plain reserved RAM, so nothing
 * traps the host's accesses: a poller watches them and acts the way the
 * device would. It is an hrtimer firing in hard interrupt context, because
 * 6.1's cxl_pci spins with cpu_relax() for up to two seconds waiting for the
 * mailbox doorbell to clear, which would starve a kthread on a busy or
 * single CPU. Per tick it
 *
 * - answers a rung mailbox doorbell: the command's input payload is copied
 *   out, cxlv_mbox.c answers it, the output payload and its length go to the
 *   payload and Command registers, the return code to the Mailbox Status
 *   register, and then the doorbell is cleared (CXL 3.0 8.2.8.4);
 * - runs each HDM decoder's commit state machine (the Commit, Committed and
 *   Error Not Committed bits of CXL 3.0 8.2.4.19.7): a set COMMIT is checked
 *   against the identity mapping the data relies on (HPA = hpa_base + DPA,
 *   one way, 256 MiB aligned, inside the capacity) and answered with
 *   COMMITTED or COMMIT_ERROR; a cleared COMMIT clears both.
 *
 * The period is poll_busy_us while the device was used in the last
 * CXLV_POLL_BUSY_WINDOW, then doubles per tick up to poll_idle_us, so an idle
 * device costs a few hundred timer ticks a second. The idle period, at most
 * 8 ms plus half of that as timer slack, stays under the 20 ms in which 6.1
 * expects a commit to be acknowledged.
 * Nothing in the timer path maps, sleeps or allocates.
 *
 * A tick can come late: under full emulation (QEMU TCG) timer interrupts go
 * through the emulator's main loop and take milliseconds on a loaded host.
 * So when the running kernel's cxl_pci has the function it calls right after
 * ringing the doorbell (CXLV_DOORBELL_HINT), a kprobe on it answers rung
 * doorbells at once, on the CPU about to spin. The pollers stay the
 * mechanism; the probe only saves the wait, and without it (another kernel,
 * cxl_pci not loaded yet) nothing but speed changes.
 */

static unsigned int poll_busy_us = 20;
module_param(poll_busy_us, uint, 0644);
MODULE_PARM_DESC(poll_busy_us, "emulator poll period in us while busy");

static unsigned int poll_idle_us = 4000;
module_param(poll_idle_us, uint, 0644);
MODULE_PARM_DESC(poll_idle_us, "emulator poll period in us when idle (max 8000)");

#define CXLV_POLL_IDLE_MAX_NS	(8 * NSEC_PER_MSEC)
#define CXLV_POLL_BUSY_WINDOW	ms_to_ktime(20)
#define CXLV_DOORBELL_HINT	"cxl_pci_mbox_wait_for_doorbell"

/* Running emulators, for the doorbell hint; RCU list, mutex for writers. */
static LIST_HEAD(cxlv_emus);
static DEFINE_MUTEX(cxlv_emus_lock);
static struct kprobe cxlv_doorbell_probe;
static bool cxlv_doorbell_probed;

/* The next poll period: short while busy, backing off once idle. */
static u64 cxlv_emu_next_period(struct cxlv_emu *emu, ktime_t now)
{
	u64 busy_ns = max(1U, READ_ONCE(poll_busy_us)) * NSEC_PER_USEC;
	u64 idle_ns = (u64)READ_ONCE(poll_idle_us) * NSEC_PER_USEC;

	idle_ns = clamp(idle_ns, busy_ns, CXLV_POLL_IDLE_MAX_NS);
	if (ktime_before(now, ktime_add(emu->last_busy, CXLV_POLL_BUSY_WINDOW)))
		return busy_ns;
	return min(emu->period_ns * 2, idle_ns);
}

/* Answers a rung doorbell; returns true if there was one. */
static bool cxlv_emu_mbox_poll(struct cxlv_emu *emu)
{
	void __iomem *payload = emu->mbox + CXLDEV_MBOX_PAYLOAD_OFFSET;
	struct cxlv_mbox_cmd cmd = {
		.in = emu->payload_in,
		.out = emu->payload_out,
		.state = &emu->mbox_state,
	};
	u32 ctrl = readl(emu->mbox + CXLDEV_MBOX_CTRL_OFFSET);
	u64 cmd_reg;
	u16 rc;

	if (!(ctrl & CXLDEV_MBOX_CTRL_DOORBELL))
		return false;

	cmd_reg = readq(emu->mbox + CXLDEV_MBOX_CMD_OFFSET);
	cmd.opcode = FIELD_GET(CXLDEV_MBOX_CMD_COMMAND_OPCODE_MASK, cmd_reg);
	cmd.in_len = FIELD_GET(CXLDEV_MBOX_CMD_PAYLOAD_LENGTH_MASK, cmd_reg);
	if (cmd.in_len > CXLV_MBOX_PAYLOAD_SIZE) {
		rc = CXL_MBOX_CMD_RC_PAYLOADLEN;
	} else {
		memcpy_fromio(emu->payload_in, payload, cmd.in_len);
		rc = cxlv_mbox_handle(&emu->cfg, &cmd);
	}
	if (rc != CXL_MBOX_CMD_RC_SUCCESS)
		cmd.out_len = 0;

	memcpy_toio(payload, emu->payload_out, cmd.out_len);
	cmd_reg &= ~CXLDEV_MBOX_CMD_PAYLOAD_LENGTH_MASK;
	cmd_reg |= FIELD_PREP(CXLDEV_MBOX_CMD_PAYLOAD_LENGTH_MASK, cmd.out_len);
	writeq(cmd_reg, emu->mbox + CXLDEV_MBOX_CMD_OFFSET);
	writeq(FIELD_PREP(CXLDEV_MBOX_STATUS_RET_CODE_MASK, rc),
	       emu->mbox + CXLDEV_MBOX_STATUS_OFFSET);
	/* Last: the host reads the results as soon as the doorbell clears. */
	writel(ctrl & ~CXLDEV_MBOX_CTRL_DOORBELL,
	       emu->mbox + CXLDEV_MBOX_CTRL_OFFSET);
	WRITE_ONCE(emu->mbox_cmds, emu->mbox_cmds + 1);
	return true;
}

static u64 cxlv_emu_hdm_read64(struct cxlv_emu *emu, unsigned int low)
{
	return readl(emu->hdm + low) | (u64)readl(emu->hdm + low + 4) << 32;
}

static void cxlv_emu_hdm_read(struct cxlv_emu *emu, int id,
			      struct cxlv_hdm_decoder *d)
{
	d->ctrl = readl(emu->hdm + CXL_HDM_DECODER0_CTRL_OFFSET(id));
	d->base = cxlv_emu_hdm_read64(emu, CXL_HDM_DECODER0_BASE_LOW_OFFSET(id));
	d->size = cxlv_emu_hdm_read64(emu, CXL_HDM_DECODER0_SIZE_LOW_OFFSET(id));
	d->skip = cxlv_emu_hdm_read64(emu, CXL_HDM_DECODER0_SKIP_LOW(id));
}

/*
 * Checks a decoder the host asked to commit, whose DPA range starts at
 * @dpa_base + skip. Returns NULL, or why the commit must fail.
 */
static const char *cxlv_emu_hdm_check(struct cxlv_emu *emu,
				      const struct cxlv_hdm_decoder *d,
				      u64 dpa_base)
{
	u64 dpa = dpa_base + d->skip;

	if (FIELD_GET(CXL_HDM_DECODER0_CTRL_IW_MASK, d->ctrl))
		return "interleave ways other than 1";
	if (!d->size)
		return "zero size";
	if (!IS_ALIGNED(d->base | d->size | d->skip, SZ_256M))
		return "base, size or skip not 256 MiB aligned";
	if (dpa > emu->cfg.capacity || d->size > emu->cfg.capacity - dpa)
		return "DPA range beyond the device capacity";
	if (d->base != emu->cfg.hpa_base + dpa)
		return "HPA is not hpa_base + DPA";
	return NULL;
}

/*
 * A reset and a re-commit that both land between two polls leave COMMITTED
 * set over new programming: compare with what was last accepted.
 */
static bool cxlv_emu_hdm_reprogrammed(struct cxlv_emu *emu, int id,
				      const struct cxlv_hdm_decoder *d)
{
	const struct cxlv_hdm_decoder *ok = &emu->hdm_accepted[id];

	return d->base != ok->base || d->size != ok->size ||
	       d->skip != ok->skip ||
	       FIELD_GET(CXL_HDM_DECODER0_CTRL_IW_MASK, d->ctrl ^ ok->ctrl);
}

/* Answers a decoder whose COMMIT is set: COMMITTED or COMMIT_ERROR. */
static void cxlv_emu_hdm_commit(struct cxlv_emu *emu, int id,
				struct cxlv_hdm_decoder *d, u64 dpa_base)
{
	const char *why = cxlv_emu_hdm_check(emu, d, dpa_base);

	d->ctrl &= ~(CXL_HDM_DECODER0_CTRL_COMMITTED |
		     CXL_HDM_DECODER0_CTRL_COMMIT_ERROR);
	if (why) {
		dev_err_ratelimited(emu->cfg.dev,
				    "decoder %d: commit refused: %s\n", id, why);
		d->ctrl |= CXL_HDM_DECODER0_CTRL_COMMIT_ERROR;
	} else {
		d->ctrl |= CXL_HDM_DECODER0_CTRL_COMMITTED;
		emu->hdm_accepted[id] = *d;
		WRITE_ONCE(emu->commits, emu->commits + 1);
	}
	writel(d->ctrl, emu->hdm + CXL_HDM_DECODER0_CTRL_OFFSET(id));
}

/* Runs the commit state machine of every decoder; true if one moved. */
static bool cxlv_emu_hdm_poll(struct cxlv_emu *emu)
{
	const u32 answered = CXL_HDM_DECODER0_CTRL_COMMITTED |
			     CXL_HDM_DECODER0_CTRL_COMMIT_ERROR;
	struct cxlv_hdm_decoder d;
	bool moved = false;
	u64 dpa_base = 0;
	int id;

	for (id = 0; id < CXLV_HDM_DECODERS; id++) {
		cxlv_emu_hdm_read(emu, id, &d);

		if (!(d.ctrl & CXL_HDM_DECODER0_CTRL_COMMIT)) {
			/* Software reset the decoder: it stops decoding. */
			if (d.ctrl & answered) {
				writel(d.ctrl & ~answered, emu->hdm +
				       CXL_HDM_DECODER0_CTRL_OFFSET(id));
				moved = true;
			}
			continue;
		}
		if (!(d.ctrl & answered) ||
		    ((d.ctrl & CXL_HDM_DECODER0_CTRL_COMMITTED) &&
		     cxlv_emu_hdm_reprogrammed(emu, id, &d))) {
			cxlv_emu_hdm_commit(emu, id, &d, dpa_base);
			moved = true;
		}
		/* Decoders take consecutive DPA ranges, in decoder order. */
		if (d.ctrl & CXL_HDM_DECODER0_CTRL_COMMITTED)
			dpa_base += d.skip + d.size;
	}
	return moved;
}

static enum hrtimer_restart cxlv_emu_poll(struct hrtimer *timer)
{
	struct cxlv_emu *emu = container_of(timer, struct cxlv_emu, timer);
	ktime_t now;
	u64 slack;
	bool busy;

	raw_spin_lock(&emu->lock);
	busy = cxlv_emu_mbox_poll(emu);
	busy |= cxlv_emu_hdm_poll(emu);
	/* Count the period from now, so a slow tick never runs back to back. */
	now = ktime_get();
	if (busy)
		emu->last_busy = now;
	emu->period_ns = cxlv_emu_next_period(emu, now);
	/* Idle ticks may coalesce with other timers; busy ones may not. */
	slack = busy ? 0 : emu->period_ns / 2;
	hrtimer_set_expires_range_ns(timer, ktime_add_ns(now, emu->period_ns),
				     slack);
	raw_spin_unlock(&emu->lock);

	return HRTIMER_RESTART;
}

/* The doorbell hint: some device's doorbell was just rung. */
static int cxlv_emu_doorbell_rung(struct kprobe *probe, struct pt_regs *regs)
{
	struct cxlv_emu *emu;
	unsigned long flags;

	rcu_read_lock();
	list_for_each_entry_rcu(emu, &cxlv_emus, node) {
		raw_spin_lock_irqsave(&emu->lock, flags);
		if (cxlv_emu_mbox_poll(emu))
			emu->last_busy = ktime_get();
		raw_spin_unlock_irqrestore(&emu->lock, flags);
	}
	rcu_read_unlock();
	return 0;
}

static void cxlv_emu_list_add(struct cxlv_emu *emu)
{
	int rc;

	mutex_lock(&cxlv_emus_lock);
	if (!cxlv_doorbell_probed) {
		cxlv_doorbell_probe = (struct kprobe) {
			.symbol_name = CXLV_DOORBELL_HINT,
			.pre_handler = cxlv_emu_doorbell_rung,
		};
		rc = register_kprobe(&cxlv_doorbell_probe);
		cxlv_doorbell_probed = !rc;
		if (rc)
			dev_info(emu->cfg.dev,
				 "no kprobe on %s (%d): mailbox answered by polling only\n",
				 CXLV_DOORBELL_HINT, rc);
	}
	list_add_tail_rcu(&emu->node, &cxlv_emus);
	mutex_unlock(&cxlv_emus_lock);
}

static void cxlv_emu_list_del(struct cxlv_emu *emu)
{
	mutex_lock(&cxlv_emus_lock);
	list_del_rcu(&emu->node);
	if (list_empty(&cxlv_emus) && cxlv_doorbell_probed) {
		unregister_kprobe(&cxlv_doorbell_probe);
		cxlv_doorbell_probed = false;
	}
	mutex_unlock(&cxlv_emus_lock);
	synchronize_rcu();
}

/**
 * cxlv_emu_start() - lay out the registers and start answering them
 * @cfg: the device; copied, the mappings must outlive cxlv_emu_stop()
 *
 * Return: the emulator, or an ERR_PTR.
 */
struct cxlv_emu *cxlv_emu_start(const struct cxlv_emu_config *cfg)
{
	struct cxlv_emu *emu;

	if (!cfg->capacity || !IS_ALIGNED(cfg->capacity | cfg->hpa_base,
					  SZ_256M)) {
		dev_err(cfg->dev,
			"capacity %#llx at HPA %#llx: both must be non-zero multiples of 256 MiB\n",
			cfg->capacity, cfg->hpa_base);
		return ERR_PTR(-EINVAL);
	}

	emu = kzalloc(sizeof(*emu), GFP_KERNEL);
	if (!emu)
		return ERR_PTR(-ENOMEM);

	emu->cfg = *cfg;
	emu->mbox = cxlv_regs_mbox(cfg);
	emu->hdm = cxlv_regs_hdm(cfg);
	raw_spin_lock_init(&emu->lock);
	cxlv_regs_init(cfg);

	/* Start busy: cxl_pci's probe follows right away. */
	emu->last_busy = ktime_get();
	emu->period_ns = (u64)poll_busy_us * NSEC_PER_USEC;
	cxlv_hrtimer_setup(&emu->timer, cxlv_emu_poll, CLOCK_MONOTONIC,
			   HRTIMER_MODE_REL_HARD);
	hrtimer_start(&emu->timer, 0, HRTIMER_MODE_REL_HARD);
	cxlv_emu_list_add(emu);

	return emu;
}

/**
 * cxlv_emu_stop() - stop answering and free the emulator
 * @emu: from cxlv_emu_start()
 */
void cxlv_emu_stop(struct cxlv_emu *emu)
{
	cxlv_emu_list_del(emu);
	hrtimer_cancel(&emu->timer);
	kfree(emu);
}

u64 cxlv_emu_mbox_cmds(const struct cxlv_emu *emu)
{
	return READ_ONCE(emu->mbox_cmds);
}

u64 cxlv_emu_commits(const struct cxlv_emu *emu)
{
	return READ_ONCE(emu->commits);
}

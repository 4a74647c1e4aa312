// SPDX-License-Identifier: GPL-2.0-only
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitfield.h>
#include <linux/bitops.h>
#include <linux/cpumask.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/io.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/preempt.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
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
 * single CPU. Each tick does a few register accesses only:
 *
 * - a rung mailbox doorbell is handed to an unbound worker, which copies
 *   the input payload out, has cxlv_mbox.c answer it, writes the output
 *   payload, its length, the return code (CXL r3.0 8.2.8.4) and clears the
 *   doorbell last; an erase (Sanitize, Secure Erase) runs on in its own
 *   worker (cxlv_sanitize.c). The doorbell hint queues that worker at once
 *   on another CPU than the one the ringing task spins on
 *   (cxlv_emu_mbox_hint()).
 *   Commands run in process context wherever a worker can run while the
 *   host spins: with another CPU online, or on a kernel that preempts the
 *   spinning task. Only with one CPU online on a kernel that does not
 *   (preempt=none or voluntary) does the hint, or without it the tick,
 *   answer the command itself, with preemption off: no worker could run
 *   before cxl_pci gives up. The handlers are told which (may_sleep);
 * - on idle ticks the read-only capability layout is compared with what
 *   cxlv_regs.c laid out, and rewritten if software stored into it;
 * - each HDM decoder's commit state machine runs (the Commit, Committed and
 *   Error Not Committed bits of CXL r3.0 8.2.4.19.7). The emulator keeps the
 *   answer itself and rewrites the two read-only bits from it on every
 *   tick, so whatever software leaves in them is never the answer: a set
 *   COMMIT is checked against the ordering rules of CXL r3.0 8.2.4.19
 *   (Committing Decoder Programming: decoder n commits only while n - 1 is
 *   committed, its HPA range at or above n - 1's; an endpoint's DPA range
 *   starts after n - 1's, plus its DPA skip, so DPA ranges never overlap
 *   and increase with n) and against the identity mapping the data relies
 *   on, for each decoder (HPA = hpa_base + DPA, one way, 256 MiB aligned,
 *   inside the capacity; for an endpoint of an interleave set, the set's
 *   ways and granularity over whole ways x 256 MiB blocks of its window at
 *   HPA = hpa_base + ways x DPA, which the set's contiguous RAM serves as
 *   is, each endpoint's DPA in its stripes: so a region over the
 *   persistent partition sits after the volatile partition's HPA, as the
 *   device's two root windows place it, cxlv_window.c), and only then
 *   shows COMMITTED or COMMIT_ERROR; a cleared
 *   COMMIT clears both, resets being taken top decoder first. A reset of a
 *   committed decoder while the one above it is committed is refused: the
 *   decoder keeps decoding, Committed set, until the one above is reset
 *   (the kernel resets in reverse order, as the spec expects). The
 *   emulator of a host bridge's first endpoint runs the same state machine
 *   for that bridge's decoders when it has some (cxlv_emu_hdm_check_bridge()
 *   says what it accepts: with one root port, any part of the window). A
 *   commit whose programming differs from what was last checked is checked
 *   again. cxlv_hint.c runs the state machine just before the kernel
 *   reads the Control register to commit, so a reset the poller has not seen
 *   leaves no stale COMMITTED for the commit to take as its answer.
 * - a committed decoder with Lock On Commit set keeps the programming it
 *   committed with: CXL r3.0 8.2.4.19.7 makes all its RW bits read-only,
 *   COMMIT too, so a write to it is undone on the next tick (and said
 *   once) and a cleared COMMIT resets nothing.
 *
 * A device born with auto_commit is what platform firmware leaves before
 * the OS looks (cxlv_emu_hdm_firmware()): its decoders are programmed
 * through the same registers and validated by the same state machine
 * before the emulator returns, so the kernel finds them committed.
 *
 * The period is poll_busy_us while the device was used in the last
 * CXLV_POLL_BUSY_WINDOW, then doubles per tick up to poll_idle_us, so an idle
 * device costs a few hundred timer ticks a second. The idle period, at most
 * 8 ms plus half of that as timer slack, stays under the 20 ms in which the
 * kernel expects a commit to be acknowledged. Nothing in the timer path
 * maps, sleeps, allocates or copies a payload.
 */

/* Bounds of the poll periods: no timer storm, busy never above idle. */
#define CXLV_POLL_BUSY_MIN_US	10
#define CXLV_POLL_BUSY_MAX_US	1000
#define CXLV_POLL_IDLE_MIN_US	CXLV_POLL_BUSY_MAX_US
#define CXLV_POLL_IDLE_MAX_US	8000
#define CXLV_POLL_BUSY_WINDOW	ms_to_ktime(20)

static unsigned int poll_busy_us = 20;
static unsigned int poll_idle_us = 4000;

/* Stores a period in [@min, @max] us, or refuses it naming the bounds. */
static int cxlv_emu_set_period(const char *val, const struct kernel_param *kp,
			       unsigned int min, unsigned int max)
{
	unsigned int us;

	if (kstrtouint(val, 0, &us) || us < min || us > max) {
		pr_err_ratelimited("%s: want whole microseconds from %u to %u\n",
				   kp->name, min, max);
		return -EINVAL;
	}
	WRITE_ONCE(*(unsigned int *)kp->arg, us);
	return 0;
}

static int cxlv_emu_set_busy(const char *val, const struct kernel_param *kp)
{
	return cxlv_emu_set_period(val, kp, CXLV_POLL_BUSY_MIN_US,
				   CXLV_POLL_BUSY_MAX_US);
}

static int cxlv_emu_set_idle(const char *val, const struct kernel_param *kp)
{
	return cxlv_emu_set_period(val, kp, CXLV_POLL_IDLE_MIN_US,
				   CXLV_POLL_IDLE_MAX_US);
}

static const struct kernel_param_ops cxlv_emu_busy_ops = {
	.set = cxlv_emu_set_busy,
	.get = param_get_uint,
};

static const struct kernel_param_ops cxlv_emu_idle_ops = {
	.set = cxlv_emu_set_idle,
	.get = param_get_uint,
};

module_param_cb(poll_busy_us, &cxlv_emu_busy_ops, &poll_busy_us, 0644);
__MODULE_PARM_TYPE(poll_busy_us, "uint");
MODULE_PARM_DESC(poll_busy_us,
		 "emulator poll period in us while busy (10 to 1000)");
module_param_cb(poll_idle_us, &cxlv_emu_idle_ops, &poll_idle_us, 0644);
__MODULE_PARM_TYPE(poll_idle_us, "uint");
MODULE_PARM_DESC(poll_idle_us,
		 "emulator poll period in us when idle (1000 to 8000)");

/* Running emulators, for the hints; RCU list, mutex for writers. */
static LIST_HEAD(cxlv_emus);
static DEFINE_MUTEX(cxlv_emus_lock);

/* The next poll period: short while busy, backing off once idle. */
static u64 cxlv_emu_next_period(struct cxlv_emu *emu, ktime_t now)
{
	u64 busy_ns = (u64)READ_ONCE(poll_busy_us) * NSEC_PER_USEC;
	u64 idle_ns = (u64)READ_ONCE(poll_idle_us) * NSEC_PER_USEC;

	if (ktime_before(now, ktime_add(READ_ONCE(emu->last_busy),
					CXLV_POLL_BUSY_WINDOW)))
		return busy_ns;
	return clamp(emu->period_ns * 2, busy_ns, idle_ns);
}

/*
 * Answers a rung doorbell; returns true if there was one. @may_sleep: in a
 * worker, not with preemption off.
 */
static bool cxlv_emu_mbox_poll(struct cxlv_emu *emu, bool may_sleep)
{
	void __iomem *payload = emu->mbox + CXLDEV_MBOX_PAYLOAD_OFFSET;
	struct cxlv_mbox_cmd cmd = {
		.in = emu->payload_in,
		.out = emu->payload_out,
		.state = &emu->mbox_state,
		.may_sleep = may_sleep,
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
	cxlv_bg_write_status(&emu->mbox_state.bg, emu->mbox, rc);
	/* Last: the host reads the results as soon as the doorbell clears. */
	writel(ctrl & ~CXLDEV_MBOX_CTRL_DOORBELL,
	       emu->mbox + CXLDEV_MBOX_CTRL_OFFSET);
	WRITE_ONCE(emu->mbox_cmds, emu->mbox_cmds + 1);
	return true;
}

/* Answers the mailbox unless someone else is answering it right now. */
static void cxlv_emu_mbox_answer(struct cxlv_emu *emu, bool may_sleep)
{
	if (test_and_set_bit_lock(0, &emu->mbox_owner))
		return;
	if (cxlv_emu_mbox_poll(emu, may_sleep))
		WRITE_ONCE(emu->last_busy, ktime_get());
	clear_bit_unlock(0, &emu->mbox_owner);
}

static void cxlv_emu_mbox_work(struct work_struct *work)
{
	cxlv_emu_mbox_answer(container_of(work, struct cxlv_emu, mbox_work),
			     true);
}

static void cxlv_emu_mbox_work_any(struct work_struct *work)
{
	cxlv_emu_mbox_answer(container_of(work, struct cxlv_emu,
					  mbox_work_any), true);
}

static bool cxlv_emu_doorbell_rung(struct cxlv_emu *emu)
{
	return readl(emu->mbox + CXLDEV_MBOX_CTRL_OFFSET) &
	       CXLDEV_MBOX_CTRL_DOORBELL;
}

/*
 * Can a worker run while the task that rang the doorbell spins on it?
 * cxl_pci busy-waits without yielding: on a second CPU, or where the
 * scheduler preempts the spinning task (preempt=full, lazy, PREEMPT_RT).
 */
static bool cxlv_emu_worker_can_run(void)
{
	return num_online_cpus() > 1 || preempt_model_preemptible();
}

/**
 * cxlv_emu_mbox_hint() - answer a doorbell the host just rang
 * @emu: the device
 *
 * Called by the doorbell hint, with preemption off, in the task that rang
 * it and will spin on it. The worker goes to another online CPU; with none,
 * to this one if the kernel will preempt the spinning task for it. Only
 * where neither can run it does the command run here (see the DOC block).
 */
void cxlv_emu_mbox_hint(struct cxlv_emu *emu)
{
	unsigned int cpu, self = smp_processor_id();

	if (!cxlv_emu_doorbell_rung(emu))
		return;
	cpu = cpumask_any_but(cpu_online_mask, self);
	if (cpu < nr_cpu_ids)
		queue_work_on(cpu, system_highpri_wq, &emu->mbox_work);
	else if (preempt_model_preemptible())
		queue_work_on(self, system_highpri_wq, &emu->mbox_work);
	else
		cxlv_emu_mbox_answer(emu, false);
}

/*
 * The poller does not know which CPU spins: an unbound worker, which the
 * scheduler places on a CPU that can run it. Where none can (see
 * cxlv_emu_worker_can_run()), the tick answers itself.
 */
static void cxlv_emu_mbox_kick(struct cxlv_emu *emu)
{
	if (cxlv_emu_worker_can_run())
		queue_work(cxlv_unbound_wq, &emu->mbox_work_any);
	else
		cxlv_emu_mbox_answer(emu, false);
}

static u64 cxlv_emu_hdm_read64(struct cxlv_hdm_block *blk, unsigned int low)
{
	return lo_hi_readq(blk->regs + low);
}

static void cxlv_emu_hdm_read(struct cxlv_hdm_block *blk, int id,
			      struct cxlv_hdm_decoder *d)
{
	d->ctrl = readl(blk->regs + CXL_HDM_DECODER0_CTRL_OFFSET(id));
	d->base = cxlv_emu_hdm_read64(blk, CXL_HDM_DECODER0_BASE_LOW_OFFSET(id));
	d->size = cxlv_emu_hdm_read64(blk, CXL_HDM_DECODER0_SIZE_LOW_OFFSET(id));
	/* the DPA skip of an endpoint, the target list of a host bridge */
	d->skip = cxlv_emu_hdm_read64(blk, CXL_HDM_DECODER0_SKIP_LOW(id));
}

/* Does @d interleave at ways @iw and granularity @ig? */
static const char *cxlv_emu_hdm_check_interleave(const struct cxlv_hdm_decoder *d,
						 unsigned int iw,
						 unsigned int ig)
{
	/* CXL r3.0 8.2.4.19.7: IW is log2(ways), IG log2(bytes / 256) */
	if (FIELD_GET(CXL_HDM_DECODER0_CTRL_IW_MASK, d->ctrl) != ilog2(iw))
		return "interleave ways other than the set's";
	if (FIELD_GET(CXL_HDM_DECODER0_CTRL_IG_MASK, d->ctrl) !=
	    ilog2(ig / SZ_256))
		return "interleave granularity other than the set's";
	return NULL;
}

/*
 * Does @d decode a part of the set's window that starts and ends on a
 * boundary of ways x 256 MiB, where every endpoint's share is whole
 * 256 MiB blocks?
 */
static const char *cxlv_emu_hdm_check_span(struct cxlv_emu *emu,
					   const struct cxlv_hdm_decoder *d)
{
	const struct cxlv_emu_config *cfg = &emu->cfg;
	u64 window = cfg->capacity * cfg->ways, off = d->base - cfg->hpa_base;
	u64 unit = (u64)SZ_256M * cfg->ways, off_rem, size_rem;

	if (!d->size || d->base < cfg->hpa_base || off > window ||
	    d->size > window - off)
		return "HPA range empty or outside the set's window";
	div64_u64_rem(off, unit, &off_rem);
	div64_u64_rem(d->size, unit, &size_rem);
	if (off_rem || size_rem)
		return "HPA range not in whole ways x 256 MiB blocks";
	return NULL;
}

/*
 * A set's endpoint decoder: the set's ways and granularity over a part of
 * its window, and the DPA where the identity puts that part (HPA = hpa_base
 * + ways x DPA: the set's contiguous RAM serves the window as it is, each
 * endpoint's DPA in its stripes). Returns NULL, or why it cannot commit.
 */
static const char *cxlv_emu_hdm_check_set(struct cxlv_emu *emu,
					  const struct cxlv_hdm_decoder *d,
					  u64 dpa)
{
	const struct cxlv_emu_config *cfg = &emu->cfg;
	const char *why = cxlv_emu_hdm_check_interleave(d, cfg->ways,
							 cfg->granularity);

	if (!why)
		why = cxlv_emu_hdm_check_span(emu, d);
	if (!why && d->base != cfg->hpa_base + dpa * cfg->ways)
		why = "HPA is not hpa_base + ways x DPA";
	if (!why && (dpa > cfg->capacity ||
		     div_u64(d->size, cfg->ways) > cfg->capacity - dpa))
		why = "DPA range beyond the device capacity";
	return why;
}

/*
 * The decoder of a host bridge with one root port routes one way, any
 * granularity, to root port 0: any range of the window, in whole 256 MiB
 * blocks (the endpoint's decoder holds the identity rule).
 */
static const char *cxlv_emu_hdm_check_one_port(struct cxlv_emu *emu,
					       const struct cxlv_hdm_decoder *d)
{
	const struct cxlv_emu_config *cfg = &emu->cfg;
	u64 window = cfg->capacity * cfg->ways;

	if (FIELD_GET(CXL_HDM_DECODER0_CTRL_IW_MASK, d->ctrl))
		return "interleave ways other than 1";
	if (d->targets & 0xff)
		return "target is not root port 0";
	if (!d->size || !IS_ALIGNED(d->base | d->size, SZ_256M))
		return "base or size zero or not 256 MiB aligned";
	if (d->base < cfg->hpa_base || d->base - cfg->hpa_base > window ||
	    d->size > window - (d->base - cfg->hpa_base))
		return "HPA range outside the window";
	return NULL;
}

/*
 * A host bridge's decoder, as cxl_port_setup_targets() programs it for a
 * region over the set (6.1: eig from the root's eig and eiw; 6.12 on:
 * ig = parent ig x parent iw): the region's part of the window, in whole
 * ways x 256 MiB blocks (the endpoints' decoders hold the identity rule),
 * one way per root port at
 * the set's granularity times its host bridges, target i the root port of
 * position h + i x host_bridges, which is root port i, port number i.
 */
static const char *cxlv_emu_hdm_check_bridge(struct cxlv_emu *emu,
					     const struct cxlv_hdm_decoder *d)
{
	const struct cxlv_emu_config *cfg = &emu->cfg;
	unsigned int i, host_bridges = cfg->ways / cfg->bridge_ways;
	const char *why;

	if (cfg->bridge_ways == 1)
		return cxlv_emu_hdm_check_one_port(emu, d);
	why = cxlv_emu_hdm_check_interleave(d, cfg->bridge_ways,
					    cfg->granularity * host_bridges);
	if (!why)
		why = cxlv_emu_hdm_check_span(emu, d);
	if (why)
		return why;
	for (i = 0; i < cfg->bridge_ways; i++)
		if (((d->targets >> (8 * i)) & 0xff) != i)
			return "target list is not the root ports in position order";
	return NULL;
}

/*
 * The ordering rules of CXL r3.0 8.2.4.19 (Committing Decoder Programming)
 * for decoder @id, given the decoder below it: that one is committed, and
 * this one's HPA range starts at or above its end. Returns NULL, or why the
 * commit must fail.
 */
static const char *cxlv_emu_hdm_check_order(const struct cxlv_hdm_block *blk,
					    int id,
					    const struct cxlv_hdm_decoder *d)
{
	const struct cxlv_hdm_decoder *prev;

	if (!id)
		return NULL;
	prev = &blk->checked[id - 1];
	if (blk->state[id - 1] != CXLV_HDM_COMMITTED)
		return "the decoder below it is not committed";
	if (d->base < prev->base + prev->size)
		return "HPA range below the end of the decoder below it";
	return NULL;
}

/*
 * Checks decoder @id, which the host asked to commit, whose DPA range
 * starts at @dpa_base + skip (the end of the decoder below it, so DPA
 * ranges never overlap and increase with @id). Returns NULL, or why the
 * commit must fail.
 */
static const char *cxlv_emu_hdm_check(struct cxlv_emu *emu,
				      const struct cxlv_hdm_block *blk, int id,
				      const struct cxlv_hdm_decoder *d,
				      u64 dpa_base)
{
	u64 dpa = dpa_base + d->skip;
	const char *why = cxlv_emu_hdm_check_order(blk, id, d);

	if (why)
		return why;
	if (blk->bridge)
		return cxlv_emu_hdm_check_bridge(emu, d);
	if (cxlv_security_media_blocked(&emu->mbox_state.security))
		return "media locked or being erased";
	if (READ_ONCE(emu->mbox_state.bg.running))
		return "media being erased (cxlv_sanitize.c)";
	if (emu->cfg.ways > 1)
		return cxlv_emu_hdm_check_set(emu, d, dpa);
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
 * A reset and a re-commit that both land between two polls leave COMMIT set
 * over new programming: compare with what was last checked.
 */
static bool cxlv_emu_hdm_reprogrammed(struct cxlv_hdm_block *blk, int id,
				      const struct cxlv_hdm_decoder *d)
{
	const struct cxlv_hdm_decoder *was = &blk->checked[id];

	return d->base != was->base || d->size != was->size ||
	       d->skip != was->skip ||
	       FIELD_GET(CXL_HDM_DECODER0_CTRL_IW_MASK |
			 CXL_HDM_DECODER0_CTRL_IG_MASK, d->ctrl ^ was->ctrl);
}

/* "host bridge h" is answered by the emulator of the endpoint at position h */
static const char *cxlv_emu_hdm_owner(const struct cxlv_hdm_block *blk)
{
	return blk->bridge ? "host bridge" : "endpoint";
}

/* Checks a decoder whose COMMIT is set and records the answer. */
static void cxlv_emu_hdm_validate(struct cxlv_emu *emu,
				  struct cxlv_hdm_block *blk, int id,
				  const struct cxlv_hdm_decoder *d, u64 dpa_base)
{
	const char *why = cxlv_emu_hdm_check(emu, blk, id, d, dpa_base);

	blk->checked[id] = *d;
	clear_bit(id, &blk->reset_refused);
	if (why) {
		dev_err_ratelimited(emu->cfg.dev,
				    "%s %u decoder %d: commit refused: %s\n",
				    cxlv_emu_hdm_owner(blk), emu->cfg.pos, id,
				    why);
		blk->state[id] = CXLV_HDM_REFUSED;
		return;
	}
	blk->state[id] = CXLV_HDM_COMMITTED;
	/* one per endpoint a region commits, whatever the bridges have */
	if (!blk->bridge)
		WRITE_ONCE(emu->commits, emu->commits + 1);
}

/* The Control register bits that show a decoder's answer. */
static u32 cxlv_emu_hdm_answer(enum cxlv_hdm_state state)
{
	switch (state) {
	case CXLV_HDM_COMMITTED:
		return CXL_HDM_DECODER0_CTRL_COMMITTED;
	case CXLV_HDM_REFUSED:
		return CXL_HDM_DECODER0_CTRL_COMMIT_ERROR;
	default:
		return 0;
	}
}

/* Is decoder @id committed with Lock On Commit (CXL r3.0 8.2.4.19.7)? */
static bool cxlv_emu_hdm_locked(const struct cxlv_hdm_block *blk, int id)
{
	return blk->state[id] == CXLV_HDM_COMMITTED &&
	       (blk->checked[id].ctrl & CXL_HDM_DECODER0_CTRL_LOCK);
}

static void cxlv_emu_hdm_write(struct cxlv_hdm_block *blk, int id,
			       const struct cxlv_hdm_decoder *d)
{
	void __iomem *regs = blk->regs;

	lo_hi_writeq(d->base, regs + CXL_HDM_DECODER0_BASE_LOW_OFFSET(id));
	lo_hi_writeq(d->size, regs + CXL_HDM_DECODER0_SIZE_LOW_OFFSET(id));
	lo_hi_writeq(d->skip, regs + CXL_HDM_DECODER0_SKIP_LOW(id));
	writel(d->ctrl, regs + CXL_HDM_DECODER0_CTRL_OFFSET(id));
}

/*
 * A locked decoder's registers are read-only: puts back what it committed
 * with over whatever software wrote. True if something had changed.
 */
static bool cxlv_emu_hdm_keep_locked(struct cxlv_emu *emu,
				     struct cxlv_hdm_block *blk, int id,
				     const struct cxlv_hdm_decoder *d)
{
	const u32 answer_bits = CXL_HDM_DECODER0_CTRL_COMMITTED |
				CXL_HDM_DECODER0_CTRL_COMMIT_ERROR;
	struct cxlv_hdm_decoder keep = blk->checked[id];

	keep.ctrl = (keep.ctrl & ~answer_bits) |
		    CXL_HDM_DECODER0_CTRL_COMMITTED;
	if (d->ctrl == keep.ctrl && d->base == keep.base &&
	    d->size == keep.size && d->skip == keep.skip)
		return false;
	cxlv_emu_hdm_write(blk, id, &keep);
	if (!test_and_set_bit(id, &blk->lock_reported))
		dev_err_ratelimited(emu->cfg.dev,
				    "%s %u decoder %d: locked (Lock On Commit): a write to it was undone\n",
				    cxlv_emu_hdm_owner(blk), emu->cfg.pos, id);
	return true;
}

/*
 * Resets, top decoder first, so that the kernel's teardown in reverse order
 * lands in one poll however many decoders it resets. CXL r3.0 8.2.4.19
 * (Committing Decoder Programming) undoes commits in reverse order: a
 * committed decoder whose COMMIT was cleared while the one above it is
 * still committed keeps decoding, Committed set, until that one is reset.
 */
static bool cxlv_emu_hdm_poll_resets(struct cxlv_emu *emu,
				     struct cxlv_hdm_block *blk)
{
	bool moved = false;
	int id;

	for (id = CXLV_HDM_DECODERS - 1; id >= 0; id--) {
		enum cxlv_hdm_state *state = &blk->state[id];
		u32 ctrl = readl(blk->regs + CXL_HDM_DECODER0_CTRL_OFFSET(id));
		bool above = id + 1 < CXLV_HDM_DECODERS &&
			     blk->state[id + 1] == CXLV_HDM_COMMITTED;

		if ((ctrl & CXL_HDM_DECODER0_CTRL_COMMIT) ||
		    *state == CXLV_HDM_IDLE || cxlv_emu_hdm_locked(blk, id))
			continue;
		if (*state == CXLV_HDM_COMMITTED && above) {
			/* once per refused reset, not once per tick */
			if (!test_and_set_bit(id, &blk->reset_refused))
				dev_err_ratelimited(emu->cfg.dev,
						    "%s %u decoder %d: reset refused: decoder %d is still committed\n",
						    cxlv_emu_hdm_owner(blk),
						    emu->cfg.pos, id, id + 1);
			continue;
		}
		/* Software reset the decoder: it stops decoding. */
		clear_bit(id, &blk->reset_refused);
		*state = CXLV_HDM_IDLE;
		moved = true;
	}
	return moved;
}

/*
 * Runs the commit state machine of a block's decoders, resets first, then
 * commits in decoder order; true if one moved.
 */
static bool cxlv_emu_hdm_poll_block(struct cxlv_emu *emu,
				    struct cxlv_hdm_block *blk)
{
	const u32 answer_bits = CXL_HDM_DECODER0_CTRL_COMMITTED |
				CXL_HDM_DECODER0_CTRL_COMMIT_ERROR;
	bool moved = cxlv_emu_hdm_poll_resets(emu, blk);
	struct cxlv_hdm_decoder d;
	u64 dpa_base = 0;
	int id;

	for (id = 0; id < CXLV_HDM_DECODERS; id++) {
		enum cxlv_hdm_state *state = &blk->state[id];
		u32 answer;

		cxlv_emu_hdm_read(blk, id, &d);
		if (cxlv_emu_hdm_locked(blk, id)) {
			moved |= cxlv_emu_hdm_keep_locked(emu, blk, id, &d);
		} else {
			if ((d.ctrl & CXL_HDM_DECODER0_CTRL_COMMIT) &&
			    (*state == CXLV_HDM_IDLE ||
			     cxlv_emu_hdm_reprogrammed(blk, id, &d))) {
				cxlv_emu_hdm_validate(emu, blk, id, &d,
						      dpa_base);
				moved = true;
			}
			/* Read-only bits: what software left is overwritten. */
			answer = cxlv_emu_hdm_answer(*state);
			if ((d.ctrl & answer_bits) != answer)
				writel((d.ctrl & ~answer_bits) | answer,
				       blk->regs +
				       CXL_HDM_DECODER0_CTRL_OFFSET(id));
		}
		/*
		 * The next decoder's DPA starts where this one's ends: an
		 * endpoint decoder of a set takes size / ways of its DPA.
		 */
		if (*state == CXLV_HDM_COMMITTED)
			dpa_base += blk->checked[id].skip +
				    div_u64(blk->checked[id].size,
					    blk->bridge ? 1 : emu->cfg.ways);
	}
	return moved;
}

/* The endpoint's decoders, and its host bridge's if it answers them. */
static bool cxlv_emu_hdm_poll(struct cxlv_emu *emu)
{
	bool moved = cxlv_emu_hdm_poll_block(emu, &emu->ep_hdm);

	if (emu->hb_hdm.regs)
		moved |= cxlv_emu_hdm_poll_block(emu, &emu->hb_hdm);
	return moved;
}

/**
 * cxlv_emu_hdm_sync() - bring the decoders' answers up to date now
 * @emu: the device
 *
 * Any context; the commit hint calls it before the kernel commits.
 */
void cxlv_emu_hdm_sync(struct cxlv_emu *emu)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&emu->lock, flags);
	if (cxlv_emu_hdm_poll(emu))
		WRITE_ONCE(emu->last_busy, ktime_get());
	raw_spin_unlock_irqrestore(&emu->lock, flags);
}

static enum hrtimer_restart cxlv_emu_poll(struct hrtimer *timer)
{
	struct cxlv_emu *emu = container_of(timer, struct cxlv_emu, timer);
	bool busy = cxlv_emu_doorbell_rung(emu);
	ktime_t now;
	u64 slack;

	if (busy)
		cxlv_emu_mbox_kick(emu);
	raw_spin_lock(&emu->lock);
	busy |= cxlv_emu_hdm_poll(emu);
	/* Idle ticks only: while busy the host has long probed the layout. */
	if (!busy && cxlv_regs_restore(&emu->cfg, emu->regs_ro))
		dev_err_ratelimited(emu->cfg.dev,
				    "read-only capability registers were overwritten; restored\n");
	/* Count the period from now, so a slow tick never runs back to back. */
	now = ktime_get();
	if (busy)
		WRITE_ONCE(emu->last_busy, now);
	emu->period_ns = cxlv_emu_next_period(emu, now);
	/* Idle ticks may coalesce with other timers; busy ones may not. */
	slack = busy ? 0 : emu->period_ns / 2;
	hrtimer_set_expires_range_ns(timer, ktime_add_ns(now, emu->period_ns),
				     slack);
	raw_spin_unlock(&emu->lock);

	return HRTIMER_RESTART;
}

static void cxlv_emu_list_add(struct cxlv_emu *emu)
{
	mutex_lock(&cxlv_emus_lock);
	list_add_tail_rcu(&emu->node, &cxlv_emus);
	mutex_unlock(&cxlv_emus_lock);
}

static void cxlv_emu_list_del(struct cxlv_emu *emu)
{
	mutex_lock(&cxlv_emus_lock);
	list_del_rcu(&emu->node);
	mutex_unlock(&cxlv_emus_lock);
	/* No hint walks past the emulator after this. */
	synchronize_rcu();
}

/**
 * cxlv_emu_for_each() - @act on every running emulator, for a hint
 * @act: called under RCU with preemption off
 */
void cxlv_emu_for_each(void (*act)(struct cxlv_emu *emu))
{
	struct cxlv_emu *emu;

	rcu_read_lock();
	list_for_each_entry_rcu(emu, &cxlv_emus, node)
		act(emu);
	rcu_read_unlock();
}

/* CXL r3.0 8.2.4.19.7: Target Device Type 1, a host-only (type 3) device */
#define CXLV_HDM_CTRL_HOSTONLY	BIT(12)

/*
 * Programs decoder @id of @blk over @size bytes of HPA at @hpa, @iw ways at
 * @ig bytes, with @skip (an endpoint's DPA skip, or a bridge's target
 * list), Commit set: as firmware does before the OS looks.
 */
static void cxlv_emu_hdm_program(struct cxlv_hdm_block *blk, int id, u64 hpa,
				 u64 size, unsigned int iw, unsigned int ig,
				 u64 skip, bool lock)
{
	struct cxlv_hdm_decoder d = {
		.ctrl = FIELD_PREP(CXL_HDM_DECODER0_CTRL_IW_MASK, ilog2(iw)) |
			FIELD_PREP(CXL_HDM_DECODER0_CTRL_IG_MASK,
				   ilog2(ig / SZ_256)) |
			CXLV_HDM_CTRL_HOSTONLY | CXL_HDM_DECODER0_CTRL_COMMIT |
			(lock ? CXL_HDM_DECODER0_CTRL_LOCK : 0),
		.base = hpa,
		.size = size,
		.skip = skip,
	};
	u32 global = readl(blk->regs + CXL_HDM_DECODER_CTRL_OFFSET);

	cxlv_emu_hdm_write(blk, id, &d);
	writel(global | CXL_HDM_DECODER_ENABLE,
	       blk->regs + CXL_HDM_DECODER_CTRL_OFFSET);
}

/*
 * A device born as platform firmware leaves it (@cfg.auto_commit): decoder
 * i of the endpoint, and of its host bridge if this emulator answers that,
 * over partition i across the set (the volatile part of the window, then
 * the persistent part; one of them when the other is empty), DPA skip 0,
 * the bridge's targets its root ports in position order; then the state
 * machine validates them like any commit. Returns 0, or -EINVAL if one
 * did not commit (a layout the emulator itself refuses: a bug).
 */
static int cxlv_emu_hdm_firmware(struct cxlv_emu *emu)
{
	const struct cxlv_emu_config *cfg = &emu->cfg;
	unsigned int host_bridges = cfg->bridge_ways ?
				    cfg->ways / cfg->bridge_ways : 1;
	u64 parts[2], dpa = 0, targets = 0;
	int i, id = 0;

	parts[0] = cfg->pmem ? cfg->ram_bytes : cfg->capacity;
	parts[1] = cfg->capacity - parts[0];
	for (i = 0; i < cfg->bridge_ways; i++)
		targets |= (u64)i << (8 * i);
	for (i = 0; i < ARRAY_SIZE(parts); i++) {
		u64 hpa = cfg->hpa_base + dpa * cfg->ways;

		if (!parts[i])
			continue;
		cxlv_emu_hdm_program(&emu->ep_hdm, id, hpa,
				     parts[i] * cfg->ways, cfg->ways,
				     cfg->granularity, 0, cfg->lock_on_commit);
		if (emu->hb_hdm.regs)
			cxlv_emu_hdm_program(&emu->hb_hdm, id, hpa,
					     parts[i] * cfg->ways,
					     cfg->bridge_ways,
					     cfg->granularity * host_bridges,
					     targets, cfg->lock_on_commit);
		dpa += parts[i];
		id++;
	}
	raw_spin_lock_irq(&emu->lock);
	cxlv_emu_hdm_poll(emu);
	raw_spin_unlock_irq(&emu->lock);
	while (id--) {
		if (emu->ep_hdm.state[id] != CXLV_HDM_COMMITTED ||
		    (emu->hb_hdm.regs &&
		     emu->hb_hdm.state[id] != CXLV_HDM_COMMITTED))
			return -EINVAL;
	}
	return 0;
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

	cxlv_poison_start(&emu->mbox_state.poison, cfg);
	emu->cfg = *cfg;
	cxlv_events_start(&emu->mbox_state.events, cfg);
	cxlv_security_start(&emu->mbox_state.security, &emu->cfg);
	cxlv_fw_start(&emu->mbox_state.fw, cfg);
	cxlv_partition_start(&emu->mbox_state.partition, cfg);
	cxlv_health_start(&emu->mbox_state.health, cfg);
	cxlv_bg_start(&emu->mbox_state.bg, &emu->cfg, &emu->mbox_state);
	emu->mbox = cxlv_regs_mbox(cfg);
	emu->ep_hdm.regs = cxlv_regs_hdm(cfg->comp_regs);
	if (cfg->bridge_regs) {
		emu->hb_hdm.regs = cxlv_regs_hdm(cfg->bridge_regs);
		emu->hb_hdm.bridge = true;
	}
	raw_spin_lock_init(&emu->lock);
	INIT_WORK(&emu->mbox_work, cxlv_emu_mbox_work);
	INIT_WORK(&emu->mbox_work_any, cxlv_emu_mbox_work_any);
	cxlv_regs_init(cfg, emu->regs_ro);

	/* Start busy: cxl_pci's probe follows right away. */
	emu->last_busy = ktime_get();
	emu->period_ns = (u64)READ_ONCE(poll_busy_us) * NSEC_PER_USEC;
	cxlv_hrtimer_setup(&emu->timer, cxlv_emu_poll, CLOCK_MONOTONIC,
			   HRTIMER_MODE_REL_HARD);
	hrtimer_start(&emu->timer, 0, HRTIMER_MODE_REL_HARD);
	cxlv_emu_list_add(emu);
	if (cfg->auto_commit && cxlv_emu_hdm_firmware(emu)) {
		dev_err(cfg->dev,
			"endpoint %u: the decoders it is born with did not commit\n",
			cfg->pos);
		cxlv_emu_stop(emu);
		return ERR_PTR(-EINVAL);
	}

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
	/* Neither hint nor timer can queue it again now. */
	cancel_work_sync(&emu->mbox_work);
	cancel_work_sync(&emu->mbox_work_any);
	cxlv_bg_stop(&emu->mbox_state.bg);
	cxlv_poison_stop(&emu->mbox_state.poison);
	cxlv_security_stop(&emu->mbox_state.security);
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

/**
 * cxlv_emu_inject_event() - add event records to the device's logs
 * @emu: the device
 * @req: the records
 *
 * Return: as cxlv_events_inject(): the MSI message number to raise, or
 * -ENOMSG for none, or why the request does not fit the device.
 */
int cxlv_emu_inject_event(struct cxlv_emu *emu,
			  const struct cxlv_event_request *req)
{
	struct cxlv_health_info health;

	cxlv_health_info(&emu->mbox_state.health, &health);
	return cxlv_events_inject(&emu->mbox_state.events, &emu->cfg,
				  cxlv_mbox_now(&emu->mbox_state), req, &health);
}

/**
 * cxlv_emu_set_health() - change the figures Get Health Info reports
 * @emu: the device
 * @req: the figures (cxlv_parse_health())
 *
 * A change that crosses a threshold or changes a status adds its Memory
 * Module records to the event logs (cxlv_health.c).
 *
 * Return: the MSI message number to raise for them, or -ENOMSG for none.
 */
int cxlv_emu_set_health(struct cxlv_emu *emu,
			const struct cxlv_health_request *req)
{
	struct cxlv_event_request ev = {
		.record = CXLV_EVENT_MEMORY_MODULE,
		.count = 1,
	};
	struct cxlv_health_events events;
	struct cxlv_health_info health;
	unsigned int i;
	int rc = -ENOMSG;

	cxlv_health_set(&emu->mbox_state.health, &emu->cfg, req, &events,
			&health);
	for (i = 0; i < events.count; i++) {
		ev.log = events.log[i];
		ev.event_type = events.type[i];
		if (!cxlv_events_inject(&emu->mbox_state.events, &emu->cfg,
					cxlv_mbox_now(&emu->mbox_state), &ev,
					&health))
			rc = 0;
	}
	return rc;
}

u64 cxlv_emu_events_injected(const struct cxlv_emu *emu)
{
	return READ_ONCE(emu->mbox_state.events.injected);
}

u64 cxlv_emu_events_cleared(const struct cxlv_emu *emu)
{
	return READ_ONCE(emu->mbox_state.events.cleared);
}

u64 cxlv_emu_events_pending(const struct cxlv_emu *emu)
{
	return cxlv_events_pending(&emu->mbox_state.events);
}

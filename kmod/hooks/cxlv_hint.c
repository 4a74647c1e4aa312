// SPDX-License-Identifier: GPL-2.0-only
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include "cxlv_hooks.h"

/**
 * DOC: cxl_virt emulator hints
 *
 * The poller can come late: under full emulation (QEMU TCG) timer interrupts
 * go through the emulator's main loop and take milliseconds on a loaded
 * host, and between two polls the host can read back a register the device
 * has not answered yet. So kprobes on two functions of the stock drivers
 * tell the emulator the moment the host acts:
 *
 * - cxl_pci's cxl_pci_mbox_wait_for_doorbell, which it calls right after
 *   ringing the mailbox doorbell (switch: the doorbell_hint parameter): the
 *   handler only queues the emulator's worker on another online CPU, which
 *   answers the command in process context while the ringing task spins.
 *   Only with one CPU online on a kernel that does not preempt tasks
 *   (preempt=none or voluntary) could no worker ever run before cxl_pci
 *   gives up (it busy-waits for the doorbell and never yields); there, and
 *   only there, the handler answers the command itself, with preemption
 *   off (cxlv_emu_mbox_hint());
 * - cxl_core's cxl_decoder_commit, before it reads the decoder's Control
 *   register (switch: commit_hint): the decoder state machine catches up
 *   first, a few register reads under a raw spinlock, so a reset the poller
 *   has not seen yet leaves no stale Committed bit that the commit would
 *   read back as the device's answer.
 *
 * Both handlers return 0, so a kprobe of perf, tracefs or BPF on the same
 * function runs before or after them as kprobes' aggregate handler calls
 * it; neither changes the registers or the instruction pointer.
 *
 * A hint is armed while an emulator runs, its switch is on and the module
 * holding its function is loaded. A module notifier arms it again when that
 * module is loaded anew (``rmmod cxl_pci; modprobe cxl_pci``) and disarms
 * it before the module's text goes. It arms while the module is coming,
 * before its init runs, as tracefs does: once it is live its driver may
 * already be probing asynchronously, in the very function the kprobe
 * patches (under QEMU TCG, whose cross-vCPU code patching is not atomic,
 * that crashed cxl_pci's probe). Writing N to the switch disarms the
 * kprobe at once (unregister_kprobe() waits for a handler in flight), Y arms
 * it again. Without the doorbell hint the poller's worker answers the
 * mailbox, within one poll period (poll_busy_us); without the commit hint a
 * commit that follows a reset within one poll period may read the stale
 * bit, as on a kernel with neither function.
 */

struct cxlv_hint {
	const char *symbol;
	const char *param;
	const char *without;
	void (*act)(struct cxlv_emu *emu);
	struct kprobe probe;
	bool enabled;
	bool armed;
};

/* The host is in a hinted function: every running emulator acts now. */
static int cxlv_hint_hit(struct kprobe *probe, struct pt_regs *regs)
{
	struct cxlv_hint *h = container_of(probe, struct cxlv_hint, probe);

	cxlv_emu_for_each(h->act);
	return 0;
}

enum { CXLV_HINT_DOORBELL, CXLV_HINT_COMMIT };

static struct cxlv_hint cxlv_hints[] = {
	[CXLV_HINT_DOORBELL] = {
		.symbol = "cxl_pci_mbox_wait_for_doorbell",
		.param = "doorbell_hint",
		.without = "mailbox answered by polling only",
		.act = cxlv_emu_mbox_hint,
		.enabled = true,
	},
	[CXLV_HINT_COMMIT] = {
		.symbol = "cxl_decoder_commit",
		.param = "commit_hint",
		.without = "decoder commits answered by polling only",
		.act = cxlv_emu_hdm_sync,
		.enabled = true,
	},
};

/* Serializes arming against the module notifier. */
static DEFINE_MUTEX(cxlv_hints_lock);
/* Serializes the first get and the last put. */
static DEFINE_MUTEX(cxlv_hints_users_lock);
static unsigned int cxlv_hints_users;

static int cxlv_hint_arm(struct cxlv_hint *h)
{
	int rc;

	if (h->armed || !h->enabled)
		return 0;
	/* A kprobe that failed or was unregistered is set up anew. */
	h->probe = (struct kprobe) {
		.symbol_name = h->symbol,
		.pre_handler = cxlv_hint_hit,
	};
	rc = register_kprobe(&h->probe);
	WRITE_ONCE(h->armed, !rc);
	return rc;
}

static void cxlv_hint_disarm(struct cxlv_hint *h)
{
	if (!h->armed)
		return;
	unregister_kprobe(&h->probe);
	WRITE_ONCE(h->armed, false);
}

static int cxlv_hints_module_event(struct notifier_block *nb,
				   unsigned long action, void *data)
{
	struct module *mod = data;
	size_t i;

	if (action != MODULE_STATE_COMING && action != MODULE_STATE_GOING)
		return NOTIFY_DONE;

	mutex_lock(&cxlv_hints_lock);
	for (i = 0; i < ARRAY_SIZE(cxlv_hints); i++) {
		struct cxlv_hint *h = &cxlv_hints[i];

		if (action == MODULE_STATE_GOING) {
			if (h->armed &&
			    within_module((unsigned long)h->probe.addr, mod))
				cxlv_hint_disarm(h);
		} else if (!h->armed && h->enabled && !cxlv_hint_arm(h)) {
			pr_info("kprobe on %s armed (%s loaded)\n", h->symbol,
				mod->name);
		}
	}
	mutex_unlock(&cxlv_hints_lock);
	return NOTIFY_DONE;
}

static struct notifier_block cxlv_hints_nb = {
	.notifier_call = cxlv_hints_module_event,
};

/**
 * cxlv_hints_get() - arm the hints for one more running emulator
 * @dev: the device starting, for the message when a hint is not available
 */
void cxlv_hints_get(const struct device *dev)
{
	size_t i;
	int rc;

	mutex_lock(&cxlv_hints_users_lock);
	if (cxlv_hints_users++)
		goto unlock;
	/* First the notifier, so that no module load falls in between. */
	rc = register_module_notifier(&cxlv_hints_nb);
	if (rc)
		dev_info(dev, "no module notifier (%d): hints not re-armed on reload\n",
			 rc);
	mutex_lock(&cxlv_hints_lock);
	for (i = 0; i < ARRAY_SIZE(cxlv_hints); i++) {
		rc = cxlv_hint_arm(&cxlv_hints[i]);
		if (rc)
			dev_info(dev, "no kprobe on %s (%d) yet: %s\n",
				 cxlv_hints[i].symbol, rc,
				 cxlv_hints[i].without);
	}
	mutex_unlock(&cxlv_hints_lock);
unlock:
	mutex_unlock(&cxlv_hints_users_lock);
}

/* cxlv_hints_put() - the last emulator stopped: disarm every hint */
void cxlv_hints_put(void)
{
	size_t i;

	mutex_lock(&cxlv_hints_users_lock);
	if (--cxlv_hints_users)
		goto unlock;
	/* Waits for a running callback; callbacks only take cxlv_hints_lock. */
	unregister_module_notifier(&cxlv_hints_nb);
	mutex_lock(&cxlv_hints_lock);
	for (i = 0; i < ARRAY_SIZE(cxlv_hints); i++)
		cxlv_hint_disarm(&cxlv_hints[i]);
	mutex_unlock(&cxlv_hints_lock);
unlock:
	mutex_unlock(&cxlv_hints_users_lock);
}

/*
 * The switches: N disarms a hint now, Y arms it while an emulator runs.
 * Taken in the order cxlv_hints_get() takes them.
 */
static int cxlv_hint_set(const char *val, const struct kernel_param *kp)
{
	struct cxlv_hint *h = kp->arg;
	bool on;
	int rc;

	rc = kstrtobool(val, &on);
	if (rc) {
		pr_err_ratelimited("%s: want Y or N\n", h->param);
		return rc;
	}
	mutex_lock(&cxlv_hints_users_lock);
	mutex_lock(&cxlv_hints_lock);
	h->enabled = on;
	if (!on) {
		cxlv_hint_disarm(h);
	} else if (cxlv_hints_users) {
		rc = cxlv_hint_arm(h);
		if (rc)
			pr_info("no kprobe on %s (%d) yet: %s\n", h->symbol,
				rc, h->without);
	}
	mutex_unlock(&cxlv_hints_lock);
	mutex_unlock(&cxlv_hints_users_lock);
	return 0;
}

static int cxlv_hint_get(char *buf, const struct kernel_param *kp)
{
	const struct cxlv_hint *h = kp->arg;

	return sysfs_emit(buf, "%c\n", READ_ONCE(h->enabled) ? 'Y' : 'N');
}

static const struct kernel_param_ops cxlv_hint_ops = {
	.set = cxlv_hint_set,
	.get = cxlv_hint_get,
};

module_param_cb(doorbell_hint, &cxlv_hint_ops,
		&cxlv_hints[CXLV_HINT_DOORBELL], 0644);
__MODULE_PARM_TYPE(doorbell_hint, "bool");
MODULE_PARM_DESC(doorbell_hint,
		 "kprobe on cxl_pci's cxl_pci_mbox_wait_for_doorbell: answer the mailbox at once (N: by polling)");
module_param_cb(commit_hint, &cxlv_hint_ops,
		&cxlv_hints[CXLV_HINT_COMMIT], 0644);
__MODULE_PARM_TYPE(commit_hint, "bool");
MODULE_PARM_DESC(commit_hint,
		 "kprobe on cxl_core's cxl_decoder_commit: decoder state up to date before a commit (N: by polling)");

/**
 * cxlv_hint_state() - the hooks table's state of a hint
 * @doorbell: the doorbell hint; else the decoder commit hint
 *
 * Return: "armed" while its kprobe is registered, "idle" while its switch
 * is on but no emulator runs or the probed module is not loaded, "off"
 * while its switch is off.
 */
const char *cxlv_hint_state(bool doorbell)
{
	const struct cxlv_hint *h =
		&cxlv_hints[doorbell ? CXLV_HINT_DOORBELL : CXLV_HINT_COMMIT];

	if (READ_ONCE(h->armed))
		return "armed";
	return READ_ONCE(h->enabled) ? "idle" : "off";
}

// SPDX-License-Identifier: GPL-2.0-only
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include "cxlv_emu_internal.h"

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
 *   ringing the mailbox doorbell: the command is answered at once, by the
 *   task that would otherwise spin waiting for it;
 * - cxl_core's cxl_decoder_commit, before it reads the decoder's Control
 *   register: the decoder state machine catches up first, so a reset the
 *   poller has not seen yet leaves no stale Committed bit that the commit
 *   would read back as the device's answer.
 *
 * A hint is armed while an emulator runs and the module holding its function
 * is live. A module notifier arms it again when that module is loaded anew
 * (``rmmod cxl_pci; modprobe cxl_pci``) and disarms it before the module's
 * text goes. Without the doorbell hint only the mailbox latency changes;
 * without the commit hint a commit that follows a reset within one poll
 * period may read the stale bit, as on a kernel with neither function.
 */

struct cxlv_hint {
	const char *symbol;
	const char *without;
	void (*act)(struct cxlv_emu *emu);
	struct kprobe probe;
	bool armed;
};

/* The host is in a hinted function: every running emulator acts now. */
static int cxlv_hint_hit(struct kprobe *probe, struct pt_regs *regs)
{
	struct cxlv_hint *h = container_of(probe, struct cxlv_hint, probe);
	struct cxlv_emu *emu;

	rcu_read_lock();
	list_for_each_entry_rcu(emu, &cxlv_emus, node)
		h->act(emu);
	rcu_read_unlock();
	return 0;
}

static struct cxlv_hint cxlv_hints[] = {
	{
		.symbol = "cxl_pci_mbox_wait_for_doorbell",
		.without = "mailbox answered by polling only",
		.act = cxlv_emu_mbox_hint,
	},
	{
		.symbol = "cxl_decoder_commit",
		.without = "decoder commits answered by polling only",
		.act = cxlv_emu_hdm_sync,
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

	if (h->armed)
		return 0;
	/* A kprobe that failed or was unregistered is set up anew. */
	h->probe = (struct kprobe) {
		.symbol_name = h->symbol,
		.pre_handler = cxlv_hint_hit,
	};
	rc = register_kprobe(&h->probe);
	h->armed = !rc;
	return rc;
}

static void cxlv_hint_disarm(struct cxlv_hint *h)
{
	if (!h->armed)
		return;
	unregister_kprobe(&h->probe);
	h->armed = false;
}

static int cxlv_hints_module_event(struct notifier_block *nb,
				   unsigned long action, void *data)
{
	struct module *mod = data;
	size_t i;

	if (action != MODULE_STATE_LIVE && action != MODULE_STATE_GOING)
		return NOTIFY_DONE;

	mutex_lock(&cxlv_hints_lock);
	for (i = 0; i < ARRAY_SIZE(cxlv_hints); i++) {
		struct cxlv_hint *h = &cxlv_hints[i];

		if (action == MODULE_STATE_GOING) {
			if (h->armed &&
			    within_module((unsigned long)h->probe.addr, mod))
				cxlv_hint_disarm(h);
		} else if (!h->armed && !cxlv_hint_arm(h)) {
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
 * cxlv_emu_hints_get() - arm the hints for one more running emulator
 * @dev: the device starting, for the message when a hint is not available
 */
void cxlv_emu_hints_get(const struct device *dev)
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

/* cxlv_emu_hints_put() - the last emulator stopped: disarm every hint */
void cxlv_emu_hints_put(void)
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

/* cxlv_hint_armed() - is the kprobe on @symbol in place now? (hooks table) */
bool cxlv_hint_armed(const char *symbol)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cxlv_hints); i++)
		if (!strcmp(cxlv_hints[i].symbol, symbol))
			return READ_ONCE(cxlv_hints[i].armed);
	return false;
}

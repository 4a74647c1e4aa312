// SPDX-License-Identifier: GPL-2.0-only
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/device.h>
#include <linux/irq.h>
#include <linux/irq_work.h>
#include <linux/irqdesc.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/smp.h>

#include "cxlv_hooks.h"

/**
 * DOC: cxl_virt event MSI
 *
 * The emulator only says which injected event wants an interrupt
 * (cxlv_events.c); this hook raises it into the endpoint's driver: only
 * while MSI is enabled in the endpoint's config space, through the vector
 * its driver allocated. The driver stays bound meanwhile (its device lock),
 * so the vector is its own.
 *
 * Nothing sends a message to the vector: the device is software, so its
 * interrupt is a software one. generic_handle_irq_safe() runs the vector's
 * flow handler as the interrupt entry would, on the CPU of the interrupt's
 * effective affinity, in hard interrupt context (an irq_work queued there
 * by an IPI: x86's vector domain refuses any other context), so the count
 * in /proc/interrupts, the interrupt thread and the completion of an
 * affinity change in flight happen where a device's message would have
 * landed. (irq_inject_interrupt(), upstream's debug aid, retriggers the
 * vector through the APIC and can complete such a change prematurely.)
 * The event_msi parameter switches it off at run time: records then wait
 * in the logs until the driver reads them (its next probe).
 */

static bool event_msi = true;
module_param(event_msi, bool, 0644);
MODULE_PARM_DESC(event_msi,
		 "raise the endpoint's MSI for injected event records (N: they wait for the driver's next read)");

/**
 * cxlv_event_msi_armed() - may injected events raise the endpoint's MSI?
 *
 * Return: the event_msi switch; the interrupt itself is raised only while
 * the endpoint's driver has MSI enabled.
 */
bool cxlv_event_msi_armed(void)
{
	return READ_ONCE(event_msi);
}

/*
 * One raise at a time: the irq_work is not on the stack, as irq_work_run
 * may read it after irq_work_sync() has seen it done.
 */
static DEFINE_MUTEX(cxlv_msi_lock);
static unsigned int cxlv_msi_irq;
static int cxlv_msi_rc;

/* Hard interrupt context, on the CPU the irq's affinity names. */
static void cxlv_msi_handle(struct irq_work *work)
{
	cxlv_msi_rc = generic_handle_irq_safe(cxlv_msi_irq);
}

static struct irq_work cxlv_msi_work = IRQ_WORK_INIT_HARD(cxlv_msi_handle);

/* In the IPI on the target CPU, or there with interrupts off. */
static void cxlv_msi_queue(void *unused)
{
	irq_work_queue(&cxlv_msi_work);
}

/*
 * Runs @irq's flow handler in hard interrupt context on a CPU of its
 * effective affinity and waits for it. @irq is the Linux irq of the vector
 * (pci_irq_vector()), which the caller's hold on the endpoint's driver
 * keeps allocated until this returns. Process context.
 */
static int cxlv_msi_handle_irq(unsigned int irq)
{
	struct irq_data *data = irq_get_irq_data(irq);
	unsigned int cpu;
	int rc;

	if (!data)
		return -EINVAL;
	if (!cxlv_event_msi_armed())
		return 0;
	mutex_lock(&cxlv_msi_lock);
	cxlv_msi_irq = irq;
	cxlv_msi_rc = 0;
	cpus_read_lock();
	cpu = cpumask_first_and(irq_data_get_effective_affinity_mask(data),
				cpu_online_mask);
	if (cpu >= nr_cpu_ids)
		cpu = cpumask_first(cpu_online_mask);
	rc = smp_call_function_single(cpu, cxlv_msi_queue, NULL, 1);
	cpus_read_unlock();
	if (!rc) {
		irq_work_sync(&cxlv_msi_work);
		rc = cxlv_msi_rc;
	}
	mutex_unlock(&cxlv_msi_lock);
	return rc;
}

/**
 * cxlv_msi_raise() - the endpoint's MSI, as the device would send it
 * @ep: the endpoint
 * @msgnum: the message number its event policy names
 *
 * Return: 0 (also when event_msi is off or the driver has no MSI enabled:
 * nothing raised), or the error of pci_irq_vector(),
 * generic_handle_irq_safe() or the IPI.
 */
int cxlv_msi_raise(struct cxlv_ep *ep, unsigned int msgnum)
{
	struct pci_dev *pdev;
	int irq, rc = 0;

	pdev = cxlv_pci_get_ep(ep);
	if (!pdev)
		return 0;
	device_lock(&pdev->dev);
	if (pdev->msi_enabled && cxlv_cfg_msi_enabled(&ep->ep_cfg)) {
		irq = pci_irq_vector(pdev, msgnum);
		rc = irq < 0 ? irq : cxlv_msi_handle_irq(irq);
		if (rc)
			dev_err_ratelimited(&ep->cxlv->dev,
					    "endpoint %u: MSI %u not raised: %d\n",
					    ep->pos, msgnum, rc);
	}
	device_unlock(&pdev->dev);
	pci_dev_put(pdev);
	return rc;
}

/**
 * cxlv_msi_mbox_irq() - the emulator's &cxlv_emu_ops.mbox_irq: a
 *	background command of endpoint @pos of @dev completed
 * @dev: the cxlvN device
 * @pos: the endpoint
 * @msgnum: the message number its Mailbox Capabilities name
 *
 * Process context (the emulator's worker), while the emulator runs, so
 * the endpoint is there. Errors are logged by cxlv_msi_raise(); the host's
 * driver then notices the completion when it polls.
 */
void cxlv_msi_mbox_irq(struct device *dev, unsigned int pos,
		       unsigned int msgnum)
{
	cxlv_msi_raise(&to_cxlv_dev(dev)->eps[pos], msgnum);
}

/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __CXLV_HOOKS_H__
#define __CXLV_HOOKS_H__

#include <linux/device.h>
#include <linux/types.h>

#include "cxlv.h"

/*
 * Every place where the module reaches into another driver, each with its
 * run-time switch and its state in the hooks table (cxlv_hooks.c).
 */

struct cxl_nvdimm_bridge;

/* cxlv_coherent.c: region commits on a CPU that cannot invalidate caches */
void cxlv_coherent_init(void);
void cxlv_coherent_exit(void);
bool cxlv_coherent_armed(void);
bool cxlv_coherent_applies(void);
extern struct bus_attribute bus_attr_cache_invalidation;

/* cxlv_hooks.c: the table of hooks into other drivers; each owner's state */
extern struct bus_attribute bus_attr_hooks;

/* cxlv_badrange.c: the device's poison on its nvdimm bridge's bus */
int cxlv_badrange_init(struct cxlv_dev *cxlv);
int cxlv_badrange_attach(struct cxlv_dev *cxlv, struct cxl_nvdimm_bridge *nvb);
void cxlv_badrange_queue(struct device *dev, phys_addr_t hpa, bool inject,
			 u8 keep);
bool cxlv_badrange_armed(void);

/*
 * cxlv_hint.c: kprobes that tell the emulators when the host acts;
 * armed from the first running emulator's cxlv_hints_get() to the last
 * one's cxlv_hints_put()
 */
void cxlv_hints_get(const struct device *dev);
void cxlv_hints_put(void);
const char *cxlv_hint_state(bool doorbell);

/* cxlv_msi.c: the endpoint's MSI for injected events */
int cxlv_msi_raise(struct cxlv_ep *ep, unsigned int msgnum);
bool cxlv_event_msi_armed(void);
void cxlv_msi_mbox_irq(struct device *dev, unsigned int pos,
		       unsigned int msgnum);

#endif /* __CXLV_HOOKS_H__ */

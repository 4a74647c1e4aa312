/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __CXLV_CTL_H__
#define __CXLV_CTL_H__

#include <linux/device.h>
#include <linux/types.h>

#include "cxlv_hooks.h"

/*
 * The control layer: the module, its driver, the devices' lifecycle and
 * the control files that drive it.
 */

/* cxlv_main.c: the driver that binds every cxlvN */
extern struct device_driver cxlv_driver;

/* cxlv_device.c: create, remove and attributes of cxlvN */
int cxlv_create(const struct cxlv_params *p);
int cxlv_remove(u32 id, bool release);
int cxlv_inject_event(const struct cxlv_event_request *req);
int cxlv_set_health(const struct cxlv_health_request *req);
void cxlv_remove_all(void);
int cxlv_probe(struct device *dev);

/* cxlv_ctl.c: debugfs and bus control files */
int cxlv_ctl_init(CXLV_BUS_CONST struct bus_type *bus);
void cxlv_ctl_exit(CXLV_BUS_CONST struct bus_type *bus);

#endif /* __CXLV_CTL_H__ */

// SPDX-License-Identifier: GPL-2.0-only
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>

#include "cxlv.h"

/**
 * DOC: cxl_virt bus
 *
 * The bus the cxlvN devices sit on (/sys/bus/cxl_virt); cxlv_main.c
 * registers it and says why the module has a bus of its own. The device
 * model asks it whether a device is a cxlvN.
 */

CXLV_BUS_CONST struct bus_type cxlv_bus = {
	.name = "cxl_virt",
};

/* Puts a new cxlvN device on the bus, before it is added. */
void cxlv_dev_set_bus(struct device *dev)
{
	dev->bus = &cxlv_bus;
}

/* Is @dev a cxlvN device? */
bool cxlv_dev_on_bus(const struct device *dev)
{
	return dev->bus == &cxlv_bus;
}

static int cxlv_name_dev(struct device *dev, void *data)
{
	cxlv_names_add(data, "%s", dev_name(dev));
	return 0;
}

/* Adds the name of every cxlvN on the bus, added and not yet deleted. */
void cxlv_bus_names(struct cxlv_names *n)
{
	bus_for_each_dev(&cxlv_bus, NULL, n, cxlv_name_dev);
}

// SPDX-License-Identifier: GPL-2.0-only
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cc_platform.h>
#include <linux/module.h>

#include "cxlv_ctl.h"

/**
 * DOC: cxl_virt module, bus and driver
 *
 * Registers the ``cxl_virt`` bus (devices appear under
 * /sys/devices/virtual/cxl_virt) together with a driver that binds every
 * device on it. The bound driver is what makes a cxlvN device a valid devm
 * host for the CXL root port: the CXL core refuses to hang dports off a
 * device without a driver. The topology is built in the driver's probe.
 *
 * cxl_test makes its devices platform devices; cxl_virt keeps a bus of its
 * own because the bus is its ABI (Documentation/ABI/testing): the control
 * files (create, remove, release, borrowed, last_error, hooks,
 * cache_invalidation) are attributes of the bus, where they work without
 * debugfs, and /sys/bus/cxl_virt/devices lists exactly the cxlvN devices
 * with their attributes. cxlvctl, the tests and the captured fixtures read
 * both; platform devices would scatter the devices among every other
 * driver's and leave the control files nowhere but debugfs. The driver
 * binds every device on the bus, and nothing else does.
 *
 * The control files that create and remove go live only once the driver and the notifiers (regions on the
 * CXL bus, endpoints on the PCI bus) are in place, and go first on unload.
 *
 * The module refuses to load in a confidential guest (cxlv_init_check()).
 *
 * This is the top layer. Lowest first: common (compat, the device
 * parameters, reports) < emulator (registers, mailbox, poison, events, DOE,
 * CDAT) < memory and topology (claims, firmware map, borrow, fence, PM;
 * bus, PCI domain, config space, BAR, ports) < hooks into other drivers
 * (coherent, badrange, hints, event MSI) < control (this file, the
 * devices' lifecycle, the control files). Nothing includes a header of a
 * layer above its own (kmod/README.md, scripts/check-layers.sh); the
 * emulator reaches up only through &struct cxlv_emu_ops.
 */

/* Teardown is entirely devm, released in reverse order of probe. */
struct device_driver cxlv_driver = {
	.name = "cxl_virt",
	.bus = &cxlv_bus,
	.owner = THIS_MODULE,
	.probe = cxlv_probe,
	.suppress_bind_attrs = true,
	.probe_type = PROBE_FORCE_SYNCHRONOUS,
};

/*
 * In a confidential guest (TDX, SEV-SNP) ioremap() maps Reserved RAM shared
 * with the host: the devices' registers, mailbox and label areas would sit
 * in memory the host reads and writes.
 */
static int __init cxlv_init_check(void)
{
	if (cc_platform_has(CC_ATTR_GUEST_MEM_ENCRYPT)) {
		pr_err("not loading in a confidential guest (guest memory encryption: TDX, SEV): ioremap() would put the devices' registers and labels in memory shared with the host\n");
		return -EOPNOTSUPP;
	}
	return 0;
}

static int __init cxlv_init(void)
{
	int rc;

	rc = cxlv_init_check();
	if (rc)
		return rc;
	rc = subsys_virtual_register(&cxlv_bus, NULL);
	if (rc)
		return rc;
	rc = driver_register(&cxlv_driver);
	if (rc)
		goto err_bus;
	rc = cxlv_port_region_notifier_init();
	if (rc)
		goto err_driver;
	cxlv_coherent_init();
	rc = cxlv_pci_notifier_init();
	if (rc)
		goto err_coherent;
	rc = cxlv_borrow_init();
	if (rc)
		goto err_pci_notifier;
	rc = cxlv_pm_init();
	if (rc)
		goto err_borrow;
	rc = cxlv_ctl_init(&cxlv_bus);
	if (rc)
		goto err_pm;
	return 0;

err_pm:
	cxlv_pm_exit();
err_borrow:
	cxlv_borrow_exit();
err_pci_notifier:
	cxlv_pci_notifier_exit();
err_coherent:
	cxlv_coherent_exit();
	cxlv_port_region_notifier_exit();
err_driver:
	driver_unregister(&cxlv_driver);
err_bus:
	bus_unregister(&cxlv_bus);
	return rc;
}

static void __exit cxlv_exit(void)
{
	cxlv_ctl_exit(&cxlv_bus);
	cxlv_remove_all();
	/* every device is gone: every borrowed range is free and goes back */
	cxlv_borrow_exit();
	cxlv_pm_exit();
	cxlv_pci_notifier_exit();
	cxlv_coherent_exit();
	cxlv_port_region_notifier_exit();
	driver_unregister(&cxlv_driver);
	bus_unregister(&cxlv_bus);
}

module_init(cxlv_init);
module_exit(cxlv_exit);

MODULE_DESCRIPTION("Virtual CXL type-3 memory devices on reserved host RAM");
MODULE_LICENSE("GPL");
/* dkms.conf's PACKAGE_VERSION; it also makes modpost record a srcversion. */
MODULE_VERSION("0.1");
CXLV_IMPORT_NS_CXL();

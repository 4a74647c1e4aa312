/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __CXLV_COMPAT_H__
#define __CXLV_COMPAT_H__

#include <linux/pci_ids.h>
#include "cxl.h"
#include "cxlv_features.h"

/**
 * DOC: cxl_virt kernel differences
 *
 * The one place that knows which kernel the module is built for. The base
 * is Debian 12's 6.1; every difference the module meets up to Debian's
 * 6.12 is a helper or a constant here, named after what it does, so the
 * other files read the same on both kernels. The CXLV_HAVE_* switches come
 * from cxlv_features.h, which scripts/extract-headers.sh generates from the
 * exact kernel's sources: stable updates backport changes, so the version
 * number alone would not say what is there.
 */

/*
 * 6.4 made bus types const: bus_register() and the bus attribute callbacks
 * take a const struct bus_type.
 */
#ifdef CXLV_HAVE_CONST_BUS
#define CXLV_BUS_CONST const
#else
#define CXLV_BUS_CONST
#endif

/* 6.5 renamed cxl_port.uport to uport_dev. */
static inline struct device *cxlv_port_uport(struct cxl_port *port)
{
#ifdef CXLV_HAVE_PORT_UPORT_DEV
	return port->uport_dev;
#else
	return port->uport;
#endif
}

/* 6.5 renamed the type-3 (host-only memory) decoder target type. */
#ifdef CXLV_HAVE_DECODER_HOSTONLYMEM
#define CXLV_DECODER_TYPE3	CXL_DECODER_HOSTONLYMEM
#else
#define CXLV_DECODER_TYPE3	CXL_DECODER_EXPANDER
#endif

/* 6.6 moved the CXL DVSEC vendor ID to pci_ids.h as PCI_VENDOR_ID_CXL. */
#ifdef PCI_VENDOR_ID_CXL
#define CXLV_DVSEC_VENDOR_ID	PCI_VENDOR_ID_CXL
#else
#define CXLV_DVSEC_VENDOR_ID	PCI_DVSEC_VENDOR_ID_CXL
#endif

/*
 * The firmware's own memory map (e820 as firmware gave it, before memmap=
 * edits): e820__mapped_raw_any() reads it and is exported to modules on 6.1
 * and 6.12; later kernels export it to KVM only. Without it no range can be
 * proven RAM, and create fails closed.
 *
 * Return: 1 when the first and the last byte of [start, end) are RAM in
 * that map, 0 when not, -EOPNOTSUPP when this kernel does not tell.
 */
#ifdef CXLV_HAVE_E820_RAW_ANY
#include <asm/e820/api.h>
static inline int cxlv_firmware_map_is_ram(u64 start, u64 end)
{
	return e820__mapped_raw_any(start, start + 1, E820_TYPE_RAM) &&
	       e820__mapped_raw_any(end - 1, end, E820_TYPE_RAM);
}
#else
static inline int cxlv_firmware_map_is_ram(u64 start, u64 end)
{
	return -EOPNOTSUPP;
}
#endif

#endif /* __CXLV_COMPAT_H__ */

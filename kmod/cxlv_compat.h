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

#endif /* __CXLV_COMPAT_H__ */

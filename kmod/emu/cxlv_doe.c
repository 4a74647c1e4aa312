// SPDX-License-Identifier: GPL-2.0-only
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitfield.h>
#include <linux/pci.h>
#include <linux/printk.h>

#include "cxlv_doe.h"
#include "cxlpci.h"
#include "cxlv_compat.h"

/**
 * DOC: cxl_virt DOE mailbox
 *
 * The endpoint's Data Object Exchange mailbox (PCIe r6.0 6.30, registers
 * 7.9.24), answering two protocols: DOE Discovery (PCI-SIG, type 0, PCIe
 * r6.0 6.30.1.1) and CXL Table Access (CXL, type 2, CXL r3.0 8.1.11), whose
 * only table is the CDAT of cxlv_cdat.c.
 *
 * Requests are handled synchronously when software writes DOE Go, inside
 * the config write under the PCI core's raw pci_lock: DOE Busy never reads
 * 1, and Data Object Ready is set as soon as Go returns. The Read Data
 * Mailbox shows the response one dword at a time; a write to it moves to
 * the next, and Data Object Ready clears after the last (PCIe r6.0 6.30.2).
 *
 * What goes wrong, per PCIe r6.0 6.30.2:
 *
 * - a data object of a protocol the mailbox does not support is silently
 *   discarded: no response, no error;
 * - a malformed one (length field not the dwords written, a request of the
 *   wrong size, an unknown request code or table type, an index or entry
 *   handle past the end), more dwords than the mailbox holds, or a new
 *   request written while a response is unread sets DOE Error; the mailbox
 *   then ignores everything but DOE Abort;
 * - DOE Abort, at any point, drops the request, the response and DOE Error.
 *
 * Only dword writes reach the mailbox registers; narrower ones are
 * ignored, as a mailbox dword cannot be written in pieces. Reads of any
 * width return the bytes they cover. There are no interrupts: DOE
 * Capabilities reads 0 and DOE Interrupt Enable is reserved.
 */

/* PCIe r6.0 6.30.1: data object header dwords 1 and 2 */
#define CXLV_DOE_HDR_VID	PCI_DOE_DATA_OBJECT_HEADER_1_VID
#define CXLV_DOE_HDR_TYPE	PCI_DOE_DATA_OBJECT_HEADER_1_TYPE
#define CXLV_DOE_HDR_LENGTH	PCI_DOE_DATA_OBJECT_HEADER_2_LENGTH
#define CXLV_DOE_HDR_DW		2

/* PCIe r6.0 6.30.1.1: DOE Discovery request and response dword */
#define CXLV_DOE_PROT_DISCOVERY		0
#define CXLV_DOE_DISC_INDEX		PCI_DOE_DATA_OBJECT_DISC_REQ_3_INDEX
#define CXLV_DOE_DISC_VID		PCI_DOE_DATA_OBJECT_DISC_RSP_3_VID
#define CXLV_DOE_DISC_TYPE		PCI_DOE_DATA_OBJECT_DISC_RSP_3_PROTOCOL
#define CXLV_DOE_DISC_NEXT		PCI_DOE_DATA_OBJECT_DISC_RSP_3_NEXT_INDEX

/*
 * CXL r3.0 8.1.11.1 Tables 8-12 and 8-13: Read Entry request and response.
 * The kernel's CXL_DOE_TABLE_ACCESS_* are private to drivers/cxl/core/pci.c
 * (6.1, 6.12 and 7.3 alike), where the module cannot see them.
 */
#define CXLV_DOE_PROT_TABLE_ACCESS	2
#define CXLV_DOE_TA_CODE		GENMASK(7, 0)
#define CXLV_DOE_TA_CODE_READ		0
#define CXLV_DOE_TA_TABLE		GENMASK(15, 8)
#define CXLV_DOE_TA_TABLE_CDAT		0
#define CXLV_DOE_TA_HANDLE		GENMASK(31, 16)

/* Both protocols take one request dword after the header */
#define CXLV_DOE_REQ_LEN		(CXLV_DOE_HDR_DW + 1)

static const struct {
	u16 vid;
	u8 type;
} cxlv_doe_protocols[] = {
	{ PCI_VENDOR_ID_PCI_SIG, CXLV_DOE_PROT_DISCOVERY },
	{ CXLV_DVSEC_VENDOR_ID, CXLV_DOE_PROT_TABLE_ACCESS },
};

/* What DOE Abort does: an idle, error-free mailbox. */
static void cxlv_doe_reset(struct cxlv_doe *doe)
{
	doe->req_len = 0;
	doe->rsp_len = 0;
	doe->rsp_pos = 0;
	doe->error = false;
}

/**
 * cxlv_doe_init() - an idle mailbox serving the CDAT of a device
 * @doe: the mailbox
 * @name: the device, for messages
 * @capacity: bytes of device memory
 * @ram_bytes: of a persistent device, the volatile bytes at DPA 0
 * @pmem: a persistent device
 * @perf: its figures
 */
void cxlv_doe_init(struct cxlv_doe *doe, const char *name, u64 capacity,
		   u64 ram_bytes, bool pmem, const struct cxlv_perf *perf)
{
	cxlv_doe_reset(doe);
	doe->name = name;
	cxlv_cdat_build(&doe->cdat, capacity, ram_bytes, pmem, perf);
}

static bool cxlv_doe_ready(const struct cxlv_doe *doe)
{
	return doe->rsp_pos < doe->rsp_len;
}

static void cxlv_doe_fail(struct cxlv_doe *doe, const char *why)
{
	pr_info_ratelimited("%s: DOE Error: %s\n", doe->name, why);
	doe->error = true;
	doe->req_len = 0;
	doe->rsp_len = 0;
	doe->rsp_pos = 0;
}

/* Starts a response of @len dwords for protocol @p; returns its body. */
static u32 *cxlv_doe_respond(struct cxlv_doe *doe, int p, u16 len)
{
	doe->rsp[0] = FIELD_PREP(CXLV_DOE_HDR_VID, cxlv_doe_protocols[p].vid) |
		      FIELD_PREP(CXLV_DOE_HDR_TYPE, cxlv_doe_protocols[p].type);
	doe->rsp[1] = FIELD_PREP(CXLV_DOE_HDR_LENGTH, len);
	doe->rsp_len = len;
	doe->rsp_pos = 0;
	return &doe->rsp[CXLV_DOE_HDR_DW];
}

static void cxlv_doe_discovery(struct cxlv_doe *doe, u32 req)
{
	u32 index = FIELD_GET(CXLV_DOE_DISC_INDEX, req);
	u32 next = index + 1 < ARRAY_SIZE(cxlv_doe_protocols) ? index + 1 : 0;
	u32 *body;

	if (index >= ARRAY_SIZE(cxlv_doe_protocols)) {
		cxlv_doe_fail(doe, "discovery index past the last protocol");
		return;
	}
	body = cxlv_doe_respond(doe, 0, CXLV_DOE_REQ_LEN);
	body[0] = FIELD_PREP(CXLV_DOE_DISC_VID, cxlv_doe_protocols[index].vid) |
		  FIELD_PREP(CXLV_DOE_DISC_TYPE,
			     cxlv_doe_protocols[index].type) |
		  FIELD_PREP(CXLV_DOE_DISC_NEXT, next);
}

static void cxlv_doe_table_access(struct cxlv_doe *doe, u32 req)
{
	const u8 *entry;
	u16 len, next, i;
	u32 *body;

	if (FIELD_GET(CXLV_DOE_TA_CODE, req) != CXLV_DOE_TA_CODE_READ) {
		cxlv_doe_fail(doe, "table access request code is not Read Entry");
		return;
	}
	if (FIELD_GET(CXLV_DOE_TA_TABLE, req) != CXLV_DOE_TA_TABLE_CDAT) {
		cxlv_doe_fail(doe, "table access table type is not CDAT");
		return;
	}
	if (cxlv_cdat_entry(&doe->cdat, FIELD_GET(CXLV_DOE_TA_HANDLE, req),
			    &entry, &len, &next)) {
		cxlv_doe_fail(doe, "CDAT entry handle past the table");
		return;
	}
	body = cxlv_doe_respond(doe, 1, CXLV_DOE_REQ_LEN + len / 4);
	body[0] = FIELD_PREP(CXLV_DOE_TA_CODE, CXLV_DOE_TA_CODE_READ) |
		  FIELD_PREP(CXLV_DOE_TA_TABLE, CXLV_DOE_TA_TABLE_CDAT) |
		  FIELD_PREP(CXLV_DOE_TA_HANDLE, next);
	for (i = 0; i < len / 4; i++) {
		__le32 dw;

		memcpy(&dw, entry + 4 * i, sizeof(dw));
		body[1 + i] = le32_to_cpu(dw);
	}
}

/* DOE Go: the request in the Write Data Mailbox is complete. */
static void cxlv_doe_go(struct cxlv_doe *doe)
{
	u16 len = doe->req_len;
	u32 vid, type;
	int p;

	doe->req_len = 0;
	if (len < CXLV_DOE_HDR_DW ||
	    FIELD_GET(CXLV_DOE_HDR_LENGTH, doe->req[1]) != len) {
		cxlv_doe_fail(doe, "data object length is not the dwords written");
		return;
	}
	vid = FIELD_GET(CXLV_DOE_HDR_VID, doe->req[0]);
	type = FIELD_GET(CXLV_DOE_HDR_TYPE, doe->req[0]);
	for (p = 0; p < ARRAY_SIZE(cxlv_doe_protocols); p++)
		if (vid == cxlv_doe_protocols[p].vid &&
		    type == cxlv_doe_protocols[p].type)
			break;
	if (p == ARRAY_SIZE(cxlv_doe_protocols))
		return;		/* not supported: silently discarded */
	if (len != CXLV_DOE_REQ_LEN) {
		cxlv_doe_fail(doe, "request is not one dword after the header");
		return;
	}
	if (p == 0)
		cxlv_doe_discovery(doe, doe->req[CXLV_DOE_HDR_DW]);
	else
		cxlv_doe_table_access(doe, doe->req[CXLV_DOE_HDR_DW]);
}

/**
 * cxlv_doe_read() - read a mailbox register
 * @doe: the mailbox
 * @reg: dword-aligned offset from the capability, 4 to 0x14
 *
 * Return: the register's value.
 */
u32 cxlv_doe_read(const struct cxlv_doe *doe, int reg)
{
	switch (reg) {
	case PCI_DOE_STATUS:
		return (doe->error ? PCI_DOE_STATUS_ERROR : 0) |
		       (cxlv_doe_ready(doe) ?
				PCI_DOE_STATUS_DATA_OBJECT_READY : 0);
	case PCI_DOE_READ:
		return cxlv_doe_ready(doe) ? doe->rsp[doe->rsp_pos] : 0;
	default:	/* Capabilities, Control, Write Data Mailbox */
		return 0;
	}
}

/**
 * cxlv_doe_write() - write a mailbox register
 * @doe: the mailbox
 * @reg: dword-aligned offset from the capability, 4 to 0x14
 * @val: the dword written
 */
void cxlv_doe_write(struct cxlv_doe *doe, int reg, u32 val)
{
	switch (reg) {
	case PCI_DOE_CTRL:
		if (val & PCI_DOE_CTRL_ABORT)
			cxlv_doe_reset(doe);
		else if ((val & PCI_DOE_CTRL_GO) && !doe->error)
			cxlv_doe_go(doe);
		break;
	case PCI_DOE_WRITE:
		if (doe->error)
			break;
		if (cxlv_doe_ready(doe))
			cxlv_doe_fail(doe, "request written while a response is unread");
		else if (doe->req_len == CXLV_DOE_REQ_DW)
			cxlv_doe_fail(doe, "request longer than the mailbox");
		else
			doe->req[doe->req_len++] = val;
		break;
	case PCI_DOE_READ:
		if (cxlv_doe_ready(doe) && ++doe->rsp_pos == doe->rsp_len)
			doe->rsp_len = doe->rsp_pos = 0;
		break;
	}
}

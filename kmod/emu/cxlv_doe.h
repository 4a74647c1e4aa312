/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __CXLV_DOE_H__
#define __CXLV_DOE_H__

#include <linux/types.h>

#include "cxlv_parse.h"

/**
 * DOC: cxl_virt DOE mailbox and CDAT state
 *
 * One &struct cxlv_doe per emulated endpoint: the Data Object Exchange
 * mailbox of its configuration space (cxlv_doe.c) and the Coherent Device
 * Attribute Table it serves (cxlv_cdat.c). Both are fixed-size, so the
 * config accessors, which run under the PCI core's raw pci_lock, never
 * allocate; pci_lock also serialises every access to the mailbox.
 */

/* PCIe r6.0 7.9.24: the DOE Extended Capability is 0x18 bytes long */
#define CXLV_DOE_CAP_LEN	0x18

/*
 * CDAT r1.03: a header, then for each of the device's partitions (volatile
 * and persistent) a DSMAS and four DSLBIS (read and write latency and
 * bandwidth)
 */
#define CXLV_CDAT_PARTITIONS	2
#define CXLV_CDAT_MAX_ENTRIES	(1 + CXLV_CDAT_PARTITIONS * (1 + 4))
#define CXLV_CDAT_HDR_LEN	16
#define CXLV_CDAT_ENTRY_LEN	24
#define CXLV_CDAT_MAX_LEN	(CXLV_CDAT_HDR_LEN + CXLV_CDAT_ENTRY_LEN * \
				 (CXLV_CDAT_MAX_ENTRIES - 1))

/* CXL r3.0 8.1.11.1 Table 8-13: the next handle after the last entry */
#define CXLV_CDAT_LAST_HANDLE	0xffff

/* Longest request and response objects, in dwords, headers included */
#define CXLV_DOE_REQ_DW		8
#define CXLV_DOE_RSP_DW		(3 + CXLV_CDAT_ENTRY_LEN / 4)

/**
 * struct cxlv_cdat - a built table
 * @data: the table bytes, header first
 * @len: bytes used in @data
 * @nr_entries: entries including the header (entry handle 0)
 * @entry_off: offset of each entry in @data
 */
struct cxlv_cdat {
	u8 data[CXLV_CDAT_MAX_LEN];
	u16 len;
	u16 nr_entries;
	u16 entry_off[CXLV_CDAT_MAX_ENTRIES];
};

/**
 * struct cxlv_doe - DOE mailbox of one endpoint
 * @req: request dwords written so far
 * @req_len: dwords in @req
 * @rsp: response dwords
 * @rsp_len: dwords in @rsp; 0 when no response is pending
 * @rsp_pos: next dword the Read Data Mailbox shows
 * @error: DOE Error: set on a malformed request, cleared by Abort
 * @name: the device, for messages
 * @cdat: the CDAT, which CXL Table Access requests read
 */
struct cxlv_doe {
	u32 req[CXLV_DOE_REQ_DW];
	u16 req_len;
	u32 rsp[CXLV_DOE_RSP_DW];
	u16 rsp_len;
	u16 rsp_pos;
	bool error;
	const char *name;
	struct cxlv_cdat cdat;
};

/* cxlv_cdat.c: the table */
void cxlv_cdat_build(struct cxlv_cdat *cdat, u64 capacity, u64 ram_bytes,
		     bool pmem, const struct cxlv_perf *perf);
u8 cxlv_cdat_link_width(const struct cxlv_perf *perf);
int cxlv_cdat_entry(const struct cxlv_cdat *cdat, u16 handle,
		    const u8 **entry, u16 *len, u16 *next);

/* cxlv_doe.c: the mailbox registers, offsets relative to the capability */
void cxlv_doe_init(struct cxlv_doe *doe, const char *name, u64 capacity,
		   u64 ram_bytes, bool pmem, const struct cxlv_perf *perf);
u32 cxlv_doe_read(const struct cxlv_doe *doe, int reg);
void cxlv_doe_write(struct cxlv_doe *doe, int reg, u32 val);

#endif /* __CXLV_DOE_H__ */

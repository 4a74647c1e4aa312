/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __CXLV_PARSE_H__
#define __CXLV_PARSE_H__

#include <linux/types.h>

/**
 * DOC: cxl_virt control-file grammar
 *
 * create: ``memstart=<u64>,memsize=<u64>,cxltype=3,pmem=<0|1>[,serial=<u64>]``
 * remove: ``cxlv_dev_id=<u32>``
 *
 * Keys come in any order, separated by commas or newlines; numbers are
 * decimal or 0x-prefixed hex. The parsers depend on nothing but the buffer,
 * so they can be built and tested in user space. Trailing NUL bytes end the
 * input; a NUL followed by anything else is refused. memsize must be a
 * multiple of the page size (unaligned input means the user meant something
 * else). Each class of bad input has its own errno, and @why receives a
 * one-line reason:
 *
 * -EINVAL    malformed token, unknown or repeated key, bad number or value,
 *            embedded NUL, memsize not a page multiple
 * -ENODATA   a required key missing
 * -ERANGE    a number that overflows its field, or memstart + memsize wraps
 * -EOPNOTSUPP cxltype other than 3
 */

/* Longest request either control file accepts (debugfs and sysfs alike). */
#define CXLV_REQUEST_MAX	256

/**
 * struct cxlv_params - a parsed create request
 * @memstart: physical start of the reserved range
 * @memsize: length of the reserved range
 * @serial: device serial number (DSN); 0 until defaulted
 * @cxltype: CXL device type; only 3 is supported
 * @pmem: all capacity is persistent (else volatile)
 */
struct cxlv_params {
	u64 memstart;
	u64 memsize;
	u64 serial;
	u32 cxltype;
	bool pmem;
};

int cxlv_parse_create(const char *buf, size_t len, struct cxlv_params *p,
		      char *why, size_t why_len);
int cxlv_parse_remove(const char *buf, size_t len, u32 *id,
		      char *why, size_t why_len);

#endif /* __CXLV_PARSE_H__ */

/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __CXLV_REPORT_H__
#define __CXLV_REPORT_H__

#include <linux/compiler_attributes.h>
#include <linux/types.h>

/**
 * DOC: cxl_virt reports
 *
 * What every layer above the emulator tells the user besides the kernel
 * log: the reason of the last failed control-file request (last_error) and
 * lists of names for one log line (cxlv_report.c).
 */

#define CXLV_ERR_LEN		256

/**
 * struct cxlv_names - a list of names for one log line, joined with ", "
 * @buf: PAGE_SIZE buffer
 * @len: bytes used
 * @borrowed: a free borrowed range is among them
 */
struct cxlv_names {
	char *buf;
	size_t len;
	bool borrowed;
};

__printf(2, 3) void cxlv_names_add(struct cxlv_names *n, const char *fmt, ...);
__printf(1, 2) void cxlv_set_error(const char *fmt, ...);
void cxlv_clear_error(void);
ssize_t cxlv_show_error(char *buf, size_t size);

#endif /* __CXLV_REPORT_H__ */

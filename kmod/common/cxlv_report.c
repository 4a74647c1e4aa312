// SPDX-License-Identifier: GPL-2.0-only
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "cxlv_report.h"

/**
 * DOC: cxl_virt last error and name lists
 *
 * Keeps the reason of the last failed control-file request, which the
 * root-only ``last_error`` files return; probe's own failures go to the
 * kernel log (dev_err_probe()), last_error names only the device and the
 * error.
 */

static DEFINE_SPINLOCK(cxlv_error_lock);
static char cxlv_error[CXLV_ERR_LEN];

/**
 * cxlv_set_error() - record and log why a create or remove failed
 * @fmt: printf-style one-line reason, without a trailing newline
 *
 * Users trigger these, so the log is rate-limited; last_error always
 * holds the latest.
 */
void cxlv_set_error(const char *fmt, ...)
{
	char msg[CXLV_ERR_LEN];
	va_list args;

	va_start(args, fmt);
	vsnprintf(msg, sizeof(msg), fmt, args);
	va_end(args);

	pr_err_ratelimited("%s\n", msg);
	spin_lock(&cxlv_error_lock);
	strscpy(cxlv_error, msg, sizeof(cxlv_error));
	spin_unlock(&cxlv_error_lock);
}

void cxlv_clear_error(void)
{
	spin_lock(&cxlv_error_lock);
	cxlv_error[0] = '\0';
	spin_unlock(&cxlv_error_lock);
}

/* The reason and a newline, or an empty line after a success. */
ssize_t cxlv_show_error(char *buf, size_t size)
{
	ssize_t n;

	spin_lock(&cxlv_error_lock);
	n = scnprintf(buf, size, "%s\n", cxlv_error);
	spin_unlock(&cxlv_error_lock);
	return n;
}

/**
 * cxlv_names_add() - add one name to a list
 * @n: the list
 * @fmt: printf-style name
 */
void cxlv_names_add(struct cxlv_names *n, const char *fmt, ...)
{
	va_list args;

	if (n->len)
		n->len += scnprintf(n->buf + n->len, PAGE_SIZE - n->len, ", ");
	va_start(args, fmt);
	n->len += vscnprintf(n->buf + n->len, PAGE_SIZE - n->len, fmt, args);
	va_end(args);
}

/* SPDX-License-Identifier: GPL-2.0-only */
/* User-space stand-in for is_power_of_2() of <linux/log2.h>. */
#ifndef CXLV_SHIM_LINUX_LOG2_H
#define CXLV_SHIM_LINUX_LOG2_H

#include <stdbool.h>

static inline bool is_power_of_2(unsigned long n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

#endif

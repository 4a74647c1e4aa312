/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * User-space stand-in for the parts of <linux/kernel.h> the parser uses:
 * snprintf (libc's has the kernel's semantics for %s, %.*s, %llu: it always
 * terminates and truncates), BIT(), ARRAY_SIZE() and the type-checked
 * min_t().
 */
#ifndef CXLV_SHIM_LINUX_KERNEL_H
#define CXLV_SHIM_LINUX_KERNEL_H

#include <stdio.h>

#include <linux/types.h>

#define BIT(nr) (1UL << (nr))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define min_t(type, x, y) ({		\
	type __min1 = (x);		\
	type __min2 = (y);		\
	__min1 < __min2 ? __min1 : __min2; })

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * User-space stand-in for <linux/errno.h>. glibc's numbers are the kernel's
 * on Linux; the asserts make sure of it for every errno the parser returns,
 * so an errno compared in the VM means the same as in the harness.
 */
#ifndef CXLV_SHIM_LINUX_ERRNO_H
#define CXLV_SHIM_LINUX_ERRNO_H

/* the UAPI numbers, then libc's names for them */
#include_next <linux/errno.h>
#include <errno.h>

_Static_assert(EINVAL == 22, "EINVAL differs from the kernel's");
_Static_assert(ERANGE == 34, "ERANGE differs from the kernel's");
_Static_assert(ENODATA == 61, "ENODATA differs from the kernel's");
_Static_assert(ENOTUNIQ == 76, "ENOTUNIQ differs from the kernel's");
_Static_assert(EOPNOTSUPP == 95, "EOPNOTSUPP differs from the kernel's");

#endif

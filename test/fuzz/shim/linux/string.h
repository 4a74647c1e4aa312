/* SPDX-License-Identifier: GPL-2.0-only */
/* User-space stand-in for <linux/string.h>: memchr, memcmp, strlen. */
#ifndef CXLV_SHIM_LINUX_STRING_H
#define CXLV_SHIM_LINUX_STRING_H

#include <string.h>

#endif

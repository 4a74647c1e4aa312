/* SPDX-License-Identifier: GPL-2.0-only */
/* User-space stand-in for <linux/types.h>: the fixed-width kernel types. */
#ifndef CXLV_SHIM_LINUX_TYPES_H
#define CXLV_SHIM_LINUX_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

#endif

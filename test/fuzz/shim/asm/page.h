/* SPDX-License-Identifier: GPL-2.0-only */
/* User-space stand-in for <asm/page.h>: x86-64's 4 KiB base page. */
#ifndef CXLV_SHIM_ASM_PAGE_H
#define CXLV_SHIM_ASM_PAGE_H

#define PAGE_SIZE 4096UL

#endif

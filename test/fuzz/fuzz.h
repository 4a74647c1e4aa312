/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cxl_virt control-file fuzzing: what the generator, the guest writer and
 * the user-space harness share.
 *
 * A corpus file is the magic line CXLV_FUZZ_MAGIC followed by records:
 * u8 kind ('c' create, 'r' remove), u8 flags, u16 expect, u32 len, then len
 * bytes written as they are (NULs included), all little-endian.
 *
 * A template record (CXLV_REC_TEMPLATE) holds placeholders %NAME%,
 * %NAME+M%, %NAME-M% (M in MiB) with an optional ":d" before the closing %
 * for decimal (hex otherwise), filled in the guest from /proc/iomem (the
 * kernel image is placed at random on every boot).
 *
 * @expect is the set of errnos (CXLV_EXP_*) the kernel may return when the
 * parser accepts the text, i.e. what the range checks must say. When the
 * parser rejects it the kernel must return the parser's own errno.
 */
#ifndef CXLV_FUZZ_H
#define CXLV_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CXLV_FUZZ_MAGIC "CXLVFUZZ1\n"
#define CXLV_FUZZ_MAX_LEN 12288

#define CXLV_REC_TEMPLATE 0x1

enum {
	CXLV_EXP_EINVAL = 1 << 0,	/* memstart not 1 MiB aligned */
	CXLV_EXP_ENOSPC = 1 << 1,	/* under 256 MiB after metadata */
	CXLV_EXP_EBUSY = 1 << 2,	/* System RAM or in use */
	CXLV_EXP_EADDRNOTAVAIL = 1 << 3, /* not all reserved */
	CXLV_EXP_EEXIST = 1 << 4,	/* another cxlv device */
	CXLV_EXP_ENODEV = 1 << 5,	/* remove: no such device */
};

/* Any verdict of the range checks. */
#define CXLV_EXP_ANY_RANGE (CXLV_EXP_EINVAL | CXLV_EXP_ENOSPC | \
			    CXLV_EXP_EBUSY | CXLV_EXP_EADDRNOTAVAIL | \
			    CXLV_EXP_EEXIST)

struct cxlv_rec {
	char kind;
	uint8_t flags;
	uint16_t expect;
	uint32_t len;
	char buf[CXLV_FUZZ_MAX_LEN];
};

/* Record @index of the corpus for @seed: a pure function of both. */
void cxlv_fuzz_generate(uint64_t seed, uint64_t index, struct cxlv_rec *r);

/* A placeholder's value, e.g. { "KCODE", 0x2ec00000 }. */
struct cxlv_var {
	const char *name;
	uint64_t value;
};

/*
 * Copies @in to @out with every placeholder filled in; an offset that
 * would cross 0 clamps to 0. Return: 0, or -1 naming an unknown variable
 * in @err.
 */
int cxlv_fuzz_render(const struct cxlv_rec *in, struct cxlv_rec *out,
		     const struct cxlv_var *vars, int nr_vars,
		     char *err, size_t err_len);

/*
 * Reads the next record of a seed corpus (test/fuzz/corpus/): lines
 * "c|r EXPECT TEXT" where EXPECT is OK or an errno name and TEXT has the C
 * escapes \n \t \r \0 \\ \xHH; '#' lines and blank lines are skipped.
 * Return: 1 with a record, 0 at the end, -1 on a malformed line.
 */
int cxlv_seed_next(FILE *f, struct cxlv_rec *r, int *expect_errno,
		   unsigned int *lineno);

/* Writes @r to @f in the corpus format; reads one back (1, 0 at EOF). */
int cxlv_rec_write(FILE *f, const struct cxlv_rec *r);
int cxlv_rec_read(FILE *f, struct cxlv_rec *r);

/* The errno of a CXLV_EXP_* bit, and its name; 0/NULL for none. */
int cxlv_exp_errno(unsigned int bit);
const char *cxlv_errno_name(int err);

#endif

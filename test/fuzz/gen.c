// SPDX-License-Identifier: GPL-2.0-only
/*
 * The create/remove string generator: record i of seed s is a pure function
 * of (s, i), so any failing string can be regenerated from its number.
 *
 * Classes: random bytes and grammar soup; well-formed requests made
 * overlong (beyond a page), cut by embedded NULs, with a key missing,
 * repeated or misspelled, with overflowing, negative, signed, suffixed or
 * empty numbers in decimal and hex; and well-formed requests over System
 * RAM, over the kernel image, over the live device, over unreserved
 * addresses, unaligned or too small. Remove strings likewise.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "fuzz.h"
#include "../../kmod/common/cxlv_parse.h"

#define MIB (1ULL << 20)
#define GIB (1ULL << 30)

struct rng {
	uint64_t s;
};

/* splitmix64: tiny, well mixed, identical everywhere */
static uint64_t next(struct rng *g)
{
	uint64_t z = (g->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t below(struct rng *g, uint64_t n)
{
	return n ? next(g) % n : 0;
}

static bool coin(struct rng *g, unsigned int percent)
{
	return below(g, 100) < percent;
}

static void put(struct cxlv_rec *r, const char *s, size_t n)
{
	if (n > CXLV_FUZZ_MAX_LEN - r->len)
		n = CXLV_FUZZ_MAX_LEN - r->len;
	memcpy(r->buf + r->len, s, n);
	r->len += n;
}

static void puts_(struct cxlv_rec *r, const char *s)
{
	put(r, s, strlen(s));
}

static void putc_(struct cxlv_rec *r, char c)
{
	put(r, &c, 1);
}

/* A number in decimal, 0x-hex or 0X-HEX, sometimes with leading zeros. */
static void put_num(struct rng *g, struct cxlv_rec *r, uint64_t v)
{
	char s[64];

	switch (below(g, 4)) {
	case 0:
		snprintf(s, sizeof(s), "%#llx", (unsigned long long)v);
		if (!v)
			snprintf(s, sizeof(s), "0x0");
		break;
	case 1:
		snprintf(s, sizeof(s), "0X%llX", (unsigned long long)v);
		break;
	case 2:
		snprintf(s, sizeof(s), "%0*llu", (int)below(g, 24),
			 (unsigned long long)v);
		break;
	default:
		snprintf(s, sizeof(s), "%llu", (unsigned long long)v);
	}
	puts_(r, s);
}

static const char *const create_keys[] = {
	"memstart", "memsize", "cxltype", "pmem", "serial",
	"read_latency", "write_latency", "read_bandwidth", "write_bandwidth",
	"ways", "host_bridges", "granularity",
};

/* K_SERIAL and after are optional; K_RLAT..K_WBW are the CDAT figures */
enum { K_START, K_SIZE, K_TYPE, K_PMEM, K_SERIAL, K_RLAT, K_WLAT, K_RBW,
       K_WBW, K_WAYS, K_HBS, K_GRAN, NR_K };

/* The value of one key: literal, or a template text when set. */
struct field {
	uint64_t v;
	const char *tmpl;
	bool skip;
	int repeat;		/* extra copies */
	const char *name;	/* a misspelling, when set */
	const char *raw;	/* a bad value, when set */
};

static void put_sep(struct rng *g, struct cxlv_rec *r)
{
	static const char *const seps[] = { ",", ",", ",", "\n", ",\n",
					    " , ", "\t,", ",,", "\r\n" };

	puts_(r, seps[below(g, sizeof(seps) / sizeof(seps[0]))]);
}

/* Renders the fields in a random order with random separators. */
static void put_request(struct rng *g, struct cxlv_rec *r, struct field *f,
			int n, const char *const *keys)
{
	int order[NR_K * 4], cnt = 0, i, j;

	for (i = 0; i < n; i++)
		for (j = 0; !f[i].skip && j <= f[i].repeat; j++)
			order[cnt++] = i;
	for (i = cnt - 1; i > 0; i--) {
		int k = below(g, i + 1), t = order[i];

		order[i] = order[k];
		order[k] = t;
	}
	if (coin(g, 10))
		puts_(r, coin(g, 50) ? " " : "\n");
	for (i = 0; i < cnt; i++) {
		struct field *x = &f[order[i]];

		if (i)
			put_sep(g, r);
		puts_(r, x->name ? x->name : keys[order[i]]);
		putc_(r, '=');
		if (x->raw)
			puts_(r, x->raw);
		else if (x->tmpl)
			puts_(r, x->tmpl);
		else
			put_num(g, r, x->v);
	}
	if (coin(g, 40))
		putc_(r, '\n');
}

/* A create request's fields over [start, start + size). */
static void fields_for(struct rng *g, struct field *f, uint64_t start,
		       uint64_t size)
{
	memset(f, 0, sizeof(*f) * NR_K);
	f[K_START].v = start;
	f[K_SIZE].v = size;
	f[K_TYPE].v = 3;
	f[K_PMEM].v = below(g, 2);
	f[K_SERIAL].v = 1 + below(g, UINT64_MAX - 1);
	f[K_SERIAL].skip = coin(g, 60);
	for (int k = K_RLAT; k <= K_WBW; k++) {
		f[k].v = coin(g, 20) ? CXLV_PERF_MAX - below(g, 2) :
				       1 + below(g, CXLV_PERF_MAX);
		f[k].skip = coin(g, 50);
	}
	/* a plain device: what the range checks answer stays the same */
	f[K_WAYS].v = 1;
	f[K_WAYS].skip = coin(g, 80);
	f[K_HBS].v = 1;
	f[K_HBS].skip = coin(g, 80);
	f[K_GRAN].v = 4096;
	f[K_GRAN].skip = true;
}

/* Interleave values the parser refuses (EINVAL), one key or a pair. */
static void bad_interleave(struct rng *g, struct field *f)
{
	static const uint64_t ways[] = { 0, 3, 5, 6, 12, 16, 64, UINT32_MAX };
	static const uint64_t hbs[] = { 0, 3, 8, 16 };
	static const uint64_t grans[] = { 0, 1, 128, 255, 257, 1000, 3072,
					  32768, 65536, UINT32_MAX };

	f[K_WAYS].v = 1ULL << below(g, 4);
	f[K_WAYS].skip = false;
	switch (below(g, 5)) {
	case 0:
		f[K_WAYS].v = ways[below(g, sizeof(ways) / sizeof(ways[0]))];
		break;
	case 1:
		f[K_HBS].v = hbs[below(g, sizeof(hbs) / sizeof(hbs[0]))];
		f[K_HBS].skip = false;
		break;
	case 2:			/* more host bridges than ways */
		f[K_WAYS].v = 1ULL << below(g, 2);
		f[K_HBS].v = f[K_WAYS].v * 2 << below(g, 2);
		if (f[K_HBS].v > 4)
			f[K_HBS].v = 4;
		f[K_HBS].skip = false;
		break;
	case 3:
		f[K_WAYS].v = 2ULL << below(g, 3);
		f[K_GRAN].v = grans[below(g, sizeof(grans) / sizeof(grans[0]))];
		f[K_GRAN].skip = false;
		break;
	default:		/* an x1 device does not interleave */
		f[K_WAYS].v = 1;
		f[K_WAYS].skip = coin(g, 50);
		f[K_GRAN].v = 256ULL << below(g, 7);
		f[K_GRAN].skip = false;
	}
}

/* A 1 MiB aligned start in low System RAM (below 1.5 GiB). */
static uint64_t ram_start(struct rng *g)
{
	return below(g, 1536) * MIB;
}

static uint64_t big_size(struct rng *g)
{
	return 768 * MIB + below(g, 8 * GIB / MIB) * MIB + below(g, 2) * below(g, MIB);
}

static uint64_t small_size(struct rng *g)
{
	return 1 + below(g, 256 * MIB);
}

static const char *const bad_numbers[] = {
	"18446744073709551616", "18446744073709551615999",
	"99999999999999999999999999999", "0x10000000000000000",
	"0xffffffffffffffffff", "0X1FFFFFFFFFFFFFFFF", "-1", "-0",
	"-4294967296", "+1", "+0x10", "0x", "0X", "0x-1", "0xg", "1e9", "1G",
	"256M", "1 024", "0b101", "0o7", "12abc", "abc", "", "=", "==3",
	"0x0x10", "\xff\xfe", "1.5", "4294967296", "4294967295", "0x3 3",
	"3\t3", "--3", "0x1p4", "1_000", "\x7f",
};

/* A well-formed create; the caller then damages it. */
static void damaged_create(struct rng *g, struct cxlv_rec *r, int how)
{
	struct field f[NR_K];
	int k = below(g, NR_K), n;
	char name[32];

	fields_for(g, f, ram_start(g), big_size(g));
	r->expect = CXLV_EXP_ANY_RANGE;
	switch (how) {
	case 0:			/* keys missing */
		for (n = 1 + below(g, 3); n > 0; n--)
			f[below(g, K_SERIAL)].skip = true;
		break;
	case 1:			/* a key repeated */
		f[k].skip = false;
		f[k].repeat = 1 + below(g, 3);
		break;
	case 2: {		/* a key misspelled */
		size_t len = strlen(create_keys[k]), at = below(g, len);

		snprintf(name, sizeof(name), "%s", create_keys[k]);
		switch (below(g, 6)) {
		case 0:
			name[at] = 'a' + below(g, 26);
			break;
		case 1:
			name[at] ^= 0x20;	/* case flip */
			break;
		case 2:
			memmove(name + at, name + at + 1, len - at);
			break;
		case 3:
			snprintf(name, sizeof(name), "%s%c", create_keys[k],
				 "s_ x-"[below(g, 5)]);
			break;
		case 4:
			snprintf(name, sizeof(name), "%c%s",
				 "x_-"[below(g, 3)], create_keys[k]);
			break;
		default:
			snprintf(name, sizeof(name), "%.*s \t%s", (int)at,
				 create_keys[k], create_keys[k] + at);
		}
		f[k].skip = false;
		f[k].name = name;
		break;
	}
	case 5:			/* interleave values out of bounds */
		bad_interleave(g, f);
		break;
	case 3: {		/* another device type */
		static const uint64_t types[] = { 0, 1, 2, 4, 255, UINT32_MAX };

		f[K_TYPE].v = types[below(g, sizeof(types) / sizeof(types[0]))];
		break;
	}
	case 4: {		/* a figure of 0 or past its 16-bit CDAT field */
		static const uint64_t figs[] = { 0, CXLV_PERF_MAX + 1, 0xffff,
						 0x10000, UINT32_MAX };

		k = K_RLAT + below(g, K_WBW - K_RLAT + 1);
		f[k].skip = false;
		f[k].v = figs[below(g, sizeof(figs) / sizeof(figs[0]))];
		break;
	}
	default:		/* a bad number */
		f[k].skip = false;
		f[k].raw = bad_numbers[below(g, sizeof(bad_numbers) /
					       sizeof(bad_numbers[0]))];
	}
	put_request(g, r, f, NR_K, create_keys);
}

/* Template texts for placeholders filled in by the guest. */
static void tmpl(char *s, size_t n, const char *name, char sign,
		 uint64_t off, bool dec)
{
	snprintf(s, n, "%%%s%c%llu%s%%", name, sign, (unsigned long long)off,
		 dec ? ":d" : "");
}

/* A request over a known range; sets the exact expected errno. */
static void range_create(struct rng *g, struct cxlv_rec *r, int where)
{
	struct field f[NR_K];
	char start[64], size[64];
	uint64_t k = below(g, 256);

	fields_for(g, f, ram_start(g), big_size(g));
	switch (where) {
	case 0:			/* System RAM; unaligned; too small */
		r->expect = CXLV_EXP_EBUSY;
		if (coin(g, 25)) {
			f[K_START].v += 1 + below(g, MIB - 1);
			r->expect = CXLV_EXP_EINVAL;
		} else if (coin(g, 25)) {
			f[K_SIZE].v = small_size(g);
			r->expect = CXLV_EXP_ENOSPC;
		}
		break;
	case 1:			/* around and over the kernel image */
		tmpl(start, sizeof(start), "KCODE", '-', below(g, 64) * MIB,
		     coin(g, 50));
		f[K_START].tmpl = start;
		r->expect = CXLV_EXP_EBUSY;
		if (coin(g, 20)) {
			tmpl(start, sizeof(start), "KCODE", '+',
			     1 + below(g, MIB - 1), coin(g, 50));
			r->expect = CXLV_EXP_EINVAL;
		}
		break;
	case 2:			/* over the live device, or past its end */
		tmpl(start, sizeof(start), "DEV", '+', k * MIB, coin(g, 50));
		tmpl(size, sizeof(size), "DEVSIZE", '-', k * MIB, true);
		f[K_START].tmpl = start;
		f[K_SIZE].tmpl = size;
		r->expect = CXLV_EXP_EEXIST;
		if (coin(g, 30)) {
			tmpl(size, sizeof(size), "DEVSIZE", '+',
			     (1 + below(g, 4096)) * MIB, true);
			r->expect = CXLV_EXP_EADDRNOTAVAIL;
		} else if (coin(g, 20)) {
			snprintf(size, sizeof(size), "%llu",
				 (unsigned long long)small_size(g));
			r->expect = CXLV_EXP_ENOSPC;
		}
		break;
	case 3:			/* nothing there at all */
		tmpl(start, sizeof(start), "HOLE", '+', below(g, 4096) * MIB,
		     coin(g, 50));
		f[K_START].tmpl = start;
		r->expect = CXLV_EXP_EADDRNOTAVAIL;
		break;
	default:		/* anywhere, as long as it does not wrap */
		f[K_START].v = next(g) >> below(g, 64) & ~(MIB - 1);
		f[K_SIZE].v = 1 + below(g, UINT64_MAX - f[K_START].v);
		if (coin(g, 50))
			f[K_SIZE].v >>= below(g, 64);
		if (!f[K_SIZE].v)
			f[K_SIZE].v = 1;
		r->expect = CXLV_EXP_ANY_RANGE;
	}
	if (f[K_START].tmpl || f[K_SIZE].tmpl)
		r->flags |= CXLV_REC_TEMPLATE;
	put_request(g, r, f, NR_K, create_keys);
}

static void random_bytes(struct rng *g, struct cxlv_rec *r, bool grammar)
{
	static const char alphabet[] = "memstartsizecxltypepmerialcxlv_dev_id"
				       "=,=,\n\t 0123456789xXabcdef-+";
	uint64_t n = below(g, 10) ? below(g, 300) : below(g, 6000);

	while (n--)
		putc_(r, grammar ? alphabet[below(g, sizeof(alphabet) - 1)] :
				   (char)next(g));
}

/* Pads a well-formed request past a page, or makes one number huge. */
static void overlong(struct rng *g, struct cxlv_rec *r, char kind)
{
	uint64_t n = 4096 + below(g, 5000);
	struct cxlv_rec tail;

	tail.len = 0;
	/* never a leading zero: cut at a page, it would read as id 0 */
	if (kind == 'r' && coin(g, 50)) {
		puts_(r, "cxlv_dev_id=");
		putc_(r, '1' + below(g, 9));
		while (r->len < n)
			putc_(r, '0');
		return;
	}
	if (kind == 'r') {
		while (r->len < n)
			putc_(r, " ,\n\t"[below(g, 4)]);
		puts_(r, "cxlv_dev_id=");
		putc_(r, '1' + below(g, 9));
		return;
	}
	switch (below(g, 3)) {
	case 0:			/* blanks and separators first */
		while (r->len < n)
			putc_(r, " ,\n\t"[below(g, 4)]);
		break;
	case 1:			/* leading zeros in memstart */
		puts_(r, "memstart=");
		while (r->len < n)
			putc_(r, '0');
		puts_(r, "16777216,");
		break;
	default:		/* junk after a complete request */
		break;
	}
	range_create(g, &tail, 0);
	put(r, tail.buf, tail.len);
	r->expect = CXLV_EXP_ANY_RANGE;
	while (r->len < n)
		putc_(r, "x,= "[below(g, 4)]);
}

static void nul_cut(struct rng *g, struct cxlv_rec *r)
{
	uint32_t at;

	/* a NUL inside a placeholder would leave it unrendered */
	if (!r->len || (r->flags & CXLV_REC_TEMPLATE) || coin(g, 30)) {
		put(r, "\0\0\0", 1 + below(g, 3));
		return;
	}
	at = below(g, r->len);
	r->expect = r->kind == 'c' ? CXLV_EXP_ANY_RANGE : CXLV_EXP_ENODEV;
	if (coin(g, 50))
		r->buf[at] = '\0';
	else if (r->len < CXLV_FUZZ_MAX_LEN) {
		memmove(r->buf + at + 1, r->buf + at, r->len - at);
		r->buf[at] = '\0';
		r->len++;
	}
}

static void gen_create(struct rng *g, struct cxlv_rec *r)
{
	uint64_t c = below(g, 100);

	r->expect = CXLV_EXP_ANY_RANGE;
	if (c < 10)
		random_bytes(g, r, c < 5);
	else if (c < 15)
		overlong(g, r, 'c');
	else if (c < 60)
		damaged_create(g, r, below(g, 6));
	else
		range_create(g, r, below(g, 5));
	if (c >= 15 && coin(g, 8))
		nul_cut(g, r);
}

static void gen_remove(struct rng *g, struct cxlv_rec *r)
{
	static const char *const bad[] = {
		"cxlv_dev_id", "cxlv_dev_id=", "id=1", "cxlv_dev_ID=1",
		"cxlv-dev-id=1", "cxlv_dev_id==1", "memstart=1", "cxlv_dev_id=-1",
		"cxlv_dev_id=2147483648", "cxlv_dev_id=4294967296",
		"cxlv_dev_id=0x80000000", "cxlv_dev_id=18446744073709551616",
		"cxlv_dev_id=1,cxlv_dev_id=2", "cxlv_dev_id=1x", "\n", ",,,",
		" \t ", "cxlv_dev_id=+1", "cxlv_dev_id=1 2", "cxlv0",
	};
	uint64_t c = below(g, 100);
	struct field f = { .v = 1 + below(g, INT32_MAX) };
	static const char *const key[] = { "cxlv_dev_id" };

	r->expect = CXLV_EXP_ENODEV;
	if (c < 15)
		random_bytes(g, r, c < 8);
	else if (c < 20)
		overlong(g, r, 'r');
	else if (c < 50)
		puts_(r, bad[below(g, sizeof(bad) / sizeof(bad[0]))]);
	else
		put_request(g, r, &f, 1, key);
	if (coin(g, 10))
		nul_cut(g, r);
}

void cxlv_fuzz_generate(uint64_t seed, uint64_t index, struct cxlv_rec *r)
{
	struct rng g = { seed * 0x2545f4914f6cdd1dULL ^ index };
	char why[128];
	uint32_t id;
	bool release;

	next(&g);
	r->flags = 0;
	r->len = 0;
	r->kind = coin(&g, 70) ? 'c' : 'r';
	if (r->kind == 'c') {
		gen_create(&g, r);
		return;
	}
	gen_remove(&g, r);
	/* never remove the live device, cxlv0, even through sysfs's first page */
	if ((!cxlv_parse_remove(r->buf, r->len, &id, &release, why,
				sizeof(why)) && !id) ||
	    (!cxlv_parse_remove(r->buf, r->len < 4096 ? r->len : 4096, &id,
				&release, why, sizeof(why)) && !id)) {
		r->len = 0;
		puts_(r, "cxlv_dev_id=");
		put_num(&g, r, 1 + below(&g, INT32_MAX));
	}
}

int cxlv_exp_errno(unsigned int bit)
{
	switch (bit) {
	case CXLV_EXP_EINVAL: return EINVAL;
	case CXLV_EXP_ENOSPC: return ENOSPC;
	case CXLV_EXP_EBUSY: return EBUSY;
	case CXLV_EXP_EADDRNOTAVAIL: return EADDRNOTAVAIL;
	case CXLV_EXP_EEXIST: return EEXIST;
	case CXLV_EXP_ENODEV: return ENODEV;
	}
	return 0;
}

const char *cxlv_errno_name(int err)
{
	switch (err) {
	case 0: return "OK";
	case EINVAL: return "EINVAL";
	case ENOSPC: return "ENOSPC";
	case EBUSY: return "EBUSY";
	case EADDRNOTAVAIL: return "EADDRNOTAVAIL";
	case EEXIST: return "EEXIST";
	case ENODEV: return "ENODEV";
	case ERANGE: return "ERANGE";
	case ENODATA: return "ENODATA";
	case ENOTUNIQ: return "ENOTUNIQ";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case E2BIG: return "E2BIG";
	case EMFILE: return "EMFILE";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case ENOMEM: return "ENOMEM";
	}
	return NULL;
}

// SPDX-License-Identifier: GPL-2.0-only
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/log2.h>
#include <linux/string.h>
#include <asm/page.h>

#include "cxlv_parse.h"

/**
 * DOC: cxl_virt control-file parsers
 *
 * Turns the text written to the create and remove files into a request, or
 * into an errno plus a one-line reason (see cxlv_parse.h for the grammar and
 * the errno of each class). Pure functions of their input: no allocation, no
 * locking, no global state, so a user-space harness can build this file.
 */

enum cxlv_key {
	CXLV_KEY_MEMSTART,
	CXLV_KEY_MEMSIZE,
	CXLV_KEY_CXLTYPE,
	CXLV_KEY_PMEM,
	CXLV_KEY_SERIAL,
	CXLV_KEY_DEV_ID,
	CXLV_KEY_BORROW,
	CXLV_KEY_RELEASE,
	CXLV_KEY_READ_LAT,
	CXLV_KEY_WRITE_LAT,
	CXLV_KEY_READ_BW,
	CXLV_KEY_WRITE_BW,
	CXLV_KEY_WAYS,
	CXLV_KEY_HOST_BRIDGES,
	CXLV_KEY_GRANULARITY,
	CXLV_KEY_POS,
	CXLV_KEY_RECORD,
	CXLV_KEY_LOG,
	CXLV_KEY_DPA,
	CXLV_KEY_DESCRIPTOR,
	CXLV_KEY_EVENT_TYPE,
	CXLV_KEY_TRANSACTION,
	CXLV_KEY_COUNT,
	CXLV_KEY_FW_SLOTS,
	CXLV_KEY_FW_REV,
	CXLV_KEY_RAM_SIZE,
	CXLV_KEY_LIFE_USED,
	CXLV_KEY_TEMPERATURE,
	CXLV_KEY_VOLATILE_ERRORS,
	CXLV_KEY_PERSISTENT_ERRORS,
	CXLV_KEY_HEALTH_STATUS,
	CXLV_KEY_MEDIA_STATUS,
	CXLV_KEY_QOS_CLASS,
	CXLV_KEY_AUTO_REGION,
	CXLV_KEY_LOCKED,
	CXLV_NR_KEYS,
};

static const char * const cxlv_key_names[CXLV_NR_KEYS] = {
	[CXLV_KEY_MEMSTART] = "memstart",
	[CXLV_KEY_MEMSIZE] = "memsize",
	[CXLV_KEY_CXLTYPE] = "cxltype",
	[CXLV_KEY_PMEM] = "pmem",
	[CXLV_KEY_SERIAL] = "serial",
	[CXLV_KEY_DEV_ID] = "cxlv_dev_id",
	[CXLV_KEY_BORROW] = "borrow",
	[CXLV_KEY_RELEASE] = "release",
	[CXLV_KEY_READ_LAT] = "read_latency",
	[CXLV_KEY_WRITE_LAT] = "write_latency",
	[CXLV_KEY_READ_BW] = "read_bandwidth",
	[CXLV_KEY_WRITE_BW] = "write_bandwidth",
	[CXLV_KEY_WAYS] = "ways",
	[CXLV_KEY_HOST_BRIDGES] = "host_bridges",
	[CXLV_KEY_GRANULARITY] = "granularity",
	[CXLV_KEY_POS] = "pos",
	[CXLV_KEY_RECORD] = "record",
	[CXLV_KEY_LOG] = "log",
	[CXLV_KEY_DPA] = "dpa",
	[CXLV_KEY_DESCRIPTOR] = "descriptor",
	[CXLV_KEY_EVENT_TYPE] = "event_type",
	[CXLV_KEY_TRANSACTION] = "transaction",
	[CXLV_KEY_COUNT] = "count",
	[CXLV_KEY_FW_SLOTS] = "fw_slots",
	[CXLV_KEY_FW_REV] = "fw_rev",
	[CXLV_KEY_RAM_SIZE] = "ram_size",
	[CXLV_KEY_LIFE_USED] = "life_used",
	[CXLV_KEY_TEMPERATURE] = "temperature",
	[CXLV_KEY_VOLATILE_ERRORS] = "volatile_errors",
	[CXLV_KEY_PERSISTENT_ERRORS] = "persistent_errors",
	[CXLV_KEY_HEALTH_STATUS] = "health_status",
	[CXLV_KEY_MEDIA_STATUS] = "media_status",
	[CXLV_KEY_QOS_CLASS] = "qos_class",
	[CXLV_KEY_AUTO_REGION] = "auto_region",
	[CXLV_KEY_LOCKED] = "locked",
};

/* Keys whose value is text, not a number: handed back as tokens. */
#define CXLV_TEXT_KEYS	BIT(CXLV_KEY_FW_REV)

/* The performance figures, in the order of struct cxlv_perf. */
static const struct {
	int key;
	u32 def;
	const char *unit;
} cxlv_perf_keys[] = {
	{ CXLV_KEY_READ_LAT, CXLV_PERF_DEFAULT_READ_LAT, "ns" },
	{ CXLV_KEY_WRITE_LAT, CXLV_PERF_DEFAULT_WRITE_LAT, "ns" },
	{ CXLV_KEY_READ_BW, CXLV_PERF_DEFAULT_READ_BW, "MB/s" },
	{ CXLV_KEY_WRITE_BW, CXLV_PERF_DEFAULT_WRITE_BW, "MB/s" },
};

/* One key=value pair, pointing into the caller's buffer. */
struct cxlv_token {
	const char *key;
	size_t key_len;
	const char *val;
	size_t val_len;
};

static bool cxlv_is_sep(char c)
{
	return c == ',' || c == '\n';
}

static bool cxlv_is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static int cxlv_digit(char c, unsigned int base)
{
	int d;

	if (c >= '0' && c <= '9')
		d = c - '0';
	else if (c >= 'a' && c <= 'f')
		d = c - 'a' + 10;
	else if (c >= 'A' && c <= 'F')
		d = c - 'A' + 10;
	else
		return -1;
	return d < (int)base ? d : -1;
}

/* Decimal or 0x-hex, no sign, no suffix; -ERANGE above @max. */
static int cxlv_parse_number(const char *s, size_t n, u64 max, u64 *out)
{
	unsigned int base = 10;
	u64 v = 0;
	size_t i;

	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		n -= 2;
	}
	if (!n)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		int d = cxlv_digit(s[i], base);

		if (d < 0)
			return -EINVAL;
		/* d > max first: max - d must not wrap for a small max */
		if ((u64)d > max || v > (max - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

/* Cuts the next non-empty token off *pos; returns false at the end. */
static bool cxlv_next_token(const char **pos, const char *end,
			    const char **tok, size_t *tok_len)
{
	const char *p = *pos, *start, *stop;

	for (;;) {
		while (p < end && (cxlv_is_sep(*p) || cxlv_is_blank(*p)))
			p++;
		if (p >= end)
			return false;
		start = p;
		while (p < end && !cxlv_is_sep(*p))
			p++;
		stop = p;
		while (stop > start && cxlv_is_blank(stop[-1]))
			stop--;
		if (stop > start)
			break;
	}
	*pos = p;
	*tok = start;
	*tok_len = stop - start;
	return true;
}

static int cxlv_split(const char *tok, size_t len, struct cxlv_token *t,
		      char *why, size_t why_len)
{
	const char *eq = memchr(tok, '=', len);

	if (!eq || eq == tok || eq == tok + len - 1) {
		snprintf(why, why_len,
			 "malformed option '%.*s': expected key=value",
			 (int)min_t(size_t, len, 32), tok);
		return -EINVAL;
	}
	t->key = tok;
	t->key_len = eq - tok;
	t->val = eq + 1;
	t->val_len = tok + len - t->val;
	return 0;
}

static int cxlv_lookup_key(const struct cxlv_token *t, unsigned long allowed)
{
	int k;

	for (k = 0; k < CXLV_NR_KEYS; k++) {
		if (!(allowed & BIT(k)))
			continue;
		if (strlen(cxlv_key_names[k]) == t->key_len &&
		    !memcmp(cxlv_key_names[k], t->key, t->key_len))
			return k;
	}
	return -1;
}

static int cxlv_require(unsigned long seen, unsigned long required,
			char *why, size_t why_len)
{
	int k;

	for (k = 0; k < CXLV_NR_KEYS; k++) {
		if ((required & BIT(k)) && !(seen & BIT(k))) {
			snprintf(why, why_len, "missing option '%s='",
				 cxlv_key_names[k]);
			return -ENODATA;
		}
	}
	return 0;
}

/*
 * Trailing NULs, as some writers send, end the input; a NUL with anything
 * after it would hide that text from the parser, so it is refused.
 */
static int cxlv_strip_nul(const char *buf, size_t *len, char *why,
			  size_t why_len)
{
	const char *nul = memchr(buf, '\0', *len);
	size_t i;

	if (!nul)
		return 0;
	for (i = nul - buf; i < *len; i++) {
		if (buf[i]) {
			snprintf(why, why_len,
				 "NUL byte at offset %zu inside the request: write plain text",
				 (size_t)(nul - buf));
			return -EINVAL;
		}
	}
	*len = nul - buf;
	return 0;
}

/*
 * Walks all tokens, storing each allowed key's number in @vals, or its
 * token in @text for a text key, and marking it in @seen. Unknown, repeated
 * and unparsable keys stop the walk; then every @required key must have
 * been seen. @text may be NULL when @allowed has no text key.
 */
static int cxlv_parse_keys(const char *buf, size_t len, unsigned long allowed,
			   unsigned long required, const u64 *max, u64 *vals,
			   struct cxlv_token *text, unsigned long *seen,
			   char *why, size_t why_len)
{
	const char *pos = buf, *end, *tok;
	struct cxlv_token t;
	size_t tok_len;
	int k, rc;

	*seen = 0;
	rc = cxlv_strip_nul(buf, &len, why, why_len);
	if (rc)
		return rc;
	end = buf + len;
	while (cxlv_next_token(&pos, end, &tok, &tok_len)) {
		rc = cxlv_split(tok, tok_len, &t, why, why_len);
		if (rc)
			return rc;
		k = cxlv_lookup_key(&t, allowed);
		if (k < 0) {
			snprintf(why, why_len, "unknown option '%.*s'",
				 (int)min_t(size_t, t.key_len, 32), t.key);
			return -EINVAL;
		}
		if (*seen & BIT(k)) {
			snprintf(why, why_len, "option '%s' given twice",
				 cxlv_key_names[k]);
			return -EINVAL;
		}
		*seen |= BIT(k);
		if (BIT(k) & CXLV_TEXT_KEYS) {
			text[k] = t;
			continue;
		}
		rc = cxlv_parse_number(t.val, t.val_len, max[k], &vals[k]);
		if (rc == -ERANGE) {
			snprintf(why, why_len, "%s=%.*s is too large (max %llu)",
				 cxlv_key_names[k],
				 (int)min_t(size_t, t.val_len, 32), t.val,
				 (unsigned long long)max[k]);
			return rc;
		}
		if (rc) {
			snprintf(why, why_len,
				 "%s=%.*s is not a decimal or 0x-hex number",
				 cxlv_key_names[k],
				 (int)min_t(size_t, t.val_len, 32), t.val);
			return rc;
		}
	}
	return cxlv_require(*seen, required, why, why_len);
}

/* A 0/1 switch. */
static int cxlv_parse_flag(const u64 *vals, int k, char *why, size_t why_len)
{
	if (vals[k] <= 1)
		return 0;
	snprintf(why, why_len, "%s=%llu: use %s=0 or %s=1", cxlv_key_names[k],
		 (unsigned long long)vals[k], cxlv_key_names[k],
		 cxlv_key_names[k]);
	return -EINVAL;
}

/* What a borrow needs: whole 256 MiB pieces, at a 256 MiB boundary. */
static int cxlv_parse_borrow_range(const u64 *vals, unsigned long seen,
				   char *why, size_t why_len)
{
	if (vals[CXLV_KEY_MEMSIZE] % CXLV_BORROW_ALIGN) {
		snprintf(why, why_len,
			 "borrow=1: memsize=%llu is not a multiple of 256 MiB (%llu)",
			 (unsigned long long)vals[CXLV_KEY_MEMSIZE],
			 (unsigned long long)CXLV_BORROW_ALIGN);
		return -EINVAL;
	}
	if ((seen & BIT(CXLV_KEY_MEMSTART)) &&
	    vals[CXLV_KEY_MEMSTART] % CXLV_BORROW_ALIGN) {
		snprintf(why, why_len,
			 "borrow=1: memstart=%#llx is not 256 MiB aligned",
			 (unsigned long long)vals[CXLV_KEY_MEMSTART]);
		return -EINVAL;
	}
	return 0;
}

/*
 * The CDAT figures: given ones must be 1..CXLV_PERF_MAX (the upper bound
 * is checked while parsing), missing ones take their default.
 */
static int cxlv_parse_perf(u64 *vals, unsigned long seen,
			   struct cxlv_perf *perf, char *why, size_t why_len)
{
	u32 *out[] = { &perf->read_latency, &perf->write_latency,
		       &perf->read_bandwidth, &perf->write_bandwidth };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cxlv_perf_keys); i++) {
		int k = cxlv_perf_keys[i].key;

		if (!(seen & BIT(k))) {
			vals[k] = cxlv_perf_keys[i].def;
		} else if (!vals[k]) {
			snprintf(why, why_len,
				 "%s=0: give 1 to %u %s, or leave it out for %u",
				 cxlv_key_names[k], CXLV_PERF_MAX,
				 cxlv_perf_keys[i].unit, cxlv_perf_keys[i].def);
			return -EINVAL;
		}
		*out[i] = vals[k];
	}
	return 0;
}

/*
 * An interleave set: ways and host bridges from the lists CXL r3.0 9.13.1
 * allows for a platform (no 3, 6, 12 ways), host bridges dividing the ways
 * so that each has the same number of root ports, and a granularity the
 * kernel's region code accepts (CXL r3.0 8.2.4.19.7 IG: 256 B to 16 KiB),
 * also as the granularity x host bridges of a host bridge's decoder.
 */
static int cxlv_parse_interleave(const u64 *vals, unsigned long seen,
				 char *why, size_t why_len)
{
	u64 ways = vals[CXLV_KEY_WAYS], hbs = vals[CXLV_KEY_HOST_BRIDGES];
	u64 gran = vals[CXLV_KEY_GRANULARITY];

	if (!is_power_of_2(ways) || ways > CXLV_MAX_WAYS) {
		snprintf(why, why_len, "ways=%llu: use 1, 2, 4 or 8",
			 (unsigned long long)ways);
		return -EINVAL;
	}
	if (!is_power_of_2(hbs) || hbs > CXLV_MAX_HOST_BRIDGES) {
		snprintf(why, why_len, "host_bridges=%llu: use 1, 2 or 4",
			 (unsigned long long)hbs);
		return -EINVAL;
	}
	if (hbs > ways) {
		snprintf(why, why_len,
			 "host_bridges=%llu does not divide ways=%llu: each host bridge needs ways/host_bridges root ports",
			 (unsigned long long)hbs, (unsigned long long)ways);
		return -EINVAL;
	}
	if (!(seen & BIT(CXLV_KEY_GRANULARITY)))
		return 0;
	if (ways == 1) {
		snprintf(why, why_len,
			 "granularity=%llu needs ways > 1: an x1 set does not interleave",
			 (unsigned long long)gran);
		return -EINVAL;
	}
	if (!is_power_of_2(gran) || gran < CXLV_MIN_GRANULARITY ||
	    gran > CXLV_MAX_GRANULARITY) {
		snprintf(why, why_len,
			 "granularity=%llu: use a power of two from %u to %u",
			 (unsigned long long)gran, CXLV_MIN_GRANULARITY,
			 CXLV_MAX_GRANULARITY);
		return -EINVAL;
	}
	/* a host bridge of several root ports decodes at gran x hbs */
	if (hbs < ways && gran * hbs > CXLV_MAX_GRANULARITY) {
		snprintf(why, why_len,
			 "granularity=%llu with host_bridges=%llu: a host bridge with several root ports interleaves at granularity x host_bridges, at most %u; use granularity=%llu or less",
			 (unsigned long long)gran, (unsigned long long)hbs,
			 CXLV_MAX_GRANULARITY,
			 (unsigned long long)(CXLV_MAX_GRANULARITY / hbs));
		return -EINVAL;
	}
	return 0;
}

/*
 * The firmware slots and the factory revision, which Get FW Info reports
 * in 16 ASCII bytes (CXL r3.0 8.2.9.3.1): printable, so that what cxl list
 * shows is what was asked for.
 */
static int cxlv_parse_firmware(const u64 *vals, const struct cxlv_token *rev,
			       struct cxlv_params *p, char *why, size_t why_len)
{
	u64 slots = vals[CXLV_KEY_FW_SLOTS];
	size_t i;

	if (slots < CXLV_FW_MIN_SLOTS || slots > CXLV_FW_MAX_SLOTS) {
		snprintf(why, why_len, "fw_slots=%llu: use %u to %u",
			 (unsigned long long)slots, CXLV_FW_MIN_SLOTS,
			 CXLV_FW_MAX_SLOTS);
		return -EINVAL;
	}
	if (rev->val_len > CXLV_FW_REV_LEN) {
		snprintf(why, why_len,
			 "fw_rev=%.*s is longer than %u characters",
			 (int)min_t(size_t, rev->val_len, 32), rev->val,
			 CXLV_FW_REV_LEN);
		return -ERANGE;
	}
	for (i = 0; i < rev->val_len; i++) {
		if (rev->val[i] < 0x20 || rev->val[i] > 0x7e) {
			snprintf(why, why_len,
				 "fw_rev: byte %zu is not printable ASCII", i);
			return -EINVAL;
		}
	}
	p->fw_slots = slots;
	memset(p->fw_rev, 0, sizeof(p->fw_rev));
	memcpy(p->fw_rev, rev->val, rev->val_len);
	return 0;
}

/*
 * The volatile part of a persistent device, in steps of the Partition
 * Alignment (cxlv_partition.c) on each endpoint: a set's ram_size is the
 * sum of its endpoints' equal volatile parts. The module checks it against
 * the capacity, which the text alone does not decide.
 */
static int cxlv_parse_ram_size(const u64 *vals, unsigned long seen,
			       struct cxlv_params *p, char *why, size_t why_len)
{
	u64 ram = vals[CXLV_KEY_RAM_SIZE], ways = vals[CXLV_KEY_WAYS];

	p->ram_size = ram;
	p->ram_size_given = seen & BIT(CXLV_KEY_RAM_SIZE);
	if (!p->ram_size_given)
		return 0;
	if (!vals[CXLV_KEY_PMEM]) {
		snprintf(why, why_len,
			 "ram_size=%llu needs pmem=1: a pmem=0 device is all volatile already",
			 (unsigned long long)ram);
		return -EINVAL;
	}
	/* ways is 1, 2, 4 or 8 here (cxlv_parse_interleave()) */
	if (ram % (CXLV_PARTITION_ALIGN * ways)) {
		snprintf(why, why_len,
			 "ram_size=%llu is not a multiple of %llu endpoint(s) x the %llu MiB partition alignment",
			 (unsigned long long)ram, (unsigned long long)ways,
			 CXLV_PARTITION_ALIGN >> 20);
		return -EINVAL;
	}
	return 0;
}

/**
 * cxlv_parse_create() - parse a create request
 * @buf: the written text, not necessarily NUL-terminated
 * @len: bytes in @buf
 * @p: the request, valid only on success; serial is 0 when not given
 * @why: receives a one-line reason on failure
 * @why_len: size of @why
 *
 * Return: 0 or a negative errno as listed in cxlv_parse.h.
 */
int cxlv_parse_create(const char *buf, size_t len, struct cxlv_params *p,
		      char *why, size_t why_len)
{
	const unsigned long required = BIT(CXLV_KEY_MEMSIZE) |
		BIT(CXLV_KEY_CXLTYPE) | BIT(CXLV_KEY_PMEM);
	const unsigned long allowed = required | BIT(CXLV_KEY_MEMSTART) |
		BIT(CXLV_KEY_SERIAL) | BIT(CXLV_KEY_BORROW) |
		BIT(CXLV_KEY_READ_LAT) | BIT(CXLV_KEY_WRITE_LAT) |
		BIT(CXLV_KEY_READ_BW) | BIT(CXLV_KEY_WRITE_BW) |
		BIT(CXLV_KEY_WAYS) | BIT(CXLV_KEY_HOST_BRIDGES) |
		BIT(CXLV_KEY_GRANULARITY) | BIT(CXLV_KEY_FW_SLOTS) |
		BIT(CXLV_KEY_FW_REV) | BIT(CXLV_KEY_RAM_SIZE) |
		BIT(CXLV_KEY_QOS_CLASS) | BIT(CXLV_KEY_AUTO_REGION) |
		BIT(CXLV_KEY_LOCKED);
	const u64 max[CXLV_NR_KEYS] = {
		[CXLV_KEY_MEMSTART] = U64_MAX,
		[CXLV_KEY_MEMSIZE] = U64_MAX,
		[CXLV_KEY_CXLTYPE] = U32_MAX,
		[CXLV_KEY_PMEM] = U32_MAX,
		[CXLV_KEY_SERIAL] = U64_MAX,
		[CXLV_KEY_BORROW] = U32_MAX,
		[CXLV_KEY_READ_LAT] = CXLV_PERF_MAX,
		[CXLV_KEY_WRITE_LAT] = CXLV_PERF_MAX,
		[CXLV_KEY_READ_BW] = CXLV_PERF_MAX,
		[CXLV_KEY_WRITE_BW] = CXLV_PERF_MAX,
		[CXLV_KEY_WAYS] = U32_MAX,
		[CXLV_KEY_HOST_BRIDGES] = U32_MAX,
		[CXLV_KEY_GRANULARITY] = U32_MAX,
		[CXLV_KEY_FW_SLOTS] = U32_MAX,
		[CXLV_KEY_RAM_SIZE] = U64_MAX,
		[CXLV_KEY_QOS_CLASS] = CXLV_QOS_CLASS_MAX,
		[CXLV_KEY_AUTO_REGION] = U32_MAX,
		[CXLV_KEY_LOCKED] = U32_MAX,
	};
	u64 vals[CXLV_NR_KEYS] = {
		[CXLV_KEY_WAYS] = 1,
		[CXLV_KEY_HOST_BRIDGES] = 1,
		[CXLV_KEY_GRANULARITY] = CXLV_DEFAULT_GRANULARITY,
		[CXLV_KEY_FW_SLOTS] = CXLV_FW_DEFAULT_SLOTS,
	};
	struct cxlv_token text[CXLV_NR_KEYS] = {
		[CXLV_KEY_FW_REV] = {
			.val = CXLV_FW_DEFAULT_REV,
			.val_len = sizeof(CXLV_FW_DEFAULT_REV) - 1,
		},
	};
	unsigned long seen;
	int rc;

	rc = cxlv_parse_keys(buf, len, allowed, required, max, vals, text,
			     &seen, why, why_len);
	if (rc)
		return rc;

	if (vals[CXLV_KEY_CXLTYPE] != 3) {
		snprintf(why, why_len,
			 "cxltype=%llu is not supported: only type 3 memory expanders",
			 (unsigned long long)vals[CXLV_KEY_CXLTYPE]);
		return -EOPNOTSUPP;
	}
	rc = cxlv_parse_flag(vals, CXLV_KEY_PMEM, why, why_len);
	if (!rc)
		rc = cxlv_parse_flag(vals, CXLV_KEY_BORROW, why, why_len);
	if (!rc)
		rc = cxlv_parse_flag(vals, CXLV_KEY_AUTO_REGION, why, why_len);
	if (!rc)
		rc = cxlv_parse_flag(vals, CXLV_KEY_LOCKED, why, why_len);
	if (rc)
		return rc;
	if (vals[CXLV_KEY_LOCKED] && !vals[CXLV_KEY_AUTO_REGION]) {
		snprintf(why, why_len,
			 "locked=1 without auto_region=1: only decoders committed at create are locked");
		return -EINVAL;
	}
	/* only a borrow may leave the choice of the range to the module */
	if (!vals[CXLV_KEY_BORROW])
		rc = cxlv_require(seen, BIT(CXLV_KEY_MEMSTART), why, why_len);
	if (rc)
		return rc;
	if (!vals[CXLV_KEY_MEMSIZE]) {
		snprintf(why, why_len, "memsize=0: give the reserved range's size");
		return -EINVAL;
	}
	if (vals[CXLV_KEY_MEMSTART] > U64_MAX - vals[CXLV_KEY_MEMSIZE]) {
		snprintf(why, why_len,
			 "memstart + memsize wraps past the end of the address space");
		return -ERANGE;
	}
	if (vals[CXLV_KEY_MEMSIZE] % PAGE_SIZE) {
		snprintf(why, why_len,
			 "memsize=%llu is not a multiple of the %lu-byte page size",
			 (unsigned long long)vals[CXLV_KEY_MEMSIZE],
			 (unsigned long)PAGE_SIZE);
		return -EINVAL;
	}
	if ((seen & BIT(CXLV_KEY_SERIAL)) && !vals[CXLV_KEY_SERIAL]) {
		snprintf(why, why_len,
			 "serial=0: labels need a non-zero serial; omit serial= for a default");
		return -EINVAL;
	}
	rc = cxlv_parse_interleave(vals, seen, why, why_len);
	if (rc)
		return rc;
	if (vals[CXLV_KEY_SERIAL] > U64_MAX - (vals[CXLV_KEY_WAYS] - 1)) {
		snprintf(why, why_len,
			 "serial=%llu: the serials of %llu endpoints (serial + position) would wrap",
			 (unsigned long long)vals[CXLV_KEY_SERIAL],
			 (unsigned long long)vals[CXLV_KEY_WAYS]);
		return -ERANGE;
	}
	if (vals[CXLV_KEY_BORROW] && vals[CXLV_KEY_WAYS] > 1) {
		snprintf(why, why_len,
			 "borrow=1 with ways=%llu: interleave sets need a reserved range (memmap=) in this version",
			 (unsigned long long)vals[CXLV_KEY_WAYS]);
		return -EOPNOTSUPP;
	}
	if (vals[CXLV_KEY_BORROW]) {
		rc = cxlv_parse_borrow_range(vals, seen, why, why_len);
		if (rc)
			return rc;
	}
	rc = cxlv_parse_perf(vals, seen, &p->perf, why, why_len);
	if (!rc)
		rc = cxlv_parse_ram_size(vals, seen, p, why, why_len);
	if (!rc)
		rc = cxlv_parse_firmware(vals, &text[CXLV_KEY_FW_REV], p, why,
					 why_len);
	if (rc)
		return rc;

	p->memstart = vals[CXLV_KEY_MEMSTART];
	p->memsize = vals[CXLV_KEY_MEMSIZE];
	p->cxltype = vals[CXLV_KEY_CXLTYPE];
	p->pmem = vals[CXLV_KEY_PMEM];
	p->serial = vals[CXLV_KEY_SERIAL];
	p->borrow = vals[CXLV_KEY_BORROW];
	p->pick_start = !(seen & BIT(CXLV_KEY_MEMSTART));
	p->ways = vals[CXLV_KEY_WAYS];
	p->host_bridges = vals[CXLV_KEY_HOST_BRIDGES];
	p->granularity = p->ways > 1 ? vals[CXLV_KEY_GRANULARITY] :
				       CXLV_MIN_GRANULARITY;
	p->qos_class = vals[CXLV_KEY_QOS_CLASS];
	p->qos_class_given = seen & BIT(CXLV_KEY_QOS_CLASS);
	p->auto_region = vals[CXLV_KEY_AUTO_REGION];
	p->locked = vals[CXLV_KEY_LOCKED];
	return 0;
}

/**
 * cxlv_parse_remove() - parse a remove request
 * @buf: the written text, not necessarily NUL-terminated
 * @len: bytes in @buf
 * @id: the device number N of cxlvN, valid only on success
 * @release: release=1 was given: give the borrowed range back too
 * @why: receives a one-line reason on failure
 * @why_len: size of @why
 *
 * Return: 0 or a negative errno as listed in cxlv_parse.h.
 */
int cxlv_parse_remove(const char *buf, size_t len, u32 *id, bool *release,
		      char *why, size_t why_len)
{
	const unsigned long required = BIT(CXLV_KEY_DEV_ID);
	const unsigned long allowed = required | BIT(CXLV_KEY_RELEASE);
	const u64 max[CXLV_NR_KEYS] = {
		[CXLV_KEY_DEV_ID] = S32_MAX,
		[CXLV_KEY_RELEASE] = U32_MAX,
	};
	u64 vals[CXLV_NR_KEYS] = { 0 };
	unsigned long seen;
	int rc;

	rc = cxlv_parse_keys(buf, len, allowed, required, max, vals, NULL, &seen,
			     why, why_len);
	if (!rc)
		rc = cxlv_parse_flag(vals, CXLV_KEY_RELEASE, why, why_len);
	if (rc)
		return rc;
	*id = vals[CXLV_KEY_DEV_ID];
	*release = vals[CXLV_KEY_RELEASE];
	return 0;
}

/**
 * cxlv_parse_release() - parse a release request
 * @buf: the written text, not necessarily NUL-terminated
 * @len: bytes in @buf
 * @start: the start of the borrowed range to give back, valid on success
 * @why: receives a one-line reason on failure
 * @why_len: size of @why
 *
 * Return: 0 or a negative errno as listed in cxlv_parse.h.
 */
int cxlv_parse_release(const char *buf, size_t len, u64 *start,
		       char *why, size_t why_len)
{
	const unsigned long keys = BIT(CXLV_KEY_MEMSTART);
	const u64 max[CXLV_NR_KEYS] = { [CXLV_KEY_MEMSTART] = U64_MAX };
	u64 vals[CXLV_NR_KEYS] = { 0 };
	unsigned long seen;
	int rc;

	rc = cxlv_parse_keys(buf, len, keys, keys, max, vals, NULL, &seen,
			     why, why_len);
	if (rc)
		return rc;
	*start = vals[CXLV_KEY_MEMSTART];
	return 0;
}

/* Keys only a media event (General Media, DRAM) has. */
#define CXLV_EVENT_MEDIA_KEYS	(BIT(CXLV_KEY_DPA) | BIT(CXLV_KEY_DESCRIPTOR) | \
				 BIT(CXLV_KEY_TRANSACTION))

/**
 * cxlv_parse_event() - parse an event injection request
 * @buf: the written text, not necessarily NUL-terminated
 * @len: bytes in @buf
 * @req: the request, valid on success
 * @why: receives a one-line reason on failure
 * @why_len: size of @why
 *
 * Checks what the text alone decides: the keys of the record type, each
 * value inside the range CXL r3.0 8.2.9.2.1 defines for its field. The
 * device checks the rest (endpoint position, DPA inside the capacity).
 *
 * Return: 0 or a negative errno as listed in cxlv_parse.h.
 */
int cxlv_parse_event(const char *buf, size_t len,
		     struct cxlv_event_request *req, char *why, size_t why_len)
{
	const unsigned long required = BIT(CXLV_KEY_DEV_ID) |
		BIT(CXLV_KEY_RECORD);
	const unsigned long allowed = required | CXLV_EVENT_MEDIA_KEYS |
		BIT(CXLV_KEY_POS) | BIT(CXLV_KEY_LOG) |
		BIT(CXLV_KEY_EVENT_TYPE) | BIT(CXLV_KEY_COUNT);
	u64 max[CXLV_NR_KEYS] = {
		[CXLV_KEY_DEV_ID] = S32_MAX,
		[CXLV_KEY_POS] = CXLV_MAX_WAYS - 1,
		[CXLV_KEY_RECORD] = CXLV_EVENT_MEMORY_MODULE,
		[CXLV_KEY_LOG] = CXLV_EVENT_LOG_FATAL,
		[CXLV_KEY_DPA] = U64_MAX,
		[CXLV_KEY_DESCRIPTOR] = CXLV_EVENT_DESCRIPTOR_MAX,
		[CXLV_KEY_EVENT_TYPE] = U8_MAX,
		[CXLV_KEY_TRANSACTION] = CXLV_EVENT_TRANSACTION_MAX,
		[CXLV_KEY_COUNT] = CXLV_EVENT_COUNT_MAX,
	};
	static const u64 type_max[] = {
		[CXLV_EVENT_GENERAL_MEDIA] = CXLV_EVENT_GM_TYPE_MAX,
		[CXLV_EVENT_DRAM] = CXLV_EVENT_DRAM_TYPE_MAX,
		[CXLV_EVENT_MEMORY_MODULE] = CXLV_EVENT_MODULE_TYPE_MAX,
	};
	u64 vals[CXLV_NR_KEYS] = { [CXLV_KEY_COUNT] = 1 };
	unsigned long seen;
	int rc;

	rc = cxlv_parse_keys(buf, len, allowed, required, max, vals, NULL, &seen,
			     why, why_len);
	if (rc)
		return rc;
	if (vals[CXLV_KEY_RECORD] == CXLV_EVENT_MEMORY_MODULE &&
	    (seen & CXLV_EVENT_MEDIA_KEYS)) {
		snprintf(why, why_len,
			 "record=%u (memory module) has no dpa, descriptor or transaction",
			 CXLV_EVENT_MEMORY_MODULE);
		return -EINVAL;
	}
	if (vals[CXLV_KEY_EVENT_TYPE] > type_max[vals[CXLV_KEY_RECORD]]) {
		snprintf(why, why_len, "event_type=%llu: record=%llu takes 0 to %llu",
			 (unsigned long long)vals[CXLV_KEY_EVENT_TYPE],
			 (unsigned long long)vals[CXLV_KEY_RECORD],
			 (unsigned long long)type_max[vals[CXLV_KEY_RECORD]]);
		return -EINVAL;
	}
	if (!vals[CXLV_KEY_COUNT]) {
		snprintf(why, why_len, "count=0: inject at least one record");
		return -EINVAL;
	}
	req->id = vals[CXLV_KEY_DEV_ID];
	req->pos = vals[CXLV_KEY_POS];
	req->record = vals[CXLV_KEY_RECORD];
	req->log = vals[CXLV_KEY_LOG];
	req->dpa = vals[CXLV_KEY_DPA];
	req->descriptor = vals[CXLV_KEY_DESCRIPTOR];
	req->event_type = vals[CXLV_KEY_EVENT_TYPE];
	req->transaction = vals[CXLV_KEY_TRANSACTION];
	req->count = vals[CXLV_KEY_COUNT];
	return 0;
}

/* The set_health keys, in the order of the CXLV_HEALTH_SET_* bits. */
static const int cxlv_health_keys[] = {
	CXLV_KEY_LIFE_USED, CXLV_KEY_TEMPERATURE, CXLV_KEY_VOLATILE_ERRORS,
	CXLV_KEY_PERSISTENT_ERRORS, CXLV_KEY_HEALTH_STATUS,
	CXLV_KEY_MEDIA_STATUS,
};

/**
 * cxlv_parse_health() - parse a set_health request
 * @buf: the written text, not necessarily NUL-terminated
 * @len: bytes in @buf
 * @req: the request, valid on success
 * @why: receives a one-line reason on failure
 * @why_len: size of @why
 *
 * Each figure inside the range CXL r3.0 8.2.9.8.3.1 gives its field, at
 * least one figure. The device checks the endpoint position.
 *
 * Return: 0 or a negative errno as listed in cxlv_parse.h.
 */
int cxlv_parse_health(const char *buf, size_t len,
		      struct cxlv_health_request *req, char *why,
		      size_t why_len)
{
	const unsigned long required = BIT(CXLV_KEY_DEV_ID);
	unsigned long allowed = required | BIT(CXLV_KEY_POS);
	const u64 max[CXLV_NR_KEYS] = {
		[CXLV_KEY_DEV_ID] = S32_MAX,
		[CXLV_KEY_POS] = CXLV_MAX_WAYS - 1,
		[CXLV_KEY_LIFE_USED] = CXLV_HEALTH_LIFE_MAX,
		[CXLV_KEY_TEMPERATURE] = CXLV_HEALTH_TEMP_MAX,
		[CXLV_KEY_VOLATILE_ERRORS] = U32_MAX,
		[CXLV_KEY_PERSISTENT_ERRORS] = U32_MAX,
		[CXLV_KEY_HEALTH_STATUS] = CXLV_HEALTH_STATUS_MAX,
		[CXLV_KEY_MEDIA_STATUS] = CXLV_HEALTH_MEDIA_MAX,
	};
	u64 vals[CXLV_NR_KEYS] = { 0 };
	unsigned long seen;
	size_t i;
	int rc;

	for (i = 0; i < ARRAY_SIZE(cxlv_health_keys); i++)
		allowed |= BIT(cxlv_health_keys[i]);
	rc = cxlv_parse_keys(buf, len, allowed, required, max, vals, NULL, &seen,
			     why, why_len);
	if (rc)
		return rc;
	memset(req, 0, sizeof(*req));
	for (i = 0; i < ARRAY_SIZE(cxlv_health_keys); i++)
		if (seen & BIT(cxlv_health_keys[i]))
			req->set |= BIT(i);
	if (!req->set) {
		snprintf(why, why_len,
			 "no figure to set: give life_used=, temperature=, volatile_errors=, persistent_errors=, health_status= or media_status=");
		return -ENODATA;
	}
	req->id = vals[CXLV_KEY_DEV_ID];
	req->pos = vals[CXLV_KEY_POS];
	req->life_used = vals[CXLV_KEY_LIFE_USED];
	req->temperature = vals[CXLV_KEY_TEMPERATURE];
	req->volatile_errors = vals[CXLV_KEY_VOLATILE_ERRORS];
	req->persistent_errors = vals[CXLV_KEY_PERSISTENT_ERRORS];
	req->health_status = vals[CXLV_KEY_HEALTH_STATUS];
	req->media_status = vals[CXLV_KEY_MEDIA_STATUS];
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/* Fills the placeholders of template records (see fuzz.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static const struct cxlv_var *lookup(const struct cxlv_var *vars, int n,
				     const char *name, size_t len)
{
	int i;

	for (i = 0; i < n; i++)
		if (strlen(vars[i].name) == len &&
		    !memcmp(vars[i].name, name, len))
			return &vars[i];
	return NULL;
}

/* Expands the placeholder at @p (after its '%'); returns its length. */
static size_t expand(const char *p, const char *end, struct cxlv_rec *out,
		     const struct cxlv_var *vars, int n, char *err,
		     size_t err_len)
{
	const char *close = memchr(p, '%', end - p), *q = p;
	const struct cxlv_var *v;
	unsigned long long off = 0, val;
	int dec = 0, w;
	char sign = 0, num[32];

	if (!close) {
		snprintf(err, err_len, "unterminated placeholder");
		return 0;
	}
	while (q < close && *q != '+' && *q != '-' && *q != ':')
		q++;
	v = lookup(vars, n, p, q - p);
	if (!v) {
		snprintf(err, err_len, "unknown placeholder %%%.*s%%",
			 (int)(close - p), p);
		return 0;
	}
	if (q < close && (*q == '+' || *q == '-')) {
		sign = *q++;
		off = strtoull(q, NULL, 10);
		while (q < close && *q != ':')
			q++;
	}
	dec = q + 2 == close && q[0] == ':' && q[1] == 'd';
	val = v->value;
	if (sign == '+')
		val += off;
	else if (sign == '-')
		val = off > val ? 0 : val - off;
	w = snprintf(num, sizeof(num), dec ? "%llu" : "%#llx", val);
	if (out->len + w > CXLV_FUZZ_MAX_LEN)
		w = CXLV_FUZZ_MAX_LEN - out->len;
	memcpy(out->buf + out->len, num, w);
	out->len += w;
	return close - p + 1;
}

int cxlv_fuzz_render(const struct cxlv_rec *in, struct cxlv_rec *out,
		     const struct cxlv_var *vars, int nr_vars,
		     char *err, size_t err_len)
{
	const char *p = in->buf, *end = in->buf + in->len;
	size_t used;

	*out = (struct cxlv_rec){ .kind = in->kind, .expect = in->expect };
	while (p < end) {
		if ((in->flags & CXLV_REC_TEMPLATE) && *p == '%') {
			used = expand(p + 1, end, out, vars, nr_vars, err,
				      err_len);
			if (!used)
				return -1;
			p += 1 + used;
			continue;
		}
		if (out->len < CXLV_FUZZ_MAX_LEN)
			out->buf[out->len++] = *p;
		p++;
	}
	return 0;
}

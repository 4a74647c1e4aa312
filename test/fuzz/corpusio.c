// SPDX-License-Identifier: GPL-2.0-only
/* Reading and writing corpus files: binary records and text seed lines. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

int cxlv_rec_write(FILE *f, const struct cxlv_rec *r)
{
	uint16_t expect = r->expect;
	uint32_t len = r->len;

	if (fputc(r->kind, f) == EOF || fputc(r->flags, f) == EOF ||
	    fwrite(&expect, sizeof(expect), 1, f) != 1 ||
	    fwrite(&len, sizeof(len), 1, f) != 1 ||
	    fwrite(r->buf, 1, len, f) != len)
		return -1;
	return 0;
}

int cxlv_rec_read(FILE *f, struct cxlv_rec *r)
{
	int kind = fgetc(f), flags;

	if (kind == EOF)
		return 0;
	flags = fgetc(f);
	if (flags == EOF || fread(&r->expect, sizeof(r->expect), 1, f) != 1 ||
	    fread(&r->len, sizeof(r->len), 1, f) != 1 ||
	    r->len > CXLV_FUZZ_MAX_LEN ||
	    fread(r->buf, 1, r->len, f) != r->len)
		return -1;
	r->kind = kind;
	r->flags = flags;
	return 1;
}

static int unescape(const char *s, struct cxlv_rec *r)
{
	char hex[3] = { 0 };

	for (; *s && *s != '\n'; s++) {
		char c = *s;

		if (r->len >= CXLV_FUZZ_MAX_LEN)
			return -1;
		if (c == '\\') {
			switch (*++s) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case '0': c = '\0'; break;
			case '\\': c = '\\'; break;
			case 'x':
				if (!s[1] || !s[2])
					return -1;
				memcpy(hex, s + 1, 2);
				c = (char)strtoul(hex, NULL, 16);
				s += 2;
				break;
			default:
				return -1;
			}
		}
		r->buf[r->len++] = c;
	}
	return 0;
}

int cxlv_seed_next(FILE *f, struct cxlv_rec *r, int *expect_errno,
		   unsigned int *lineno)
{
	static const int errnos[] = { 0, EINVAL, ENODATA, ERANGE, EOPNOTSUPP };
	char line[4096], kind, name[32];
	size_t i, used;

	while (fgets(line, sizeof(line), f)) {
		++*lineno;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%c %31s", &kind, name) != 2 ||
		    !strchr("crleh", kind))
			return -1;
		*r = (struct cxlv_rec){ .kind = kind, .expect =
			kind == 'c' ? CXLV_EXP_ANY_RANGE : CXLV_EXP_ENODEV };
		for (i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
			if (!strcmp(cxlv_errno_name(errnos[i]), name))
				break;
		if (i == sizeof(errnos) / sizeof(errnos[0]))
			return -1;
		*expect_errno = errnos[i];
		/* TEXT starts after exactly one blank; more are part of it */
		used = 2 + strlen(name) + 1;
		if (line[1] != ' ' || used > strlen(line))
			used = strlen(line);
		return unescape(line + used, r) ? -1 : 1;
	}
	return 0;
}

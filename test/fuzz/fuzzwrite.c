// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxlv-fuzzwrite: writes every record of a corpus file to the cxl_virt
 * control files of one interface with ONE write(2) each (so NULs and exact
 * lengths reach the kernel) and checks the errno against an oracle:
 *
 * - both refuse more than CXLV_REQUEST_MAX bytes with E2BIG; sysfs hands
 *   the store at most a page and never calls it for an empty write;
 * - otherwise, when the parser (kmod/ctl/cxlv_parse.c, linked here unchanged)
 *   rejects the text, the kernel must return the parser's errno;
 * - when it accepts it, the kernel must refuse with an errno of the
 *   record's expected set: no string of the corpus may make a device.
 *
 * Every refusal must leave a one-line reason in last_error. Prints one line
 * per mismatch and a summary; exits 1 on any mismatch.
 *
 * usage: cxlv-fuzzwrite --dir DIR --max-len N --live-id ID [--var NAME=VAL]... CORPUS
 *   DIR holds create, remove and last_error; --max-len is 256 for debugfs
 *   (must equal CXLV_REQUEST_MAX), 0 for sysfs (truncation at a page first).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "../../kmod/common/cxlv_parse.h"

#define SYSFS_PAGE 4096
#define MAX_VARS 16

struct opts {
	const char *dir;
	long max_len;
	long live_id;
	struct cxlv_var vars[MAX_VARS];
	int nr_vars;
};

struct tally {
	unsigned long writes, mismatches;
	unsigned long by_errno[256];
};

/* What the kernel must answer; *mask set when any of a set will do. */
static int expected(const struct opts *o, const struct cxlv_rec *r,
		    unsigned int *mask, bool *never_called)
{
	struct cxlv_params p;
	size_t len = r->len;
	char why[160];
	bool release;
	u32 id;
	int rc;

	*mask = 0;
	*never_called = false;
	if (!o->max_len && len > SYSFS_PAGE)
		len = SYSFS_PAGE;
	if (!o->max_len && !len) {
		*never_called = true;
		return 0;
	}
	if (len > CXLV_REQUEST_MAX)
		return E2BIG;
	if (r->kind == 'c')
		rc = cxlv_parse_create(r->buf, len, &p, why, sizeof(why));
	else
		rc = cxlv_parse_remove(r->buf, len, &id, &release, why,
				       sizeof(why));
	if (rc)
		return -rc;
	if (r->kind == 'r' && id == o->live_id)
		return -1;	/* the corpus would remove the live device */
	*mask = r->expect;
	return 0;
}

static bool in_mask(unsigned int mask, int err)
{
	unsigned int bit;

	for (bit = 1; bit <= mask; bit <<= 1)
		if ((mask & bit) && cxlv_exp_errno(bit) == err)
			return true;
	return false;
}

static void print_text(const struct cxlv_rec *r)
{
	uint32_t i;

	for (i = 0; i < r->len && i < 160; i++) {
		unsigned char c = r->buf[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			putchar(c);
		else
			printf("\\x%02x", c);
	}
	if (r->len > 160)
		printf("...(%u bytes)", r->len);
}

/*
 * A 64-bit kernel virtual address in hex: exactly 16 digits, either
 * ffff[8-e]... (direct map, vmalloc, vmemmap) or ffffffff[8-e]... (kernel
 * text, modules). Longer runs and all-f values are echoed user input.
 */
static bool kernel_pointer(const char *s)
{
	const char *hex = "0123456789abcdef";
	size_t n;

	for (; *s; s += n ? n : 1) {
		n = strspn(s, hex);
		if (n != 16)
			continue;
		if (!strncmp(s, "ffff", 4) && s[4] >= '8' && s[4] <= 'e')
			return true;
		if (!strncmp(s, "ffffffff", 8) && s[8] >= '8' && s[8] <= 'e')
			return true;
	}
	return false;
}

/*
 * Reads last_error; false unless it is one non-empty line that shows no
 * kernel address.
 */
static bool reason_ok(const struct opts *o, char *buf, size_t size)
{
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/last_error", o->dir);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 1)
		return false;
	buf[n] = '\0';
	return buf[n - 1] == '\n' && !memchr(buf, '\n', n - 1) &&
	       !kernel_pointer(buf);
}

static void one(const struct opts *o, unsigned long idx,
		const struct cxlv_rec *r, struct tally *t)
{
	char path[512], reason[512] = "";
	unsigned int mask;
	bool never_called, ok;
	int want, got = 0, fd;
	ssize_t n;

	want = expected(o, r, &mask, &never_called);
	if (want < 0) {
		printf("MISMATCH #%lu: corpus removes live device cxlv%ld\n",
		       idx, o->live_id);
		t->mismatches++;
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", o->dir,
		 r->kind == 'c' ? "create" : "remove");
	fd = open(path, O_WRONLY);
	if (fd < 0) {
		printf("MISMATCH #%lu: open %s: %s\n", idx, path, strerror(errno));
		t->mismatches++;
		return;
	}
	n = write(fd, r->buf, r->len);
	if (n < 0)
		got = errno;
	close(fd);
	t->writes++;
	t->by_errno[got & 0xff]++;

	if (never_called)
		ok = n == 0;
	else if (mask)
		ok = in_mask(mask, got);
	else
		ok = got == want;
	if (got && !reason_ok(o, reason, sizeof(reason)) && ok) {
		ok = false;
		want = -2;
	}
	if (ok)
		return;
	t->mismatches++;
	printf("MISMATCH #%lu %s: got %s (write returned %zd), want %s",
	       idx, r->kind == 'c' ? "create" : "remove",
	       cxlv_errno_name(got) ?: "?", n,
	       want == -2 ? "a one-line last_error without kernel addresses" :
	       mask ? "a range errno" : cxlv_errno_name(want) ?: "?");
	printf(" [last_error: %.*s] text: ", (int)strcspn(reason, "\n"),
	       reason);
	print_text(r);
	putchar('\n');
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	int i;

	o->live_id = -1;
	o->max_len = -1;
	for (i = 1; i + 1 < argc; i += 2) {
		char *eq;

		if (!strcmp(argv[i], "--dir")) {
			o->dir = argv[i + 1];
		} else if (!strcmp(argv[i], "--max-len")) {
			o->max_len = strtol(argv[i + 1], NULL, 0);
		} else if (!strcmp(argv[i], "--live-id")) {
			o->live_id = strtol(argv[i + 1], NULL, 0);
		} else if (!strcmp(argv[i], "--var") && o->nr_vars < MAX_VARS &&
			   (eq = strchr(argv[i + 1], '='))) {
			*eq = '\0';
			o->vars[o->nr_vars].name = argv[i + 1];
			o->vars[o->nr_vars++].value = strtoull(eq + 1, NULL, 0);
		} else {
			return -1;
		}
	}
	if (i != argc - 1 || !o->dir || o->max_len < 0 || o->live_id < 0)
		return -1;
	return i;
}

int main(int argc, char **argv)
{
	static struct cxlv_rec raw, r;
	static struct tally t;
	struct opts o = { 0 };
	char magic[sizeof(CXLV_FUZZ_MAGIC)], err[128];
	unsigned long idx = 0;
	int arg = parse_args(argc, argv, &o), rc, e;
	FILE *f;

	if (arg < 0) {
		fprintf(stderr, "usage: cxlv-fuzzwrite --dir DIR --max-len N --live-id ID [--var NAME=VAL]... CORPUS\n");
		return 2;
	}
	f = fopen(argv[arg], "r");
	if (!f || !fgets(magic, sizeof(magic), f) ||
	    strcmp(magic, CXLV_FUZZ_MAGIC)) {
		fprintf(stderr, "%s: not a corpus file\n", argv[arg]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((rc = cxlv_rec_read(f, &raw)) > 0) {
		if (cxlv_fuzz_render(&raw, &r, o.vars, o.nr_vars, err,
				     sizeof(err))) {
			fprintf(stderr, "record #%lu: %s\n", idx, err);
			return 2;
		}
		one(&o, idx++, &r, &t);
	}
	if (rc < 0) {
		fprintf(stderr, "record #%lu: truncated corpus\n", idx);
		return 2;
	}
	printf("%s: %lu writes, %lu mismatches; errnos:", o.dir, t.writes,
	       t.mismatches);
	for (e = 0; e < 256; e++) {
		if (!t.by_errno[e])
			continue;
		if (!e)		/* only empty sysfs writes may succeed */
			printf(" empty=%lu", t.by_errno[e]);
		else if (cxlv_errno_name(e))
			printf(" %s=%lu", cxlv_errno_name(e), t.by_errno[e]);
		else
			printf(" errno%d=%lu", e, t.by_errno[e]);
	}
	putchar('\n');
	return t.mismatches ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxlv-fuzz-harness: runs kmod/ctl/cxlv_parse.c, compiled unchanged against the
 * shims in shim/, in user space (built with ASan and UBSan when available).
 *
 * 1. Every seed corpus line (corpus/) must give its stated result, and the
 *    properties below hold for it too (kind e: the inject_event parser, kind
 *    h: the set_health parser, whose accepted requests stay inside the
 *    ranges cxlv_parse.h gives).
 * 2. Every generated record must satisfy, on create and remove parsers:
 *    - the errno is one cxlv_parse.h documents;
 *    - a refusal leaves a one-line reason, terminated within why_len,
 *      nothing written past it, also with tiny why buffers;
 *    - nothing is read past len (the text ends at a PROT_NONE page);
 *    - trailing NULs end the input (same result as the text cut there),
 *      a NUL with anything else after it is refused with EINVAL;
 *    - an accepted create has cxltype 3, memsize > 0, no wrap, and renders
 *      back (other key order, other radix) to the same request;
 *    - parsing is deterministic, and so is the generator.
 * 3. Every errno class and every generator class turns up (coverage).
 *
 * usage: cxlv-fuzz-harness --seed S --count N SEEDFILE...
 * Prints "N passed, N failed"; exits 1 on any failure.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "../../kmod/common/cxlv_parse.h"

#define WHY_LEN 160
#define CANARY 0x5a

struct outcome {
	int rc;
	struct cxlv_params p;
	u32 id;
	bool release;
	u64 start;
	struct cxlv_event_request ev;
	struct cxlv_health_request health;
	char why[WHY_LEN + 16];
};

static unsigned long passed, failed;
static char *guard_end;		/* first byte of the PROT_NONE page */
static unsigned long seen_errno[128], seen_expect[64];

static void guard_init(void)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t data = (CXLV_FUZZ_MAX_LEN + page - 1) / page * page;
	char *m = mmap(NULL, data + page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED || mprotect(m + data, page, PROT_NONE)) {
		perror("guard page");
		exit(2);
	}
	guard_end = m + data;
}

/* Parses @len bytes placed right before the guard page. */
static void parse(char kind, const char *text, size_t len, size_t why_len,
		  struct outcome *o)
{
	char *buf = guard_end - len;

	memmove(buf, text, len);
	memset(o, 0, sizeof(*o));
	memset(o->why, CANARY, sizeof(o->why));
	if (kind == 'c')
		o->rc = cxlv_parse_create(buf, len, &o->p, o->why, why_len);
	else if (kind == 'l')
		o->rc = cxlv_parse_release(buf, len, &o->start, o->why,
					   why_len);
	else if (kind == 'e')
		o->rc = cxlv_parse_event(buf, len, &o->ev, o->why, why_len);
	else if (kind == 'h')
		o->rc = cxlv_parse_health(buf, len, &o->health, o->why,
					  why_len);
	else
		o->rc = cxlv_parse_remove(buf, len, &o->id, &o->release,
					  o->why, why_len);
}

static bool same(char kind, const struct outcome *a, const struct outcome *b)
{
	if (a->rc != b->rc)
		return false;
	if (a->rc)
		return true;
	if (kind == 'r')
		return a->id == b->id && a->release == b->release;
	if (kind == 'l')
		return a->start == b->start;
	if (kind == 'e')
		return !memcmp(&a->ev, &b->ev, sizeof(a->ev));
	if (kind == 'h')
		return !memcmp(&a->health, &b->health, sizeof(a->health));
	return a->p.memstart == b->p.memstart && a->p.memsize == b->p.memsize &&
	       a->p.serial == b->p.serial && a->p.cxltype == b->p.cxltype &&
	       a->p.pmem == b->p.pmem && a->p.borrow == b->p.borrow &&
	       a->p.pick_start == b->p.pick_start && a->p.ways == b->p.ways &&
	       a->p.host_bridges == b->p.host_bridges &&
	       a->p.granularity == b->p.granularity &&
	       a->p.fw_slots == b->p.fw_slots &&
	       a->p.ram_size == b->p.ram_size &&
	       a->p.ram_size_given == b->p.ram_size_given &&
	       a->p.qos_class == b->p.qos_class &&
	       a->p.qos_class_given == b->p.qos_class_given &&
	       a->p.auto_region == b->p.auto_region &&
	       a->p.locked == b->p.locked &&
	       !memcmp(a->p.fw_rev, b->p.fw_rev, sizeof(a->p.fw_rev)) &&
	       !memcmp(&a->p.perf, &b->p.perf, sizeof(a->p.perf));
}

static bool documented(int rc)
{
	return !rc || rc == -EINVAL || rc == -ENODATA ||
	       rc == -ERANGE || rc == -EOPNOTSUPP;
}

/* Collects the failures of one case; the case fails on the first. */
static const char *problem;

static void check(bool ok, const char *what)
{
	if (!ok && !problem)
		problem = what;
}

static void check_reason(const struct outcome *o, size_t why_len)
{
	size_t n = strnlen(o->why, why_len);
	size_t i;

	check(n < why_len, "reason not terminated within why_len");
	check(n > 0, "empty reason");
	check(!memchr(o->why, '\n', n), "reason spans lines");
	for (i = why_len; i < sizeof(o->why); i++)
		check((unsigned char)o->why[i] == CANARY,
		      "written past why_len");
}

/* An accepted event request as text; a module event without media keys. */
static void render_event(const struct cxlv_event_request *e, char *s,
			 size_t n, bool hex)
{
	snprintf(s, n, hex ? "record=%#x,cxlv_dev_id=%#x,pos=%#x,log=%#x,event_type=%#x,count=%#x" :
			     "record=%u\ncxlv_dev_id=%u\npos=%u\nlog=%u\nevent_type=%u\ncount=%u",
		 e->record, e->id, e->pos, e->log, e->event_type, e->count);
	if (e->record != CXLV_EVENT_MEMORY_MODULE)
		snprintf(s + strlen(s), n - strlen(s),
			 hex ? ",dpa=%#llx,descriptor=%#x,transaction=%#x" :
			       "\ndpa=%llu\ndescriptor=%u\ntransaction=%u",
			 (unsigned long long)e->dpa, e->descriptor,
			 e->transaction);
}

/* An accepted set_health request as text: the figures it sets. */
static void render_health(const struct cxlv_health_request *h, char *s,
			  size_t n, bool hex)
{
	const unsigned int val[] = {
		h->life_used, (unsigned int)h->temperature, h->volatile_errors,
		h->persistent_errors, h->health_status, h->media_status,
	};
	static const char * const key[] = {
		"life_used", "temperature", "volatile_errors",
		"persistent_errors", "health_status", "media_status",
	};
	size_t i;

	snprintf(s, n, hex ? "pos=%#x,cxlv_dev_id=%#x" : "cxlv_dev_id=%u\npos=%u",
		 hex ? h->pos : h->id, hex ? h->id : h->pos);
	for (i = 0; i < sizeof(key) / sizeof(key[0]); i++)
		if (h->set & (1u << i))
			snprintf(s + strlen(s), n - strlen(s),
				 hex ? ",%s=%#x" : "\n%s=%u", key[i], val[i]);
}

/* What an accepted set_health request must be (cxlv_parse.h). */
static void check_health(const struct cxlv_health_request *h)
{
	check(h->id <= INT32_MAX, "accepted id above S32_MAX");
	check(h->pos < CXLV_MAX_WAYS, "accepted a pos past the largest set");
	check(h->set && h->set < (1u << 6), "accepted no figure, or an unknown one");
	check(h->life_used <= CXLV_HEALTH_LIFE_MAX, "accepted life_used above 100");
	check(h->temperature >= 0 && h->temperature <= CXLV_HEALTH_TEMP_MAX,
	      "accepted a temperature out of 0..150");
	check(h->health_status <= CXLV_HEALTH_STATUS_MAX,
	      "accepted health_status bits past bit 2");
	check(h->media_status <= CXLV_HEALTH_MEDIA_MAX,
	      "accepted a media_status above 9");
}

/* What an accepted event request must be (cxlv_parse.h). */
static void check_event(const struct cxlv_event_request *e)
{
	static const unsigned int type_max[] = { 2, 3, 5 };

	check(e->id <= INT32_MAX, "accepted id above S32_MAX");
	check(e->record <= CXLV_EVENT_MEMORY_MODULE, "accepted record above 2");
	check(e->pos < CXLV_MAX_WAYS, "accepted a pos past the largest set");
	check(e->log <= CXLV_EVENT_LOG_FATAL, "accepted log above 3");
	check(e->record > CXLV_EVENT_MEMORY_MODULE ||
	      e->event_type <= type_max[e->record],
	      "accepted an event_type its record does not define");
	check(e->descriptor <= CXLV_EVENT_DESCRIPTOR_MAX,
	      "accepted descriptor bits past bit 2");
	check(e->transaction <= CXLV_EVENT_TRANSACTION_MAX,
	      "accepted a transaction type above 6");
	check(e->count >= 1 && e->count <= CXLV_EVENT_COUNT_MAX,
	      "accepted a count outside 1..32");
	check(e->record != CXLV_EVENT_MEMORY_MODULE ||
	      (!e->dpa && !e->descriptor && !e->transaction),
	      "memory module event with media fields");
}

static void render_back(const struct outcome *o, char kind, char *s,
			size_t n, bool hex)
{
	if (kind == 'r') {
		snprintf(s, n, hex ? "\ncxlv_dev_id=%#x\n" : "cxlv_dev_id=%u",
			 o->id);
		if (o->release)
			snprintf(s + strlen(s), n - strlen(s), ",release=1");
		return;
	}
	if (kind == 'l') {
		snprintf(s, n, hex ? "memstart=%#llx\n" : "memstart=%llu",
			 (unsigned long long)o->start);
		return;
	}
	if (kind == 'e') {
		render_event(&o->ev, s, n, hex);
		return;
	}
	if (kind == 'h') {
		render_health(&o->health, s, n, hex);
		return;
	}
	if (hex)
		snprintf(s, n, "pmem=%d,cxltype=%#x,memsize=%#llx",
			 o->p.pmem, o->p.cxltype,
			 (unsigned long long)o->p.memsize);
	else
		snprintf(s, n, "memsize=%llu\ncxltype=%u\npmem=%d",
			 (unsigned long long)o->p.memsize, o->p.cxltype,
			 o->p.pmem);
	if (!o->p.pick_start)
		snprintf(s + strlen(s), n - strlen(s),
			 hex ? ",memstart=%#llx" : "\nmemstart=%llu",
			 (unsigned long long)o->p.memstart);
	if (o->p.borrow)
		snprintf(s + strlen(s), n - strlen(s), ",borrow=1");
	if (o->p.serial)
		snprintf(s + strlen(s), n - strlen(s), ",serial=%llu",
			 (unsigned long long)o->p.serial);
	snprintf(s + strlen(s), n - strlen(s),
		 hex ? ",read_latency=%#x,write_latency=%#x,read_bandwidth=%#x,write_bandwidth=%#x" :
		       "\nread_latency=%u\nwrite_latency=%u\nread_bandwidth=%u\nwrite_bandwidth=%u",
		 o->p.perf.read_latency, o->p.perf.write_latency,
		 o->p.perf.read_bandwidth, o->p.perf.write_bandwidth);
	if (o->p.ways > 1)
		snprintf(s + strlen(s), n - strlen(s),
			 hex ? ",ways=%#x,host_bridges=%#x,granularity=%#x" :
			       "\nways=%u\nhost_bridges=%u\ngranularity=%u",
			 o->p.ways, o->p.host_bridges, o->p.granularity);
	snprintf(s + strlen(s), n - strlen(s),
		 hex ? ",fw_slots=%#x,fw_rev=%.*s" : "\nfw_slots=%u\nfw_rev=%.*s",
		 o->p.fw_slots, (int)strnlen(o->p.fw_rev, sizeof(o->p.fw_rev)),
		 o->p.fw_rev);
	if (o->p.ram_size_given)
		snprintf(s + strlen(s), n - strlen(s),
			 hex ? ",ram_size=%#llx" : "\nram_size=%llu",
			 (unsigned long long)o->p.ram_size);
	if (o->p.qos_class_given)
		snprintf(s + strlen(s), n - strlen(s),
			 hex ? ",qos_class=%#x" : "\nqos_class=%u",
			 o->p.qos_class);
	if (o->p.auto_region)
		snprintf(s + strlen(s), n - strlen(s),
			 hex ? ",auto_region=0x1" : "\nauto_region=1");
	if (o->p.locked)
		snprintf(s + strlen(s), n - strlen(s),
			 hex ? ",locked=0x1" : "\nlocked=1");
}

/* What accepted firmware slots must be (cxlv_parse.h). */
static void check_firmware(const struct cxlv_params *p)
{
	size_t i, n = strnlen(p->fw_rev, sizeof(p->fw_rev));

	check(p->fw_slots >= CXLV_FW_MIN_SLOTS &&
	      p->fw_slots <= CXLV_FW_MAX_SLOTS, "accepted fw_slots out of 2..4");
	check(n > 0, "accepted an empty fw_rev");
	for (i = 0; i < n; i++)
		check(p->fw_rev[i] >= 0x20 && p->fw_rev[i] <= 0x7e &&
		      p->fw_rev[i] != ',', "accepted an unprintable fw_rev");
}

/* What an accepted interleave set must be (cxlv_parse.h). */
static void check_interleave(const struct cxlv_params *p)
{
	unsigned int w = p->ways, h = p->host_bridges, g = p->granularity;

	check(w && w <= 8 && !(w & (w - 1)), "accepted ways not 1, 2, 4 or 8");
	check(h && h <= 4 && !(h & (h - 1)) && h <= w,
	      "accepted host_bridges that do not divide ways");
	check(g >= 256 && g <= 16384 && !(g & (g - 1)),
	      "accepted a granularity out of 256..16384 or not a power of two");
	check(h == w || g * h <= 16384,
	      "accepted a host-bridge decoder granularity above 16384");
	check(w > 1 || g == 256, "x1 device with a granularity other than 256");
	check(w == 1 || !p->borrow, "accepted borrow=1 with ways > 1");
	check(!p->ram_size_given ||
	      (p->pmem && !(p->ram_size % (CXLV_PARTITION_ALIGN * w))),
	      "accepted a ram_size without pmem=1 or not ways x aligned");
}

static bool only_nuls(const char *p, const char *end)
{
	for (; p < end; p++)
		if (*p)
			return false;
	return true;
}

static void properties(const struct cxlv_rec *r)
{
	struct outcome o, again, tiny, cut, back;
	const char *nul = memchr(r->buf, '\0', r->len);
	char text[256];
	bool hex;

	parse(r->kind, r->buf, r->len, WHY_LEN, &o);
	seen_errno[-o.rc & 127]++;
	check(documented(o.rc), "undocumented errno");
	parse(r->kind, r->buf, r->len, WHY_LEN, &again);
	/* an accepted request leaves why untouched: unterminated canaries */
	check(same(r->kind, &o, &again) &&
	      (!o.rc || !strcmp(o.why, again.why)),
	      "not deterministic");
	if (o.rc) {
		check_reason(&o, WHY_LEN);
		parse(r->kind, r->buf, r->len, 1, &tiny);
		check(tiny.rc == o.rc, "result depends on why_len");
		check(tiny.why[0] == '\0' && (unsigned char)tiny.why[1] == CANARY,
		      "why_len 1 not honoured");
		parse(r->kind, r->buf, r->len, 7, &tiny);
		check_reason(&tiny, 7);
	}
	if (nul && only_nuls(nul, r->buf + r->len)) {
		parse(r->kind, r->buf, nul - r->buf, WHY_LEN, &cut);
		check(same(r->kind, &o, &cut), "trailing NULs changed the result");
	} else if (nul) {
		check(o.rc == -EINVAL, "text after a NUL not refused");
	}
	if (o.rc)
		return;
	if (r->kind == 'c') {
		check(o.p.cxltype == 3, "accepted cxltype != 3");
		check(o.p.memsize > 0, "accepted memsize 0");
		check(o.p.memstart <= UINT64_MAX - o.p.memsize,
		      "accepted a wrapping range");
		check(!o.p.pick_start || o.p.borrow,
		      "accepted a create without memstart that does not borrow");
		check(!o.p.borrow || !(o.p.memsize % CXLV_BORROW_ALIGN),
		      "accepted a borrow that is not whole 256 MiB pieces");
		check(o.p.perf.read_latency && o.p.perf.write_latency &&
		      o.p.perf.read_bandwidth && o.p.perf.write_bandwidth,
		      "accepted a figure of 0");
		check(o.p.perf.read_latency <= CXLV_PERF_MAX &&
		      o.p.perf.write_latency <= CXLV_PERF_MAX &&
		      o.p.perf.read_bandwidth <= CXLV_PERF_MAX &&
		      o.p.perf.write_bandwidth <= CXLV_PERF_MAX,
		      "accepted a figure past its CDAT field");
		check_interleave(&o.p);
		check_firmware(&o.p);
		check(!o.p.locked || o.p.auto_region,
		      "accepted locked=1 without auto_region=1");
	} else if (r->kind == 'r') {
		check(o.id <= INT32_MAX, "accepted id above S32_MAX");
	} else if (r->kind == 'e') {
		check_event(&o.ev);
	} else if (r->kind == 'h') {
		check_health(&o.health);
	}
	for (hex = false; ; hex = true) {
		render_back(&o, r->kind, text, sizeof(text), hex);
		parse(r->kind, text, strlen(text), WHY_LEN, &back);
		check(same(r->kind, &o, &back), "rendered back, parses differently");
		if (hex)
			break;
	}
}

static void report(const char *where, unsigned long idx,
		   const struct cxlv_rec *r)
{
	uint32_t i;

	if (!problem) {
		passed++;
		return;
	}
	failed++;
	printf("FAIL %s #%lu (%c): %s: ", where, idx, r->kind, problem);
	for (i = 0; i < r->len && i < 120; i++)
		printf(r->buf[i] >= 0x20 && r->buf[i] < 0x7f ? "%c" : "\\x%02x",
		       (unsigned char)r->buf[i]);
	putchar('\n');
}

static void run_seeds(const char *path)
{
	static struct cxlv_rec r;
	unsigned int line = 0;
	struct outcome o;
	FILE *f = fopen(path, "r");
	int want, rc;

	if (!f) {
		perror(path);
		exit(2);
	}
	while ((rc = cxlv_seed_next(f, &r, &want, &line)) > 0) {
		problem = NULL;
		parse(r.kind, r.buf, r.len, WHY_LEN, &o);
		if (-o.rc != want) {
			static char msg[128];

			snprintf(msg, sizeof(msg), "got %s, want %s",
				 cxlv_errno_name(-o.rc), cxlv_errno_name(want));
			problem = msg;
		}
		properties(&r);
		report(path, line, &r);
	}
	if (rc < 0) {
		printf("FAIL %s:%u: malformed seed line\n", path, line);
		failed++;
	}
	fclose(f);
}

/* The VM keeps cxlv0 alive: neither the text nor its first page may name it. */
static bool removes_live(const struct cxlv_rec *r)
{
	struct outcome o;
	size_t page = r->len < 4096 ? r->len : 4096;

	parse('r', r->buf, r->len, WHY_LEN, &o);
	if (!o.rc && !o.id)
		return true;
	parse('r', r->buf, page, WHY_LEN, &o);
	return !o.rc && !o.id;
}

static void run_generated(uint64_t seed, uint64_t count)
{
	static const struct cxlv_var vars[] = {
		{ "KCODE", 0x2ec00000 }, { "DEV", 0x100000000ULL },
		{ "DEVSIZE", 1ULL << 30 }, { "HOLE", 64ULL << 30 },
	};
	static struct cxlv_rec raw, twin, r;
	char err[128];
	uint64_t i;

	for (i = 0; i < count; i++) {
		problem = NULL;
		cxlv_fuzz_generate(seed, i, &raw);
		cxlv_fuzz_generate(seed, i, &twin);
		check(raw.len == twin.len && raw.flags == twin.flags &&
		      raw.expect == twin.expect &&
		      !memcmp(raw.buf, twin.buf, raw.len),
		      "generator not deterministic");
		if (raw.kind == 'r')
			check(!removes_live(&raw),
			      "remove of the live device cxlv0 (cut at a page or not)");
		if (cxlv_fuzz_render(&raw, &r, vars, 4, err, sizeof(err)))
			check(false, "template does not render");
		else
			properties(&r);
		seen_expect[raw.expect & 63]++;
		report("generated", i, &r);
	}
}

static void coverage(void)
{
	static const int want[] = { 0, EINVAL, ENODATA, ERANGE, EOPNOTSUPP };
	static const unsigned int exp[] = {
		CXLV_EXP_EINVAL, CXLV_EXP_ENOSPC, CXLV_EXP_EBUSY,
		CXLV_EXP_EADDRNOTAVAIL, CXLV_EXP_EEXIST, CXLV_EXP_ENODEV,
		CXLV_EXP_ANY_RANGE,
	};
	size_t i;

	printf("parser results:");
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		printf(" %s=%lu", cxlv_errno_name(want[i]), seen_errno[want[i]]);
		if (seen_errno[want[i]])
			passed++;
		else
			failed++;
	}
	printf("\nrange classes generated:");
	for (i = 0; i < sizeof(exp) / sizeof(exp[0]); i++) {
		printf(" %#x=%lu", exp[i], seen_expect[exp[i]]);
		if (seen_expect[exp[i]])
			passed++;
		else
			failed++;
	}
	putchar('\n');
}

int main(int argc, char **argv)
{
	unsigned long long seed = 1, count = 20000;
	int i = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (; i + 1 < argc && !strncmp(argv[i], "--", 2); i += 2) {
		if (!strcmp(argv[i], "--seed"))
			seed = strtoull(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--count"))
			count = strtoull(argv[i + 1], NULL, 0);
		else
			break;
	}
	guard_init();
	for (; i < argc; i++)
		run_seeds(argv[i]);
	run_generated(seed, count);
	coverage();
	printf("%lu passed, %lu failed\n", passed, failed);
	return failed ? 1 : 0;
}

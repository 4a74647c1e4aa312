// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxlv-fuzzgen: writes a corpus file (fuzz.h) to stdout: the seed corpus
 * lines first when --seeds is given, then --count generated records of
 * --seed. The same seed gives the same bytes on the host and in the guest.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static int usage(void)
{
	fprintf(stderr, "usage: cxlv-fuzzgen [--seeds FILE] --seed S --count N > corpus\n");
	return 2;
}

int main(int argc, char **argv)
{
	static struct cxlv_rec r;
	unsigned long long seed = 0, count = 0, i;
	const char *seeds = NULL;
	unsigned int line = 0;
	int opt, rc, want;
	FILE *f;

	for (opt = 1; opt + 1 < argc; opt += 2) {
		if (!strcmp(argv[opt], "--seed"))
			seed = strtoull(argv[opt + 1], NULL, 0);
		else if (!strcmp(argv[opt], "--count"))
			count = strtoull(argv[opt + 1], NULL, 0);
		else if (!strcmp(argv[opt], "--seeds"))
			seeds = argv[opt + 1];
		else
			return usage();
	}
	if (opt != argc)
		return usage();
	fputs(CXLV_FUZZ_MAGIC, stdout);
	if (seeds) {
		f = fopen(seeds, "r");
		if (!f) {
			perror(seeds);
			return 1;
		}
		while ((rc = cxlv_seed_next(f, &r, &want, &line)) > 0)
			cxlv_rec_write(stdout, &r);
		fclose(f);
		if (rc < 0) {
			fprintf(stderr, "%s:%u: malformed seed line\n", seeds, line);
			return 1;
		}
	}
	for (i = 0; i < count; i++) {
		cxlv_fuzz_generate(seed, i, &r);
		if (cxlv_rec_write(stdout, &r))
			return 1;
	}
	return fflush(stdout) ? 1 : 0;
}

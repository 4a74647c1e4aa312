// SPDX-License-Identifier: GPL-2.0-only
/*
 * dropcap CAP CMD [ARGS...]: runs CMD as the same user without capability
 * number CAP (dropped from the bounding set, so that root's exec cannot gain
 * it back). Used by the e2e scenarios to show that a control file wants a
 * capability, not just an open file or uid 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char *end;
	long cap;

	if (argc < 3) {
		fprintf(stderr, "usage: dropcap CAP CMD [ARGS...]\n");
		return 2;
	}
	cap = strtol(argv[1], &end, 10);
	if (*end || cap < 0) {
		fprintf(stderr, "dropcap: bad capability number '%s'\n", argv[1]);
		return 2;
	}
	if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)) {
		perror("dropcap: PR_CAPBSET_DROP");
		return 1;
	}
	execvp(argv[2], argv + 2);
	perror("dropcap: exec");
	return 127;
}

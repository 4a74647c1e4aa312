// SPDX-License-Identifier: GPL-2.0-only
/*
 * poison-touch: maps a byte of a DAX device or file and waits for the
 * kernel's memory-failure handling to take the page away.
 *
 * usage: poison-touch FILE OFFSET SECONDS
 *
 * Asks for early memory-failure kills (prctl PR_MCE_KILL_EARLY, what a
 * program that wants to hear of poison before it touches it does), maps the
 * 2 MiB around OFFSET of FILE shared (a devdax device's default
 * alignment; read-only when FILE is on a read-only mount), reads the byte at OFFSET so the page is mapped, prints
 * "mapped" and then waits up to SECONDS for SIGBUS. On SIGBUS it prints
 * "sigbus BUS_MCEERR_AO|BUS_MCEERR_AR|code=N addr=OFFSET' lsb=N", OFFSET'
 * being the faulting address's offset in FILE, and exits 0; on time-out it
 * reads the byte again, prints "no sigbus, read 0xNN" and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#define SPAN (2UL << 20)

static char *map_base;
static uint64_t map_off;

static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
	const char *code = si->si_code == BUS_MCEERR_AO ? "BUS_MCEERR_AO" :
			   si->si_code == BUS_MCEERR_AR ? "BUS_MCEERR_AR" : NULL;
	uint64_t off = map_off + ((char *)si->si_addr - map_base);

	(void)sig;
	(void)ctx;
	if (code)
		printf("sigbus %s addr=%#llx lsb=%d\n", code,
		       (unsigned long long)off, si->si_addr_lsb);
	else
		printf("sigbus code=%d addr=%#llx\n", si->si_code,
		       (unsigned long long)off);
	fflush(stdout);
	_exit(0);
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	volatile char *byte;
	uint64_t off;
	int fd, secs, prot = PROT_READ | PROT_WRITE;

	if (argc != 4) {
		fprintf(stderr, "usage: poison-touch FILE OFFSET SECONDS\n");
		return 2;
	}
	if (prctl(PR_MCE_KILL, PR_MCE_KILL_SET, PR_MCE_KILL_EARLY, 0, 0)) {
		perror("prctl PR_MCE_KILL");
		return 2;
	}
	off = strtoull(argv[2], NULL, 0);
	secs = atoi(argv[3]);
	/* a file on a read-only mount is mapped read-only */
	fd = open(argv[1], O_RDWR);
	if (fd < 0 && errno == EROFS) {
		prot = PROT_READ;
		fd = open(argv[1], O_RDONLY);
	}
	if (fd < 0) {
		perror(argv[1]);
		return 2;
	}
	map_off = off & ~(SPAN - 1);
	map_base = mmap(NULL, SPAN, prot, MAP_SHARED, fd, map_off);
	if (map_base == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGBUS, &sa, NULL);

	byte = (volatile char *)map_base + (off - map_off);
	(void)*byte;
	printf("mapped\n");
	fflush(stdout);
	while (secs-- > 0)
		sleep(1);
	printf("no sigbus, read %#x\n", (unsigned char)*byte);
	return 1;
}

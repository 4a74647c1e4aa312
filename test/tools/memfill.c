// SPDX-License-Identifier: GPL-2.0-only
/*
 * memfill: fills free memory with a marker and exits, so that the pages it
 * had go back to the kernel's free lists still holding the marker; what a
 * borrow of System RAM must not hand to user space.
 *
 * usage: memfill MIB
 *        memfill -z PATH BYTES
 *
 * Maps MIB MiB of anonymous memory (huge pages where it can: a TCG guest
 * faults 4 KiB pages in slowly) and writes "cxlv stale data!" at every
 * 256th byte of it, then prints, for every GiB of physical
 * memory that got a page of it, one line "START PAGES" (decimal; from
 * /proc/self/pagemap: needs root) and exits.
 *
 * With -z, reads the first BYTES of PATH (a block device: O_DIRECT, so
 * straight from the device) and exits 0 if they are all zero, else prints
 * the first offset that is not and exits 1. Far faster than cmp in a TCG
 * guest.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define GIB_SHIFT 30
#define MAX_GIB 256
#define PFN_MASK ((1ULL << 55) - 1)
#define PRESENT (1ULL << 63)
#define CHUNK (1UL << 20)
#define STRIDE 256

static const char marker[] = "cxlv stale data!";	/* 16 bytes */

/* -z PATH BYTES: are the first BYTES of PATH zero? */
static int zero_check(const char *path, unsigned long long bytes)
{
	unsigned long long off, i, n;
	uint64_t *buf, acc;
	int fd = open(path, O_RDONLY | O_DIRECT);

	if (fd < 0 || posix_memalign((void **)&buf, CHUNK, CHUNK)) {
		perror(path);
		return 2;
	}
	for (off = 0; off < bytes; off += n) {
		n = bytes - off < CHUNK ? bytes - off : CHUNK;
		if (pread(fd, buf, n, off) != (ssize_t)n) {
			fprintf(stderr, "%s: short read at %llu\n", path, off);
			return 2;
		}
		for (acc = 0, i = 0; i < n / sizeof(*buf); i++)
			acc |= buf[i];
		if (!acc)
			continue;
		for (i = 0; !buf[i]; i++)
			;
		printf("%s: not zero at byte %llu: %#llx\n", path,
		       off + i * sizeof(*buf), (unsigned long long)buf[i]);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static unsigned long per_gib[MAX_GIB];
	long page = sysconf(_SC_PAGESIZE);
	size_t size, npages, i, off;
	uint64_t *map;
	char *mem;
	int fd;

	if (argc == 4 && !strcmp(argv[1], "-z"))
		return zero_check(argv[2], strtoull(argv[3], NULL, 0));
	if (argc != 2 || atol(argv[1]) <= 0) {
		fprintf(stderr, "usage: memfill MIB | memfill -z PATH BYTES\n");
		return 2;
	}
	size = (size_t)atol(argv[1]) << 20;
	npages = size / page;
	mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	map = calloc(npages, sizeof(*map));
	if (mem == MAP_FAILED || !map) {
		perror("memfill: mmap");
		return 1;
	}
	madvise(mem, size, MADV_HUGEPAGE);	/* a hint: 4 KiB pages work too */
	for (off = 0; off < size; off += STRIDE)
		memcpy(mem + off, marker, sizeof(marker) - 1);
	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0 || pread(fd, map, npages * sizeof(*map),
			    (uintptr_t)mem / page * sizeof(*map)) !=
		      (ssize_t)(npages * sizeof(*map))) {
		perror("memfill: /proc/self/pagemap");
		return 1;
	}
	for (i = 0; i < npages; i++) {
		uint64_t gib = (map[i] & PFN_MASK) * page >> GIB_SHIFT;

		if ((map[i] & PRESENT) && gib < MAX_GIB)
			per_gib[gib]++;
	}
	for (i = 0; i < MAX_GIB; i++)
		if (per_gib[i])
			printf("%llu %lu\n",
			       (unsigned long long)i << GIB_SHIFT, per_gib[i]);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * memiops: the lean data-path benchmark. It maps a device-dax node (or
 * anonymous RAM) and copies fixed-size blocks to or from random, block-aligned
 * offsets with plain memcpy for a fixed time, one thread, no flushes: what an
 * application doing loads and stores to CXL memory sees, without the
 * per-I/O cost of fio's engine hiding the medium under TCG.
 *
 *   memiops write|read [--bs BYTES] [--size BYTES] [--seconds S] [--seed N]
 *                      /dev/daxX.Y|anon
 *
 * Every page of the working set (--size, default 256 MiB, capped at the
 * device size) is written once before the clock starts so page faults are
 * not counted.
 * Prints one line: "iops=<ops per second> ops=<count> seconds=<elapsed>".
 * Sizes are bytes, decimal or 0x hex. Exit: 0 ok, 2 usage or system error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

/* Operations between two clock reads: small against a second, cheap to count. */
#define OPS_PER_CLOCK_CHECK 1024
#define MAX_BLOCK (1UL << 20)

static char block[MAX_BLOCK] __attribute__((aligned(4096)));

static void die(const char *what, const char *detail)
{
	fprintf(stderr, "memiops: %s: %s\n", what, detail);
	exit(2);
}

static void usage(void)
{
	die("usage", "memiops write|read [--bs BYTES] [--size BYTES] [--seconds S] "
	    "[--seed N] /dev/daxX.Y|anon");
}

static uint64_t parse_number(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	if (end == s || *end || v == UINT64_MAX)
		die("not a number of bytes (decimal or 0x hex, no suffix)", s);
	return v;
}

/* dax_size: the size the kernel gives a device-dax node in sysfs. */
static uint64_t dax_size(int fd, const char *path)
{
	char attr[96];
	struct stat st;
	unsigned long long size;
	FILE *f;

	if (fstat(fd, &st) || !S_ISCHR(st.st_mode))
		die("not a character device (want /dev/daxX.Y or anon)", path);
	snprintf(attr, sizeof(attr), "/sys/dev/char/%u:%u/size",
		 major(st.st_rdev), minor(st.st_rdev));
	f = fopen(attr, "r");
	if (!f || fscanf(f, "%llu", &size) != 1)
		die("cannot read the device size", attr);
	fclose(f);
	return size;
}

static char *map_target(const char *path, uint64_t *size)
{
	uint64_t device_size;
	void *p;
	int fd;

	if (!strcmp(path, "anon")) {
		p = mmap(NULL, *size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			die("mmap anonymous", strerror(errno));
		return p;
	}
	fd = open(path, O_RDWR);
	if (fd < 0)
		die(path, strerror(errno));
	device_size = dax_size(fd, path);
	if (device_size < *size)
		*size = device_size;
	p = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap (device-dax mappings must be a multiple of the device alignment)",
		    strerror(errno));
	close(fd);
	return p;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* xorshift64: fast and good enough to scatter offsets. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

int main(int argc, char **argv)
{
	uint64_t bs = 1024, size = 256ULL << 20, seed = 1, blocks, ops = 0, i;
	double seconds = 2, start, elapsed;
	const char *target = NULL;
	char *base;
	int writing, a;

	if (argc < 2)
		usage();
	if (!strcmp(argv[1], "write"))
		writing = 1;
	else if (!strcmp(argv[1], "read"))
		writing = 0;
	else
		usage();
	for (a = 2; a < argc; a++) {
		if (!strcmp(argv[a], "--bs") && a + 1 < argc)
			bs = parse_number(argv[++a]);
		else if (!strcmp(argv[a], "--size") && a + 1 < argc)
			size = parse_number(argv[++a]);
		else if (!strcmp(argv[a], "--seconds") && a + 1 < argc)
			seconds = atof(argv[++a]);
		else if (!strcmp(argv[a], "--seed") && a + 1 < argc)
			seed = parse_number(argv[++a]) | 1;
		else if (argv[a][0] != '-' && !target)
			target = argv[a];
		else
			usage();
	}
	if (!target || !bs || bs > MAX_BLOCK || seconds <= 0)
		usage();
	base = map_target(target, &size);
	blocks = size / bs;
	if (!blocks)
		die("working set smaller than one block", target);

	/* one store per page maps it: a memset would crawl on QEMU's device */
	for (i = 0; i < size; i += 4096)
		base[i] = 0x5a;
	memset(block, 0xa5, bs);
	start = now();
	do {
		for (i = 0; i < OPS_PER_CLOCK_CHECK; i++) {
			char *at = base + next_random(&seed) % blocks * bs;

			if (writing)
				memcpy(at, block, bs);
			else
				memcpy(block, at, bs);
			/* the copies are the point: keep the compiler from eliding them */
			__asm__ volatile("" ::: "memory");
		}
		ops += OPS_PER_CLOCK_CHECK;
		elapsed = now() - start;
	} while (elapsed < seconds);
	printf("iops=%.0f ops=%llu seconds=%.3f\n", ops / elapsed,
	       (unsigned long long)ops, elapsed);
	return 0;
}

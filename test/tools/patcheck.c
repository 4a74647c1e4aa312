// SPDX-License-Identifier: GPL-2.0
/*
 * patcheck: writes a seeded, position-dependent pattern to a file or device
 * and verifies it, reporting the offsets that do not read back.
 *
 *   patcheck write|verify [--mmap] [--seed N] [--offset BYTES] [--size BYTES]
 *                         [--align BYTES] PATH
 *
 * Each 8-byte word holds a hash of (seed, its absolute offset), so data that
 * lands at the wrong place, never lands, or comes from another run is caught.
 * --mmap goes through a shared mapping (the only way into /dev/daxX.Y, whose
 * mappings must be aligned: --align, default 2M for character devices). The
 * default is pread/pwrite; verify drops the page cache of the target first so
 * it reads the medium, not the cache. Sizes take K, M, G suffixes. The size
 * defaults to the target's size (file, block device, or device-dax sysfs size).
 * Exit: 0 ok, 1 mismatch, 2 usage or I/O error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define CHUNK (1u << 20)
#define MAX_REPORTED 8

struct opts {
	int write;
	int use_mmap;
	uint64_t seed;
	uint64_t offset;
	uint64_t size;
	uint64_t align;
	const char *path;
};

static void fail(const char *what, const char *path)
{
	fprintf(stderr, "patcheck: %s %s: %s\n", what, path, strerror(errno));
	exit(2);
}

static void print_usage(const char *why)
{
	fprintf(stderr, "patcheck: %s\n%s\n", why,
		"usage: patcheck write|verify [--mmap] [--seed N] [--offset BYTES] [--size BYTES] [--align BYTES] PATH");
	exit(2);
}

static uint64_t parse_size(const char *s)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		print_usage("bad number");
	if (*end) {
		const char *units = "KMG";
		const char *unit = strchr(units, *end & ~0x20);

		if (!unit || end[1])
			print_usage("bad number suffix (use K, M or G)");
		v <<= 10 * (unit - units + 1);
	}
	return v;
}

/* splitmix64 of (seed, word index): cheap, and no two words repeat. */
static uint64_t pattern_word(uint64_t seed, uint64_t byte_offset)
{
	uint64_t z = seed * 0x9e3779b97f4a7c15ULL + (byte_offset >> 3) + 1;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void fill(uint64_t *buf, size_t len, uint64_t seed, uint64_t at)
{
	for (size_t i = 0; i < len / 8; i++)
		buf[i] = pattern_word(seed, at + i * 8);
}

/* compare: counts mismatching words of buf (at absolute offset at). */
static uint64_t compare(const uint64_t *buf, size_t len, uint64_t seed, uint64_t at,
			uint64_t reported)
{
	uint64_t bad = 0;

	for (size_t i = 0; i < len / 8; i++) {
		uint64_t want = pattern_word(seed, at + i * 8);

		if (buf[i] == want)
			continue;
		if (reported + bad < MAX_REPORTED)
			printf("mismatch at offset 0x%" PRIx64 ": expected 0x%016" PRIx64
			       " got 0x%016" PRIx64 "\n", at + i * 8, want, buf[i]);
		bad++;
	}
	return bad;
}

/* target_size: the size of a regular file, block device or device-dax node. */
static uint64_t target_size(int fd, const struct stat *st, const char *path)
{
	char sysfs[128];
	unsigned long long v;
	uint64_t size;
	FILE *f;

	if (S_ISREG(st->st_mode))
		return st->st_size;
	if (S_ISBLK(st->st_mode)) {
		if (ioctl(fd, BLKGETSIZE64, &size))
			fail("cannot size block device", path);
		return size;
	}
	snprintf(sysfs, sizeof(sysfs), "/sys/dev/char/%u:%u/size",
		 major(st->st_rdev), minor(st->st_rdev));
	f = fopen(sysfs, "r");
	if (!f || fscanf(f, "%llu", &v) != 1)
		fail("cannot size (no --size and unreadable)", sysfs);
	fclose(f);
	return v;
}

static uint64_t run_mmap(const struct opts *o, int fd)
{
	uint64_t bad = 0;
	char *map;

	map = mmap(NULL, o->size, o->write ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED,
		   fd, o->offset);
	if (map == MAP_FAILED)
		fail("cannot mmap", o->path);
	for (uint64_t done = 0; done < o->size; done += CHUNK) {
		size_t len = o->size - done < CHUNK ? o->size - done : CHUNK;
		uint64_t *p = (uint64_t *)(map + done);

		if (o->write)
			fill(p, len, o->seed, o->offset + done);
		else
			bad += compare(p, len, o->seed, o->offset + done, bad);
	}
	if (o->write && msync(map, o->size, MS_SYNC) && errno != EINVAL)
		fail("msync failed on", o->path);
	munmap(map, o->size);
	return bad;
}

static uint64_t run_rw(const struct opts *o, int fd, const struct stat *st)
{
	uint64_t bad = 0;
	uint64_t *buf;

	buf = aligned_alloc(4096, CHUNK);
	if (!buf)
		fail("out of memory for", o->path);
	if (!o->write) {
		if (S_ISBLK(st->st_mode))
			ioctl(fd, BLKFLSBUF, 0);
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	}
	for (uint64_t done = 0; done < o->size; done += CHUNK) {
		size_t len = o->size - done < CHUNK ? o->size - done : CHUNK;
		ssize_t n;

		if (o->write) {
			fill(buf, len, o->seed, o->offset + done);
			n = pwrite(fd, buf, len, o->offset + done);
		} else {
			n = pread(fd, buf, len, o->offset + done);
		}
		if (n < 0)
			fail(o->write ? "cannot write" : "cannot read", o->path);
		if (n != (ssize_t)len) {
			fprintf(stderr, "patcheck: %s %s at offset 0x%" PRIx64 ": past its end?\n",
				o->write ? "short write to" : "short read from", o->path,
				o->offset + done + n);
			exit(2);
		}
		if (!o->write)
			bad += compare(buf, len, o->seed, o->offset + done, bad);
	}
	if (o->write && fsync(fd) && errno != EINVAL)
		fail("fsync failed on", o->path);
	free(buf);
	return bad;
}

static void parse(int argc, char **argv, struct opts *o)
{
	int i = 2;

	if (argc < 3)
		print_usage("missing arguments");
	if (!strcmp(argv[1], "write"))
		o->write = 1;
	else if (strcmp(argv[1], "verify"))
		print_usage("first argument must be write or verify");
	for (; i < argc - 1; i++) {
		if (!strcmp(argv[i], "--mmap"))
			o->use_mmap = 1;
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc - 1)
			o->seed = parse_size(argv[++i]);
		else if (!strcmp(argv[i], "--offset") && i + 1 < argc - 1)
			o->offset = parse_size(argv[++i]);
		else if (!strcmp(argv[i], "--size") && i + 1 < argc - 1)
			o->size = parse_size(argv[++i]);
		else if (!strcmp(argv[i], "--align") && i + 1 < argc - 1)
			o->align = parse_size(argv[++i]);
		else
			print_usage("unknown option or missing value");
	}
	o->path = argv[argc - 1];
}

int main(int argc, char **argv)
{
	struct opts o = { .seed = 1 };
	struct stat st;
	uint64_t bad;
	int fd;

	parse(argc, argv, &o);
	fd = open(o.path, o.write ? O_RDWR | O_CREAT : O_RDONLY, 0644);
	if (fd < 0)
		fail("cannot open", o.path);
	if (fstat(fd, &st))
		fail("cannot stat", o.path);
	if (!o.size) {
		o.size = target_size(fd, &st, o.path);
		if (o.size <= o.offset)
			print_usage("nothing to do: give --size (target is empty or offset past its end)");
		o.size -= o.offset;
	}
	if (!o.align)
		o.align = S_ISCHR(st.st_mode) ? 2u << 20 : 4096;
	if (o.offset % 8 || o.size % 8)
		print_usage("offset and size must be multiples of 8");
	if (o.use_mmap && (o.offset % o.align || o.size % o.align))
		print_usage("--mmap needs offset and size aligned to --align (device-dax: 2M)");
	if (o.write && S_ISREG(st.st_mode) && (uint64_t)st.st_size < o.offset + o.size &&
	    ftruncate(fd, o.offset + o.size))
		fail("cannot extend", o.path);

	bad = o.use_mmap ? run_mmap(&o, fd) : run_rw(&o, fd, &st);
	close(fd);
	if (bad) {
		printf("patcheck: FAILED %s: %" PRIu64 " of %" PRIu64
		       " words wrong in [0x%" PRIx64 ", 0x%" PRIx64 ") (seed %" PRIu64 ")\n",
		       o.path, bad, o.size / 8, o.offset, o.offset + o.size, o.seed);
		return 1;
	}
	printf("patcheck: %s %s ok: %" PRIu64 " bytes at 0x%" PRIx64 " (seed %" PRIu64 ", %s)\n",
	       o.write ? "write" : "verify", o.path, o.size, o.offset, o.seed,
	       o.use_mmap ? "mmap" : "read/write");
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * longterm-pin: pins anonymous memory the way RDMA and io_uring do, so that
 * the kernel cannot migrate it and memory offlining cannot finish.
 *
 * usage: longterm-pin MIB
 *
 * Maps and touches MIB MiB of anonymous memory and registers it as io_uring
 * fixed buffers (IORING_REGISTER_BUFFERS pins with FOLL_LONGTERM; outside
 * ZONE_MOVABLE the pages stay where they are). Then prints, one per line,
 * the physical start of every 256 MiB piece of memory that holds a pinned
 * page (from /proc/self/pagemap: needs root), then "pinned", and waits to
 * be killed, which unpins everything.
 */
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define PIECE (256ULL << 20)
#define MAX_PIECES 4096
#define BUF_MAX (1ULL << 30)	/* io_uring's limit per buffer */

int main(int argc, char **argv)
{
	static uint64_t pieces[MAX_PIECES];
	uint64_t *entries;
	struct io_uring_params params;
	size_t size, off, nbufs, i;
	long page = sysconf(_SC_PAGESIZE);
	int ring, pagemap, n = 0, j;
	struct iovec *iov;
	char *mem;

	if (argc != 2 || atoi(argv[1]) <= 0) {
		fprintf(stderr, "usage: longterm-pin MIB\n");
		return 2;
	}
	size = (size_t)atoi(argv[1]) << 20;
	mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (mem == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	memset(mem, 0x5a, size);
	memset(&params, 0, sizeof(params));
	ring = syscall(__NR_io_uring_setup, 4, &params);
	if (ring < 0) {
		perror("io_uring_setup");
		return 1;
	}
	nbufs = (size + BUF_MAX - 1) / BUF_MAX;
	iov = calloc(nbufs, sizeof(*iov));
	for (i = 0; i < nbufs; i++) {
		iov[i].iov_base = mem + i * BUF_MAX;
		iov[i].iov_len = size - i * BUF_MAX < BUF_MAX ?
				 size - i * BUF_MAX : BUF_MAX;
	}
	if (syscall(__NR_io_uring_register, ring, IORING_REGISTER_BUFFERS,
		    iov, nbufs) < 0) {
		perror("IORING_REGISTER_BUFFERS");
		return 1;
	}
	pagemap = open("/proc/self/pagemap", O_RDONLY);
	if (pagemap < 0) {
		perror("/proc/self/pagemap");
		return 1;
	}
	entries = malloc(size / page * sizeof(*entries));
	if (!entries || pread(pagemap, entries, size / page * sizeof(*entries),
			      (uintptr_t)mem / page * sizeof(*entries)) !=
	    (ssize_t)(size / page * sizeof(*entries))) {
		perror("read /proc/self/pagemap");
		return 1;
	}
	for (off = 0; off < size; off += page) {
		uint64_t e = entries[off / page], phys;

		if (!(e & (1ULL << 63)) || !(e & ((1ULL << 55) - 1))) {
			fprintf(stderr, "no physical address for offset %zu\n",
				off);
			return 1;
		}
		phys = (e & ((1ULL << 55) - 1)) * page / PIECE * PIECE;
		for (j = 0; j < n && pieces[j] != phys; j++)
			;
		if (j == n && n < MAX_PIECES)
			pieces[n++] = phys;
	}
	for (j = 0; j < n; j++)
		printf("%#llx\n", (unsigned long long)pieces[j]);
	printf("pinned\n");
	fflush(stdout);
	for (;;)
		pause();
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxl-mbox-probe: sends single mailbox commands through the two user paths
 * a CXL memdev has, to test what the device answers where the stock tools
 * refuse to go (out-of-range label offsets) and to time the mailbox without
 * process start-up in the way.
 *
 *   cxl-mbox-probe mem-cmd  /dev/cxl/memN ID OUTSIZE   command without input
 *   cxl-mbox-probe mem-send /dev/cxl/memN ID OUTSIZE HEX  command with input
 *   cxl-mbox-probe get-lsa  /dev/cxl/memN OFFSET LENGTH [COUNT]
 *   cxl-mbox-probe nd-get   /dev/nmemN OFFSET LENGTH
 *   cxl-mbox-probe nd-set   /dev/nmemN OFFSET LENGTH BYTE
 *   cxl-mbox-probe phys-read ADDRESS LENGTH        raw bytes to stdout
 *   cxl-mbox-probe phys-write32 ADDRESS VALUE      one 32-bit store
 *   cxl-mbox-probe raw-doorbell BAR0 OPCODE [LEN [HEX]]  one command on the registers
 *
 * Each prints one line "ioctl=<errno name or 0> retval=<device return code>
 * out=<bytes>"; out is 0 when the device returned an error (6.1 then leaves
 * the requested size in place). get-lsa with COUNT > 1 also prints
 * "us_per_cmd=<average>". mem-send takes its input as HEX (two hex digits
 * a byte, "" for none) and adds " data=<the output in hex>" to the line.
 * The exit code is 0 when the ioctl itself succeeded, 1 otherwise, 2 on
 * usage errors. OFFSET etc. accept 0x hex. phys-read maps /dev/mem, which
 * reaches reserved memory above the end of RAM where read() cannot.
 *
 * raw-doorbell goes under the kernel, which refuses unknown opcodes itself:
 * with cxl_pci unbound it maps the device register block at physical BAR0
 * (CXL 3.0 8.2.8) through /dev/mem, finds the primary mailbox in the
 * capability array, fills the payload area with a pattern (byte i is
 * 0xa5 ^ i) whose first bytes HEX (two hex digits a byte) replaces, sends OPCODE
 * with LEN (default 0) input bytes and waits up to 2 s for the doorbell to
 * clear. It prints "rc=<return code> out_len=<output length>
 * changed=<bytes of the register block, payload area included, that changed
 * outside the mailbox control, command, status and background status
 * registers>" and exits 0 once the doorbell cleared, 1 otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/cxl_mem.h>
#include <linux/ndctl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static const char *errname(int err)
{
	switch (err) {
	case 0: return "0";
	case ENOTTY: return "ENOTTY";
	case ENXIO: return "ENXIO";
	case EINVAL: return "EINVAL";
	case EBUSY: return "EBUSY";
	case EPERM: return "EPERM";
	case ENOMEM: return "ENOMEM";
	case EIO: return "EIO";
	case E2BIG: return "E2BIG";
	default: return strerror(err);
	}
}

static unsigned long num(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (*s == '\0' || *end != '\0') {
		fprintf(stderr, "cxl-mbox-probe: '%s' is not a number\n", s);
		exit(2);
	}
	return v;
}

static int open_dev(const char *path)
{
	int fd = open(path, O_RDWR);

	if (fd < 0) {
		fprintf(stderr, "cxl-mbox-probe: open %s: %s\n", path, strerror(errno));
		exit(2);
	}
	return fd;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* One CXL_MEM_SEND_COMMAND; returns the ioctl's errno (0 on success). */
static int mem_send(int fd, struct cxl_send_command *cmd)
{
	return ioctl(fd, CXL_MEM_SEND_COMMAND, cmd) ? errno : 0;
}

static int report(int err, unsigned int retval, unsigned long out)
{
	if (err || retval)
		out = 0;
	printf("ioctl=%s retval=%u out=%lu\n", errname(err), retval, out);
	return err ? 1 : 0;
}

static int mem_cmd(int fd, unsigned int id, unsigned long out_size)
{
	unsigned char *out = calloc(1, out_size + 1);
	struct cxl_send_command cmd = {
		.id = id,
		.out = { .size = out_size, .payload = (uintptr_t)out },
	};
	int err = mem_send(fd, &cmd);

	return report(err, cmd.retval, cmd.out.size);
}

static int put_hex(volatile unsigned char *at, const char *hex);

static int mem_send_hex(int fd, unsigned int id, unsigned long out_size,
			const char *hex)
{
	static unsigned char in[4096];
	unsigned char *out = calloc(1, out_size + 1);
	struct cxl_send_command cmd = {
		.id = id,
		.in = { .size = strlen(hex) / 2, .payload = (uintptr_t)in },
		.out = { .size = out_size, .payload = (uintptr_t)out },
	};
	unsigned long i;
	int err;

	if (!put_hex(in, hex)) {
		fprintf(stderr, "cxl-mbox-probe: HEX '%s' is not whole bytes of hex digits\n",
			hex);
		exit(2);
	}
	err = mem_send(fd, &cmd);
	if (err || cmd.retval)
		cmd.out.size = 0;
	printf("ioctl=%s retval=%u out=%lu data=", errname(err), cmd.retval,
	       (unsigned long)cmd.out.size);
	for (i = 0; i < cmd.out.size; i++)
		printf("%02x", out[i]);
	printf("\n");
	return err ? 1 : 0;
}

static int get_lsa(int fd, unsigned long offset, unsigned long length,
		   unsigned long count)
{
	struct { uint32_t offset, length; } in = { offset, length };
	unsigned char *out = calloc(1, length + 1);
	struct cxl_send_command cmd;
	double t0 = now_us();
	unsigned long i;
	int err = 0;

	for (i = 0; i < count && !err; i++) {
		cmd = (struct cxl_send_command) {
			.id = CXL_MEM_COMMAND_ID_GET_LSA,
			.in = { .size = sizeof(in), .payload = (uintptr_t)&in },
			.out = { .size = length, .payload = (uintptr_t)out },
		};
		err = mem_send(fd, &cmd);
		if (!err && cmd.retval)
			break;
	}
	if (count > 1 && !err && !cmd.retval)
		printf("us_per_cmd=%.1f\n", (now_us() - t0) / count);
	return report(err, cmd.retval, cmd.out.size);
}

static int nd_get(int fd, unsigned long offset, unsigned long length)
{
	struct nd_cmd_get_config_data_hdr *hdr = calloc(1, sizeof(*hdr) + length);
	int err;

	hdr->in_offset = offset;
	hdr->in_length = length;
	err = ioctl(fd, ND_IOCTL_GET_CONFIG_DATA, hdr) ? errno : 0;
	return report(err, hdr->status, length);
}

static int nd_set(int fd, unsigned long offset, unsigned long length, int byte)
{
	/* the 4-byte firmware status follows the data */
	struct nd_cmd_set_config_hdr *hdr = calloc(1, sizeof(*hdr) + length + 4);
	uint32_t status;
	int err;

	hdr->in_offset = offset;
	hdr->in_length = length;
	memset(hdr->in_buf, byte, length);
	err = ioctl(fd, ND_IOCTL_SET_CONFIG_DATA, hdr) ? errno : 0;
	memcpy(&status, hdr->in_buf + length, sizeof(status));
	return report(err, status, 0);
}

/* Maps [addr, addr + length) of /dev/mem; returns the address of addr. */
static void *phys_map(unsigned long addr, unsigned long length, int prot)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long base = addr & ~(page - 1), span = addr - base + length;
	int fd = open("/dev/mem", (prot & PROT_WRITE ? O_RDWR : O_RDONLY) | O_SYNC);
	unsigned char *map;

	if (fd < 0) {
		perror("cxl-mbox-probe: /dev/mem");
		return NULL;
	}
	map = mmap(NULL, span, prot, MAP_SHARED, fd, base);
	if (map == MAP_FAILED) {
		perror("cxl-mbox-probe: mmap /dev/mem");
		return NULL;
	}
	return map + (addr - base);
}

static int phys_read(unsigned long addr, unsigned long length)
{
	unsigned char *p = phys_map(addr, length, PROT_READ);

	return p && fwrite(p, 1, length, stdout) == length ? 0 : 1;
}

/* One 32-bit store, the way a driver (or a stray writer) would. */
static int phys_write32(unsigned long addr, unsigned long value)
{
	volatile uint32_t *p = phys_map(addr, 4, PROT_READ | PROT_WRITE);

	if (!p)
		return 1;
	*p = value;
	return 0;
}

/* CXL 3.0 8.2.8.1-8.2.8.4 device capability array and mailbox registers */
#define DEV_REGS_SIZE		0x10000
#define CAP_HDR_STRIDE		0x10
#define CAP_ID_PRIMARY_MAILBOX	2
#define MBOX_CTRL		0x04
#define MBOX_CTRL_DOORBELL	1u
#define MBOX_CMD		0x08
#define MBOX_STATUS		0x10
#define MBOX_PAYLOAD		0x20
#define MBOX_PAYLOAD_MAX	4096

static uint32_t reg32(volatile unsigned char *regs, unsigned long off)
{
	return *(volatile uint32_t *)(regs + off);
}

static uint64_t reg64(volatile unsigned char *regs, unsigned long off)
{
	return *(volatile uint64_t *)(regs + off);
}

/* Offset of the primary mailbox in the register block, 0 if none. */
static unsigned long find_mailbox(volatile unsigned char *regs)
{
	unsigned int count = (reg64(regs, 0) >> 32) & 0xffff, i;

	for (i = 1; i <= count && i * CAP_HDR_STRIDE < DEV_REGS_SIZE; i++)
		if ((reg32(regs, i * CAP_HDR_STRIDE) & 0xffff) ==
		    CAP_ID_PRIMARY_MAILBOX)
			return reg32(regs, i * CAP_HDR_STRIDE + 4);
	return 0;
}

/* Bytes that differ, skipping the registers a command may change. */
static unsigned long changed_bytes(const unsigned char *before,
				   volatile unsigned char *regs,
				   unsigned long mbox)
{
	unsigned long i, n = 0;

	for (i = 0; i < DEV_REGS_SIZE; i++)
		if (before[i] != regs[i] &&
		    (i < mbox + MBOX_CTRL || i >= mbox + MBOX_PAYLOAD))
			n++;
	return n;
}

/* Stores HEX's bytes (two hex digits each) from @at; false if malformed. */
static int put_hex(volatile unsigned char *at, const char *hex)
{
	size_t i, n = strlen(hex);
	unsigned int byte;

	if (n % 2 || n / 2 > MBOX_PAYLOAD_MAX)
		return 0;
	for (i = 0; i < n; i += 2) {
		if (sscanf(hex + i, "%2x", &byte) != 1)
			return 0;
		at[i / 2] = byte;
	}
	return 1;
}

static int raw_doorbell(unsigned long bar, unsigned int opcode,
			unsigned long len, const char *hex)
{
	static unsigned char before[DEV_REGS_SIZE];
	volatile unsigned char *regs;
	unsigned long mbox, i;
	uint64_t cmd;

	regs = phys_map(bar, DEV_REGS_SIZE, PROT_READ | PROT_WRITE);
	if (!regs) {
		fprintf(stderr, "cxl-mbox-probe: is cxl_pci still bound?\n");
		return 1;
	}
	mbox = find_mailbox(regs);
	if (!mbox || mbox + MBOX_PAYLOAD + MBOX_PAYLOAD_MAX > DEV_REGS_SIZE ||
	    len > MBOX_PAYLOAD_MAX) {
		fprintf(stderr, "cxl-mbox-probe: no usable primary mailbox at %#lx or LEN over 4096\n",
			bar);
		return 1;
	}
	if (reg32(regs, mbox + MBOX_CTRL) & MBOX_CTRL_DOORBELL) {
		fprintf(stderr, "cxl-mbox-probe: doorbell busy; unbind cxl_pci first\n");
		return 1;
	}
	for (i = 0; i < MBOX_PAYLOAD_MAX; i++)
		regs[mbox + MBOX_PAYLOAD + i] = 0xa5 ^ i;
	if (!put_hex(regs + mbox + MBOX_PAYLOAD, hex)) {
		fprintf(stderr, "cxl-mbox-probe: HEX '%s' is not whole bytes of hex digits\n",
			hex);
		return 2;
	}
	for (i = 0; i < DEV_REGS_SIZE; i++)
		before[i] = regs[i];

	cmd = (opcode & 0xffff) | (uint64_t)len << 16;
	*(volatile uint64_t *)(regs + mbox + MBOX_CMD) = cmd;
	*(volatile uint32_t *)(regs + mbox + MBOX_CTRL) = MBOX_CTRL_DOORBELL;
	for (i = 0; i < 2000 &&
	     (reg32(regs, mbox + MBOX_CTRL) & MBOX_CTRL_DOORBELL); i++)
		usleep(1000);
	if (reg32(regs, mbox + MBOX_CTRL) & MBOX_CTRL_DOORBELL) {
		fprintf(stderr, "cxl-mbox-probe: doorbell still set after 2 s\n");
		return 1;
	}
	printf("rc=%#x out_len=%u changed=%lu\n",
	       (unsigned int)(reg64(regs, mbox + MBOX_STATUS) >> 32) & 0xffff,
	       (unsigned int)(reg64(regs, mbox + MBOX_CMD) >> 16) & 0x1fffff,
	       changed_bytes(before, regs, mbox));
	return 0;
}

int main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "";

	if (!strcmp(op, "mem-cmd") && argc == 5)
		return mem_cmd(open_dev(argv[2]), num(argv[3]), num(argv[4]));
	if (!strcmp(op, "mem-send") && argc == 6)
		return mem_send_hex(open_dev(argv[2]), num(argv[3]),
				    num(argv[4]), argv[5]);
	if (!strcmp(op, "get-lsa") && (argc == 5 || argc == 6))
		return get_lsa(open_dev(argv[2]), num(argv[3]), num(argv[4]),
			       argc == 6 ? num(argv[5]) : 1);
	if (!strcmp(op, "nd-get") && argc == 5)
		return nd_get(open_dev(argv[2]), num(argv[3]), num(argv[4]));
	if (!strcmp(op, "nd-set") && argc == 6)
		return nd_set(open_dev(argv[2]), num(argv[3]), num(argv[4]),
			      num(argv[5]));
	if (!strcmp(op, "phys-read") && argc == 4)
		return phys_read(num(argv[2]), num(argv[3]));
	if (!strcmp(op, "phys-write32") && argc == 4)
		return phys_write32(num(argv[2]), num(argv[3]));
	if (!strcmp(op, "raw-doorbell") && argc >= 4 && argc <= 6)
		return raw_doorbell(num(argv[2]), num(argv[3]),
				    argc >= 5 ? num(argv[4]) : 0,
				    argc == 6 ? argv[5] : "");
	fprintf(stderr, "usage: see the comment at the top of cxl-mbox-probe.c\n");
	return 2;
}

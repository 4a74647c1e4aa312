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
 *   cxl-mbox-probe raw-fuzz BAR0 SEED COUNT [FIRST]  COUNT random commands on them
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
 *
 * raw-fuzz, on the same bare registers (cxl_pci unbound), sends commands
 * FIRST (default 0) to FIRST + COUNT - 1 of SEED; command i is a pure
 * function of (SEED, i) (splitmix64), so the line of a failure names what to
 * send again. At start it reads the CEL (Get Supported Logs, Get Log: CXL
 * r3.0 8.2.9.5), Identify, Get FW Info and the whole label area. Nine in
 * ten commands take an opcode of the CEL, one in ten one that is not in it;
 * the length is the command's own, one off, 0, the payload size, or any up
 * to the 21-bit field; the payload is random bytes or, seven times in ten,
 * valid fields with some mutated (offsets and lengths at and past the LSA
 * and the CEL, DPAs misaligned and past the capacity, passphrase types out
 * of range, reserved bits and bytes set, event logs and modes out of range,
 * firmware slots 0 and past the last, Transfer FW actions out of order,
 * partition sizes past the capacity). Commands whose success would change
 * what the rest relies on, or take long, are still sent, but only with
 * input that must be refused: Sanitize, Secure Erase and Freeze Security
 * State (erase the labels and memory, run in the background, or freeze the
 * security commands) with input; Set Passphrase and Passphrase Secure Erase
 * with a passphrase type out of range (a passphrase locks the device at
 * the next create and stays: non-volatile); Activate FW of slot 0, past the
 * last or the active one, and Transfer FW's Full and End to such a slot
 * (slots are non-volatile, an activation changes Identify); Set Partition
 * Info past the capacity (the layout is non-volatile, Immediate or not);
 * Set LSA past the end of the area (it would write labels). A transfer in
 * parts is aborted and the shutdown state (non-volatile) put back at the
 * end. Checked for every command: the doorbell clears within 2 s; the
 * return code is one cxlmem.h names (CXL r3.0 Table 8-34), never
 * Background Command Started, and Unsupported (or Unsupported Mailbox) for
 * an opcode not in the CEL (or Invalid Payload Length if the length is
 * past the payload area: the device checks that first); the output length is at most the payload size
 * and 0 unless Success; no byte of the register block outside the mailbox
 * control, command and status registers changed (a Success may write the
 * payload area and the Event Status register); after a refused command the
 * outputs of Identify, Get Partition Info, Get Security State, Get FW Info,
 * Get Health Info, Get Alert Configuration, Get Shutdown State, Get Event
 * Interrupt Policy and Get Poison List over the whole capacity (those the
 * CEL has; not Get Timestamp, which moves) are what they were before it.
 * The label area, which nothing sent may change, refused or not, is read
 * whole (32 commands) every 64 commands and at the end, and in part after
 * the commands that could touch it: the payload size's worth at Set LSA's
 * offset and at the end of the area, the start after an erase. Measured
 * in a TCG guest alone on the host (7.3): 2000 commands took 10 s, 7 s of
 * it the state commands after the 1560 refused ones (4.5 ms each), 0.7 s
 * the 252 label reads, about 0.5 ms per 4 KiB: the whole area (32 reads,
 * 17 ms) after every command would add some 35 s. With a second guest
 * running the whole run takes about twice as long. It
 * prints "sent=N seconds=S rc0x0=N rc0x2=N ... cel=N state_checks_s=S
 * lsa_reads=N lsa_s=S" (the time the checks took) and exits 0, or on
 * the first violation "FAIL seed=S index=I opcode=OP len=L payload=<its
 * first 32 bytes> <what broke>" and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/cxl_mem.h>
#include <linux/ndctl.h>
#include <sched.h>
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

/*
 * raw-fuzz: random mailbox commands on the bare registers (see the comment
 * at the top). Command @i of seed @s is a pure function of (s, i).
 */
#define OP_GET_EVENTS		0x0100
#define OP_CLEAR_EVENTS		0x0101
#define OP_GET_EVENT_POLICY	0x0102
#define OP_SET_EVENT_POLICY	0x0103
#define OP_GET_FW_INFO		0x0200
#define OP_TRANSFER_FW		0x0201
#define OP_ACTIVATE_FW		0x0202
#define OP_SET_TIMESTAMP	0x0301
#define OP_GET_SUPPORTED_LOGS	0x0400
#define OP_GET_LOG		0x0401
#define OP_IDENTIFY		0x4000
#define OP_GET_PARTITION	0x4100
#define OP_SET_PARTITION	0x4101
#define OP_GET_LSA		0x4102
#define OP_SET_LSA		0x4103
#define OP_GET_HEALTH		0x4200
#define OP_GET_ALERT		0x4201
#define OP_SET_ALERT		0x4202
#define OP_GET_SHUTDOWN		0x4203
#define OP_SET_SHUTDOWN		0x4204
#define OP_GET_POISON		0x4300
#define OP_INJECT_POISON	0x4301
#define OP_CLEAR_POISON		0x4302
#define OP_SANITIZE		0x4400
#define OP_SECURE_ERASE		0x4401
#define OP_GET_SECURITY		0x4500
#define OP_SET_PASSPHRASE	0x4501
#define OP_DISABLE_PASSPHRASE	0x4502
#define OP_UNLOCK		0x4503
#define OP_FREEZE_SECURITY	0x4504
#define OP_PASSPHRASE_ERASE	0x4505

#define RC_SUCCESS		0x0
#define RC_BACKGROUND		0x1
#define RC_UNSUPPORTED		0x3
#define RC_MB_UNSUPPORTED	0x15
#define RC_PAYLOADLEN		0x16
#define RC_LAST			0x1e	/* the last code cxlmem.h names */
#define CAP_ID_DEVICE_STATUS	1
#define CAPACITY_UNIT		(256ul << 20)	/* CXL r3.0 8.2.9.8.1.1 */
#define FUZZ_FULL_EVERY		64	/* commands between whole-LSA checks */
#define FUZZ_MAX_CEL		64

struct fuzz {
	volatile unsigned char *regs;
	unsigned long mbox, payload_size, status_reg;
	unsigned char before[DEV_REGS_SIZE];
	/* the device, read at start */
	uint16_t cel[FUZZ_MAX_CEL];
	unsigned int ncel;
	uint32_t lsa_size, cel_size;
	uint64_t capacity, align;
	unsigned int fw_slots, fw_active;
	unsigned char shutdown;
	unsigned char lsa[1 << 17];
	/* the state of the read-only commands, and where it was taken */
	unsigned char state[16384];
	size_t state_len;
	int state_fresh;
	unsigned long counts[RC_LAST + 2], sent, lsa_reads;
	double state_s, lsa_s;	/* time spent on the checks */
};

static const unsigned char cel_uuid[16] = {
	0x0d, 0xa9, 0xc0, 0xb5, 0xbf, 0x41, 0x4b, 0x78,
	0x8f, 0x79, 0x96, 0xb1, 0x62, 0x3b, 0x3f, 0x17,
};

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rnd(uint64_t *x, uint64_t n)
{
	return n ? splitmix64(x) % n : 0;
}

static void put_le(unsigned char *p, uint64_t v, int bytes)
{
	int i;

	for (i = 0; i < bytes; i++)
		p[i] = v >> (8 * i);
}

static uint64_t get_le(const volatile unsigned char *p, int bytes)
{
	uint64_t v = 0;
	int i;

	for (i = bytes - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void copy_in(volatile unsigned char *to, const unsigned char *from,
		    size_t n)
{
	size_t i;

	for (i = 0; i + 8 <= n; i += 8)
		*(volatile uint64_t *)(to + i) = *(const uint64_t *)(from + i);
	for (; i < n; i++)
		to[i] = from[i];
}

static void copy_out(unsigned char *to, const volatile unsigned char *from,
		     size_t n)
{
	size_t i;

	for (i = 0; i + 8 <= n; i += 8)
		*(uint64_t *)(to + i) = *(const volatile uint64_t *)(from + i);
	for (; i < n; i++)
		to[i] = from[i];
}

static double now_s(void)
{
	return now_us() / 1e6;
}

/*
 * One command: @len bytes of @in (at most the payload size of them) into
 * the payload area, then the doorbell. Returns the return code, -1 if the
 * doorbell did not clear in 2 s; *out_len gets the output length.
 */
static int fuzz_cmd(struct fuzz *f, unsigned int opcode, unsigned long len,
		    const unsigned char *in, unsigned long *out_len)
{
	volatile unsigned char *mb = f->regs + f->mbox;
	double deadline;

	copy_in(mb + MBOX_PAYLOAD, in, len < f->payload_size ? len : f->payload_size);
	*(volatile uint64_t *)(mb + MBOX_CMD) = (opcode & 0xffff) | (uint64_t)len << 16;
	*(volatile uint32_t *)(mb + MBOX_CTRL) = MBOX_CTRL_DOORBELL;
	deadline = now_s() + 2;
	while (reg32(mb, MBOX_CTRL) & MBOX_CTRL_DOORBELL)
		if (now_s() > deadline)
			return -1;
		else
			sched_yield();
	*out_len = (reg64(mb, MBOX_CMD) >> 16) & 0x1fffff;
	return (reg64(mb, MBOX_STATUS) >> 32) & 0xffff;
}

/* A read-only command that must succeed; its output appended to @to. */
static int fuzz_read(struct fuzz *f, unsigned int opcode,
		     const unsigned char *in, unsigned long in_len,
		     unsigned char *to, size_t *at, size_t room)
{
	unsigned long out_len;
	int rc = fuzz_cmd(f, opcode, in_len, in, &out_len);

	if (rc || out_len > f->payload_size || *at + out_len > room) {
		fprintf(stderr, "cxl-mbox-probe: state command %#06x: rc=%d out_len=%lu\n",
			opcode, rc, out_len);
		return -1;
	}
	copy_out(to + *at, f->regs + f->mbox + MBOX_PAYLOAD, out_len);
	*at += out_len;
	return 0;
}

static int fuzz_has(const struct fuzz *f, unsigned int opcode)
{
	unsigned int i;

	for (i = 0; i < f->ncel; i++)
		if (f->cel[i] == opcode)
			return 1;
	return 0;
}

/*
 * The outputs of the read-only state commands the device has, but Get
 * Timestamp (it moves) and Get LSA (fuzz_lsa); -1 if one failed.
 */
static int fuzz_state(struct fuzz *f, unsigned char *to, size_t *len)
{
	static const unsigned int ops[] = {
		OP_IDENTIFY, OP_GET_PARTITION, OP_GET_SECURITY, OP_GET_FW_INFO,
		OP_GET_HEALTH, OP_GET_ALERT, OP_GET_SHUTDOWN,
		OP_GET_EVENT_POLICY,
	};
	unsigned char in[16];
	double t0 = now_s();
	unsigned int i;
	int err = -1;

	*len = 0;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (fuzz_has(f, ops[i]) &&
		    fuzz_read(f, ops[i], NULL, 0, to, len, sizeof(f->state)))
			goto out;
	/* CXL r3.0 8.2.9.8.4.1: the whole capacity, in 64-byte units */
	put_le(in, 0, 8);
	put_le(in + 8, f->capacity / 64, 8);
	if (fuzz_has(f, OP_GET_POISON) &&
	    fuzz_read(f, OP_GET_POISON, in, 16, to, len, sizeof(f->state)))
		goto out;
	err = 0;
out:
	f->state_s += now_s() - t0;
	return err;
}

/*
 * [off, off + n) of the label storage area through Get LSA, into @to at
 * off; -1 if a read failed.
 */
static int fuzz_lsa(struct fuzz *f, unsigned char *to, uint32_t off, uint32_t n)
{
	unsigned char in[8];
	double t0 = now_s();
	size_t at = off;
	uint32_t end = off + n, k;
	int err = 0;

	for (; off < end && !err; off += k) {
		k = end - off < f->payload_size ? end - off : f->payload_size;
		put_le(in, off, 4);
		put_le(in + 4, k, 4);
		err = fuzz_read(f, OP_GET_LSA, in, 8, to, &at, sizeof(f->lsa));
	}
	f->lsa_s += now_s() - t0;
	f->lsa_reads++;
	return err;
}

/* Nominal input length of @opcode, for the variable ones a valid one. */
static unsigned long fuzz_nominal(unsigned int opcode, uint64_t *x)
{
	switch (opcode) {
	case OP_GET_EVENTS: case OP_SET_SHUTDOWN: return 1;
	case OP_CLEAR_EVENTS: return 6 + 2 * rnd(x, 4);
	case OP_SET_EVENT_POLICY: return 4;
	case OP_TRANSFER_FW: return 128 + 128 * rnd(x, 4);
	case OP_ACTIVATE_FW: return 2;
	case OP_SET_TIMESTAMP: return 8;
	case OP_GET_LOG: return 24;
	case OP_SET_PARTITION: return 10;
	case OP_GET_LSA: return 8;
	case OP_SET_LSA: return 8 + rnd(x, 256);
	case OP_SET_ALERT: return 12;
	case OP_GET_POISON: return 16;
	case OP_INJECT_POISON: return 8;
	case OP_CLEAR_POISON: return 72;
	case OP_SET_PASSPHRASE: return 96;
	case OP_DISABLE_PASSPHRASE: case OP_PASSPHRASE_ERASE: return 64;
	case OP_UNLOCK: return 32;
	default: return 0;
	}
}

/* A DPA: aligned inside, misaligned, at or past the capacity. */
static uint64_t fuzz_dpa(const struct fuzz *f, uint64_t *x)
{
	switch (rnd(x, 5)) {
	case 0: return rnd(x, f->capacity / 64) * 64 + 1 + rnd(x, 63);
	case 1: return f->capacity + rnd(x, 4) * 64;
	case 2: return splitmix64(x);
	default: return rnd(x, f->capacity / 64) * 64;
	}
}

/* Offset/length pairs around the end of an area of @size bytes. */
static uint32_t fuzz_edge(uint64_t *x, uint32_t size)
{
	switch (rnd(x, 4)) {
	case 0: return size;
	case 1: return size + 1 + rnd(x, 4096);
	case 2: return splitmix64(x);
	default: return rnd(x, size);
	}
}

/*
 * Fields that are valid for @opcode, one of them then mutated (or none),
 * into @p (payload-size bytes, random already).
 */
static void fuzz_fields(struct fuzz *f, unsigned int opcode, unsigned char *p,
			uint64_t *x)
{
	uint32_t off;

	switch (opcode) {
	case OP_GET_EVENTS:
		p[0] = rnd(x, 4) ? rnd(x, 4) : 4 + rnd(x, 252);
		break;
	case OP_CLEAR_EVENTS:	/* log, flags, handle count, 3 reserved */
		p[0] = rnd(x, 4) ? rnd(x, 4) : 4 + rnd(x, 252);
		p[1] = rnd(x, 3) ? rnd(x, 2) : splitmix64(x);
		p[2] = rnd(x, 4);
		memset(p + 3, 0, 3);
		if (!rnd(x, 4))
			p[3 + rnd(x, 3)] = 1 + rnd(x, 255);
		break;
	case OP_SET_EVENT_POLICY:	/* four logs: mode in bits 1:0 */
		for (off = 0; off < 4; off++)
			p[off] = rnd(x, 2);
		if (rnd(x, 2))
			p[rnd(x, 4)] = 2 + rnd(x, 254);
		break;
	case OP_TRANSFER_FW:	/* action, slot, 2 reserved, offset/128 */
		p[0] = rnd(x, 4) ? rnd(x, 5) : 5 + rnd(x, 251);
		p[1] = rnd(x, f->fw_slots + 2);
		memset(p + 2, 0, 2);
		put_le(p + 4, rnd(x, 4) ? rnd(x, 8) : splitmix64(x), 4);
		memset(p + 8, 0, 0x78);
		if (!rnd(x, 4))
			p[2 + rnd(x, 2)] = 1 + rnd(x, 255);
		break;
	case OP_ACTIVATE_FW:
		p[0] = rnd(x, 3) ? rnd(x, 2) : 2 + rnd(x, 254);
		p[1] = rnd(x, f->fw_slots + 2);
		break;
	case OP_GET_LOG:	/* UUID, offset, length */
		memcpy(p, cel_uuid, 16);
		if (!rnd(x, 4))
			p[rnd(x, 16)] ^= 1 << rnd(x, 8);
		off = rnd(x, 3) ? rnd(x, f->cel_size + 1) : fuzz_edge(x, f->cel_size);
		put_le(p + 16, off, 4);
		put_le(p + 20, rnd(x, 3) ? rnd(x, f->cel_size - (off < f->cel_size ? off : f->cel_size) + 1) :
		       fuzz_edge(x, f->payload_size), 4);
		break;
	case OP_SET_PARTITION:	/* volatile capacity/256 MiB, flags, reserved */
		put_le(p, rnd(x, 2) ? rnd(x, f->capacity / CAPACITY_UNIT + 1) :
		       splitmix64(x), 8);
		p[8] = rnd(x, 3) ? rnd(x, 2) : splitmix64(x);
		p[9] = rnd(x, 3) ? 0 : splitmix64(x);
		break;
	case OP_GET_LSA:
	case OP_SET_LSA:	/* offset, then length (Get) or reserved (Set) */
		off = rnd(x, 2) ? rnd(x, f->lsa_size) : fuzz_edge(x, f->lsa_size);
		put_le(p, off, 4);
		put_le(p + 4, opcode == OP_SET_LSA ? (rnd(x, 3) ? 0 : splitmix64(x)) :
		       rnd(x, 2) ? rnd(x, f->payload_size + 1) : fuzz_edge(x, f->lsa_size), 4);
		break;
	case OP_SET_ALERT:	/* valid, enable, life used, reserved, 4 x 2 */
		memset(p, 0, 12);
		p[0] = rnd(x, 2) ? rnd(x, 32) : splitmix64(x);
		p[1] = p[0] & (rnd(x, 2) ? 0x1f : 0xff);
		p[2] = rnd(x, 101);
		if (!rnd(x, 4))
			p[3] = 1 + rnd(x, 255);
		put_le(p + 4 + 2 * rnd(x, 4), splitmix64(x), 2);
		break;
	case OP_SET_SHUTDOWN:
		p[0] = rnd(x, 2) ? rnd(x, 2) : splitmix64(x);
		break;
	case OP_GET_POISON:	/* DPA, length in 64-byte units */
		put_le(p, fuzz_dpa(f, x), 8);
		put_le(p + 8, rnd(x, 2) ? rnd(x, f->capacity / 64) + 1 :
		       rnd(x, 2) ? 0 : splitmix64(x), 8);
		break;
	case OP_INJECT_POISON:
	case OP_CLEAR_POISON:
		put_le(p, fuzz_dpa(f, x), 8);
		break;
	case OP_SET_PASSPHRASE:
	case OP_DISABLE_PASSPHRASE:
	case OP_PASSPHRASE_ERASE:	/* type, 31 reserved, passphrases */
		p[0] = rnd(x, 2) ? rnd(x, 2) : 2 + rnd(x, 254);
		memset(p + 1, 0, 31);
		if (!rnd(x, 4))
			p[1 + rnd(x, 31)] = 1 + rnd(x, 255);
		break;
	}
}

/*
 * Makes sure a command whose success would change what the rest relies on
 * cannot succeed (see the comment at the top); it is still sent, refused.
 */
static void fuzz_defang(struct fuzz *f, unsigned int opcode,
			unsigned long *len, unsigned char *p, uint64_t *x)
{
	switch (opcode) {
	case OP_SANITIZE:
	case OP_SECURE_ERASE:
	case OP_FREEZE_SECURITY:
		if (!*len)
			*len = 1 + rnd(x, f->payload_size);
		break;
	case OP_SET_PASSPHRASE:
	case OP_PASSPHRASE_ERASE:
		if (*len == fuzz_nominal(opcode, x) && p[0] <= 1)
			p[0] = 2 + rnd(x, 254);
		break;
	case OP_ACTIVATE_FW:
		if (*len == 2 && p[0] <= 1)
			p[1] = rnd(x, 2) ? f->fw_active : rnd(x, 2) ? 0 : f->fw_slots + 1;
		break;
	case OP_TRANSFER_FW:	/* Full and End write a slot */
		if (*len >= 128 && (p[0] == 0 || p[0] == 3))
			p[1] = rnd(x, 2) ? f->fw_active : rnd(x, 2) ? 0 : f->fw_slots + 1;
		break;
	case OP_SET_PARTITION:	/* the layout is non-volatile */
		if (*len == 10)
			put_le(p, f->capacity / CAPACITY_UNIT + 1 + rnd(x, 16), 8);
		break;
	case OP_SET_LSA:	/* data past the end of the area */
		if (*len >= 8 && *len - 8 <= f->payload_size)
			put_le(p, f->lsa_size - (*len - 8) + 1 + rnd(x, 4096), 4);
		break;
	}
}

/* Command @i of seed @s: opcode, length, payload (payload-size bytes). */
static unsigned int fuzz_gen(struct fuzz *f, uint64_t s, uint64_t i,
			     unsigned long *len, unsigned char *p)
{
	uint64_t x = s * 0xd1342543de82ef95ull ^ (i + 1) * 0x9e3779b97f4a7c15ull;
	unsigned long k, nominal;
	unsigned int opcode;

	splitmix64(&x);
	if (!rnd(&x, 10)) {
		/* not in the CEL: Unsupported, whatever the input */
		do {
			opcode = rnd(&x, 2) ? splitmix64(&x) & 0xffff :
				 (f->cel[rnd(&x, f->ncel)] & 0xff00) | rnd(&x, 256);
		} while (fuzz_has(f, opcode));
	} else {
		opcode = f->cel[rnd(&x, f->ncel)];
	}
	for (k = 0; k < f->payload_size; k += 8)
		put_le(p + k, splitmix64(&x), 8);
	if (rnd(&x, 10) >= 3)
		fuzz_fields(f, opcode, p, &x);
	nominal = fuzz_nominal(opcode, &x);
	switch (rnd(&x, 10)) {
	case 0: *len = nominal + 1; break;
	case 1: *len = nominal ? nominal - 1 : 1; break;
	case 2: *len = 0; break;
	case 3: *len = f->payload_size; break;
	case 4: *len = rnd(&x, 4) ? rnd(&x, f->payload_size + 1) :
		       f->payload_size + 1 + rnd(&x, 0x1fffff - f->payload_size); break;
	default: *len = nominal; break;
	}
	fuzz_defang(f, opcode, len, p, &x);
	return opcode;
}

/* Reads the CEL, the LSA and the capacity; 0 if the device is usable. */
static int fuzz_start(struct fuzz *f)
{
	static unsigned char buf[4096];
	unsigned char in[24];
	size_t at = 0, k;
	unsigned int n;

	if (fuzz_read(f, OP_GET_SUPPORTED_LOGS, NULL, 0, buf, &at, sizeof(buf)))
		return -1;
	n = get_le(buf, 2);
	for (k = 0; k < n && 8 + 20 * (k + 1) <= at; k++)
		if (!memcmp(buf + 8 + 20 * k, cel_uuid, 16))
			f->cel_size = get_le(buf + 8 + 20 * k + 16, 4);
	if (!f->cel_size || f->cel_size > f->payload_size)
		return -1;
	memcpy(in, cel_uuid, 16);
	put_le(in + 16, 0, 4);
	put_le(in + 20, f->cel_size, 4);
	at = 0;
	if (fuzz_read(f, OP_GET_LOG, in, 24, buf, &at, sizeof(buf)))
		return -1;
	for (k = 0; k + 4 <= at && f->ncel < FUZZ_MAX_CEL; k += 4)
		f->cel[f->ncel++] = get_le(buf + k, 2);
	at = 0;
	if (fuzz_read(f, OP_IDENTIFY, NULL, 0, buf, &at, sizeof(buf)) || at < 0x43)
		return -1;
	f->capacity = get_le(buf + 0x10, 8) * CAPACITY_UNIT;
	f->lsa_size = get_le(buf + 0x38, 4);
	f->align = get_le(buf + 0x28, 8);
	at = 0;
	if (fuzz_read(f, OP_GET_FW_INFO, NULL, 0, buf, &at, sizeof(buf)) || at < 2)
		return -1;
	f->fw_slots = buf[0];
	f->fw_active = buf[1] & 7;
	at = 0;
	if (fuzz_has(f, OP_GET_SHUTDOWN) &&
	    (fuzz_read(f, OP_GET_SHUTDOWN, NULL, 0, buf, &at, sizeof(buf)) || at < 1))
		return -1;
	f->shutdown = buf[0];
	if (f->lsa_size > sizeof(f->lsa) || !f->capacity ||
	    !f->lsa_size != !fuzz_has(f, OP_GET_LSA))
		return -1;
	return f->lsa_size && fuzz_lsa(f, f->lsa, 0, f->lsa_size) ? -1 : 0;
}

static void fuzz_fail(uint64_t s, uint64_t i, unsigned int opcode,
		      unsigned long len, const unsigned char *p,
		      const char *what)
{
	unsigned long k;

	printf("FAIL seed=%llu index=%llu opcode=%#06x len=%lu payload=",
	       (unsigned long long)s, (unsigned long long)i, opcode, len);
	for (k = 0; k < 32 && k < len; k++)
		printf("%02x", p[k]);
	printf(" %s\n", what);
}

/* Register bytes that changed outside the mailbox registers (and payload). */
static unsigned long fuzz_changed(struct fuzz *f, int skip_payload)
{
	unsigned long i, n = 0;
	const unsigned long lo = f->mbox + MBOX_CTRL;
	unsigned long hi = f->mbox + MBOX_PAYLOAD +
			   (skip_payload ? f->payload_size : 0);

	for (i = 0; i < DEV_REGS_SIZE; i += 8) {
		uint64_t now = *(volatile uint64_t *)(f->regs + i);
		unsigned long b;

		if (!memcmp(&now, f->before + i, 8))
			continue;
		for (b = i; b < i + 8; b++)
			if (((unsigned char *)&now)[b - i] != f->before[b] &&
			    (b < lo || b >= hi) &&
			    (!skip_payload || b < f->status_reg || b >= f->status_reg + 8))
				n++;
	}
	return n;
}

static int raw_fuzz(unsigned long bar, uint64_t seed, uint64_t count,
		    uint64_t first)
{
	static struct fuzz fz;
	static unsigned char p[MBOX_PAYLOAD_MAX], now[sizeof(fz.state)];
	static unsigned char lsa_now[sizeof(fz.lsa)];
	struct fuzz *f = &fz;
	unsigned long len, out_len, k;
	uint32_t lsa_off, lsa_len, chunk;
	double t0 = now_s();
	unsigned int opcode, c;
	size_t now_len;
	uint64_t i;
	char what[160];
	int rc;

	f->regs = phys_map(bar, DEV_REGS_SIZE, PROT_READ | PROT_WRITE);
	if (!f->regs)
		return 1;
	f->mbox = find_mailbox(f->regs);
	if (!f->mbox || f->mbox + MBOX_PAYLOAD + MBOX_PAYLOAD_MAX > DEV_REGS_SIZE ||
	    (reg32(f->regs, f->mbox + MBOX_CTRL) & MBOX_CTRL_DOORBELL)) {
		fprintf(stderr, "cxl-mbox-probe: no idle primary mailbox at %#lx; unbind cxl_pci first\n",
			bar);
		return 1;
	}
	/* CXL r3.0 8.2.8.4.3 Payload Size, and 8.2.8.3's Event Status */
	f->payload_size = 1ul << (reg32(f->regs, f->mbox) & 0x1f);
	if (f->payload_size > MBOX_PAYLOAD_MAX)
		f->payload_size = MBOX_PAYLOAD_MAX;
	for (c = 1; c <= ((reg64(f->regs, 0) >> 32) & 0xffff); c++)
		if ((reg32(f->regs, c * CAP_HDR_STRIDE) & 0xffff) == CAP_ID_DEVICE_STATUS)
			f->status_reg = reg32(f->regs, c * CAP_HDR_STRIDE + 4);
	if (fuzz_start(f)) {
		fprintf(stderr, "cxl-mbox-probe: cannot read the CEL, Identify, FW info or LSA\n");
		return 1;
	}
	chunk = f->lsa_size < f->payload_size ? f->lsa_size : f->payload_size;
	for (i = first; i < first + count; i++) {
		opcode = fuzz_gen(f, seed, i, &len, p);
		if (!f->state_fresh && fuzz_state(f, f->state, &f->state_len))
			goto state_failed;
		copy_in(f->regs + f->mbox + MBOX_PAYLOAD, p,
			len < f->payload_size ? len : f->payload_size);
		copy_out(f->before, f->regs, DEV_REGS_SIZE);
		rc = fuzz_cmd(f, opcode, len, p, &out_len);
		f->sent++;
		f->counts[rc >= 0 && rc <= RC_LAST ? rc : RC_LAST + 1]++;
		what[0] = '\0';
		if (rc < 0)
			snprintf(what, sizeof(what), "doorbell still set after 2 s");
		else if (rc > RC_LAST || rc == RC_BACKGROUND)
			snprintf(what, sizeof(what), "rc=%#x is no code it may answer", rc);
		else if (!fuzz_has(f, opcode) && rc != RC_UNSUPPORTED &&
			 rc != RC_MB_UNSUPPORTED &&
			 !(rc == RC_PAYLOADLEN && len > f->payload_size))
			snprintf(what, sizeof(what), "rc=%#x for an opcode not in the CEL", rc);
		else if (out_len > f->payload_size || (rc && out_len))
			snprintf(what, sizeof(what), "rc=%#x out_len=%lu", rc, out_len);
		else if ((k = fuzz_changed(f, rc == RC_SUCCESS)))
			snprintf(what, sizeof(what), "rc=%#x changed=%lu register bytes", rc, k);
		if (what[0]) {
			fuzz_fail(seed, i, opcode, len, p, what);
			return 1;
		}
		f->state_fresh = rc != RC_SUCCESS;
		if (rc != RC_SUCCESS) {
			if (fuzz_state(f, now, &now_len))
				goto state_failed;
			if (now_len != f->state_len || memcmp(now, f->state, now_len)) {
				snprintf(what, sizeof(what), "rc=%#x but the state commands' output changed", rc);
				fuzz_fail(seed, i, opcode, len, p, what);
				return 1;
			}
		}
		/*
		 * Nothing sent may change the labels, refused or not: the
		 * whole area every FUZZ_FULL_EVERY commands and at the end;
		 * after Set LSA the payload size's worth at its offset and the
		 * end of the area, after an erase the start.
		 */
		lsa_off = lsa_len = 0;
		if (i + 1 == first + count || (i - first) % FUZZ_FULL_EVERY == 0) {
			lsa_len = f->lsa_size;
		} else if (!f->lsa_size) {
			/* no label area */
		} else if (opcode == OP_SET_LSA) {
			lsa_off = get_le(p, 4);
			if (lsa_off > f->lsa_size - chunk)
				lsa_off = f->lsa_size - chunk;
			lsa_len = chunk;
		} else if (opcode == OP_SANITIZE || opcode == OP_SECURE_ERASE ||
			   opcode == OP_PASSPHRASE_ERASE) {
			lsa_len = chunk;
		}
		if (lsa_len && fuzz_lsa(f, lsa_now, lsa_off, lsa_len))
			goto state_failed;
		if (lsa_len && opcode == OP_SET_LSA && lsa_off + lsa_len < f->lsa_size &&
		    fuzz_lsa(f, lsa_now, f->lsa_size - chunk, chunk))
			goto state_failed;
		if (lsa_len && memcmp(lsa_now, f->lsa, f->lsa_size)) {
			fuzz_fail(seed, i, opcode, len, p, "the label storage area changed");
			return 1;
		}
	}
	/* put back what may have succeeded and lasts: a transfer in parts */
	memset(p, 0, 128);
	p[0] = 4;	/* Abort */
	if (fuzz_has(f, OP_TRANSFER_FW))
		fuzz_cmd(f, OP_TRANSFER_FW, 128, p, &out_len);
	/* and the shutdown state, non-volatile too */
	if (fuzz_has(f, OP_SET_SHUTDOWN) &&
	    fuzz_cmd(f, OP_SET_SHUTDOWN, 1, &f->shutdown, &out_len)) {
		fprintf(stderr, "cxl-mbox-probe: cannot put back the shutdown state\n");
		return 1;
	}
	printf("sent=%lu seconds=%.1f", f->sent, now_s() - t0);
	for (c = 0; c <= RC_LAST; c++)
		if (f->counts[c])
			printf(" rc%#x=%lu", c, f->counts[c]);
	printf(" cel=%u state_checks_s=%.1f lsa_reads=%lu lsa_s=%.1f\n", f->ncel,
	       f->state_s, f->lsa_reads, f->lsa_s);
	return 0;

state_failed:
	fuzz_fail(seed, i, opcode, len, p, "a state command failed before or after it");
	return 1;
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
	if (!strcmp(op, "raw-fuzz") && (argc == 5 || argc == 6))
		return raw_fuzz(num(argv[2]), num(argv[3]), num(argv[4]),
				argc == 6 ? num(argv[5]) : 0);
	fprintf(stderr, "usage: see the comment at the top of cxl-mbox-probe.c\n");
	return 2;
}

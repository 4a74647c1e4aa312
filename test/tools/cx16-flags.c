// SPDX-License-Identifier: GPL-2.0
/*
 * cx16-flags: checks that CMPXCHG16B changes no flag but ZF, as the SDM
 * says, on the CPU the guest runs on.
 *
 *   cx16-flags
 *
 * QEMU 7.2's TCG computes the flags of CMPXCHG16B from the condition-code
 * state it last stored, not the one the instructions before it left: after
 * a POPF (or an IRET) and an ADD or CMP in the same translated block, the
 * ADD's source operand becomes RFLAGS, so IOPL, NT, AC, DF or TF turn up at
 * random. SLUB's per-CPU fast path runs `add` then `cmpxchg16b` on every
 * allocation; once an interrupt's IRET loads such flags, the guest takes a
 * double fault (6.12, every few hundred cxl_virt borrow cycles). The check
 * primes that state with POPF, then runs CMP and CMPXCHG16B with a kernel
 * pointer as CMP's source, and compares RFLAGS with what CMP alone set.
 * Exit: 0 the flags are right, or the CPU has no CMPXCHG16B (run-vm.sh
 * hides it from QEMU 7.2); 1 they are wrong, with both values.
 */
#include <cpuid.h>
#include <stdint.h>
#include <stdio.h>

/* The flags CMP sets and CMPXCHG16B must leave alone. */
#define ARITH_FLAGS	0x8d5UL		/* OF SF AF PF CF */
#define ZF		0x40UL
#define SYSTEM_FLAGS	0x3f7f00UL	/* TF IF DF IOPL NT RF VM AC VIF VIP ID */

static unsigned __int128 slot __attribute__((aligned(16)));

/* RFLAGS after POPF(@prime), CMP @src from @dst, CMPXCHG16B that succeeds. */
static uint64_t after_cmpxchg16b(uint64_t prime, uint64_t dst, uint64_t src)
{
	uint64_t flags, zero_lo = 0, zero_hi = 0;

	slot = 0;	/* equal to RDX:RAX: the exchange succeeds */
	asm volatile("pushq %[prime]\n\t"
		     "popfq\n\t"
		     "cmpq %[src], %[dst]\n\t"
		     "cmpxchg16b %[slot]\n\t"
		     "pushfq\n\t"
		     "popq %[flags]"
		     : [flags] "=&r"(flags), [slot] "+m"(slot), "+a"(zero_lo),
		       "+d"(zero_hi)
		     : [prime] "r"(prime), [dst] "r"(dst), [src] "b"(src), "c"(0UL)
		     : "cc", "memory");
	return flags;
}

/* RFLAGS after POPF(@prime) and CMP @src from @dst, as CMPXCHG16B finds them. */
static uint64_t after_cmp(uint64_t prime, uint64_t dst, uint64_t src)
{
	uint64_t flags;

	asm volatile("pushq %[prime]\n\t"
		     "popfq\n\t"
		     "cmpq %[src], %[dst]\n\t"
		     "pushfq\n\t"
		     "popq %[flags]"
		     : [flags] "=&r"(flags)
		     : [prime] "r"(prime), [dst] "r"(dst), [src] "r"(src)
		     : "cc");
	return flags;
}

int main(void)
{
	/* The pointers of the first crash: RFLAGS came out as 0x12ab77a. */
	const uint64_t dst = 0xff110001012ab738ULL, src = 0xff110001012ab778ULL;
	const uint64_t prime = 0x2;	/* the always-one bit only */
	unsigned int eax, ebx, ecx, edx;
	uint64_t want, got;

	if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & bit_CMPXCHG16B)) {
		printf("cx16-flags: the CPU has no CMPXCHG16B\n");
		return 0;
	}
	want = (after_cmp(prime, dst, src) & (ARITH_FLAGS | SYSTEM_FLAGS)) | ZF;
	got = after_cmpxchg16b(prime, dst, src) & (ARITH_FLAGS | SYSTEM_FLAGS | ZF);
	if (got == want)
		return printf("cx16-flags: CMPXCHG16B keeps the flags (%#lx)\n",
			      (unsigned long)got), 0;
	printf("cx16-flags: CMPXCHG16B left the flags %#lx where %#lx was due: this CPU (QEMU 7.2's TCG) corrupts RFLAGS; hide CX16 from the guest (-cpu max,cx16=off)\n",
	       (unsigned long)got, (unsigned long)want);
	return 1;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxlv_test_claim: test-only module, loaded only in the VM guest. It claims
 * [start, start + size) with request_mem_region(), as any other driver would
 * claim its MMIO or memory, and holds it until unloaded. The e2e scenario
 * cxlv-own uses it to prove that cxl_virt never adopts, releases or hands out
 * memory somebody else holds. Loading fails with EBUSY when the request does.
 *
 * With zero=1 it also writes zeros over the whole claim before it returns,
 * as a fresh boot of the guest would have the memory: the shared boots of
 * the e2e suite (test/vm/guest/boot-group.sh) reset a memmap= range with it
 * between scenarios, since a device's labels, passphrases and data live in
 * its range.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/string.h>

static unsigned long long start;
module_param(start, ullong, 0400);
MODULE_PARM_DESC(start, "physical start of the claim");
static unsigned long long size = SZ_1M;
module_param(size, ullong, 0400);
MODULE_PARM_DESC(size, "length of the claim (default 1 MiB)");
static bool zero;
module_param(zero, bool, 0400);
MODULE_PARM_DESC(zero, "write zeros over the claim once it is held");

static struct resource *claim;

/* Zeros the claim a 2 MiB piece at a time, yielding between pieces. */
static int cxlv_test_claim_zero(void)
{
	unsigned long long off;
	void *p;

	for (off = 0; off < size; off += SZ_2M) {
		size_t len = min_t(unsigned long long, SZ_2M, size - off);

		p = memremap(start + off, len, MEMREMAP_WB);
		if (!p) {
			release_mem_region(start, size);
			return -ENOMEM;
		}
		memset(p, 0, len);
		memunmap(p);
		cond_resched();
	}
	pr_info("zeroed %#llx+%#llx\n", start, size);
	return 0;
}

static int __init cxlv_test_claim_init(void)
{
	if (!start || !size)
		return -EINVAL;
	claim = request_mem_region(start, size, "cxlv_test_claim");
	if (!claim) {
		pr_info("%#llx+%#llx is claimed by someone else\n", start, size);
		return -EBUSY;
	}
	pr_info("claimed %pR\n", claim);
	return zero ? cxlv_test_claim_zero() : 0;
}

static void __exit cxlv_test_claim_exit(void)
{
	release_mem_region(start, size);
}

module_init(cxlv_test_claim_init);
module_exit(cxlv_test_claim_exit);
MODULE_DESCRIPTION("cxl_virt test: claim memory as another driver would");
MODULE_LICENSE("GPL");

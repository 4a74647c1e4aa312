// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxlv_test_claim: test-only module, loaded only in the VM guest. It claims
 * [start, start + size) with request_mem_region(), as any other driver would
 * claim its MMIO or memory, and holds it until unloaded. The e2e scenario
 * cxlv-own uses it to prove that cxl_virt never adopts, releases or hands out
 * memory somebody else holds. Loading fails with EBUSY when the request does.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ioport.h>
#include <linux/module.h>
#include <linux/sizes.h>

static unsigned long long start;
module_param(start, ullong, 0400);
MODULE_PARM_DESC(start, "physical start of the claim");
static unsigned long long size = SZ_1M;
module_param(size, ullong, 0400);
MODULE_PARM_DESC(size, "length of the claim (default 1 MiB)");

static struct resource *claim;

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
	return 0;
}

static void __exit cxlv_test_claim_exit(void)
{
	release_mem_region(start, size);
}

module_init(cxlv_test_claim_init);
module_exit(cxlv_test_claim_exit);
MODULE_DESCRIPTION("cxl_virt test: claim memory as another driver would");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0-only
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/memory.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <asm/pgtable_types.h>
#include <asm/set_memory.h>

#include "cxlv.h"

/**
 * DOC: cxl_virt borrowed memory
 *
 * Takes System RAM away from the running kernel so that a device can be
 * made on it without a reboot, and gives it back on request. This file has
 * that one job: the device on a borrowed range is made exactly as on a
 * range reserved with memmap= (cxlv_mem.c), only its claim nests in the
 * borrowed range's resource instead of iomem's root.
 *
 * Borrowing: a range is a candidate when it lies in one top-level "System
 * RAM" entry of iomem that no driver manages, starts at or above 4 GiB
 * (never ZONE_DMA or ZONE_DMA32), is 256 MiB and memory-block aligned,
 * every memory block of it is online and on one NUMA node, and the
 * firmware's map (cxlv_fwmap_is_ram()) calls it RAM. Without memstart the
 * candidates are tried from the top of memory down; a candidate that fails
 * moves the search below the memory block that would not go offline. The
 * range is taken with offline_and_remove_memory(), which puts every block
 * it offlined back online when one fails (mm/memory_hotplug.c on 6.1, 6.12
 * and 7.3 alike). Before any block goes offline the module refuses a borrow
 * that would leave less than the floor of max(512 MiB, MemTotal / 8)
 * available: the same order of headroom the kernel's own watermarks and
 * a page cache that still works need, and what keeps a small guest alive.
 * Nor may a borrow leave the range's NUMA node under a floor of its own,
 * max(256 MiB, an eighth of the node's memory): no node is left empty.
 *
 * That the range holds no child of System RAM (kernel code or data, crash
 * kernel, another driver's claim) is checked each time one of its blocks
 * is about to go offline, from the memory notifier, so a resource placed
 * while earlier blocks went offline is seen too: the kernel then holds the
 * memory hotplug lock, so no other hot-remove can split the System RAM
 * entry while a probe resource sits inside it for that moment
 * (insert_resource() places it and reports what it covers;
 * remove_resource() takes it out again). walk_iomem_res_desc() and
 * region_intersects() cannot replace it: both report a System RAM entry
 * that matches their filter instead of its children, and "Kernel code"
 * has System RAM's very flags and descriptor, so no filter that finds it
 * skips the entry. A block offline already is not notified, but
 * every block was online just before (cxlv_borrow_blocks()); and the
 * range's own request after the removal fails on anything left in it.
 * Before 7.x the kernel also cannot cut a range out of the middle of an
 * entry that has children above it (cxlv_compat.h): with physical KASLR
 * the kernel image often lies in high memory, and then only memory above
 * it, or a whole entry, can be borrowed.
 *
 * The kernel cannot cut a range out of a 1 GiB page of its direct map:
 * remove_pud_table() (x86, 6.1 to 7.3) takes a 1 GiB leaf it covers only
 * in part for a page of PMDs, reads the memory behind it as one and frees
 * it (on 7.3 an Oops in free_pagetable(), seen in the e2e guest). So where
 * a start or end falls inside a 1 GiB mapping (lookup_address()), the
 * module has the kernel split that mapping first: when the range's last
 * block is about to go offline (blocks go offline in ascending order, so
 * all others are offline), it changes one offline page of the range in
 * that GiB to uncached and back (set_memory_uc(), set_memory_wb();
 * exported alike on 6.1, 6.12 and 7.3), and change_page_attr() splits the
 * 1 GiB leaf into 2 MiB leaves, which hot-remove handles. The split stays
 * after write-back is restored (only set_memory_rox() merges, on 7.3, and
 * only its own addresses), also when the borrow then fails. If a cut is
 * still inside a 1 GiB leaf afterwards, the last block is refused and
 * every block goes back online. A range whose only part in a cut's GiB is
 * its last block (memory blocks of 256 MiB or more) is no candidate.
 *
 * Offlining retries for ever while a page in the range cannot be migrated
 * (offline_pages() gives up only on a signal). So it runs in a kthread that
 * accepts SIGKILL, and is killed after borrow_timeout_ms per candidate, or
 * when the writer gets a signal (Ctrl-C): offline_pages() then backs off
 * and offline_and_remove_memory() puts the blocks back online.
 *
 * Ownership: the range leaves iomem inside try_remove_memory() and is
 * requested right after, under the control lock: first a busy hold over
 * all of it ("cxl_virt borrowed, free"), then "cxl_virt borrowed" around
 * it (insert_resource() adopts the hold). The kernel gives no hook in
 * between, so that is the one window in which another driver could request
 * it; if one did, the borrow fails with -EBUSY and says so. While the range
 * is free nobody can request any of it: the hold is busy. A device made on
 * it requests its claim inside the hold (parent given, so busy does not
 * stop it), tiles it, and busy fillers join it there for what the device
 * does not cover; then the hold leaves iomem and remove_resource() moves
 * its children up into "cxl_virt borrowed", which is never busy, so the
 * stock drivers' requests reach the device's windows, exactly as on a
 * reserved range. Before the device's claim goes, the hold is inserted
 * over all of it again and adopts the claim and the fillers. No flag of a
 * resource in the tree ever changes: each step is one call under the
 * kernel's resource lock.
 *
 * Scrubbing: the range held the kernel's and other processes' pages (page
 * cache, freed slab, anything), and a device would hand them to whoever
 * may read its namespace or dax device, with a stale label area libnvdimm
 * would parse. So a range is zeroed once, right after it is held and
 * before it is listed (no device can be made on it before): the direct map
 * went with the memory, so it is mapped write-back 64 MiB at a time
 * (memremap()) and zeroed 2 MiB between reschedules, in the writer's
 * process context; the log line of the borrow gives the time it took (0.6
 * to 0.8 s for 2 GiB in the TCG test guests, the borrow alone 0.1 to 0.5 s;
 * up to 5 s when the host has yet to back that guest memory at all). Borrowed ranges stay borrowed
 * across remove and create, not zeroed again: labels and data survive.
 *
 * Giving back: the resource leaves iomem and add_memory() hot-adds the
 * range on its node, onlined per /sys/devices/system/memory/
 * auto_online_blocks. Again no hook closes the window between the two; if
 * add_memory() fails the range is requested again and stays borrowed.
 * rmmod gives back every borrowed range, after the devices are removed.
 */

#define CXLV_BORROW_MIN_START	SZ_4G
#define CXLV_BORROW_FLOOR_MIN	(512ULL << 20)
#define CXLV_BORROW_FLOOR_DIV	8	/* of MemTotal */
#define CXLV_BORROW_TRIES	32	/* candidates offlined at most */
#define CXLV_BORROW_RANGES	64	/* System RAM entries looked at */
#define CXLV_NODE_FLOOR_MIN	(256ULL << 20)
#define CXLV_NODE_FLOOR_DIV	8	/* of the node's memory */
#define CXLV_SCRUB_MAP		SZ_64M	/* mapped at a time */
#define CXLV_SCRUB_STEP		SZ_2M	/* zeroed between reschedules */

static unsigned int borrow_timeout_ms = 10000;
module_param(borrow_timeout_ms, uint, 0644);
MODULE_PARM_DESC(borrow_timeout_ms,
		 "Longest time one candidate range may take to go offline (ms)");

/**
 * struct cxlv_borrow - a range taken from System RAM
 * @node: in cxlv_borrowed, sorted by start
 * @res: "cxl_virt borrowed" in iomem, never busy
 * @hold: busy child of @res over all of it while no device's claim is
 *	tiled there; a device's claim is requested inside it
 * @fill: busy fillers of @res around a device smaller than the range
 * @nid: the node it came from and goes back to
 * @dev: the device on it, or NULL while free
 * @dirty: could be neither zeroed nor given back: no device may use it
 */
struct cxlv_borrow {
	struct list_head node;
	struct resource res;
	struct resource hold;
	struct resource fill[2];
	int nid;
	struct cxlv_dev *dev;
	bool dirty;
};

/* guards the list and each record's @dev; the control lock is taken first */
static DEFINE_MUTEX(cxlv_borrow_lock);
static LIST_HEAD(cxlv_borrowed);

/*
 * One offline attempt; attempts are serialised by the control lock, and the
 * state is static so that a notifier running late never sees a dead frame.
 */
static struct {
	u64 start, size;
	u64 offlined_end;	/* end of the highest block taken offline */
	bool active;
	bool foreign;		/* the probe found a child of System RAM */
	u64 split[2];		/* a page per 1 GiB mapping cut, or 0 */
	bool unsplit;		/* a 1 GiB mapping at a cut stayed whole */
	int rc;
	struct completion done;
} cxlv_try;

static u64 cxlv_mib(u64 bytes)
{
	return bytes >> 20;
}

/* Inserts @probe over [@start, @last]; true when it covers no resource. */
static bool cxlv_borrow_probe_bare(struct resource *probe, u64 start, u64 last)
{
	*probe = (struct resource)DEFINE_RES_MEM_NAMED(start, last - start + 1,
						       "cxl_virt probe");
	if (insert_resource(&iomem_resource, probe))
		return false;	/* straddles another resource */
	return !probe->child;
}

/*
 * Under the memory hotplug lock, so System RAM entries stay as they are: is
 * the range a bare piece of one System RAM entry that no driver manages,
 * which the kernel can cut out of it without a complaint?
 */
static bool cxlv_borrow_probe_clean(u64 start, u64 size)
{
	struct resource probe, top;
	u64 last = start + size - 1;
	struct resource *ram;
	bool clean;

	clean = cxlv_borrow_probe_bare(&probe, start, last);
	if (!probe.parent)
		return false;
	ram = probe.parent;
	/* a whole entry (memory hot-added back): the probe went above it */
	if (ram == &iomem_resource && probe.child &&
	    probe.child->start == start && probe.child->end == last &&
	    !probe.child->sibling) {
		ram = probe.child;
		clean = !ram->child;
	}
	clean = clean && ram != &iomem_resource &&
		(ram->parent == &iomem_resource || ram->parent == &probe) &&
		(ram->flags & IORESOURCE_SYSTEM_RAM) == IORESOURCE_SYSTEM_RAM &&
		!(ram->flags & IORESOURCE_SYSRAM_DRIVER_MANAGED);
	if (clean && CXLV_SPLIT_NEEDS_BARE_TOP && start > ram->start &&
	    last < ram->end) {
		clean = cxlv_borrow_probe_bare(&top, last + 1, ram->end);
		if (top.parent)
			remove_resource(&top);
	}
	remove_resource(&probe);
	return clean;
}

/* Would a cut at @addr (start or end of a range) split a 1 GiB mapping? */
static bool cxlv_borrow_cuts_gigapage(u64 addr)
{
	unsigned int level;

	if (IS_ALIGNED(addr, SZ_1G))
		return false;
	/* the mapping of the last byte before the cut, and of the first after */
	return (lookup_address((unsigned long)__va(addr - 1), &level) &&
		level == PG_LEVEL_1G) ||
	       (lookup_address((unsigned long)__va(addr), &level) &&
		level == PG_LEVEL_1G);
}

/*
 * The page through which the kernel splits the 1 GiB mapping that a cut at
 * @cut of [@start, +@size) falls in: one of the range's own, in that
 * mapping, outside the range's last memory block, so that it is offline
 * when the last block is about to go. Return: its address, 0 when the cut
 * splits no 1 GiB mapping, or U64_MAX when no such page exists.
 */
static u64 cxlv_borrow_split_page(u64 cut, u64 start, u64 size)
{
	u64 page = max(start, ALIGN_DOWN(cut, SZ_1G));

	if (!cxlv_borrow_cuts_gigapage(cut))
		return 0;
	return page < start + size - memory_block_size_bytes() ? page : U64_MAX;
}

/* Can every 1 GiB mapping that [@start, +@size) cuts be split first? */
static bool cxlv_borrow_splittable(u64 start, u64 size)
{
	return cxlv_borrow_split_page(start, start, size) != U64_MAX &&
	       cxlv_borrow_split_page(start + size, start, size) != U64_MAX;
}

/*
 * Before the last block goes offline: a page offline already, mapped by
 * nothing but the direct map (so no alias of another cache mode exists),
 * goes uncached and back, and change_page_attr() splits its 1 GiB leaf.
 * Return: true when no 1 GiB mapping is cut any more.
 */
static bool cxlv_borrow_split_cuts(void)
{
	u64 end = cxlv_try.start + cxlv_try.size;
	unsigned long va;
	int i;

	for (i = 0; i < ARRAY_SIZE(cxlv_try.split); i++) {
		if (!cxlv_try.split[i])
			continue;
		va = (unsigned long)__va(cxlv_try.split[i]);
		if (set_memory_uc(va, 1))
			continue;
		if (set_memory_wb(va, 1))
			pr_err("%#llx: its page stays uncached\n",
			       cxlv_try.split[i]);
	}
	return !cxlv_borrow_cuts_gigapage(cxlv_try.start) &&
	       !cxlv_borrow_cuts_gigapage(end);
}

static int cxlv_borrow_notify(struct notifier_block *nb, unsigned long action,
			      void *data)
{
	const struct memory_notify *mn = data;
	u64 start = PFN_PHYS(mn->start_pfn);
	u64 end = start + PFN_PHYS(mn->nr_pages);

	if (!READ_ONCE(cxlv_try.active) || start < cxlv_try.start ||
	    end > cxlv_try.start + cxlv_try.size)
		return NOTIFY_OK;
	/* every block: a resource may have come since the last one */
	if (action == MEM_GOING_OFFLINE &&
	    !cxlv_borrow_probe_clean(cxlv_try.start, cxlv_try.size)) {
		cxlv_try.foreign = true;
		return notifier_from_errno(-EBUSY);
	}
	/* the last block: remove_pud_table() must find no 1 GiB leaf cut */
	if (action == MEM_GOING_OFFLINE &&
	    end == cxlv_try.start + cxlv_try.size && !cxlv_borrow_split_cuts()) {
		cxlv_try.unsplit = true;
		return notifier_from_errno(-EBUSY);
	}
	if (action == MEM_OFFLINE)
		cxlv_try.offlined_end = max(cxlv_try.offlined_end, end);
	return NOTIFY_OK;
}

static struct notifier_block cxlv_borrow_nb = {
	.notifier_call = cxlv_borrow_notify,
};

static int cxlv_borrow_worker(void *unused)
{
	allow_signal(SIGKILL);
	cxlv_try.rc = offline_and_remove_memory(cxlv_try.start, cxlv_try.size);
	complete(&cxlv_try.done);
	return 0;
}

/*
 * Offlines and removes [@start, +@size) within borrow_timeout_ms.
 * Return: 0; -ETIMEDOUT or -EINTR (writer's signal) after the kernel undid
 * it; -EBUSY when the range holds something else; or the kernel's errno.
 */
static int cxlv_borrow_offline(u64 start, u64 size)
{
	struct task_struct *t;
	long left;
	int rc;

	cxlv_try.start = start;
	cxlv_try.size = size;
	cxlv_try.offlined_end = start;
	cxlv_try.foreign = false;
	cxlv_try.unsplit = false;
	cxlv_try.split[0] = cxlv_borrow_split_page(start, start, size);
	cxlv_try.split[1] = cxlv_borrow_split_page(start + size, start, size);
	cxlv_try.rc = -EINPROGRESS;
	init_completion(&cxlv_try.done);
	t = kthread_create(cxlv_borrow_worker, NULL, "cxlv_borrow");
	if (IS_ERR(t))
		return PTR_ERR(t);
	get_task_struct(t);
	WRITE_ONCE(cxlv_try.active, true);
	wake_up_process(t);
	left = wait_for_completion_interruptible_timeout(&cxlv_try.done,
			msecs_to_jiffies(READ_ONCE(borrow_timeout_ms)));
	if (left <= 0) {
		/* offline_pages() backs off on the signal, then rolls back */
		send_sig(SIGKILL, t, 1);
		wait_for_completion(&cxlv_try.done);
	}
	kthread_stop(t);
	put_task_struct(t);
	WRITE_ONCE(cxlv_try.active, false);
	rc = cxlv_try.rc;
	if (rc && left < 0)
		return -EINTR;
	if (rc && !left)
		return -ETIMEDOUT;
	if (rc && (cxlv_try.foreign || cxlv_try.unsplit))
		return -EBUSY;
	return rc;
}

/*
 * Every block online, on one node. Return: 0 with *@nid set, or -EBUSY
 * with *@bad the first address that breaks it.
 */
static int cxlv_borrow_blocks(u64 start, u64 size, int *nid, u64 *bad)
{
	unsigned long pfn, end = PHYS_PFN(start + size);
	struct page *page;

	*nid = NUMA_NO_NODE;
	for (pfn = PHYS_PFN(start); pfn < end; pfn += PAGES_PER_SECTION) {
		page = pfn_to_online_page(pfn);
		if (!page || (*nid != NUMA_NO_NODE && page_to_nid(page) != *nid)) {
			*bad = PFN_PHYS(pfn);
			return -EBUSY;
		}
		*nid = page_to_nid(page);
	}
	return 0;
}

static bool cxlv_borrow_overlaps(u64 start, u64 size)
{
	struct cxlv_borrow *b;
	bool hit = false;

	mutex_lock(&cxlv_borrow_lock);
	list_for_each_entry(b, &cxlv_borrowed, node)
		hit |= start <= b->res.end && b->res.start < start + size;
	mutex_unlock(&cxlv_borrow_lock);
	return hit;
}

/*
 * Puts @b over [@start, +@size) into iomem: first the busy hold, so that no
 * moment leaves the range open, then @b's resource, which adopts it.
 */
static int cxlv_borrow_hold(struct cxlv_borrow *b, u64 start, u64 size)
{
	b->res = (struct resource)DEFINE_RES_NAMED(start, size,
			"cxl_virt borrowed", IORESOURCE_MEM);
	b->hold = (struct resource)DEFINE_RES_NAMED(start, size,
			"cxl_virt borrowed, free",
			IORESOURCE_MEM | IORESOURCE_BUSY);
	if (request_resource(&iomem_resource, &b->hold))
		return -EBUSY;
	if (insert_resource(&iomem_resource, &b->res)) {
		remove_resource(&b->hold);
		return -EBUSY;
	}
	return 0;
}

/* Takes @b out of iomem; the hold goes last, so the range is never open. */
static void cxlv_borrow_unhold(struct cxlv_borrow *b)
{
	if (b->res.parent)
		remove_resource(&b->res);
	if (b->hold.parent)
		remove_resource(&b->hold);
}

/*
 * Zeroes a range just borrowed, before any device can be made on it: it
 * held the kernel's and other processes' pages. The direct map of the range
 * went with the memory, so it is mapped write-back a piece at a time, like
 * the direct map was (no alias of another memory type exists); the lines
 * this leaves in the caches are written back before anything maps a piece
 * uncached (cxlv_mem_setup()). memset64() is rep stosq on x86, 8 bytes a
 * step, where 6.1's memset() takes rep stosb on a CPU with ERMS: a TCG
 * guest runs those a byte at a time (3.8 s for 2 GiB instead of 0.8).
 * Process context: the writer of create.
 * Return: 0, or -ENOMEM when a piece cannot be mapped.
 */
static int cxlv_borrow_scrub(u64 start, u64 size)
{
	u64 off, i, n;
	void *va;

	for (off = 0; off < size; off += n) {
		n = min_t(u64, size - off, CXLV_SCRUB_MAP);
		va = memremap(start + off, n, MEMREMAP_WB);
		if (!va)
			return -ENOMEM;
		for (i = 0; i < n; i += CXLV_SCRUB_STEP) {
			memset64(va + i, 0,
				 min_t(u64, n - i, CXLV_SCRUB_STEP) / 8);
			cond_resched();
		}
		memunmap(va);
	}
	return 0;
}

static int cxlv_borrow_give_back(struct cxlv_borrow *b);

/*
 * The new range goes into iomem, is zeroed and goes into the list; -EBUSY
 * if someone took it, -ENOMEM if it could not be zeroed (given back then).
 */
static int cxlv_borrow_record(u64 start, u64 size, int nid)
{
	struct cxlv_borrow *b = kzalloc(sizeof(*b), GFP_KERNEL), *pos;
	struct list_head *at = &cxlv_borrowed;
	ktime_t t0;
	int rc;

	if (!b || cxlv_borrow_hold(b, start, size)) {
		pr_err("borrowed %#llx-%#llx is out of System RAM but %s; it stays out of the kernel's hands\n",
		       start, start + size - 1,
		       b ? "another driver claimed it first" : "no memory to record it");
		cxlv_set_error("create: borrow: %#llx-%#llx went offline but could not be held (%s)",
			       start, start + size - 1,
			       b ? "claimed by another driver" : "out of memory");
		kfree(b);
		return b ? -EBUSY : -ENOMEM;
	}
	b->nid = nid;
	t0 = ktime_get();
	rc = cxlv_borrow_scrub(start, size);
	if (rc) {
		cxlv_set_error("create: borrow: %#llx-%#llx could not be mapped to be zeroed; %s",
			       start, start + size - 1,
			       cxlv_borrow_give_back(b) ? "it stays borrowed, unused" :
			       "it is back in System RAM");
		if (!b->res.parent) {
			kfree(b);
			return rc;
		}
		b->dirty = true;
	}
	mutex_lock(&cxlv_borrow_lock);
	list_for_each_entry(pos, &cxlv_borrowed, node) {
		if (pos->res.start > start) {
			at = &pos->node;
			break;
		}
	}
	list_add_tail(&b->node, at);
	mutex_unlock(&cxlv_borrow_lock);
	if (!rc)
		pr_info("borrowed %llu MiB of System RAM at %#llx from node %d, zeroed in %lld ms\n",
			cxlv_mib(size), start, nid,
			ktime_ms_delta(ktime_get(), t0));
	return rc;
}

/* Managed (online) memory of node @nid, in bytes. */
static u64 cxlv_node_bytes(int nid)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	unsigned long pages = 0;
	int z;

	for (z = 0; z < MAX_NR_ZONES; z++)
		pages += zone_managed_pages(&pgdat->node_zones[z]);
	return (u64)pages << PAGE_SHIFT;
}

/*
 * Refuses a borrow of @size from node @nid that would leave it under its
 * floor of max(256 MiB, an eighth of its memory): no node is left without
 * memory. Return: 0, or -ENOMEM, with the reason recorded if @report.
 */
static int cxlv_borrow_node_floor(int nid, u64 size, bool report)
{
	u64 have = cxlv_node_bytes(nid);
	u64 floor = max(CXLV_NODE_FLOOR_MIN, have / CXLV_NODE_FLOOR_DIV);

	if (have >= floor && have - floor >= size)
		return 0;
	if (report)
		cxlv_set_error("create: borrow: %llu MiB from node %d would leave it under its floor of %llu MiB (it has %llu MiB); node %d can give at most %llu MiB",
			       cxlv_mib(size), nid, cxlv_mib(floor),
			       cxlv_mib(have), nid,
			       have > floor ? cxlv_mib(have - floor) : 0);
	return -ENOMEM;
}

/* Refuses a borrow that would leave the kernel under the floor. */
static int cxlv_borrow_floor(u64 size)
{
	u64 total = (u64)totalram_pages() << PAGE_SHIFT;
	u64 avail = (u64)si_mem_available() << PAGE_SHIFT;
	u64 floor = max(CXLV_BORROW_FLOOR_MIN, total / CXLV_BORROW_FLOOR_DIV);

	if (avail >= floor && avail - floor >= size)
		return 0;
	cxlv_set_error("create: borrow: %llu MiB would leave under the floor of %llu MiB free (MemAvailable %llu MiB); at most %llu MiB can be borrowed now",
		       cxlv_mib(size), cxlv_mib(floor), cxlv_mib(avail),
		       avail > floor ? cxlv_mib(avail - floor) : 0);
	return -ENOMEM;
}

static u64 cxlv_borrow_align(void)
{
	return max_t(u64, CXLV_BORROW_ALIGN, memory_block_size_bytes());
}

/* borrow=1 with memstart: exactly that range, or a reason why not. */
static int cxlv_borrow_exact(u64 start, u64 size)
{
	u64 last = start + size - 1, bad;
	int nid, rc;

	if (start < CXLV_BORROW_MIN_START) {
		cxlv_set_error("create: borrow: %#llx is below 4 GiB; ZONE_DMA and ZONE_DMA32 stay with the kernel",
			       start);
		return -ERANGE;
	}
	if (!IS_ALIGNED(start | size, cxlv_borrow_align())) {
		cxlv_set_error("create: borrow: %#llx+%#llx is not aligned to the %llu MiB memory block",
			       start, size, cxlv_mib(cxlv_borrow_align()));
		return -EINVAL;
	}
	if (cxlv_borrow_overlaps(start, size)) {
		cxlv_set_error("create: borrow: %#llx-%#llx overlaps a borrowed range (see borrowed)",
			       start, last);
		return -EBUSY;
	}
	if (region_intersects(start, size, IORESOURCE_SYSTEM_RAM,
			      IORES_DESC_NONE) != REGION_INTERSECTS ||
	    cxlv_borrow_blocks(start, size, &nid, &bad)) {
		cxlv_set_error("create: borrow: %#llx-%#llx is not all online System RAM of one node",
			       start, last);
		return -EBUSY;
	}
	rc = cxlv_borrow_node_floor(nid, size, true);
	if (rc)
		return rc;
	if (!cxlv_borrow_splittable(start, size)) {
		cxlv_set_error("create: borrow: %#llx-%#llx would cut a 1 GiB page of the kernel's direct map where it holds a single %llu MiB block of the range, which cannot be split first; move the end",
			       start, last, cxlv_mib(memory_block_size_bytes()));
		return -EBUSY;
	}
	rc = cxlv_fwmap_is_ram(start, last);
	if (rc <= 0) {
		cxlv_set_error("create: borrow: %#llx-%#llx is not RAM in the firmware memory map (%d)",
			       start, last, rc);
		return -EADDRNOTAVAIL;
	}
	rc = cxlv_borrow_offline(start, size);
	if (rc) {
		if (rc == -EINTR)
			cxlv_set_error("create: borrow: %#llx-%#llx: interrupted by a signal; every block is back online",
				       start, last);
		else if (cxlv_try.unsplit)
			cxlv_set_error("create: borrow: %#llx-%#llx: the kernel did not split the 1 GiB page of its direct map at a cut; every block is back online",
				       start, last);
		else if (cxlv_try.foreign)
			cxlv_set_error("create: borrow: %#llx-%#llx holds, or on this kernel lies below, another resource in its System RAM entry (kernel image, crash kernel, a driver: see /proc/iomem)",
				       start, last);
		else
			cxlv_set_error("create: borrow: %#llx-%#llx did not go offline (%d%s, %llu MiB did); every block is back online",
				       start, last, rc,
				       rc == -ETIMEDOUT ? ": timed out" : "",
				       cxlv_mib(cxlv_try.offlined_end - start));
		return rc == -EINTR || rc == -ETIMEDOUT ? rc : -EBUSY;
	}
	return cxlv_borrow_record(start, size, nid);
}

struct cxlv_ram_ranges {
	struct range r[CXLV_BORROW_RANGES];
	int n;
};

/* Top-level System RAM that no driver manages. */
static int cxlv_borrow_collect(struct resource *res, void *arg)
{
	struct cxlv_ram_ranges *rr = arg;

	if (res->parent != &iomem_resource ||
	    (res->flags & IORESOURCE_SYSRAM_DRIVER_MANAGED))
		return 0;
	if (rr->n == CXLV_BORROW_RANGES)
		return 1;
	rr->r[rr->n].start = res->start;
	rr->r[rr->n].end = res->end;
	rr->n++;
	return 0;
}

/* borrow=1 without memstart: the topmost run of @size that goes offline. */
static int cxlv_borrow_pick(u64 size, u64 *picked)
{
	u64 align = cxlv_borrow_align(), best = 0, start, end, low, bad;
	struct cxlv_ram_ranges *rr;
	int i, tried = 0, nid, rc = -ENOMEM, short_nid = NUMA_NO_NODE;

	rr = kzalloc(sizeof(*rr), GFP_KERNEL);
	if (!rr)
		return -ENOMEM;
	walk_iomem_res_desc(IORES_DESC_NONE, IORESOURCE_SYSTEM_RAM |
			    IORESOURCE_BUSY, CXLV_BORROW_MIN_START, U64_MAX, rr,
			    cxlv_borrow_collect);
	for (i = rr->n - 1; i >= 0 && rc && tried < CXLV_BORROW_TRIES; i--) {
		low = max_t(u64, ALIGN(rr->r[i].start, align),
			    CXLV_BORROW_MIN_START);
		end = ALIGN_DOWN(rr->r[i].end + 1, align);
		while (rc && end >= low + size && tried < CXLV_BORROW_TRIES) {
			start = end - size;
			if (cxlv_borrow_blocks(start, size, &nid, &bad)) {
				end = ALIGN_DOWN(bad, align);
				continue;
			}
			if (cxlv_borrow_node_floor(nid, size, false)) {
				short_nid = nid;
				end -= align;
				continue;
			}
			if (!cxlv_borrow_splittable(start, size) ||
			    cxlv_borrow_overlaps(start, size) ||
			    cxlv_fwmap_is_ram(start, end - 1) <= 0) {
				end -= align;
				continue;
			}
			tried++;
			rc = cxlv_borrow_offline(start, size);
			if (!rc) {
				*picked = start;
				rc = cxlv_borrow_record(start, size, nid);
				goto out;
			}
			if (rc == -EINTR)
				break;
			best = max(best, cxlv_try.offlined_end - start);
			pr_info("borrow: %#llx-%#llx did not go offline (%d%s); %llu MiB did\n",
				start, end - 1, rc,
				cxlv_try.foreign ? ", holds another resource" :
				cxlv_try.unsplit ? ", a 1 GiB page stayed whole" : "",
				cxlv_mib(cxlv_try.offlined_end - start));
			/* below the block that failed */
			end = cxlv_try.foreign ? start :
			      ALIGN_DOWN(cxlv_try.offlined_end, align);
			rc = -ENOMEM;
		}
	}
	if (rc == -EINTR)
		cxlv_set_error("create: borrow: interrupted by a signal; every block is back online");
	else if (rc == -ENOMEM && short_nid != NUMA_NO_NODE && !tried)
		cxlv_borrow_node_floor(short_nid, size, true);
	else if (rc == -ENOMEM)
		cxlv_set_error("create: borrow: no %llu MiB run of System RAM above 4 GiB went offline (largest run that did: %llu MiB; %d tried); ask for less, or boot with memmap=SIZE$START",
			       cxlv_mib(size), cxlv_mib(best), tried);
out:
	kfree(rr);
	return rc;
}

/**
 * cxlv_borrow() - take the range of a borrow=1 request from System RAM
 * @p: the request; memstart is filled in when the module picks the range
 *
 * Return: 0 with the range recorded as a free borrowed range, or a negative
 * errno (cxlv_parse.h) with the reason recorded and every block as before.
 */
int cxlv_borrow(struct cxlv_params *p)
{
	int rc = cxlv_borrow_floor(p->memsize);

	if (rc)
		return rc;
	if (!p->pick_start)
		return cxlv_borrow_exact(p->memstart, p->memsize);
	return cxlv_borrow_pick(p->memsize, &p->memstart);
}

static struct cxlv_borrow *cxlv_borrow_find(u64 start)
{
	struct cxlv_borrow *b;

	list_for_each_entry(b, &cxlv_borrowed, node)
		if (b->res.start == start)
			return b;
	return NULL;
}

/* Hands @b back to the kernel; with cxlv_borrow_lock held, @b unlisted. */
static int cxlv_borrow_give_back(struct cxlv_borrow *b)
{
	u64 start = b->res.start, size = resource_size(&b->res);
	int rc;

	cxlv_borrow_unhold(b);
	rc = add_memory(b->nid, start, size, MHP_NONE);
	if (rc) {
		if (cxlv_borrow_hold(b, start, size))
			pr_err("%#llx-%#llx: hot-add failed and another driver claimed it\n",
			       start, start + size - 1);
		return rc;
	}
	pr_info("gave %llu MiB at %#llx back to node %d\n", cxlv_mib(size),
		start, b->nid);
	return 0;
}

/**
 * cxlv_borrow_release() - give a free borrowed range back to the kernel
 * @start: its first byte
 *
 * Return: 0, -ENOENT when no borrowed range starts there, -EBUSY while a
 * device is on it, or add_memory()'s errno (the range stays borrowed).
 */
int cxlv_borrow_release(u64 start)
{
	struct cxlv_borrow *b;
	int rc;

	mutex_lock(&cxlv_borrow_lock);
	b = cxlv_borrow_find(start);
	if (!b) {
		cxlv_set_error("release: no borrowed range starts at %#llx (see borrowed)",
			       start);
		rc = -ENOENT;
	} else if (b->dev) {
		cxlv_set_error("release: %s is on %#llx; remove it first (or remove with release=1)",
			       dev_name(&b->dev->dev), start);
		rc = -EBUSY;
	} else {
		rc = cxlv_borrow_give_back(b);
		if (rc) {
			cxlv_set_error("release: hot-adding %#llx back failed: %d; it stays borrowed",
				       start, rc);
		} else {
			list_del(&b->node);
			kfree(b);
		}
	}
	mutex_unlock(&cxlv_borrow_lock);
	return rc;
}

/**
 * cxlv_borrow_get() - the free borrowed range a request lies in
 * @p: the request
 *
 * Return: the range, or NULL when the request is not inside a free one.
 * Called under cxlv_devices_lock, which keeps it free until claimed.
 */
struct cxlv_borrow *cxlv_borrow_get(const struct cxlv_params *p)
{
	struct cxlv_borrow *b, *found = NULL;

	mutex_lock(&cxlv_borrow_lock);
	list_for_each_entry(b, &cxlv_borrowed, node) {
		if (!b->dev && !b->dirty && p->memstart >= b->res.start &&
		    p->memstart + p->memsize - 1 <= b->res.end)
			found = b;
	}
	mutex_unlock(&cxlv_borrow_lock);
	return found;
}

/* The resource a device's claim is requested in: the busy hold. */
struct resource *cxlv_borrow_res(struct cxlv_borrow *b)
{
	return &b->hold;
}

u64 cxlv_borrow_start(struct cxlv_borrow *b)
{
	return b->res.start;
}

/**
 * cxlv_borrow_open() - let the stock drivers reach a device on @b
 * @b: the borrowed range
 * @cxlv: the device, its claim requested and tiled inside @b's hold
 *
 * Busy fillers join the claim inside the hold, then the hold leaves iomem:
 * remove_resource() moves its children up into @b's resource, which is not
 * busy, in one step under the resource lock. No flag changes.
 *
 * Return: 0, or -EBUSY when the fillers cannot be placed (the hold stays).
 */
int cxlv_borrow_open(struct cxlv_borrow *b, struct cxlv_dev *cxlv)
{
	u64 start = cxlv->params.memstart, end = start + cxlv->params.memsize;
	int i;

	b->fill[0] = (struct resource)DEFINE_RES_NAMED(b->res.start,
			start - b->res.start, "cxl_virt borrowed",
			IORESOURCE_MEM | IORESOURCE_BUSY);
	b->fill[1] = (struct resource)DEFINE_RES_NAMED(end,
			b->res.end + 1 - end, "cxl_virt borrowed",
			IORESOURCE_MEM | IORESOURCE_BUSY);
	for (i = 0; i < ARRAY_SIZE(b->fill); i++) {
		if (resource_size(&b->fill[i]) &&
		    request_resource(&b->hold, &b->fill[i])) {
			while (i--)
				if (b->fill[i].parent)
					remove_resource(&b->fill[i]);
			return -EBUSY;
		}
	}
	mutex_lock(&cxlv_borrow_lock);
	b->dev = cxlv;
	mutex_unlock(&cxlv_borrow_lock);
	remove_resource(&b->hold);
	return 0;
}

/**
 * cxlv_borrow_close() - busy again, before the device's claim goes
 * @b: the borrowed range
 *
 * The hold goes back over all of @b: insert_resource() makes the claim and
 * the fillers its children in one step, so nobody can request into the
 * range while it empties. Then the fillers go.
 */
void cxlv_borrow_close(struct cxlv_borrow *b)
{
	int i;

	if (!b->hold.parent) {
		b->hold = (struct resource)DEFINE_RES_NAMED(b->res.start,
				resource_size(&b->res), "cxl_virt borrowed, free",
				IORESOURCE_MEM | IORESOURCE_BUSY);
		if (insert_resource(&b->res, &b->hold))
			pr_err("%#llx-%#llx: cannot make the borrowed range busy again\n",
			       (u64)b->res.start, (u64)b->res.end);
	}
	for (i = 0; i < ARRAY_SIZE(b->fill); i++)
		if (b->fill[i].parent)
			remove_resource(&b->fill[i]);
	mutex_lock(&cxlv_borrow_lock);
	b->dev = NULL;
	mutex_unlock(&cxlv_borrow_lock);
}

/**
 * cxlv_borrow_free_names() - name every borrowed range that no device is
 *	on: its data and labels wait there for the next create
 * @n: the list to add to
 */
void cxlv_borrow_free_names(struct cxlv_names *n)
{
	struct cxlv_borrow *b;

	mutex_lock(&cxlv_borrow_lock);
	list_for_each_entry(b, &cxlv_borrowed, node) {
		if (b->dev)
			continue;
		cxlv_names_add(n, "borrowed %#llx-%#llx", (u64)b->res.start,
			       (u64)b->res.end);
		n->borrowed = true;
	}
	mutex_unlock(&cxlv_borrow_lock);
}

/**
 * cxlv_borrow_show() - the ``borrowed`` file
 * @buf: PAGE_SIZE buffer
 *
 * Return: bytes written: one line per range, sorted by start.
 */
ssize_t cxlv_borrow_show(char *buf)
{
	struct cxlv_borrow *b;
	ssize_t n = 0;

	mutex_lock(&cxlv_borrow_lock);
	list_for_each_entry(b, &cxlv_borrowed, node)
		n += scnprintf(buf + n, PAGE_SIZE - n, "%#llx %llu %d %s\n",
			       (u64)b->res.start, (u64)resource_size(&b->res),
			       b->nid, b->dev ? dev_name(&b->dev->dev) : "free");
	mutex_unlock(&cxlv_borrow_lock);
	return n;
}

int cxlv_borrow_init(void)
{
	return register_memory_notifier(&cxlv_borrow_nb);
}

/* Module exit, after every device is gone: all ranges go back. */
void cxlv_borrow_exit(void)
{
	struct cxlv_borrow *b, *tmp;

	mutex_lock(&cxlv_borrow_lock);
	list_for_each_entry_safe(b, tmp, &cxlv_borrowed, node) {
		if (WARN_ON(b->dev) || cxlv_borrow_give_back(b)) {
			pr_err("%#llx-%#llx stays out of System RAM\n",
			       (u64)b->res.start, (u64)b->res.end);
			/* the resources must not outlive the module */
			cxlv_borrow_unhold(b);
		}
		list_del(&b->node);
		kfree(b);
	}
	mutex_unlock(&cxlv_borrow_lock);
	unregister_memory_notifier(&cxlv_borrow_nb);
}

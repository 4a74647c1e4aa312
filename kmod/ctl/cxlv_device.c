// SPDX-License-Identifier: GPL-2.0-only
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/interrupt.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "cxlv_ctl.h"
#include "cxlmem.h"
#include "cxlv_events.h"

/**
 * DOC: cxl_virt device lifecycle
 *
 * Creates and removes cxlvN devices and describes them in sysfs. Create
 * validates the request completely before registering anything; the
 * driver's probe then builds, in order: the range claim and metadata
 * mapping, the PCI domain (scanned, not added), the CXL objects, the
 * emulator; only then it lets PCI drivers bind, and covers what they do not
 * map (cxlv_mem_guard(), cxlv_bar_start()). All of it but the binding is
 * devm, so a failed probe or a remove unwinds in reverse: covers, CXL
 * objects, PCI domain, emulator, mapping and claim; on remove the endpoint
 * leaves the PCI bus first, before cxlvN unbinds (cxlv_unregister() says
 * why). A mutex serialises create and remove.
 *
 * Remove is refused while a region exists or while the CXL window holds
 * anything the module did not put there (cxlv_window_check()). A device
 * may sit in a range borrowed from System RAM (cxlv_borrow.c): the borrow's
 * record stands in for memmap=, and remove with release=1 gives the range
 * back once the device is gone.
 *
 * Attributes are read-only; the physical addresses among them are for root
 * only (0400), like the CXL core's decoder start and /proc/iomem.
 */

static DEFINE_MUTEX(cxlv_devices_lock);
/* xa_alloc() hands out the lowest free id: cxlv0 again after removes */
static DEFINE_XARRAY_ALLOC(cxlv_devices);
static const struct device_type cxlv_dev_type;	/* its attributes, at the end */
static bool cxlv_unloading;	/* no creates once module exit began */

static void cxlv_release(struct device *dev)
{
	struct cxlv_dev *cxlv = to_cxlv_dev(dev);

	cxlv_mem_free(cxlv);
	kfree(cxlv->hbs);
	kfree(cxlv->eps);
	kfree(cxlv);
}

static void cxlv_emu_teardown(void *data)
{
	struct cxlv_ep *ep = data;

	if (ep->emu) {
		cxlv_hints_put();
		cxlv_emu_stop(ep->emu);
	}
	ep->emu = NULL;
}

/* What the emulator reaches above itself for: the hooks. */
static const struct cxlv_emu_ops cxlv_emu_ops = {
	.poison_changed = cxlv_badrange_queue,
	.mbox_irq = cxlv_msi_mbox_irq,
};

/*
 * A persistent device can move its partition boundary, where the kernel
 * has RAM regions (cxlv_compat.h).
 */
static bool cxlv_partitionable(const struct cxlv_dev *cxlv)
{
	return CXLV_PARTITIONS && cxlv->params.pmem;
}

static int cxlv_emu_setup(struct cxlv_ep *ep)
{
	struct cxlv_dev *cxlv = ep->cxlv;
	struct cxlv_emu_config cfg = {
		.dev = &cxlv->dev,
		.pos = ep->pos,
		.dev_regs = ep->meta + CXLV_DEV_REGS_OFFSET,
		.comp_regs = ep->meta + CXLV_COMP_REGS_OFFSET,
		.lsa = ep->meta + CXLV_LSA_OFFSET,
		.nv = ep->meta + CXLV_NV_OFFSET,
		.capacity = cxlv_ep_capacity(cxlv),
		.hpa_base = cxlv->layout.window_start,
		.ways = cxlv->params.ways,
		.granularity = cxlv->params.granularity,
		.pmem = cxlv->params.pmem,
		.partitionable = cxlv_partitionable(cxlv),
		.ram_bytes = ep->ram_bytes,
		.auto_commit = cxlv->params.auto_region,
		.lock_on_commit = cxlv->params.locked,
		.fw_slots = cxlv->params.fw_slots,
		.ops = &cxlv_emu_ops,
	};
	struct cxlv_emu *emu;

	memcpy(cfg.fw_rev, cxlv->params.fw_rev, sizeof(cfg.fw_rev));
	if (cxlv_hb_decodes(ep)) {
		cfg.bridge_regs = ep->meta + CXLV_BRIDGE_REGS_OFFSET;
		cfg.bridge_ways = cxlv_root_ports(cxlv);
	}
	emu = cxlv_emu_start(&cfg);
	if (IS_ERR(emu))
		return dev_err_probe(&cxlv->dev, PTR_ERR(emu),
				     "cannot start emulator of endpoint %u\n",
				     ep->pos);
	ep->emu = emu;
	cxlv_hints_get(&cxlv->dev);
	return 0;
}

/*
 * Before the PCI domains: each endpoint's partition layout (its CDAT needs
 * it), BAR0 covers and emulator stop.
 */
static int cxlv_ep_init(struct cxlv_dev *cxlv)
{
	const struct cxlv_params *p = &cxlv->params;
	u64 ep_ram = div_u64(p->ram_size, p->ways);
	struct cxlv_ep *ep;
	int rc;

	cxlv_for_each_ep(cxlv, ep) {
		ep->ram_bytes = cxlv_partition_boot(ep->meta + CXLV_NV_OFFSET,
						    cxlv_ep_capacity(cxlv),
						    cxlv_partitionable(cxlv),
						    p->ram_size_given ?
						    &ep_ram : NULL);
		/* a set's windows take each partition across all endpoints */
		if (ep->ram_bytes != cxlv->eps[0].ram_bytes) {
			cxlv_set_error("create: %s: endpoint %u has %llu MiB volatile, endpoint 0 %llu MiB: give each memdev of the set the same cxl set-partition, or create with ram_size=",
				       dev_name(&cxlv->dev), ep->pos,
				       ep->ram_bytes / SZ_1M,
				       cxlv->eps[0].ram_bytes / SZ_1M);
			cxlv->probe_reported = true;
			return -EINVAL;
		}
		rc = cxlv_bar_init(ep);
		/* registered before the PCI domain so it stops after it is gone */
		if (!rc)
			rc = devm_add_action_or_reset(&cxlv->dev,
						      cxlv_emu_teardown, ep);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * The PCI domains, the emulators, the CXL objects, then the drivers: a host
 * bridge's port reads its decoders as it is added, so those a device is
 * born with (auto_region=1) are committed before.
 */
static int cxlv_build(struct cxlv_dev *cxlv)
{
	struct cxlv_ep *ep;
	struct cxlv_hb *hb;
	int rc;

	cxlv_for_each_hb(cxlv, hb) {
		rc = cxlv_pci_setup(hb);
		if (rc)
			return rc;
	}
	cxlv_for_each_ep(cxlv, ep) {
		rc = cxlv_emu_setup(ep);
		if (rc)
			return rc;
	}
	rc = cxlv_port_setup(cxlv);
	if (rc)
		return rc;
	if (cxlv->params.pmem) {
		struct cxl_nvdimm_bridge *nvb = cxlv_port_add_nvdimm_bridge(cxlv);

		if (IS_ERR(nvb))
			return PTR_ERR(nvb);
		rc = cxlv_badrange_attach(cxlv, nvb);
		if (rc)
			return rc;
	}
	cxlv_for_each_hb(cxlv, hb)
		cxlv_pci_add_devices(hb);
	rc = cxlv_mem_guard(cxlv);
	if (rc)
		return rc;
	cxlv_for_each_ep(cxlv, ep) {
		rc = cxlv_bar_start(ep);
		if (rc)
			return rc;
	}
	return 0;
}

/**
 * cxlv_probe() - build the device's PCI and CXL topology
 * @dev: the cxlvN device, bound to cxlv_driver
 *
 * Return: 0 or a negative errno, also left in probe_rc for cxlv_create().
 */
int cxlv_probe(struct device *dev)
{
	struct cxlv_dev *cxlv = to_cxlv_dev(dev);
	int rc;

	rc = cxlv_mem_setup(cxlv);
	/* before the emulators, so that it stops after them */
	if (!rc)
		rc = cxlv_badrange_init(cxlv);
	if (!rc)
		rc = cxlv_ep_init(cxlv);
	if (!rc)
		rc = cxlv_window_split(cxlv);
	if (rc)
		goto out;
	/* a PCI rescan must not add the devices before they are ready */
	pci_lock_rescan_remove();
	rc = cxlv_build(cxlv);
	pci_unlock_rescan_remove();
	if (rc)
		goto out;
	/* memdevs that probed before their port existed try again */
	cxl_bus_rescan();
out:
	WRITE_ONCE(cxlv->probe_rc, rc);
	return rc;
}

static bool cxlv_live(struct cxlv_dev *cxlv)
{
	return READ_ONCE(cxlv->probe_rc) == 0;
}

static struct cxlv_dev *cxlv_find_conflict(const struct cxlv_params *p)
{
	struct cxlv_dev *other;
	unsigned long id;

	xa_for_each(&cxlv_devices, id, other) {
		if (cxlv_mem_overlaps(p, &other->params)) {
			cxlv_set_error("create: range %#llx+%#llx overlaps %s",
				       p->memstart, p->memsize,
				       dev_name(&other->dev));
			return other;
		}
		if (p->serial < other->params.serial + other->params.ways &&
		    other->params.serial < p->serial + p->ways) {
			cxlv_set_error("create: serial %#llx is already used by %s",
				       max(p->serial, other->params.serial),
				       dev_name(&other->dev));
			return other;
		}
	}
	return NULL;
}

/* Endpoints, one per way, count against the limit; not devices. */
static int cxlv_check_endpoints(const struct cxlv_params *p)
{
	struct cxlv_dev *other;
	unsigned int used = 0;
	unsigned long id;

	xa_for_each(&cxlv_devices, id, other)
		used += other->params.ways;
	if (used + p->ways <= CXLV_MAX_DEVICES)
		return 0;
	cxlv_set_error("create: limit of %d endpoints reached: %u in use, ways=%u asks for %u more",
		       CXLV_MAX_DEVICES, used, p->ways, p->ways);
	return -EMFILE;
}

/**
 * cxlv_create() - validate a request and create a device for it
 * @req: the parsed request
 *
 * Return: the new device's id, or a negative errno with the reason in
 * last_error: -EMFILE at the endpoint limit, -EEXIST for a range or serial
 * another device uses, the errors of cxlv_mem_validate(), or probe's
 * error (whose details probe logs with dev_err_probe()).
 * Nothing is left behind on failure.
 */
int cxlv_create(const struct cxlv_params *req)
{
	struct cxlv_params p = *req;
	struct cxlv_borrow *borrow;
	struct cxlv_layout layout;
	struct cxlv_dev *cxlv;
	unsigned int pos;
	u32 id;
	int rc;

	if (!p.serial)
		p.serial = cxlv_default_serial(p.memstart);

	if (p.ram_size_given && !CXLV_PARTITIONS) {
		cxlv_set_error("create: ram_size= needs RAM regions (Linux 6.3 and later) for the volatile part; leave it out on this kernel");
		return -EOPNOTSUPP;
	}
	if (p.qos_class_given && !CXLV_QOS_CLASSES) {
		cxlv_set_error("create: qos_class= needs QoS classes (Linux 6.9 and later); leave it out on this kernel");
		return -EOPNOTSUPP;
	}
	if (p.auto_region && !CXLV_AUTO_REGIONS) {
		cxlv_set_error("create: auto_region=1 needs a kernel that assembles committed regions at probe (Linux 6.3 and later); create regions with cxl create-region on this kernel");
		return -EOPNOTSUPP;
	}
	if (p.locked && !CXLV_REGION_LOCKS) {
		cxlv_set_error("create: locked=1 needs a kernel that keeps locked regions (CXL_REGION_F_LOCK, Linux 7.x); leave it out on this kernel");
		return -EOPNOTSUPP;
	}
	mutex_lock(&cxlv_devices_lock);
	if (cxlv_unloading) {
		cxlv_set_error("create: cxl_virt is being unloaded");
		rc = -ENODEV;
		goto unlock;
	}
	borrow = cxlv_borrow_get(&p);
	rc = cxlv_mem_validate(&p, &layout, borrow);
	if (rc)
		goto unlock;
	if (p.ram_size_given && p.ram_size >= layout.capacity) {
		cxlv_set_error("create: ram_size=%llu is not below the %llu MiB capacity: give a multiple of %llu MiB below it, the rest is pmem",
			       p.ram_size, layout.capacity / SZ_1M,
			       CXLV_PARTITION_ALIGN / SZ_1M);
		rc = -ERANGE;
		goto unlock;
	}
	if (cxlv_find_conflict(&p)) {
		rc = -EEXIST;
		goto unlock;
	}
	rc = cxlv_check_endpoints(&p);
	if (rc)
		goto unlock;
	cxlv = kzalloc(sizeof(*cxlv), GFP_KERNEL);
	if (cxlv) {
		cxlv->eps = kcalloc(p.ways, sizeof(*cxlv->eps), GFP_KERNEL);
		cxlv->hbs = kcalloc(p.host_bridges, sizeof(*cxlv->hbs),
				    GFP_KERNEL);
	}
	if (!cxlv || !cxlv->eps || !cxlv->hbs) {
		if (cxlv) {
			kfree(cxlv->hbs);
			kfree(cxlv->eps);
		}
		kfree(cxlv);
		rc = -ENOMEM;
		goto unlock;
	}
	rc = xa_alloc(&cxlv_devices, &id, cxlv,
		      XA_LIMIT(0, CXLV_MAX_DEVICES - 1), GFP_KERNEL);
	if (rc) {
		kfree(cxlv->hbs);
		kfree(cxlv->eps);
		kfree(cxlv);
		goto unlock;
	}
	for (pos = 0; pos < p.host_bridges; pos++) {
		cxlv->hbs[pos].cxlv = cxlv;
		cxlv->hbs[pos].idx = pos;
	}
	/*
	 * Position p sits below host bridge p mod H, the root decoder's
	 * target for it, on that bridge's root port p div H; its metadata at
	 * memstart + p MiB.
	 */
	for (pos = 0; pos < p.ways; pos++) {
		cxlv->eps[pos].cxlv = cxlv;
		cxlv->eps[pos].pos = pos;
		cxlv->eps[pos].hb = &cxlv->hbs[pos % p.host_bridges];
		cxlv->eps[pos].rp = pos / p.host_bridges;
		cxlv->eps[pos].bar0 = layout.bar0 + (u64)pos * CXLV_META_SIZE;
	}

	cxlv->id = id;
	cxlv->params = p;
	cxlv->layout = layout;
	cxlv->probe_rc = -EINPROGRESS;
	cxlv->borrow = borrow;
	cxlv->borrowed = borrow;
	device_initialize(&cxlv->dev);
	cxlv_dev_set_bus(&cxlv->dev);
	cxlv->dev.type = &cxlv_dev_type;
	cxlv->dev.release = cxlv_release;
	rc = dev_set_name(&cxlv->dev, "cxlv%u", id);
	if (rc) {
		cxlv_set_error("create: cannot name cxlv%u: %d", id, rc);
		goto err_put;
	}
	/* under the lock that validated it: checked and claimed in one step */
	rc = cxlv_mem_claim(cxlv);
	if (rc)
		goto err_put;
	rc = device_add(&cxlv->dev);
	if (rc) {
		cxlv_set_error("create: cannot register cxlv%u: %d", id, rc);
		goto err_unclaim;
	}
	/* device_add() does not return probe errors; probe logged its own */
	rc = READ_ONCE(cxlv->probe_rc);
	if (rc) {
		if (rc == -EINPROGRESS) {
			rc = -ENXIO;
			cxlv_set_error("create: cxlv%u was not probed", id);
		} else if (!cxlv->probe_reported) {
			cxlv_set_error("create: cxlv%u did not probe: %pe (the kernel log says why)",
				       id, ERR_PTR(rc));
		}
		device_del(&cxlv->dev);
		goto err_unclaim;
	}
	dev_info(&cxlv->dev, "%llu MiB %s (%llu MiB volatile) at %#llx, serial %#llx%s\n",
		 layout.capacity / SZ_1M, p.pmem ? "persistent" : "volatile",
		 cxlv_ram_bytes(cxlv) / SZ_1M,
		 layout.window_start, p.serial,
		 borrow ? ", on borrowed memory" : "");
	rc = id;
	goto unlock;

err_unclaim:
	/* a failed probe gave it back already */
	cxlv_mem_unclaim(cxlv);
err_put:
	xa_erase(&cxlv_devices, id);
	put_device(&cxlv->dev);
unlock:
	mutex_unlock(&cxlv_devices_lock);
	return rc;
}

/*
 * Lock order. cxl_pci binds the endpoint in a worker that holds the
 * endpoint's device lock, then the memdev's (cxl_mem probes synchronously
 * under it). From there the 7.x CXL core also takes cxlvN's device lock:
 * cxlvN is the host of the host-bridge port, which find_or_add_dport() locks
 * before the port, and the uport of the root, which devm_cxl_add_nvdimm()
 * locks. 6.1 and 6.12 stop at the ports' own locks. So, on every kernel:
 *
 *   cxlv_devices_lock > cxlvN > PCI rescan lock > CXL port       (probe)
 *   cxlv_devices_lock > PCI rescan lock > PCI endpoint            (remove)
 *   PCI endpoint > memdev > cxlvN > CXL port                      (cxl_pci)
 *
 * Nothing may wait for an endpoint while holding its cxlvN's lock: probe
 * only adds the endpoint (no worker holds the lock of one just scanned), and
 * its driver is unbound here, before the driver core takes cxlvN's lock to
 * unbind cxlvN. Probe takes the rescan lock under cxlvN's and remove waits
 * for the endpoint under the rescan lock; cxlv_devices_lock keeps the two
 * from running at once.
 */
static void cxlv_unregister(struct cxlv_dev *cxlv)
{
	cxlv_pci_stop_devices(cxlv);
	device_unregister(&cxlv->dev);
}

/**
 * cxlv_remove() - remove an idle device
 * @id: N of cxlvN
 * @release: give its borrowed range back to the kernel too
 *
 * Return: 0, -ENODEV for no such device, -EINVAL for @release on a device
 * whose range is not borrowed, -EBUSY while a region exists or the
 * device's memory holds anything of another owner, or the errors of
 * cxlv_borrow_release() (the device is gone then, the range borrowed).
 */
int cxlv_remove(u32 id, bool release)
{
	const char *region;
	struct cxlv_dev *cxlv;
	u64 start = 0;
	int rc = 0;

	mutex_lock(&cxlv_devices_lock);
	cxlv = xa_load(&cxlv_devices, id);
	if (!cxlv) {
		cxlv_set_error("remove: no device cxlv%u", id);
		rc = -ENODEV;
	} else if (release && !cxlv->borrow) {
		cxlv_set_error("remove: release=1: %s is not on borrowed memory; nothing removed",
			       dev_name(&cxlv->dev));
		rc = -EINVAL;
	} else if (cxlv_port_has_region(cxlv, &region)) {
		cxlv_set_error("remove: %s has %s; destroy it first (cxl destroy-region)",
			       dev_name(&cxlv->dev), region);
		rc = -EBUSY;
	} else if (cxlv_window_check(cxlv)) {
		dev_err_ratelimited(&cxlv->dev, "remove refused: CXL window not empty\n");
		rc = -EBUSY;
	} else {
		if (release)
			start = cxlv_borrow_start(cxlv->borrow);
		xa_erase(&cxlv_devices, id);
		cxlv_unregister(cxlv);
	}
	mutex_unlock(&cxlv_devices_lock);
	if (!rc && release)
		rc = cxlv_borrow_release(start);
	return rc;
}

/*
 * The running endpoint @pos of cxlv@id, under cxlv_devices_lock, or NULL
 * with the reason, which names the control file @what, recorded.
 */
static struct cxlv_ep *cxlv_running_ep(u32 id, u32 pos, const char *what)
{
	struct cxlv_dev *cxlv = xa_load(&cxlv_devices, id);

	if (!cxlv || !cxlv_live(cxlv)) {
		cxlv_set_error("%s: no device cxlv%u", what, id);
		return NULL;
	}
	if (pos >= cxlv->params.ways) {
		cxlv_set_error("%s: pos=%u: %s has endpoints 0 to %u", what,
			       pos, dev_name(&cxlv->dev),
			       cxlv->params.ways - 1);
		return NULL;
	}
	if (!cxlv->eps[pos].emu) {
		cxlv_set_error("%s: %s endpoint %u is not running", what,
			       dev_name(&cxlv->dev), pos);
		return NULL;
	}
	return &cxlv->eps[pos];
}

/* Raises the MSI @msgnum asks for (-ENOMSG: none) after @what. */
static int cxlv_raise_after(struct cxlv_ep *ep, int msgnum, const char *what)
{
	int rc = msgnum < 0 ? 0 : cxlv_msi_raise(ep, msgnum);

	if (rc)
		cxlv_set_error("%s: records logged, but the MSI could not be raised: %d",
			       what, rc);
	return rc;
}

/**
 * cxlv_inject_event() - add event records to an endpoint's logs
 * @req: the parsed request (cxlv_parse_event())
 *
 * Return: 0, -ENODEV for no such device or endpoint, -EINVAL or -ERANGE
 * for a DPA the endpoint does not have, or the error of raising its MSI
 * (the records are in the log then).
 */
int cxlv_inject_event(const struct cxlv_event_request *req)
{
	struct cxlv_ep *ep;
	int rc = -ENODEV;

	mutex_lock(&cxlv_devices_lock);
	ep = cxlv_running_ep(req->id, req->pos, "inject_event");
	if (!ep)
		goto out;
	rc = cxlv_emu_inject_event(ep->emu, req);
	if (rc == -EINVAL || rc == -ERANGE) {
		cxlv_set_error("inject_event: dpa=%#llx: %s (the endpoint's capacity is %#llx)",
			       req->dpa, rc == -EINVAL ?
			       "not 64-byte aligned" : "past the capacity",
			       cxlv_ep_capacity(ep->cxlv));
		goto out;
	}
	rc = cxlv_raise_after(ep, rc, "inject_event");
out:
	mutex_unlock(&cxlv_devices_lock);
	return rc;
}

/**
 * cxlv_set_health() - change the health figures of an endpoint
 * @req: the parsed request (cxlv_parse_health())
 *
 * Return: 0, -ENODEV for no such device or endpoint, or the error of
 * raising its MSI for the Memory Module records the change added (the
 * figures are changed and the records in the log then).
 */
int cxlv_set_health(const struct cxlv_health_request *req)
{
	struct cxlv_ep *ep;
	int rc = -ENODEV;

	mutex_lock(&cxlv_devices_lock);
	ep = cxlv_running_ep(req->id, req->pos, "set_health");
	if (ep)
		rc = cxlv_raise_after(ep, cxlv_emu_set_health(ep->emu, req),
				      "set_health");
	mutex_unlock(&cxlv_devices_lock);
	return rc;
}

/*
 * Module unload: a CXL window that is not fenced pins the module, so every
 * device here is idle and its window empty.
 */
void cxlv_remove_all(void)
{
	struct cxlv_dev *cxlv;
	unsigned long id;

	mutex_lock(&cxlv_devices_lock);
	cxlv_unloading = true;
	xa_for_each(&cxlv_devices, id, cxlv) {
		xa_erase(&cxlv_devices, id);
		cxlv_unregister(cxlv);
	}
	mutex_unlock(&cxlv_devices_lock);
}

static int cxlv_match_memdev(struct device *dev, CXLV_FIND_CHILD_DATA *data)
{
	return is_cxl_memdev(dev);
}

/* The memdev cxl_pci made under the endpoint, with a reference. */
static struct device *cxlv_find_memdev(struct cxlv_ep *ep)
{
	struct pci_dev *pdev;
	struct device *memdev;

	if (!cxlv_live(ep->cxlv))
		return NULL;
	pdev = cxlv_pci_get_ep(ep);
	if (!pdev)
		return NULL;
	memdev = device_find_child(&pdev->dev, NULL, cxlv_match_memdev);
	pci_dev_put(pdev);
	return memdev;
}

/* The bound memdevs' names in position order, or an empty line. */
static ssize_t memdev_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct cxlv_dev *cxlv = to_cxlv_dev(dev);
	struct cxlv_ep *ep;
	ssize_t n = 0;

	cxlv_for_each_ep(cxlv, ep) {
		struct device *memdev = cxlv_find_memdev(ep);
		bool bound = memdev && READ_ONCE(memdev->driver);

		if (bound)
			n += sysfs_emit_at(buf, n, "%s%s", ep->pos ? " " : "",
					   dev_name(memdev));
		put_device(memdev);
		if (!bound)
			return sysfs_emit(buf, "\n");
	}
	return n + sysfs_emit_at(buf, n, "\n");
}
static DEVICE_ATTR_RO(memdev);

static const char *cxlv_state(struct cxlv_dev *cxlv)
{
	struct cxlv_ep *ep;

	if (!cxlv_live(cxlv))
		return "probing";
	if (cxlv_port_has_region(cxlv, NULL))
		return "busy";
	cxlv_for_each_ep(cxlv, ep) {
		struct device *memdev = cxlv_find_memdev(ep);
		bool bound = memdev && READ_ONCE(memdev->driver);

		put_device(memdev);
		if (!bound)
			return "enumerating";
	}
	return "ready";
}

static ssize_t state_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%s\n", cxlv_state(to_cxlv_dev(dev)));
}
static DEVICE_ATTR_RO(state);

static ssize_t root_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct cxlv_dev *cxlv = to_cxlv_dev(dev);

	if (!cxlv_live(cxlv))
		return sysfs_emit(buf, "\n");
	return sysfs_emit(buf, "%s\n", dev_name(&cxlv->root->dev));
}
static DEVICE_ATTR_RO(root);

static ssize_t decoder_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct cxlv_dev *cxlv = to_cxlv_dev(dev);

	unsigned int i;
	int len = 0;

	if (!cxlv_live(cxlv))
		return sysfs_emit(buf, "\n");
	for (i = 0; i < cxlv->nr_windows; i++)
		len += sysfs_emit_at(buf, len, "%s%s", i ? " " : "",
				     dev_name(&cxlv->cxlrd[i]->cxlsd.cxld.dev));
	return len + sysfs_emit_at(buf, len, "\n");
}
static DEVICE_ATTR_RO(decoder);

/* A list with one value per endpoint, in position order. */
static ssize_t cxlv_show_eps(struct cxlv_dev *cxlv, char *buf,
			     u64 (*value)(const struct cxlv_ep *ep),
			     const char *fmt)
{
	struct cxlv_ep *ep;
	ssize_t n = 0;

	cxlv_for_each_ep(cxlv, ep) {
		if (ep->pos)
			n += sysfs_emit_at(buf, n, " ");
		n += sysfs_emit_at(buf, n, fmt, value(ep));
	}
	return n + sysfs_emit_at(buf, n, "\n");
}

/* One domain per host bridge, in host-bridge order. */
static ssize_t pci_domain_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct cxlv_dev *cxlv = to_cxlv_dev(dev);
	struct cxlv_hb *hb;
	ssize_t n = 0;

	if (!cxlv_live(cxlv))
		return sysfs_emit(buf, "\n");
	cxlv_for_each_hb(cxlv, hb)
		n += sysfs_emit_at(buf, n, "%s%04x", hb->idx ? " " : "",
				   hb->sysdata.domain);
	return n + sysfs_emit_at(buf, n, "\n");
}
static DEVICE_ATTR_RO(pci_domain);

static u64 cxlv_ep_label_offset(const struct cxlv_ep *ep)
{
	return ep->bar0 + CXLV_LSA_OFFSET - ep->cxlv->params.memstart;
}

static ssize_t label_offset_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return cxlv_show_eps(to_cxlv_dev(dev), buf, cxlv_ep_label_offset,
			     "%#llx");
}
static DEVICE_ATTR_RO(label_offset);

static u64 cxlv_ep_serial(const struct cxlv_ep *ep)
{
	return ep->cxlv->params.serial + ep->pos;
}

/* The endpoints' serials (DSN), in position order: serial + position. */
static ssize_t serials_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return cxlv_show_eps(to_cxlv_dev(dev), buf, cxlv_ep_serial, "%llu");
}
static DEVICE_ATTR_RO(serials);

static ssize_t label_size_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lu\n", (unsigned long)CXLV_LSA_SIZE);
}
static DEVICE_ATTR_RO(label_size);

/* A counter summed over the endpoints' emulators. */
static u64 cxlv_sum_eps(struct cxlv_dev *cxlv,
			u64 (*count)(const struct cxlv_emu *emu))
{
	struct cxlv_ep *ep;
	u64 sum = 0;

	if (!cxlv_live(cxlv))
		return 0;
	cxlv_for_each_ep(cxlv, ep)
		sum += count(ep->emu);
	return sum;
}

/*
 * Physical addresses, and the sizes that give away where the range ends,
 * are root only (0400), like the CXL core's decoder start.
 */
#define CXLV_U64_ATTR(_name, _fmt, _expr, _mode)			\
static ssize_t _name##_show(struct device *dev,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	struct cxlv_dev *cxlv = to_cxlv_dev(dev);			\
									\
	return sysfs_emit(buf, _fmt "\n", (unsigned long long)(_expr));	\
}									\
static struct device_attribute dev_attr_##_name =			\
	__ATTR(_name, _mode, _name##_show, NULL)

CXLV_U64_ATTR(memstart, "%#llx", cxlv->params.memstart, 0400);
CXLV_U64_ATTR(memsize, "%llu", cxlv->params.memsize, 0400);
CXLV_U64_ATTR(pmem, "%llu", cxlv->params.pmem, 0444);
CXLV_U64_ATTR(borrowed, "%llu", cxlv->borrowed, 0444);
CXLV_U64_ATTR(serial, "%llu", cxlv->params.serial, 0444);
CXLV_U64_ATTR(ways, "%llu", cxlv->params.ways, 0444);
CXLV_U64_ATTR(host_bridges, "%llu", cxlv->params.host_bridges, 0444);
CXLV_U64_ATTR(granularity, "%llu", cxlv->params.granularity, 0444);
CXLV_U64_ATTR(capacity, "%llu", cxlv->layout.capacity, 0444);
CXLV_U64_ATTR(auto_region, "%llu", cxlv->params.auto_region, 0444);
CXLV_U64_ATTR(locked, "%llu", cxlv->params.locked, 0444);
CXLV_U64_ATTR(window_start, "%#llx", cxlv->layout.window_start, 0400);
CXLV_U64_ATTR(read_latency, "%llu", cxlv->params.perf.read_latency, 0444);
CXLV_U64_ATTR(write_latency, "%llu", cxlv->params.perf.write_latency, 0444);
CXLV_U64_ATTR(read_bandwidth, "%llu", cxlv->params.perf.read_bandwidth, 0444);
CXLV_U64_ATTR(write_bandwidth, "%llu", cxlv->params.perf.write_bandwidth,
	      0444);
CXLV_U64_ATTR(mbox_cmds, "%llu", cxlv_sum_eps(cxlv, cxlv_emu_mbox_cmds),
	      0444);
CXLV_U64_ATTR(commits, "%llu", cxlv_sum_eps(cxlv, cxlv_emu_commits), 0444);
CXLV_U64_ATTR(events_injected, "%llu",
	      cxlv_sum_eps(cxlv, cxlv_emu_events_injected), 0444);
CXLV_U64_ATTR(events_cleared, "%llu",
	      cxlv_sum_eps(cxlv, cxlv_emu_events_cleared), 0444);
CXLV_U64_ATTR(events_pending, "%llu",
	      cxlv_sum_eps(cxlv, cxlv_emu_events_pending), 0444);

static struct attribute *cxlv_dev_attrs[] = {
	&dev_attr_memstart.attr,
	&dev_attr_memsize.attr,
	&dev_attr_pmem.attr,
	&dev_attr_borrowed.attr,
	&dev_attr_serial.attr,
	&dev_attr_serials.attr,
	&dev_attr_ways.attr,
	&dev_attr_host_bridges.attr,
	&dev_attr_granularity.attr,
	&dev_attr_capacity.attr,
	&dev_attr_auto_region.attr,
	&dev_attr_locked.attr,
	&dev_attr_window_start.attr,
	&dev_attr_label_offset.attr,
	&dev_attr_label_size.attr,
	&dev_attr_pci_domain.attr,
	&dev_attr_memdev.attr,
	&dev_attr_root.attr,
	&dev_attr_decoder.attr,
	&dev_attr_state.attr,
	&dev_attr_mbox_cmds.attr,
	&dev_attr_commits.attr,
	&dev_attr_events_injected.attr,
	&dev_attr_events_cleared.attr,
	&dev_attr_events_pending.attr,
	&dev_attr_read_latency.attr,
	&dev_attr_write_latency.attr,
	&dev_attr_read_bandwidth.attr,
	&dev_attr_write_bandwidth.attr,
	NULL,
};

ATTRIBUTE_GROUPS(cxlv_dev);

static const struct device_type cxlv_dev_type = {
	.groups = cxlv_dev_groups,
};

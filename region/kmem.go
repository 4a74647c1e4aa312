package region

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/sysfs"
)

// RAM through kmem on kernels without RAM regions (Linux 6.1: no root
// decoder offers create_ram_region): the way ndctl users make such memory
// a NUMA node. A pmem region gets a devdax namespace, and its dax device
// moves from device_dax to kmem as daxctl reconfigure-device
// --mode=system-ram moves it (libdaxctl daxctl_dev_disable, then
// daxctl_dev_enable): unbind from device_dax, then kmem's new_id, which
// also attaches the device (drivers/dax/bus.c do_id_store). kmem hot-adds
// the memory blocks wholly inside the device; from there the online
// policy, the wait and the settling are the RAM region's (ram.go).
// Destroy gives the memory back first: offline, kmem's remove_id and
// unbind, device_dax again; then the namespace and the region go as any
// pmem region's.

// kmemDrivers make a pmem region's memory RAM.
var kmemDrivers = []driverNeed{{"nd", "dax_pmem", "dax_pmem"}, {"dax", "device_dax", "device_dax"}, {"dax", "kmem", "kmem"}}

// planKmem plans the pmem region whose memory becomes RAM.
func (m *Manager) planKmem(s Spec, md sysfs.Memdev) (plan, error) {
	if err := m.checkDrivers(kmemDrivers); err != nil {
		return plan{}, err
	}
	p, err := m.planPmem(Spec{Memdev: s.Memdev, Members: s.Members, Size: s.Size}, md)
	if err != nil {
		return plan{}, err
	}
	p.kmem, p.online = true, s.onlinePolicy()
	return p, nil
}

// createKmem makes a devdax namespace on the new pmem region's nd region
// and gives its dax device to kmem.
func (m *Manager) createKmem(ctx context.Context, t *tx, p plan, nd sysfs.NDRegion, res *Result) error {
	nsStart := time.Now()
	ns, err := m.createNamespace(ctx, t, NamespaceSpec{Region: nd.Name, Mode: ModeDevdax}, nd)
	if err != nil {
		return err
	}
	res.Namespaces, res.NamespaceTime = []NamespaceResult{ns}, time.Since(nsStart)
	dax := filepath.Base(ns.CharDev)
	deviceDax, kmem := m.daxDriver("device_dax"), m.daxDriver("kmem")
	res.RAMResult, err = m.becomeMemory(ctx, t, p, dax, func() error {
		return t.write(deviceDax("unbind"), dax, ops(deviceDax("bind"), dax)...)
	}, func() error {
		if err := t.write(kmem("new_id"), dax); err != nil {
			return err
		}
		t.pushGuard("offline the memory of "+dax+"; "+kmem("remove_id")+"; "+kmem("unbind"), func() error {
			return m.offlineThen(p.region, p.online, func(w *tx) error { return m.kmemRelease(w, dax) })
		})
		return nil
	})
	return err
}

// daxDriver gives the paths of a dax bus driver's files.
func (m *Manager) daxDriver(driver string) func(file string) string {
	return func(file string) string { return m.driverFile("dax", driver, file) }
}

// kmemRelease makes kmem let dax go, its memory offline: the id first, so
// that kmem does not take the device again, then the unbind, which removes
// the memory. A device that kmem never attached has nothing to unbind.
func (m *Manager) kmemRelease(t *tx, dax string) error {
	kmem := m.daxDriver("kmem")
	if err := t.write(kmem("remove_id"), dax, ops(kmem("new_id"), dax)...); err != nil {
		return err
	}
	devs, err := m.Host.Sys().DaxDevices()
	if err != nil {
		return err
	}
	for _, d := range devs {
		if d.Name == dax && d.Driver == "" {
			return nil
		}
	}
	return t.write(kmem("unbind"), dax)
}

// releaseKmem gives back the memory kmem holds for pmem region r before the
// region is destroyed: offline, away from kmem, back to device_dax. When a
// block cannot be offlined, or kmem does not let go, the memory comes back
// online and nothing is changed.
func (m *Manager) releaseKmem(r sysfs.Region) error {
	if r.RAM() {
		return nil
	}
	st, err := m.ramState(r.Name)
	if err != nil || !st.Kmem() {
		return err
	}
	dax := st.Dax.Name
	t := &tx{w: m.W}
	if err := m.offlineForDestroy(t, r.Name); err != nil {
		return err
	}
	if err := m.kmemRelease(t, dax); err != nil {
		return withRollback(err, t.rollback())
	}
	t.undos = nil // the memory is gone: nothing to online again
	if err := t.write(m.daxDriver("device_dax")("bind"), dax); err != nil {
		return fmt.Errorf("%s gave its memory back but is not devdax again: %w", dax, err)
	}
	return nil
}

// KmemHeldError is a devdax namespace whose dax device kmem holds: its
// memory is system RAM, which destroying the namespace would leak until
// reboot. It matches syscall.EBUSY.
type KmemHeldError struct{ Namespace, Dax, Region string }

func (e *KmemHeldError) Error() string {
	return fmt.Sprintf("%s's %s is system RAM (kmem): give the memory back first with cxlvctl region destroy %s", e.Namespace, e.Dax, e.Region)
}

func (e *KmemHeldError) Is(target error) bool { return target == cxlverr.ErrBusy }

// refuseKmemHeld refuses a namespace whose dax device kmem holds.
func (m *Manager) refuseKmemHeld(ns sysfs.Namespace) error {
	if ns.Claim == nil || ns.Claim.Kind != sysfs.ClaimDax {
		return nil
	}
	devs, err := m.Host.Sys().DaxDevices()
	if errors.Is(err, cxlverr.ErrNotSupported) {
		return nil // no dax bus: nothing holds it
	}
	if err != nil {
		return err
	}
	for _, d := range devs {
		if d.Parent == ns.Claim.Name && d.Driver == "kmem" {
			return &KmemHeldError{Namespace: ns.Name, Dax: d.Name, Region: d.Region}
		}
	}
	return nil
}

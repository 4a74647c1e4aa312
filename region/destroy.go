package region

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/sysfs"
)

// DestroyRegion disables and deletes a CXL region and frees the DPA of its
// endpoint decoders. Its namespaces are destroyed first, unless
// keepNamespaces is set: then their labels stay on the memdev, and a region
// re-created later with the same uuid (Spec.UUID) brings them back.
func (m *Manager) DestroyRegion(name string, keepNamespaces bool) error {
	r, err := m.Host.Sys().Region(name)
	if err != nil {
		return err
	}
	if err := m.destroyRegion(r, keepNamespaces); err != nil {
		return fmt.Errorf("region destroy %s: %w", name, err)
	}
	return nil
}

func (m *Manager) destroyRegion(r sysfs.Region, keepNamespaces bool) error {
	if err := m.checkUnmounted([]sysfs.Region{r}); err != nil {
		return err
	}
	if err := m.releaseKmem(r); err != nil {
		return err
	}
	if nd, err := m.Host.Sys().NDRegion(r.Name); err == nil && !keepNamespaces {
		for _, ns := range nd.Namespaces {
			if ns.Idle() {
				continue
			}
			if err := m.destroyNamespace(ns); err != nil {
				return fmt.Errorf("%s: %w", ns.Name, err)
			}
		}
	}
	// libcxl's order (ndctl cxl/region.c destroy_region): disable, reset
	// the decoders, detach each target, then delete.
	t := &tx{w: m.W}
	if r.RAM() && r.Driver != "" {
		// kmem cannot remove online memory: offline it all first, and
		// online it again if that or the unbind fails.
		if err := m.offlineForDestroy(t, r.Name); err != nil {
			return err
		}
		err := t.write(m.driverFile("cxl", r.Driver, "unbind"), r.Name)
		if err != nil {
			return withRollback(err, t.rollback())
		}
		t.undos = nil // the unbind removed the memory: nothing to online again
		r.Driver = ""
	}
	var steps []step
	if r.Driver != "" {
		steps = append(steps, step{path: m.driverFile("cxl", r.Driver, "unbind"), value: r.Name})
	}
	if r.Committed {
		steps = append(steps, step{path: m.cxlDev(r.Name, "commit"), value: "0"})
	}
	detached := map[string]bool{}
	for i, target := range r.Targets {
		if target != "" {
			steps = append(steps, step{path: m.cxlDev(r.Name, "target"+strconv.Itoa(i)), value: ""})
			detached[target] = true
		}
	}
	if err := t.run(steps); err != nil {
		return err
	}
	// Each endpoint port once, in position order.
	var ports []string
	for _, target := range r.Targets {
		if target != "" {
			d, err := m.Host.Sys().Decoder(target)
			if err != nil {
				return err
			}
			if !slices.Contains(ports, d.Port) {
				ports = append(ports, d.Port)
			}
		}
	}
	for _, port := range ports {
		if err := m.freeDPA(port, detached); err != nil {
			return err
		}
	}
	return t.run([]step{{path: m.cxlDev(r.Decoder, "delete_region"), value: r.Name}})
}

// offlineForDestroy offlines the memory of region r in t, reporting it;
// when a block cannot be offlined, t is rolled back.
func (m *Manager) offlineForDestroy(t *tx, r string) error {
	start := time.Now()
	what := "offline the memory of " + r
	m.report(Event{Step: what})
	n, err := m.offlineRAM(t, r)
	if err != nil {
		return withRollback(err, t.rollback())
	}
	m.report(Event{Step: fmt.Sprintf("%s (%d blocks)", what, n), Done: true, Elapsed: time.Since(start)})
	return nil
}

// freeDPA releases the DPA of an endpoint port's decoders that no region
// uses. The kernel frees DPA only from the highest allocated decoder down,
// so it stops at the first decoder still in a region: what lies below is
// freed when that region goes. detached names decoders just taken out of
// their region (sysfs may not show it yet when the writer only records).
func (m *Manager) freeDPA(port string, detached map[string]bool) error {
	all, err := m.Host.Sys().Decoders()
	if err != nil {
		return err
	}
	var steps []step
	for i := len(all) - 1; i >= 0; i-- {
		d := all[i]
		if d.Port != port || d.Kind != sysfs.EndpointDecoder || d.DPASize == 0 {
			continue
		}
		if d.Region != "" && !detached[d.Name] {
			break
		}
		steps = append(steps, step{path: m.cxlDev(d.Name, "dpa_size"), value: "0"})
	}
	return (&tx{w: m.W}).run(steps)
}

// Teardown removes everything built on a memdev, in dependency order:
// namespaces, then regions, then endpoint decoder DPA. `cxlvctl remove
// --force` runs it before removing the device. A mounted filesystem stops
// it before anything is changed.
func (m *Manager) Teardown(memdev string) error {
	decoders, err := m.Host.Sys().EndpointDecodersOf(memdev)
	if errors.Is(err, cxlverr.ErrNotFound) {
		return nil // no endpoint: nothing was built on it
	}
	if err != nil {
		return err
	}
	mine := map[string]bool{}
	for _, d := range decoders {
		mine[d.Name] = true
	}
	regions, err := m.Host.Sys().Regions()
	if err != nil {
		return err
	}
	var doomed []sysfs.Region
	for _, r := range regions {
		for _, target := range r.Targets {
			if mine[target] {
				doomed = append(doomed, r)
				break
			}
		}
	}
	if err := m.checkUnmounted(doomed); err != nil {
		return err
	}
	// Newest region first: it holds the highest decoder, whose DPA the
	// kernel wants freed first.
	for i := len(doomed) - 1; i >= 0; i-- {
		if err := m.destroyRegion(doomed[i], false); err != nil {
			return fmt.Errorf("teardown %s: region %s: %w", memdev, doomed[i].Name, err)
		}
	}
	if len(decoders) > 0 {
		if err := m.freeDPA(decoders[0].Port, nil); err != nil {
			return fmt.Errorf("teardown %s: %w", memdev, err)
		}
	}
	return nil
}

// checkUnmounted refuses regions with a mounted namespace. A region
// without an nd region (RAM, or cxl_pmem not bound) has no namespace; an
// nd region that cannot be read stops the destroy, since its namespaces
// could be mounted.
func (m *Manager) checkUnmounted(regions []sysfs.Region) error {
	for _, r := range regions {
		nd, err := m.Host.Sys().NDRegion(r.Name)
		if errors.Is(err, cxlverr.ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("checking that %s is not mounted: %w", r.Name, err)
		}
		for _, ns := range nd.Namespaces {
			if err := m.checkNotMounted(ns); err != nil {
				return err
			}
		}
	}
	return nil
}

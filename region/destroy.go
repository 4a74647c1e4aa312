package region

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/sysfs"
	"github.com/cxlv/cxlv/units"
)

// DestroyOptions say how far a destroy may go. Without Force, a region or
// namespace that holds data is refused before anything is written: a
// namespace with a label (it would be deleted) and memory online (it would
// be offlined), as `cxl destroy-region` and `ndctl destroy-namespace` want
// -f for an active region or namespace. A namespace in use (mounted, a
// partition of it mounted, held by device-mapper or md, swap, open) is
// refused even with Force, as ndctl refuses it: that user goes first.
type DestroyOptions struct {
	Force bool
	// KeepNamespaces keeps the namespaces' labels on the memdevs: a region
	// re-created with the same uuid (Spec.UUID) brings them back.
	KeepNamespaces bool
}

// Kept is a region destroyed with its namespaces' labels kept: the
// region's uuid brings them back.
type Kept struct {
	Region     string
	UUID       string
	Namespaces []string
	// Memdevs are the region's memdevs in position order.
	Memdevs []string
}

// DestroyRegion disables and deletes a CXL region and frees the DPA of its
// endpoint decoders. Its namespaces are destroyed first, unless
// o.KeepNamespaces is set: then their labels stay on the memdev and Kept
// says how to bring them back.
func (m *Manager) DestroyRegion(name string, o DestroyOptions) (*Kept, error) {
	r, err := m.Host.Sys().Region(name)
	if err != nil {
		return nil, err
	}
	if err := m.CheckDestroyRegions([]sysfs.Region{r}, o); err != nil {
		return nil, fmt.Errorf("region destroy %s: %w", name, err)
	}
	kept, err := m.destroyRegion(r, o.KeepNamespaces)
	if err != nil {
		return nil, fmt.Errorf("region destroy %s: %w", name, err)
	}
	return kept, nil
}

// CheckDestroyRegions refuses, before anything is written, what destroying
// the regions would refuse or needs Force for.
func (m *Manager) CheckDestroyRegions(regions []sysfs.Region, o DestroyOptions) error {
	for _, r := range regions {
		if err := m.checkDestroyRegion(r, o); err != nil {
			return err
		}
	}
	return nil
}

func (m *Manager) checkDestroyRegion(r sysfs.Region, o DestroyOptions) error {
	var labelled []sysfs.Namespace
	nd, err := m.Host.Sys().NDRegion(r.Name)
	switch {
	case errors.Is(err, cxlverr.ErrNotFound):
		// RAM, or cxl_pmem not bound: no namespace.
	case err != nil:
		return fmt.Errorf("checking whether %s is in use: %w", r.Name, err)
	default:
		for _, ns := range nd.Namespaces {
			if ns.Idle() {
				continue
			}
			if err := m.checkNotInUse(ns); err != nil {
				return err
			}
			labelled = append(labelled, ns)
		}
	}
	if o.Force {
		return nil
	}
	st, err := m.ramState(r.Name)
	if err == nil && st.Summary.Online > 0 {
		return cxlverr.Errorf(cxlverr.ErrBusy, "%s has %s of memory online (%s): --force offlines it first (refused if it cannot be)",
			r.Name, units.FormatSize(st.Summary.OnlineBytes()), memoryWhere(st))
	}
	if err == nil && st.Kmem() {
		// The devdax namespace of a RAM region made through kmem (6.1)
		// is how its memory became RAM: its memory is the data, offline.
		return nil
	}
	if len(labelled) > 0 && !o.KeepNamespaces {
		return &LabelError{Namespace: describe(labelled[0]), Region: r.Name}
	}
	return nil
}

// memoryWhere names a RAM region's dax device and nodes: "dax0.0, node 1".
func memoryWhere(st sysfs.RAMState) string {
	where := "no dax device"
	if st.Dax != nil {
		where = st.Dax.Name
	}
	if len(st.Summary.Nodes) > 0 {
		var nodes []string
		for _, n := range st.Summary.Nodes {
			nodes = append(nodes, strconv.Itoa(n))
		}
		where += ", node " + strings.Join(nodes, ",")
	}
	return where
}

// describe names a namespace with what it is: "namespace0.0 (fsdax
// /dev/pmem0, 256M)".
func describe(ns sysfs.Namespace) string {
	what := ns.Mode
	if node := ns.BlockDev + ns.CharDev; node != "" {
		what += " " + node
	}
	return fmt.Sprintf("%s (%s, %s)", ns.Name, what, units.FormatSize(ns.Size))
}

// LabelError is a namespace with a label that a destroy without Force
// would delete. It matches cxlverr.ErrBusy.
type LabelError struct {
	Namespace string // described
	// Region is set when a region destroy would take it: then
	// --keep-namespaces is the other way.
	Region string
}

func (e *LabelError) Error() string {
	if e.Region == "" {
		return fmt.Sprintf("%s holds data and a label: --force destroys them", e.Namespace)
	}
	return fmt.Sprintf("%s holds data and a label: --force destroys them, --keep-namespaces keeps the label (region create --uuid brings it back)", e.Namespace)
}

func (e *LabelError) Is(target error) bool { return target == cxlverr.ErrBusy }

func (m *Manager) destroyRegion(r sysfs.Region, keepNamespaces bool) (*Kept, error) {
	if err := m.releaseKmem(r); err != nil {
		return nil, err
	}
	var kept *Kept
	if nd, err := m.Host.Sys().NDRegion(r.Name); err == nil {
		for _, ns := range nd.Namespaces {
			switch {
			case ns.Idle():
			case keepNamespaces:
				if kept == nil {
					kept = &Kept{Region: r.Name, UUID: r.UUID, Memdevs: m.memdevsOf(r)}
				}
				kept.Namespaces = append(kept.Namespaces, ns.Name)
			default:
				if err := m.destroyNamespace(ns); err != nil {
					return nil, fmt.Errorf("%s: %w", ns.Name, err)
				}
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
			return nil, err
		}
		err := t.write(m.driverFile("cxl", r.Driver, "unbind"), r.Name)
		if err != nil {
			return nil, withRollback(err, t.rollback())
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
		return nil, err
	}
	// Each endpoint port once, in position order.
	var ports []string
	for _, target := range r.Targets {
		if target != "" {
			d, err := m.Host.Sys().Decoder(target)
			if err != nil {
				return nil, err
			}
			if !slices.Contains(ports, d.Port) {
				ports = append(ports, d.Port)
			}
		}
	}
	for _, port := range ports {
		if err := m.freeDPA(port, detached); err != nil {
			return nil, err
		}
	}
	return kept, t.run([]step{{path: m.cxlDev(r.Decoder, "delete_region"), value: r.Name}})
}

// memdevsOf names the memdevs of a region's targets in position order:
// the uport of each target's endpoint port.
func (m *Manager) memdevsOf(r sysfs.Region) []string {
	ports, _ := m.Host.Sys().Ports()
	uport := map[string]string{}
	for _, p := range ports {
		uport[p.Name] = p.Uport
	}
	var out []string
	for _, target := range r.Targets {
		if d, err := m.Host.Sys().Decoder(target); target != "" && err == nil && uport[d.Port] != "" {
			out = append(out, uport[d.Port])
		}
	}
	return out
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

// RegionsOn are the regions with an endpoint decoder of memdev as a
// target, oldest first; none when the memdev has no endpoint.
func (m *Manager) RegionsOn(memdev string) ([]sysfs.Region, error) {
	decoders, err := m.Host.Sys().EndpointDecodersOf(memdev)
	if errors.Is(err, cxlverr.ErrNotFound) {
		return nil, nil // no endpoint: nothing was built on it
	}
	if err != nil {
		return nil, err
	}
	mine := map[string]bool{}
	for _, d := range decoders {
		mine[d.Name] = true
	}
	regions, err := m.Host.Sys().Regions()
	if err != nil {
		return nil, err
	}
	var on []sysfs.Region
	for _, r := range regions {
		for _, target := range r.Targets {
			if mine[target] {
				on = append(on, r)
				break
			}
		}
	}
	return on, nil
}

// Teardown removes everything built on a memdev, in dependency order:
// namespaces (unless o.KeepNamespaces), then regions, then endpoint
// decoder DPA. `cxlvctl remove --force` runs it before removing the
// device; CheckDestroyRegions on RegionsOn refuses what it would refuse,
// and Teardown runs it again before the first write.
func (m *Manager) Teardown(memdev string, o DestroyOptions) ([]Kept, error) {
	doomed, err := m.RegionsOn(memdev)
	if err != nil {
		return nil, err
	}
	if err := m.CheckDestroyRegions(doomed, o); err != nil {
		return nil, err
	}
	var kept []Kept
	// Newest region first: it holds the highest decoder, whose DPA the
	// kernel wants freed first.
	for i := len(doomed) - 1; i >= 0; i-- {
		k, err := m.destroyRegion(doomed[i], o.KeepNamespaces)
		if err != nil {
			return kept, fmt.Errorf("teardown %s: region %s: %w", memdev, doomed[i].Name, err)
		}
		if k != nil {
			kept = append(kept, *k)
		}
	}
	decoders, err := m.Host.Sys().EndpointDecodersOf(memdev)
	if err != nil && !errors.Is(err, cxlverr.ErrNotFound) {
		return kept, err
	}
	if len(decoders) > 0 {
		if err := m.freeDPA(decoders[0].Port, nil); err != nil {
			return kept, fmt.Errorf("teardown %s: %w", memdev, err)
		}
	}
	return kept, nil
}

// Package poison injects, clears and lists the poison of cxl_virt devices
// through the kernel's own interfaces (Linux 6.4+): debugfs
// cxl/memN/inject_poison and clear_poison, which take a device physical
// address (DPA), and the memdev's trigger_poison_list, whose records come
// back as cxl_poison trace events. An address can be given as a DPA, as a
// host physical address (HPA) in a committed region, or as an offset into
// a namespace's data; all three become one memdev and DPA here, checked
// before anything is written.
package poison

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/host"
	"github.com/cxlv/cxlv/sysfs"
	"github.com/cxlv/cxlv/virt"
)

// Spec is an address in one of its three forms: exactly one of DPA, HPA
// or Namespace is set.
type Spec struct {
	DPA, HPA *uint64
	// Namespace ("namespaceR.N") and Offset: the byte Offset into the
	// namespace's data, the part a user of its /dev node sees: after the
	// info block (and struct page reserve) of an fsdax or devdax
	// namespace, from the first byte of a raw one.
	Namespace string
	Offset    uint64
}

// Target is a resolved address: one line of one memdev.
type Target struct {
	Device string // cxlvN
	Memdev string // memN
	DPA    uint64
	// HPA and Region: where a committed region maps the line, when the
	// address was given through one (HPA or namespace).
	HPA    *uint64
	Region string
}

// Resolve turns spec into the memdev and DPA it names on dev, refusing an
// address that is not 64-byte aligned or lies outside the device, its
// regions or the namespace.
func Resolve(root host.Root, dev virt.Device, spec Spec) (Target, error) {
	switch {
	case spec.DPA != nil:
		return resolveDPA(root, dev, *spec.DPA)
	case spec.HPA != nil:
		t, err := root.Sys().Topology()
		if err != nil {
			return Target{}, err
		}
		return resolveHPA(t, dev, *spec.HPA, fmt.Sprintf("HPA %#x", *spec.HPA))
	case spec.Namespace != "":
		return resolveNamespace(root, dev, spec.Namespace, spec.Offset)
	}
	return Target{}, cxlverr.Invalidf("no address: give --dpa, --hpa or --namespace with --offset")
}

func checkAligned(what string, addr uint64) error {
	if addr%virt.LineSize != 0 {
		return cxlverr.Invalidf("%s is not 64-byte aligned: poison comes in 64-byte lines; use %#x", what, addr&^(virt.LineSize-1))
	}
	return nil
}

func resolveDPA(root host.Root, dev virt.Device, dpa uint64) (Target, error) {
	what := fmt.Sprintf("DPA %#x", dpa)
	if err := checkAligned(what, dpa); err != nil {
		return Target{}, err
	}
	memdevs := dev.Memdevs()
	if len(memdevs) > 1 {
		return Target{}, cxlverr.Invalidf("%s is an interleave set of %d memdevs (%s): a DPA is one memdev's; name it instead of %s",
			dev.Virt.Name, len(memdevs), strings.Join(memdevs, " "), dev.Virt.Name)
	}
	m, err := root.Sys().Memdev(memdevs[0])
	if err != nil {
		return Target{}, err
	}
	// The DPA space is the ram partition, then the pmem one (CXL r3.0
	// 8.2.9.8.2.1); the kernel's dpa_res covers both.
	if capacity := m.RAMSize + m.PmemSize; dpa >= capacity {
		return Target{}, cxlverr.Invalidf("%s is outside %s: its DPAs are 0 to %#x", what, m.Name, capacity-1)
	}
	return Target{Device: dev.Virt.Name, Memdev: m.Name, DPA: dpa}, nil
}

// resolveHPA finds the committed region of dev that maps hpa and the
// endpoint decoder, and so the memdev and DPA, behind it. The region's
// interleave is the modulo arithmetic of CXL r3.0 8.2.4.19.13 for any
// ways (cxl_virt's root decoders do not XOR): the HPA offset's chunk of
// granularity bytes goes to position chunk % ways, at DPA offset
// (chunk / ways) * granularity within that endpoint decoder.
func resolveHPA(t *sysfs.Topology, dev virt.Device, hpa uint64, what string) (Target, error) {
	if err := checkAligned(what, hpa); err != nil {
		return Target{}, err
	}
	var mapped []string
	// A device not in the topology has no region.
	if l, err := virt.LinkOf(t, dev.Virt.Name); err == nil {
		for _, rl := range l.Regions {
			r := rl.Region
			if !r.Committed {
				continue
			}
			if r.Resource == nil {
				return Target{}, cxlverr.Errorf(cxlverr.ErrPermission, "%s: the HPA range of %s is readable by root only: run as root", what, r.Name)
			}
			mapped = append(mapped, fmt.Sprintf("%s %#x-%#x", r.Name, *r.Resource, *r.Resource+r.Size-1))
			if hpa < *r.Resource || hpa-*r.Resource >= r.Size {
				continue
			}
			return regionTarget(t, dev, r, hpa, what)
		}
	}
	if len(mapped) == 0 {
		return Target{}, cxlverr.Invalidf("%s: %s has no committed region to map an HPA: use --dpa", what, dev.Virt.Name)
	}
	return Target{}, cxlverr.Invalidf("%s is outside the regions of %s (%s)", what, dev.Virt.Name, strings.Join(mapped, ", "))
}

func regionTarget(t *sysfs.Topology, dev virt.Device, r *sysfs.Region, hpa uint64, what string) (Target, error) {
	if r.InterleaveWays == 0 || r.InterleaveGranularity == 0 || uint64(len(r.Targets)) != r.InterleaveWays {
		return Target{}, fmt.Errorf("%s: %s has %d targets for %d ways at granularity %d: cannot translate",
			what, r.Name, len(r.Targets), r.InterleaveWays, r.InterleaveGranularity)
	}
	offset := hpa - *r.Resource
	chunk := offset / r.InterleaveGranularity
	decoderName := r.Targets[chunk%r.InterleaveWays]
	dpaOffset := chunk/r.InterleaveWays*r.InterleaveGranularity + offset%r.InterleaveGranularity
	dec, m := t.Decoder(decoderName), t.MemdevOfDecoder(decoderName)
	if dec == nil || m == nil {
		return Target{}, fmt.Errorf("%s: %s's target %s is no memdev's endpoint decoder", what, r.Name, decoderName)
	}
	if dec.DPAResource == nil {
		return Target{}, cxlverr.Errorf(cxlverr.ErrPermission, "%s: the DPA of %s is readable by root only: run as root", what, decoderName)
	}
	if memdevs := dev.Memdevs(); !slices.Contains(memdevs, m.Name) {
		return Target{}, cxlverr.Invalidf("%s maps to %s, not to %s: name %s or %s", what, m.Name, strings.Join(memdevs, " "), m.Name, dev.Virt.Name)
	}
	h := hpa
	return Target{Device: dev.Virt.Name, Memdev: m.Name, DPA: *dec.DPAResource + dpaOffset, HPA: &h, Region: r.Name}, nil
}

// resolveNamespace turns an offset into a namespace's data into its HPA:
// the data of an fsdax or devdax namespace starts at its pfn or dax
// device's resource (the namespace's start plus the info block and the
// struct page reserve), a raw namespace's at its own. A sector
// namespace's BTT remaps blocks, so an offset there has no fixed address.
func resolveNamespace(root host.Root, dev virt.Device, name string, offset uint64) (Target, error) {
	t, err := root.Sys().Topology()
	if err != nil {
		return Target{}, err
	}
	ns, err := findNamespace(t, name)
	if err != nil {
		return Target{}, err
	}
	base, size := ns.Resource, ns.Size
	if c := ns.Claim; c != nil {
		if c.Kind == sysfs.ClaimBtt {
			return Target{}, cxlverr.Invalidf("%s is a sector namespace: its BTT remaps blocks, so an offset has no fixed address; use --hpa or --dpa", name)
		}
		base, size = c.Resource, c.Size
	}
	if base == nil {
		return Target{}, cxlverr.Errorf(cxlverr.ErrPermission, "%s: its resource is readable by root only: run as root", name)
	}
	what := fmt.Sprintf("offset %#x of %s", offset, name)
	if err := checkAligned(what, offset); err != nil {
		return Target{}, err
	}
	if offset >= size {
		return Target{}, cxlverr.Invalidf("%s is outside it: its data is %#x bytes", what, size)
	}
	return resolveHPA(t, dev, *base+offset, fmt.Sprintf("%s (HPA %#x)", what, *base+offset))
}

func findNamespace(t *sysfs.Topology, name string) (*sysfs.Namespace, error) {
	for i := range t.NDRegions {
		for j := range t.NDRegions[i].Namespaces {
			if ns := &t.NDRegions[i].Namespaces[j]; ns.Name == name && !ns.Idle() {
				return ns, nil
			}
		}
	}
	return nil, &cxlverr.NotFoundError{Kind: "namespace", Name: name}
}

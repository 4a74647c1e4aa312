package sysfs

import (
	"errors"
	"slices"

	"github.com/cxlv/cxlv/cxlverr"
)

// Topology is one read of every object cxlvctl shows, linked: cxl_virt
// device -> memdev -> endpoint -> root -> root decoders -> regions -> nd
// region -> namespaces -> /dev nodes. Buses whose module is not loaded
// (cxl_virt, nvdimm, dax) read as empty; a missing CXL bus is an error.
type Topology struct {
	Virt      []VirtDevice
	Memdevs   []Memdev
	Ports     []Port
	Decoders  []Decoder
	Regions   []Region
	Bridges   []NvdimmBridge
	NDRegions []NDRegion
	Dax       []DaxDevice
	// RAM is the memory of each RAM region, and of each pmem region whose
	// devdax namespace kmem holds, by region name.
	RAM map[string]*RAMState
}

// Topology reads and links the whole tree.
func (f FS) Topology() (*Topology, error) {
	var t Topology
	var err error
	if t.Memdevs, err = f.Memdevs(); err != nil {
		return nil, err
	}
	if t.Ports, err = f.Ports(); err != nil {
		return nil, err
	}
	// Each level from the one above, so the tree is read once.
	if t.Decoders, err = decodersOf(t.Ports); err != nil {
		return nil, err
	}
	if t.Regions, err = regionsOf(t.Decoders); err != nil {
		return nil, err
	}
	t.markQosClassMismatches()
	if t.Bridges, err = f.NvdimmBridges(); err != nil {
		return nil, err
	}
	if t.Virt, err = f.VirtDevices(); droppedIfUnloaded(err) != nil {
		return nil, err
	}
	if t.NDRegions, err = f.NDRegions(); droppedIfUnloaded(err) != nil {
		return nil, err
	}
	if t.Dax, err = f.DaxDevices(); droppedIfUnloaded(err) != nil {
		return nil, err
	}
	t.RAM = map[string]*RAMState{}
	for _, r := range t.Regions {
		st, err := f.RAMState(r, t.Dax)
		if err != nil {
			return nil, err
		}
		// A pmem region's memory is RAM once kmem holds its devdax.
		if r.RAM() || st.Kmem() {
			t.RAM[r.Name] = &st
		}
	}
	return &t, nil
}

// markQosClassMismatches sets Region.QosClassMismatch as libcxl decides it:
// the memdev behind one of the region's targets has, for the region's mode,
// another QoS class than the root decoder (no class is a value of its own:
// none on both sides matches, none on one side does not).
func (t *Topology) markQosClassMismatches() {
	for i := range t.Regions {
		r := &t.Regions[i]
		root := t.Decoder(r.Decoder)
		if root == nil || (r.Mode != "ram" && r.Mode != "pmem") {
			continue
		}
		for _, target := range r.Targets {
			m := t.MemdevOfDecoder(target)
			if m == nil {
				continue
			}
			class := m.PmemQosClass
			if r.RAM() {
				class = m.RAMQosClass
			}
			if !sameQosClass(class, root.QosClass) {
				r.QosClassMismatch = true
			}
		}
	}
}

// sameQosClass reports whether a and b are the same class, or both none.
func sameQosClass(a, b *int) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// Decoder is the decoder called name, nil when there is none.
func (t *Topology) Decoder(name string) *Decoder {
	for i := range t.Decoders {
		if t.Decoders[i].Name == name {
			return &t.Decoders[i]
		}
	}
	return nil
}

// MemdevOfDecoder is the memdev whose endpoint owns the decoder, nil for
// another decoder.
func (t *Topology) MemdevOfDecoder(name string) *Memdev {
	d := t.Decoder(name)
	if d == nil {
		return nil
	}
	for i := range t.Memdevs {
		if ep := endpointOf(t.Ports, t.Memdevs[i].Name); ep != nil && ep.Name == d.Port {
			return &t.Memdevs[i]
		}
	}
	return nil
}

// droppedIfUnloaded drops the error of a bus whose module is not loaded.
func droppedIfUnloaded(err error) error {
	if errors.Is(err, cxlverr.ErrNotSupported) {
		return nil
	}
	return err
}

// DeviceLink is one row of the linked view: a memdev (nil while a cxl_virt
// device has not been probed yet) with everything it leads to; or an
// interleave set as one unit, its memdevs in Members.
type DeviceLink struct {
	Virt         *VirtDevice
	Memdev       *Memdev
	Endpoint     *Port
	Root         *Port
	RootDecoders []*Decoder
	Regions      []RegionLink
	// Members are the memdevs of an interleave set in position order
	// (Memdev and Endpoint are position 0's); nil for one device.
	Members []Member
}

// Member is one endpoint of an interleave set.
type Member struct {
	Memdev   *Memdev
	Endpoint *Port // nil until cxl_mem has probed it
}

// Endpoints are the link's memdevs with their endpoints: the members of a
// set, else the one memdev (none before it appears).
func (l DeviceLink) Endpoints() []Member {
	if l.Members != nil {
		return l.Members
	}
	if l.Memdev == nil {
		return nil
	}
	return []Member{{Memdev: l.Memdev, Endpoint: l.Endpoint}}
}

// RegionLink is a CXL region with the nd region made from it (pmem) or
// the memory it became (ram).
type RegionLink struct {
	Region   *Region
	NDRegion *NDRegion // nil until cxl_pmem has bound the pmem_region
	RAM      *RAMState // RAM regions only
}

// Links returns one DeviceLink per memdev, one per interleave set (at its
// first memdev), then one per cxl_virt device that has no memdev yet.
func (t *Topology) Links() []DeviceLink {
	var out []DeviceLink
	seen := map[string]bool{}
	sets := map[string]int{} // the index in out of each set's link
	for i := range t.Memdevs {
		l := t.linkMemdev(&t.Memdevs[i])
		if l.Virt != nil {
			seen[l.Virt.Name] = true
		}
		if l.Virt == nil || !l.Virt.Set() {
			out = append(out, l)
			continue
		}
		if j, ok := sets[l.Virt.Name]; ok {
			out[j].join(l)
			continue
		}
		sets[l.Virt.Name] = len(out)
		l.Members = []Member{{Memdev: l.Memdev, Endpoint: l.Endpoint}}
		out = append(out, l)
	}
	for _, j := range sets {
		out[j].sortMembers()
	}
	for i := range t.Virt {
		if !seen[t.Virt[i].Name] {
			out = append(out, DeviceLink{Virt: &t.Virt[i], Root: t.port(t.Virt[i].Root)})
		}
	}
	return out
}

// join adds the memdev of o, another member of the same set, and the
// regions not seen yet.
func (l *DeviceLink) join(o DeviceLink) {
	l.Members = append(l.Members, Member{Memdev: o.Memdev, Endpoint: o.Endpoint})
	for _, r := range o.Regions {
		if !slices.ContainsFunc(l.Regions, func(have RegionLink) bool { return have.Region.Name == r.Region.Name }) {
			l.Regions = append(l.Regions, r)
		}
	}
}

// sortMembers puts a set's members in position order, the module's memdev
// list (names it does not list yet go last, by id), and makes position 0
// the link's memdev.
func (l *DeviceLink) sortMembers() {
	pos := func(m Member) int {
		if i := slices.Index(l.Virt.Memdevs, m.Memdev.Name); i >= 0 {
			return i
		}
		return len(l.Virt.Memdevs) + m.Memdev.ID
	}
	slices.SortStableFunc(l.Members, func(a, b Member) int { return pos(a) - pos(b) })
	l.Memdev, l.Endpoint = l.Members[0].Memdev, l.Members[0].Endpoint
	slices.SortStableFunc(l.Regions, func(a, b RegionLink) int { return a.Region.ID - b.Region.ID })
}

func (t *Topology) linkMemdev(m *Memdev) DeviceLink {
	l := DeviceLink{Memdev: m, Endpoint: endpointOf(t.Ports, m.Name)}
	l.Root = rootOf(t.Ports, l.Endpoint)
	for i := range t.Virt {
		v := &t.Virt[i]
		if slices.Contains(v.Memdevs, m.Name) || (l.Root != nil && v.Root == l.Root.Name) {
			l.Virt = v
		}
	}
	if l.Root == nil {
		return l
	}
	for i := range t.Decoders {
		if t.Decoders[i].Port == l.Root.Name {
			l.RootDecoders = append(l.RootDecoders, &t.Decoders[i])
		}
	}
	if l.Endpoint == nil {
		return l
	}
	for i := range t.Regions {
		r := &t.Regions[i]
		if t.regionUsesEndpoint(r, l.Endpoint) {
			l.Regions = append(l.Regions, RegionLink{Region: r, NDRegion: t.ndRegionOf(r), RAM: t.RAM[r.Name]})
		}
	}
	return l
}

// regionUsesEndpoint reports whether one of the region's targets is a
// decoder of the endpoint, or an endpoint decoder names the region.
func (t *Topology) regionUsesEndpoint(r *Region, ep *Port) bool {
	for _, d := range t.Decoders {
		if d.Port != ep.Name {
			continue
		}
		if d.Region == r.Name {
			return true
		}
		for _, target := range r.Targets {
			if target == d.Name {
				return true
			}
		}
	}
	return false
}

// ndRegionOf finds the nd region of a CXL region: the CXL driver gives the
// nd region the CXL region's id, on a bus below a CXL nvdimm bridge.
func (t *Topology) ndRegionOf(r *Region) *NDRegion {
	for i := range t.NDRegions {
		if t.NDRegions[i].CXL && t.NDRegions[i].ID == r.ID {
			return &t.NDRegions[i]
		}
	}
	return nil
}

func (t *Topology) port(name string) *Port {
	for i := range t.Ports {
		if t.Ports[i].Name == name {
			return &t.Ports[i]
		}
	}
	return nil
}

// Names lists the names of one kind of object, for shell completion:
// "cxlv", "memdev", "cxlv-memdev" (the cxl_virt devices and their
// memdevs), "decoder", "root-decoder", "region", "nd-region", "namespace".
func (t *Topology) Names(kind string) []string {
	var out []string
	switch kind {
	case "cxlv":
		for _, v := range t.Virt {
			out = append(out, v.Name)
		}
	case "cxlv-memdev":
		for _, v := range t.Virt {
			out = append(out, v.Name)
			out = append(out, v.Memdevs...)
		}
	case "memdev":
		for _, m := range t.Memdevs {
			out = append(out, m.Name)
		}
	case "decoder", "root-decoder":
		for _, d := range t.Decoders {
			if kind == "decoder" || d.Kind == RootDecoder {
				out = append(out, d.Name)
			}
		}
	case "region":
		for _, r := range t.Regions {
			out = append(out, r.Name)
		}
	case "nd-region":
		for _, r := range t.NDRegions {
			out = append(out, r.Name)
		}
	case "namespace":
		for _, r := range t.NDRegions {
			for _, ns := range r.Namespaces {
				if !ns.Idle() {
					out = append(out, ns.Name)
				}
			}
		}
	}
	return out
}

// NameKinds are the kinds Names accepts.
var NameKinds = []string{"cxlv", "memdev", "cxlv-memdev", "decoder", "root-decoder", "region", "nd-region", "namespace"}

package sysfs

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/cxlv/cxlv/cxlverr"
)

// CXL bus objects (/sys/bus/cxl/devices). Ports, endpoints, decoders and
// regions are found below their parent's directory, as libcxl does;
// memdevs and roots through the bus directory.

// Memdev is a CXL memory device, memN.
type Memdev struct {
	Name string
	ID   int
	Path string
	// Host is the device memN hangs below (a PCI function, 0000:0d:00.0).
	Host     string
	PmemSize uint64
	RAMSize  uint64
	// PmemQosClass and RAMQosClass are the partitions' QoS classes
	// (pmem/qos_class, ram/qos_class: 6.8+, only when the platform gave
	// one); nil for none (see qosClass).
	PmemQosClass, RAMQosClass *int
	Serial                    *uint64 // nil when the kernel does not expose it
	NumaNode                  *int
	FirmwareVersion           *string
	// FirmwareUpload is the status of the kernel's firmware upload
	// (firmware/memN/status: idle, transferring, ...; 6.5+ with a device
	// that has Get FW Info), FirmwareRemaining the bytes it has still to
	// send; nil without one.
	FirmwareUpload    *string
	FirmwareRemaining *uint64
	PayloadMax        uint64
	LabelStorageSize  uint64
	Driver            string // "cxl_mem" once bound
	DevNode           string // /dev/cxl/memN
	// Nvdimm is the memdev's cxl_nvdimm child (pmemN), "" without one.
	Nvdimm string
}

// PortKind tells the roots, switch ports and endpoints of the CXL topology apart.
type PortKind int

const (
	RootPort PortKind = iota
	SwitchPort
	EndpointPort
)

var portPrefixes = [...]string{RootPort: "root", SwitchPort: "port", EndpointPort: "endpoint"}

func (k PortKind) String() string { return portPrefixes[k] }

// Port is a CXL port: rootN, portN or endpointN.
type Port struct {
	Name string
	ID   int
	Kind PortKind
	Path string
	// Uport names the device the port stands for: ACPI0017:00 or cxlvN for a
	// root, a host bridge or switch for a port, the memdev for an endpoint.
	Uport string
	// Parent is the name of the port above, "" for a root.
	Parent string
	// Depth counts the ports above (0 for a root), as `cxl list` shows it.
	Depth    int
	Dports   []Dport
	Decoders []string
	Driver   string
}

// Dport is a downstream port of a CXL port: the dportN link to a host
// bridge or PCIe root/switch port.
type Dport struct {
	ID     int
	Target string // name of the device the link points to
}

// DecoderKind tells root, switch and endpoint decoders apart.
type DecoderKind int

const (
	RootDecoder DecoderKind = iota
	SwitchDecoder
	EndpointDecoder
)

// Decoder is an HDM decoder, decoderP.N of port P.
type Decoder struct {
	Name string
	Kind DecoderKind
	Path string
	Port string
	// Start is the HPA base; nil when unreadable (0400, root only).
	Start                 *uint64
	Size                  uint64
	InterleaveWays        uint64
	InterleaveGranularity uint64
	Locked                bool
	// Root decoders.
	CapPmem, CapRAM, CapType2, CapType3 bool
	// QosClass is the window's QoS class (qos_class, 6.5+); nil for none
	// (see qosClass).
	QosClass *int
	// CanCreatePmemRegion is true when create_pmem_region exists.
	CanCreatePmemRegion bool
	CanCreateRAMRegion  bool
	TargetList          string
	// Switch and endpoint decoders.
	TargetType string
	Region     string
	// Endpoint decoders.
	Mode        string
	DPAResource *uint64
	DPASize     uint64
	// Regions are the regionN below a root decoder.
	Regions []string
}

// Region is a CXL region, regionN below its root decoder.
type Region struct {
	Name    string
	ID      int
	Path    string
	Decoder string // the root decoder it was created from
	UUID    string
	// Resource is the HPA base; nil before the size is set.
	Resource              *uint64
	Size                  uint64
	InterleaveWays        uint64
	InterleaveGranularity uint64
	Committed             bool
	// Mode is "pmem" or "ram" on kernels that have the attribute (6.3+).
	Mode string
	// Targets are the endpoint decoders at positions 0..ways-1 ("" = unset).
	Targets    []string
	Driver     string
	PmemRegion string // pmem_regionN once the cxl_region driver bound it
	DaxRegion  string // dax_regionN of a bound RAM region (6.3+)
	// QosClassMismatch: a target's memdev partition has another QoS class
	// than the root decoder (set by Topology, as libcxl compares them).
	QosClassMismatch bool
	// Access are the region's access0 and access1 coordinates, which the
	// kernel computes from its targets' CDAT (6.9+) once the memory is
	// online; nil while it has none.
	Access [2]*Coordinates
}

// RAM reports whether the region is a volatile (ram) region.
func (r Region) RAM() bool { return r.Mode == "ram" }

// NvdimmBridge connects a CXL root to an nvdimm bus (ndbusN).
type NvdimmBridge struct {
	Name   string
	Path   string
	Port   string // the root port it belongs to
	Driver string
	NDBus  string
}

// errNoCXL is a sysfs without /sys/bus/cxl: cxl_virt pulls in cxl_core and
// makes the bus, without the firmware tables cxl_acpi needs.
func errNoCXL() error { return &cxlverr.FeatureError{Name: "CXL bus", Module: "cxl_virt"} }

// Memdevs lists the CXL memory devices.
func (f FS) Memdevs() ([]Memdev, error) {
	return busObjects(f, "cxl", "mem", errNoCXL(), readMemdev)
}

// Memdev returns the memory device called name ("mem0").
func (f FS) Memdev(name string) (Memdev, error) {
	p, err := f.busEntry("cxl", name, "mem", "memdev")
	if err != nil {
		return Memdev{}, err
	}
	return readMemdev(p)
}

// busEntry resolves /sys/bus/<bus>/devices/<name> after checking that name
// has the expected form.
func (f FS) busEntry(bus, name, prefix, kind string) (string, error) {
	if _, ok := numberedName(name, prefix); !ok {
		return "", &cxlverr.NotFoundError{Kind: kind, Name: name}
	}
	p, err := f.resolve(f.Path("bus", bus, "devices", name))
	if isNotExist(err) {
		return "", &cxlverr.NotFoundError{Kind: kind, Name: name}
	}
	return p, err
}

func readMemdev(p string) (Memdev, error) {
	a := attrs{dir: p}
	m := Memdev{
		Name:             filepath.Base(p),
		Path:             p,
		Host:             filepath.Base(filepath.Dir(p)),
		PmemSize:         a.u64("pmem/size"),
		RAMSize:          a.u64("ram/size"),
		PmemQosClass:     a.qosClass("pmem/qos_class"),
		RAMQosClass:      a.qosClass("ram/qos_class"),
		Serial:           a.optU64("serial"),
		NumaNode:         a.optInt("numa_node"),
		FirmwareVersion:  a.optStr("firmware_version"),
		PayloadMax:       a.u64("payload_max"),
		LabelStorageSize: a.u64("label_storage_size"),
		Driver:           a.driver(),
		DevNode:          a.devNode(),
	}
	m.ID, _ = numberedName(m.Name, "mem")
	upload := filepath.Join("firmware", m.Name)
	m.FirmwareUpload = a.optStr(filepath.Join(upload, "status"))
	m.FirmwareRemaining = a.optU64(filepath.Join(upload, "remaining_size"))
	if nv := childDirs(p, "pmem"); len(nv) > 0 {
		m.Nvdimm = filepath.Base(nv[0])
	}
	return m, a.err
}

// Roots lists the CXL root ports.
func (f FS) Roots() ([]Port, error) {
	return busObjects(f, "cxl", "root", errNoCXL(), readPort)
}

// Ports lists every port, root first and then depth first below each, so a
// parent always precedes its children.
func (f FS) Ports() ([]Port, error) {
	roots, err := f.Roots()
	if err != nil {
		return nil, err
	}
	var out []Port
	var walk func(p Port) error
	walk = func(p Port) error {
		out = append(out, p)
		for _, kind := range []PortKind{SwitchPort, EndpointPort} {
			children, err := readEach(childDirs(p.Path, kind.String()), readPort)
			if err != nil {
				return err
			}
			for _, c := range children {
				c.Parent, c.Depth = p.Name, p.Depth+1
				if err := walk(c); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, r := range roots {
		if err := walk(r); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func readPort(p string) (Port, error) {
	a := attrs{dir: p}
	port := Port{
		Name:   filepath.Base(p),
		Path:   p,
		Uport:  linkName(filepath.Join(p, "uport")),
		Driver: a.driver(),
	}
	for kind, prefix := range portPrefixes {
		if id, ok := numberedName(port.Name, prefix); ok {
			port.Kind, port.ID = PortKind(kind), id
		}
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return port, err
	}
	for _, e := range entries {
		if id, ok := numberedName(e.Name(), "dport"); ok {
			port.Dports = append(port.Dports, Dport{ID: id, Target: linkName(filepath.Join(p, e.Name()))})
		}
	}
	sort.Slice(port.Dports, func(i, j int) bool { return port.Dports[i].ID < port.Dports[j].ID })
	for _, d := range childDirs(p, "decoder") {
		port.Decoders = append(port.Decoders, filepath.Base(d))
	}
	return port, a.err
}

// Decoders lists the decoders of every port, in port order.
func (f FS) Decoders() ([]Decoder, error) {
	ports, err := f.Ports()
	if err != nil {
		return nil, err
	}
	return decodersOf(ports)
}

// decodersOf reads the decoders of ports already read.
func decodersOf(ports []Port) ([]Decoder, error) {
	var out []Decoder
	for _, p := range ports {
		for _, name := range p.Decoders {
			d, err := readDecoder(filepath.Join(p.Path, name), p)
			if err != nil {
				return nil, err
			}
			out = append(out, d)
		}
	}
	return out, nil
}

// Decoder returns the decoder called name ("decoder0.0").
func (f FS) Decoder(name string) (Decoder, error) {
	all, err := f.Decoders()
	if err != nil {
		return Decoder{}, err
	}
	for _, d := range all {
		if d.Name == name {
			return d, nil
		}
	}
	return Decoder{}, &cxlverr.NotFoundError{Kind: "decoder", Name: name}
}

func readDecoder(p string, port Port) (Decoder, error) {
	a := attrs{dir: p}
	d := Decoder{
		Name:                  filepath.Base(p),
		Path:                  p,
		Port:                  port.Name,
		Start:                 a.optU64("start"),
		Size:                  a.u64("size"),
		InterleaveWays:        a.u64("interleave_ways"),
		InterleaveGranularity: a.u64("interleave_granularity"),
		Locked:                a.flag("locked"),
		TargetList:            a.str("target_list"),
		TargetType:            a.str("target_type"),
		Region:                a.str("region"),
	}
	switch port.Kind {
	case RootPort:
		d.Kind = RootDecoder
		d.CapPmem, d.CapRAM = a.flag("cap_pmem"), a.flag("cap_ram")
		d.CapType2, d.CapType3 = a.flag("cap_type2"), a.flag("cap_type3")
		d.QosClass = a.qosClass("qos_class")
		d.CanCreatePmemRegion = a.has("create_pmem_region")
		d.CanCreateRAMRegion = a.has("create_ram_region")
		for _, r := range childDirs(p, "region") {
			d.Regions = append(d.Regions, filepath.Base(r))
		}
	case SwitchPort:
		d.Kind = SwitchDecoder
	case EndpointPort:
		d.Kind = EndpointDecoder
		d.Mode = a.str("mode")
		d.DPAResource = a.optU64("dpa_resource")
		d.DPASize = a.u64("dpa_size")
	}
	return d, a.err
}

// Regions lists the CXL regions of every root decoder.
func (f FS) Regions() ([]Region, error) {
	decoders, err := f.Decoders()
	if err != nil {
		return nil, err
	}
	return regionsOf(decoders)
}

// regionsOf reads the regions of decoders already read, ordered by id.
func regionsOf(decoders []Decoder) ([]Region, error) {
	var out []Region
	for _, d := range decoders {
		for _, name := range d.Regions {
			r, err := readRegion(filepath.Join(d.Path, name), d.Name)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// Region returns the CXL region called name ("region0").
func (f FS) Region(name string) (Region, error) {
	all, err := f.Regions()
	if err != nil {
		return Region{}, err
	}
	for _, r := range all {
		if r.Name == name {
			return r, nil
		}
	}
	return Region{}, &cxlverr.NotFoundError{Kind: "region", Name: name}
}

func readRegion(p, decoder string) (Region, error) {
	a := attrs{dir: p}
	r := Region{
		Name:                  filepath.Base(p),
		Path:                  p,
		Decoder:               decoder,
		UUID:                  a.str("uuid"),
		Size:                  a.u64("size"),
		InterleaveWays:        a.u64("interleave_ways"),
		InterleaveGranularity: a.u64("interleave_granularity"),
		Committed:             a.flag("commit"),
		Mode:                  a.str("mode"),
		Driver:                a.driver(),
	}
	r.ID, _ = numberedName(r.Name, "region")
	// resource reads as -1 (all ones) until the HPA is allocated; like any
	// attribute, a missing or root-only one reads as absent (nil).
	if res := a.optU64("resource"); res != nil && *res != ^uint64(0) {
		r.Resource = res
	}
	for i := uint64(0); i < r.InterleaveWays; i++ {
		r.Targets = append(r.Targets, a.str("target"+strconv.FormatUint(i, 10)))
	}
	if pr := childDirs(p, "pmem_region"); len(pr) > 0 {
		r.PmemRegion = filepath.Base(pr[0])
	}
	if dr := childDirs(p, "dax_region"); len(dr) > 0 {
		r.DaxRegion = filepath.Base(dr[0])
	}
	for i := range r.Access {
		ac := attrs{dir: filepath.Join(p, "access"+strconv.Itoa(i))}
		r.Access[i] = readCoordinates(&ac)
		if a.err == nil {
			a.err = ac.err
		}
	}
	return r, a.err
}

// NvdimmBridges lists the CXL nvdimm bridges and their nvdimm buses.
func (f FS) NvdimmBridges() ([]NvdimmBridge, error) {
	return busObjects(f, "cxl", "nvdimm-bridge", errNoCXL(), readNvdimmBridge)
}

func readNvdimmBridge(p string) (NvdimmBridge, error) {
	a := attrs{dir: p}
	b := NvdimmBridge{
		Name:   filepath.Base(p),
		Path:   p,
		Port:   filepath.Base(filepath.Dir(p)),
		Driver: a.driver(),
	}
	if buses := childDirs(p, "ndbus"); len(buses) > 0 {
		b.NDBus = filepath.Base(buses[0])
	}
	return b, a.err
}

// Endpoint is the endpoint port whose uport is the memdev, "" if none yet.
func endpointOf(ports []Port, memdev string) *Port {
	for i := range ports {
		if ports[i].Kind == EndpointPort && ports[i].Uport == memdev {
			return &ports[i]
		}
	}
	return nil
}

// rootOf walks up from a port to its root.
func rootOf(ports []Port, p *Port) *Port {
	byName := make(map[string]*Port, len(ports))
	for i := range ports {
		byName[ports[i].Name] = &ports[i]
	}
	for p != nil && p.Kind != RootPort {
		p = byName[p.Parent]
	}
	return p
}

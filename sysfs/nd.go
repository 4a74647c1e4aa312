package sysfs

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cxlv/cxlv/cxlverr"
)

// nvdimm bus objects (/sys/bus/nd/devices) and device-dax devices
// (/sys/bus/dax/devices). A CXL pmem region becomes the nd region with the
// same id (the CXL driver hands its region id to libnvdimm), and namespaces
// and their pfn/dax/btt claims hang below the nd region's directory.

// NDRegion is an nvdimm region, regionN on an nvdimm bus.
type NDRegion struct {
	Name string
	ID   int
	Path string
	Bus  string // ndbusN
	// CXL is true when the bus belongs to a CXL nvdimm bridge.
	CXL                bool
	Size               uint64
	AvailableSize      uint64
	MaxAvailableExtent uint64
	Align              uint64
	ReadOnly           bool
	// Mappings are the mappingN values: "nmemX,dpa_start,size,position".
	Mappings                                 []string
	NamespaceSeed, PfnSeed, DaxSeed, BttSeed string
	Driver                                   string
	Namespaces                               []Namespace
}

// Namespace is an nvdimm namespace, namespaceR.N, with what claims it.
type Namespace struct {
	Name    string
	Path    string
	Region  string
	Size    uint64
	UUID    string
	AltName string
	// Mode is the ndctl name: fsdax, devdax, sector or raw.
	Mode        string
	Holder      string
	HolderClass string
	SectorSize  *uint64
	Driver      string
	// Resource is the namespace's first HPA; nil when idle or unreadable
	// (0400, root only).
	Resource *uint64
	// Claim is the pfn/dax/btt device that holds the namespace, nil for raw.
	Claim *Claim
	// BlockDev is /dev/pmemX (fsdax, raw, sector); CharDev is /dev/daxR.N (devdax).
	BlockDev string
	CharDev  string
}

// Idle is true for the zero-sized seed namespace a region keeps ready.
func (n Namespace) Idle() bool { return n.Size == 0 }

// ClaimKind is the kind of device that claims a namespace.
type ClaimKind string

const (
	ClaimPfn ClaimKind = "pfn"
	ClaimDax ClaimKind = "dax"
	ClaimBtt ClaimKind = "btt"
)

// Claim is a pfnR.N, daxR.N or bttR.N device.
type Claim struct {
	Name       string
	Kind       ClaimKind
	Path       string
	UUID       string
	Mode       string // pfn/dax: "pmem" (struct pages on the device) or "ram"
	Align      uint64
	Size       uint64
	SectorSize *uint64 // btt
	Namespace  string
	Driver     string
	// Resource is the HPA of the data after the info block (pfn, dax:
	// the namespace's start plus its data offset), Size its length; nil
	// for btt and when unreadable (0400, root only).
	Resource *uint64
}

// DaxDevice is a device-dax instance on the dax bus (/dev/daxR.N).
type DaxDevice struct {
	Name string
	Path string
	// Parent is the device it belongs to: the nd dax device (daxR.N) of a
	// devdax namespace, or the dax_regionN of a CXL RAM region.
	Parent string
	// Region is the CXL region the device's memory belongs to: of a
	// dax_regionN parent (a RAM region), or of the nd region of a devdax
	// namespace below a CXL nvdimm bridge (a pmem region: libnvdimm's
	// region has the CXL region's name). "" otherwise.
	Region string
	Size   uint64
	Align  uint64
	// Resource is the start of the device's memory; nil when unreadable
	// (0400 in newer kernels, root only).
	Resource   *uint64
	TargetNode *int
	NumaNode   *int
	Driver     string // device_dax, or kmem when onlined as System RAM
	DevNode    string
}

// Mode is daxctl's name for what the device is: "system-ram" when kmem
// holds it, "devdax" otherwise.
func (d DaxDevice) Mode() string {
	if d.Driver == "kmem" {
		return "system-ram"
	}
	return "devdax"
}

// NDRegions lists the nvdimm regions with their namespaces.
func (f FS) NDRegions() ([]NDRegion, error) {
	return busObjects(f, "nd", "region", &cxlverr.FeatureError{Name: "nvdimm bus", Module: "libnvdimm"}, readNDRegion)
}

// NDRegion returns the nd region called name ("region0").
func (f FS) NDRegion(name string) (NDRegion, error) {
	p, err := f.busEntry("nd", name, "region", "nd region")
	if err != nil {
		return NDRegion{}, err
	}
	return readNDRegion(p)
}

// WaitProbe returns once the nvdimm core has registered and probed what the
// region's bus queued (ndbusN/wait_probe, read as libndctl does): the
// namespaces assembled from labels are added asynchronously, after the nd
// region's own probe has returned.
func (r NDRegion) WaitProbe() error {
	_, err := readAttr(filepath.Join(filepath.Dir(r.Path), "wait_probe"))
	return err
}

// WaitNDProbes returns once the nvdimm core has added and probed all it
// has queued, on every nvdimm bus (each ndbusN/wait_probe). The queue is
// one for all buses, so this includes an nd region that a cxl_pmem_region
// probe has queued and that is not in sysfs yet. No nvdimm bus: nothing
// is queued.
func (f FS) WaitNDProbes() error {
	buses, err := f.busDevices("nd", "ndbus")
	if err != nil {
		return err
	}
	for _, b := range buses {
		if _, err := readAttr(filepath.Join(b, "wait_probe")); err != nil {
			return err
		}
	}
	return nil
}

func readNDRegion(p string) (NDRegion, error) {
	a := attrs{dir: p}
	bus := filepath.Dir(p)
	r := NDRegion{
		Name:               filepath.Base(p),
		Path:               p,
		Bus:                filepath.Base(bus),
		CXL:                strings.HasPrefix(filepath.Base(filepath.Dir(bus)), "nvdimm-bridge"),
		Size:               a.u64("size"),
		AvailableSize:      a.u64("available_size"),
		MaxAvailableExtent: a.u64("max_available_extent"),
		Align:              a.u64("align"),
		ReadOnly:           a.flag("read_only"),
		NamespaceSeed:      a.str("namespace_seed"),
		PfnSeed:            a.str("pfn_seed"),
		DaxSeed:            a.str("dax_seed"),
		BttSeed:            a.str("btt_seed"),
		Driver:             a.driver(),
	}
	r.ID, _ = numberedName(r.Name, "region")
	for i := 0; ; i++ {
		m, ok := a.raw("mapping" + strconv.Itoa(i))
		if !ok {
			break
		}
		r.Mappings = append(r.Mappings, m)
	}
	var err error
	r.Namespaces, err = readEach(childDirs(p, "namespace"), func(np string) (Namespace, error) {
		return readNamespace(np, r.Name)
	})
	if err != nil {
		return r, err
	}
	return r, a.err
}

// ndctlModes maps the kernel's namespace modes to the names ndctl uses.
var ndctlModes = map[string]string{"memory": "fsdax", "dax": "devdax", "safe": "sector", "raw": "raw"}

func readNamespace(p, region string) (Namespace, error) {
	a := attrs{dir: p}
	ns := Namespace{
		Name:        filepath.Base(p),
		Path:        p,
		Region:      region,
		Size:        a.u64("size"),
		UUID:        a.str("uuid"),
		AltName:     a.str("alt_name"),
		Mode:        a.str("mode"),
		Holder:      a.str("holder"),
		HolderClass: a.str("holder_class"),
		SectorSize:  a.optSelected("sector_size"),
		Driver:      a.driver(),
	}
	if !ns.Idle() {
		// An idle namespace (the seed) has no range: its resource fails
		// with ENXIO.
		ns.Resource = a.optU64("resource")
	}
	if m, ok := ndctlModes[ns.Mode]; ok {
		ns.Mode = m
	}
	if ns.Holder != "" {
		c, err := readClaim(filepath.Join(filepath.Dir(p), ns.Holder))
		if err != nil {
			return ns, err
		}
		ns.Claim = &c
		ns.BlockDev = blockDevNode(c.Path)
		if c.Kind == ClaimDax {
			if d := childDirs(c.Path, "dax"); len(d) > 0 {
				ns.CharDev = (&attrs{dir: d[0]}).devNode()
			}
		}
	} else {
		ns.BlockDev = blockDevNode(p)
	}
	return ns, a.err
}

func readClaim(p string) (Claim, error) {
	a := attrs{dir: p}
	c := Claim{
		Name:       filepath.Base(p),
		Path:       p,
		UUID:       a.str("uuid"),
		Mode:       a.str("mode"),
		Align:      a.u64("align"),
		Size:       a.u64("size"),
		SectorSize: a.optSelected("sector_size"),
		Namespace:  a.str("namespace"),
		Driver:     a.driver(),
		Resource:   a.optU64("resource"),
	}
	for _, k := range []ClaimKind{ClaimPfn, ClaimDax, ClaimBtt} {
		if _, ok := numberedName(c.Name, string(k)); ok {
			c.Kind = k
		}
	}
	return c, a.err
}

// blockDevNode is the /dev node of the disk a device registered (dir/block/X).
func blockDevNode(dir string) string {
	disks, _ := filepath.Glob(filepath.Join(dir, "block", "*"))
	if len(disks) == 0 {
		return ""
	}
	return (&attrs{dir: disks[0]}).devNode()
}

// DaxDevices lists the device-dax instances.
func (f FS) DaxDevices() ([]DaxDevice, error) {
	return busObjects(f, "dax", "dax", &cxlverr.FeatureError{Name: "dax bus", Module: "device_dax"}, readDaxDevice)
}

func readDaxDevice(p string) (DaxDevice, error) {
	a := attrs{dir: p}
	d := DaxDevice{
		Name:       filepath.Base(p),
		Path:       p,
		Parent:     filepath.Base(filepath.Dir(p)),
		Size:       a.u64("size"),
		Align:      a.u64("align"),
		Resource:   a.optU64("resource"),
		TargetNode: a.optInt("target_node"),
		NumaNode:   a.optInt("numa_node"),
		Driver:     a.driver(),
		DevNode:    a.devNode(),
	}
	switch {
	case strings.HasPrefix(d.Parent, "dax_region"):
		d.Region = filepath.Base(filepath.Dir(filepath.Dir(p)))
	case strings.HasPrefix(d.Parent, "dax") && strings.Contains(p, "/nvdimm-bridge"):
		d.Region = filepath.Base(filepath.Dir(filepath.Dir(p)))
	}
	return d, a.err
}

package sysfs

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cxlv/cxlv/cxlverr"
)

// VirtDevice is a cxl_virt device, cxlvN: a CXL type-3 device the cxl_virt
// module made from reserved host memory, with the attributes every
// cxl_virt gives it (cxlv_dev_attrs, kmod/ctl/cxlv_device.c). The physical
// addresses and sizes are root only (0400): nil for anyone else.
type VirtDevice struct {
	Name string
	ID   int
	Path string
	// Memstart and Memsize are the reserved range given at create time.
	Memstart, Memsize *uint64
	// Capacity is the device capacity the memdev reports.
	Capacity *uint64
	// WindowStart is the start of the root decoder's HPA window, which
	// is Capacity bytes long.
	WindowStart *uint64
	Pmem        *bool
	Serial      *uint64
	// Borrowed is true when the range was taken from System RAM by the
	// module (borrow=1) rather than reserved at boot; nil on a module
	// without borrowing.
	Borrowed *bool
	// Perf holds the figures the device's CDAT carries; nil on a module
	// without them.
	Perf *Coordinates
	// Memdevs and Root name the memN (one per endpoint, in position
	// order) and rootN of the device, as the module's attributes memdev
	// and root show them: Root "" until the device's probe has finished,
	// Memdevs empty while cxl_mem has not bound them all.
	Memdevs []string
	Root    string
	// Ways, HostBridges and Granularity are the shape of an interleave
	// set (1, 1 and the root decoder's granularity for one device); nil
	// on a module without sets.
	Ways, HostBridges, Granularity *uint64
	// Serials are the endpoints' serials in position order (serial + p).
	Serials []uint64
	// Decoders are the root decoders over the device's window: one, or
	// the volatile part's then the persistent part's.
	Decoders []string
	// AutoRegion is true for a device born with its regions committed
	// (auto_region=1), Locked when their decoders are locked too; nil on
	// a module without them.
	AutoRegion, Locked *bool
	// State is the module's view: probing, enumerating, ready, busy.
	State  string
	Driver string
}

func errNoVirt() error { return &cxlverr.FeatureError{Name: "cxl_virt devices", Module: "cxl_virt"} }

// VirtLoaded reports whether the cxl_virt module is loaded.
func (f FS) VirtLoaded() bool { return Exists(f.Path("bus", "cxl_virt")) }

// What the cxl_virt module does about the CPU cache invalidation that Linux
// 6.2+ does before it commits or resets a region
// (/sys/bus/cxl_virt/cache_invalidation, kmod/hooks/cxlv_coherent.c).
const (
	CacheInvalidationNone        = "none"        // the kernel never invalidates (6.1)
	CacheInvalidationCPU         = "cpu"         // the CPU invalidates, as the kernel asks
	CacheInvalidationSkipped     = "skipped"     // hypervisor: cxl_virt's regions need none
	CacheInvalidationOff         = "off"         // hypervisor, coherent_regions=0: refused
	CacheInvalidationUnavailable = "unavailable" // hypervisor, no way on this kernel: refused
)

// VirtCacheInvalidation is the module's cache_invalidation state, "" when
// the module is not loaded or does not say.
func (f FS) VirtCacheInvalidation() string {
	a := attrs{dir: f.Path("bus", "cxl_virt")}
	if !a.has("cache_invalidation") {
		return ""
	}
	return a.str("cache_invalidation")
}

// VirtHook is one row of /sys/bus/cxl_virt/hooks: a place where cxl_virt
// reaches into another driver (kmod/hooks/cxlv_hooks.c).
type VirtHook struct {
	Name string
	// State is "armed" (in place now), "idle" (in place only while it
	// acts), "off" (turned off by its switch), "not-needed" (this kernel
	// or CPU does not need it) or "on-demand" (a call made when needed).
	State string
	// Target is what it hooks: module:function or the ops pointer.
	Target  string
	Kernels string
	// Switch turns it off at run time; "none" if it has none.
	Switch string
	Why    string
}

// VirtHooks reads the module's table of hooks into other drivers: nil when
// the module is not loaded or has no table.
func (f FS) VirtHooks() ([]VirtHook, error) {
	path := f.Path("bus", "cxl_virt", "hooks")
	if !Exists(path) {
		return nil, nil
	}
	b, err := readAttr(path)
	if err != nil {
		return nil, err
	}
	var hooks []VirtHook
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		c := strings.Split(line, "\t")
		if len(c) != 6 {
			return nil, fmt.Errorf("%s: want 6 tab-separated fields, got %q", path, line)
		}
		hooks = append(hooks, VirtHook{Name: c[0], State: c[1], Target: c[2], Kernels: c[3], Switch: c[4], Why: c[5]})
	}
	return hooks, nil
}

// VirtDevices lists the cxl_virt devices.
func (f FS) VirtDevices() ([]VirtDevice, error) {
	return busObjects(f, "cxl_virt", "cxlv", errNoVirt(), readVirtDevice)
}

// VirtDevice returns the cxl_virt device called name ("cxlv0").
func (f FS) VirtDevice(name string) (VirtDevice, error) {
	if !f.VirtLoaded() {
		return VirtDevice{}, errNoVirt()
	}
	p, err := f.busEntry("cxl_virt", name, "cxlv", "cxl_virt device")
	if err != nil {
		return VirtDevice{}, err
	}
	return readVirtDevice(p)
}

func readVirtDevice(p string) (VirtDevice, error) {
	a := attrs{dir: p}
	d := VirtDevice{
		Name:        filepath.Base(p),
		Path:        p,
		Memstart:    a.optU64("memstart"),
		Memsize:     a.optU64("memsize"),
		Capacity:    a.optU64("capacity"),
		WindowStart: a.optU64("window_start"),
		Pmem:        a.optBool("pmem"),
		Serial:      a.optU64("serial"),
		Borrowed:    a.optBool("borrowed"),
		Memdevs:     strings.Fields(a.str("memdev")),
		Root:        a.str("root"),
		Ways:        a.optU64("ways"),
		HostBridges: a.optU64("host_bridges"),
		Granularity: a.optU64("granularity"),
		Decoders:    strings.Fields(a.str("decoder")),
		AutoRegion:  a.optBool("auto_region"),
		Locked:      a.optBool("locked"),
		State:       a.str("state"),
		Driver:      a.driver(),
	}
	d.Perf = readCoordinates(&a)
	d.ID, _ = numberedName(d.Name, "cxlv")
	for _, f := range strings.Fields(a.str("serials")) {
		v, err := ParseU64(f)
		if err != nil {
			a.fail("serials", err)
		}
		d.Serials = append(d.Serials, v)
	}
	return d, a.err
}

// Set reports an interleave set of more than one endpoint.
func (d VirtDevice) Set() bool { return d.Ways != nil && *d.Ways > 1 }

// BorrowedRange is one line of /sys/bus/cxl_virt/borrowed: System RAM the
// module took out of the kernel's hands (kmod/mem/cxlv_borrow.c), which stays
// its own until given back.
type BorrowedRange struct {
	Start, Size uint64
	// Node is the NUMA node the memory came from and goes back to.
	Node int
	// Device is the cxlvN on the range, "" while it is free.
	Device string
}

// VirtBorrowed lists the module's borrowed ranges: none on a module
// without borrowing (no borrowed file), nil and no error for anyone but
// root (the file is 0400).
func (f FS) VirtBorrowed() ([]BorrowedRange, error) {
	if !f.VirtLoaded() {
		return nil, errNoVirt()
	}
	a := attrs{dir: f.Path("bus", "cxl_virt")}
	s, ok := a.raw("borrowed")
	if !ok {
		return nil, a.err
	}
	return ParseBorrowed(s)
}

// ParseBorrowed parses the borrowed file: per line "<start hex> <size>
// <node> <free|cxlvN>".
func ParseBorrowed(s string) ([]BorrowedRange, error) {
	var out []BorrowedRange
	for _, line := range strings.Split(s, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 4 {
			return nil, fmt.Errorf("borrowed: malformed line %q", line)
		}
		var b BorrowedRange
		var err error
		if b.Start, err = ParseU64(fields[0]); err == nil {
			b.Size, err = ParseU64(fields[1])
		}
		if err == nil {
			b.Node, err = strconv.Atoi(fields[2])
		}
		if err != nil {
			return nil, fmt.Errorf("borrowed: line %q: %w", line, err)
		}
		if fields[3] != "free" {
			b.Device = fields[3]
		}
		out = append(out, b)
	}
	return out, nil
}

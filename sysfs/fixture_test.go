package sysfs

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"

	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/internal/fixturetest"
)

// The trees under test/fixtures were captured from a 6.1 VM with QEMU's
// emulated CXL type-3 device (512 MiB, serial 0x5157): bare, with a
// region and a devdax namespace, with a region and an fsdax namespace.

func fixture(t *testing.T, name string) FS {
	t.Helper()
	fs, err := NewFS(filepath.Join("..", "test", "fixtures", name, "sys"))
	if err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	}
	return fs
}

var qemuFixtures = []string{"qemu-bare", "qemu-region-devdax", "qemu-region-fsdax"}

func TestMemdevsQemu(t *testing.T) {
	for _, name := range qemuFixtures {
		ms, err := fixture(t, name).Memdevs()
		if err != nil || len(ms) != 1 {
			t.Fatalf("%s: Memdevs() = %d memdevs, %v; want mem0", name, len(ms), err)
		}
		m := ms[0]
		if m.Name != "mem0" || m.Host != "0000:0d:00.0" || m.PmemSize != 512<<20 || m.RAMSize != 0 ||
			m.Serial == nil || *m.Serial != 0x5157 || m.Driver != "cxl_mem" || m.DevNode != "/dev/cxl/mem0" ||
			m.Nvdimm != "pmem0" || m.LabelStorageSize == 0 {
			t.Errorf("%s: mem0 = %+v", name, m)
		}
	}
}

func TestPortsQemu(t *testing.T) {
	ports, err := fixture(t, "qemu-bare").Ports()
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		name, uport, parent string
		kind                PortKind
		depth               int
		decoders            []string
	}
	wants := []want{
		{"root0", "ACPI0017:00", "", RootPort, 0, []string{"decoder0.0"}},
		{"port1", "ACPI0016:00", "root0", SwitchPort, 1, []string{"decoder1.0"}},
		{"endpoint2", "mem0", "port1", EndpointPort, 2, []string{"decoder2.0"}},
	}
	if len(ports) != len(wants) {
		t.Fatalf("Ports() = %+v; want %d ports", ports, len(wants))
	}
	for i, w := range wants {
		p := ports[i]
		if p.Name != w.name || p.Uport != w.uport || p.Parent != w.parent || p.Kind != w.kind || p.Depth != w.depth {
			t.Errorf("port %d = %+v; want %+v", i, p, w)
		}
		if !reflect.DeepEqual(p.Decoders, w.decoders) {
			t.Errorf("%s decoders = %v; want %v", p.Name, p.Decoders, w.decoders)
		}
	}
	wantDports := []Dport{{ID: 0, Target: "0000:0c:00.0"}, {ID: 1, Target: "0000:0c:01.0"}}
	if !reflect.DeepEqual(ports[1].Dports, wantDports) {
		t.Errorf("port1 dports = %+v; want the two QEMU root ports %+v", ports[1].Dports, wantDports)
	}
}

func isNotFound(err error) bool {
	var nf *cxlverr.NotFoundError
	return errors.As(err, &nf)
}

func TestDecodersQemu(t *testing.T) {
	bare := fixture(t, "qemu-bare")
	root, err := bare.Decoder("decoder0.0")
	if err != nil {
		t.Fatal(err)
	}
	if root.Kind != RootDecoder || root.Start == nil || *root.Start != 0x110000000 || root.Size != 4<<30 ||
		!root.CapPmem || !root.CapRAM || !root.CanCreatePmemRegion || root.CanCreateRAMRegion ||
		root.InterleaveWays != 1 || len(root.Regions) != 0 {
		t.Errorf("decoder0.0 = %+v", root)
	}
	ep, err := bare.Decoder("decoder2.0")
	if err != nil {
		t.Fatal(err)
	}
	if ep.Kind != EndpointDecoder || ep.Port != "endpoint2" || ep.Size != 0 || ep.Region != "" {
		t.Errorf("bare decoder2.0 = %+v", ep)
	}

	fsdax := fixture(t, "qemu-region-fsdax")
	root, _ = fsdax.Decoder("decoder0.0")
	if !reflect.DeepEqual(root.Regions, []string{"region0"}) {
		t.Errorf("decoder0.0 regions = %v; want [region0]", root.Regions)
	}
	ep, _ = fsdax.Decoder("decoder2.0")
	if ep.Mode != "pmem" || ep.DPASize != 512<<20 || ep.DPAResource == nil || *ep.DPAResource != 0 || ep.Region != "region0" {
		t.Errorf("fsdax decoder2.0 = %+v", ep)
	}
	sw, _ := fsdax.Decoder("decoder1.0")
	if sw.Kind != SwitchDecoder || sw.Region != "region0" || sw.TargetType != "expander" {
		t.Errorf("decoder1.0 = %+v", sw)
	}
}

func TestRegionsQemu(t *testing.T) {
	if rs, err := fixture(t, "qemu-bare").Regions(); err != nil || len(rs) != 0 {
		t.Errorf("bare Regions() = %+v, %v; want none", rs, err)
	}
	r, err := fixture(t, "qemu-region-devdax").Region("region0")
	if err != nil {
		t.Fatal(err)
	}
	if r.Decoder != "decoder0.0" || r.Size != 512<<20 || r.Resource == nil || *r.Resource != 0x110000000 ||
		!r.Committed || r.InterleaveWays != 1 || r.InterleaveGranularity != 256 || r.Driver != "cxl_region" ||
		r.PmemRegion != "pmem_region0" || !reflect.DeepEqual(r.Targets, []string{"decoder2.0"}) || len(r.UUID) != 36 {
		t.Errorf("region0 = %+v", r)
	}
}

func TestNDRegionsQemu(t *testing.T) {
	for _, tc := range []struct {
		fixture, mode, claim, block, char string
	}{
		{"qemu-region-fsdax", "fsdax", "pfn0.0", "/dev/pmem0", ""},
		{"qemu-region-devdax", "devdax", "dax0.0", "", "/dev/dax0.0"},
	} {
		r, err := fixture(t, tc.fixture).NDRegion("region0")
		if err != nil {
			t.Fatalf("%s: %v", tc.fixture, err)
		}
		if !r.CXL || r.Bus != "ndbus0" || r.Size != 512<<20 || r.Driver != "nd_region" || len(r.Mappings) != 1 {
			t.Errorf("%s: region0 = %+v", tc.fixture, r)
		}
		var active []Namespace
		for _, ns := range r.Namespaces {
			if !ns.Idle() {
				active = append(active, ns)
			}
		}
		if len(active) != 1 {
			t.Fatalf("%s: active namespaces = %+v; want one", tc.fixture, active)
		}
		ns := active[0]
		if ns.Name != "namespace0.0" || ns.Mode != tc.mode || ns.Claim == nil || ns.Claim.Name != tc.claim ||
			ns.BlockDev != tc.block || ns.CharDev != tc.char || ns.SectorSize == nil || *ns.SectorSize != 512 {
			t.Errorf("%s: namespace = %+v (claim %+v)", tc.fixture, ns, ns.Claim)
		}
		if ns.Claim.Align != 2<<20 || ns.Claim.Mode != "pmem" {
			t.Errorf("%s: claim = %+v", tc.fixture, ns.Claim)
		}
	}
}

func TestDaxDevicesQemu(t *testing.T) {
	ds, err := fixture(t, "qemu-region-devdax").DaxDevices()
	if err != nil || len(ds) != 1 {
		t.Fatalf("DaxDevices() = %+v, %v", ds, err)
	}
	if d := ds[0]; d.Name != "dax0.0" || d.Parent != "dax0.0" || d.DevNode != "/dev/dax0.0" || d.Driver != "device_dax" || d.Size == 0 {
		t.Errorf("dax0.0 = %+v", d)
	}
}

func TestTopologyQemu(t *testing.T) {
	for _, name := range qemuFixtures {
		top, err := fixture(t, name).Topology()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		links := top.Links()
		if len(links) != 1 {
			t.Fatalf("%s: %d links; want 1", name, len(links))
		}
		l := links[0]
		if l.Virt != nil || l.Memdev.Name != "mem0" || l.Endpoint.Name != "endpoint2" || l.Root.Name != "root0" ||
			len(l.RootDecoders) != 1 || l.RootDecoders[0].Name != "decoder0.0" {
			t.Errorf("%s: link = %+v", name, l)
		}
		wantRegions := 1
		if name == "qemu-bare" {
			wantRegions = 0
		}
		if len(l.Regions) != wantRegions {
			t.Fatalf("%s: regions = %+v", name, l.Regions)
		}
		for _, r := range l.Regions {
			if r.Region.Name != "region0" || r.NDRegion == nil || r.NDRegion.Name != "region0" {
				t.Errorf("%s: region link = %+v", name, r)
			}
		}
	}
}

func TestNamesQemu(t *testing.T) {
	top, err := fixture(t, "qemu-region-fsdax").Topology()
	if err != nil {
		t.Fatal(err)
	}
	for kind, want := range map[string][]string{
		"cxlv":         nil,
		"memdev":       {"mem0"},
		"root-decoder": {"decoder0.0"},
		"decoder":      {"decoder0.0", "decoder1.0", "decoder2.0"},
		"region":       {"region0"},
		"nd-region":    {"region0"},
		"namespace":    {"namespace0.0"},
	} {
		if got := top.Names(kind); !reflect.DeepEqual(got, want) {
			t.Errorf("Names(%s) = %v; want %v", kind, got, want)
		}
	}
}

func TestVirtNotLoaded(t *testing.T) {
	fs := fixture(t, "qemu-bare")
	_, err := fs.VirtDevices()
	var fe *cxlverr.FeatureError
	if !errors.As(err, &fe) || !errors.Is(err, cxlverr.ErrNotSupported) || fe.Module != "cxl_virt" {
		t.Fatalf("VirtDevices() error = %v; want a cxlverr.FeatureError for module cxl_virt", err)
	}
	if fs.VirtLoaded() {
		t.Error("VirtLoaded() = true on a tree without cxl_virt")
	}
}

func TestMissingCXLBus(t *testing.T) {
	fs, err := NewFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fs.Topology(); !errors.Is(err, cxlverr.ErrNotSupported) {
		t.Errorf("Topology() on an empty sysfs = %v; want cxlverr.ErrNotSupported", err)
	}
	if _, err := NewFS(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("NewFS(missing dir) succeeded")
	}
}

// Linux 6.1 as captured: pmem regions only; the later attributes are absent
// and their errors name the kernel that has them.
func TestFeaturesQemu61(t *testing.T) {
	top, err := fixture(t, "qemu-bare").Topology()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, f := range top.Features() {
		got[f.Name] = f.Present
	}
	want := map[string]bool{
		"pmem regions (create_pmem_region)": true,
		"ram regions (create_ram_region)":   false,
		"decoder qos_class":                 false,
		"port parent_dport":                 false,
		"port decoders_committed":           false,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Features() = %v; want %v", got, want)
	}
}

// cxlv-bare: one cxl_virt device made from 512M of a memmap= range at 4 GiB.
func TestVirtDevicesCxlv(t *testing.T) {
	fs := fixture(t, "cxlv-bare")
	devs, err := fs.VirtDevices()
	if err != nil || len(devs) != 1 {
		t.Fatalf("VirtDevices() = %+v, %v", devs, err)
	}
	d := devs[0]
	u := func(v uint64) *uint64 { return &v }
	yes := true
	want := VirtDevice{
		Name: "cxlv0", ID: 0, Path: d.Path,
		Memstart: u(4 << 30), Memsize: u(512 << 20), Capacity: u(256 << 20),
		WindowStart: u(0x110000000), Pmem: &yes,
		Serial: u(0x43584c5600001000), Memdevs: []string{"mem0"}, Root: "root0", Decoders: []string{"decoder0.0"},
		State: "ready", Driver: "cxl_virt",
	}
	if !reflect.DeepEqual(d, want) {
		t.Errorf("cxlv0 = %+v\nwant   %+v", d, want)
	}
	if _, err := fs.VirtDevice("cxlv1"); !isNotFound(err) {
		t.Errorf("VirtDevice(cxlv1) error = %v; want cxlverr.NotFoundError", err)
	}
}

func TestTopologyCxlv(t *testing.T) {
	top, l := oneLink(t, "cxlv-bare")
	if l.Virt == nil || l.Virt.Name != "cxlv0" || l.Memdev.Name != "mem0" || l.Members != nil || len(l.Endpoints()) != 1 || l.Root.Name != "root0" ||
		l.Root.Uport != "cxlv0" || l.Endpoint.Name != "endpoint2" || len(l.RootDecoders) != 1 || len(l.Regions) != 0 {
		t.Errorf("link = %+v", l)
	}
	if l.Memdev.Host != "10000:01:00.0" || l.Memdev.PmemSize != 256<<20 {
		t.Errorf("mem0 = %+v", l.Memdev)
	}
	if got := top.Names("cxlv"); !reflect.DeepEqual(got, []string{"cxlv0"}) {
		t.Errorf("Names(cxlv) = %v", got)
	}
}

// cxlv-region-fsdax: the same device with a region and an fsdax namespace
// made by cxl create-region and ndctl create-namespace; the module then
// reports the device busy.
func TestTopologyCxlvRegion(t *testing.T) {
	top, err := fixture(t, "cxlv-region-fsdax").Topology()
	if err != nil {
		t.Fatal(err)
	}
	l := top.Links()[0]
	if l.Virt == nil || l.Virt.Name != "cxlv0" || l.Virt.State != "busy" || len(l.Regions) != 1 {
		t.Fatalf("link = %+v", l)
	}
	r := l.Regions[0]
	if r.Region.Name != "region0" || r.Region.Size != 256<<20 || r.NDRegion == nil || r.NDRegion.Name != "region0" {
		t.Fatalf("region link = %+v", r)
	}
	ns := r.NDRegion.Namespaces[0]
	if ns.Name != "namespace0.0" || ns.Mode != "fsdax" || ns.BlockDev != "/dev/pmem0" || ns.Claim == nil || ns.Claim.Kind != ClaimPfn {
		t.Errorf("namespace = %+v", ns)
	}
}

// QoS classes and the firmware version as cxl list reads them: QEMU's
// window has class 0 and its memdev none, so its RAM region mismatches;
// cxl_virt's root reads -1, no class, like its memdev.
func TestQosClassAndFirmware(t *testing.T) {
	for _, tc := range []struct {
		fixture, firmware string
		rootClass         *int
		mismatch          bool
	}{
		{"qemu-ram-movable", "BWFW VERSION 00", new(int), true},
		{"cxlv-ram-movable", "cxl_virt", nil, false},
		{"cxlv-bare", "cxl_virt", nil, false}, // 6.1: no qos_class at all
	} {
		top, err := fixture(t, tc.fixture).Topology()
		if err != nil {
			t.Fatal(err)
		}
		m := top.Memdevs[0]
		if m.FirmwareVersion == nil || *m.FirmwareVersion != tc.firmware || m.PmemQosClass != nil || m.RAMQosClass != nil {
			t.Errorf("%s: memdev %+v; want firmware %q and no QoS class", tc.fixture, m, tc.firmware)
		}
		if d := top.Decoders[0]; !reflect.DeepEqual(d.QosClass, tc.rootClass) {
			t.Errorf("%s: %s qos_class %v; want %v", tc.fixture, d.Name, d.QosClass, tc.rootClass)
		}
		for _, r := range top.Regions {
			if r.QosClassMismatch != tc.mismatch {
				t.Errorf("%s: %s qos_class_mismatch %v; want %v", tc.fixture, r.Name, r.QosClassMismatch, tc.mismatch)
			}
		}
		if tc.mismatch && len(top.Regions) == 0 {
			t.Errorf("%s: no region", tc.fixture)
		}
	}
}

// A region's resource reads as absent when the attribute is missing, and
// that clears no other error: a region attribute that cannot be read fails
// the read.
func TestRegionResourceAbsent(t *testing.T) {
	fs, err := NewFS(filepath.Join(fixturetest.Copy(t, filepath.Join("..", "test", "fixtures", "cxlv-region-fsdax")), "sys"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := fs.Region("region0")
	if err != nil || r.Resource == nil {
		t.Fatalf("region0 = %+v, %v; want its resource", r, err)
	}
	if err := os.Remove(filepath.Join(r.Path, "resource")); err != nil {
		t.Fatal(err)
	}
	if r, err = fs.Region("region0"); err != nil || r.Resource != nil || r.UUID == "" {
		t.Fatalf("region0 without resource = %+v, %v; want no resource and no error", r, err)
	}
	fixturetest.Unreadable(t, filepath.Join(r.Path, "uuid"))
	if _, err := fs.Region("region0"); !errors.Is(err, syscall.EISDIR) {
		t.Errorf("region0 with an unreadable uuid: %v; want EISDIR", err)
	}
}

// The module's borrowed list and a device's borrowed flag, as captured.
func TestVirtBorrowed(t *testing.T) {
	f := fixture(t, "cxlv-borrowed")
	got, err := f.VirtBorrowed()
	want := []BorrowedRange{{Start: 0x1b0000000, Size: 512 << 20}, {Start: 0x1d0000000, Size: 512 << 20, Device: "cxlv0"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("VirtBorrowed = %+v, %v; want %+v", got, err, want)
	}
	d, err := f.VirtDevice("cxlv0")
	if err != nil || d.Borrowed == nil || !*d.Borrowed {
		t.Errorf("cxlv0 borrowed = %v, %v; want true", d.Borrowed, err)
	}
	if _, err := ParseBorrowed("0x1b0000000 512 0\n"); err == nil {
		t.Error("ParseBorrowed accepted a line of three fields")
	}
}

// WaitNDProbes reads every nvdimm bus's wait_probe; no nvdimm bus is
// nothing to wait for, and an unreadable one is an error.
func TestWaitNDProbes(t *testing.T) {
	if err := fixture(t, "cxlv-ram-bare").WaitNDProbes(); err != nil {
		t.Errorf("no nvdimm bus: %v; want nil", err)
	}
	fs, err := NewFS(filepath.Join(fixturetest.Copy(t, filepath.Join("..", "test", "fixtures", "cxlv-region-fsdax")), "sys"))
	if err != nil {
		t.Fatal(err)
	}
	if err := fs.WaitNDProbes(); err != nil {
		t.Errorf("ndbus0: %v; want nil", err)
	}
	bus, err := fs.resolve(fs.Path("bus", "nd", "devices", "ndbus0"))
	if err != nil {
		t.Fatal(err)
	}
	fixturetest.Unreadable(t, filepath.Join(bus, "wait_probe"))
	if err := fs.WaitNDProbes(); !errors.Is(err, syscall.EISDIR) {
		t.Errorf("ndbus0 with an unreadable wait_probe: %v; want EISDIR", err)
	}
}

// VirtHooks parses the hooks table as a 6.1 boot's cxl_virt printed it
// (cxlv-race, 6.1.0-57: coherent-regions not needed there); a tree without
// the file has none, and a row without six fields is an error.
func TestVirtHooks(t *testing.T) {
	if hooks, err := fixture(t, "cxlv-bare").VirtHooks(); hooks != nil || err != nil {
		t.Errorf("VirtHooks on a tree without hooks = %v, %v; want nil, nil", hooks, err)
	}
	root := t.TempDir()
	dir := filepath.Join(root, "bus", "cxl_virt")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	table := "coherent-regions\tnot-needed\tkretprobes: cpu_cache_has_invalidate_memregion (return value), cxl_core:commit_store and cxl_core:cxl_region_decode_reset (scope)\t6.2 and later, CPU reports a hypervisor\t/sys/module/cxl_virt/parameters/coherent_regions\tthe CXL core refuses region commits under a hypervisor; cxl_virt memory is host RAM at a fixed address\n" +
		"event-msi\ton-demand\tirq_inject_interrupt() on the endpoint's MSI vector\tall\tnone\tevent records are signalled as the device's MSI\n"
	for _, tc := range []struct {
		text  string
		rows  int
		wrong bool
	}{{table, 2, false}, {table + "badrange-clear\tidle\n", 0, true}} {
		if err := os.WriteFile(filepath.Join(dir, "hooks"), []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := NewFS(root)
		if err != nil {
			t.Fatal(err)
		}
		hooks, err := f.VirtHooks()
		if (err != nil) != tc.wrong || len(hooks) != tc.rows {
			t.Errorf("VirtHooks = %d rows, %v; want %d rows, error %v", len(hooks), err, tc.rows, tc.wrong)
		}
		if !tc.wrong && (hooks[0].Name != "coherent-regions" || hooks[0].State != "not-needed" ||
			hooks[0].Switch != "/sys/module/cxl_virt/parameters/coherent_regions" || hooks[1].Switch != "none") {
			t.Errorf("VirtHooks = %+v", hooks)
		}
	}
}

package poison

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/host"
	"github.com/cxlv/cxlv/internal/fixturetest"
	"github.com/cxlv/cxlv/internal/hostfixture"
	"github.com/cxlv/cxlv/sysfs"
	"github.com/cxlv/cxlv/virt"
	"github.com/cxlv/cxlv/writer"
	"github.com/cxlv/cxlv/writer/writertest"
)

// regionFixture is a 6.1 boot with cxlv0 (mem0), region0 over its 256M at
// 0x110000000 (decoder2.0, DPA 0) and an fsdax namespace0.0 whose pfn0.0
// data starts 6 MiB in.
const regionFixture = "cxlv-region-fsdax"

func u64(v uint64) *uint64 { return &v }

func resolve(t *testing.T, root host.Root, device string, spec Spec) (Target, error) {
	t.Helper()
	dev, err := virt.ResolveMemdevs(root.Sys(), device)
	if err != nil {
		t.Fatalf("ResolveMemdevs(%s): %v", device, err)
	}
	return Resolve(root, dev, spec)
}

func TestResolveEachForm(t *testing.T) {
	root := hostfixture.Root(t, regionFixture)
	for _, tc := range []struct {
		device string
		spec   Spec
		dpa    uint64
		hpa    uint64 // 0: no region named
	}{
		{"cxlv0", Spec{DPA: u64(0x1000)}, 0x1000, 0},
		{"mem0", Spec{DPA: u64(0xfffffc0)}, 0xfffffc0, 0},
		{"cxlv0", Spec{HPA: u64(0x110004000)}, 0x4000, 0x110004000},
		{"mem0", Spec{HPA: u64(0x11fffffc0)}, 0xfffffc0, 0x11fffffc0},
		// pfn0.0's resource 0x110600000: the data after the info block.
		{"cxlv0", Spec{Namespace: "namespace0.0", Offset: 0x8000}, 0x608000, 0x110608000},
	} {
		got, err := resolve(t, root, tc.device, tc.spec)
		if err != nil {
			t.Errorf("%s %+v: %v", tc.device, tc.spec, err)
			continue
		}
		if got.Memdev != "mem0" || got.Device != "cxlv0" || got.DPA != tc.dpa {
			t.Errorf("%s %+v: %s/%s DPA %#x, want cxlv0/mem0 DPA %#x", tc.device, tc.spec, got.Device, got.Memdev, got.DPA, tc.dpa)
		}
		switch {
		case tc.hpa == 0 && got.HPA != nil:
			t.Errorf("%s %+v: HPA %#x for a bare DPA", tc.device, tc.spec, *got.HPA)
		case tc.hpa != 0 && (got.HPA == nil || *got.HPA != tc.hpa || got.Region != "region0"):
			t.Errorf("%s %+v: HPA %v in %q, want %#x in region0", tc.device, tc.spec, got.HPA, got.Region, tc.hpa)
		}
	}
}

func TestResolveRefusals(t *testing.T) {
	root := hostfixture.Root(t, regionFixture)
	for _, tc := range []struct {
		spec Spec
		want string
	}{
		{Spec{DPA: u64(0x1001)}, "DPA 0x1001 is not 64-byte aligned"},
		{Spec{DPA: u64(0x10000000)}, "DPA 0x10000000 is outside mem0: its DPAs are 0 to 0xfffffff"},
		{Spec{HPA: u64(0x110000020)}, "not 64-byte aligned"},
		{Spec{HPA: u64(0x120000000)}, "HPA 0x120000000 is outside the regions of cxlv0 (region0 0x110000000-0x11fffffff)"},
		{Spec{HPA: u64(0x10ffffc0)}, "outside the regions of cxlv0"},
		{Spec{Namespace: "namespace0.0", Offset: 0x10}, "offset 0x10 of namespace0.0 is not 64-byte aligned"},
		{Spec{Namespace: "namespace0.0", Offset: 250 << 20}, "is outside it: its data is 0xfa00000 bytes"},
	} {
		_, err := resolve(t, root, "cxlv0", tc.spec)
		if !errors.Is(err, cxlverr.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an invalid request saying %q", tc.spec, err, tc.want)
		}
	}
	_, err := resolve(t, root, "cxlv0", Spec{Namespace: "namespace0.7", Offset: 0})
	if !errors.Is(err, cxlverr.ErrNotFound) {
		t.Errorf("namespace0.7: %v, want not found", err)
	}
}

// 6.1 has neither trigger_poison_list nor the debugfs files: the typed
// refusal, and nothing written.
func TestKernelTooOld(t *testing.T) {
	root := hostfixture.Root(t, regionFixture)
	rec := &writertest.Recorder{}
	p := &Poisoner{Host: root, W: rec}
	for name, err := range map[string]error{
		"inject": p.Send(Inject, Target{Device: "cxlv0", Memdev: "mem0", DPA: 0x1000}),
		"clear":  p.Check(Clear, "mem0"),
		"list":   func() error { _, err := p.List("mem0"); return err }(),
	} {
		var fe *cxlverr.FeatureError
		if !errors.As(err, &fe) || fe.MinKernel != cxlverr.KernelPoison ||
			!strings.HasPrefix(err.Error(), "kernel too old: poison inject, clear and list need Linux 6.4+ (mem0/trigger_poison_list missing)") {
			t.Errorf("%s: %v, want kernel too old", name, err)
		}
	}
	if ops := rec.Ops(); len(ops) != 0 {
		t.Errorf("wrote %v on a kernel without poison", ops)
	}
}

// poisonFixture is a 7.3 boot like regionFixture, with DPAs 0x1000 and
// 0x200000 poisoned and the trace of the tracefs instance that cxlvctl's
// list makes, made by hand (test/vm/fixture-setup/cxlv-poison-fsdax.sh).
const poisonFixture = "cxlv-poison-fsdax"

func TestListReadsItsTracefsInstance(t *testing.T) {
	root := hostfixture.Root(t, poisonFixture)
	for _, dry := range []bool{false, true} {
		rec := &writertest.Recorder{}
		p := &Poisoner{Host: root, W: rec, DryRun: dry}
		records, err := p.List("mem0")
		if err != nil {
			t.Fatal(err)
		}
		instance := root.Debugfs("tracing", "instances", "cxlvctl-poison-mem0")
		want := []writer.Op{
			{Path: instance, Dir: "mkdir"},
			{Path: instance + "/events/cxl/cxl_poison/enable", Value: "1"},
			{Path: root.Sys().Path("bus", "cxl", "devices", "mem0", "trigger_poison_list"), Value: "1"},
			{Path: instance, Dir: "rmdir"},
		}
		if got := rec.Ops(); !reflect.DeepEqual(got, want) {
			t.Errorf("dry run %v: writes\n%v\nwant\n%v", dry, got, want)
		}
		if dry {
			if records != nil {
				t.Errorf("dry run read records %v", records)
			}
			continue
		}
		if len(records) != 2 {
			t.Fatalf("records %+v, want 2", records)
		}
		for i, dpa := range []uint64{0x1000, 0x200000} {
			r := records[i]
			if r.Memdev != "mem0" || r.DPA != dpa || r.Length != virt.LineSize || r.Source != "Injected" ||
				r.Region != "region0" || r.HPA == nil || *r.HPA != 0x110000000+dpa || r.Flags != nil || r.OverflowTime != 0 {
				t.Errorf("record %d: %+v (HPA %v), want DPA %#x at HPA %#x in region0, Injected", i, r, r.HPA, dpa, 0x110000000+dpa)
			}
		}
	}
}

// The instance goes even when the trigger fails.
func TestListRemovesItsInstanceOnFailure(t *testing.T) {
	root := hostfixture.Root(t, poisonFixture)
	rec := &writertest.Recorder{FailAt: 3}
	if _, err := (&Poisoner{Host: root, W: rec}).List("mem0"); !errors.Is(err, writertest.ErrInjected) {
		t.Fatalf("List with a failing trigger: %v", err)
	}
	ops := rec.Ops()
	if last := ops[len(ops)-1]; last.Dir != "rmdir" {
		t.Errorf("last op %v, want the instance's rmdir", last)
	}
}

func TestSendWritesTheDPA(t *testing.T) {
	root := hostfixture.Root(t, poisonFixture)
	rec := &writertest.Recorder{}
	p := &Poisoner{Host: root, W: rec}
	dev, err := virt.ResolveMemdevs(root.Sys(), "cxlv0")
	if err != nil {
		t.Fatal(err)
	}
	// The HPA of DPA 0x200000, as the captured trace resolved it.
	target, err := Resolve(root, dev, Spec{HPA: u64(0x110200000)})
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []Op{Inject, Clear} {
		if err := p.Send(op, target); err != nil {
			t.Fatal(err)
		}
	}
	want := []writer.Op{
		{Path: root.Debugfs("cxl", "mem0", "inject_poison"), Value: "0x200000"},
		{Path: root.Debugfs("cxl", "mem0", "clear_poison"), Value: "0x200000"},
	}
	if got := rec.Ops(); !reflect.DeepEqual(got, want) {
		t.Errorf("writes %v, want %v", got, want)
	}
}

// debugfs unmounted: the kernel has the poison interfaces, cxlvctl cannot
// reach them, and says how to.
func TestDebugfsNotMounted(t *testing.T) {
	dir := fixturetest.Copy(t, fixturetest.Dir(poisonFixture))
	if err := os.RemoveAll(filepath.Join(dir, "debugfs")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "debugfs"), 0o755); err != nil {
		t.Fatal(err)
	}
	sys, err := sysfs.NewFS(filepath.Join(dir, "sys"))
	if err != nil {
		t.Fatal(err)
	}
	p := &Poisoner{Host: hostfixture.Of(sys), W: &writertest.Recorder{}}
	err = p.Check(Inject, "mem0")
	if !errors.Is(err, cxlverr.ErrNotSupported) || !strings.Contains(err.Error(), "debugfs is not mounted at "+filepath.Join(dir, "debugfs")+": mount it (mount -t debugfs none") {
		t.Errorf("inject without debugfs: %v", err)
	}
	if _, err := p.List("mem0"); !errors.Is(err, cxlverr.ErrNotSupported) || !strings.Contains(err.Error(), "tracefs is not mounted") {
		t.Errorf("list without debugfs or tracefs: %v", err)
	}
}

// setFixture is a 7.3 boot with cxlv0, an x4 set across two host bridges
// of two root ports each, region0 over its window at granularity 4096 and
// one poisoned line on each memdev, whose cxl_poison records in the global
// trace carry the HPA the kernel computed for each DPA
// (test/vm/fixture-setup/cxlv-set-2x2.sh).
const setFixture = "cxlv-set-2x2"

// Every HPA the kernel reported for a set resolves back to the memdev and
// DPA it came from: the interleave arithmetic agrees with the kernel's.
func TestResolveHPAOnASetAgreesWithTheKernel(t *testing.T) {
	root := hostfixture.Root(t, setFixture)
	trace, err := os.ReadFile(root.Debugfs("tracing", "trace"))
	if err != nil {
		t.Fatal(err)
	}
	dev, err := virt.ResolveMemdevs(root.Sys(), "cxlv0")
	if err != nil {
		t.Fatal(err)
	}
	if len(dev.Memdevs()) != 4 {
		t.Fatalf("cxlv0's memdevs %v, want the 4 of the set", dev.Memdevs())
	}
	positions := map[uint64]bool{}
	for _, memdev := range dev.Memdevs() {
		records, err := ParseTrace(string(trace), memdev)
		if err != nil || len(records) != 1 || records[0].HPA == nil {
			t.Fatalf("%s: records %+v (%v), want one with an HPA", memdev, records, err)
		}
		r := records[0]
		got, err := Resolve(root, dev, Spec{HPA: r.HPA})
		if err != nil {
			t.Errorf("%s: HPA %#x: %v", memdev, *r.HPA, err)
			continue
		}
		if got.Memdev != memdev || got.DPA != r.DPA || got.Region != r.Region {
			t.Errorf("HPA %#x: %s DPA %#x in %s, want %s DPA %#x in %s (the kernel's record)",
				*r.HPA, got.Memdev, got.DPA, got.Region, memdev, r.DPA, r.Region)
		}
		// The set's DPAs are 0x1000 + 0x40 x position: four positions.
		positions[(r.DPA-0x1000)/0x40] = true
	}
	if len(positions) != 4 {
		t.Errorf("the records cover positions %v, want 0 to 3", positions)
	}
	// A DPA alone does not say which memdev of the set it is on.
	if _, err := Resolve(root, dev, Spec{DPA: u64(0x1000)}); !errors.Is(err, cxlverr.ErrInvalid) ||
		!strings.Contains(err.Error(), "interleave set of 4 memdevs") {
		t.Errorf("a DPA on the set: %v, want the interleave-set refusal", err)
	}
}

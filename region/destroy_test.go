package region

import (
	"bytes"
	"errors"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/internal/fixturetest"
	"github.com/cxlv/cxlv/sysfs"
	"github.com/cxlv/cxlv/writer/writertest"
)

// destroyWrites is the teardown of region0 on mem0 (QEMU's device or a
// cxl_virt one: the same topology) as ndctl left it:
// the namespace (claimed by claim, bound to driver) first, then the region,
// its endpoint DPA, and the region itself.
func destroyWrites(claim, driver string) []want {
	return []want{
		{"bus/nd/drivers/" + driver + "/unbind", claim, nil},
		{"bus/nd/devices/" + claim + "/namespace", "", nil},
		{"bus/nd/devices/namespace0.0/holder_class", "", nil},
		{"bus/nd/devices/namespace0.0/size", "0", nil},
		{"bus/cxl/drivers/cxl_region/unbind", "region0", nil},
		{"bus/cxl/devices/region0/commit", "0", nil},
		{"bus/cxl/devices/region0/target0", "", nil},
		{"bus/cxl/devices/decoder2.0/dpa_size", "0", nil},
		{"bus/cxl/devices/decoder0.0/delete_region", "region0", nil},
	}
}

func TestDestroyRegion(t *testing.T) {
	for _, c := range []struct {
		scenario, claim, driver string
	}{
		{"qemu-region-fsdax", "pfn0.0", "nd_pmem"},
		{"qemu-region-devdax", "dax0.0", "dax_pmem"},
		{"cxlv-region-fsdax", "pfn0.0", "nd_pmem"},
	} {
		t.Run(c.scenario, func(t *testing.T) {
			fs := fixture(t, c.scenario)
			seq := destroyWrites(c.claim, c.driver)

			// Without --force the labelled namespace is refused, nothing written.
			rec := &writertest.Recorder{}
			var le *LabelError
			if _, err := manager(fs, rec, &bytes.Buffer{}).DestroyRegion("region0", DestroyOptions{}); !errors.As(err, &le) ||
				!errors.Is(err, cxlverr.ErrBusy) || len(rec.Ops()) != 0 {
				t.Fatalf("without --force: %v, wrote %v; want a LabelError and no write", err, rec.Ops())
			}
			if _, err := manager(fs, rec, &bytes.Buffer{}).Teardown("mem0", DestroyOptions{}); !errors.As(err, &le) || len(rec.Ops()) != 0 {
				t.Fatalf("teardown without --force: %v, wrote %v; want a LabelError and no write", err, rec.Ops())
			}

			if kept, err := manager(fs, rec, &bytes.Buffer{}).DestroyRegion("region0", DestroyOptions{Force: true}); err != nil || kept != nil {
				t.Fatal(kept, err)
			}
			diffOps(t, rec.Ops(), writesOf(fs, seq))

			// --keep-namespaces leaves the namespace and its labels alone
			// and says which uuid brings them back.
			rec = &writertest.Recorder{}
			kept, err := manager(fs, rec, &bytes.Buffer{}).DestroyRegion("region0", DestroyOptions{KeepNamespaces: true})
			if err != nil {
				t.Fatal(err)
			}
			r, _ := fs.Region("region0")
			if kept == nil || kept.UUID != r.UUID || kept.UUID == "" || len(kept.Namespaces) != 1 || kept.Namespaces[0] != "namespace0.0" ||
				len(kept.Memdevs) != 1 || kept.Memdevs[0] != "mem0" {
				t.Errorf("kept %+v; want region0's uuid %s, namespace0.0 on mem0", kept, r.UUID)
			}
			diffOps(t, rec.Ops(), writesOf(fs, seq[4:]))

			// Teardown of the memdev does the same as a full destroy.
			rec = &writertest.Recorder{}
			if _, err := manager(fs, rec, &bytes.Buffer{}).Teardown("mem0", DestroyOptions{Force: true}); err != nil {
				t.Fatal(err)
			}
			diffOps(t, rec.Ops(), writesOf(fs, seq))

			// A failing write stops the destroy where it is.
			rec = &writertest.Recorder{FailAt: 6}
			_, err = manager(fs, rec, &bytes.Buffer{}).DestroyRegion("region0", DestroyOptions{Force: true})
			if !errors.Is(err, writertest.ErrInjected) {
				t.Fatalf("want the injected failure, got %v", err)
			}
			diffOps(t, rec.Ops(), writesOf(fs, seq[:6]))
		})
	}
}

func TestDestroyNamespace(t *testing.T) {
	fs := fixture(t, "qemu-region-fsdax")
	rec := &writertest.Recorder{}
	m := manager(fs, rec, &bytes.Buffer{})
	if err := m.DestroyNamespace("namespace0.0", false); !errors.Is(err, cxlverr.ErrBusy) || len(rec.Ops()) != 0 {
		t.Fatalf("without --force: %v, wrote %v; want busy and no write", err, rec.Ops())
	}
	if err := m.DestroyNamespace("namespace0.0", true); err != nil {
		t.Fatal(err)
	}
	diffOps(t, rec.Ops(), writesOf(fs, destroyWrites("pfn0.0", "nd_pmem")[:4]))

	if err := m.DestroyNamespace("namespace0.1", true); !errors.Is(err, ErrIdle) {
		t.Errorf("destroying the idle seed: %v, want ErrIdle", err)
	}
	for _, name := range []string{"namespace9.0", "namespace0", "pfn0.0"} {
		if err := m.DestroyNamespace(name, true); err == nil {
			t.Errorf("DestroyNamespace(%q) succeeded", name)
		}
	}
	if len(rec.Ops()) != 4 {
		t.Errorf("refused destroys wrote: %v", rec.Ops()[4:])
	}
}

// TestTeardownNothingBuilt: a memdev without regions needs no writes.
func TestTeardownNothingBuilt(t *testing.T) {
	fs := fixture(t, "qemu-bare")
	rec := &writertest.Recorder{}
	if _, err := manager(fs, rec, &bytes.Buffer{}).Teardown("mem0", DestroyOptions{}); err != nil {
		t.Fatal(err)
	}
	if ops := rec.Ops(); len(ops) != 0 {
		t.Errorf("wrote %v", ops)
	}
}

// An nd region that cannot be read stops a destroy before any write: its
// namespaces could be mounted.
func TestDestroyUnreadableNDRegion(t *testing.T) {
	fs, err := sysfs.NewFS(filepath.Join(fixturetest.Copy(t, filepath.Join("..", "test", "fixtures", "cxlv-region-fsdax")), "sys"))
	if err != nil {
		t.Fatal(err)
	}
	nd, err := fs.NDRegion("region0")
	if err != nil {
		t.Fatal(err)
	}
	fixturetest.Unreadable(t, filepath.Join(nd.Path, "size"))
	rec := &writertest.Recorder{}
	m := manager(fs, rec, &bytes.Buffer{})
	if _, err := m.DestroyRegion("region0", DestroyOptions{Force: true}); !errors.Is(err, syscall.EISDIR) {
		t.Errorf("DestroyRegion = %v; want the nd region's read error", err)
	}
	if _, err := m.Teardown("mem0", DestroyOptions{Force: true}); !errors.Is(err, syscall.EISDIR) {
		t.Errorf("Teardown = %v; want the nd region's read error", err)
	}
	if ops := rec.Ops(); len(ops) != 0 {
		t.Errorf("wrote %v", ops)
	}
}

package region

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/sysfs"
	"github.com/cxlv/cxlv/writer"
	"github.com/cxlv/cxlv/writer/writertest"
)

// kmemSize is the pmem capacity of cxlv-kmem-bare's mem0 (Linux 6.1, 1G
// of range): the region and its devdax namespace take all of it.
const kmemSize = 768 << 20

// kmemWrites is region create --type ram on cxlv-kmem-bare: a pmem region,
// a devdax namespace, then dax0.0 from device_dax to kmem with
// auto_online_blocks (6.1 default: offline) set to auto for the move.
func kmemWrites(fs sysfs.FS, auto string) []want {
	dax := func(p, v string) writer.Op { return op(fs, "bus/dax/drivers/"+p, v) }
	autoPath := "devices/system/memory/auto_online_blocks"
	seq := append(pmemRegionWrites(fs, kmemSize), namespaceWritesOf(fs, "dax", "dax0.0", "dax_pmem", kmemSize)...)
	move := []want{
		{"bus/dax/drivers/device_dax/unbind", "dax0.0", []writer.Op{dax("device_dax/bind", "dax0.0")}},
		// Undone by offlining the memory (none in this tree), kmem's
		// remove_id and unbind.
		{"bus/dax/drivers/kmem/new_id", "dax0.0", []writer.Op{dax("kmem/remove_id", "dax0.0"), dax("kmem/unbind", "dax0.0")}},
	}
	if auto == sysfs.BlockOffline {
		return append(seq, move...)
	}
	seq = append(seq, want{autoPath, auto, []writer.Op{op(fs, autoPath, sysfs.BlockOffline)}})
	return append(append(seq, move...), want{autoPath, sysfs.BlockOffline, nil})
}

// TestCreateKmemSequences: on 6.1 no root decoder offers create_ram_region,
// so --type ram makes the memory through a pmem region, devdax and kmem,
// and says so.
func TestCreateKmemSequences(t *testing.T) {
	fs := fixture(t, "cxlv-kmem-bare")
	for _, c := range []struct {
		online OnlinePolicy
		auto   string
	}{{"", "online_movable"}, {OnlineNormal, "online_kernel"}, {OnlineNone, sysfs.BlockOffline}} {
		rec := &writertest.Recorder{}
		res, err := manager(fs, rec, &bytes.Buffer{}).Create(context.Background(), Spec{Memdev: "mem0", Type: TypeRAM, Online: c.online})
		if err != nil {
			t.Fatal(err)
		}
		diffOps(t, rec.Ops(), writesOf(fs, kmemWrites(fs, c.auto)))
		if res.Region != "region0" || res.Type != TypePmem || res.NDRegion != "region0" || res.Size != kmemSize ||
			len(res.Namespaces) != 1 || res.Namespaces[0].Mode != ModeDevdax || res.RAMResult == nil ||
			res.Via != ViaKmem || res.Dax != "dax0.0" || res.Online != c.online.orDefault() {
			t.Errorf("%s: result %+v %+v", c.online, res, res.RAMResult)
		}
	}
}

// TestCreateKmemRollsBackEveryStep fails each write in turn: everything
// done is undone newest first, down to the region.
func TestCreateKmemRollsBackEveryStep(t *testing.T) {
	fs := fixture(t, "cxlv-kmem-bare")
	seq := kmemWrites(fs, "online_movable")
	for k := 1; k <= len(seq); k++ {
		rec := &writertest.Recorder{FailAt: k}
		_, err := manager(fs, rec, &bytes.Buffer{}).Create(context.Background(), Spec{Memdev: "mem0", Type: TypeRAM})
		var rerr *Error
		if !errors.As(err, &rerr) || !errors.Is(err, writertest.ErrInjected) || rerr.RollbackErr != nil {
			t.Fatalf("fail at %d: want an *Error with a complete rollback, got %v", k, err)
		}
		diffOps(t, rec.Ops(), rolledBack(fs, seq, k))
	}
}

// TestKmemNeedsItsDrivers: without dax_pmem (cxlv-ram-bare has no nvdimm
// drivers) nothing is written.
func TestKmemNeedsItsDrivers(t *testing.T) {
	fs := fixture(t, "cxlv-kmem-bare")
	m := manager(fs, &writertest.Recorder{}, &bytes.Buffer{})
	if err := m.checkDrivers(kmemDrivers); err != nil {
		t.Fatalf("cxlv-kmem-bare has the drivers: %v", err)
	}
	m = manager(fixture(t, "cxlv-ram-bare"), &writertest.Recorder{}, &bytes.Buffer{})
	var fe *cxlverr.FeatureError
	if err := m.checkDrivers(kmemDrivers); !errors.As(err, &fe) || fe.Module != "dax_pmem" {
		t.Errorf("without dax_pmem: %v", err)
	}
}

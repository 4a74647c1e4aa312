package region

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/host"
	"github.com/cxlv/cxlv/internal/fixturetest"
	"github.com/cxlv/cxlv/internal/hostfixture"
	"github.com/cxlv/cxlv/sysfs"
	"github.com/cxlv/cxlv/writer"
	"github.com/cxlv/cxlv/writer/writertest"
)

// TestRAMOn61NeedsKmem: Linux 6.1's root decoder offers no
// create_ram_region, so a RAM region takes the pmem region, devdax and kmem
// path, whose kmem driver this tree lacks: a typed error naming the
// module, before any write.
func TestRAMOn61NeedsKmem(t *testing.T) {
	fs := fixture(t, "qemu-bare")
	rec := &writertest.Recorder{}
	_, err := manager(fs, rec, &bytes.Buffer{}).Create(context.Background(), Spec{Memdev: "mem0", Type: TypeRAM})
	var fe *cxlverr.FeatureError
	if !errors.As(err, &fe) || !errors.Is(err, cxlverr.ErrNotSupported) || fe.Module != "kmem" {
		t.Errorf("ram region on 6.1 without kmem: %v", err)
	}
	if len(rec.Ops()) != 0 {
		t.Errorf("wrote %v before refusing", rec.Ops())
	}
}

func TestRAMSpecRefusesPmemFlags(t *testing.T) {
	fs := fixture(t, "qemu-bare")
	dir := t.TempDir()
	for _, c := range []struct {
		spec Spec
		msg  string
	}{
		{Spec{Memdev: "mem0", Type: "cxl"}, "unknown region type"},
		{Spec{Memdev: "mem0", Online: OnlineNormal}, "--online is for RAM regions"},
		{Spec{Memdev: "mem0", Type: TypeRAM, Online: "kernel"}, "unknown --online"},
		{Spec{Memdev: "mem0", Type: TypeRAM, UUID: uuidN(1)}, "--uuid is for pmem regions"},
		{Spec{Memdev: "mem0", Type: TypeRAM, Namespace: ModeDevdax}, "--namespace is for pmem regions"},
		{Spec{Memdev: "mem0", Type: TypeRAM, Filesystem: "xfs", MountDir: dir}, "--fs is for pmem regions"},
		{Spec{Memdev: "mem0", Type: TypeRAM, Size: 100 << 20}, "region size 100M is not a multiple of 256M"},
	} {
		rec := &writertest.Recorder{}
		_, err := manager(fs, rec, &bytes.Buffer{}).Create(context.Background(), c.spec)
		if err == nil || !errors.Is(err, cxlverr.ErrInvalid) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%+v: %v; want invalid input %q", c.spec, err, c.msg)
		}
		if len(rec.Ops()) != 0 {
			t.Errorf("%+v: wrote %v", c.spec, rec.Ops())
		}
	}
	for _, s := range []string{"movable", "normal", "none"} {
		if p, err := ParseOnline(s); err != nil || string(p) != s {
			t.Errorf("ParseOnline(%q) = %q, %v", s, p, err)
		}
	}
}

// TestWriteScoped: a scoped write is put back by its restore, once, or by
// a rollback, and a restore leaves the other undos alone.
func TestWriteScoped(t *testing.T) {
	rec := &writertest.Recorder{}
	tr := &tx{w: rec}
	restore, err := tr.writeScoped("/p", "online_movable", "online")
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.write("/a", "1", writer.Op{Path: "/a", Value: "0"}); err != nil {
		t.Fatal(err)
	}
	if err := restore(); err != nil {
		t.Fatal(err)
	}
	if err := tr.rollback(); err != nil {
		t.Fatal(err)
	}
	diffOps(t, rec.Ops(), []writer.Op{{Path: "/p", Value: "online_movable"}, {Path: "/a", Value: "1"}, {Path: "/p", Value: "online"}, {Path: "/a", Value: "0"}})
}

// TestGuardStopsRollback: a guard undo that fails stops the rollback and
// the error names what was left.
func TestGuardStopsRollback(t *testing.T) {
	rec := &writertest.Recorder{}
	tr := &tx{w: rec}
	tr.pushWrites(writer.Op{Path: "/delete", Value: "region0"})
	tr.pushGuard("offline memory", func() error { return syscall.EBUSY })
	tr.pushWrites(writer.Op{Path: "/late", Value: "x"})
	err := tr.rollback()
	if err == nil || !errors.Is(err, syscall.EBUSY) || !strings.Contains(err.Error(), "not undone: /delete") {
		t.Errorf("rollback: %v", err)
	}
	diffOps(t, rec.Ops(), []writer.Op{{Path: "/late", Value: "x"}})
}

func TestOnlinePolicy(t *testing.T) {
	movable := sysfs.MemoryBlock{State: "online", Zones: "Movable"}
	normal := sysfs.MemoryBlock{State: "online", Zones: "Normal"}
	offline := sysfs.MemoryBlock{State: "offline", Zones: "Normal Movable"}
	for _, c := range []struct {
		p     OnlinePolicy
		b     sysfs.MemoryBlock
		holds bool
	}{
		{OnlineMovable, movable, true}, {OnlineMovable, normal, false}, {OnlineMovable, offline, false},
		{OnlineNormal, normal, true}, {OnlineNormal, movable, false}, {OnlineNormal, offline, false},
		{OnlineNone, offline, true}, {OnlineNone, normal, false},
	} {
		if c.p.holds(c.b) != c.holds {
			t.Errorf("%s holds %+v = %v", c.p, c.b, !c.holds)
		}
	}
	if onlineAs(movable) != "online_movable" || onlineAs(normal) != "online_kernel" {
		t.Error("onlineAs does not put a block back into its zone")
	}
}

// ramFixtures are the 6.12 trees without and with a RAM region (online
// movable), with the region's size and first memory block: cxl_virt's
// pmem=0 device (768 MiB) and QEMU 10's device with 512 MiB of ram beside
// its pmem. Both read auto_online_blocks "online" and have endpoint
// decoder2.0 in mode "none" (so its mode write has no undo); both windows
// start at 0x110000000 (memory34).
var ramFixtures = []struct {
	bare, movable string
	size          uint64
}{
	{"cxlv-ram-bare", "cxlv-ram-movable", 768 << 20},
	{"qemu-ram-bare", "qemu-ram-movable", 512 << 20},
}

// ramWrites is the create sequence of a RAM region of size on mem0 with
// auto_online_blocks set to auto for the bind and restored after it.
func ramWrites(fs sysfs.FS, auto string, size uint64) []want {
	cxl := func(p, v string) writer.Op { return op(fs, "bus/cxl/devices/"+p, v) }
	autoPath := "devices/system/memory/auto_online_blocks"
	unbind := op(fs, "bus/cxl/drivers/cxl_region/unbind", "region0")
	return []want{
		{autoPath, auto, []writer.Op{op(fs, autoPath, "online")}},
		{"bus/cxl/devices/decoder0.0/create_ram_region", "region0", []writer.Op{cxl("decoder0.0/delete_region", "region0")}},
		{"bus/cxl/devices/region0/interleave_granularity", "256", nil},
		{"bus/cxl/devices/region0/interleave_ways", "1", nil},
		{"bus/cxl/devices/region0/size", hex(size), nil},
		{"bus/cxl/devices/decoder2.0/mode", "ram", nil},
		{"bus/cxl/devices/decoder2.0/dpa_size", hex(size), []writer.Op{cxl("decoder2.0/dpa_size", "0")}},
		{"bus/cxl/devices/region0/target0", "decoder2.0", []writer.Op{cxl("region0/target0", "")}},
		{"bus/cxl/devices/region0/commit", "1", []writer.Op{cxl("region0/commit", "0")}},
		// Undone by offlining the region's memory (none in this tree) and
		// the unbind.
		{"bus/cxl/drivers/cxl_region/bind", "region0", []writer.Op{unbind}},
		{autoPath, "online", nil},
	}
}

func TestCreateRAMSequences(t *testing.T) {
	for _, f := range ramFixtures {
		fs := fixture(t, f.bare)
		for _, c := range []struct {
			online OnlinePolicy
			auto   string
		}{{"", "online_movable"}, {OnlineMovable, "online_movable"}, {OnlineNormal, "online_kernel"}, {OnlineNone, "offline"}} {
			t.Run(f.bare+"/"+string(c.online), func(t *testing.T) {
				rec := &writertest.Recorder{}
				res, err := manager(fs, rec, &bytes.Buffer{}).Create(context.Background(), Spec{Memdev: "mem0", Type: TypeRAM, Online: c.online})
				if err != nil {
					t.Fatal(err)
				}
				diffOps(t, rec.Ops(), writesOf(fs, ramWrites(fs, c.auto, f.size)))
				if res.Region != "region0" || res.Type != TypeRAM || res.UUID != "" || res.Size != f.size || res.NDRegion != "" ||
					res.RAMResult == nil || res.Dax != "dax0.0" || res.Online != c.online.orDefault() {
					t.Errorf("result %+v %+v", res, res.RAMResult)
				}
			})
		}
	}
}

func (c OnlinePolicy) orDefault() OnlinePolicy {
	if c == "" {
		return OnlineMovable
	}
	return c
}

// TestCreateRAMRollsBackEveryStep fails each write in turn: the completed
// ones are undone newest first, and the online policy is always put back.
func TestCreateRAMRollsBackEveryStep(t *testing.T) {
	for _, f := range ramFixtures {
		fs := fixture(t, f.bare)
		seq := ramWrites(fs, "online_movable", f.size)
		for k := 1; k <= len(seq); k++ {
			rec := &writertest.Recorder{FailAt: k}
			_, err := manager(fs, rec, &bytes.Buffer{}).Create(context.Background(), Spec{Memdev: "mem0", Type: TypeRAM})
			var rerr *Error
			if !errors.As(err, &rerr) || !errors.Is(err, writertest.ErrInjected) || rerr.RollbackErr != nil {
				t.Fatalf("%s: fail at %d: want an *Error with a complete rollback, got %v", f.bare, k, err)
			}
			diffOps(t, rec.Ops(), rolledBack(fs, seq, k))
			if ops := rec.Ops(); k > 1 && ops[len(ops)-1] != op(fs, seq[0].path, "online") {
				t.Errorf("%s: fail at %d: the online policy was not put back last: %v", f.bare, k, ops[len(ops)-1])
			}
		}
	}
}

// TestCreateRAMRefused: no free volatile capacity (the region exists), a
// pmem-only memdev (6.1), and missing drivers; nothing written.
func TestCreateRAMRefused(t *testing.T) {
	rec := &writertest.Recorder{}
	_, err := manager(fixture(t, "cxlv-ram-movable"), rec, &bytes.Buffer{}).Create(context.Background(), Spec{Memdev: "mem0", Type: TypeRAM})
	if err == nil || !strings.Contains(err.Error(), "no free endpoint decoder") && !strings.Contains(err.Error(), "no free ram capacity") || len(rec.Ops()) != 0 {
		t.Errorf("RAM region on a used memdev: %v, wrote %v", err, rec.Ops())
	}
	// The pmem path on a ram-only memdev says what to do.
	_, err = manager(fixture(t, "cxlv-ram-bare"), rec, &bytes.Buffer{}).Create(context.Background(), Spec{Memdev: "mem0"})
	if err == nil || !strings.Contains(err.Error(), "no persistent capacity") || len(rec.Ops()) != 0 {
		t.Errorf("pmem region on a ram memdev: %v, wrote %v", err, rec.Ops())
	}
}

// destroyRAMWrites is the destroy of a *-ram-movable region0 of size: its
// blocks (from memory34, 0x110000000) offlined, then the region.
func destroyRAMWrites(fs sysfs.FS, size uint64) []want {
	var seq []want
	for id := 34; id < 34+int(size>>27); id++ {
		state := fmt.Sprintf("devices/system/memory/memory%d/state", id)
		seq = append(seq, want{state, "offline", []writer.Op{op(fs, state, "online_movable")}})
	}
	return append(seq, []want{
		{"bus/cxl/drivers/cxl_region/unbind", "region0", nil},
		{"bus/cxl/devices/region0/commit", "0", nil},
		{"bus/cxl/devices/region0/target0", "", nil},
		{"bus/cxl/devices/decoder2.0/dpa_size", "0", nil},
		{"bus/cxl/devices/decoder0.0/delete_region", "region0", nil},
	}...)
}

func TestDestroyRAMRegion(t *testing.T) {
	for _, f := range ramFixtures {
		fs := fixture(t, f.movable)
		seq := destroyRAMWrites(fs, f.size)
		rec := &writertest.Recorder{}
		if _, err := manager(fs, rec, &bytes.Buffer{}).DestroyRegion("region0", DestroyOptions{}); !errors.Is(err, cxlverr.ErrBusy) ||
			!strings.Contains(err.Error(), "of memory online") || len(rec.Ops()) != 0 {
			t.Fatalf("without --force: %v, wrote %v; want the online memory refused and no write", err, rec.Ops())
		}
		if _, err := manager(fs, rec, &bytes.Buffer{}).DestroyRegion("region0", DestroyOptions{Force: true}); err != nil {
			t.Fatal(err)
		}
		diffOps(t, rec.Ops(), writesOf(fs, seq))

		// remove --force tears it down the same way.
		rec = &writertest.Recorder{}
		if _, err := manager(fs, rec, &bytes.Buffer{}).Teardown("mem0", DestroyOptions{Force: true}); err != nil {
			t.Fatal(err)
		}
		diffOps(t, rec.Ops(), writesOf(fs, seq))
	}
}

// TestDestroyRAMCannotOffline: a block the kernel will not offline (EBUSY),
// or an unbind that fails, puts every block offlined so far back online in
// its zone, and the one-line error says nothing was changed.
func TestDestroyRAMCannotOffline(t *testing.T) {
	fs := fixture(t, "cxlv-ram-movable")
	seq := destroyRAMWrites(fs, 768<<20)
	for _, k := range []int{1, 3, 6, 7} { // the 1st, 3rd and 6th block; the unbind
		rec := &writertest.Recorder{FailAt: k, FailErr: syscall.EBUSY}
		_, err := manager(fs, rec, &bytes.Buffer{}).DestroyRegion("region0", DestroyOptions{Force: true})
		if !errors.Is(err, syscall.EBUSY) || !strings.HasSuffix(err.Error(), "nothing was changed") || strings.Contains(err.Error(), "\n") {
			t.Errorf("fail at %d: %v", k, err)
		}
		if k <= 6 && !strings.Contains(err.Error(), fmt.Sprintf("memory%d of region0 cannot be offlined", 33+k)) {
			t.Errorf("fail at %d: the error does not name memory%d: %v", k, 33+k, err)
		}
		diffOps(t, rec.Ops(), rolledBack(fs, seq, k))
	}
}

// TestCommitHintUnderHypervisor: a commit refused with ENXIO names the
// hypervisor bit when the CPU of the system written to reports one in its
// cpuinfo, the missing targets otherwise (no cpuinfo included). The systems
// are the captured ones and, while their trees hold no cpuinfo yet
// (test/vm/guest/capture.sh captures it from now on), this machine's.
func TestCommitHintUnderHypervisor(t *testing.T) {
	scenarios, err := os.ReadDir(fixturetest.Dir(""))
	if err != nil {
		t.Fatal(err)
	}
	systems := []host.Root{host.New(sysfs.FS{}, host.DefaultProc, host.DefaultDebugfs)}
	for _, s := range scenarios {
		systems = append(systems, hostfixture.Root(t, s.Name()))
	}
	hypervisorFlag := regexp.MustCompile(`(?m)^flags\s*:.*\bhypervisor\b`)
	for _, h := range systems {
		cpuinfo := h.Proc("cpuinfo")
		werr := &writer.WriteError{Path: h.Sys().Path("bus", "cxl", "devices", "region0", "commit"), Value: "1", Err: syscall.ENXIO}
		want := "the region is missing targets"
		if b, err := os.ReadFile(cpuinfo); err == nil && hypervisorFlag.Match(b) {
			want = hypervisorHint
		}
		if got := hintFor(werr, h); got != want {
			t.Errorf("%s: hint %q; want %q", cpuinfo, got, want)
		}
	}
}

// TestSettleBlocks: blocks the kernel onlined otherwise than asked are put
// into the asked state, each with an undo that puts it back (the blocks of
// cxlv-ram-movable: memory34-39, online movable).
func TestSettleBlocks(t *testing.T) {
	fs := fixture(t, "cxlv-ram-movable")
	st, err := fs.RAMState(sysfs.Region{Name: "region0", Resource: nil}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Blocks) != 6 {
		t.Fatalf("blocks %+v", st.Blocks)
	}
	state := func(id int) string { return fmt.Sprintf("devices/system/memory/memory%d/state", id) }
	for _, c := range []struct {
		p    OnlinePolicy
		each []string // writes per block
	}{
		{OnlineMovable, nil},
		{OnlineNormal, []string{"offline", "online_kernel"}},
		{OnlineNone, []string{"offline"}},
	} {
		rec := &writertest.Recorder{}
		tr := &tx{w: rec}
		if err := manager(fs, rec, &bytes.Buffer{}).settleBlocks(tr, st.Blocks, c.p); err != nil {
			t.Fatal(err)
		}
		var want []writer.Op
		for id := 34; id <= 39; id++ {
			for _, v := range c.each {
				want = append(want, op(fs, state(id), v))
			}
		}
		diffOps(t, rec.Ops(), want)
		// The rollback puts every block back online movable, newest first.
		n := len(want)
		if err := tr.rollback(); err != nil {
			t.Fatal(err)
		}
		var back []writer.Op
		for id := 39; id >= 34; id-- {
			for i := len(c.each) - 1; i >= 0; i-- {
				v := "online_movable"
				if c.each[i] != "offline" {
					v = "offline"
				}
				back = append(back, op(fs, state(id), v))
			}
		}
		diffOps(t, rec.Ops()[n:], back)
	}
}

// TestSettleBlocksOnlinedMeanwhile: a block read offline that kmem's probe
// onlines before cxlvctl does (the blocks of cxlv-ram-movable are online
// movable by then) fails cxlvctl's write with EINVAL; a block that holds
// the policy is settled, with nothing to undo, one that does not fails.
func TestSettleBlocksOnlinedMeanwhile(t *testing.T) {
	fs := fixture(t, "cxlv-ram-movable")
	st, err := fs.RAMState(sysfs.Region{Name: "region0"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	early := slices.Clone(st.Blocks[:1])
	early[0].State, early[0].Zones = sysfs.BlockOffline, "Movable Normal"
	for _, c := range []struct {
		p       OnlinePolicy
		failErr error
		ok      bool
	}{
		{OnlineMovable, syscall.EINVAL, true},
		{OnlineMovable, syscall.EBUSY, false},
		{OnlineNormal, syscall.EINVAL, false},
	} {
		rec := &writertest.Recorder{FailAt: 1, FailErr: c.failErr}
		tr := &tx{w: rec}
		err := manager(fs, rec, &bytes.Buffer{}).settleBlocks(tr, early, c.p)
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, c.failErr)) {
			t.Errorf("%s, write failing with %v: %v", c.p, c.failErr, err)
		}
		if len(tr.undos) != 0 {
			t.Errorf("%s: undos after a failed write", c.p)
		}
	}
}

// TestUndoWaitsForKmemProbe: the undo of a RAM region's bind offlines only
// once kmem's probe holds the policy (cxlv-ram-movable: region0's blocks
// online movable), and gives up waiting at the timeout otherwise, still
// offlining and releasing, and says it timed out.
func TestUndoWaitsForKmemProbe(t *testing.T) {
	fs := fixture(t, "cxlv-ram-movable")
	for _, c := range []struct {
		p    OnlinePolicy
		done bool
	}{
		{OnlineMovable, true},
		{OnlineNormal, false},
	} {
		rec := &writertest.Recorder{}
		m := manager(fs, rec, &bytes.Buffer{})
		m.Timeout = 20 * pollInterval
		var done []bool
		m.Progress = func(e Event) { done = append(done, e.Done) }
		released := false
		err := m.offlineThen("region0", c.p, func(*tx) error { released = true; return nil })
		if c.done && err != nil || !c.done && !errors.Is(err, cxlverr.ErrTimeout) {
			t.Errorf("%s: %v; want a timeout %v", c.p, err, !c.done)
		}
		if len(done) == 0 || done[len(done)-1] != c.done {
			t.Errorf("%s: wait events %v; want done %v", c.p, done, c.done)
		}
		if n := len(rec.Ops()); n != 6 || !released {
			t.Errorf("%s: %d offline writes, released %v; want 6, true", c.p, n, released)
		}
	}
}

// TestUndoWaitFailsOnReadError: a block that cannot be looked at (here a
// link loop, ELOOP; EACCES or EIO on a host) is not a block still to come:
// the wait fails at once, naming the file, and nothing is offlined or
// released.
func TestUndoWaitFailsOnReadError(t *testing.T) {
	dir := fixturetest.Copy(t, filepath.Join("..", "test", "fixtures", "cxlv-ram-movable"))
	fs, err := sysfs.NewFS(filepath.Join(dir, "sys"))
	if err != nil {
		t.Fatal(err)
	}
	block := fs.MemoryPath("memory36")
	if err := os.RemoveAll(block); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("memory36", block); err != nil {
		t.Fatal(err)
	}
	rec := &writertest.Recorder{}
	m := manager(fs, rec, &bytes.Buffer{})
	m.Timeout = 10 * time.Second
	released := false
	start := time.Now()
	err = m.offlineThen("region0", OnlineMovable, func(*tx) error { released = true; return nil })
	if !errors.Is(err, syscall.ELOOP) || !strings.Contains(err.Error(), filepath.Join(block, "state")) {
		t.Fatalf("got %v, want ELOOP naming %s/state", err, block)
	}
	if elapsed := time.Since(start); elapsed > m.Timeout/2 {
		t.Errorf("failed after %v: waited for the read error to go away", elapsed)
	}
	if len(rec.Ops()) != 0 || released {
		t.Errorf("%d writes, released %v after a failed wait; want none", len(rec.Ops()), released)
	}
}

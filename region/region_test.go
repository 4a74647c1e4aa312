package region

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/internal/hostfixture"
	"github.com/cxlv/cxlv/sysfs"
	"github.com/cxlv/cxlv/writer"
	"github.com/cxlv/cxlv/writer/writertest"
)

// fixture opens a sysfs tree captured from a VM by test/vm/capture-fixtures.sh.
func fixture(t *testing.T, scenario string) sysfs.FS {
	t.Helper()
	fs, err := sysfs.NewFS(filepath.Join("..", "test", "fixtures", scenario, "sys"))
	if err != nil {
		t.Fatalf("fixture %s: %v", scenario, err)
	}
	return fs
}

// uuids returns predictable uuids: ...0001, ...0002, ...
func uuids() func() string {
	n := 0
	return func() string {
		n++
		return fmt.Sprintf("00000000-0000-4000-8000-%012d", n)
	}
}

func uuidN(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }

// manager works on a captured tree: the recorder performs nothing, so
// waits are skipped and new names predicted.
func manager(fs sysfs.FS, w writer.Writer, tools *bytes.Buffer) *Manager {
	return &Manager{Host: hostfixture.Of(fs), W: w, Simulate: true, NewUUID: uuids(), Tools: PrintTools{DryRun: &writer.DryRun{Out: tools}}}
}

// want is one expected write and the writes that undo it.
type want struct {
	path, value string
	undo        []writer.Op
}

func op(fs sysfs.FS, path, value string) writer.Op {
	return writer.Op{Path: fs.Path(strings.Split(path, "/")...), Value: value}
}

// regionWrites is the create sequence of a 512 MiB region on QEMU's mem0
// (endpoint decoder2.0, mode "none", so its mode write has no undo).
func regionWrites(fs sysfs.FS) []want { return pmemRegionWrites(fs, 512<<20) }

// pmemRegionWrites is the create sequence of a pmem region of size on
// mem0 (endpoint decoder2.0, mode "none").
func pmemRegionWrites(fs sysfs.FS, size uint64) []want {
	cxl := func(p, v string) writer.Op { return op(fs, "bus/cxl/devices/"+p, v) }
	return []want{
		{"bus/cxl/devices/decoder0.0/create_pmem_region", "region0", []writer.Op{cxl("decoder0.0/delete_region", "region0")}},
		{"bus/cxl/devices/region0/interleave_granularity", "256", nil},
		{"bus/cxl/devices/region0/interleave_ways", "1", nil},
		{"bus/cxl/devices/region0/uuid", uuidN(1), nil},
		{"bus/cxl/devices/region0/size", hex(size), nil},
		{"bus/cxl/devices/decoder2.0/mode", "pmem", nil},
		{"bus/cxl/devices/decoder2.0/dpa_size", hex(size), []writer.Op{cxl("decoder2.0/dpa_size", "0")}},
		{"bus/cxl/devices/region0/target0", "decoder2.0", []writer.Op{cxl("region0/target0", "")}},
		{"bus/cxl/devices/region0/commit", "1", []writer.Op{cxl("region0/commit", "0")}},
		{"bus/cxl/drivers/cxl_region/bind", "region0", []writer.Op{op(fs, "bus/cxl/drivers/cxl_region/unbind", "region0")}},
	}
}

// namespaceWrites is the sequence of a namespace on the seeds of nd
// region0; claim is pfn0.0 (fsdax) or dax0.0 (devdax).
func namespaceWrites(fs sysfs.FS, holderClass, claim, driver string) []want {
	return namespaceWritesOf(fs, holderClass, claim, driver, 512<<20)
}

// namespaceWritesOf is namespaceWrites for a namespace of size.
func namespaceWritesOf(fs sysfs.FS, holderClass, claim, driver string, size uint64) []want {
	nd := func(p, v string) writer.Op { return op(fs, "bus/nd/devices/"+p, v) }
	return []want{
		{"bus/nd/devices/namespace0.0/uuid", uuidN(2), []writer.Op{nd("namespace0.0/size", "0")}},
		{"bus/nd/devices/namespace0.0/size", strconv.FormatUint(size, 10), nil},
		{"bus/nd/devices/namespace0.0/holder_class", holderClass, []writer.Op{nd("namespace0.0/holder_class", "")}},
		{"bus/nd/devices/" + claim + "/uuid", uuidN(3), []writer.Op{nd(claim+"/namespace", "")}},
		{"bus/nd/devices/" + claim + "/mode", "pmem", nil},
		{"bus/nd/devices/" + claim + "/namespace", "namespace0.0", nil},
		{"bus/nd/drivers/" + driver + "/bind", claim, []writer.Op{op(fs, "bus/nd/drivers/"+driver+"/unbind", claim)}},
	}
}

func writesOf(fs sysfs.FS, seq []want) []writer.Op {
	out := make([]writer.Op, len(seq))
	for i, w := range seq {
		out[i] = op(fs, w.path, w.value)
	}
	return out
}

// rolledBack is what a recorder failing at step k (1-based) must hold: the
// writes up to and including the failed one, then the undos of the
// completed ones, newest first.
func rolledBack(fs sysfs.FS, seq []want, k int) []writer.Op {
	return append(writesOf(fs, seq[:k]), undosOf(seq[:k-1])...)
}

// undosOf is the undos of the steps done, newest first.
func undosOf(done []want) []writer.Op {
	var out []writer.Op
	for i := len(done) - 1; i >= 0; i-- {
		out = append(out, done[i].undo...)
	}
	return out
}

func diffOps(t *testing.T, got, want []writer.Op) {
	t.Helper()
	n := max(len(got), len(want))
	for i := 0; i < n; i++ {
		var g, w string
		if i < len(got) {
			g = got[i].String()
		}
		if i < len(want) {
			w = want[i].String()
		}
		if g != w {
			t.Errorf("write %d:\n got  %s\n want %s", i+1, g, w)
		}
	}
}

func TestCreateSequences(t *testing.T) {
	fs := fixture(t, "qemu-bare")
	cases := []struct {
		mode Mode
		seq  []want
		dev  string
	}{
		{ModeNone, regionWrites(fs), ""},
		{ModeFsdax, append(regionWrites(fs), namespaceWrites(fs, "pfn", "pfn0.0", "nd_pmem")...), "/dev/pmem0"},
		{ModeDevdax, append(regionWrites(fs), namespaceWrites(fs, "dax", "dax0.0", "dax_pmem")...), "/dev/dax0.0"},
	}
	for _, c := range cases {
		t.Run(string(c.mode), func(t *testing.T) {
			rec := &writertest.Recorder{}
			res, err := manager(fs, rec, &bytes.Buffer{}).Create(context.Background(), Spec{Memdev: "mem0", Namespace: c.mode})
			if err != nil {
				t.Fatal(err)
			}
			diffOps(t, rec.Ops(), writesOf(fs, c.seq))
			if res.Region != "region0" || res.UUID != uuidN(1) || res.Size != 512<<20 ||
				res.EndpointDecoder != "decoder2.0" || res.RootDecoder != "decoder0.0" || res.NDRegion != "region0" {
				t.Errorf("result %+v", res)
			}
			if c.dev != "" && (len(res.Namespaces) != 1 || res.Namespaces[0].BlockDev+res.Namespaces[0].CharDev != c.dev ||
				res.Namespaces[0].UUID != uuidN(3) || res.Namespaces[0].RawUUID != uuidN(2)) {
				t.Errorf("namespaces %+v, want one with %s, uuid %s (claim), raw uuid %s", res.Namespaces, c.dev, uuidN(3), uuidN(2))
			}
		})
	}
}

// TestCreateRollsBackEveryStep fails each write of region + namespace in
// turn and checks that exactly the completed steps are undone, in reverse.
func TestCreateRollsBackEveryStep(t *testing.T) {
	fs := fixture(t, "qemu-bare")
	for _, c := range []struct {
		mode Mode
		seq  []want
	}{
		{ModeFsdax, append(regionWrites(fs), namespaceWrites(fs, "pfn", "pfn0.0", "nd_pmem")...)},
		{ModeDevdax, append(regionWrites(fs), namespaceWrites(fs, "dax", "dax0.0", "dax_pmem")...)},
	} {
		for k := 1; k <= len(c.seq); k++ {
			t.Run(fmt.Sprintf("%s/fail-at-%d", c.mode, k), func(t *testing.T) {
				rec := &writertest.Recorder{FailAt: k}
				_, err := manager(fs, rec, &bytes.Buffer{}).Create(context.Background(), Spec{Memdev: "mem0", Namespace: c.mode})
				var rerr *Error
				if !errors.As(err, &rerr) || !errors.Is(err, writertest.ErrInjected) {
					t.Fatalf("want an *Error wrapping the injected failure, got %v", err)
				}
				if rerr.RollbackErr != nil || !strings.Contains(err.Error(), "nothing was left behind") {
					t.Errorf("rollback incomplete: %v", err)
				}
				diffOps(t, rec.Ops(), rolledBack(fs, c.seq, k))
			})
		}
	}
}

// TestRollbackKeepsGoing: an undo that fails does not stop the others, and
// the error says what was left behind.
func TestRollbackKeepsGoing(t *testing.T) {
	fs := fixture(t, "qemu-bare")
	seq := regionWrites(fs)
	// Fail the commit (9th write); the first undo (target0 "") is the 10th.
	rec := &failAt{fail: map[int]bool{9: true, 10: true}}
	m := &Manager{Host: hostfixture.Of(fs), W: rec, Simulate: true, NewUUID: uuids()}
	_, err := m.Create(context.Background(), Spec{Memdev: "mem0"})
	var rerr *Error
	if !errors.As(err, &rerr) || rerr.RollbackErr == nil {
		t.Fatalf("want an incomplete rollback, got %v", err)
	}
	if !strings.Contains(err.Error(), "rollback incomplete") || !strings.Contains(err.Error(), "region0/target0") {
		t.Errorf("error does not name the failed undo: %v", err)
	}
	diffOps(t, rec.ops, rolledBack(fs, seq, 9))
}

// failAt is a writer that fails the given writes (1-based) and records all.
type failAt struct {
	fail map[int]bool
	ops  []writer.Op
}

func (f *failAt) Write(path, value string) error {
	f.ops = append(f.ops, writer.Op{Path: path, Value: value})
	if f.fail[len(f.ops)] {
		return &writer.WriteError{Path: path, Value: value, Err: writertest.ErrInjected}
	}
	return nil
}

func TestCreateWithFilesystem(t *testing.T) {
	fs := fixture(t, "qemu-bare")
	var tools bytes.Buffer
	dir := t.TempDir()
	rec := &writertest.Recorder{}
	res, err := manager(fs, rec, &tools).Create(context.Background(),
		Spec{Memdev: "mem0", Namespace: ModeFsdax, Filesystem: "ext4", MountDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	want := "mkfs.ext4 -q -F -b 4096 /dev/pmem0\nmount -o dax /dev/pmem0 " + dir + "\n"
	if tools.String() != want {
		t.Errorf("tools ran:\n%s\nwant:\n%s", tools.String(), want)
	}
	if res.Filesystem != "ext4" || res.MountDir != dir {
		t.Errorf("result %+v", res)
	}
}

func TestCreateUsesGivenUUIDAndSize(t *testing.T) {
	fs := fixture(t, "qemu-bare")
	rec := &writertest.Recorder{}
	const u = "5C76A256-33C1-42AE-AD37-CEFD6C858F01"
	res, err := manager(fs, rec, &bytes.Buffer{}).Create(context.Background(), Spec{Memdev: "mem0", UUID: u, Size: 256 << 20})
	if err != nil {
		t.Fatal(err)
	}
	seq := regionWrites(fs)
	seq[3].value = strings.ToLower(u)
	seq[4].value = "0x10000000"
	seq[6].value = "0x10000000"
	diffOps(t, rec.Ops(), writesOf(fs, seq))
	if res.UUID != strings.ToLower(u) {
		t.Errorf("uuid %s", res.UUID)
	}
}

// TestCreateRefusesBadInput: each refusal comes before any write.
func TestCreateRefusesBadInput(t *testing.T) {
	fs := fixture(t, "qemu-bare")
	dir := t.TempDir()
	for _, c := range []struct {
		spec    Spec
		invalid bool
		msg     string
	}{
		{Spec{}, true, "no memdev"},
		{Spec{Memdev: "mem0", Size: 100 << 20}, true, "region size 100M is not a multiple of 256M"},
		{Spec{Memdev: "mem0", UUID: "not-a-uuid"}, true, "invalid uuid"},
		{Spec{Memdev: "mem0", UUID: "00000000-0000-0000-0000-000000000000"}, true, "nil uuid"},
		{Spec{Memdev: "mem0", Namespace: "btt"}, true, "unknown namespace mode"},
		{Spec{Memdev: "mem0", Filesystem: "xfs", MountDir: dir}, true, "needs an fsdax namespace"},
		{Spec{Memdev: "mem0", Namespace: ModeFsdax, Filesystem: "btrfs", MountDir: dir}, true, "unknown filesystem"},
		{Spec{Memdev: "mem0", Namespace: ModeFsdax, Filesystem: "xfs"}, true, "needs --mount"},
		{Spec{Memdev: "mem0", Namespace: ModeFsdax, Filesystem: "xfs", MountDir: filepath.Join(dir, "nope")}, true, "not a directory"},
		{Spec{Memdev: "mem0", MountDir: dir}, true, "--mount needs --fs"},
		{Spec{Memdev: "mem7"}, false, "memdev mem7 not found"},
	} {
		rec := &writertest.Recorder{}
		_, err := manager(fs, rec, &bytes.Buffer{}).Create(context.Background(), c.spec)
		if err == nil || !strings.Contains(err.Error(), c.msg) || errors.Is(err, cxlverr.ErrInvalid) != c.invalid {
			t.Errorf("%+v: got %v, want %q (invalid input: %v)", c.spec, err, c.msg, c.invalid)
		}
		if len(rec.Ops()) != 0 {
			t.Errorf("%+v: wrote %v before refusing", c.spec, rec.Ops())
		}
	}
}

func TestParseUUID(t *testing.T) {
	for in, want := range map[string]string{
		"5C76A256-33C1-42AE-AD37-CEFD6C858F01":   "5c76a256-33c1-42ae-ad37-cefd6c858f01",
		" 5c76a256-33c1-42ae-ad37-cefd6c858f01 ": "5c76a256-33c1-42ae-ad37-cefd6c858f01",
		"5c76a25633c142aead37cefd6c858f01":       "",
		"5c76a256-33c1-42ae-ad37-cefd6c858f0g":   "",
		"5c76a256-33c1-42ae-ad37-cefd6c858f0":    "",
		"5c76a256+33c1-42ae-ad37-cefd6c858f01":   "",
		"00000000-0000-0000-0000-000000000000":   "",
	} {
		got, err := ParseUUID(in)
		if got != want || (err == nil) != (want != "") {
			t.Errorf("ParseUUID(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if u := newUUID(); u[14] != '4' || !strings.ContainsRune("89ab", rune(u[19])) {
		t.Errorf("newUUID %s is not version 4, variant 1", u)
	}
	if _, err := ParseUUID(newUUID()); err != nil {
		t.Error(err)
	}
}

// FuzzParseUUID: whatever is accepted is the canonical form, and stays so.
func FuzzParseUUID(f *testing.F) {
	f.Add("5c76a256-33c1-42ae-ad37-cefd6c858f01")
	f.Add("00000000-0000-0000-0000-000000000000")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseUUID(s)
		if err != nil {
			return
		}
		if len(u) != 36 || strings.ToLower(u) != u {
			t.Fatalf("ParseUUID(%q) = %q: not canonical", s, u)
		}
		if again, err := ParseUUID(u); err != nil || again != u {
			t.Fatalf("ParseUUID(%q) = %q, %v: not stable", u, again, err)
		}
	})
}

func TestHints(t *testing.T) {
	fs := fixture(t, "qemu-bare")
	for _, c := range []struct {
		attr  string
		errno error
		hint  string
		open  bool
	}{
		{"bus/cxl/devices/decoder2.0/dpa_size", syscall.ENOSPC, "less free pmem capacity", false},
		{"bus/cxl/devices/region0/uuid", syscall.EBUSY, "already has this uuid", false},
		{"bus/cxl/devices/region0/commit", syscall.EACCES, "as root", false},
		{"bus/cxl/devices/region0/commit", syscall.EBUSY, "", false},
		{"bus/cxl/drivers/cxl_region/bind", syscall.ENOENT, "the driver is not loaded", true},
	} {
		err := &Error{Op: "region create", Err: &writer.WriteError{Open: c.open, Path: fs.Path(c.attr), Value: "x", Err: c.errno}}
		if got := hintFor(err.Err, hostfixture.Of(fs)); got == "" && c.hint != "" || !strings.Contains(got, c.hint) || c.hint == "" && got != "" {
			t.Errorf("%s %v: hint %q, want %q", c.attr, c.errno, got, c.hint)
		}
	}
}

// TestCreateOnBusyMemdev: the only endpoint decoder is in use.
func TestCreateOnBusyMemdev(t *testing.T) {
	fs := fixture(t, "qemu-region-fsdax")
	rec := &writertest.Recorder{}
	_, err := manager(fs, rec, &bytes.Buffer{}).Create(t.Context(), Spec{Memdev: "mem0"})
	if err == nil || len(rec.Ops()) != 0 {
		t.Fatalf("create on a busy memdev: %v, wrote %v", err, rec.Ops())
	}
	t.Log(err)
}

// cancelAfter is a writer that records every write and cancels its context,
// as a signal would, once the n-th write is done.
type cancelAfter struct {
	writertest.Recorder
	n      int
	cancel context.CancelCauseFunc
}

var errTestSignal = errors.New("interrupted by a test signal")

func (c *cancelAfter) Write(path, value string) error {
	err := c.Recorder.Write(path, value)
	if len(c.Ops()) == c.n {
		c.cancel(errTestSignal)
	}
	return err
}

// interruptedAfter is what a create interrupted after k completed writes
// must leave in the recorder: those writes, then their undos, newest first.
func interruptedAfter(fs sysfs.FS, seq []want, k int) []writer.Op {
	return append(writesOf(fs, seq[:k]), undosOf(seq[:k])...)
}

// TestCreateInterruptedRollsBack cancels the context after each write in
// turn (Ctrl-C): the next write does not happen, the error carries the
// cause, and everything done so far is undone, even after the last write:
// a signal before the create returned undoes it.
func TestCreateInterruptedRollsBack(t *testing.T) {
	type interruptCase struct {
		fs   sysfs.FS
		spec Spec
		seq  []want
		last int // the last write after which a cancel still interrupts
	}
	qemu := fixture(t, "qemu-bare")
	pmemSeq := append(regionWrites(qemu), namespaceWrites(qemu, "pfn", "pfn0.0", "nd_pmem")...)
	cases := []interruptCase{{qemu, Spec{Memdev: "mem0", Namespace: ModeFsdax}, pmemSeq, len(pmemSeq)}}
	for _, f := range ramFixtures {
		fs := fixture(t, f.bare)
		seq := ramWrites(fs, "online_movable", f.size)
		cases = append(cases, interruptCase{fs, Spec{Memdev: "mem0", Type: TypeRAM}, seq, len(seq)})
	}
	for _, c := range cases {
		for k := 1; k <= c.last; k++ {
			ctx, cancel := context.WithCancelCause(t.Context())
			w := &cancelAfter{n: k, cancel: cancel}
			_, err := manager(c.fs, w, &bytes.Buffer{}).Create(ctx, c.spec)
			var rerr *Error
			if !errors.As(err, &rerr) || !errors.Is(err, errTestSignal) || rerr.RollbackErr != nil {
				t.Fatalf("%s after write %d: want an *Error with the cause and a complete rollback, got %v", c.spec.Type, k, err)
			}
			want := interruptedAfter(c.fs, c.seq, k)
			if n := len(c.seq); c.spec.Type == TypeRAM && k >= n-1 {
				// From the bind on, a tree with no memory to wait
				// for runs to the end, which puts the online policy
				// back itself and then notices: the rest is undone.
				want = append(writesOf(c.fs, c.seq), undosOf(c.seq[1:n-1])...)
			}
			diffOps(t, w.Ops(), want)
		}
	}
}

// waitFor ends with a *cxlverr.TimeoutError naming what was still pending when its
// deadline passes, and with the cancel cause when ctx ends otherwise, even
// if nothing is pending any more.
func TestWaitForEnds(t *testing.T) {
	m := &Manager{Timeout: 20 * time.Millisecond}
	err := m.waitFor(t.Context(), "the probe", func() (string, error) { return "still probing", nil })
	var te *cxlverr.TimeoutError
	if !errors.As(err, &te) || te.Pending != "still probing" || te.What != "the probe" {
		t.Errorf("deadline: %v", err)
	}
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(errTestSignal)
	err = m.waitFor(ctx, "the probe", func() (string, error) { return "", nil })
	if !errors.Is(err, errTestSignal) || err.Error() != errTestSignal.Error()+" while waiting for the probe" {
		t.Errorf("cancelled: %v", err)
	}
}

// A region over an interleave set: ways and the root's granularity, the
// whole size, then each endpoint's share of the DPA and its position, in
// position order (libcxl's create_region), one undo each.
func TestInterleavedRegionSteps(t *testing.T) {
	fs := fixture(t, "cxlv-bare")
	m := manager(fs, &writertest.Recorder{}, nil)
	p := plan{mode: TypePmem, region: "region0", uuid: uuidN(1), size: 4 << 30,
		root:      sysfs.Decoder{Name: "decoder0.0", InterleaveGranularity: 4096},
		endpoints: []sysfs.Decoder{{Name: "decoder5.0", Mode: "none"}, {Name: "decoder3.0", Mode: TypePmem}, {Name: "decoder6.0", Mode: "none"}, {Name: "decoder4.0", Mode: TypeRAM}}}
	var got []string
	for _, s := range m.regionSteps(p) {
		got = append(got, fmt.Sprintf("%s=%s undo %d", strings.TrimPrefix(s.path, fs.Path("bus", "cxl", "devices")+"/"), s.value, len(s.undo)))
	}
	want := []string{
		"decoder0.0/create_pmem_region=region0 undo 1", "region0/interleave_granularity=4096 undo 0",
		"region0/interleave_ways=4 undo 0", "region0/uuid=" + uuidN(1) + " undo 0", "region0/size=0x100000000 undo 0",
		"decoder5.0/mode=pmem undo 0", "decoder5.0/dpa_size=0x40000000 undo 1", "region0/target0=decoder5.0 undo 1",
		"decoder3.0/dpa_size=0x40000000 undo 1", "region0/target1=decoder3.0 undo 1",
		"decoder6.0/mode=pmem undo 0", "decoder6.0/dpa_size=0x40000000 undo 1", "region0/target2=decoder6.0 undo 1",
		"decoder4.0/mode=pmem undo 1", "decoder4.0/dpa_size=0x40000000 undo 1", "region0/target3=decoder4.0 undo 1",
		"region0/commit=1 undo 1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("steps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

package virt

import (
	"errors"
	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/units"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cxlv/cxlv/host"
	"github.com/cxlv/cxlv/internal/hostfixture"
	"github.com/cxlv/cxlv/writer"
	"github.com/cxlv/cxlv/writer/writertest"
)

// Without the module there is nothing to write to: the error names the
// module, matches ErrNotSupported, and nothing is written.
func TestModuleNotLoaded(t *testing.T) {
	rec := &writertest.Recorder{}
	c := &Control{Host: hostfixture.Root(t, "qemu-bare"), W: rec}
	_, err := c.Create(CreateSpec{Memstart: 4 * units.GiB, Memsize: units.GiB, Pmem: true})
	if !errors.Is(err, cxlverr.ErrNotSupported) || !strings.Contains(err.Error(), "modprobe cxl_virt") {
		t.Errorf("Create error = %v; want module cxl_virt not loaded", err)
	}
	if _, err := c.Remove("cxlv0", false); !errors.Is(err, cxlverr.ErrNotSupported) {
		t.Errorf("Remove error = %v; want module cxl_virt not loaded", err)
	}
	if ops := rec.Ops(); len(ops) != 0 {
		t.Errorf("wrote %v", ops)
	}
}

// Bad requests are refused before looking at the system.
func TestCreateInvalidWritesNothing(t *testing.T) {
	rec := &writertest.Recorder{}
	c := &Control{Host: hostfixture.Root(t, "qemu-bare"), W: rec}
	for _, spec := range []CreateSpec{{Memsize: units.GiB}, {Memstart: 4 * units.GiB, Memsize: units.MiB}} {
		if _, err := c.Create(spec); !errors.Is(err, cxlverr.ErrInvalid) {
			t.Errorf("Create(%+v) = %v; want cxlverr.ErrInvalid", spec, err)
		}
	}
	if _, err := c.Remove("mem0", false); !errors.Is(err, cxlverr.ErrInvalid) {
		t.Errorf("Remove(mem0) = %v; want cxlverr.ErrInvalid", err)
	}
	if ops := rec.Ops(); len(ops) != 0 {
		t.Errorf("wrote %v", ops)
	}
}

// Root refused by debugfs (lockdown) retries on the sysfs control file;
// anyone else is told to run as root.
func TestWriteFallsBackOnEPERM(t *testing.T) {
	rec := &writertest.Recorder{FailAt: 1, FailErr: syscall.EPERM}
	c := &Control{W: rec, Euid: 0}
	f := Files{Dir: "/dbg", Fallback: "/sys/bus/cxl_virt"}
	if err := c.write(f, "create", "x"); err != nil {
		t.Fatalf("write = %v; want the fallback to succeed", err)
	}
	want := []writer.Op{{Path: "/dbg/create", Value: "x"}, {Path: "/sys/bus/cxl_virt/create", Value: "x"}}
	if got := rec.Ops(); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("writes = %v; want %v", got, want)
	}
	rec = &writertest.Recorder{FailAt: 1, FailErr: syscall.EPERM}
	c = &Control{W: rec, Euid: 1000}
	if err := c.write(f, "create", "x"); !errors.Is(err, syscall.EPERM) || len(rec.Ops()) != 1 {
		t.Errorf("non-root write = %v after %v; want EPERM and no retry", err, rec.Ops())
	}
}

// Each errno becomes one line naming the cause (the module's last_error
// when it wrote one) and the fix.
func TestExplain(t *testing.T) {
	lastError := filepath.Join(t.TempDir(), "last_error")
	for _, tc := range []struct {
		op     string
		errno  syscall.Errno
		reason string
		euid   int
		says   []string
	}{
		{"create", syscall.EACCES, "", 1000, []string{"run as root"}},
		{"create", syscall.EPERM, "", 0, []string{"lockdown"}},
		{"create", syscall.EADDRNOTAVAIL, "create: range 0x100000000-0x13fffffff is not all reserved memory", 0, []string{"create: range 0x100000000-0x13fffffff is not all reserved", "memmap="}},
		{"create", syscall.EEXIST, "", 0, []string{"already used", "cxlvctl ranges"}},
		{"create", syscall.EBUSY, "range overlaps System RAM", 0, []string{"overlaps System RAM", "cxlvctl ranges"}},
		{"create", syscall.ENOSPC, "", 0, []string{"too small", "larger --size"}},
		{"create", syscall.EMFILE, "", 0, []string{"all 16 device slots", "cxlvctl remove"}},
		{"create", syscall.EINVAL, "memstart=0x100080000 is not 1 MiB aligned", 0, []string{"rejected by cxl_virt: memstart=0x100080000 is not 1 MiB aligned"}},
		{"create", syscall.ERANGE, "", 0, []string{"rejected by cxl_virt", "see dmesg"}},
		{"remove", syscall.EBUSY, "remove: cxlv0 has region0", 0, []string{"remove: cxlv0 has region0", "remove --force"}},
		{"remove", syscall.ENODEV, "", 0, []string{"no such device", "cxlvctl list"}},
		{"create", syscall.EOPNOTSUPP, "create: ways=4: interleave sets are not built by this version of cxl_virt; nothing created", 0,
			[]string{"create: ways=4: interleave sets are not built by this version of cxl_virt; nothing created (`cxlvctl version` names the module)"}},
		{"remove", syscall.ENOENT, "", 0, []string{"modprobe cxl_virt"}},
		{"release", syscall.ENOENT, "release: 0x180000000 is not the start of a borrowed range", 0, []string{"release: 0x180000000 is not the start", "cxlvctl ranges"}},
		{"release", syscall.EBUSY, "", 0, []string{"device is on the range", "remove --release"}},
		{"create", syscall.ENOMEM, "create: borrow: 8192 MiB would leave under the floor of 740 MiB free (MemAvailable 5621 MiB); at most 4880 MiB can be borrowed now", 0,
			[]string{"create: borrow: 8192 MiB would leave under the floor of 740 MiB free (MemAvailable 5621 MiB); at most 4880 MiB can be borrowed now: ask for a smaller --size", "memmap="}},
		{"create", syscall.ENOMEM, "", 0, []string{"not enough System RAM", "ask for a smaller --size", "memmap="}},
		{"create", syscall.ENOMEM, "create: borrow: no 2048 MiB run of System RAM above 4 GiB went offline (largest run that did: 1024 MiB; 3 tried); ask for less, or boot with memmap=SIZE$START", 0,
			[]string{"create: borrow: no 2048 MiB run", "ask for less, or boot with memmap=SIZE$START"}},
	} {
		if err := os.WriteFile(lastError, []byte(tc.reason+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		c := &Control{Euid: tc.euid}
		// The module's own refusals are write errors; a missing control
		// file fails the open.
		werr := &writer.WriteError{Path: "/x", Value: "v", Err: tc.errno, Open: tc.op == "remove" && tc.errno == syscall.ENOENT}
		err := c.explain(tc.op, Files{LastError: lastError}, werr)
		msg := err.Error()
		for _, s := range tc.says {
			if !strings.Contains(msg, s) {
				t.Errorf("%s %v: %q lacks %q", tc.op, tc.errno, msg, s)
			}
		}
		if tc.errno == syscall.EOPNOTSUPP && !errors.Is(err, cxlverr.ErrNotSupported) {
			t.Errorf("%s %v: %q is not cxlverr.ErrNotSupported (exit 4)", tc.op, tc.errno, msg)
		}
		if strings.Contains(msg, "\n") || strings.Contains(msg, tc.op+": "+tc.op) || !errors.Is(err, tc.errno) {
			t.Errorf("%s %v: %q is not one line wrapping the errno", tc.op, tc.errno, msg)
		}
	}
}

func TestFilesCxlv(t *testing.T) {
	c := &Control{Host: hostfixture.Root(t, "cxlv-bare")}
	dbg := c.Host.Debugfs()
	f, err := c.Files()
	if err != nil {
		t.Fatal(err)
	}
	want := Files{
		Dir:       filepath.Join(dbg, "cxl", "cxlv"),
		Fallback:  c.Host.Sys().Path("bus", "cxl_virt"),
		LastError: c.Host.Sys().Path("bus", "cxl_virt", "last_error"),
	}
	if f != want {
		t.Errorf("Files() = %+v; want %+v", f, want)
	}
	// Without debugfs the module's sysfs control files serve alone.
	c.Host = host.New(c.Host.Sys(), c.Host.Proc(), t.TempDir())
	f, err = c.Files()
	want = Files{Dir: want.Fallback, LastError: want.LastError}
	if err != nil || f != want {
		t.Errorf("Files() without debugfs = %+v, %v; want %+v", f, err, want)
	}
}

// The exact writes: a create string (dry run: no device to name) and the
// remove string of an existing device; nothing for an unknown one.
func TestCreateRemoveWrites(t *testing.T) {
	rec := &writertest.Recorder{}
	c := &Control{Host: hostfixture.Root(t, "cxlv-bare"), W: rec, DryRun: true}
	dbg := c.Host.Debugfs()
	made, err := c.Create(CreateSpec{Memstart: 0x120000000, Memsize: 512 * units.MiB, Pmem: true, Serial: 7})
	if err != nil || made.Name != "" {
		t.Fatalf("dry-run Create = %+v, %v", made, err)
	}
	if _, err := c.Remove("cxlv0", false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Remove("cxlv3", false); err == nil || !strings.Contains(err.Error(), "no device cxlv3") {
		t.Errorf("Remove(cxlv3) = %v; want no device cxlv3", err)
	}
	want := []writer.Op{
		{Path: filepath.Join(dbg, "cxl", "cxlv", "create"), Value: "memstart=4831838208,memsize=536870912,cxltype=3,pmem=1,serial=7"},
		{Path: filepath.Join(dbg, "cxl", "cxlv", "remove"), Value: "cxlv_dev_id=0"},
	}
	got := rec.Ops()
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("writes = %v\nwant     %v", got, want)
	}
}

// A write the kernel took but that made no new device is reported, not
// passed off as success.
func TestCreateWithoutNewDevice(t *testing.T) {
	c := &Control{Host: hostfixture.Root(t, "cxlv-bare"), W: &writertest.Recorder{}}
	if _, err := c.Create(CreateSpec{Memstart: 0x120000000, Memsize: 512 * units.MiB, Pmem: true}); err == nil ||
		!strings.Contains(err.Error(), "no new cxlvN appeared") {
		t.Errorf("Create = %v; want no new cxlvN appeared", err)
	}
}

// A refused remove carries the errno (for the exit code) and, when the
// module left no reason (empty last_error), a generic one.
func TestRemoveBusy(t *testing.T) {
	c := &Control{Host: hostfixture.Root(t, "cxlv-bare"), W: &writertest.Recorder{FailAt: 1, FailErr: syscall.EBUSY}}
	_, err := c.Remove("cxlv0", false)
	if !errors.Is(err, syscall.EBUSY) || !strings.Contains(err.Error(), "remove: device busy: destroy its regions") {
		t.Errorf("Remove = %v", err)
	}
}

func TestWaitMemdevReady(t *testing.T) {
	c := &Control{Host: hostfixture.Root(t, "cxlv-bare")}
	var states []string
	memdev, err := c.WaitMemdev(t.Context(), "cxlv0", func(s string) { states = append(states, s) })
	if err != nil || memdev != "mem0" || len(states) != 1 || states[0] != "ready" {
		t.Errorf("WaitMemdev = %q, %v after %v; want mem0 at once", memdev, err, states)
	}
	if _, err := c.WaitMemdev(t.Context(), "cxlv4", nil); err == nil {
		t.Error("WaitMemdev(cxlv4) succeeded")
	}
}

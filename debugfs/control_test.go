package debugfs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cxlv/cxlv/sysfs"
	"github.com/cxlv/cxlv/writer"
)

func qemuBare(t *testing.T) sysfs.FS {
	t.Helper()
	fs, err := sysfs.NewFS(filepath.Join("..", "test", "fixtures", "qemu-bare", "sys"))
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// Without the module there is nothing to write to: the error names the
// module, matches ErrNotSupported, and nothing is written.
func TestModuleNotLoaded(t *testing.T) {
	rec := &writer.Recorder{}
	c := &Control{Sys: qemuBare(t), DebugfsRoot: t.TempDir(), W: rec}
	_, err := c.Create(CreateSpec{Memstart: 4 * GiB, Memsize: GiB, Pmem: true})
	if !errors.Is(err, sysfs.ErrNotSupported) || !strings.Contains(err.Error(), "modprobe cxl_virt") {
		t.Errorf("Create error = %v; want module cxl_virt not loaded", err)
	}
	if err := c.Remove("cxlv0"); !errors.Is(err, sysfs.ErrNotSupported) {
		t.Errorf("Remove error = %v; want module cxl_virt not loaded", err)
	}
	if ops := rec.Ops(); len(ops) != 0 {
		t.Errorf("wrote %v", ops)
	}
}

// Bad requests are refused before looking at the system.
func TestCreateInvalidWritesNothing(t *testing.T) {
	rec := &writer.Recorder{}
	c := &Control{Sys: qemuBare(t), W: rec}
	for _, spec := range []CreateSpec{{Memsize: GiB}, {Memstart: 4 * GiB, Memsize: MiB}} {
		if _, err := c.Create(spec); !errors.Is(err, ErrInvalid) {
			t.Errorf("Create(%+v) = %v; want ErrInvalid", spec, err)
		}
	}
	if err := c.Remove("mem0"); !errors.Is(err, ErrInvalid) {
		t.Errorf("Remove(mem0) = %v; want ErrInvalid", err)
	}
	if ops := rec.Ops(); len(ops) != 0 {
		t.Errorf("wrote %v", ops)
	}
}

// Root refused by debugfs (lockdown) retries on the sysfs control file;
// anyone else is told to run as root.
func TestWriteFallsBackOnEPERM(t *testing.T) {
	rec := &writer.Recorder{FailAt: 1, FailErr: syscall.EPERM}
	c := &Control{W: rec, Euid: 0}
	if err := c.write("/dbg/create", "/sys/bus/cxl_virt/create", "x"); err != nil {
		t.Fatalf("write = %v; want the fallback to succeed", err)
	}
	want := []writer.Op{{Path: "/dbg/create", Value: "x"}, {Path: "/sys/bus/cxl_virt/create", Value: "x"}}
	if got := rec.Ops(); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("writes = %v; want %v", got, want)
	}
	rec = &writer.Recorder{FailAt: 1, FailErr: syscall.EPERM}
	c = &Control{W: rec, Euid: 1000}
	if err := c.write("/dbg/create", "/sys/bus/cxl_virt/create", "x"); !errors.Is(err, syscall.EPERM) || len(rec.Ops()) != 1 {
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
		{"create", syscall.EADDRNOTAVAIL, "range 0x100000000-0x13fffffff is not Reserved", 0, []string{"is not Reserved", "memmap="}},
		{"create", syscall.EEXIST, "", 0, []string{"already used", "cxlvctl ranges"}},
		{"create", syscall.EBUSY, "range overlaps System RAM", 0, []string{"overlaps System RAM", "cxlvctl ranges"}},
		{"create", syscall.ENOSPC, "", 0, []string{"too small", "larger --size"}},
		{"create", syscall.EMFILE, "", 0, []string{"all 16 device slots", "cxlvctl remove"}},
		{"create", syscall.EINVAL, "memstart=0x100080000 is not 1 MiB aligned", 0, []string{"rejected by cxl_virt: memstart=0x100080000 is not 1 MiB aligned"}},
		{"create", syscall.ERANGE, "", 0, []string{"rejected by cxl_virt", "see dmesg"}},
		{"remove", syscall.EBUSY, "cxlv0 has region0", 0, []string{"cxlv0 has region0", "remove --force"}},
		{"remove", syscall.ENODEV, "", 0, []string{"no such device", "cxlvctl list"}},
		{"remove", syscall.ENOENT, "", 0, []string{"modprobe cxl_virt"}},
	} {
		if err := os.WriteFile(lastError, []byte(tc.reason+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		c := &Control{Euid: tc.euid}
		werr := &writer.WriteError{Path: "/x", Value: "v", Err: tc.errno}
		err := c.explain(tc.op, Files{LastError: lastError}, werr)
		msg := err.Error()
		for _, s := range tc.says {
			if !strings.Contains(msg, s) {
				t.Errorf("%s %v: %q lacks %q", tc.op, tc.errno, msg, s)
			}
		}
		if strings.Contains(msg, "\n") || !errors.Is(err, tc.errno) {
			t.Errorf("%s %v: %q is not one line wrapping the errno", tc.op, tc.errno, msg)
		}
	}
}

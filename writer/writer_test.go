package writer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

func TestKernelWritesValueAndNewlineOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "uuid")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	const uuid = "1b4e28ba-2fa1-11d2-883f-0016d3cca427"
	if err := (Kernel{}).Write(path, uuid); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// A 6.1 region's uuid store accepts exactly 37 bytes.
	if string(got) != uuid+"\n" || len(got) != 37 {
		t.Fatalf("wrote %q (%d bytes), want the uuid and a newline", got, len(got))
	}
}

func TestKernelReportsErrnoOnce(t *testing.T) {
	// /dev/full refuses every write with ENOSPC, like a kernel store would.
	err := (Kernel{}).Write("/dev/full", "0x40000000")
	var werr *WriteError
	if !errors.As(err, &werr) || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("got %v, want a WriteError wrapping ENOSPC", err)
	}
	if want := `write "0x40000000" to /dev/full: no space left on device`; err.Error() != want {
		t.Fatalf("got %q, want %q", err.Error(), want)
	}
}

// A file that cannot be opened (an unloaded driver's bind) is a
// *WriteError too, worded as the open's own error was.
func TestKernelReportsOpenFailure(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bind")
	err := (Kernel{}).Write(path, "region0")
	var werr *WriteError
	if !errors.As(err, &werr) || !werr.Open || werr.Path != path || !errors.Is(err, syscall.ENOENT) || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("got %#v, want an open WriteError wrapping ENOENT", err)
	}
	if want := "open " + path + ": no such file or directory"; err.Error() != want {
		t.Fatalf("got %q, want %q", err.Error(), want)
	}
}

// Each kernel write is one write(2): on a SEQPACKET socket every write(2)
// is one message, so the reader sees one message per Write, each whole.
func TestWriteOnceIsOneWrite(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[1])
	values := []string{"1b4e28ba-2fa1-11d2-883f-0016d3cca427", "0x40000000", ""}
	for _, v := range values {
		if err := writeOnce(fds[0], v); err != nil {
			t.Fatal(err)
		}
	}
	unix.Close(fds[0])
	var got []string
	buf := make([]byte, 4096)
	for {
		n, err := unix.Read(fds[1], buf)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		got = append(got, string(buf[:n]))
	}
	if len(got) != len(values) {
		t.Fatalf("%d writes gave %d messages %q", len(values), len(got), got)
	}
	for i, v := range values {
		if got[i] != v+"\n" {
			t.Errorf("message %d is %q, want %q", i, got[i], v+"\n")
		}
	}
}

// A short write is an error and is not retried: a non-blocking pipe takes
// what fits and the rest is never written.
func TestWriteOnceShortWriteIsAnError(t *testing.T) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	size, err := unix.FcntlInt(uintptr(p[1]), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		t.Fatal(err)
	}
	err = writeOnce(p[1], strings.Repeat("x", size))
	if want := fmt.Sprintf("short write: %d of %d bytes", size, size+1); !errors.Is(err, io.ErrShortWrite) || err.Error() != want {
		t.Fatalf("got %v, want %q", err, want)
	}
	buf := make([]byte, size+1)
	if n, err := unix.Read(p[0], buf); err != nil || n != size {
		t.Fatalf("pipe holds %d bytes (%v), want %d", n, err, size)
	}
	if n, err := unix.Read(p[0], buf); err != unix.EAGAIN {
		t.Fatalf("read %d bytes more (%v): the rest was written again", n, err)
	}
}

func TestDryRunPrintsShellCommands(t *testing.T) {
	var out bytes.Buffer
	d := &DryRun{Out: &out}
	_ = d.Write("/sys/bus/cxl/devices/region0/commit", "1")
	_ = d.Write("/sys/bus/cxl/devices/endpoint2/decoder2.0/target", "")
	_ = d.Write("/x", "it's")
	want := "echo 1 > /sys/bus/cxl/devices/region0/commit\n" +
		"echo '' > /sys/bus/cxl/devices/endpoint2/decoder2.0/target\n" +
		"echo 'it'\\''s' > /x\n"
	if out.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", out.String(), want)
	}
}

func TestDryRunJSONRecordsThePlan(t *testing.T) {
	var out bytes.Buffer
	d := &DryRun{Out: &out, JSON: true}
	if d.Steps() == nil {
		t.Error("Steps of an empty plan is nil")
	}
	_ = d.Write("/sys/bus/cxl/devices/endpoint2/decoder2.0/target", "")
	_ = d.Command([]string{"mkfs.xfs", "-f", "/dev/pmem0"})
	if out.Len() != 0 {
		t.Fatalf("printed a step: %s", out.String())
	}
	steps := d.Steps()
	if len(steps) != 2 || steps[0].Value == nil || *steps[0].Value != "" || steps[0].Command != nil ||
		steps[1].Path != "" || steps[1].Command[0] != "mkfs.xfs" {
		t.Fatalf("steps: %+v", steps)
	}
}

// A tracefs instance is a mkdir and an rmdir: Kernel does them and names
// the errno, DryRun plans them as commands.
func TestDirs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "instance")
	var k Dirs = Kernel{}
	if err := k.Mkdir(dir); err != nil {
		t.Fatal(err)
	}
	err := k.Mkdir(dir)
	if !errors.Is(err, syscall.EEXIST) || err.Error() != "mkdir "+dir+": file exists" {
		t.Errorf("second mkdir: %v, want EEXIST named once", err)
	}
	if err := k.Rmdir(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("rmdir left %s: %v", dir, err)
	}
	var out bytes.Buffer
	var d Dirs = &DryRun{Out: &out}
	if d.Mkdir("/t/instances/a") != nil || d.Rmdir("/t/instances/a") != nil {
		t.Fatal("dry run failed")
	}
	if want := "mkdir /t/instances/a\nrmdir /t/instances/a\n"; out.String() != want {
		t.Errorf("dry run printed %q, want %q", out.String(), want)
	}
}

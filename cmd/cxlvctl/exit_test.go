package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cxlv/cxlv/cmd/cxlvctl/exitcode"
)

// Every failure is one line on stderr, nothing on stdout, and the exit
// code the package comment documents.
func TestErrorsAndExitCodes(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		args    []string
		code    int
		says    string
	}{
		{"qemu-bare", []string{"create", "--memstart", "2GG", "--size", "1G"}, exitcode.Invalid, `invalid size "2GG": unknown unit "GG"`},
		{"qemu-bare", []string{"create", "--memstart", "4G", "--size", "2Gb"}, exitcode.Invalid, `unknown unit "Gb"`},
		{"qemu-bare", []string{"create", "--size", "1G"}, exitcode.NotSupported, "modprobe cxl_virt"},
		{"qemu-bare", []string{"create", "--memstart", "4G"}, exitcode.Invalid, "--size is required"},
		{"qemu-bare", []string{"create", "--size", "1000M", "--borrow"}, exitcode.Invalid, "not a multiple of 256M"},
		{"qemu-bare", []string{"release"}, exitcode.Invalid, "exactly one range start"},
		{"qemu-bare", []string{"release", "6Q"}, exitcode.Invalid, `unknown unit "Q"`},
		{"qemu-bare", []string{"release", "6G"}, exitcode.NotSupported, "modprobe cxl_virt"},
		{"cxlv-bare", []string{"remove", "--release", "cxlv0"}, exitcode.Invalid, "reserved at boot, not borrowed"},
		{"qemu-bare", []string{"create", "--memstart", "4G", "--size", "100M"}, exitcode.Invalid, "too small"},
		{"qemu-bare", []string{"create", "--memstart", "4G", "--size", "1G", "extra"}, exitcode.Invalid, "takes no arguments"},
		{"qemu-bare", []string{"create", "--memstart", "4G", "--size", "1G", "--pmem"}, exitcode.NotSupported, "module cxl_virt is not loaded (run: modprobe cxl_virt)"},
		{"qemu-bare", []string{"remove", "cxlv0"}, exitcode.NotSupported, "modprobe cxl_virt"},
		{"qemu-bare", []string{"remove", "mem0"}, exitcode.Invalid, `invalid device name "mem0": no cxl_virt device has memdev mem0; use cxlvN`},
		{"qemu-bare", []string{"remove", "memory0"}, exitcode.Invalid, `invalid device name "memory0"`},
		{"cxlv-bare", []string{"remove", "mem7"}, exitcode.NotFound, "memdev mem7 not found: no cxl_virt device has it"},
		{"qemu-bare", []string{"remove"}, exitcode.Invalid, "needs device names"},
		{"qemu-bare", []string{"list", "--bogus"}, exitcode.Invalid, "unknown flag --bogus for 'cxlvctl list'"},
		{"qemu-bare", []string{"list", "extra"}, exitcode.NotFound, "cxl_virt device or memdev extra not found"},
		{"qemu-bare", []string{"list", "-m", "mem9"}, exitcode.NotFound, "memdev mem9 not found"},
		{"qemu-bare", []string{"list", "-r", "region0"}, exitcode.NotFound, "region region0 not found"},
		{"qemu-bare", []string{"list", "-d", "decoder9.0"}, exitcode.NotFound, "decoder decoder9.0 not found"},
		{"qemu-bare", []string{"ranges", "--size", "1X"}, exitcode.Invalid, `unknown unit "X"`},
		{"qemu-bare", []string{"node-tables", "--memstart", "4G"}, exitcode.Invalid, "node-tables needs --output FILE"},
		{"qemu-bare", []string{"node-tables", "-o", "t.cpio", "--memstart", "4G"}, exitcode.Invalid, "--memstart and --size go together"},
		{"qemu-bare", []string{"node-tables", "-o", "t.cpio", "extra"}, exitcode.Invalid, "takes no arguments"},
		{"qemu-bare", []string{"node-tables", "-o", "t.cpio", "--memstart", "4G", "--size", "1X"}, exitcode.Invalid, `unknown unit "X"`},
		{"", []string{"--sysfs-root", "/nonexistent-sysfs", "list"}, exitcode.Failure, "sysfs root"},
		{"qemu-bare", []string{"node-tables", "-o", "."}, exitcode.Invalid, "is a directory: give the archive's file name, e.g. -o "},
		{"qemu-bare", []string{"node-tables", "-o", "main.go"}, exitcode.Invalid, "main.go exists: add --force to overwrite it"},
		{"qemu-bare", []string{"--dry-run", "node-tables", "-o", "main.go"}, exitcode.Invalid, "main.go exists: add --force"},
		{"cxlv-poison-fsdax", []string{"event", "inject", "cxlv0"}, exitcode.Invalid, "event inject needs --type general-media, dram, memory-module"},
		{"cxlv-bare", []string{"create", "--pmem"}, exitcode.Invalid, "--size is required"},
		{"cxlv-bare", []string{"create", "--memstart", "4.5G", "--size", "1G"}, exitcode.Invalid, `"4.5G": a size in G is a whole number: use 4608M`},
		{"cxlv-region-fsdax", []string{"namespace", "create", "--region", "region0", "--mode", "sector"}, exitcode.Invalid, "--mode sector: namespace create needs --mode fsdax, devdax or raw"},
		{"qemu-bare", []string{"ranges", "--size", "0"}, exitcode.Invalid, "--size 0: too small: give the size of the memmap= range to suggest"},
		{"qemu-bare", []string{"list", "-q"}, exitcode.Invalid, "unknown flag -q for 'cxlvctl list' (see `cxlvctl list --help`)"},
	} {
		out, errOut, rc := cxlvctl(t, tc.fixture, tc.args...)
		if rc != tc.code || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.says) {
			t.Errorf("cxlvctl %q: exit %d, stdout %q, stderr %q; want exit %d and one line saying %q",
				tc.args, rc, out, errOut, tc.code, tc.says)
		}
	}
}

// Without a CXL bus, list prints what `cxl list` prints (nothing, [] for
// JSON) and exits 0, with the hint on stderr; commands that need the bus
// fail with it.
func TestEmptySysfsIsNotSupported(t *testing.T) {
	root := t.TempDir()
	for _, tc := range []struct {
		args []string
		rc   int
		out  string
	}{
		{[]string{"list", "--json"}, exitcode.OK, "[]\n"},
		{[]string{"list"}, exitcode.OK, ""},
		{[]string{"list", "--no-headers"}, exitcode.OK, ""},
		{[]string{"region", "list"}, exitcode.NotSupported, ""},
	} {
		var out, errOut strings.Builder
		rc := run(t.Context(), append([]string{"cxlvctl", "--sysfs-root", root}, tc.args...), &out, &errOut)
		hint := "CXL bus not available: module cxl_virt is not loaded (run: modprobe cxl_virt)"
		if rc != tc.rc || out.String() != tc.out ||
			!strings.Contains(errOut.String(), hint) || strings.Count(errOut.String(), "\n") != 1 {
			t.Errorf("%q on a sysfs without CXL: exit %d, stdout %q, stderr %q; want exit %d, %q and %q",
				tc.args, rc, out.String(), errOut.String(), tc.rc, tc.out, hint)
		}
	}
}

func TestRangesOnQemu(t *testing.T) {
	// The QEMU VM was booted without memmap=: every Reserved range of its
	// /proc/iomem is the firmware's (it is in /sys/firmware/memmap too), so
	// none is offered, and with no RAM above 4 GiB nothing is suggested.
	out, errOut, rc := cxlvctl(t, "qemu-bare", "ranges", "--json")
	if rc != 0 || strings.TrimSpace(out) != `{
  "reserved": []
}` {
		t.Errorf("ranges --json: exit %d, %q, %q", rc, out, errOut)
	}
}

func TestCxlvCommands(t *testing.T) {
	// remove of an unknown device: exit 6, nothing written.
	if out, errOut, rc := cxlvctl(t, "cxlv-bare", "remove", "cxlv5"); rc != exitcode.NotFound || out != "" ||
		!strings.Contains(errOut, "no device cxlv5") {
		t.Errorf("remove cxlv5: exit %d, %q, %q", rc, out, errOut)
	}
	// Without debugfs, remove goes through the module's sysfs control file.
	sys := filepath.Join(fixtureDir("cxlv-bare"), "sys")
	var out, errOut strings.Builder
	argv := []string{"cxlvctl", "--sysfs-root", sys, "--debugfs-root", t.TempDir(), "--dry-run", "remove", "cxlv0"}
	want := "echo cxlv_dev_id=0 > " + filepath.Join(sys, "bus", "cxl_virt", "remove") + "\n"
	if rc := run(t.Context(), argv, &out, &errOut); rc != 0 || out.String() != want {
		t.Errorf("remove without debugfs: exit %d, %q, %q; want %q", rc, out.String(), errOut.String(), want)
	}
	if out, _, rc := cxlvctl(t, "cxlv-bare", "__complete", "remove", ""); rc != 0 || out != "cxlv0\n" {
		t.Errorf("__complete remove: exit %d, %q; want cxlv0", rc, out)
	}
	if out, _, rc := cxlvctl(t, "cxlv-bare", "__complete", "region", "create", "--device", ""); rc != 0 || out != "cxlv0\n" {
		t.Errorf("__complete region create --device: exit %d, %q; want cxlv0", rc, out)
	}
}

// --dry-run prints the exact write as a shell command and writes nothing.
func TestDryRunCreateRemove(t *testing.T) {
	dbg := t.TempDir()
	ctl := filepath.Join(dbg, "cxl", "cxlv")
	if err := os.MkdirAll(ctl, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"create", "remove", "release"} {
		if err := os.WriteFile(filepath.Join(ctl, f), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	sys := filepath.Join(fixtureDir("cxlv-bare"), "sys")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"create", "--memstart", "0x120000000", "--size", "512M", "--pmem", "--serial", "7", "--wait"},
			"echo memstart=4831838208,memsize=536870912,cxltype=3,pmem=1,serial=7 > " + filepath.Join(ctl, "create") + "\n"},
		// The serial as the module reads serial=: 010 is ten, not octal 8.
		{[]string{"create", "--memstart", "0x120000000", "--size", "512M", "--serial", "010"},
			"echo memstart=4831838208,memsize=536870912,cxltype=3,pmem=0,serial=10 > " + filepath.Join(ctl, "create") + "\n"},
		{[]string{"create", "--memstart", "0x120000000", "--size", "512M", "--serial", "0x3E8"},
			"echo memstart=4831838208,memsize=536870912,cxltype=3,pmem=0,serial=1000 > " + filepath.Join(ctl, "create") + "\n"},
		{[]string{"create", "--memstart", "0x120000000", "--size", "512M", "--read-latency", "250ns", "--write-latency", "0.3us",
			"--read-bandwidth", "30G", "--write-bandwidth", "25000M"},
			"echo memstart=4831838208,memsize=536870912,cxltype=3,pmem=0,read_latency=250,write_latency=300,read_bandwidth=30000,write_bandwidth=25000 > " + filepath.Join(ctl, "create") + "\n"},
		{[]string{"remove", "cxlv0"}, "echo cxlv_dev_id=0 > " + filepath.Join(ctl, "remove") + "\n"},
		{[]string{"create", "--size", "1G", "--borrow", "--pmem"}, "echo memsize=1073741824,cxltype=3,pmem=1,borrow=1 > " + filepath.Join(ctl, "create") + "\n"},
		{[]string{"release", "7G"}, "echo memstart=0x1c0000000 > " + filepath.Join(ctl, "release") + "\n"},
	} {
		var out, errOut strings.Builder
		argv := append([]string{"cxlvctl", "--sysfs-root", sys, "--debugfs-root", dbg, "--dry-run"}, tc.args...)
		if rc := run(t.Context(), argv, &out, &errOut); rc != 0 || out.String() != tc.want {
			t.Errorf("%q: exit %d, %q, %q; want %q", tc.args, rc, out.String(), errOut.String(), tc.want)
		}
	}
	for _, f := range []string{"create", "remove", "release"} {
		if b, _ := os.ReadFile(filepath.Join(ctl, f)); len(b) != 0 {
			t.Errorf("--dry-run wrote %q to %s", b, f)
		}
	}
}

// An interleave set that cannot be made is refused with one line that
// names the fix, exit 2, before anything is written to the kernel; one
// that can is the create string --dry-run prints.
func TestCreateInterleaveSet(t *testing.T) {
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"--ways", "3"}, "--ways 3: a set has 1, 2, 4 or 8 endpoints"},
		{[]string{"--ways", "four"}, "--ways four: a count from 1 up, e.g. --ways 2"},
		{[]string{"--ways", "0"}, "--ways 0: a count from 1 up"},
		{[]string{"--ways", "2", "--host-bridges", "4"}, "--host-bridges 4 does not divide --ways 2"},
		{[]string{"--ways", "4", "--host-bridges", "3"}, "--host-bridges 3: a set has 1, 2 or 4 host bridges"},
		{[]string{"--ways", "4", "--granularity", "3K"}, "--granularity 3K: use a power of two from 256 to 16K"},
		{[]string{"--ways", "4", "--granularity", "4Q"}, `--granularity 4Q: invalid size "4Q"`},
		{[]string{"--granularity", "4K"}, "add --ways 2, 4 or 8"},
		{[]string{"--ways", "8", "--size", "2G"}, "size 2G gives 8 ways no capacity: a set needs a ways x 256M (2G) aligned block after its 8 MiB of metadata; give --size 4G or more"},
		{[]string{"--ways", "2", "--borrow"}, "--ways 2 with --borrow: an interleave set needs a reserved range"},
	} {
		rec := recordWrites(t)
		args := append([]string{"create", "--memstart", "4G", "--size", "1G", "--pmem"}, tc.args...)
		out, errOut, rc := cxlvctl(t, "cxlv-bare", args...)
		if rc != exitcode.Invalid || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.says) || len(rec.Ops()) != 0 {
			t.Errorf("cxlvctl %q: exit %d, stdout %q, stderr %q, writes %v; want exit %d, one line saying %q, no write",
				args, rc, out, errOut, rec.Ops(), exitcode.Invalid, tc.says)
		}
	}
	// Without --memstart a set goes on a reserved range, never borrowed:
	// cxlv-bare's memmap= range has 512M free.
	rec := recordWrites(t)
	out, errOut, rc := cxlvctl(t, "cxlv-bare", "create", "--size", "1G", "--pmem", "--ways", "2")
	if says := "no reserved range has 1G free at a multiple of 512M for 2 ways: reserve one at boot with memmap="; rc != exitcode.Invalid || out != "" ||
		!strings.Contains(errOut, says) || len(rec.Ops()) != 0 {
		t.Errorf("create --size 1G --ways 2 without a range: exit %d, stdout %q, stderr %q, writes %v; want exit 2 saying %q",
			rc, out, errOut, rec.Ops(), says)
	}
	out, errOut, rc = cxlvctl(t, "cxlv-bare", "--dry-run", "create", "--memstart", "8G", "--size", "5G", "--pmem",
		"--ways", "4", "--host-bridges", "2", "--granularity", "1K")
	want := "memstart=8589934592,memsize=5368709120,cxltype=3,pmem=1,ways=4,host_bridges=2,granularity=1024"
	if rc != exitcode.OK || !strings.Contains(out, want) {
		t.Errorf("--dry-run create of an x4 set: exit %d, stdout %q, stderr %q; want the create string %q", rc, out, errOut, want)
	}
}

// A memdev names its device (a set's member, the whole set).
func TestRemoveMemdevResolvesToDevice(t *testing.T) {
	out, errOut, rc := cxlvctl(t, "cxlv-bare", "--dry-run", "remove", "mem0")
	if rc != exitcode.OK || !strings.Contains(out, "echo cxlv_dev_id=0 > ") || errOut != "" {
		t.Errorf("--dry-run remove mem0: exit %d, stdout %q, stderr %q; want cxlv0's remove string", rc, out, errOut)
	}
	rec := recordWrites(t)
	out, errOut, rc = cxlvctl(t, "cxlv-bare", "remove", "mem0")
	if rc != exitcode.OK || out != "removed cxlv0 (the device of mem0)\n" || len(rec.Ops()) != 1 || rec.Ops()[0].Value != "cxlv_dev_id=0" {
		t.Errorf("remove mem0: exit %d, stdout %q, stderr %q, writes %v; want cxlv0 removed", rc, out, errOut, rec.Ops())
	}
}

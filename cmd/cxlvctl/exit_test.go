package main

import (
	"strings"
	"testing"
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
		{"qemu-bare", []string{"create", "--memstart", "2GG", "--size", "1G"}, exitInvalid, `invalid size "2GG": unknown unit "GG"`},
		{"qemu-bare", []string{"create", "--memstart", "4G", "--size", "2Gb"}, exitInvalid, `unknown unit "Gb"`},
		{"qemu-bare", []string{"create", "--size", "1G"}, exitInvalid, "--memstart is required"},
		{"qemu-bare", []string{"create", "--memstart", "4G", "--size", "100M"}, exitInvalid, "too small"},
		{"qemu-bare", []string{"create", "--memstart", "4G", "--size", "1G", "extra"}, exitInvalid, "takes no arguments"},
		{"qemu-bare", []string{"create", "--memstart", "4G", "--size", "1G", "--pmem"}, exitNotSupported, "module cxl_virt is not loaded (run: modprobe cxl_virt)"},
		{"qemu-bare", []string{"remove", "cxlv0"}, exitNotSupported, "modprobe cxl_virt"},
		{"qemu-bare", []string{"remove", "mem0"}, exitInvalid, `invalid device name "mem0"`},
		{"qemu-bare", []string{"remove"}, exitInvalid, "exactly one device name"},
		{"qemu-bare", []string{"list", "--bogus"}, exitInvalid, "flag provided but not defined: -bogus"},
		{"qemu-bare", []string{"list", "extra"}, exitInvalid, "takes no arguments"},
		{"qemu-bare", []string{"ranges", "--size", "1X"}, exitInvalid, `unknown unit "X"`},
		{"", []string{"--sysfs-root", "/nonexistent-sysfs", "list"}, exitFailure, "sysfs root"},
	} {
		out, errOut, rc := cxlvctl(t, tc.fixture, tc.args...)
		if rc != tc.code || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.says) {
			t.Errorf("cxlvctl %q: exit %d, stdout %q, stderr %q; want exit %d and one line saying %q",
				tc.args, rc, out, errOut, tc.code, tc.says)
		}
	}
}

func TestEmptySysfsIsNotSupported(t *testing.T) {
	var out, errOut strings.Builder
	rc := run([]string{"cxlvctl", "--sysfs-root", t.TempDir(), "list"}, &out, &errOut)
	if rc != exitNotSupported || !strings.Contains(errOut.String(), "CXL bus not available") {
		t.Errorf("list on a sysfs without CXL: exit %d, %q", rc, errOut.String())
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

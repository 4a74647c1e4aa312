package main

import (
	"strings"
	"testing"

	"github.com/cxlv/cxlv/cmd/cxlvctl/exitcode"
)

// Each refusal is one line with its exit code, and nothing is written. The
// fixture (poisonFixture, 7.3) was captured with a cxl_virt that had no
// inject_event; the accepted path and 6.1's "kernel too old" run in the VM
// (cxlv-events, cxlvctl-cxlv).
func TestEventInjectRefusals(t *testing.T) {
	rec := recordWrites(t)
	for _, tc := range []struct {
		args []string
		rc   int
		says string
	}{
		{[]string{"event", "inject", "cxlv0", "--type", "cpu"}, exitcode.Invalid, `--type "cpu": use one of general-media, dram, memory-module`},
		{[]string{"event", "inject", "cxlv0", "--type", "dram", "--log", "loud"}, exitcode.Invalid, `--log "loud": use one of info, warn, fail, fatal`},
		{[]string{"event", "inject", "cxlv0", "--type", "memory-module", "--dpa", "0"}, exitcode.Invalid, "a memory-module event has no address"},
		{[]string{"event", "inject", "cxlv0", "--type", "dram", "--dpa", "0x1001"}, exitcode.Invalid, "--dpa 0x1001 is not 64-byte aligned"},
		{[]string{"event", "inject", "cxlv0", "--type", "dram", "--dpa", "1x"}, exitcode.Invalid, "--dpa 1x:"},
		{[]string{"event", "inject", "--type", "dram"}, exitcode.Invalid, "exactly one device"},
		{[]string{"event", "inject", "cxlv0", "--type", "dram", "--dpa", "256M"}, exitcode.Invalid, "--dpa 0x10000000 is outside mem0"},
		{[]string{"event", "inject", "mem3", "--type", "dram"}, exitcode.NotFound, "memdev mem3 not found"},
		{[]string{"event", "inject", "cxlv2", "--type", "dram"}, exitcode.NotFound, "cxlv2 not found"},
		{[]string{"event", "inject", "cxlv0", "--type", "general-media"}, exitcode.NotSupported, "cxl/cxlv/inject_event: mount debugfs"},
	} {
		out, errOut, rc := cxlvctl(t, poisonFixture, tc.args...)
		if rc != tc.rc || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.says) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d and one line saying %q", tc.args, rc, out, errOut, tc.rc, tc.says)
		}
	}
	if ops := rec.Ops(); len(ops) != 0 {
		t.Errorf("refused commands wrote %v", ops)
	}
}

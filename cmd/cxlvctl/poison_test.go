package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cxlv/cxlv/cmd/cxlvctl/exitcode"
)

// poisonFixture: 7.3, cxlv0 (mem0) with region0 at 0x110000000 and an
// fsdax namespace0.0, DPAs 0x1000 and 0x200000 poisoned.
const poisonFixture = "cxlv-poison-fsdax"

func TestPoisonCommands(t *testing.T) {
	rec := recordWrites(t)
	for _, tc := range []struct {
		args  []string
		out   string
		write string // the value written to mem0's debugfs file
	}{
		{[]string{"poison", "inject", "cxlv0", "--dpa", "4K"}, "inject: mem0 DPA 0x1000\n", "0x1000"},
		{[]string{"poison", "clear", "mem0", "--hpa", "0x110200000"}, "clear: mem0 DPA 0x200000 (HPA 0x110200000 in region0)\n", "0x200000"},
		// pfn0.0's data starts 6 MiB into namespace0.0.
		{[]string{"poison", "inject", "cxlv0", "--namespace", "namespace0.0", "--offset", "2M"},
			"inject: mem0 DPA 0x800000 (HPA 0x110800000 in region0)\n", "0x800000"},
	} {
		before := len(rec.Ops())
		out, errOut, rc := cxlvctl(t, poisonFixture, tc.args...)
		if rc != 0 || out != tc.out {
			t.Errorf("%q: exit %d, %q %s; want %q", tc.args, rc, out, errOut, tc.out)
			continue
		}
		ops := rec.Ops()[before:]
		if len(ops) != 1 || !strings.HasSuffix(ops[0].Path, "/debugfs/cxl/mem0/"+tc.args[1]+"_poison") || ops[0].Value != tc.write {
			t.Errorf("%q wrote %v, want %s to mem0's %s_poison", tc.args, ops, tc.write, tc.args[1])
		}
	}
}

func TestPoisonList(t *testing.T) {
	recordWrites(t)
	out, errOut, rc := cxlvctl(t, poisonFixture, "poison", "list", "cxlv0")
	want := "MEMDEV   DPA        LENGTH   HPA           REGION    SOURCE     FLAGS\n" +
		"mem0     0x1000     64       0x110001000   region0   Injected   -\n" +
		"mem0     0x200000   64       0x110200000   region0   Injected   -\n"
	if rc != 0 || out != want {
		t.Errorf("poison list: exit %d, stderr %q, table\n%s\nwant\n%s", rc, errOut, out, want)
	}
	// all: every cxl_virt device, here the one.
	if out, errOut, rc := cxlvctl(t, poisonFixture, "poison", "list", "all"); rc != 0 || out != want {
		t.Errorf("poison list all: exit %d, stderr %q, table\n%s\nwant\n%s", rc, errOut, out, want)
	}
	out, _, rc = cxlvctl(t, poisonFixture, "poison", "list", "mem0", "--json")
	var records []map[string]any
	if err := json.Unmarshal([]byte(out), &records); rc != 0 || err != nil || len(records) != 2 {
		t.Fatalf("poison list --json: exit %d, %v: %s", rc, err, out)
	}
	if r := records[1]; r["dpa"] != float64(0x200000) || r["hpa"] != float64(0x110200000) || r["region"] != "region0" ||
		r["length"] != float64(64) || r["source"] != "Injected" || r["flags"] != nil || r["overflow_time"] != nil {
		t.Errorf("record %v", r)
	}
}

// Each refusal is one line with its exit code, and nothing is written.
func TestPoisonRefusals(t *testing.T) {
	rec := recordWrites(t)
	for _, tc := range []struct {
		fixture string
		args    []string
		rc      int
		says    string
	}{
		{poisonFixture, []string{"poison", "inject", "cxlv0"}, exitcode.Invalid, "poison inject needs an address: --dpa, --hpa or --namespace with --offset"},
		{poisonFixture, []string{"poison", "inject", "cxlv0", "--dpa", "0", "--hpa", "0x110000000"}, exitcode.Invalid, "poison inject takes one address, got --dpa and --hpa"},
		{poisonFixture, []string{"poison", "clear", "cxlv0", "--namespace", "namespace0.0"}, exitcode.Invalid, "--namespace and --offset go together"},
		{poisonFixture, []string{"poison", "inject", "cxlv0", "--dpa", "1x"}, exitcode.Invalid, "--dpa 1x:"},
		{poisonFixture, []string{"poison", "inject", "cxlv0", "--dpa", "0x1008"}, exitcode.Invalid, "DPA 0x1008 is not 64-byte aligned"},
		{poisonFixture, []string{"poison", "inject", "cxlv0", "--dpa", "256M"}, exitcode.Invalid, "DPA 0x10000000 is outside mem0"},
		{poisonFixture, []string{"poison", "inject", "cxlv0", "--hpa", "0x120000000"}, exitcode.Invalid, "outside the regions of cxlv0"},
		{poisonFixture, []string{"poison", "inject", "mem3", "--dpa", "0"}, exitcode.NotFound, "memdev mem3 not found"},
		{poisonFixture, []string{"poison", "list", "cxlv0", "mem0"}, exitcode.Invalid, "poison list: mem0 is named twice (mem0)"},
		{poisonFixture, []string{"poison", "list"}, exitcode.Invalid, "poison list needs devices (cxlvN or memN), or all"},
		{poisonFixture, []string{"poison", "list", "all", "cxlv0"}, exitcode.Invalid, "all names every device; give it alone"},
		{poisonFixture, []string{"poison", "list", "cxlv0", "cxlv2"}, exitcode.NotFound, "cxlv2 not found"},
		{poisonFixture, []string{"poison", "list", "cxlv2"}, exitcode.NotFound, "cxlv2 not found"},
		{"cxlv-region-fsdax", []string{"poison", "inject", "cxlv0", "--dpa", "0"}, exitcode.NotSupported, "kernel too old: poison inject, clear and list need Linux 6.4+"},
		{"cxlv-region-fsdax", []string{"poison", "list", "mem0"}, exitcode.NotSupported, "kernel too old"},
	} {
		out, errOut, rc := cxlvctl(t, tc.fixture, tc.args...)
		if rc != tc.rc || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.says) {
			t.Errorf("%s %q: exit %d, stdout %q, stderr %q; want exit %d and one line saying %q", tc.fixture, tc.args, rc, out, errOut, tc.rc, tc.says)
		}
	}
	if ops := rec.Ops(); len(ops) != 0 {
		t.Errorf("refused commands wrote %v", ops)
	}
}

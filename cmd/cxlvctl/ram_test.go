package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/cxlv/cxlv/cmd/cxlvctl/exitcode"
	"github.com/cxlv/cxlv/cmd/cxlvctl/view"
	"github.com/cxlv/cxlv/internal/fixturetest"
)

// Trees captured from a 6.12 guest with a cxl_virt pmem=0 device whose
// memory is CPU-less node 1 (test/vm/fixture-setup): without a
// region, and with a RAM region onlined movable (dax0.0, memory34-39).

// TestRAMListMatchesDaxctl: the dax object of a RAM region carries
// daxctl list's keys and values (daxctl list of the same boot), on
// cxl_virt's device and on QEMU's.
func TestRAMListMatchesDaxctl(t *testing.T) {
	for name, size := range map[string]float64{"cxlv-ram-movable": 768 << 20, "qemu-ram-movable": 512 << 20} {
		out, errOut, rc := cxlvctl(t, name, "list", "--json")
		if rc != 0 {
			t.Fatalf("%s: list --json: exit %d: %s", name, rc, errOut)
		}
		var links []struct {
			Regions []struct {
				Region string         `json:"region"`
				Type   string         `json:"type"`
				Dax    map[string]any `json:"dax"`
			} `json:"regions"`
		}
		if err := json.Unmarshal([]byte(out), &links); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(fixtureDir(name), "daxctl-list.json"))
		if err != nil {
			t.Fatal(err)
		}
		var daxctl []map[string]any
		if err := json.Unmarshal(b, &daxctl); err != nil || len(daxctl) != 1 {
			t.Fatalf("%s: daxctl-list.json: %v", name, err)
		}
		if len(links) != 1 || len(links[0].Regions) != 1 || links[0].Regions[0].Type != "ram" || links[0].Regions[0].Dax == nil {
			t.Fatalf("%s: list --json: %s", name, out)
		}
		dax := links[0].Regions[0].Dax
		for k, v := range daxctl[0] {
			if !reflect.DeepEqual(dax[k], v) {
				t.Errorf("%s: dax %s = %v; daxctl says %v", name, k, dax[k], v)
			}
		}
		// What cxlvctl adds: bytes online, the zone and the blocks' node.
		for k, v := range map[string]any{"online_bytes": size, "offline_bytes": 0.0, "zones": []any{"Movable"},
			"memory_nodes": []any{1.0}, "memblock_size": 134217728.0} {
			if !reflect.DeepEqual(dax[k], v) {
				t.Errorf("%s: dax %s = %v; want %v", name, k, dax[k], v)
			}
		}
	}
}

func TestRAMTables(t *testing.T) {
	out, _, rc := cxlvctl(t, "cxlv-ram-movable", "list")
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	want := []string{"cxlv0", "mem0", "ram", "768M", "region0", "dax0.0", "system-ram", "-", "node", "1"}
	if rc != 0 || len(lines) != 2 || !strings.HasSuffix(strings.TrimSpace(lines[0]), "MEMORY") || !reflect.DeepEqual(strings.Fields(lines[1]), want) {
		t.Errorf("list: exit %d:\n%s\nwant the row %v", rc, out, want)
	}
	out, _, rc = cxlvctl(t, "cxlv-ram-movable", "list", "-v")
	lines = strings.Split(strings.TrimRight(out, "\n"), "\n")
	if rc != 0 || len(lines) != 2 || !strings.HasSuffix(lines[1], "node 1: 6/6 blocks online (768M Movable)") {
		t.Errorf("list -v: exit %d:\n%s\nwant the blocks and zone in MEMORY", rc, out)
	}
	out, errOut, rc := cxlvctl(t, "cxlv-ram-movable", "region", "list")
	if rc != 0 {
		t.Errorf("region list: exit %d: %s", rc, errOut)
	}
	matchLines(t, out, []string{
		`REGION +UUID +SIZE +DECODER +TARGETS +STATE +ND_REGION +NAMESPACES +MEMORY *`,
		`region0 +- +768M +decoder0.0 +decoder2.0 +commit +- +dax0.0:system-ram +node 1: 6/6 blocks online \(768M Movable\) *`,
	})
	// No RAM region, no MEMORY column.
	if out, errOut, rc := cxlvctl(t, "cxlv-ram-bare", "list"); rc != 0 || strings.Contains(out, "MEMORY") {
		t.Errorf("list without RAM regions: exit %d, %s, or a MEMORY column:\n%s", rc, errOut, out)
	}
}

// TestRAMInfo: node 1 is memory-only and holds region0's memory.
func TestRAMInfo(t *testing.T) {
	for _, name := range []string{"cxlv-ram-movable", "qemu-ram-movable"} {
		out, errOut, rc := cxlvctl(t, name, "info", "--json")
		if rc != 0 {
			t.Fatalf("%s: info: exit %d: %s", name, rc, errOut)
		}
		var info view.InfoJSON
		if err := json.Unmarshal([]byte(out), &info); err != nil {
			t.Fatal(err)
		}
		if len(info.Nodes) != 2 || info.Nodes[0].MemoryOnly || info.Nodes[0].Cores == 0 ||
			!info.Nodes[1].MemoryOnly || info.Nodes[1].Cores != 0 || !reflect.DeepEqual(info.Nodes[1].Regions, []string{"region0"}) {
			t.Errorf("%s: nodes %+v", name, info.Nodes)
		}
		for _, f := range info.Features {
			if !f.Present {
				t.Errorf("%s: 6.12 reported without %s", name, f.Name)
			}
		}
		out, errOut, rc = cxlvctl(t, name, "info")
		if rc != 0 || !regexp.MustCompile(`(?m)^1 +memory-only +0 +\S+ +20 10 +- +region0 +- +- *$`).MatchString(out) {
			t.Errorf("%s: info: exit %d, %s, table:\n%s", name, rc, errOut, out)
		}
	}
}

// TestRAMRemoveAdvice: a plain remove of a device with memory online is
// refused before any write, with the command that gives the memory back.
func TestRAMRemoveAdvice(t *testing.T) {
	out, errOut, rc := cxlvctl(t, "cxlv-ram-movable", "--dry-run", "remove", "cxlv0")
	want := "cxlvctl: remove cxlv0: region0 has 768M of memory online (dax0.0, node 1): run `cxlvctl region destroy --force region0` first (it offlines the memory), or `cxlvctl remove --force cxlv0`\n"
	if rc != exitcode.Busy || out != "" || errOut != want {
		t.Errorf("remove: exit %d, stdout %q, stderr %q; want exit %d and %q", rc, out, errOut, exitcode.Busy, want)
	}
}

// A remove that cannot read whether the device's memory is online fails
// with the read error and writes nothing; it used to go ahead.
func TestRemoveUnreadableTopology(t *testing.T) {
	dir := fixturetest.Copy(t, fixtureDir("cxlv-ram-movable"))
	fixturetest.Unreadable(t, filepath.Join(dir, "sys", "bus", "cxl", "devices", "mem0", "serial"))
	out, errOut, rc := cxlvctlAt(t, dir, "--dry-run", "remove", "cxlv0")
	if rc == 0 || out != "" || !strings.Contains(errOut, "remove cxlv0: reading whether its memory is online: ") ||
		!strings.Contains(errOut, "is a directory") {
		t.Errorf("remove: exit %d, stdout %q, stderr %q; want the read error and nothing written", rc, out, errOut)
	}
}

func TestRAMDryRuns(t *testing.T) {
	out, root := dryRun(t, "cxlv-ram-bare", "region", "create", "--device", "cxlv0", "--type", "ram", "--online", "normal")
	matchLines(t, out, []string{
		"echo online_kernel > " + root + "/devices/system/memory/auto_online_blocks",
		"echo region0 > " + root + "/bus/cxl/devices/decoder0.0/create_ram_region",
		"echo 256 > " + root + "/bus/cxl/devices/region0/interleave_granularity",
		"echo 1 > " + root + "/bus/cxl/devices/region0/interleave_ways",
		"echo 0x30000000 > " + root + "/bus/cxl/devices/region0/size",
		"echo ram > " + root + "/bus/cxl/devices/decoder2.0/mode",
		"echo 0x30000000 > " + root + "/bus/cxl/devices/decoder2.0/dpa_size",
		"echo decoder2.0 > " + root + "/bus/cxl/devices/region0/target0",
		"echo 1 > " + root + "/bus/cxl/devices/region0/commit",
		"echo region0 > " + root + "/bus/cxl/drivers/cxl_region/bind",
		"echo online > " + root + "/devices/system/memory/auto_online_blocks",
	})
	out, root = dryRun(t, "cxlv-ram-movable", "remove", "--force", "cxlv0")
	var want []string
	for _, id := range []string{"34", "35", "36", "37", "38", "39"} {
		want = append(want, "echo offline > "+root+"/devices/system/memory/memory"+id+"/state")
	}
	matchLines(t, out, append(want,
		"echo region0 > "+root+"/bus/cxl/drivers/cxl_region/unbind",
		"echo 0 > "+root+"/bus/cxl/devices/region0/commit",
		"echo '' > "+root+"/bus/cxl/devices/region0/target0",
		"echo 0 > "+root+"/bus/cxl/devices/decoder2.0/dpa_size",
		"echo region0 > "+root+"/bus/cxl/devices/decoder0.0/delete_region",
		"echo cxlv_dev_id=0 > .*/remove",
	))
}

// TestRegionCreateRAMDryRunOn61: where no root decoder offers
// create_ram_region (6.1), --dry-run prints the whole kmem path: the pmem
// region, the devdax namespace and dax0.0's move to kmem, under the online
// policy asked for.
func TestRegionCreateRAMDryRunOn61(t *testing.T) {
	out, root := dryRun(t, "cxlv-kmem-bare", "region", "create", "--memdev", "mem0", "--type", "ram")
	w := func(value, path string) string {
		return "^echo " + regexp.QuoteMeta(value) + " > " + root + "/" + regexp.QuoteMeta(path) + "$"
	}
	matchLines(t, out, []string{
		w("region0", "bus/cxl/devices/decoder0.0/create_pmem_region"),
		w("256", "bus/cxl/devices/region0/interleave_granularity"),
		w("1", "bus/cxl/devices/region0/interleave_ways"),
		"^echo " + uuidRE + " > " + root + "/bus/cxl/devices/region0/uuid$",
		w("0x30000000", "bus/cxl/devices/region0/size"),
		w("pmem", "bus/cxl/devices/decoder2.0/mode"),
		w("0x30000000", "bus/cxl/devices/decoder2.0/dpa_size"),
		w("decoder2.0", "bus/cxl/devices/region0/target0"),
		w("1", "bus/cxl/devices/region0/commit"),
		w("region0", "bus/cxl/drivers/cxl_region/bind"),
		"^echo " + uuidRE + " > " + root + "/bus/nd/devices/namespace0.0/uuid$",
		w("805306368", "bus/nd/devices/namespace0.0/size"),
		w("dax", "bus/nd/devices/namespace0.0/holder_class"),
		"^echo " + uuidRE + " > " + root + "/bus/nd/devices/dax0.0/uuid$",
		w("pmem", "bus/nd/devices/dax0.0/mode"),
		w("namespace0.0", "bus/nd/devices/dax0.0/namespace"),
		w("dax0.0", "bus/nd/drivers/dax_pmem/bind"),
		w("online_movable", "devices/system/memory/auto_online_blocks"),
		w("dax0.0", "bus/dax/drivers/device_dax/unbind"),
		w("dax0.0", "bus/dax/drivers/kmem/new_id"),
		w("offline", "devices/system/memory/auto_online_blocks"),
	})
}

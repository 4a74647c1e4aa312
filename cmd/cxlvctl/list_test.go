package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fixtureDir is a tree captured from a VM (test/fixtures/NAME).
func fixtureDir(name string) string { return filepath.Join("..", "..", "test", "fixtures", name) }

// cxlvctl runs one command line on the fixture's sysfs and procfs.
func cxlvctl(t *testing.T, fixture string, args ...string) (stdout, stderr string, rc int) {
	t.Helper()
	var out, errOut bytes.Buffer
	argv := []string{"cxlvctl"}
	if fixture != "" {
		dir := fixtureDir(fixture)
		argv = append(argv, "--sysfs-root", filepath.Join(dir, "sys"), "--proc-root", filepath.Join(dir, "proc"),
			"--debugfs-root", filepath.Join(dir, "debugfs"))
	}
	rc = run(t.Context(), append(argv, args...), &out, &errOut)
	return out.String(), errOut.String(), rc
}

var qemuFixtures = []string{"qemu-bare", "qemu-region-devdax", "qemu-region-fsdax"}

func TestListJSONMatchesCxlList(t *testing.T) {
	// 6.12 fixtures (*-ram-*): ram-capable root decoders, a ram-only
	// (cxlv) or ram+pmem (qemu) memdev, a RAM region.
	for _, name := range append(qemuFixtures, "cxlv-region-fsdax", "cxlv-ram-bare", "cxlv-ram-movable", "qemu-ram-bare", "qemu-ram-movable") {
		out, errOut, rc := cxlvctl(t, name, "list", "--json")
		if rc != 0 {
			t.Fatalf("%s: list --json: exit %d: %s", name, rc, errOut)
		}
		cxlList, err := os.ReadFile(filepath.Join(fixtureDir(name), "cxl-list-M-D-R.json"))
		if err != nil {
			t.Fatal(err)
		}
		want := 3 // mem0, decoder0.0, region0
		if strings.HasSuffix(name, "-bare") {
			want = 2
		}
		if n := crossCheck(t, []byte(out), cxlList); n != want {
			t.Errorf("%s: compared %d objects with cxl list; want %d", name, n, want)
		}
	}
}

// The nd regions and namespaces cxlvctl shows carry ndctl's keys and values
// (ndctl list -v -R -N -D of the same boot).
func TestListJSONMatchesNdctlList(t *testing.T) {
	for _, name := range []string{"qemu-region-devdax", "qemu-region-fsdax", "cxlv-region-fsdax"} {
		out, _, rc := cxlvctl(t, name, "list", "--json")
		if rc != 0 {
			t.Fatalf("%s: exit %d", name, rc)
		}
		ndctl, err := os.ReadFile(filepath.Join(fixtureDir(name), "ndctl-list.json"))
		if err != nil {
			t.Fatal(err)
		}
		if n := ndctlCheck(t, []byte(out), ndctl); n != 2 {
			t.Errorf("%s: compared %d nd objects with ndctl; want region0 and namespace0.0", name, n)
		}
	}
}

// ndctlCheck compares every nd region and active namespace of cxlvctl's
// output with `ndctl list -v -R -N` output and returns how many it compared.
func ndctlCheck(t *testing.T, ours, ndctl []byte) int {
	t.Helper()
	var links []struct {
		Regions []struct {
			NDRegion map[string]any `json:"nd_region"`
		} `json:"regions"`
	}
	if err := json.Unmarshal(ours, &links); err != nil {
		t.Fatal(err)
	}
	// ndctl prints nothing when there is no region, a flat array of regions
	// for -R -N alone, and {"dimms": …, "regions": …} with -D.
	var top any
	if len(bytes.TrimSpace(ndctl)) > 0 {
		if err := json.Unmarshal(ndctl, &top); err != nil {
			t.Fatalf("ndctl list output: %v", err)
		}
	}
	if obj, ok := top.(map[string]any); ok {
		top = obj["regions"]
	}
	regions, _ := top.([]any)
	byDev := map[string]map[string]any{}
	for _, region := range regions {
		r := region.(map[string]any)
		byDev[r["dev"].(string)] = r
		namespaces, _ := r["namespaces"].([]any)
		for _, ns := range namespaces {
			byDev[ns.(map[string]any)["dev"].(string)] = ns.(map[string]any)
		}
	}
	compared := 0
	for _, l := range links {
		for _, r := range l.Regions {
			if r.NDRegion == nil {
				continue
			}
			namespaces, _ := r.NDRegion["namespaces"].([]any)
			delete(r.NDRegion, "namespaces")
			objects := []map[string]any{r.NDRegion}
			for _, ns := range namespaces {
				objects = append(objects, ns.(map[string]any))
			}
			for _, o := range objects {
				other, ok := byDev[o["dev"].(string)]
				if !ok {
					t.Errorf("%s: not in ndctl list", o["dev"])
					continue
				}
				if dev, ok := o["chardev"]; ok {
					// ndctl nests the device-dax name in its daxregion.
					daxDev := other["daxregion"].(map[string]any)["devices"].([]any)[0].(map[string]any)
					if dev != daxDev["chardev"] {
						t.Errorf("%s: chardev %v; ndctl says %v", o["dev"], dev, daxDev["chardev"])
					}
					delete(o, "chardev")
				}
				subset(t, o["dev"].(string), o, other)
				compared++
			}
		}
	}
	return compared
}

// subset checks that every key of ours is in theirs with the same value.
func subset(t *testing.T, what string, ours, theirs map[string]any) {
	t.Helper()
	for k, v := range ours {
		if !reflect.DeepEqual(theirs[k], v) {
			t.Errorf("%s: %s = %v; ndctl says %v", what, k, v, theirs[k])
		}
	}
}

func TestListTable(t *testing.T) {
	for name, want := range map[string][]string{
		"qemu-bare":          {"-", "mem0", "pmem", "512M", "decoder0.0", "-", "-", "-", "-", "-"},
		"qemu-region-devdax": {"-", "mem0", "pmem", "512M", "decoder0.0", "region0", "region0", "namespace0.0", "devdax", "/dev/dax0.0"},
		"qemu-region-fsdax":  {"-", "mem0", "pmem", "512M", "decoder0.0", "region0", "region0", "namespace0.0", "fsdax", "/dev/pmem0"},
		"cxlv-region-fsdax":  {"cxlv0", "mem0", "pmem", "256M", "decoder0.0", "region0", "region0", "namespace0.0", "fsdax", "/dev/pmem0"},
	} {
		out, errOut, rc := cxlvctl(t, name, "list")
		if rc != 0 {
			t.Fatalf("%s: exit %d: %s", name, rc, errOut)
		}
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		if len(lines) != 2 {
			t.Fatalf("%s: list printed %q; want a header and one row", name, out)
		}
		header := strings.Fields(lines[0])
		if header[0] != "DEVICE" || header[len(header)-1] != "DEVNODE" {
			t.Errorf("%s: header %v", name, header)
		}
		if got := strings.Fields(lines[1]); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: row %v; want %v", name, got, want)
		}
		// Columns line up: every field of the row starts where its header does.
		if strings.Index(lines[0], "MEMDEV") != strings.Index(lines[1], "mem0") {
			t.Errorf("%s: columns not aligned:\n%s", name, out)
		}
	}
	out, _, rc := cxlvctl(t, "qemu-region-fsdax", "list", "-v")
	if rc != 0 || !strings.Contains(out, "SERIAL") || !strings.Contains(out, "0x5157") || !strings.Contains(out, "0000:0d:00.0") {
		t.Errorf("list -v: exit %d:\n%s", rc, out)
	}
}

func TestListCxlv(t *testing.T) {
	out, errOut, rc := cxlvctl(t, "cxlv-bare", "list", "-v")
	want := []string{"cxlv0", "mem0", "pmem", "256M", "decoder0.0", "-", "-", "-", "-", "-",
		"0x100000000", "0x43584c5600001000", "10000:01:00.0", "ready"}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if rc != 0 || len(lines) != 2 || !reflect.DeepEqual(strings.Fields(lines[1]), want) {
		t.Fatalf("list -v: exit %d, %q, %q; want the row %v", rc, out, errOut, want)
	}
	js, _, rc := cxlvctl(t, "cxlv-bare", "list", "--json")
	cxlList, err := os.ReadFile(filepath.Join(fixtureDir("cxlv-bare"), "cxl-list-M-D-R.json"))
	if err != nil || rc != 0 {
		t.Fatal(rc, err)
	}
	if n := crossCheck(t, []byte(js), cxlList); n != 2 {
		t.Errorf("compared %d objects with cxl list; want mem0 and decoder0.0", n)
	}
	for _, key := range []string{`"device": "cxlv0"`, `"memstart": 4294967296`, `"memsize": 536870912`,
		`"window_start": 4563402752`, `"device_state": "ready"`} {
		if !strings.Contains(js, key) {
			t.Errorf("list --json lacks %s", key)
		}
	}
}

// ranges on a guest booted with memmap=1G$0x100000000: the kernel merged
// it with the firmware's fffc0000-ffffffff, cxlv0 uses the first 512M.
func TestRangesCxlv(t *testing.T) {
	out, errOut, rc := cxlvctl(t, "cxlv-bare", "ranges", "--json")
	want := `{
  "reserved": [
    {
      "start": 4294967296,
      "size": 1073741824,
      "sources": [
        "iomem",
        "cmdline"
      ],
      "used_by": [
        {
          "device": "cxlv0",
          "start": 4294967296,
          "size": 536870912
        }
      ],
      "free": {
        "start": 4831838208,
        "size": 536870912
      }
    }
  ]
}
`
	if rc != 0 || out != want {
		t.Errorf("ranges --json: exit %d, %s\n%s", rc, out, errOut)
	}
	out, _, _ = cxlvctl(t, "cxlv-bare", "ranges")
	if !strings.Contains(out, "0x100000000   0x13fffffff   1G     iomem,cmdline   cxlv0     512M@0x120000000") {
		t.Errorf("ranges table:\n%s", out)
	}
}

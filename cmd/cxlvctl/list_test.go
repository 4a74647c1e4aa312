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
	rc = run(append(argv, args...), &out, &errOut)
	return out.String(), errOut.String(), rc
}

var qemuFixtures = []string{"qemu-bare", "qemu-region-devdax", "qemu-region-fsdax"}

func TestListJSONMatchesCxlList(t *testing.T) {
	for _, name := range qemuFixtures {
		out, errOut, rc := cxlvctl(t, name, "list", "--json")
		if rc != 0 {
			t.Fatalf("%s: list --json: exit %d: %s", name, rc, errOut)
		}
		cxlList, err := os.ReadFile(filepath.Join(fixtureDir(name), "cxl-list-M-D-R.json"))
		if err != nil {
			t.Fatal(err)
		}
		want := 3 // mem0, decoder0.0, region0
		if name == "qemu-bare" {
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
	for _, name := range qemuFixtures[1:] {
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

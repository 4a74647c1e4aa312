package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cxlv/cxlv/cmd/cxlvctl/exitcode"
	"github.com/cxlv/cxlv/cmd/cxlvctl/view"
	"github.com/cxlv/cxlv/writer"
)

// fixtureDir is a tree captured from a VM (test/fixtures/NAME).
func fixtureDir(name string) string { return filepath.Join("..", "..", "test", "fixtures", name) }

// cxlvctl runs one command line on the fixture's sysfs and procfs.
func cxlvctl(t *testing.T, fixture string, args ...string) (stdout, stderr string, rc int) {
	t.Helper()
	if fixture != "" {
		fixture = fixtureDir(fixture)
	}
	return cxlvctlAt(t, fixture, args...)
}

// cxlvctlAt is cxlvctl on the tree in dir (a fixture's copy), or on none
// when dir is "".
func cxlvctlAt(t *testing.T, dir string, args ...string) (stdout, stderr string, rc int) {
	t.Helper()
	var out, errOut bytes.Buffer
	argv := []string{"cxlvctl"}
	if dir != "" {
		argv = append(argv, "--sysfs-root", filepath.Join(dir, "sys"), "--proc-root", filepath.Join(dir, "proc"),
			"--debugfs-root", filepath.Join(dir, "debugfs"))
	}
	rc = run(t.Context(), append(argv, args...), &out, &errOut)
	return out.String(), errOut.String(), rc
}

// fixtureNdctl is the ndctl release whose tools wrote the fixture's JSON,
// from the "kernel ...; ndctl 76.1" line of its INFO.
func fixtureNdctl(t *testing.T, name string) int {
	t.Helper()
	info, err := os.ReadFile(filepath.Join(fixtureDir(name), "INFO"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(info)) {
		if _, version, ok := strings.Cut(line, "; ndctl "); ok {
			return ndctlRelease(t, version)
		}
	}
	t.Fatalf("%s/INFO names no ndctl version", name)
	return 0
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
		if n := crossCheck(t, []byte(out), cxlList, fixtureNdctl(t, name)); n != want {
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
		"qemu-bare":          {"-", "mem0", "pmem", "512M", "-", "-", "-", "-"},
		"qemu-region-devdax": {"-", "mem0", "pmem", "512M", "region0", "namespace0.0", "devdax", "/dev/dax0.0"},
		"qemu-region-fsdax":  {"-", "mem0", "pmem", "512M", "region0", "namespace0.0", "fsdax", "/dev/pmem0"},
		"cxlv-region-fsdax":  {"cxlv0", "mem0", "pmem", "256M", "region0", "namespace0.0", "fsdax", "/dev/pmem0"},
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
	if rc != 0 || !strings.Contains(out, "SERIAL") || !strings.Contains(out, "0x5157") || !strings.Contains(out, "0000:0d:00.0") ||
		!strings.HasSuffix(strings.TrimSpace(out), "BWFW VERSION 00") {
		t.Errorf("list -v: exit %d:\n%s", rc, out)
	}
}

func TestListCxlv(t *testing.T) {
	out, errOut, rc := cxlvctl(t, "cxlv-bare", "list", "-v")
	want := []string{"cxlv0", "mem0", "pmem", "256M", "decoder0.0", "-", "-", "-", "-", "-",
		"0x100000000", "0x43584c5600001000", "10000:01:00.0", "ready", "-", "cxl_virt"}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if rc != 0 || len(lines) != 2 || !reflect.DeepEqual(strings.Fields(lines[1]), want) {
		t.Fatalf("list -v: exit %d, %q, %q; want the row %v", rc, out, errOut, want)
	}
	js, _, rc := cxlvctl(t, "cxlv-bare", "list", "--json")
	cxlList, err := os.ReadFile(filepath.Join(fixtureDir("cxlv-bare"), "cxl-list-M-D-R.json"))
	if err != nil || rc != 0 {
		t.Fatal(rc, err)
	}
	if n := crossCheck(t, []byte(js), cxlList, fixtureNdctl(t, "cxlv-bare")); n != 2 {
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
	out, errOut, rc = cxlvctl(t, "cxlv-bare", "ranges")
	if rc != 0 || !strings.Contains(out, "0x100000000   0x13fffffff   1G     iomem,cmdline   cxlv0     512M@0x120000000") {
		t.Errorf("ranges: exit %d, %s, table:\n%s", rc, errOut, out)
	}
}

// list's filters keep what they name or lead to, as cxl list's do.
func TestListFilters(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		args    []string
		rows    int
	}{
		{"qemu-region-fsdax", nil, 1},
		{"qemu-region-fsdax", []string{"mem0"}, 1},
		{"qemu-region-fsdax", []string{"-m", "mem0"}, 1},
		{"qemu-region-fsdax", []string{"--region", "region0"}, 1},
		{"qemu-region-fsdax", []string{"-d", "decoder0.0"}, 1},
		{"qemu-region-fsdax", []string{"-d", "decoder2.0"}, 1}, // the region's endpoint decoder
		{"qemu-region-fsdax", []string{"-d", "decoder1.0"}, 0}, // the host bridge's: not a link's
		{"cxlv-bare", []string{"cxlv0"}, 1},
		{"cxlv-bare", []string{"-m", "mem0", "cxlv0"}, 1}, // flags after names: the parser (issue 13, cli-parse)
	} {
		out, errOut, rc := cxlvctl(t, tc.fixture, append([]string{"list", "--json"}, tc.args...)...)
		var links []map[string]any
		if rc != 0 || json.Unmarshal([]byte(out), &links) != nil || len(links) != tc.rows {
			t.Errorf("%s: list --json %q: exit %d, %d objects (%s); want %d", tc.fixture, tc.args, rc, len(links), errOut, tc.rows)
		}
		table, _, rc := cxlvctl(t, tc.fixture, append([]string{"list", "--no-headers"}, tc.args...)...)
		if lines := strings.Count(table, "\n"); rc != 0 || lines != tc.rows || strings.Contains(table, "DEVICE") {
			t.Errorf("%s: list --no-headers %q: exit %d, %q; want %d rows", tc.fixture, tc.args, rc, table, tc.rows)
		}
	}
}

// No table line ends in a space: columns are padded, the last one not.
func TestTablesHaveNoTrailingSpaces(t *testing.T) {
	for _, args := range [][]string{{"list", "-v"}, {"region", "list"}, {"info"}, {"ranges"}} {
		out, _, rc := cxlvctl(t, "cxlv-region-fsdax", args...)
		if rc != 0 || !strings.Contains(out, "\n") {
			t.Fatalf("%q: exit %d, %q", args, rc, out)
		}
		for line := range strings.Lines(out) {
			if strings.HasSuffix(strings.TrimSuffix(line, "\n"), " ") {
				t.Errorf("%q: trailing space in %q", args, line)
			}
		}
	}
}

// info reads the trees it is given: --sysfs-root for the nodes, --proc-root
// for the totals, wherever each is.
func TestInfoHonoursRoots(t *testing.T) {
	dir := fixtureDir("qemu-ram-movable")
	meminfo := string(must(os.ReadFile(filepath.Join(dir, "proc", "meminfo"))))
	var kb uint64
	if _, err := fmt.Sscanf(meminfo, "MemTotal: %d kB", &kb); err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	if err := os.Symlink(must(filepath.Abs(filepath.Join(dir, "sys"))), filepath.Join(elsewhere, "tree")); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	rc := run(t.Context(), []string{"cxlvctl", "--sysfs-root", filepath.Join(elsewhere, "tree"),
		"--proc-root", filepath.Join(dir, "proc"), "info", "--json"}, &out, &errOut)
	var info view.InfoJSON
	if rc != 0 || json.Unmarshal(out.Bytes(), &info) != nil {
		t.Fatalf("info: exit %d, %s %s", rc, out.String(), errOut.String())
	}
	if info.TotalUsableBytes != int64(kb)<<10 || len(info.Nodes) != 2 || !info.Nodes[1].MemoryOnly {
		t.Errorf("info on the fixture: usable %d (MemTotal %d kB), nodes %+v", info.TotalUsableBytes, kb, info.Nodes)
	}
}

// --dry-run --json prints the plan as one JSON object, nothing else.
func TestDryRunJSON(t *testing.T) {
	out, errOut, rc := cxlvctl(t, "qemu-bare", "--dry-run", "region", "create", "--memdev", "mem0", "--fs", "xfs", "--mount", t.TempDir(), "--json")
	var plan struct {
		DryRun bool          `json:"dry_run"`
		Steps  []writer.Step `json:"steps"`
	}
	if rc != 0 || json.Unmarshal([]byte(out), &plan) != nil || !plan.DryRun {
		t.Fatalf("exit %d, stdout %q, stderr %q", rc, out, errOut)
	}
	var writes, commands int
	for _, s := range plan.Steps {
		switch {
		case s.Path != "" && s.Value != nil && s.Command == nil:
			writes++
		case s.Path == "" && len(s.Command) > 0:
			commands++
		default:
			t.Errorf("step %+v is neither a write nor a command", s)
		}
	}
	text, errOut, rc := cxlvctl(t, "qemu-bare", "--dry-run", "region", "create", "--memdev", "mem0", "--fs", "xfs", "--mount", t.TempDir())
	if rc != 0 {
		t.Fatalf("text dry run: exit %d: %s", rc, errOut)
	}
	if want := strings.Count(text, "\n"); writes+commands != want || commands != 2 {
		t.Errorf("%d writes and %d commands (mkfs, mount); the text dry run printed %d lines", writes, commands, want)
	}
}

// Borrowed ranges in ranges, list and completion, on a tree captured with
// one borrowed range in use and one free.
func TestBorrowedCxlv(t *testing.T) {
	out, errOut, rc := cxlvctl(t, "cxlv-borrowed", "ranges", "--json")
	want := `{
  "reserved": [
    {
      "start": 7247757312,
      "size": 536870912,
      "sources": [
        "borrowed"
      ],
      "free": {
        "start": 7247757312,
        "size": 536870912
      },
      "borrowed": true,
      "node": 0,
      "release": "cxlvctl release 0x1b0000000"
    },
    {
      "start": 7784628224,
      "size": 536870912,
      "sources": [
        "borrowed"
      ],
      "used_by": [
        {
          "device": "cxlv0",
          "start": 7784628224,
          "size": 536870912
        }
      ],
      "borrowed": true,
      "node": 0,
      "release": "cxlvctl remove --release cxlv0"
    }
  ],
  "suggest": "memmap=2G$0x100000000"
}
`
	if rc != 0 || out != want {
		t.Errorf("ranges --json: exit %d, %s\n%s", rc, out, errOut)
	}
	out, errOut, rc = cxlvctl(t, "cxlv-borrowed", "ranges")
	for _, line := range []string{
		"0x1b0000000   0x1cfffffff   512M   borrowed   -         512M@0x1b0000000",
		"borrowed from System RAM (node 0) at 0x1d0000000: give it back with `cxlvctl remove --release cxlv0`",
	} {
		if rc != 0 || !strings.Contains(out, line) {
			t.Errorf("ranges: exit %d, %s, lacks %q:\n%s", rc, errOut, line, out)
		}
	}
	out, errOut, rc = cxlvctl(t, "cxlv-borrowed", "list", "--json")
	if rc != 0 || !strings.Contains(out, `"borrowed": true`) {
		t.Errorf("list --json: exit %d, %s, no borrowed device:\n%s", rc, errOut, out)
	}
	if out, _, rc := cxlvctl(t, "cxlv-borrowed", "__complete", "release", ""); rc != 0 || out != "0x1b0000000\n" {
		t.Errorf("__complete release: exit %d, %q; want the free range's start", rc, out)
	}
	// Without --memstart a create goes to the free borrowed range, with
	// nothing borrowed anew; a bigger one borrows.
	for _, tc := range []struct{ size, write string }{
		{"512M", "memstart=7247757312,memsize=536870912,cxltype=3,pmem=1"},
		{"1G", "memsize=1073741824,cxltype=3,pmem=1,borrow=1"},
	} {
		out, errOut, rc = cxlvctl(t, "cxlv-borrowed", "--dry-run", "create", "--size", tc.size, "--pmem")
		if rc != 0 || !strings.HasPrefix(out, "echo "+tc.write+" > ") {
			t.Errorf("create --size %s --dry-run: exit %d, %q, %q; want %s", tc.size, rc, out, errOut, tc.write)
		}
	}
	out, errOut, rc = cxlvctl(t, "cxlv-borrowed", "--dry-run", "remove", "--release", "cxlv0")
	if rc != 0 || !strings.HasPrefix(out, "echo cxlv_dev_id=0,release=1 > ") {
		t.Errorf("remove --release --dry-run: exit %d, %q, %q", rc, out, errOut)
	}
}

// An interleave set is one unit: one row with its memdevs in position
// order and its shape, one JSON object whose memdevs, root decoder and
// region carry cxl list's values (test/fixtures/cxlv-set-2x2: an x4 set of
// two host bridges on 7.3, region0 and a devdax namespace over it).
func TestListSet(t *testing.T) {
	out, errOut, rc := cxlvctl(t, "cxlv-set-2x2", "list")
	want := []string{"cxlv0", "mem1,2,0,3", "pmem", "1G", "region0", "namespace0.0", "devdax", "/dev/dax0.0"}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if rc != 0 || len(lines) != 2 || !reflect.DeepEqual(strings.Fields(lines[1]), want) {
		t.Fatalf("list: exit %d, %q, %q; want the row %v", rc, out, errOut, want)
	}
	out, errOut, rc = cxlvctl(t, "cxlv-set-2x2", "list", "-v")
	want = []string{"cxlv0", "mem1,mem2,mem0,mem3", "pmem", "1G", "decoder0.0", "region0", "region0",
		"namespace0.0", "devdax", "/dev/dax0.0"}
	lines = strings.Split(strings.TrimRight(out, "\n"), "\n")
	if rc != 0 || len(lines) != 2 || !reflect.DeepEqual(strings.Fields(lines[1])[:10], want) ||
		!strings.HasSuffix(lines[1], "x4, 2 host bridges, 4K") {
		t.Fatalf("list -v: exit %d, %q, %q; want the row %v ... x4, 2 host bridges, 4K", rc, out, errOut, want)
	}
	js, errOut, rc := cxlvctl(t, "cxlv-set-2x2", "list", "--json")
	if rc != 0 {
		t.Fatalf("list --json: exit %d: %s", rc, errOut)
	}
	cxlList, err := os.ReadFile(filepath.Join(fixtureDir("cxlv-set-2x2"), "cxl-list-M-D-R.json"))
	if err != nil {
		t.Fatal(err)
	}
	if n := crossCheck(t, []byte(js), cxlList, fixtureNdctl(t, "cxlv-set-2x2")); n != 6 {
		t.Errorf("compared %d objects with cxl list; want the 4 memdevs, decoder0.0 and region0", n)
	}
	var devices []struct {
		Device      string `json:"device"`
		Ways        int    `json:"ways"`
		HostBridges int    `json:"host_bridges"`
		Granularity int    `json:"granularity"`
		Members     []any  `json:"members"`
	}
	if err := json.Unmarshal([]byte(js), &devices); err != nil {
		t.Fatal(err)
	}
	if len(devices) != 1 || devices[0].Device != "cxlv0" || devices[0].Ways != 4 || devices[0].HostBridges != 2 ||
		devices[0].Granularity != 4096 || len(devices[0].Members) != 4 {
		t.Errorf("list --json: %+v, want cxlv0 alone, x4 across 2 host bridges at 4096 with 4 members", devices)
	}
}

// A set partitioned at create (ram_size=) has a root decoder for each
// kind: one row per region, each with its root decoder, and JSON whose
// memdevs, root decoders and regions carry cxl list's values
// (test/fixtures/cxlv-set-partitioned: an x2 set of two host bridges on 7.3,
// a RAM region from decoder0.0 and a pmem region from decoder0.1).
func TestListPartitionedSet(t *testing.T) {
	const fixture = "cxlv-set-partitioned"
	// The default table fits 80 columns: the set's memdevs after the
	// first without "mem", a dax device none of whose memory is online
	// as "offline" (the node in -v).
	out, errOut, rc := cxlvctl(t, fixture, "list")
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if rc != 0 || len(lines) != 3 {
		t.Fatalf("list: exit %d, %q, %q; want a row for each region", rc, out, errOut)
	}
	for i, want := range [][]string{{"cxlv0", "mem0,1", "ram", "1536M", "region0", "dax0.0", "devdax", "-", "offline"},
		{"cxlv0", "mem0,1", "pmem", "1536M", "region1", "namespace1.0", "fsdax", "/dev/pmem1", "-"}} {
		if got := strings.Fields(lines[i+1]); !reflect.DeepEqual(got, want) || len(lines[i+1]) > 80 {
			t.Errorf("list row %d: %q (%d columns); want %v in 80 columns", i+1, lines[i+1], len(lines[i+1]), want)
		}
	}
	_, errOut, rc = cxlvctl(t, fixture, "--dry-run", "region", "create", "--memdev", "mem0")
	if want := "mem0 is one of the 2 memdevs of the interleave set cxlv0"; rc != exitcode.Invalid || !strings.Contains(errOut, want) {
		t.Errorf("region create --memdev mem0: exit %d, %q; want exit %d, %q", rc, errOut, exitcode.Invalid, want)
	}
	out, errOut, rc = cxlvctl(t, fixture, "list", "-v")
	lines = strings.Split(strings.TrimRight(out, "\n"), "\n")
	if rc != 0 || len(lines) != 3 {
		t.Fatalf("list -v: exit %d, %q, %q; want a row for each region", rc, out, errOut)
	}
	for i, want := range [][]string{{"cxlv0", "mem0,mem1", "ram", "1536M", "decoder0.0", "region0"},
		{"cxlv0", "mem0,mem1", "pmem", "1536M", "decoder0.1", "region1"}} {
		if got := strings.Fields(lines[i+1]); len(got) < len(want) || !reflect.DeepEqual(got[:len(want)], want) {
			t.Errorf("list -v row %d: %q; want it to start %v", i+1, lines[i+1], want)
		}
	}
	js, errOut, rc := cxlvctl(t, fixture, "list", "--json")
	if rc != 0 {
		t.Fatalf("list --json: exit %d: %s", rc, errOut)
	}
	cxlList, err := os.ReadFile(filepath.Join(fixtureDir(fixture), "cxl-list-M-D-R.json"))
	if err != nil {
		t.Fatal(err)
	}
	if n := crossCheck(t, []byte(js), cxlList, fixtureNdctl(t, fixture)); n != 6 {
		t.Errorf("compared %d objects with cxl list; want the 2 memdevs, decoder0.0, decoder0.1, region0 and region1", n)
	}
}

// A set born with its regions committed and locked (auto_region=1,
// locked=1): the kernel's two regions, one per root decoder, each a row;
// -v marks the device auto and locked, --json says so, and its memdevs,
// root decoders and regions carry cxl list's values
// (test/fixtures/cxlv-auto-locked: an x2 set of two host bridges on 7.3,
// ram_size=1G).
func TestListAutoRegions(t *testing.T) {
	const fixture = "cxlv-auto-locked"
	out, errOut, rc := cxlvctl(t, fixture, "list", "-v")
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if rc != 0 || len(lines) != 3 {
		t.Fatalf("list -v: exit %d, %q, %q; want a row for each region", rc, out, errOut)
	}
	for i, want := range [][]string{{"ram", "decoder0.0", "region0"}, {"pmem", "decoder0.1", "region1"}} {
		got := strings.Fields(lines[i+1])
		if len(got) < 14 || !reflect.DeepEqual([]string{got[2], got[4], got[5]}, want) || got[13] != "busy,auto,locked" {
			t.Errorf("list -v row %d: %q; want %v and STATE busy,auto,locked", i+1, lines[i+1], want)
		}
	}
	js, errOut, rc := cxlvctl(t, fixture, "list", "--json")
	if rc != 0 {
		t.Fatalf("list --json: exit %d: %s", rc, errOut)
	}
	var links []map[string]any
	if err := json.Unmarshal([]byte(js), &links); err != nil || len(links) != 1 {
		t.Fatalf("list --json: %v, %d objects; want the set", err, len(links))
	}
	if l := links[0]; l["auto_region"] != true || l["locked"] != true {
		t.Errorf("list --json: auto_region %v, locked %v; want both true", l["auto_region"], l["locked"])
	}
	cxlList, err := os.ReadFile(filepath.Join(fixtureDir(fixture), "cxl-list-M-D-R.json"))
	if err != nil {
		t.Fatal(err)
	}
	if n := crossCheck(t, []byte(js), cxlList, fixtureNdctl(t, fixture)); n != 6 {
		t.Errorf("compared %d objects with cxl list; want the 2 memdevs, decoder0.0, decoder0.1, region0 and region1", n)
	}
}

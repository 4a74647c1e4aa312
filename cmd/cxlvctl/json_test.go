package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cxlv/cxlv/cmd/cxlvctl/exitcode"
	"github.com/cxlv/cxlv/cmd/cxlvctl/view"
	"github.com/cxlv/cxlv/internal/hostfixture"
	"github.com/cxlv/cxlv/region"
	"github.com/cxlv/cxlv/writer"
	"github.com/cxlv/cxlv/writer/writertest"
)

// documentedKeys reads the key table of docs/json.md: key -> JSON type.
func documentedKeys(t *testing.T) map[string]string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "json.md"))
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z0-9_]+)` \\| ([a-z]+) \\|").FindAllSubmatch(doc, -1) {
		keys[string(m[1])] = string(m[2])
	}
	if len(keys) < 50 {
		t.Fatalf("docs/json.md: found %d keys in its table", len(keys))
	}
	return keys
}

// keyTypes records the JSON type of every key's value in data, and where.
func keyTypes(t *testing.T, what string, data []byte, seen map[string]map[string]string) {
	t.Helper()
	var v any
	if err := decodeNumbers(data, &v); err != nil {
		t.Fatalf("%s: %v\n%s", what, err, data)
	}
	eachObject(v, func(obj map[string]any) {
		for k, child := range obj {
			if seen[k] == nil {
				seen[k] = map[string]string{}
			}
			seen[k][jsonType(child)] = what
		}
	})
}

func jsonType(v any) string {
	switch v.(type) {
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	}
	return "null"
}

// fixtureTraits says what each captured tree is, in the words of
// traitMeaning, from its setup script (test/vm/fixture-setup/<name>.sh) and
// what the capture kept. They decide which commands succeed on it.
var fixtureTraits = map[string]string{
	"cxlv-auto-locked":        "virt memmap madt pmem set pmem-region ram-region poison",
	"cxlv-bare":               "virt memmap pmem",
	"cxlv-borrowed":           "virt pmem kmem",
	"cxlv-kmem-bare":          "virt memmap pmem kmem",
	"cxlv-poison-fsdax":       "virt memmap pmem region poison tracefs poison-instance",
	"cxlv-ram-bare":           "virt memmap kmem",
	"cxlv-ram-movable":        "virt memmap kmem region",
	"cxlv-region-fsdax":       "virt memmap pmem region",
	"cxlv-region-fsdax-busy":  "virt memmap pmem region",
	"cxlv-region-fsdax-deb13": "virt memmap madt pmem region poison",
	"cxlv-set-2x2":            "virt memmap madt pmem set region poison tracefs",
	"cxlv-set-partitioned":    "virt memmap madt pmem set pmem-region ram-region poison",
	"firmware-one-node":       "memmap madt no-memdev",
	"qemu-bare":               "pmem",
	"qemu-ram-bare":           "pmem kmem poison",
	"qemu-ram-movable":        "pmem kmem poison ram-region",
	"qemu-region-devdax":      "pmem region",
	"qemu-region-fsdax":       "pmem region",
}

// traitMeaning is what each word of fixtureTraits says of a tree.
var traitMeaning = map[string]string{
	"virt":            "cxl_virt is loaded and its cxlv0 made mem0",
	"memmap":          "booted with memmap= at 4 GiB (where cxlv0 sits): a reserved range",
	"madt":            "the capture has the ACPI MADT",
	"no-memdev":       "no CXL memdev at all",
	"pmem":            "mem0 has persistent capacity",
	"kmem":            "the kmem driver is loaded",
	"set":             "mem0 is one of the members of an interleave set",
	"region":          "a region holds mem0's only endpoint decoder",
	"ram-region":      "a RAM region holds all of mem0's volatile capacity (other decoders stay free)",
	"pmem-region":     "a pmem region holds all of mem0's persistent capacity (other decoders stay free)",
	"poison":          "mem0 offers the poison list (trigger_poison_list)",
	"tracefs":         "the capture has tracefs (the global trace)",
	"poison-instance": "the capture has the trace of the instance cxlvctl's poison list reads",
}

type traits map[string]bool

func fixtureTraitsOf(t *testing.T, name string) traits {
	t.Helper()
	words, ok := fixtureTraits[name]
	if !ok {
		t.Fatalf("fixture %s is not in fixtureTraits: say what it is there", name)
	}
	f := traits{}
	for _, w := range strings.Fields(words) {
		if traitMeaning[w] == "" {
			t.Fatalf("fixture %s: unknown trait %q", name, w)
		}
		f[w] = true
	}
	return f
}

// outcome is what a command does on a tree: exit code 0, or the code and
// the start of the error message it fails with.
type outcome struct {
	code int
	head string
}

// check is one reason for a command to fail (or, with exitcode.OK, to succeed
// before the checks after it): a trait the tree has, or lacks.
type check struct {
	trait string
	has   bool
	fails outcome
}

func with(trait string, code int, head string) check { return check{trait, true, outcome{code, head}} }

func without(trait string, code int, head string) check {
	return check{trait, false, outcome{code, head}}
}

// expect is the outcome on a tree: the first check that applies, in the
// order the command makes them, else success.
func expect(f traits, checks []check) outcome {
	for _, c := range checks {
		if f[c.trait] == c.has {
			return c.fails
		}
	}
	return outcome{}
}

var (
	noMemdev   = with("no-memdev", exitcode.NotFound, "memdev mem0 not found")
	pmemRegion = []check{
		noMemdev,
		without("pmem", exitcode.Invalid, "mem0 has no persistent capacity"),
		with("region", exitcode.Busy, "mem0 has no free endpoint decoder"),
		with("pmem-region", exitcode.Failure, "mem0 has no free pmem capacity"),
	}
	ramRegion = []check{
		noMemdev,
		without("kmem", exitcode.NotSupported, "RAM regions as memory not available: module kmem is not loaded"),
		with("region", exitcode.Busy, "mem0 has no free endpoint decoder"),
		with("ram-region", exitcode.Failure, "mem0 has no free ram capacity"),
	}
	// `region create --memdev` refuses one memdev of a set first (the
	// set's size in the message: TestListPartitionedSet).
	regionCreate = append([]check{with("set", exitcode.Invalid, "mem0 is one of the ")}, pmemRegion...)
)

// jsonCommand is a command line whose JSON TestJSONSchema checks, and why
// it fails on a tree.
type jsonCommand struct {
	args   []string
	checks []check
}

func jsonCommands(mountDir string) []jsonCommand {
	return []jsonCommand{
		{[]string{"list", "--json"}, nil},
		// Without tracefs (or the poison list): a warning, no media errors.
		{[]string{"list", "--json", "-H", "-I", "--media-errors"}, []check{
			without("tracefs", exitcode.OK, ""),
			without("poison-instance", exitcode.Failure, "poison list mem"),
		}},
		{[]string{"region", "list", "--json"}, nil},
		{[]string{"info", "--json"}, nil},
		{[]string{"ranges", "--json"}, nil},
		{[]string{"--dry-run", "node-tables", "-o", "acpi.cpio", "--json"}, []check{
			without("memmap", exitcode.Invalid, "no reserved range of 256M or more for a node"),
			without("madt", exitcode.NotSupported, "no ACPI MADT"),
		}},
		{[]string{"--dry-run", "create", "--memstart", "4G", "--size", "1G", "--json"}, []check{
			without("virt", exitcode.NotSupported, "cxl_virt control files not available"),
			with("memmap", exitcode.Busy, "create: 0x100000000+1G overlaps cxlv0"),
		}},
		{[]string{"--dry-run", "region", "create", "--memdev", "mem0", "--json"}, regionCreate},
		{[]string{"poison", "list", "mem0", "--json"}, []check{
			noMemdev,
			without("virt", exitcode.Invalid, `invalid device name "mem0": no cxl_virt device has memdev mem0`),
			without("poison", exitcode.NotSupported, "kernel too old: poison inject, clear and list need Linux 6.4+"),
			without("tracefs", exitcode.NotSupported, "poison list: tracefs is not mounted"),
			without("poison-instance", exitcode.Failure, "poison list mem0: open"),
		}},
		{[]string{"--dry-run", "region", "create", "--memdev", "mem0", "--fs", "xfs", "--mount", mountDir, "--json"}, regionCreate},
	}
}

// Every command's JSON, on every captured tree: each key has one type, the
// one docs/json.md gives it. Each command succeeds or fails on each tree as
// the tree's traits say, so none is left out unnoticed.
func TestJSONSchema(t *testing.T) {
	fixtures, err := filepath.Glob(filepath.Join("..", "..", "test", "fixtures", "*", "INFO"))
	if err != nil || len(fixtures) == 0 {
		t.Fatal("no fixtures", err)
	}
	if len(fixtures) != len(fixtureTraits) {
		t.Errorf("%d fixtures, %d in fixtureTraits", len(fixtures), len(fixtureTraits))
	}
	seen := map[string]map[string]string{}
	jsonChecked := map[string]int{}
	verify := func(what string, want outcome, code int, errText string) bool {
		t.Helper()
		if code != want.code || want.code != exitcode.OK && !strings.HasPrefix(errText, want.head) {
			t.Errorf("%s: exit %d, %q; want exit %d, %q...", what, code, errText, want.code, want.head)
		}
		return code == exitcode.OK && want.code == exitcode.OK
	}
	commands := jsonCommands(t.TempDir())
	recordWrites(t)     // poison list writes its trigger
	fixtureMailboxes(t) // list -H and -I read the mailbox
	for _, info := range fixtures {
		name := filepath.Base(filepath.Dir(info))
		f := fixtureTraitsOf(t, name)
		for _, c := range commands {
			what := fmt.Sprintf("%s: %q", name, c.args)
			out, errOut, rc := cxlvctl(t, name, c.args...)
			if verify(what, expect(f, c.checks), rc, strings.TrimPrefix(errOut, "cxlvctl: ")) {
				jsonChecked[strings.Join(c.args, " ")]++
				keyTypes(t, what, []byte(out), seen)
			}
		}
		// region create's result, from a simulated create on the tree.
		for _, c := range []struct {
			spec   region.Spec
			checks []check
		}{
			{region.Spec{Memdev: "mem0", Type: region.TypePmem, Namespace: region.ModeFsdax}, pmemRegion},
			{region.Spec{Memdev: "mem0", Type: region.TypePmem, Namespace: region.ModeDevdax}, pmemRegion},
			{region.Spec{Memdev: "mem0", Type: region.TypeRAM, Online: region.OnlineMovable}, ramRegion},
		} {
			var tools bytes.Buffer
			m := &region.Manager{Host: hostfixture.Root(t, name), W: &writertest.Recorder{}, Simulate: true, Tools: region.PrintTools{DryRun: &writer.DryRun{Out: &tools}}}
			res, err := m.Create(t.Context(), c.spec)
			what := fmt.Sprintf("%s: region create %+v", name, c.spec)
			code, errText := exitcode.OK, ""
			if err != nil {
				code, errText = exitcode.Of(err), err.Error()
			}
			if !verify(what, expect(f, c.checks), code, errText) {
				continue
			}
			data, err := json.Marshal(view.RegionCreate(res))
			if err != nil {
				t.Fatal(err)
			}
			jsonChecked["region create "+c.spec.Type]++
			keyTypes(t, what, data, seen)
		}
	}
	for _, c := range commands {
		if what := strings.Join(c.args, " "); jsonChecked[what] == 0 {
			t.Errorf("%s: no fixture to check its JSON on", what)
		}
	}
	for _, typ := range []string{region.TypePmem, region.TypeRAM} {
		if jsonChecked["region create "+typ] == 0 {
			t.Errorf("region create %s: no fixture to check its JSON on", typ)
		}
	}
	doc := documentedKeys(t)
	for key, types := range seen {
		if len(types) > 1 {
			t.Errorf("key %q has %d types: %v", key, len(types), types)
		}
		for typ, where := range types {
			if doc[key] != typ {
				t.Errorf("key %q is a %s (%s); docs/json.md says %q", key, typ, where, doc[key])
			}
		}
	}
	for _, key := range []string{"nd_region", "dax", "blockdev", "namespaces", "command", "holder", "online_ns",
		"firmware_version", "qos_class", "qos_class_mismatch", "dpa", "hpa", "source"} {
		if seen[key] == nil {
			t.Errorf("no output had %q: the check above did not see it", key)
		}
	}
}

// -u prints memdevs exactly as `cxl list -M -u` of the same boot did (an
// interleave set's members each as its memdev), and the serial without -u
// keeps every digit.
func TestListHumanMatchesCxlListU(t *testing.T) {
	checked := 0
	for _, info := range must(filepath.Glob(filepath.Join("..", "..", "test", "fixtures", "*", "cxl-list-M-u.json"))) {
		name := filepath.Base(filepath.Dir(info))
		if fi, err := os.Stat(info); err != nil || fi.Size() == 0 {
			continue // a boot without memdevs (firmware-one-node)
		}
		checked++
		out, errOut, rc := cxlvctl(t, name, "list", "--json", "-u")
		if rc != 0 {
			t.Fatalf("%s: list --json -u: exit %d: %s", name, rc, errOut)
		}
		var links []map[string]any
		if err := json.Unmarshal([]byte(out), &links); err != nil || len(links) != 1 {
			t.Fatalf("%s: %v: %s", name, err, out)
		}
		plain, errOut, rc := cxlvctl(t, name, "list", "--json")
		if rc != 0 {
			t.Fatalf("%s: list --json: exit %d: %s", name, rc, errOut)
		}
		theirs := cxlListMemdevs(t, must(os.ReadFile(info)))
		memdevs := []map[string]any{links[0]}
		if members, ok := links[0]["members"].([]any); ok {
			memdevs = memdevs[:0]
			for _, m := range members {
				memdevs = append(memdevs, m.(map[string]any))
			}
		}
		if len(memdevs) != len(theirs) {
			t.Fatalf("%s: %d memdevs, cxl list -M -u has %d", name, len(memdevs), len(theirs))
		}
		for _, memdev := range memdevs {
			ours := map[string]any{}
			for _, k := range memdevKeys() {
				if v, ok := memdev[k]; ok {
					ours[k] = v
				}
			}
			dropNewerKeys(ours, fixtureNdctl(t, name))
			want := theirs[fmt.Sprint(ours["memdev"])]
			if a, b := must(json.Marshal(ours)), must(json.Marshal(want)); !bytes.Equal(a, b) {
				t.Errorf("%s: list --json -u memdev\n%s\ncxl list -M -u\n%s", name, a, b)
			}
			hex, _ := want["serial"].(string)
			serial, err := strconv.ParseUint(strings.TrimPrefix(hex, "0x"), 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf(`"serial": "%d"`, serial); !strings.Contains(plain, want) {
				t.Errorf("%s: list --json lacks %s", name, want)
			}
		}
	}
	if checked < 5 {
		t.Fatalf("only %d fixtures with a memdev", checked)
	}
}

// cxlListMemdevs is `cxl list -M -u` output by memdev name: one object for
// one memdev, an array for several.
func cxlListMemdevs(t *testing.T, data []byte) map[string]map[string]any {
	t.Helper()
	var list []map[string]any
	if err := json.Unmarshal(data, &list); err != nil {
		var one map[string]any
		if err := json.Unmarshal(data, &one); err != nil {
			t.Fatal(err)
		}
		list = []map[string]any{one}
	}
	byName := map[string]map[string]any{}
	for _, m := range list {
		byName[fmt.Sprint(m["memdev"])] = m
	}
	return byName
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

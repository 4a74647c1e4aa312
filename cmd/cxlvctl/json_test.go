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

// Every command's JSON, on every captured tree: each key has one type, the
// one docs/json.md gives it.
func TestJSONSchema(t *testing.T) {
	fixtures, err := filepath.Glob(filepath.Join("..", "..", "test", "fixtures", "*", "INFO"))
	if err != nil || len(fixtures) == 0 {
		t.Fatal("no fixtures", err)
	}
	seen := map[string]map[string]string{}
	outputs := 0
	recordWrites(t)     // poison list writes its trigger
	fixtureMailboxes(t) // list -H and -I read the mailbox
	for _, info := range fixtures {
		name := filepath.Base(filepath.Dir(info))
		for _, args := range [][]string{
			{"list", "--json"},
			{"list", "--json", "-H", "-I", "--media-errors"},
			{"region", "list", "--json"},
			{"info", "--json"},
			{"ranges", "--json"},
			{"--dry-run", "node-tables", "-o", "acpi.cpio", "--json"},
			{"--dry-run", "create", "--memstart", "4G", "--size", "1G", "--json"},
			{"--dry-run", "region", "create", "--memdev", "mem0", "--json"},
			{"poison", "list", "mem0", "--json"},
			{"--dry-run", "region", "create", "--memdev", "mem0", "--fs", "xfs", "--mount", t.TempDir(), "--json"},
		} {
			out, _, rc := cxlvctl(t, name, args...)
			if rc != 0 {
				continue // not every command applies to every tree (a region exists, no cxl_virt)
			}
			outputs++
			keyTypes(t, fmt.Sprintf("%s: %q", name, args), []byte(out), seen)
		}
		// region create's result, from a simulated create on the tree.
		for _, spec := range []region.Spec{
			{Memdev: "mem0", Type: region.TypePmem, Namespace: region.ModeFsdax},
			{Memdev: "mem0", Type: region.TypePmem, Namespace: region.ModeDevdax},
			{Memdev: "mem0", Type: region.TypeRAM, Online: region.OnlineMovable},
		} {
			var tools bytes.Buffer
			m := &region.Manager{Host: hostfixture.Root(t, name), W: &writertest.Recorder{}, Simulate: true, Tools: region.PrintTools{DryRun: &writer.DryRun{Out: &tools}}}
			res, err := m.Create(t.Context(), spec)
			if err != nil {
				continue // the tree has a region already, or no ram capacity
			}
			data, err := json.Marshal(view.RegionCreate(res))
			if err != nil {
				t.Fatal(err)
			}
			outputs++
			keyTypes(t, fmt.Sprintf("%s: region create %+v", name, spec), data, seen)
		}
	}
	if outputs < 40 {
		t.Fatalf("only %d outputs checked", outputs)
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

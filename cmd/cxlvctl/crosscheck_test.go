package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/cxlv/cxlv/cmd/cxlvctl/view"
)

// Cross-check of `cxlvctl list --json` against `cxl list`: every memdev,
// root decoder and region cxlvctl shows must be in cxl list's output with
// the same keys and the same values. It runs on captured trees (fixtures
// with the cxl list output of the same boot) and, in the VM, on the live
// system (TestLiveCrossCheck, run by test/e2e/cxlvctl-list-qemu.sh).

// cxlListObjects indexes the objects of `cxl list` output by their name
// key. cxl list prints a flat array for one kind of object, and an array
// of {"<kind>": [...]} objects for several; nested child arrays are keyed
// "<kind>:<parent>". All of them are walked.
func cxlListObjects(data []byte) (map[string]map[string]any, error) {
	var top any
	if err := decodeNumbers(data, &top); err != nil {
		return nil, fmt.Errorf("cxl list output: %w", err)
	}
	objects := map[string]map[string]any{}
	eachObject(top, func(v map[string]any) {
		flat := map[string]any{}
		for k, child := range v {
			// Child lists are objects of their own; a memdev's or
			// region's media errors are its own.
			if _, isArray := child.([]any); !isArray || k == "media_errors" {
				flat[k] = child
			}
		}
		// A decoder names its region too: the first name key wins.
		for _, key := range []string{"decoder", "memdev", "region"} {
			if name, ok := flat[key].(string); ok {
				objects[name] = flat
				break
			}
		}
	})
	return objects, nil
}

// eachObject calls visit on every object in v, depth first.
func eachObject(v any, visit func(map[string]any)) {
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			eachObject(e, visit)
		}
	case map[string]any:
		visit(v)
		for _, child := range v {
			eachObject(child, visit)
		}
	}
}

// decodeNumbers decodes JSON keeping numbers as written (json.Number):
// as float64 a serial above 2^53 would lose digits.
func decodeNumbers(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

// memdevKeys are the keys of a memdev object (view.MemdevJSON), which a
// link of list --json carries flat.
func memdevKeys() []string {
	typ := reflect.TypeFor[view.MemdevJSON]()
	keys := make([]string, typ.NumField())
	for i := range keys {
		keys[i], _, _ = strings.Cut(typ.Field(i).Tag.Get("json"), ",")
	}
	return keys
}

// ourObjects does the same for `cxlvctl list --json`: the memdev, root
// decoder and region objects, without the nd_region cxlvctl adds. The
// serial, a decimal string in ours, is compared as the number cxl list
// prints.
func ourObjects(t *testing.T, data []byte) map[string]map[string]any {
	t.Helper()
	var links []map[string]any
	if err := decodeNumbers(data, &links); err != nil {
		t.Fatalf("cxlvctl list --json: %v\n%s", err, data)
	}
	objects := map[string]map[string]any{}
	// The memdev keys of a link, or of each member of a set.
	memdev := func(l map[string]any) {
		name, ok := l["memdev"].(string)
		if !ok {
			return
		}
		m := map[string]any{}
		for _, k := range memdevKeys() {
			if v, ok := l[k]; ok {
				m[k] = v
			}
		}
		if serial, ok := m["serial"].(string); ok {
			m["serial"] = json.Number(serial)
		}
		objects[name] = m
	}
	for _, l := range links {
		memdev(l)
		members, _ := l["members"].([]any)
		for _, m := range members {
			memdev(m.(map[string]any))
		}
		for _, key := range []string{"root_decoders", "regions"} {
			list, _ := l[key].([]any)
			for _, o := range list {
				obj := o.(map[string]any)
				// What a region became is checked against ndctl and
				// daxctl (TestListJSONMatchesNdctlList, TestRAMListMatchesDaxctl);
				// its access coordinates, which cxl list does not
				// print, against the kernel's regionN/access0 and
				// access1 (cxlv-cdat).
				for _, extra := range []string{"nd_region", "dax", "access0", "access1"} {
					delete(obj, extra)
				}
				name, _ := obj["decoder"].(string)
				if r, ok := obj["region"].(string); ok && key == "regions" {
					name = r
				}
				objects[name] = obj
			}
		}
	}
	return objects
}

// cxlListKeySince is the ndctl release whose cxl list first prints a key
// (cxl/json.c): the output of an older one is compared without it.
var cxlListKeySince = map[string]int{
	"type":               77,
	"qos_class":          79,
	"pmem_qos_class":     79,
	"ram_qos_class":      79,
	"qos_class_mismatch": 79,
	"firmware_version":   80,
}

// dropNewerKeys deletes the keys cxl list of ndctl release ndctl does not print.
func dropNewerKeys(obj map[string]any, ndctl int) {
	for key, since := range cxlListKeySince {
		if ndctl < since {
			delete(obj, key)
		}
	}
}

// ndctlRelease is the major number of an ndctl version ("76.1", "81").
func ndctlRelease(t *testing.T, version string) int {
	t.Helper()
	major, _, _ := strings.Cut(strings.TrimSpace(version), ".")
	n, err := strconv.Atoi(major)
	if err != nil {
		t.Fatalf("ndctl version %q: %v", version, err)
	}
	return n
}

// crossCheck compares with the output of cxl list of ndctl release
// ndctl and returns how many objects it compared.
func crossCheck(t *testing.T, ours, cxlList []byte, ndctl int) int {
	t.Helper()
	theirs, err := cxlListObjects(cxlList)
	if err != nil {
		t.Fatal(err)
	}
	mine := ourObjects(t, ours)
	names := make([]string, 0, len(mine))
	for n := range mine {
		names = append(names, n)
	}
	sort.Strings(names)
	compared := 0
	for _, name := range names {
		obj := mine[name]
		other, ok := theirs[name]
		if !ok {
			// cxl list hides idle objects (zero-sized decoders) without -i.
			if obj["state"] == "disabled" {
				continue
			}
			t.Errorf("%s: in cxlvctl list, not in cxl list", name)
			continue
		}
		compared++
		dropNewerKeys(obj, ndctl)
		if !reflect.DeepEqual(obj, other) {
			a, _ := json.Marshal(obj)
			b, _ := json.Marshal(other)
			t.Errorf("%s differs:\ncxlvctl:  %s\ncxl list: %s", name, a, b)
		}
	}
	return compared
}

// mediaErrorsSince is the ndctl release whose cxl list has --media-errors.
const mediaErrorsSince = 81

// TestLiveCrossCheck runs on a live system with CXL devices (the VM):
// CXLV_LIVE_CROSSCHECK=1 cxlvctl.test -test.run TestLiveCrossCheck. With
// health (-H, the mailbox) and, from ndctl 81 on a kernel with the poison
// list, media errors (--media-errors) on both sides.
func TestLiveCrossCheck(t *testing.T) {
	if os.Getenv("CXLV_LIVE_CROSSCHECK") != "1" {
		t.Skip("set CXLV_LIVE_CROSSCHECK=1 to compare with cxl list on this system")
	}
	version, err := exec.Command("cxl", "version").Output()
	if err != nil {
		t.Fatalf("cxl version: %v", err)
	}
	ndctl := ndctlRelease(t, string(version))
	ourArgs, theirArgs := []string{"cxlvctl", "list", "--json", "-H"}, []string{"list", "-M", "-D", "-R", "-H"}
	if ndctl >= mediaErrorsSince {
		ourArgs, theirArgs = append(ourArgs, "--media-errors"), append(theirArgs, "--media-errors")
	}
	var ours, errOut bytes.Buffer
	if rc := run(t.Context(), ourArgs, &ours, &errOut); rc != 0 {
		t.Fatalf("%q: exit %d: %s", ourArgs, rc, errOut.String())
	}
	theirs, err := exec.Command("cxl", theirArgs...).Output()
	if err != nil {
		t.Fatalf("cxl %q: %v", theirArgs, err)
	}
	t.Logf("%q:\n%s\ncxl %q (ndctl %s):\n%s", ourArgs, ours.String(), theirArgs, bytes.TrimSpace(version), theirs)
	if n := crossCheck(t, ours.Bytes(), theirs, ndctl); n == 0 {
		t.Fatal("no object to compare: is a CXL device present?")
	}
	// crossCheck held health and media errors to cxl list's, present or
	// not (QEMU's device may answer no Get Health Info): say how many.
	t.Logf("compared: %d health objects, %d media errors; cxlvctl's stderr: %q",
		strings.Count(ours.String(), `"health": {`), strings.Count(ours.String(), `"offset": `), errOut.String())
	nd, err := exec.Command("ndctl", "list", "-v", "-R", "-N").Output()
	if err != nil {
		t.Fatalf("ndctl list: %v", err)
	}
	t.Logf("ndctl list -v -R -N:\n%s", nd)
	ndctlCheck(t, ours.Bytes(), nd)
}

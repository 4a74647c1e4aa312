package view

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cxlv/cxlv/sysfs"
)

func topology(t *testing.T, fixture string) *sysfs.Topology {
	t.Helper()
	fs, err := sysfs.NewFS(filepath.Join("..", "..", "..", "test", "fixtures", fixture, "sys"))
	if err != nil {
		t.Fatal(err)
	}
	top, err := fs.Topology()
	if err != nil {
		t.Fatal(err)
	}
	return top
}

// The QoS keys as cxl list prints them: QEMU's window has class 0 and its
// memdev none, so its RAM region mismatches; cxl_virt's root has none
// (qos_class -1), which leaves the key out.
func TestQosClassJSON(t *testing.T) {
	for _, tc := range []struct {
		fixture, rootClass, mismatch string
	}{
		{"qemu-ram-movable", `"qos_class":0`, `"qos_class_mismatch":true`},
		{"cxlv-ram-movable", "", ""},
	} {
		top := topology(t, tc.fixture)
		links := top.Links()
		if len(links) != 1 || len(links[0].Regions) != 1 {
			t.Fatalf("%s: links %+v; want one with a region", tc.fixture, links)
		}
		data, err := json.Marshal(Link(links[0], top.Regions))
		if err != nil {
			t.Fatal(err)
		}
		js := string(data)
		for _, want := range []string{tc.rootClass, tc.mismatch} {
			if want != "" && !strings.Contains(js, want) {
				t.Errorf("%s: lacks %s: %s", tc.fixture, want, js)
			}
		}
		for key, want := range map[string]string{`"qos_class":`: tc.rootClass, `"qos_class_mismatch"`: tc.mismatch, "_qos_class": ""} {
			if want == "" && strings.Contains(js, key) {
				t.Errorf("%s: has %s: %s", tc.fixture, key, js)
			}
		}
	}
}

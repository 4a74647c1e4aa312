package view

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cxlv/cxlv/sysfs"
)

// An interleave set is one row and one object: its memdevs in position
// order, their total capacity, the shape in the INTERLEAVE column; in JSON
// the members with their positions and serials, no flat memdev keys.
func TestSetRowAndJSON(t *testing.T) {
	u := func(v uint64) *uint64 { return &v }
	yes := true
	var members []sysfs.Member
	for i, name := range []string{"mem2", "mem0", "mem3", "mem1"} {
		m := &sysfs.Memdev{Name: name, PmemSize: 256 << 20, Serial: u(0x43584c5600001000 + uint64(i)), Host: "0000:0" + name[3:] + ":00.0", Driver: "cxl_mem"}
		members = append(members, sysfs.Member{Memdev: m, Endpoint: &sysfs.Port{Name: "endpoint" + name[3:]}})
	}
	link := sysfs.DeviceLink{
		Virt: &sysfs.VirtDevice{Name: "cxlv0", Pmem: &yes, Capacity: u(1 << 30), Ways: u(4), HostBridges: u(2), Granularity: u(4096),
			Memdevs: []string{"mem2", "mem0", "mem3", "mem1"}},
		Memdev: members[0].Memdev, Endpoint: members[0].Endpoint, Root: &sysfs.Port{Name: "root0"}, Members: members,
	}
	header, rows := ListTable([]sysfs.DeviceLink{link}, true, nil)
	if got := strings.Join(header, " "); !strings.HasSuffix(got, " DEVNODE MEMSTART SERIAL HOST STATE PERF FIRMWARE INTERLEAVE") {
		t.Errorf("-v header %q; want an INTERLEAVE column", got)
	}
	if got := strings.Join(rows[0][:10], "|"); len(rows) != 1 || got != "cxlv0|mem2,mem0,mem3,mem1|pmem|1G|-|-|-|-|-|-" ||
		rows[0][len(rows[0])-1] != "x4, 2 host bridges, 4K" {
		t.Errorf("-v rows %q; want one row of the set", rows)
	}
	// The default table: the memdevs in short, no INTERLEAVE.
	header, rows = ListTable([]sysfs.DeviceLink{link}, false, nil)
	if got := strings.Join(header, " ") + "\n" + strings.Join(rows[0], "|"); got != "DEVICE MEMDEV TYPE SIZE REGION NAMESPACE MODE DEVNODE\n"+
		"cxlv0|mem2,0,3,1|pmem|1G|-|-|-|-" {
		t.Errorf("table %q; want the set's row in short", got)
	}
	b, err := json.Marshal(Link(link, nil))
	if err != nil {
		t.Fatal(err)
	}
	var j map[string]any
	if err := json.Unmarshal(b, &j); err != nil {
		t.Fatal(err)
	}
	ms, _ := j["members"].([]any)
	if _, flat := j["memdev"]; flat || len(ms) != 4 || j["ways"] != 4.0 || j["host_bridges"] != 2.0 || j["granularity"] != 4096.0 {
		t.Fatalf("set JSON %s; want ways, host_bridges, granularity and four members, no flat memdev", b)
	}
	third := ms[2].(map[string]any)
	if third["position"] != 2.0 || third["memdev"] != "mem3" || third["serial"] != "4852712530742611970" || third["endpoint"] != "endpoint3" {
		t.Errorf("member 2 = %v; want position 2, mem3, its decimal serial, endpoint3", third)
	}
}

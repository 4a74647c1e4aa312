package sysfs

import (
	"slices"
	"testing"
)

// A set is one link: its members in the module's position order, position
// 0's memdev and endpoint as the link's, its region once. cxlv-set-2x2 is
// an x4 set over two host bridges whose module lists its memdevs as mem1
// mem2 mem0 mem3 (not in name order) with one region over all four
// (TestTopologyCxlv has the link of a device of one memdev).
func TestLinksOfASet(t *testing.T) {
	_, set := oneLink(t, "cxlv-set-2x2")
	var names, eps []string
	for _, m := range set.Endpoints() {
		names, eps = append(names, m.Memdev.Name), append(eps, m.Endpoint.Name)
	}
	if set.Virt.Name != "cxlv0" || !slices.Equal(names, []string{"mem1", "mem2", "mem0", "mem3"}) ||
		!slices.Equal(eps, []string{"endpoint3", "endpoint4", "endpoint5", "endpoint6"}) ||
		set.Memdev.Name != "mem1" || set.Endpoint.Name != "endpoint3" || len(set.Regions) != 1 {
		t.Errorf("set link: %s, members %v on %v, memdev %s, %d regions; want cxlv0, mem1 mem2 mem0 mem3, mem1, one region",
			set.Virt.Name, names, eps, set.Memdev.Name, len(set.Regions))
	}
}

// oneLink is the topology of a captured tree and its one link.
func oneLink(t *testing.T, name string) (*Topology, DeviceLink) {
	t.Helper()
	top, err := fixture(t, name).Topology()
	if err != nil {
		t.Fatal(err)
	}
	links := top.Links()
	if len(links) != 1 {
		t.Fatalf("%s: %d links; want 1", name, len(links))
	}
	return top, links[0]
}

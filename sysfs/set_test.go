package sysfs

import (
	"slices"
	"testing"
)

// setTopology is the linked shape of an x4 set, as read objects: cxlv0's
// root0 with four endpoints whose memdevs the module lists in position
// order mem2 mem0 mem3 mem1, one region over all four, and cxlv1, a
// device of one memdev, beside it. (A captured tree of a set comes with
// the module that builds sets: test/vm/fixture-setup/cxlv-interleave-region.sh.)
func setTopology() *Topology {
	u := func(v uint64) *uint64 { return &v }
	t := &Topology{
		Virt: []VirtDevice{
			{Name: "cxlv0", Root: "root0", Memdevs: []string{"mem2", "mem0", "mem3", "mem1"}, Ways: u(4), HostBridges: u(2), Granularity: u(4096)},
			{Name: "cxlv1", Root: "root1", Memdevs: []string{"mem4"}, Ways: u(1), HostBridges: u(1), Granularity: u(256)},
		},
		Ports:   []Port{{Name: "root0", Kind: RootPort}, {Name: "root1", Kind: RootPort}},
		Regions: []Region{{Name: "region0", ID: 0, Decoder: "decoder0.0", InterleaveWays: 4}},
	}
	for i := range 5 {
		m := "mem" + string(rune('0'+i))
		ep := "endpoint" + string(rune('2'+i))
		root := "root0"
		if i == 4 {
			root = "root1"
		}
		t.Memdevs = append(t.Memdevs, Memdev{Name: m, ID: i})
		t.Ports = append(t.Ports, Port{Name: ep, Kind: EndpointPort, Uport: m, Parent: root})
		if i < 4 {
			d := "decoder" + string(rune('2'+i)) + ".0"
			t.Decoders = append(t.Decoders, Decoder{Name: d, Kind: EndpointDecoder, Port: ep, Region: "region0"})
			t.Regions[0].Targets = append(t.Regions[0].Targets, d)
		}
	}
	return t
}

// A set is one link: its members in the module's position order, position
// 0's memdev and endpoint as the link's, its region once.
func TestLinksOfASet(t *testing.T) {
	links := setTopology().Links()
	if len(links) != 2 {
		t.Fatalf("Links() = %d links; want the set and the single device", len(links))
	}
	set, single := links[0], links[1]
	var names, eps []string
	for _, m := range set.Endpoints() {
		names, eps = append(names, m.Memdev.Name), append(eps, m.Endpoint.Name)
	}
	if set.Virt.Name != "cxlv0" || !slices.Equal(names, []string{"mem2", "mem0", "mem3", "mem1"}) ||
		!slices.Equal(eps, []string{"endpoint4", "endpoint2", "endpoint5", "endpoint3"}) ||
		set.Memdev.Name != "mem2" || set.Endpoint.Name != "endpoint4" || len(set.Regions) != 1 {
		t.Errorf("set link: %s, members %v on %v, memdev %s, %d regions; want cxlv0, mem2 mem0 mem3 mem1, mem2, one region",
			set.Virt.Name, names, eps, set.Memdev.Name, len(set.Regions))
	}
	if single.Virt.Name != "cxlv1" || single.Members != nil || len(single.Endpoints()) != 1 || single.Memdev.Name != "mem4" {
		t.Errorf("single link: %s, members %v, memdev %v; want cxlv1 with mem4 alone", single.Virt.Name, single.Members, single.Memdev)
	}
}

package view

import (
	"strings"

	"github.com/cxlv/cxlv/region"
	"github.com/cxlv/cxlv/sysfs"
	"github.com/cxlv/cxlv/units"
)

// RegionListJSON is a region of `region list --json`: as `cxl list -R`
// prints it, with what the table shows besides.
type RegionListJSON struct {
	RegionLinkJSON
	UUID    string   `json:"uuid"`
	Decoder string   `json:"decoder"`
	Targets []string `json:"targets"`
}

// RegionList is `region list --json`: every CXL region of t. Never nil.
func RegionList(t *sysfs.Topology) []RegionListJSON {
	js := []RegionListJSON{}
	for _, l := range listedRegions(t) {
		r := l.Region
		js = append(js, RegionListJSON{RegionLinkJSON: regionLink(*r, l.NDRegion, l.RAM), UUID: r.UUID, Decoder: r.Decoder, Targets: r.Targets})
	}
	return js
}

// RegionTable is the table of `region list`: a row per CXL region, with a
// MEMORY column when t has RAM regions.
func RegionTable(t *sysfs.Topology) (header []string, rows [][]string) {
	header = []string{"REGION", "UUID", "SIZE", "DECODER", "TARGETS", "STATE", "ND_REGION", "NAMESPACES"}
	withMemory := len(t.RAM) > 0
	if withMemory {
		header = append(header, "MEMORY")
	}
	for _, l := range listedRegions(t) {
		r := l.Region
		state, ndName, namespaces := decodeState(*r), "-", "-"
		if s := unboundState(r.Driver); s != "" {
			state += "," + s
		}
		if l.RAM != nil && l.RAM.Dax != nil {
			namespaces = l.RAM.Dax.Name + ":" + l.RAM.Dax.Mode()
		}
		if n := l.NDRegion; n != nil {
			ndName = n.Name
			var names []string
			for _, ns := range n.Namespaces {
				if !ns.Idle() {
					names = append(names, ns.Name+":"+ns.Mode)
				}
			}
			if len(names) > 0 {
				namespaces = strings.Join(names, ",")
			}
		}
		row := []string{r.Name, Dash(r.UUID), units.FormatSize(r.Size), r.Decoder,
			Dash(strings.Join(r.Targets, ",")), state, ndName, namespaces}
		if withMemory {
			row = append(row, memoryCell(l.RAM, true))
		}
		rows = append(rows, row)
	}
	return header, rows
}

// listedRegions are the CXL regions of t as region list shows them: with
// the nd region of the same name once the region is bound, and the memory
// of a RAM region.
func listedRegions(t *sysfs.Topology) []sysfs.RegionLink {
	nd := map[string]*sysfs.NDRegion{}
	for i := range t.NDRegions {
		nd[t.NDRegions[i].Name] = &t.NDRegions[i]
	}
	var out []sysfs.RegionLink
	for i := range t.Regions {
		r := &t.Regions[i]
		l := sysfs.RegionLink{Region: r, RAM: t.RAM[r.Name]}
		if r.Driver != "" {
			l.NDRegion = nd[r.Name]
		}
		out = append(out, l)
	}
	return out
}

// RegionCreateJSON is region create's result with the keys of list --json
// in their types: "nd_region" and "dax" are objects named by their "dev"
// and "chardev", and device nodes go without /dev/ as in ndctl list. The
// fields here hide the region.Result ones of the same JSON name.
type RegionCreateJSON struct {
	*region.Result
	NDRegion   *ndRegionRef          `json:"nd_region,omitempty"`
	Dax        *daxRef               `json:"dax,omitempty"`
	Namespaces []NamespaceCreateJSON `json:"namespaces,omitempty"`
}

type ndRegionRef struct {
	Dev string `json:"dev"`
}

type daxRef struct {
	Chardev string `json:"chardev"`
}

// NamespaceCreateJSON is a namespace region create or namespace create
// made, its device nodes without /dev/.
type NamespaceCreateJSON struct {
	region.NamespaceResult
	BlockDev string `json:"blockdev,omitempty"`
	CharDev  string `json:"chardev,omitempty"`
}

// RegionCreate is the JSON form of res.
func RegionCreate(res *region.Result) RegionCreateJSON {
	j := RegionCreateJSON{Result: res}
	if res.NDRegion != "" {
		j.NDRegion = &ndRegionRef{Dev: res.NDRegion}
	}
	if res.RAMResult != nil && res.Dax != "" {
		j.Dax = &daxRef{Chardev: res.Dax}
	}
	for _, ns := range res.Namespaces {
		j.Namespaces = append(j.Namespaces, NamespaceCreate(ns))
	}
	return j
}

// NamespaceCreate is the JSON form of ns.
func NamespaceCreate(ns region.NamespaceResult) NamespaceCreateJSON {
	return NamespaceCreateJSON{NamespaceResult: ns,
		BlockDev: strings.TrimPrefix(ns.BlockDev, "/dev/"), CharDev: strings.TrimPrefix(ns.CharDev, "/dev/")}
}

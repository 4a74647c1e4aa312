package view

import (
	"fmt"
	"strings"
	"time"

	"github.com/cxlv/cxlv/region"
	"github.com/cxlv/cxlv/sysfs"
	"github.com/cxlv/cxlv/units"
	"github.com/cxlv/cxlv/virt"
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
// and "chardev", and device nodes go without /dev/ as in ndctl list.
type RegionCreateJSON struct {
	Region          string `json:"region"`
	UUID            string `json:"uuid,omitempty"` // pmem only
	Size            uint64 `json:"size"`
	Memdev          string `json:"memdev"`
	RootDecoder     string `json:"root_decoder"`
	EndpointDecoder string `json:"endpoint_decoder"`
	// An interleave set's memdevs and endpoint decoders, in position order.
	Memdevs          []string `json:"memdevs,omitempty"`
	EndpointDecoders []string `json:"endpoint_decoders,omitempty"`
	Ways             uint64   `json:"interleave_ways"`
	Granularity      uint64   `json:"interleave_granularity"`
	Type             string   `json:"type"`
	// RAM regions: the memory they became.
	*RAMCreateJSON
	Filesystem    string        `json:"filesystem,omitempty"`
	MountDir      string        `json:"mount,omitempty"`
	RegionTime    time.Duration `json:"region_ns"`
	NamespaceTime time.Duration `json:"namespace_ns,omitempty"`
	TotalTime     time.Duration `json:"total_ns"`
	NDRegion      *ndRegionRef  `json:"nd_region,omitempty"`
	Dax           *daxRef       `json:"dax,omitempty"`
	// Namespaces are the namespaces created, or re-assembled from labels.
	Namespaces []NamespaceCreateJSON `json:"namespaces,omitempty"`
}

// RAMCreateJSON is what the memory of a RAM region became (its dax device
// is RegionCreateJSON.Dax).
type RAMCreateJSON struct {
	Via         string              `json:"memory_path"`
	TargetNode  *int                `json:"target_node,omitempty"`
	Nodes       []int               `json:"memory_nodes,omitempty"`
	Online      region.OnlinePolicy `json:"online"`
	MemoryBytes uint64              `json:"memory_bytes"`
	Blocks      int                 `json:"memory_blocks"`
	BlockSize   uint64              `json:"memblock_size,omitempty"`
	OnlineBytes uint64              `json:"online_bytes"`
	Zones       []string            `json:"zones,omitempty"`
	AddTime     time.Duration       `json:"add_ns"`
	OnlineTime  time.Duration       `json:"online_ns"`
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
	Name        string      `json:"dev"`
	Mode        region.Mode `json:"mode"`
	UUID        string      `json:"uuid"`
	RawUUID     string      `json:"raw_uuid,omitempty"`
	Size        uint64      `json:"size"`
	Holder      string      `json:"holder,omitempty"`
	Reassembled bool        `json:"reassembled,omitempty"`
	BlockDev    string      `json:"blockdev,omitempty"`
	CharDev     string      `json:"chardev,omitempty"`
}

// RegionCreate is the JSON form of res.
func RegionCreate(res *region.Result) RegionCreateJSON {
	j := RegionCreateJSON{
		Region: res.Region, UUID: res.UUID, Size: res.Size, Memdev: res.Memdev,
		RootDecoder: res.RootDecoder, EndpointDecoder: res.EndpointDecoder,
		Memdevs: res.Memdevs, EndpointDecoders: res.EndpointDecoders,
		Ways: res.Ways, Granularity: res.Granularity, Type: res.Type,
		Filesystem: res.Filesystem, MountDir: res.MountDir,
		RegionTime: res.RegionTime, NamespaceTime: res.NamespaceTime, TotalTime: res.TotalTime,
	}
	if res.NDRegion != "" {
		j.NDRegion = &ndRegionRef{Dev: res.NDRegion}
	}
	if r := res.RAMResult; r != nil {
		j.RAMCreateJSON = &RAMCreateJSON{Via: r.Via, TargetNode: r.TargetNode, Nodes: r.Nodes, Online: r.Online,
			MemoryBytes: r.MemoryBytes, Blocks: r.Blocks, BlockSize: r.BlockSize, OnlineBytes: r.OnlineBytes,
			Zones: r.Zones, AddTime: r.AddTime, OnlineTime: r.OnlineTime}
		if r.Dax != "" {
			j.Dax = &daxRef{Chardev: r.Dax}
		}
	}
	for _, ns := range res.Namespaces {
		j.Namespaces = append(j.Namespaces, NamespaceCreate(ns))
	}
	return j
}

// NamespaceCreate is the JSON form of ns.
func NamespaceCreate(ns region.NamespaceResult) NamespaceCreateJSON {
	return NamespaceCreateJSON{Name: ns.Name, Mode: ns.Mode, UUID: ns.UUID, RawUUID: ns.RawUUID, Size: ns.Size,
		Holder: ns.Holder, Reassembled: ns.Reassembled,
		BlockDev: strings.TrimPrefix(ns.BlockDev, "/dev/"), CharDev: strings.TrimPrefix(ns.CharDev, "/dev/")}
}

// KeptJSON is a region destroyed with its namespaces' labels kept, and
// the command that brings them back.
type KeptJSON struct {
	Region     string   `json:"region"`
	UUID       string   `json:"uuid"`
	Namespaces []string `json:"namespaces"`
	// Memdevs are the region's memdevs in position order.
	Memdevs []string `json:"memdevs"`
	Command string   `json:"bring_back"`
}

// Kept is the JSON form of k, brought back by command.
func Kept(k region.Kept, command string) KeptJSON {
	return KeptJSON{Region: k.Region, UUID: k.UUID, Namespaces: k.Namespaces, Memdevs: k.Memdevs, Command: command}
}

// DestroyedJSON is what region destroy and namespace destroy --json print.
type DestroyedJSON struct {
	Destroyed []string   `json:"destroyed"`
	Kept      []KeptJSON `json:"kept,omitempty"`
}

// RemovedJSON is what remove --json prints.
type RemovedJSON struct {
	Removed []RemovedDeviceJSON `json:"removed"`
	Kept    []KeptJSON          `json:"kept,omitempty"`
}

// RemovedDeviceJSON is a device remove took away.
type RemovedDeviceJSON struct {
	Device string `json:"device"`
	// Released is the borrowed range given back (--release).
	Released *ReleasedJSON `json:"released,omitempty"`
}

// ReleasedJSON is a borrowed range given back, as remove --release --json
// and release --json print it.
type ReleasedJSON struct {
	Start   uint64 `json:"start"`
	Size    uint64 `json:"size"`
	Onlined int    `json:"onlined_blocks"`
}

// Released is the JSON form of b; nil for nil.
func Released(b *virt.GivenBack) *ReleasedJSON {
	if b == nil {
		return nil
	}
	return &ReleasedJSON{Start: b.Start, Size: b.Size, Onlined: b.Onlined}
}

// GivenBack says what a release gave back to the kernel.
func GivenBack(b *virt.GivenBack) string {
	if b == nil {
		return "gave the range back to the kernel"
	}
	msg := fmt.Sprintf("gave %s at %#x back to the kernel as System RAM", units.FormatSize(b.Size), b.Start)
	if b.Onlined > 0 {
		msg += fmt.Sprintf(" (onlined its %d memory blocks, which the kernel's auto_online_blocks policy left offline)", b.Onlined)
	}
	return msg
}

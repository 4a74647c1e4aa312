package view

import (
	"strings"

	"github.com/cxlv/cxlv/sysfs"
)

// JSON forms of nd regions and namespaces with the keys of `ndctl list`,
// and of dax devices with those of `daxctl list`.

// NDRegionJSON is an nd region as `ndctl list -R` prints it.
type NDRegionJSON struct {
	Dev                string          `json:"dev"`
	Size               uint64          `json:"size"`
	Align              uint64          `json:"align,omitempty"`
	AvailableSize      uint64          `json:"available_size"`
	MaxAvailableExtent uint64          `json:"max_available_extent"`
	Type               string          `json:"type"`
	State              string          `json:"state,omitempty"`
	Namespaces         []NamespaceJSON `json:"namespaces,omitempty"`
}

// NDRegion is the `ndctl list` form of r with its active namespaces.
func NDRegion(r sysfs.NDRegion) NDRegionJSON {
	j := NDRegionJSON{
		Dev:                r.Name,
		Size:               r.Size,
		Align:              r.Align,
		AvailableSize:      r.AvailableSize,
		MaxAvailableExtent: r.MaxAvailableExtent,
		Type:               "pmem",
		State:              unboundState(r.Driver),
	}
	for _, ns := range r.Namespaces {
		if !ns.Idle() {
			j.Namespaces = append(j.Namespaces, Namespace(ns))
		}
	}
	return j
}

// NamespaceJSON is a namespace as `ndctl list -N` prints it; Chardev is
// cxlvctl's shortcut to what ndctl nests in daxregion.devices.
type NamespaceJSON struct {
	Dev        string  `json:"dev"`
	Mode       string  `json:"mode"`
	Map        string  `json:"map,omitempty"`
	Size       uint64  `json:"size"`
	UUID       string  `json:"uuid,omitempty"`
	RawUUID    string  `json:"raw_uuid,omitempty"`
	SectorSize *uint64 `json:"sector_size,omitempty"`
	Align      uint64  `json:"align,omitempty"`
	Blockdev   string  `json:"blockdev,omitempty"`
	Chardev    string  `json:"chardev,omitempty"`
	Name       string  `json:"name,omitempty"`
	State      string  `json:"state,omitempty"`
}

// Namespace is the `ndctl list` form of n: with a pfn/dax/btt claim, size
// and uuid are the claim's and raw_uuid the namespace's.
func Namespace(n sysfs.Namespace) NamespaceJSON {
	j := NamespaceJSON{
		Dev:        n.Name,
		Mode:       n.Mode,
		Size:       n.Size,
		UUID:       n.UUID,
		SectorSize: n.SectorSize,
		Blockdev:   strings.TrimPrefix(n.BlockDev, "/dev/"),
		Chardev:    strings.TrimPrefix(n.CharDev, "/dev/"),
		Name:       n.AltName,
	}
	if c := n.Claim; c != nil {
		j.Size, j.UUID, j.RawUUID = c.Size, c.UUID, n.UUID
		switch c.Kind {
		case sysfs.ClaimPfn, sysfs.ClaimDax:
			j.Map = map[string]string{"pmem": "dev", "ram": "mem"}[c.Mode]
			j.Align = c.Align
		case sysfs.ClaimBtt:
			j.SectorSize = c.SectorSize
		}
	}
	if n.Mode == "devdax" {
		j.SectorSize = nil
	}
	if n.Driver == "" && (n.Claim == nil || n.Claim.Driver == "") {
		j.State = "disabled"
	}
	return j
}

// DaxJSON is a RAM region's dax device with the keys of `daxctl list`
// (chardev, size, target_node, align, mode, online_memblocks,
// total_memblocks, movable), and what cxlvctl adds: the device's
// numa_node, the bytes online and offline, the zones of the online blocks
// and the nodes the blocks belong to.
type DaxJSON struct {
	Chardev         string   `json:"chardev"`
	Size            uint64   `json:"size"`
	TargetNode      *int     `json:"target_node,omitempty"`
	Align           uint64   `json:"align,omitempty"`
	Mode            string   `json:"mode"`
	OnlineMemblocks *int     `json:"online_memblocks,omitempty"`
	TotalMemblocks  *int     `json:"total_memblocks,omitempty"`
	Movable         *bool    `json:"movable,omitempty"`
	State           string   `json:"state,omitempty"`
	NumaNode        *int     `json:"numa_node,omitempty"`
	BlockSize       uint64   `json:"memblock_size,omitempty"`
	OnlineBytes     *uint64  `json:"online_bytes,omitempty"`
	OfflineBytes    *uint64  `json:"offline_bytes,omitempty"`
	Zones           []string `json:"zones,omitempty"`
	MemoryNodes     []int    `json:"memory_nodes,omitempty"`
}

// Dax is the daxctl form of a RAM region's dax device, nil before dax_cxl
// made one.
func Dax(s sysfs.RAMState) *DaxJSON {
	d := s.Dax
	if d == nil {
		return nil
	}
	j := &DaxJSON{Chardev: d.Name, Size: d.Size, TargetNode: d.TargetNode, Align: d.Align, Mode: d.Mode(),
		State: unboundState(d.Driver)}
	if d.NumaNode != nil && *d.NumaNode >= 0 { // -1: none, left out as cxl list leaves a memdev's out
		j.NumaNode = d.NumaNode
	}
	if d.Mode() == "system-ram" {
		sum := s.Summary
		online, total := sum.Online, sum.Blocks
		onBytes, offBytes := sum.OnlineBytes(), sum.OfflineBytes()
		j.OnlineMemblocks, j.TotalMemblocks, j.Movable = &online, &total, sum.Movable()
		j.BlockSize, j.OnlineBytes, j.OfflineBytes = sum.BlockSize, &onBytes, &offBytes
		j.Zones, j.MemoryNodes = sum.Zones, sum.Nodes
	}
	return j
}

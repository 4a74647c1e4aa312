package sysfs

import "strings"

// JSON of the linked view (`cxlvctl list --json`). Memdev, decoder and
// region objects are the `cxl list` ones; nd regions and namespaces use
// `ndctl list` keys.

// LinkJSON is one DeviceLink: the cxl_virt device's keys, then the
// memdev's (as `cxl list -M` prints them, flat, so that "memdev" is the
// memdev's name here as everywhere else), then what it leads to.
type LinkJSON struct {
	Device      string  `json:"device,omitempty"`
	Memstart    *uint64 `json:"memstart,omitempty"`
	Memsize     *uint64 `json:"memsize,omitempty"`
	Pmem        *bool   `json:"pmem,omitempty"`
	Capacity    *uint64 `json:"capacity,omitempty"`
	WindowStart *uint64 `json:"window_start,omitempty"`
	WindowSize  *uint64 `json:"window_size,omitempty"`
	DeviceState string  `json:"device_state,omitempty"`
	*MemdevJSON
	Root         string           `json:"root,omitempty"`
	Endpoint     string           `json:"endpoint,omitempty"`
	RootDecoders []DecoderJSON    `json:"root_decoders,omitempty"`
	Regions      []RegionLinkJSON `json:"regions,omitempty"`
}

// RegionLinkJSON is a CXL region with its nd region (pmem) or its dax
// device and memory (ram).
type RegionLinkJSON struct {
	RegionJSON
	NDRegion *NDRegionJSON `json:"nd_region,omitempty"`
	Dax      *DaxJSON      `json:"dax,omitempty"`
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

// JSON returns the daxctl form of a RAM region's dax device, nil before
// dax_cxl made one.
func (s RAMState) JSON() *DaxJSON {
	d := s.Dax
	if d == nil {
		return nil
	}
	j := &DaxJSON{Chardev: d.Name, Size: d.Size, TargetNode: d.TargetNode, Align: d.Align, Mode: d.Mode(), NumaNode: d.NumaNode}
	if d.Driver == "" {
		j.State = "disabled"
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

// JSON returns the `ndctl list` form of n: with a pfn/dax/btt claim, size
// and uuid are the claim's and raw_uuid the namespace's.
func (n Namespace) JSON() NamespaceJSON {
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
		case ClaimPfn, ClaimDax:
			j.Map = map[string]string{"pmem": "dev", "ram": "mem"}[c.Mode]
			j.Align = c.Align
		case ClaimBtt:
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

// JSON returns the JSON form of the link; regions are all CXL regions
// (for the root decoders' free extent).
func (l DeviceLink) JSON(regions []Region) LinkJSON {
	var j LinkJSON
	if v := l.Virt; v != nil {
		j.Device, j.Memstart, j.Memsize, j.Pmem = v.Name, v.Memstart, v.Memsize, v.Pmem
		j.Capacity, j.WindowStart, j.WindowSize, j.DeviceState = v.Capacity, v.WindowStart, v.WindowSize, v.State
	}
	if l.Memdev != nil {
		m := l.Memdev.JSON()
		j.MemdevJSON = &m
	}
	if l.Root != nil {
		j.Root = l.Root.Name
	}
	if l.Endpoint != nil {
		j.Endpoint = l.Endpoint.Name
	}
	for _, d := range l.RootDecoders {
		j.RootDecoders = append(j.RootDecoders, d.JSON(regions))
	}
	for _, r := range l.Regions {
		rj := RegionLinkJSON{RegionJSON: r.Region.JSON()}
		if r.NDRegion != nil {
			nd := r.NDRegion.JSON()
			rj.NDRegion = &nd
		}
		if r.RAM != nil {
			rj.Dax = r.RAM.JSON()
		}
		j.Regions = append(j.Regions, rj)
	}
	return j
}

// JSON returns the `ndctl list` form of r with its active namespaces.
func (r NDRegion) JSON() NDRegionJSON {
	j := NDRegionJSON{
		Dev:                r.Name,
		Size:               r.Size,
		Align:              r.Align,
		AvailableSize:      r.AvailableSize,
		MaxAvailableExtent: r.MaxAvailableExtent,
		Type:               "pmem",
	}
	if r.Driver == "" {
		j.State = "disabled"
	}
	for _, ns := range r.Namespaces {
		if !ns.Idle() {
			j.Namespaces = append(j.Namespaces, ns.JSON())
		}
	}
	return j
}

package view

import (
	"github.com/cxlv/cxlv/mbox"
	"github.com/cxlv/cxlv/poison"
	"github.com/cxlv/cxlv/sysfs"
)

// JSON of the linked view (`cxlvctl list --json`). Memdev, decoder and
// region objects are the `cxl list` ones; nd regions and namespaces use
// `ndctl list` keys, dax devices `daxctl list` keys.

// LinkJSON is one DeviceLink: the cxl_virt device's keys, then the
// memdev's (as `cxl list -M` prints them, flat, so that "memdev" is the
// memdev's name here as everywhere else), then what it leads to.
type LinkJSON struct {
	Device   string  `json:"device,omitempty"`
	Memstart *uint64 `json:"memstart,omitempty"`
	Memsize  *uint64 `json:"memsize,omitempty"`
	Pmem     *bool   `json:"pmem,omitempty"`
	Borrowed *bool   `json:"borrowed,omitempty"`
	// AutoRegion and Locked: born with its regions committed (and their
	// decoders locked), on a module that makes such devices.
	AutoRegion  *bool   `json:"auto_region,omitempty"`
	Locked      *bool   `json:"locked,omitempty"`
	Capacity    *uint64 `json:"capacity,omitempty"`
	WindowStart *uint64 `json:"window_start,omitempty"`
	DeviceState string  `json:"device_state,omitempty"`
	// Performance are the figures the device's CDAT carries.
	Performance *CoordinatesJSON `json:"performance,omitempty"`
	// The shape of the device: an interleave set has ways > 1.
	Ways        *uint64 `json:"ways,omitempty"`
	HostBridges *uint64 `json:"host_bridges,omitempty"`
	Granularity *uint64 `json:"granularity,omitempty"`
	// The memdev of one device; a set has Members instead.
	*MemdevJSON
	Root         string           `json:"root,omitempty"`
	Endpoint     string           `json:"endpoint,omitempty"`
	RootDecoders []DecoderJSON    `json:"root_decoders,omitempty"`
	Regions      []RegionLinkJSON `json:"regions,omitempty"`
	// Members are an interleave set's memdevs in position order.
	Members []MemberJSON `json:"members,omitempty"`
}

// MemberJSON is one endpoint of an interleave set: its position, the
// memdev's keys and its endpoint port.
type MemberJSON struct {
	Position int `json:"position"`
	MemdevJSON
	Endpoint string `json:"endpoint,omitempty"`
}

// RegionLinkJSON is a CXL region with its nd region (pmem) or its dax
// device and memory (ram).
type RegionLinkJSON struct {
	RegionJSON
	NDRegion *NDRegionJSON `json:"nd_region,omitempty"`
	Dax      *DaxJSON      `json:"dax,omitempty"`
	// Access0 and Access1 are the coordinates the kernel computed for
	// the region (regionN/access0, access1).
	Access0 *CoordinatesJSON `json:"access0,omitempty"`
	Access1 *CoordinatesJSON `json:"access1,omitempty"`
	// MediaErrors are the poison records in the region (list
	// --media-errors).
	MediaErrors []MediaErrorJSON `json:"media_errors,omitempty"`
}

// CoordinatesJSON are performance figures: latencies in ns, bandwidths in
// MB/s (sysfs.Coordinates).
type CoordinatesJSON struct {
	ReadLatency    uint64 `json:"read_latency_ns"`
	WriteLatency   uint64 `json:"write_latency_ns"`
	ReadBandwidth  uint64 `json:"read_bandwidth_mbs"`
	WriteBandwidth uint64 `json:"write_bandwidth_mbs"`
}

// Coordinates is the JSON form of c; nil for nil.
func Coordinates(c *sysfs.Coordinates) *CoordinatesJSON {
	if c == nil {
		return nil
	}
	j := CoordinatesJSON(*c)
	return &j
}

// Details are what list adds when asked, beside the object each belongs
// to: the memdevs' health and partitions (`cxl list -H -I`) and the poison
// records (`cxl list --media-errors`). The zero value adds nothing.
type Details struct {
	Health    map[string]mbox.Health
	Partition map[string]mbox.Partition
	Firmware  map[string]mbox.Firmware
	// MediaErrors adds "media_errors" from Poison to memdevs and regions.
	MediaErrors bool
	Poison      []poison.Record
}

// memdev is m's JSON with the details of it.
func (d *Details) memdev(m sysfs.Memdev) MemdevJSON {
	j := Memdev(m)
	if h, ok := d.Health[m.Name]; ok {
		j.Health = Health(h)
	}
	if p, ok := d.Partition[m.Name]; ok {
		j.PartitionInfo = Partition(p)
	}
	if f, ok := d.Firmware[m.Name]; ok {
		j.Firmware = Firmware(f, m)
	}
	if d.MediaErrors {
		j.MediaErrors = MediaErrors(d.Poison, m.Name)
	}
	return j
}

// Links are the JSON forms of links with d; regions are all CXL regions
// (for the root decoders' free extent). Never nil: no link is [].
func Links(links []sysfs.DeviceLink, regions []sysfs.Region, d *Details) []LinkJSON {
	if d == nil {
		d = &Details{}
	}
	js := make([]LinkJSON, 0, len(links))
	for _, l := range links {
		js = append(js, d.link(l, regions))
	}
	return js
}

// Link is the JSON form of l; regions are all CXL regions.
func Link(l sysfs.DeviceLink, regions []sysfs.Region) LinkJSON {
	return (&Details{}).link(l, regions)
}

func (d *Details) link(l sysfs.DeviceLink, regions []sysfs.Region) LinkJSON {
	var j LinkJSON
	if v := l.Virt; v != nil {
		j.Device, j.Memstart, j.Memsize, j.Pmem, j.Borrowed = v.Name, v.Memstart, v.Memsize, v.Pmem, v.Borrowed
		j.AutoRegion, j.Locked = v.AutoRegion, v.Locked
		j.Capacity, j.WindowStart, j.DeviceState = v.Capacity, v.WindowStart, v.State
		j.Performance = Coordinates(v.Perf)
		j.Ways, j.HostBridges, j.Granularity = v.Ways, v.HostBridges, v.Granularity
	}
	for i, m := range l.Members {
		j.Members = append(j.Members, MemberJSON{Position: i, MemdevJSON: d.memdev(*m.Memdev), Endpoint: portName(m.Endpoint)})
	}
	if l.Memdev != nil && l.Members == nil {
		m := d.memdev(*l.Memdev)
		j.MemdevJSON = &m
		j.Endpoint = portName(l.Endpoint)
	}
	if l.Root != nil {
		j.Root = l.Root.Name
	}
	for _, d := range l.RootDecoders {
		j.RootDecoders = append(j.RootDecoders, Decoder(*d, regions))
	}
	for _, r := range l.Regions {
		rj := regionLink(*r.Region, r.NDRegion, r.RAM)
		if d.MediaErrors {
			rj.MediaErrors = RegionMediaErrors(d.Poison, r.Region.Name, r.Region.Resource)
		}
		j.Regions = append(j.Regions, rj)
	}
	return j
}

// regionLink is region r with its nd region and its memory, either nil.
func regionLink(r sysfs.Region, nd *sysfs.NDRegion, ram *sysfs.RAMState) RegionLinkJSON {
	j := RegionLinkJSON{RegionJSON: Region(r), Access0: Coordinates(r.Access[0]), Access1: Coordinates(r.Access[1])}
	if nd != nil {
		ndJSON := NDRegion(*nd)
		j.NDRegion = &ndJSON
	}
	if ram != nil {
		j.Dax = Dax(*ram)
	}
	return j
}

// portName is p's name, "" for none.
func portName(p *sysfs.Port) string {
	if p == nil {
		return ""
	}
	return p.Name
}

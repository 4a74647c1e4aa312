package view

import (
	"slices"
	"strconv"
	"strings"

	"github.com/cxlv/cxlv/mbox"
	"github.com/cxlv/cxlv/sysfs"
	"github.com/cxlv/cxlv/units"
)

// ListTable is the table of `cxlvctl list`: one row per namespace, else
// per region, else per link. The default columns fit 80 columns for a
// device or a set of up to four; verbose adds the decoder, the nd region,
// the device's columns and a set's shape, and RAM regions add a MEMORY
// column (verbose: the blocks and zones). d adds HEALTH and MEDIA_ERRORS
// when it has them.
func ListTable(links []sysfs.DeviceLink, verbose bool, d *Details) (header []string, rows [][]string) {
	if d == nil {
		d = &Details{}
	}
	header = []string{"DEVICE", "MEMDEV", "TYPE", "SIZE", "DECODER", "REGION", "ND_REGION", "NAMESPACE", "MODE", "DEVNODE"}
	if verbose {
		header = append(header, "MEMSTART", "SERIAL", "HOST", "STATE", "PERF", "FIRMWARE")
	}
	withMemory, withSets := false, false
	for _, l := range links {
		for _, r := range l.Regions {
			withMemory = withMemory || r.RAM != nil
		}
		withSets = withSets || l.Members != nil
	}
	if withSets && verbose {
		header = append(header, "INTERLEAVE")
	}
	if withMemory {
		header = append(header, "MEMORY")
	}
	if d.Health != nil {
		header = append(header, "HEALTH")
	}
	if d.MediaErrors {
		header = append(header, "MEDIA_ERRORS")
	}
	for _, l := range links {
		for _, r := range linkRows(l, verbose) {
			cells := r.cells
			if verbose {
				cells = append(cells, verboseColumns(l)...)
			}
			if withSets && verbose {
				cells = append(cells, interleaveCell(l))
			}
			if withMemory {
				cells = append(cells, memoryCell(r.ram, verbose))
			}
			if d.Health != nil {
				cells = append(cells, healthCell(l, d))
			}
			if d.MediaErrors {
				cells = append(cells, mediaErrorsCell(l, r.region, d))
			}
			rows = append(rows, cells)
		}
	}
	if !verbose {
		// DECODER and ND_REGION (the region's own name) are detail.
		header = slices.Delete(header, 4, 5)
		header = slices.Delete(header, 5, 6)
		for i := range rows {
			rows[i] = slices.Delete(rows[i], 4, 5)
			rows[i] = slices.Delete(rows[i], 5, 6)
		}
	}
	return header, rows
}

// healthCell is the HEALTH column of a link: each memdev's, "ok" for
// all when all are.
func healthCell(l sysfs.DeviceLink, d *Details) string {
	var cells []string
	for _, e := range l.Endpoints() {
		var h *mbox.Health
		if v, ok := d.Health[e.Memdev.Name]; ok {
			h = &v
		}
		cells = append(cells, HealthCell(h))
	}
	if len(cells) > 1 && len(slices.Compact(slices.Clone(cells))) == 1 {
		return cells[0]
	}
	return Dash(strings.Join(cells, "/"))
}

// mediaErrorsCell is the MEDIA_ERRORS column: the poison records in the
// row's region, or of the link's memdevs on a row without one.
func mediaErrorsCell(l sysfs.DeviceLink, region string, d *Details) string {
	n := 0
	for _, r := range d.Poison {
		if region != "" && r.Region == region ||
			region == "" && slices.ContainsFunc(l.Endpoints(), func(m sysfs.Member) bool { return m.Memdev.Name == r.Memdev }) {
			n++
		}
	}
	return strconv.Itoa(n)
}

// listRow is a row of ListTable's first columns, with the memory of the
// RAM region it shows.
type listRow struct {
	cells  []string
	ram    *sysfs.RAMState
	region string // the region the row shows, "" for none
}

// linkRows are the rows of one link: one per namespace, else per region,
// else one.
func linkRows(l sysfs.DeviceLink, verbose bool) []listRow {
	device, memdev, kind, size := "-", "-", "-", "-"
	if l.Virt != nil {
		device = l.Virt.Name
		if l.Virt.Memsize != nil {
			size = units.FormatSize(*l.Virt.Memsize)
		}
		if l.Virt.Pmem != nil {
			kind = memoryType(*l.Virt.Pmem)
		}
	}
	if m := l.Memdev; m != nil {
		var names []string
		var capacity uint64
		for _, e := range l.Endpoints() {
			names = append(names, e.Memdev.Name)
			capacity += e.Memdev.PmemSize + e.Memdev.RAMSize
		}
		memdev, size = memdevCell(names, verbose), units.FormatSize(capacity)
		kind = memoryType(m.PmemSize > 0)
		if m.PmemSize > 0 && m.RAMSize > 0 {
			kind = "ram+pmem"
		}
	}
	var names []string
	for _, d := range l.RootDecoders {
		names = append(names, d.Name)
	}
	base := []string{device, memdev, kind, size, Dash(strings.Join(names, ","))}
	if len(l.Regions) == 0 {
		return []listRow{{cells: append(base, "-", "-", "-", "-", "-")}}
	}
	var rows []listRow
	for _, r := range l.Regions {
		row := append(append([]string(nil), base...), r.Region.Name)
		if len(r.Region.Decoder) > 0 {
			row[4] = r.Region.Decoder
		}
		if r.Region.Mode != "" {
			row[2] = r.Region.Mode
		}
		if r.RAM != nil {
			nd, dax, mode := "-", "-", "-"
			if r.NDRegion != nil { // a pmem region's devdax, held by kmem
				nd = r.NDRegion.Name
			}
			if d := r.RAM.Dax; d != nil {
				dax, mode = d.Name, d.Mode()
			}
			rows = append(rows, listRow{cells: append(row, nd, dax, mode, "-"), ram: r.RAM, region: r.Region.Name})
			continue
		}
		if r.NDRegion == nil {
			rows = append(rows, listRow{cells: append(row, "-", "-", "-", "-"), region: r.Region.Name})
			continue
		}
		var active int
		for _, ns := range r.NDRegion.Namespaces {
			if ns.Idle() {
				continue
			}
			active++
			rows = append(rows, listRow{cells: append(append([]string(nil), row...), r.NDRegion.Name, ns.Name, ns.Mode, Dash(devNode(ns))),
				region: r.Region.Name})
		}
		if active == 0 {
			rows = append(rows, listRow{cells: append(row, r.NDRegion.Name, "-", "-", "-"), region: r.Region.Name})
		}
	}
	return rows
}

// memdevCell is the MEMDEV column: the memdevs of a set in position
// order, after the first without their "mem" (mem1,0 or mem1,2,0,3)
// unless verbose.
func memdevCell(names []string, verbose bool) string {
	if verbose {
		return strings.Join(names, ",")
	}
	short := slices.Clone(names)
	for i := 1; i < len(short); i++ {
		short[i] = strings.TrimPrefix(short[i], "mem")
	}
	return strings.Join(short, ",")
}

func memoryType(pmem bool) string {
	if pmem {
		return "pmem"
	}
	return "ram"
}

func devNode(ns sysfs.Namespace) string {
	if ns.CharDev != "" {
		return ns.CharDev
	}
	return ns.BlockDev
}

// interleaveCell is the INTERLEAVE column: "x4, 2 host bridges, 4K" for
// a set (its memdevs in position order are the MEMDEV column), "-" else.
func interleaveCell(l sysfs.DeviceLink) string {
	v := l.Virt
	if l.Members == nil || v.HostBridges == nil || v.Granularity == nil {
		return "-"
	}
	return "x" + strconv.FormatUint(*v.Ways, 10) + ", " + strconv.FormatUint(*v.HostBridges, 10) + " host bridges, " + units.FormatSize(*v.Granularity)
}

// autoMarks are what the STATE column adds for a device born with its
// regions committed (",auto") and their decoders locked (",locked").
func autoMarks(v *sysfs.VirtDevice) string {
	marks := ""
	if v.AutoRegion != nil && *v.AutoRegion {
		marks += ",auto"
	}
	if v.Locked != nil && *v.Locked {
		marks += ",locked"
	}
	return marks
}

func verboseColumns(l sysfs.DeviceLink) []string {
	memstart, serial, host, state, perf, firmware := "-", "-", "-", "-", "-", "-"
	if v := l.Virt; v != nil {
		if v.Memstart != nil {
			memstart = "0x" + strconv.FormatUint(*v.Memstart, 16)
		}
		state = Dash(v.State) + autoMarks(v)
		if v.Perf != nil {
			perf = PerfCell(*v.Perf)
		}
	}
	if m := l.Memdev; m != nil {
		var serials, hosts []string
		for _, e := range l.Endpoints() {
			if e.Memdev.Serial != nil {
				serials = append(serials, "0x"+strconv.FormatUint(*e.Memdev.Serial, 16))
			}
			hosts = append(hosts, e.Memdev.Host)
		}
		serial, host = Dash(strings.Join(serials, ",")), strings.Join(hosts, ",")
		if m.FirmwareVersion != nil {
			firmware = Dash(*m.FirmwareVersion)
		}
		if m.Driver == "" {
			state = "disabled"
		} else if state == "-" {
			state = "enabled"
		}
	}
	return []string{memstart, serial, host, state, perf, firmware}
}

// PerfCell prints coordinates in one word: read/write latency, then read/
// write bandwidth ("250/300ns,30/25GB/s", else MB/s).
func PerfCell(c sysfs.Coordinates) string {
	bw := strconv.FormatUint(c.ReadBandwidth, 10) + "/" + strconv.FormatUint(c.WriteBandwidth, 10) + "MB/s"
	if c.ReadBandwidth%1000 == 0 && c.WriteBandwidth%1000 == 0 {
		bw = strconv.FormatUint(c.ReadBandwidth/1000, 10) + "/" + strconv.FormatUint(c.WriteBandwidth/1000, 10) + "GB/s"
	}
	return strconv.FormatUint(c.ReadLatency, 10) + "/" + strconv.FormatUint(c.WriteLatency, 10) + "ns," + bw
}

// memoryCell is the MEMORY column of a row: what the memory of the RAM
// region it shows became, "-" for a row of another kind; the node and
// what is offline, or "offline" for a dax device none of whose memory
// is online, unless verbose, which adds the blocks and zones (and the
// node of an offline one).
func memoryCell(st *sysfs.RAMState, verbose bool) string {
	switch {
	case st == nil:
		return "-"
	case verbose || st.Dax == nil:
		return memoryText(st)
	}
	s := st.Summary
	if s.Online == 0 {
		return "offline"
	}
	txt := "node " + memoryNode(st)
	if s.Offline > 0 {
		txt += ", " + units.FormatSize(s.OfflineBytes()) + " offline"
	}
	return txt
}

// memoryNode is the node (or nodes) of a RAM region's memory: its blocks',
// else the dax device's target node, "?" unknown.
func memoryNode(st *sysfs.RAMState) string {
	if len(st.Summary.Nodes) > 0 {
		return JoinInts(st.Summary.Nodes)
	}
	if d := st.Dax; d != nil && d.TargetNode != nil {
		return strconv.Itoa(*d.TargetNode)
	}
	return "?"
}

// memoryText says where a RAM region's memory is: "node 1: 4/4 blocks
// online (512M Movable)".
func memoryText(st *sysfs.RAMState) string {
	if st.Dax == nil {
		return "no dax device"
	}
	s := st.Summary
	txt := "node " + memoryNode(st) + ": " + strconv.Itoa(s.Online) + "/" + strconv.Itoa(s.Blocks) + " blocks online"
	if s.Online > 0 {
		txt += " (" + units.FormatSize(s.OnlineBytes()) + " " + strings.Join(s.Zones, ",") + ")"
	}
	if s.Offline > 0 {
		txt += ", " + units.FormatSize(s.OfflineBytes()) + " offline"
	}
	return txt
}

// Dash is a table cell: s, or "-" for nothing.
func Dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// JoinInts is v as "1,2".
func JoinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

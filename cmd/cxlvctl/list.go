package main

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/urfave/cli/v2"

	"github.com/cxlv/cxlv/debugfs"
	"github.com/cxlv/cxlv/sysfs"
)

func listCommand() *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "list devices linked to memdev, root decoder, region, nd region, namespace and /dev node",
		Description: "One row per namespace (or region, or memdev). Works without cxl_virt too:\n" +
			"then it lists the CXL memdevs of the machine (QEMU's emulated device, real hardware).\n" +
			"--json prints one object per memdev: the cxl_virt device's attributes (device, memstart,\n" +
			"memsize, pmem, capacity, window_start, window_size, device_state), \"memdev\", \"root_decoders\"\n" +
			"and \"regions\" with the keys of `cxl list`, and each region's \"nd_region\" with its\n" +
			"\"namespaces\" with the keys of `ndctl list` (pmem), or its \"dax\" device with the keys of\n" +
			"`daxctl list` plus numa_node, memblock_size, online_bytes, offline_bytes, zones and\n" +
			"memory_nodes (ram). RAM regions add a MEMORY column to the table: node, blocks online, zone.",
		Flags: []cli.Flag{
			jsonFlag(),
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "more columns"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("list takes no arguments, got %q", c.Args().First())
			}
			e, err := newEnv(c)
			if err != nil {
				return err
			}
			return printLinks(e.sys, e.out, c.Bool("json"), c.Bool("verbose"), func(sysfs.DeviceLink) bool { return true })
		},
	}
}

// printDevice prints the list entry of one cxl_virt device.
func printDevice(e *env, asJSON bool, name string) error {
	return printLinks(e.sys, e.out, asJSON, false, func(l sysfs.DeviceLink) bool {
		return l.Virt != nil && l.Virt.Name == name
	})
}

func printLinks(sys sysfs.FS, out io.Writer, asJSON, verbose bool, keep func(sysfs.DeviceLink) bool) error {
	t, err := sys.Topology()
	if err != nil {
		return err
	}
	var links []sysfs.DeviceLink
	for _, l := range t.Links() {
		if keep(l) {
			links = append(links, l)
		}
	}
	if asJSON {
		js := make([]sysfs.LinkJSON, 0, len(links))
		for _, l := range links {
			js = append(js, l.JSON(t.Regions))
		}
		return writeJSON(out, js)
	}
	header := []string{"DEVICE", "MEMDEV", "TYPE", "SIZE", "DECODER", "REGION", "ND_REGION", "NAMESPACE", "MODE", "DEVNODE"}
	if verbose {
		header = append(header, "MEMSTART", "SERIAL", "HOST", "STATE")
	}
	// RAM regions add what their memory became, as a last column.
	withMemory := false
	for _, l := range links {
		for _, r := range l.Regions {
			withMemory = withMemory || r.RAM != nil
		}
	}
	if withMemory {
		header = append(header, "MEMORY")
	}
	var rows [][]string
	for _, l := range links {
		for i, r := range linkRows(l) {
			if verbose {
				r = append(r, verboseColumns(l)...)
			}
			if withMemory {
				r = append(r, memoryColumn(l, i))
			}
			rows = append(rows, r)
		}
	}
	return writeTable(out, header, rows)
}

// linkRows are the table rows of one link: one per namespace, else per
// region, else one.
func linkRows(l sysfs.DeviceLink) [][]string {
	device, memdev, kind, size := "-", "-", "-", "-"
	if l.Virt != nil {
		device = l.Virt.Name
		if l.Virt.Memsize != nil {
			size = debugfs.FormatSize(*l.Virt.Memsize)
		}
		if l.Virt.Pmem != nil {
			kind = memoryType(*l.Virt.Pmem)
		}
	}
	if m := l.Memdev; m != nil {
		memdev, size = m.Name, debugfs.FormatSize(m.PmemSize+m.RAMSize)
		kind = memoryType(m.PmemSize > 0)
		if m.PmemSize > 0 && m.RAMSize > 0 {
			kind = "ram+pmem"
		}
	}
	decoder := "-"
	var names []string
	for _, d := range l.RootDecoders {
		names = append(names, d.Name)
	}
	if len(names) > 0 {
		decoder = strings.Join(names, ",")
	}
	base := []string{device, memdev, kind, size, decoder}
	if len(l.Regions) == 0 {
		return [][]string{append(base, "-", "-", "-", "-", "-")}
	}
	var rows [][]string
	for _, r := range l.Regions {
		row := append(append([]string(nil), base...), r.Region.Name)
		if len(r.Region.Decoder) > 0 {
			row[4] = r.Region.Decoder
		}
		if r.Region.Mode != "" {
			row[2] = r.Region.Mode
		}
		if r.RAM != nil {
			dax, mode := "-", "-"
			if d := r.RAM.Dax; d != nil {
				dax, mode = d.Name, d.Mode()
			}
			rows = append(rows, append(row, "-", dax, mode, "-"))
			continue
		}
		if r.NDRegion == nil {
			rows = append(rows, append(row, "-", "-", "-", "-"))
			continue
		}
		var active int
		for _, ns := range r.NDRegion.Namespaces {
			if ns.Idle() {
				continue
			}
			active++
			rows = append(rows, append(append([]string(nil), row...), r.NDRegion.Name, ns.Name, ns.Mode, dash(devNode(ns))))
		}
		if active == 0 {
			rows = append(rows, append(row, r.NDRegion.Name, "-", "-", "-"))
		}
	}
	return rows
}

// memoryColumn is the MEMORY cell of row i of a link: the state of a RAM
// region's memory, "-" for other rows. linkRows gives a RAM region one row.
func memoryColumn(l sysfs.DeviceLink, i int) string {
	row := 0
	for _, r := range l.Regions {
		n := 1
		if r.RAM == nil && r.NDRegion != nil {
			n = 0
			for _, ns := range r.NDRegion.Namespaces {
				if !ns.Idle() {
					n++
				}
			}
			n = max(n, 1)
		}
		if i >= row && i < row+n {
			if r.RAM != nil {
				return memoryText(r.RAM)
			}
			return "-"
		}
		row += n
	}
	return "-"
}

// memoryText says where a RAM region's memory is: "node 1: 4/4 blocks
// online (512M Movable)".
func memoryText(st *sysfs.RAMState) string {
	if st.Dax == nil {
		return "no dax device"
	}
	s := st.Summary
	node := "?"
	if d := st.Dax; d.TargetNode != nil {
		node = strconv.Itoa(*d.TargetNode)
	}
	if len(s.Nodes) > 0 {
		node = joinInts(s.Nodes)
	}
	txt := "node " + node + ": " + strconv.Itoa(s.Online) + "/" + strconv.Itoa(s.Blocks) + " blocks online"
	if s.Online > 0 {
		txt += " (" + debugfs.FormatSize(s.OnlineBytes()) + " " + strings.Join(s.Zones, ",") + ")"
	}
	if s.Offline > 0 {
		txt += ", " + debugfs.FormatSize(s.OfflineBytes()) + " offline"
	}
	return txt
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

func verboseColumns(l sysfs.DeviceLink) []string {
	memstart, serial, host, state := "-", "-", "-", "-"
	if v := l.Virt; v != nil {
		if v.Memstart != nil {
			memstart = "0x" + strconv.FormatUint(*v.Memstart, 16)
		}
		state = dash(v.State)
	}
	if m := l.Memdev; m != nil {
		if m.Serial != nil {
			serial = "0x" + strconv.FormatUint(*m.Serial, 16)
		}
		host = m.Host
		if m.Driver == "" {
			state = "disabled"
		} else if state == "-" {
			state = "enabled"
		}
	}
	return []string{memstart, serial, host, state}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// writeTable prints plain, left-aligned columns (kubectl/ndctl style).
func writeTable(out io.Writer, header []string, rows [][]string) error {
	t := tablewriter.NewTable(out,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Symbols: tw.NewSymbols(tw.StyleNone),
			Settings: tw.Settings{
				Separators: tw.Separators{BetweenRows: tw.Off, BetweenColumns: tw.Off},
				Lines:      tw.Lines{ShowHeaderLine: tw.Off},
			},
		})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithPadding(tw.Padding{Left: "", Right: "   ", Overwrite: true}),
	)
	t.Header(header)
	if err := t.Bulk(rows); err != nil {
		return err
	}
	return t.Render()
}

func writeJSON(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/urfave/cli/v2"

	"github.com/cxlv/cxlv/sysfs"
	"github.com/cxlv/cxlv/units"
)

func listCommand() *cli.Command {
	return &cli.Command{
		Name:      "list",
		Usage:     "list devices linked to memdev, root decoder, region, nd region, namespace and /dev node",
		ArgsUsage: "[cxlvN|memN...]",
		Description: "One row per namespace (or region, or memdev). Works without cxl_virt\n" +
			"too: then it lists the CXL memdevs of the machine (QEMU's emulated\n" +
			"device, real hardware). Names and -m/-r/-d keep the devices they name or\n" +
			"lead to, as `cxl list` filters do; a name that does not exist is an\n" +
			"error (exit 6). Without a CXL bus it prints nothing (--json: []) and\n" +
			"exits 0. CAPACITY is the memdev's (pmem_size + ram_size), else the\n" +
			"cxl_virt device's capacity until its memdev appears. RAM regions add a\n" +
			"MEMORY column.\n" +
			"--json prints one object per memdev (docs/json.md): the cxl_virt\n" +
			"device's keys, the memdev's keys of `cxl list -M` (serial as a decimal\n" +
			"string: jq 1.6 rounds numbers above 2^53), \"root_decoders\" and \"regions\"\n" +
			"as `cxl list` prints them, and each region's \"nd_region\" and\n" +
			"\"namespaces\" (`ndctl list`, pmem) or \"dax\" device (`daxctl list`, ram).\n" +
			"-u prints sizes and addresses as `cxl list -u` does.",
		Flags: []cli.Flag{
			jsonFlag(),
			&cli.BoolFlag{Name: "human", Aliases: []string{"u"}, Usage: "with --json: sizes and hex as cxl list -u"},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "more columns"},
			&cli.StringFlag{Name: "memdev", Aliases: []string{"m"}, Usage: "only the device of this memdev (memN)"},
			&cli.StringFlag{Name: "region", Aliases: []string{"r"}, Usage: "only this region (regionN) and its device"},
			&cli.StringFlag{Name: "decoder", Aliases: []string{"d"}, Usage: "only the device using this decoder"},
			noHeadersFlag(),
		},
		Action: func(c *cli.Context) error {
			e, err := newEnv(c)
			if err != nil {
				return err
			}
			opt := listOptions{json: c.Bool("json"), human: c.Bool("human"), verbose: c.Bool("verbose"), headers: !c.Bool("no-headers"),
				filter: linkFilter{names: c.Args().Slice(), memdev: c.String("memdev"), region: c.String("region"), decoder: c.String("decoder")}}
			if opt.human && !opt.json {
				return usagef("--human (-u) shapes --json output: add --json")
			}
			return printLinks(e, opt)
		},
	}
}

// listOptions say what `list` prints.
type listOptions struct {
	json, human, verbose, headers bool
	filter                        linkFilter
}

// printDevice prints the list entry of one cxl_virt device: with --json
// the object itself, not a list of one.
func printDevice(e *env, asJSON bool, name string) error {
	t, err := e.host.Sys().Topology()
	if err != nil {
		return err
	}
	for _, l := range t.Links() {
		if l.Virt == nil || l.Virt.Name != name {
			continue
		}
		if asJSON {
			return writeJSON(e.out, l.JSON(t.Regions))
		}
		return printTable(e.out, []sysfs.DeviceLink{l}, listOptions{headers: true})
	}
	return &sysfs.NotFoundError{Kind: "cxl_virt device", Name: name}
}

func printLinks(e *env, opt listOptions) error {
	t, err := e.host.Sys().Topology()
	if errors.Is(err, sysfs.ErrNotSupported) {
		// `cxl list` prints nothing on a machine without CXL and succeeds;
		// say why on stderr.
		fmt.Fprintf(e.errOut, "cxlvctl: %v\n", err)
		if opt.json {
			return writeJSON(e.out, []sysfs.LinkJSON{})
		}
		return nil
	}
	if err != nil {
		return err
	}
	links, err := opt.filter.apply(t)
	if err != nil {
		return err
	}
	if opt.json {
		js := make([]sysfs.LinkJSON, 0, len(links))
		for _, l := range links {
			js = append(js, l.JSON(t.Regions))
		}
		if opt.human {
			return writeHumanJSON(e.out, js)
		}
		return writeJSON(e.out, js)
	}
	return printTable(e.out, links, opt)
}

func printTable(out io.Writer, links []sysfs.DeviceLink, opt listOptions) error {
	header := []string{"DEVICE", "MEMDEV", "TYPE", "CAPACITY", "DECODER", "REGION", "ND_REGION", "NAMESPACE", "MODE", "DEVNODE"}
	if opt.verbose {
		header = append(header, "MEMSTART", "SERIAL", "HOST", "STATE", "FIRMWARE")
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
			if opt.verbose {
				r = append(r, verboseColumns(l)...)
			}
			if withMemory {
				r = append(r, memoryColumn(l, i))
			}
			rows = append(rows, r)
		}
	}
	if !opt.headers {
		header = nil
	}
	return writeTable(out, header, rows)
}

// linkFilter is list's selection: device or memdev names, and -m, -r, -d.
type linkFilter struct {
	names                   []string
	memdev, region, decoder string
}

// apply returns the links the filter keeps; with -r each keeps that region
// alone. A name that is nowhere in the topology is a *NotFoundError.
func (f linkFilter) apply(t *sysfs.Topology) ([]sysfs.DeviceLink, error) {
	if err := f.check(t); err != nil {
		return nil, err
	}
	var out []sysfs.DeviceLink
	for _, l := range t.Links() {
		if !f.keeps(l) {
			continue
		}
		if f.region != "" {
			var kept []sysfs.RegionLink
			for _, r := range l.Regions {
				if r.Region.Name == f.region {
					kept = append(kept, r)
				}
			}
			l.Regions = kept
		}
		out = append(out, l)
	}
	return out, nil
}

// check makes a misspelt name an error rather than an empty list.
func (f linkFilter) check(t *sysfs.Topology) error {
	known := map[string]bool{}
	for _, v := range t.Virt {
		known[v.Name] = true
	}
	for _, m := range t.Memdevs {
		known[m.Name] = true
	}
	for _, name := range f.names {
		if !known[name] {
			return &sysfs.NotFoundError{Kind: "cxl_virt device or memdev", Name: name}
		}
	}
	if f.memdev != "" && !slices.ContainsFunc(t.Memdevs, func(m sysfs.Memdev) bool { return m.Name == f.memdev }) {
		return &sysfs.NotFoundError{Kind: "memdev", Name: f.memdev}
	}
	if f.region != "" && !slices.ContainsFunc(t.Regions, func(r sysfs.Region) bool { return r.Name == f.region }) {
		return &sysfs.NotFoundError{Kind: "region", Name: f.region}
	}
	if f.decoder != "" && !slices.ContainsFunc(t.Decoders, func(d sysfs.Decoder) bool { return d.Name == f.decoder }) {
		return &sysfs.NotFoundError{Kind: "decoder", Name: f.decoder}
	}
	return nil
}

func (f linkFilter) keeps(l sysfs.DeviceLink) bool {
	memdev, device := "", ""
	if l.Memdev != nil {
		memdev = l.Memdev.Name
	}
	if l.Virt != nil {
		device = l.Virt.Name
	}
	if len(f.names) > 0 && !slices.Contains(f.names, memdev) && !slices.Contains(f.names, device) {
		return false
	}
	if f.memdev != "" && f.memdev != memdev {
		return false
	}
	if f.region != "" && !slices.ContainsFunc(l.Regions, func(r sysfs.RegionLink) bool { return r.Region.Name == f.region }) {
		return false
	}
	return f.decoder == "" || slices.Contains(linkDecoders(l), f.decoder)
}

// linkDecoders are the decoders a link goes through: its root decoders,
// its regions' root decoders and endpoint decoders, and its endpoint's.
func linkDecoders(l sysfs.DeviceLink) []string {
	var names []string
	for _, d := range l.RootDecoders {
		names = append(names, d.Name)
	}
	for _, r := range l.Regions {
		names = append(names, r.Region.Decoder)
		names = append(names, r.Region.Targets...)
	}
	if l.Endpoint != nil {
		names = append(names, l.Endpoint.Decoders...)
	}
	return names
}

// linkRows are the table rows of one link: one per namespace, else per
// region, else one.
func linkRows(l sysfs.DeviceLink) [][]string {
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
		memdev, size = m.Name, units.FormatSize(m.PmemSize+m.RAMSize)
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
			nd, dax, mode := "-", "-", "-"
			if r.NDRegion != nil { // a pmem region's devdax, held by kmem
				nd = r.NDRegion.Name
			}
			if d := r.RAM.Dax; d != nil {
				dax, mode = d.Name, d.Mode()
			}
			rows = append(rows, append(row, nd, dax, mode, "-"))
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
		txt += " (" + units.FormatSize(s.OnlineBytes()) + " " + strings.Join(s.Zones, ",") + ")"
	}
	if s.Offline > 0 {
		txt += ", " + units.FormatSize(s.OfflineBytes()) + " offline"
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
	memstart, serial, host, state, firmware := "-", "-", "-", "-", "-"
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
		if m.FirmwareVersion != nil {
			firmware = dash(*m.FirmwareVersion)
		}
		if m.Driver == "" {
			state = "disabled"
		} else if state == "-" {
			state = "enabled"
		}
	}
	return []string{memstart, serial, host, state, firmware}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// writeTable prints plain, left-aligned columns (kubectl/ndctl style),
// without trailing spaces; a nil header prints none.
func writeTable(out io.Writer, header []string, rows [][]string) error {
	var buf strings.Builder
	t := tablewriter.NewTable(&buf,
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
	if header != nil {
		t.Header(header)
	}
	if err := t.Bulk(rows); err != nil {
		return err
	}
	if err := t.Render(); err != nil {
		return err
	}
	// The padding that separates columns also follows the last one.
	for line := range strings.Lines(buf.String()) {
		trimmed := strings.TrimRight(strings.TrimSuffix(line, "\n"), " ")
		if _, err := io.WriteString(out, trimmed+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// noHeadersFlag is the --no-headers flag of commands that print a table.
func noHeadersFlag() cli.Flag {
	return &cli.BoolFlag{Name: "no-headers", Usage: "no header line"}
}

// tableHeader is header, or nil with --no-headers.
func tableHeader(c *cli.Context, header []string) []string {
	if c.Bool("no-headers") {
		return nil
	}
	return header
}

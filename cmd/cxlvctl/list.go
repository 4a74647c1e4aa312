package main

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/cxlv/cxlv/cmd/cxlvctl/view"
	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/host"
	"github.com/cxlv/cxlv/mbox"
	"github.com/cxlv/cxlv/sysfs"
	"github.com/cxlv/cxlv/virt"
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
			"exits 0. SIZE is the memdev's (pmem_size + ram_size), else the\n" +
			"cxl_virt device's capacity until its memdev appears. RAM regions add a\n" +
			"MEMORY column.\n" +
			"--json prints one object per memdev (docs/json.md): the cxl_virt\n" +
			"device's keys, the memdev's keys of `cxl list -M` (serial as a decimal\n" +
			"string: jq 1.6 rounds numbers above 2^53), \"root_decoders\" and \"regions\"\n" +
			"as `cxl list` prints them, and each region's \"nd_region\" and\n" +
			"\"namespaces\" (`ndctl list`, pmem) or \"dax\" device (`daxctl list`, ram).\n" +
			"-u prints that JSON with sizes and addresses as `cxl list -u` does (-j implied).\n" +
			"-H adds each memdev's \"health\" (`cxl list -H`) and a HEALTH column, -I its\n" +
			"\"partition_info\" (`cxl list -I`), -F its \"firmware\" slots (`cxl list -F`),\n" +
			"each read through the memdev's mailbox (/dev/cxl/memN, root);\n" +
			"--media-errors adds the poison list to each memdev and region as\n" +
			"\"media_errors\" (`cxl list --media-errors`, Linux 6.4+) and a\n" +
			"MEDIA_ERRORS column. -v adds the wide columns to the table (STATE ends in\n" +
			",auto for a device born with its regions committed, create --auto-region,\n" +
			"and ,locked for one with --locked), and health, partition_info and firmware\n" +
			"to the JSON.",
		Flags: []cli.Flag{
			jsonFlag(),
			&cli.BoolFlag{Name: "human", Aliases: []string{"u"}, Usage: "JSON with sizes and hex as cxl list -u"},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "more columns; JSON: with health, partition_info and firmware"},
			&cli.BoolFlag{Name: "health", Aliases: []string{"H"}, Usage: "each memdev's health, as cxl list -H"},
			&cli.BoolFlag{Name: "partition", Aliases: []string{"I"}, Usage: "each memdev's partition_info, as cxl list -I"},
			&cli.BoolFlag{Name: "firmware", Aliases: []string{"F"}, Usage: "each memdev's firmware slots, as cxl list -F"},
			&cli.BoolFlag{Name: "media-errors", Aliases: []string{"L"}, Usage: "the poison records of each memdev and region, as cxl list --media-errors"},
			&cli.GenericFlag{Name: "memdev", Aliases: []string{"m"}, Value: nameValue("memdev"), Usage: "only the device of this memdev (memN)"},
			&cli.StringFlag{Name: "region", Aliases: []string{"r"}, Usage: "only this region (regionN) and its device"},
			&cli.GenericFlag{Name: "decoder", Aliases: []string{"d"}, Value: nameValue("root-decoder"), Usage: "only the device using this decoder"},
			noHeadersFlag(),
		},
		Action: func(c *cli.Context) error {
			e, err := newEnv(c)
			if err != nil {
				return err
			}
			opt := listOptions{json: c.Bool("json") || c.Bool("human"), human: c.Bool("human"), verbose: c.Bool("verbose"),
				headers: !c.Bool("no-headers"), mediaErrors: c.Bool("media-errors"),
				filter: linkFilter{names: c.Args().Slice(), memdev: c.String("memdev"), region: c.String("region"), decoder: c.String("decoder")}}
			// -v's JSON has what cxl list -vvv adds that is cheap to read.
			opt.health = c.Bool("health") || opt.verbose && opt.json
			opt.partition = c.Bool("partition") || opt.verbose && opt.json
			opt.firmware = c.Bool("firmware") || opt.verbose && opt.json
			return printLinks(e, opt)
		},
	}
}

// listOptions say what `list` prints.
type listOptions struct {
	json, human, verbose, headers bool
	health, partition, firmware   bool
	mediaErrors                   bool
	filter                        linkFilter
}

// printDevice prints the list entry of one cxl_virt device: with --json
// the object itself, not a list of one.
func printDevice(e *env, asJSON bool, name string) error {
	t, err := e.host.Sys().Topology()
	if err != nil {
		return err
	}
	l, err := virt.LinkOf(t, name)
	if err != nil {
		return err
	}
	if asJSON {
		return view.WriteJSON(e.out, view.Link(l, t.Regions))
	}
	return printTable(e.out, []sysfs.DeviceLink{l}, listOptions{headers: true}, nil)
}

func printLinks(e *env, opt listOptions) error {
	t, err := e.host.Sys().Topology()
	if errors.Is(err, cxlverr.ErrNotSupported) {
		// `cxl list` prints nothing on a machine without CXL and succeeds;
		// say why on stderr.
		view.Error(e.errOut, err)
		if opt.json {
			return view.WriteJSON(e.out, []view.LinkJSON{})
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
	d, err := e.listDetails(links, opt)
	if err != nil {
		return err
	}
	if opt.json {
		js := view.Links(links, t.Regions, d)
		if opt.human {
			return view.WriteHumanJSON(e.out, js)
		}
		return view.WriteJSON(e.out, js)
	}
	return printTable(e.out, links, opt, d)
}

// mailbox reads a memdev's state through its mailbox (mbox.Device).
type mailbox interface {
	Health() (mbox.Health, error)
	Partition() (mbox.Partition, error)
	Firmware() (mbox.Firmware, error)
}

// memdevMailbox is the mailbox of memdev on the host whose sysfs is sys:
// none for a tree other than the running system's, whose /dev is not the
// one of its memdevs. Tests put stand-ins here.
var memdevMailbox = func(sys sysfs.FS, memdev string) (mailbox, error) {
	if sys.Root() != host.DefaultSys {
		return nil, cxlverr.Errorf(cxlverr.ErrNotSupported, "%s: no mailbox under --sysfs-root %s (only the running system's memdevs have one)", memdev, sys.Root())
	}
	return mbox.Device{Memdev: memdev}, nil
}

// mailboxRead puts what read answers for memdev into into, unless into is
// nil; a memdev that cannot answer goes without, with a warning.
func mailboxRead[T any](into map[string]T, memdev, key string, read func() (T, error), warn func(error)) {
	if into == nil {
		return
	}
	v, err := read()
	if err != nil {
		warn(fmt.Errorf("no %s for %s: %w", key, memdev, err))
		return
	}
	into[memdev] = v
}

// listDetails reads what opt asks beyond sysfs for the memdevs of links:
// a memdev whose mailbox cannot be read goes without, with a warning, as
// cxl list leaves the keys out; so do media errors on a kernel without the
// poison list.
func (e *env) listDetails(links []sysfs.DeviceLink, opt listOptions) (*view.Details, error) {
	d := &view.Details{MediaErrors: opt.mediaErrors}
	if opt.health {
		d.Health = map[string]mbox.Health{}
	}
	if opt.partition {
		d.Partition = map[string]mbox.Partition{}
	}
	if opt.firmware {
		d.Firmware = map[string]mbox.Firmware{}
	}
	warn := func(err error) { view.Warning(e.errOut, err) }
	for _, l := range links {
		for _, m := range l.Endpoints() {
			name := m.Memdev.Name
			if opt.health || opt.partition || opt.firmware {
				mb, err := memdevMailbox(e.host.Sys(), name)
				if err != nil {
					warn(err)
					continue
				}
				// a map is nil unless opt asks for it
				mailboxRead(d.Health, name, "health", mb.Health, warn)
				mailboxRead(d.Partition, name, "partition_info", mb.Partition, warn)
				mailboxRead(d.Firmware, name, "firmware", mb.Firmware, warn)
			}
		}
	}
	if opt.mediaErrors {
		for _, l := range links {
			for _, m := range l.Endpoints() {
				records, err := e.poisoner().List(m.Memdev.Name)
				if errors.Is(err, cxlverr.ErrNotSupported) {
					warn(fmt.Errorf("no media errors: %w", err))
					return d, nil
				}
				if err != nil {
					return nil, err
				}
				d.Poison = append(d.Poison, records...)
			}
		}
	}
	return d, nil
}

func printTable(out io.Writer, links []sysfs.DeviceLink, opt listOptions, d *view.Details) error {
	header, rows := view.ListTable(links, opt.verbose, d)
	if !opt.headers {
		header = nil
	}
	// Two spaces between columns: the default table fits 80 columns.
	return view.WriteTableSep(out, header, rows, "  ")
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
			return &cxlverr.NotFoundError{Kind: "cxl_virt device or memdev", Name: name}
		}
	}
	if f.memdev != "" && !slices.ContainsFunc(t.Memdevs, func(m sysfs.Memdev) bool { return m.Name == f.memdev }) {
		return &cxlverr.NotFoundError{Kind: "memdev", Name: f.memdev}
	}
	if f.region != "" && !slices.ContainsFunc(t.Regions, func(r sysfs.Region) bool { return r.Name == f.region }) {
		return &cxlverr.NotFoundError{Kind: "region", Name: f.region}
	}
	if f.decoder != "" && !slices.ContainsFunc(t.Decoders, func(d sysfs.Decoder) bool { return d.Name == f.decoder }) {
		return &cxlverr.NotFoundError{Kind: "decoder", Name: f.decoder}
	}
	return nil
}

func (f linkFilter) keeps(l sysfs.DeviceLink) bool {
	var memdevs []string // a set's, or the one
	for _, m := range l.Endpoints() {
		memdevs = append(memdevs, m.Memdev.Name)
	}
	named := func(n string) bool { return slices.Contains(memdevs, n) || l.Virt != nil && l.Virt.Name == n }
	if len(f.names) > 0 && !slices.ContainsFunc(f.names, named) {
		return false
	}
	if f.memdev != "" && !slices.Contains(memdevs, f.memdev) {
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
	for _, m := range l.Endpoints() {
		if m.Endpoint != nil {
			names = append(names, m.Endpoint.Decoders...)
		}
	}
	return names
}

// noHeadersFlag is the --no-headers flag of commands that print a table.
func noHeadersFlag() cli.Flag {
	return &cli.BoolFlag{Name: "no-headers", Usage: "no header line"}
}

// proseOut is where a table command prints the lines around its table:
// stdout, or stderr with --no-headers, whose stdout is the rows alone.
func proseOut(c *cli.Context, e *env) io.Writer {
	if c.Bool("no-headers") {
		return e.errOut
	}
	return e.out
}

// tableHeader is header, or nil with --no-headers.
func tableHeader(c *cli.Context, header []string) []string {
	if c.Bool("no-headers") {
		return nil
	}
	return header
}

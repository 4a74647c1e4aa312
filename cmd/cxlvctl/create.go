package main

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/cxlv/cxlv/cmd/cxlvctl/view"
	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/hostmem"
	"github.com/cxlv/cxlv/sysfs"
	"github.com/cxlv/cxlv/units"
	"github.com/cxlv/cxlv/virt"
)

func createCommand() *cli.Command {
	return &cli.Command{
		Name:  "create",
		Usage: "create a cxl_virt device on reserved memory, or on RAM borrowed from the kernel",
		Description: "Without --memstart it uses the first reserved range (memmap= at boot) or free\n" +
			"borrowed range that fits, and otherwise borrows --size of System RAM from the\n" +
			"running kernel (256M-aligned blocks it can offline, above 4G, one node): no reboot.\n" +
			"Borrowed memory stays out of the kernel's hands across remove and create, so data\n" +
			"and labels survive, until `cxlvctl remove --release` or `cxlvctl release` gives it back.\n" +
			"With --memstart the range must be reserved or borrowed (see `cxlvctl ranges`).\n" +
			"Sizes and addresses take K/M/G/T suffixes (powers of 1024), decimal or 0x hex.\n" +
			"The device keeps its metadata at the start of the range and offers\n" +
			"the whole 256M blocks after it as capacity: --size 512M at 4G gives\n" +
			"256M; create prints both. It waits until the memdev is ready unless\n" +
			"--no-wait. --json prints one object (docs/json.md).\n" +
			"--read-latency, --write-latency (ns: 250ns, 1.5us) and --read-bandwidth,\n" +
			"--write-bandwidth (30G = 30 GB/s, 25000M = 25000 MB/s; decimal units) are the\n" +
			"figures the device's CDAT reports, 1 to 65534 ns or MB/s each; the defaults\n" +
			"are those of a CXL 2.0 x8 memory expander (250ns, 300ns, 30G, 25G). On Linux\n" +
			"6.12 and later the kernel adds the link and host bridge to them and gives a\n" +
			"RAM region's NUMA node its access coordinates and memory tier from the result.\n" +
			"--ways N (2, 4 or 8) makes an interleave set: N endpoints (memdevs) behind\n" +
			"--host-bridges H (1, 2 or 4, dividing N) of one CXL root, interleaved every\n" +
			"--granularity bytes (256 to 16K, default 4K); each endpoint offers 1/N of the\n" +
			"range, whose start and size are multiples of N x 256M. `cxlvctl region create\n" +
			"--device cxlvN` then makes one region over all N.\n" +
			"--firmware-slots N (2 to 4, default 2) firmware slots, of which slot 1 runs\n" +
			"--firmware-rev (up to 16 printable characters, default cxl_virt) from the\n" +
			"factory; `cxl update-firmware` (Linux 6.5 and later) writes the next slot.\n" +
			"A range that held a device before keeps its slots, as a device keeps its\n" +
			"flash: the flags apply to a range whose firmware state is new or of\n" +
			"another slot count.\n" +
			"--ram-size N (with --pmem, a multiple of 512M below the capacity) makes the\n" +
			"first N of the capacity volatile and the rest persistent; in a set each\n" +
			"endpoint's first N/ways (N a multiple of ways x 512M), and the set gets a root\n" +
			"decoder for each kind. `cxl set-partition` moves a memdev's boundary in 512M\n" +
			"steps, from the next remove and create on the range (a set's memdevs all\n" +
			"alike). Without --ram-size a range keeps the layout of its last device.\n" +
			"Partitions need RAM regions (Linux 6.3 and later): 6.1 refuses --ram-size.\n" +
			"--qos-class N (0 to 65535, default 0) is the QoS Throttling Group the platform\n" +
			"gives the device's root decoders and memory: `cxl list` shows it as qos_class\n" +
			"and `cxl create-region -Q` matches it. QoS classes need Linux 6.9 and later:\n" +
			"6.1 refuses --qos-class.\n" +
			"--auto-region has the device born as a server's firmware leaves it: every\n" +
			"decoder from the root to the endpoints committed, a region over each partition\n" +
			"(the volatile part, then the persistent part), which the kernel assembles at\n" +
			"probe: a RAM region's memory goes to kmem and online as the kernel's\n" +
			"auto_online_blocks says, a pmem region's namespaces come back from their labels.\n" +
			"create waits for the regions too. A remove and create on the range is the\n" +
			"device's reboot: the regions come back by themselves, with their data. Linux 6.3\n" +
			"and later: 6.1 refuses it. --locked also sets the decoders' Lock On Commit:\n" +
			"the kernel refuses to destroy the regions (Linux 7.x: 6.1 and 6.12 refuse it).",
		Flags: []cli.Flag{
			&cli.GenericFlag{Name: "memstart", Value: sizeValue("the first MiB of physical memory is never a reserved range; leave --memstart out to pick one, or give a start `cxlvctl ranges` lists"),
				Usage: "start of the reserved or borrowed range (e.g. 6G, 0x180000000; default: one that fits, else borrowed)"},
			&cli.BoolFlag{Name: "borrow", Usage: "borrow the range from System RAM even when a reserved one fits (at --memstart if given)"},
			&cli.GenericFlag{Name: "size", Value: sizeValue("too small: a device needs at least 256M of reserved memory"), Usage: "bytes of the range the device uses (e.g. 2G)"},
			&cli.BoolFlag{Name: "pmem", Usage: "persistent memory (needed for regions and namespaces on Linux 6.1)"},
			&cli.GenericFlag{Name: "serial", Value: serialValue(), Usage: "device serial number, decimal or 0x hex as the module reads it (010 is ten; default: derived from memstart)"},
			&cli.GenericFlag{Name: "read-latency", Value: figureValue(units.ParseLatency), Usage: "read latency of the device's memory (e.g. 250ns; default 250ns)"},
			&cli.GenericFlag{Name: "write-latency", Value: figureValue(units.ParseLatency), Usage: "write latency of the device's memory (e.g. 300ns; default 300ns)"},
			&cli.GenericFlag{Name: "read-bandwidth", Value: figureValue(units.ParseBandwidth), Usage: "read bandwidth of the device's memory (e.g. 30G for 30 GB/s; default 30G)"},
			&cli.GenericFlag{Name: "write-bandwidth", Value: figureValue(units.ParseBandwidth), Usage: "write bandwidth of the device's memory (e.g. 25G; default 25G)"},
			countFlag("ways", "endpoints of an interleave set: 2, 4 or 8 (default: 1, one device)", "2", "4", "8"),
			countFlag("host-bridges", "host bridges the set's endpoints sit behind: 1, 2 or 4 (default 1)", "1", "2", "4"),
			&cli.GenericFlag{Name: "granularity", Value: choiceValue([]string{"256", "512", "1K", "2K", "4K", "8K", "16K"}, units.ParseSize),
				Usage: "interleave granularity of the set: 256 to 16K, a power of two (default 4K)"},
			countFlag("firmware-slots", "firmware slots of the device: 2, 3 or 4 (default 2)", "2", "3", "4"),
			&cli.StringFlag{Name: "firmware-rev", Usage: "firmware revision slot 1 runs from the factory: up to 16 printable characters (default cxl_virt)"},
			&cli.GenericFlag{Name: "ram-size", Value: sizeValue(""),
				Usage: "with --pmem: volatile bytes at the start of the capacity, a multiple of 512M (e.g. 512M; default: the range's last layout, else 0)"},
			&cli.GenericFlag{Name: "qos-class", Value: &flagValue[uint64]{parse: qosClassValue},
				Usage: "QoS Throttling Group of the device's root decoders and memory: 0 to 65535 (default 0)"},
			&cli.BoolFlag{Name: "auto-region", Usage: "born with its decoders committed: the kernel assembles a region over each partition at probe"},
			&cli.BoolFlag{Name: "locked", Usage: "with --auto-region: its decoders locked (Lock On Commit), so the kernel keeps the regions"},
			&cli.BoolFlag{Name: "no-wait", Usage: "do not wait for the memdev (and the regions of --auto-region)"},
			// The default since issue 13; kept so that older scripts run.
			&cli.BoolFlag{Name: "wait", Hidden: true},
			timeoutFlag("how long to wait for the memdev"),
			jsonFlag(),
		},
		Action: runCreate,
	}
}

func runCreate(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("create takes no arguments, got %q", c.Args().First())
	}
	spec := virt.CreateSpec{Pmem: c.Bool("pmem"), Borrow: c.Bool("borrow")}
	// An absent flag stays 0, which Validate reports as required.
	spec.Memstart, _ = parsed[uint64](c, "memstart")
	spec.Memsize, _ = parsed[uint64](c, "size")
	spec.Serial, _ = parsed[uint64](c, "serial")
	spec.Perf = perfFlags(c)
	spec.Interleave = interleaveFlags(c)
	spec.Firmware.Slots, _ = parsed[uint64](c, "firmware-slots")
	spec.Firmware.Rev = c.String("firmware-rev")
	spec.Partition.RAMSize, spec.Partition.Set = parsed[uint64](c, "ram-size")
	spec.QoSClass.Class, spec.QoSClass.Set = parsed[uint64](c, "qos-class")
	spec.Auto = virt.AutoRegion{Set: c.Bool("auto-region"), Locked: c.Bool("locked")}
	if err := spec.Interleave.Validate(); err != nil {
		return err
	}
	e, err := newEnv(c)
	if err != nil {
		return err
	}
	if spec.Memstart == 0 && !spec.Borrow && spec.Memsize != 0 {
		if spec, err = place(e, spec); err != nil {
			return err
		}
	}
	// The request's own checks first, then the range against the devices
	// already there, then what the create will do.
	if err := spec.Validate(); err != nil {
		return err
	}
	if spec.Memstart != 0 {
		if err := refuseOverlap(e, spec); err != nil {
			return err
		}
	}
	if spec.Borrow && e.host.Sys().VirtLoaded() {
		// Said before the create (and in a dry run): the range is taken
		// from System RAM rather than a reserved range.
		view.Borrowing(e.errOut, spec.Memsize, spec.Memstart)
	}
	ctl := e.control()
	made, err := ctl.Create(spec)
	if err != nil || e.dryRun {
		return err
	}
	if !c.Bool("no-wait") {
		ctx, cancel := context.WithTimeout(c.Context, timeout(c))
		defer cancel()
		if made.Memdev, err = ctl.WaitMemdev(ctx, made.Name, e.progress(made.Name)); err != nil {
			return err
		}
		if spec.Auto.Set {
			if err := ctl.WaitAutoRegions(ctx, made.Name, e.progress(made.Name)); err != nil {
				return err
			}
		}
	}
	if err := printDevice(e, c.Bool("json"), made.Name); err != nil || c.Bool("json") {
		return err
	}
	if err := printCapacity(e, made.Name, spec.Memsize); err != nil {
		return err
	}
	if d := made.Device; d != nil && d.Borrowed != nil && *d.Borrowed && d.Memstart != nil {
		view.Borrowed(e.out, made.Name, spec.Memsize, *d.Memstart)
	}
	return nil
}

// perfFlags reads the CDAT figures; a flag left out stays 0, the module's
// default.
func perfFlags(c *cli.Context) sysfs.Coordinates {
	figure := func(name string) uint64 {
		v, _ := parsed[uint32](c, name)
		return uint64(v)
	}
	return sysfs.Coordinates{ReadLatency: figure("read-latency"), WriteLatency: figure("write-latency"),
		ReadBandwidth: figure("read-bandwidth"), WriteBandwidth: figure("write-bandwidth")}
}

// place picks where a device of spec.Memsize goes when no --memstart was
// given: the first reserved or free borrowed range that fits, else RAM
// borrowed from the kernel; an interleave set only on a range that fits.
func place(e *env, spec virt.CreateSpec) (virt.CreateSpec, error) {
	hm, err := hostmem.Read(e.host)
	if err != nil {
		return spec, err
	}
	if r, ok := hm.Fit(spec.Memsize, spec.StartAlign()); ok {
		spec.Memstart = r.Start
		view.UsingFreeRange(e.errOut, r.Start)
		return spec, nil
	}
	if spec.Ways > 1 {
		return spec, cxlverr.Invalidf("no reserved range has %s free at a multiple of %s for %d ways: reserve one at boot with memmap= (`cxlvctl ranges --size %s`), or give --memstart",
			units.FormatSize(spec.Memsize), units.FormatSize(spec.StartAlign()), spec.Ways, units.FormatSize(spec.Memsize))
	}
	spec.Borrow = true
	return spec, nil
}

// refuseOverlap refuses a range that overlaps a device's, as the module
// would (EEXIST), naming that device.
func refuseOverlap(e *env, spec virt.CreateSpec) error {
	devs, err := e.host.Sys().VirtDevices()
	if err != nil {
		return nil // no module: the create says so
	}
	end := spec.Memstart + spec.Memsize
	for _, d := range devs {
		if d.Memstart == nil || d.Memsize == nil || spec.Memstart >= *d.Memstart+*d.Memsize || *d.Memstart >= end {
			continue
		}
		return cxlverr.Errorf(cxlverr.ErrBusy, "create: %#x+%s overlaps %s (%#x+%s): pick a free range (`cxlvctl ranges`) or remove %s",
			spec.Memstart, units.FormatSize(spec.Memsize), d.Name, *d.Memstart, units.FormatSize(*d.Memsize), d.Name)
	}
	return nil
}

// interleaveFlags reads --ways, --host-bridges and --granularity; the
// create spec checks what they make together.
func interleaveFlags(c *cli.Context) virt.Interleave {
	var il virt.Interleave
	il.Ways, _ = parsed[uint64](c, "ways")
	il.HostBridges, _ = parsed[uint64](c, "host-bridges")
	il.Granularity, _ = parsed[uint64](c, "granularity")
	return il
}

// printCapacity says how much of the range asked for became capacity.
func printCapacity(e *env, name string, asked uint64) error {
	devs, err := e.host.Sys().VirtDevices()
	if err != nil {
		return err
	}
	for _, d := range devs {
		switch {
		case d.Name != name || d.Capacity == nil:
		case d.Set():
			view.Capacity(e.out, name, *d.Capacity, asked, uint64(*d.Ways))
		default:
			view.Capacity(e.out, name, *d.Capacity, asked, 0)
		}
	}
	return nil
}

package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cxlv/cxlv/cmd/cxlvctl/view"
	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/region"
	"github.com/cxlv/cxlv/sysfs"
	"github.com/cxlv/cxlv/virt"
)

func regionCommand() *cli.Command {
	return &cli.Command{
		Name:  "region",
		Usage: "create, destroy and list CXL regions (pmem, and ram)",
		Subcommands: []*cli.Command{
			{
				Name:  "create",
				Usage: "create a pmem region (and optionally a namespace, a DAX filesystem and its mount) or a ram region onlined as system memory",
				Description: "Runs the sysfs sequence of `cxl create-region` and `ndctl create-namespace` and waits\n" +
					"for the kernel's probes. On any failure everything it did is undone, DPA included.\n" +
					"--uuid re-creates a region with a known uuid: namespaces whose labels the memdev\n" +
					"keeps (region destroy --keep-namespaces) come back with their data.\n" +
					"--type ram (Linux " + cxlverr.KernelRAMRegions + "+, dax_cxl and kmem loaded) makes a volatile region that kmem adds\n" +
					"as memory blocks, onlined per --online: movable (ZONE_MOVABLE, can be given back),\n" +
					"normal (ZONE_NORMAL, usable by the kernel, may not offline again) or none; the\n" +
					"kernel's auto_online_blocks policy is set for the bind and restored afterwards.\n" +
					"Where no root decoder offers create_ram_region (Linux 6.1), --type ram makes a pmem\n" +
					"region, a devdax namespace and gives its dax device to kmem (daxctl\n" +
					"reconfigure-device --mode=system-ram; dax_pmem and kmem loaded); region destroy\n" +
					"gives the memory back first. The output says which path it took (memory_path).",
				Flags: []cli.Flag{
					&cli.GenericFlag{Name: "device", Value: nameValue("cxlv"), Usage: "cxl_virt device (cxlvN)"},
					&cli.GenericFlag{Name: "memdev", Value: nameValue("memdev"), Usage: "CXL memdev (memN), e.g. QEMU's emulated device"},
					withDefault(&cli.GenericFlag{Name: "type", Aliases: []string{"t"}, Value: choiceValue[string]([]string{region.TypePmem, region.TypeRAM}, nil),
						Usage: "region type: pmem or ram"}, region.TypePmem),
					&cli.GenericFlag{Name: "online", Value: choiceValue([]string{"movable", "normal", "none"}, region.ParseOnline),
						Usage: "ram: what the memory becomes: movable, normal or none (default: movable)"},
					&cli.GenericFlag{Name: "size", Aliases: []string{"s"}, Value: sizeValue("too small: a region is at least 256M, in 256M steps; leave --size out to use all free capacity"),
						Usage: "region size, a multiple of 256M (default: all free capacity)"},
					&cli.StringFlag{Name: "uuid", Aliases: []string{"U"}, Usage: "region uuid (default: a new one)"},
					&cli.GenericFlag{Name: "namespace", Aliases: []string{"n"}, Value: choiceValue(modeNames(region.ModeNone), region.ParseMode),
						Usage: "namespace to create: fsdax, devdax, raw or none (default: fsdax with --fs, else none)"},
					&cli.GenericFlag{Name: "fs", Value: choiceValue[string]([]string{"xfs", "ext4"}, nil), Usage: "make this filesystem on the fsdax namespace: xfs or ext4"},
					&cli.StringFlag{Name: "mount", Usage: "mount the filesystem here with -o dax"},
					timeoutFlag("how long to wait for each kernel probe"),
					jsonFlag(),
				},
				Action: runRegionCreate,
			},
			{
				Name:      "destroy",
				Usage:     "destroy regions, their namespaces (pmem) or memory (ram, offlined first) first, and free their DPA",
				ArgsUsage: "regionN...",
				Description: "Like `cxl destroy-region`, a region that holds data is refused without --force:\n" +
					"a namespace with a label (--force destroys it and its label; --keep-namespaces\n" +
					"keeps the label, and the region uuid it prints brings it back with `region create\n" +
					"--uuid`) or memory online (--force offlines it first). A namespace in use (mounted,\n" +
					"a partition of it mounted, under device-mapper or md, swap, open) is refused even\n" +
					"with --force, as ndctl refuses it: stop that user first. Every region named is\n" +
					"checked before the first write. --dry-run --json prints the plan as JSON.",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "destroy the namespaces and their labels, offline online memory (a namespace in use is still refused)"},
					&cli.BoolFlag{Name: "keep-namespaces", Usage: "keep the namespace labels, to bring them back with region create --uuid"},
					jsonFlag(),
				},
				Action: runRegionDestroy,
			},
			{
				Name:   "list",
				Usage:  "list CXL regions with their nd regions and namespaces",
				Flags:  []cli.Flag{jsonFlag(), noHeadersFlag()},
				Action: runRegionList,
			},
		},
	}
}

// regionManager is the region library bound to this environment.
func regionManager(e *env, timeout time.Duration) *region.Manager {
	m := &region.Manager{Host: e.host, W: e.w, Simulate: e.dryRun, Timeout: timeout,
		Progress: func(ev region.Event) { view.Step(e.errOut, ev.Step, ev.Done, ev.Elapsed) }}
	if e.dryRun {
		// A dry run reports no work: it did none and waited for nothing.
		m.Progress = nil
		m.Tools = region.PrintTools{DryRun: e.dryRunWriter()}
	}
	return m
}

func runRegionCreate(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("region create takes no arguments, got %q", c.Args().First())
	}
	e, err := newEnv(c)
	if err != nil {
		return err
	}
	spec := region.Spec{UUID: c.String("uuid"), Filesystem: c.String("fs"), MountDir: c.String("mount"), Type: c.String("type")}
	spec.Online, _ = parsed[region.OnlinePolicy](c, "online")
	switch dev, md := c.String("device"), c.String("memdev"); {
	case (dev == "") == (md == ""):
		return usagef("region create needs one of --device cxlvN or --memdev memN")
	case dev != "":
		if spec.Members, err = membersOf(e.host.Sys(), dev); err != nil {
			return err
		}
		spec.Memdev = spec.Members[0]
	default:
		if err := notSetMember(e.host.Sys(), md); err != nil {
			return err
		}
		spec.Memdev = md
	}
	spec.Size, _ = parsed[uint64](c, "size")
	spec.Namespace, _ = parsed[region.Mode](c, "namespace")
	if spec.Namespace == "" && spec.Filesystem != "" {
		spec.Namespace = region.ModeFsdax
	}
	res, err := regionManager(e, timeout(c)).Create(c.Context, spec)
	if err != nil || e.dryRun {
		return err
	}
	if c.Bool("json") {
		return view.WriteJSON(e.out, view.RegionCreate(res))
	}
	view.WriteRegionCreate(e.out, res)
	return nil
}

// membersOf are the memdevs of the cxl_virt device name means (cxlvN, or
// memN for the device that has it: virt.Resolve) in position order, as
// the module lists them once cxl_mem has bound them all: the one memdev
// of a device, the endpoints of an interleave set.
func membersOf(sys sysfs.FS, name string) ([]string, error) {
	d, err := virt.Resolve(sys, name)
	if err != nil {
		return nil, err
	}
	if len(d.Virt.Memdevs) == 0 {
		return nil, fmt.Errorf("%s has no memdev yet: wait for it (cxlvctl create --wait) or check that cxl_mem is loaded", d.Virt.Name)
	}
	return d.Virt.Memdevs, nil
}

// notSetMember refuses a region on one memdev of an interleave set: the
// set's root decoder interleaves across all of them.
func notSetMember(sys sysfs.FS, memdev string) error {
	d, err := virt.OfMemdev(sys, memdev)
	if err != nil || d == nil || !d.Set() {
		return err
	}
	return cxlverr.Invalidf("%s is one of the %d memdevs of the interleave set %s: make the region over all of them with --device %s",
		memdev, *d.Ways, d.Name, d.Name)
}

// teardown destroys the namespaces (unless o.KeepNamespaces), regions and
// DPA of a cxl_virt device for `remove --force`.
func teardown(e *env, device string, o region.DestroyOptions) ([]region.Kept, error) {
	t, err := e.host.Sys().Topology()
	if err != nil {
		return nil, err
	}
	l, err := virt.LinkOf(t, device)
	if err != nil || l.Memdev == nil {
		return nil, err // without a memdev nothing can have been built on it
	}
	return regionManager(e, region.DefaultTimeout).Teardown(l.Memdev.Name, o)
}

// keptCommand is the command that brings back the namespaces of a region
// destroyed with their labels kept: region create with its uuid, on its
// cxl_virt device (an interleave set by its name) or its memdev.
func keptCommand(sys sysfs.FS, k region.Kept) string {
	target := "--memdev " + strings.Join(k.Memdevs, ",")
	if len(k.Memdevs) > 0 {
		if d, err := virt.OfMemdev(sys, k.Memdevs[0]); err == nil && d != nil {
			target = "--device " + d.Name
		}
	}
	return fmt.Sprintf("cxlvctl region create %s --uuid %s --namespace none", target, k.UUID)
}

func runRegionDestroy(c *cli.Context) error {
	o := region.DestroyOptions{Force: c.Bool("force"), KeepNamespaces: c.Bool("keep-namespaces")}
	var kept []view.KeptJSON
	var done []string
	e, err := destroyEach(c, "region destroy needs region names (regionN)",
		func(m *region.Manager, name string) error { _, err := m.Host.Sys().Region(name); return err },
		func(m *region.Manager, name string) error {
			r, err := m.Host.Sys().Region(name)
			if err == nil {
				err = m.CheckDestroyRegions([]sysfs.Region{r}, o)
			}
			if err != nil {
				err = fmt.Errorf("region destroy %s: %w", name, err)
			}
			return err
		},
		func(m *region.Manager, name string) error {
			k, err := m.DestroyRegion(name, o)
			if err != nil {
				return err
			}
			if k != nil {
				kept = append(kept, view.Kept(*k, keptCommand(m.Host.Sys(), *k)))
			}
			done = append(done, name)
			return nil
		})
	return reportDestroyed(c, e, err, view.DestroyedJSON{Destroyed: done, Kept: kept})
}

// reportDestroyed prints what a destroy did, also when a later name
// failed (err): what is gone, and how kept labels come back.
func reportDestroyed(c *cli.Context, e *env, err error, d view.DestroyedJSON) error {
	switch {
	case e == nil || e.dryRun || err != nil && len(d.Destroyed) == 0:
		return err
	case c.Bool("json"):
		if jerr := view.WriteJSON(e.out, d); err == nil {
			err = jerr
		}
		return err
	}
	for _, name := range d.Destroyed {
		view.Destroyed(e.out, name)
	}
	view.WriteKept(e.out, d.Kept)
	return err
}

// destroyEach resolves every name given, then checks each, then runs
// destroy on each, stopping at the first error: a typo in the last name,
// or a region in use, must not leave the first destroyed. The env is nil
// when nothing was tried.
func destroyEach(c *cli.Context, usage string, resolve, check, destroy func(*region.Manager, string) error) (*env, error) {
	if c.NArg() == 0 {
		return nil, usagef("%s", usage)
	}
	e, err := newEnv(c)
	if err != nil {
		return nil, err
	}
	m := regionManager(e, region.DefaultTimeout)
	names := c.Args().Slice()
	for i, name := range names {
		if slices.Contains(names[:i], name) {
			return nil, usagef("%s is named twice", name)
		}
		if err := resolve(m, name); err != nil {
			return nil, err
		}
	}
	for _, name := range names {
		if err := check(m, name); err != nil {
			return nil, err
		}
	}
	for _, name := range names {
		if err := destroy(m, name); err != nil {
			return e, err // the caller says what went before
		}
	}
	return e, nil
}

func runRegionList(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("region list takes no arguments, got %q", c.Args().First())
	}
	e, err := newEnv(c)
	if err != nil {
		return err
	}
	t, err := e.host.Sys().Topology()
	if err != nil {
		return err
	}
	if c.Bool("json") {
		return view.WriteJSON(e.out, view.RegionList(t))
	}
	header, rows := view.RegionTable(t)
	return view.WriteTable(e.out, tableHeader(c, header), rows)
}

package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/cxlv/cxlv/cmd/cxlvctl/view"
	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/region"
	"github.com/cxlv/cxlv/sysfs"
	"github.com/cxlv/cxlv/units"
	"github.com/cxlv/cxlv/virt"
)

func removeCommand() *cli.Command {
	return &cli.Command{
		Name:      "remove",
		Usage:     "remove cxl_virt devices or interleave sets",
		ArgsUsage: "cxlvN... | all",
		Description: "A memdev names its device; an interleave set is named as a set (cxlvN): naming\n" +
			"one of its memdevs is refused, since the module removes a set as one unit. `all`\n" +
			"removes every device. A device with a region is refused (the module would refuse\n" +
			"it); --force destroys its regions first, and their namespaces and labels as\n" +
			"`region destroy --force` does, or keeps the labels with --keep-namespaces and\n" +
			"prints the region uuid and the commands that bring them back (the range keeps\n" +
			"them until it is released). A namespace in use (mounted, a partition of it\n" +
			"mounted, under device-mapper or md, swap, open) is refused even with --force.\n" +
			"Every device named is checked before the first write. --dry-run --json prints\n" +
			"the plan as JSON.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "destroy its regions, namespaces and labels first (RAM regions: offline their memory, refused if it cannot be)"},
			&cli.BoolFlag{Name: "keep-namespaces", Usage: "with --force: keep the namespace labels, to bring them back with region create --uuid"},
			&cli.BoolFlag{Name: "release", Usage: "also give its borrowed range back to the kernel as System RAM (its data and labels go with it)"},
			jsonFlag(),
		},
		Action: runRemove,
	}
}

// removal is one device a remove takes away, as it was named.
type removal struct {
	device string // cxlvN
	what   string // what the output calls it
	vd     sysfs.VirtDevice
}

func runRemove(c *cli.Context) error {
	if c.NArg() == 0 {
		return usagef("remove needs device names (cxlvN), or all")
	}
	force, keep, release := c.Bool("force"), c.Bool("keep-namespaces"), c.Bool("release")
	switch {
	case keep && !force:
		return usagef("--keep-namespaces goes with --force: a remove without it destroys no namespace")
	case keep && release:
		return usagef("--keep-namespaces with --release: the labels live in the range that --release gives back; drop --release to keep them")
	}
	e, err := newEnv(c)
	if err != nil {
		return err
	}
	todo, err := resolveRemovals(e, c.Args().Slice())
	if err != nil {
		return err
	}
	o := region.DestroyOptions{Force: true, KeepNamespaces: keep}
	m := regionManager(e, region.DefaultTimeout)
	// Every check of every device before the first write.
	for _, r := range todo {
		if err := checkRemove(e, m, r, force, o, release); err != nil {
			return err
		}
	}
	var out view.RemovedJSON
	err = removeEach(e, todo, force, o, release, &out, func(r removal, back *virt.GivenBack) {
		if !e.dryRun && !c.Bool("json") {
			view.Removed(e.out, r.what, release, back)
		}
	})
	// What was done is said also when a later device failed: kept labels
	// must not go unmentioned.
	switch {
	case e.dryRun:
		return err
	case c.Bool("json"):
		if len(out.Removed) > 0 || len(out.Kept) > 0 {
			if jerr := view.WriteJSON(e.out, out); err == nil {
				err = jerr
			}
		}
		return err
	}
	for _, k := range out.Kept {
		view.KeptLabels(e.out, k, recreateCommand(todo, k))
	}
	return err
}

// removeEach tears down (force) and removes each device in turn, stopping
// at the first error, and records what it did in out.
func removeEach(e *env, todo []removal, force bool, o region.DestroyOptions, release bool, out *view.RemovedJSON, removed func(removal, *virt.GivenBack)) error {
	for _, r := range todo {
		if force {
			k, err := teardown(e, r.device, o)
			for _, kk := range k {
				out.Kept = append(out.Kept, view.Kept(kk, keptCommand(e.host.Sys(), kk)))
			}
			if err != nil {
				return fmt.Errorf("remove --force %s: %w", r.device, err)
			}
		}
		back, err := e.control().Remove(r.device, release)
		if err != nil {
			return err
		}
		out.Removed = append(out.Removed, view.RemovedDeviceJSON{Device: r.device, Released: view.Released(back)})
		removed(r, back)
	}
	return nil
}

// recreateCommand is the create that puts a device of a kept region back
// on its range.
func recreateCommand(todo []removal, k view.KeptJSON) string {
	for _, r := range todo {
		if !strings.Contains(k.Command, "--device "+r.device+" ") || r.vd.Memstart == nil || r.vd.Memsize == nil {
			continue
		}
		cmd := fmt.Sprintf("cxlvctl create --memstart %#x --size %s --pmem", *r.vd.Memstart, units.FormatSize(*r.vd.Memsize))
		if r.vd.Set() {
			cmd += fmt.Sprintf(" --ways %d", *r.vd.Ways)
			if r.vd.HostBridges != nil && *r.vd.HostBridges > 1 {
				cmd += fmt.Sprintf(" --host-bridges %d", *r.vd.HostBridges)
			}
			if r.vd.Granularity != nil {
				cmd += " --granularity " + units.FormatSize(*r.vd.Granularity)
			}
		}
		return "`" + cmd + "`"
	}
	return "`cxlvctl create` with its --memstart and --size"
}

// resolveRemovals names the devices a remove takes away: each name once,
// `all` for every device; a memdev for its device, refused for a member of
// an interleave set, which is named as a set.
func resolveRemovals(e *env, names []string) ([]removal, error) {
	if slices.Contains(names, "all") {
		if len(names) > 1 {
			return nil, usagef("remove all takes no other name, got %q", strings.Join(names, " "))
		}
		devs, err := e.host.Sys().VirtDevices()
		if err != nil {
			return nil, err
		}
		var out []removal
		for _, d := range devs {
			out = append(out, removal{device: d.Name, what: d.Name, vd: d})
		}
		if len(out) == 0 {
			view.NoDevices(e.errOut)
		}
		return out, nil
	}
	var out []removal
	for _, name := range names {
		dev, err := e.control().Resolve(name)
		if err != nil {
			return nil, err
		}
		vd := dev.Virt
		what := vd.Name
		if dev.Memdev != "" {
			if vd.Set() {
				return nil, usagef("remove %s: %s is one of the %d memdevs (%s) of the interleave set %s, which goes as a whole: name the set (cxlvctl remove %s)",
					name, name, len(vd.Memdevs), strings.Join(vd.Memdevs, " "), vd.Name, vd.Name)
			}
			what = fmt.Sprintf("%s (the device of %s)", vd.Name, name)
		}
		for _, r := range out {
			if r.device == vd.Name {
				return nil, usagef("%s is named twice (%s)", vd.Name, name)
			}
		}
		out = append(out, removal{device: vd.Name, what: what, vd: vd})
	}
	return out, nil
}

// checkRemove refuses, before anything is written, what the remove of one
// device would refuse: a range --release cannot give back, memory online
// or a region (the module says EBUSY) without --force, and with it what
// the teardown refuses.
func checkRemove(e *env, m *region.Manager, r removal, force bool, o region.DestroyOptions, release bool) error {
	if release {
		if err := e.control().CheckReleasable(r.device); err != nil {
			return err
		}
	}
	var regions []sysfs.Region
	for _, md := range r.vd.Memdevs {
		on, err := m.RegionsOn(md)
		if err != nil && !errors.Is(err, cxlverr.ErrNotSupported) {
			return fmt.Errorf("remove %s: reading its regions: %w", r.device, err)
		}
		for _, reg := range on {
			if !slices.ContainsFunc(regions, func(x sysfs.Region) bool { return x.Name == reg.Name }) {
				regions = append(regions, reg)
			}
		}
	}
	if force {
		if err := m.CheckDestroyRegions(regions, o); err != nil {
			return fmt.Errorf("remove --force %s: %w", r.device, err)
		}
		return nil
	}
	if err := refuseOnlineMemory(e, r.device); err != nil {
		return err
	}
	if len(regions) > 0 {
		// The module's own refusal (kmod/ctl/cxlv_device.c cxlv_remove), with the way out.
		return cxlverr.Errorf(cxlverr.ErrBusy, "remove: %s has %s; destroy it first (`cxlvctl region destroy --force %s`), or use `cxlvctl remove --force %s`",
			r.device, regions[0].Name, regions[0].Name, r.device)
	}
	return nil
}

// refuseOnlineMemory refuses to remove a device while a RAM region on it
// has memory online, with the command that gives the memory back: the
// module would refuse anyway (the region exists), but cannot say that
// the memory is the reason or what to do about it.
func refuseOnlineMemory(e *env, device string) error {
	t, err := e.host.Sys().Topology()
	if errors.Is(err, cxlverr.ErrNotSupported) {
		return nil // no CXL bus: no region, and the remove says what is missing
	}
	if err != nil {
		return fmt.Errorf("remove %s: reading whether its memory is online: %w", device, err)
	}
	l, err := virt.LinkOf(t, device)
	if err != nil {
		return nil // not in the topology: no region
	}
	for _, r := range l.Regions {
		st := r.RAM
		if st == nil || st.Summary.Online == 0 {
			continue
		}
		return cxlverr.Errorf(cxlverr.ErrBusy, "remove %s: %s has %s of memory online (%s): run `cxlvctl region destroy --force %s` first (it offlines the memory), or `cxlvctl remove --force %s`",
			device, r.Region.Name, units.FormatSize(st.Summary.OnlineBytes()), memoryWhere(st), r.Region.Name, device)
	}
	return nil
}

// memoryWhere names a RAM region's dax device and node: "dax0.0, node 1".
func memoryWhere(st *sysfs.RAMState) string {
	where := st.Dax.Name
	if len(st.Summary.Nodes) > 0 {
		where += ", node " + view.JoinInts(st.Summary.Nodes)
	}
	return where
}

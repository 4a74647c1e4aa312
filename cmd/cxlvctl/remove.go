package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/cxlv/cxlv/cmd/cxlvctl/view"
	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/sysfs"
	"github.com/cxlv/cxlv/units"
)

func removeCommand() *cli.Command {
	return &cli.Command{
		Name:      "remove",
		Usage:     "remove a cxl_virt device or interleave set",
		ArgsUsage: "cxlvN",
		Description: "A memdev names its device; for a member of an interleave set, the whole set:\n" +
			"the module removes a set as one unit, and refuses (busy) while a region is on it.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "destroy its namespaces and regions first (RAM regions: offline their memory, refused if it cannot be)"},
			&cli.BoolFlag{Name: "release", Usage: "also give its borrowed range back to the kernel as System RAM (its data and labels go with it)"},
		},
		Action: runRemove,
	}
}

func runRemove(c *cli.Context) error {
	if c.NArg() != 1 {
		return usagef("remove needs exactly one device name (cxlvN), got %d", c.NArg())
	}
	e, err := newEnv(c)
	if err != nil {
		return err
	}
	name, err := e.control().DeviceOf(c.Args().First())
	if err != nil {
		return err
	}
	what := name // what the output calls it
	if name != c.Args().First() {
		what = fmt.Sprintf("%s (the device of %s)", name, c.Args().First())
	}
	release := c.Bool("release")
	// --force writes before the remove does: refuse first what the remove
	// would refuse (without --force the remove checks it itself).
	if release && c.Bool("force") {
		if err := e.control().CheckReleasable(name); err != nil {
			return err
		}
	}
	if !c.Bool("force") {
		if err := refuseOnlineMemory(e, name); err != nil {
			return err
		}
	}
	if c.Bool("force") {
		if err := teardown(e, name); err != nil {
			return fmt.Errorf("remove --force %s: %w", name, err)
		}
	}
	back, err := e.control().Remove(name, release)
	if err != nil {
		return err
	}
	switch {
	case e.dryRun:
	case release:
		fmt.Fprintf(e.out, "removed %s; %s\n", what, givenBack(back))
	default:
		fmt.Fprintf(e.out, "removed %s\n", what)
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
	for _, l := range t.Links() {
		if l.Virt == nil || l.Virt.Name != device {
			continue
		}
		for _, r := range l.Regions {
			st := r.RAM
			if st == nil || st.Summary.Online == 0 {
				continue
			}
			return cxlverr.Errorf(cxlverr.ErrBusy, "remove %s: %s has %s of memory online (%s): run `cxlvctl region destroy %s` first (it offlines the memory), or `cxlvctl remove --force %s`",
				device, r.Region.Name, units.FormatSize(st.Summary.OnlineBytes()), memoryWhere(st), r.Region.Name, device)
		}
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

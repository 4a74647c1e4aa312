package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/cxlv/cxlv/cmd/cxlvctl/view"
	"github.com/cxlv/cxlv/units"
)

func releaseCommand() *cli.Command {
	return &cli.Command{
		Name:      "release",
		Usage:     "give a free borrowed range back to the kernel as System RAM",
		ArgsUsage: "START",
		Description: "START is the start of a range cxl_virt borrowed from System RAM and no device uses\n" +
			"(`cxlvctl ranges` lists them). Its data and labels go with it. A range with a device\n" +
			"goes back with `cxlvctl remove --release cxlvN`; rmmod gives back every free one.\n" +
			"A start no borrowed range has, or a range a device is on, is refused before the\n" +
			"write, as the module would refuse it. --dry-run --json prints the plan as JSON.",
		Flags:  []cli.Flag{jsonFlag()},
		Action: runRelease,
	}
}

func runRelease(c *cli.Context) error {
	if c.NArg() != 1 {
		return usagef("release needs exactly one range start (see `cxlvctl ranges`), got %d arguments", c.NArg())
	}
	start, err := units.ParseSize(c.Args().First())
	if err != nil {
		return fmt.Errorf("release: %w", err)
	}
	e, err := newEnv(c)
	if err != nil {
		return err
	}
	back, err := e.control().Release(start)
	switch {
	case err != nil || e.dryRun:
		return err
	case c.Bool("json"):
		return view.WriteJSON(e.out, view.Released(back))
	}
	view.WriteGivenBack(e.out, back)
	return nil
}

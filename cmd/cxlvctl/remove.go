package main

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

// teardownDevice destroys the namespaces and regions of a cxl_virt device,
// in order, so that `remove --force` can remove it. The region commands
// (region.go) set it; without them --force is refused.
var teardownDevice func(e *env, device string) error

func removeCommand() *cli.Command {
	return &cli.Command{
		Name:      "remove",
		Usage:     "remove a cxl_virt device",
		ArgsUsage: "cxlvN",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "destroy its namespaces and regions first"},
		},
		Action: runRemove,
	}
}

func runRemove(c *cli.Context) error {
	if c.NArg() != 1 {
		return usagef("remove needs exactly one device name (cxlvN), got %d", c.NArg())
	}
	name := c.Args().First()
	e, err := newEnv(c)
	if err != nil {
		return err
	}
	if c.Bool("force") {
		if teardownDevice == nil {
			return usagef("--force needs the region commands, which this build lacks")
		}
		if err := teardownDevice(e, name); err != nil {
			return fmt.Errorf("remove --force %s: %w", name, err)
		}
	}
	if err := e.control().Remove(name); err != nil {
		return err
	}
	if !e.dryRun {
		fmt.Fprintf(e.out, "removed %s\n", name)
	}
	return nil
}

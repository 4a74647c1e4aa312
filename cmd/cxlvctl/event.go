package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/cxlv/cxlv/cmd/cxlvctl/view"
	"github.com/cxlv/cxlv/events"
)

func eventCommand() *cli.Command {
	return &cli.Command{
		Name:  "event",
		Usage: "inject event records into a cxl_virt device's event logs (Linux " + events.MinKernel + "+)",
		Subcommands: []*cli.Command{{
			Name:      "inject",
			Usage:     "add one record to a log: the device raises its MSI and the kernel reads it into a trace event",
			ArgsUsage: "cxlvN|memN",
			Description: "Writes the module's debugfs cxl/cxlv/inject_event. The record goes to the --log\n" +
				"(also its severity); the device raises its MSI and cxl_pci's event interrupt thread\n" +
				"reads the log into the cxl_general_media, cxl_dram or cxl_memory_module trace event\n" +
				"and clears it. --dpa (64-byte aligned, inside the memdev; default 0) is a general-media\n" +
				"or dram event's address; a memory-module event has none. A set's cxlvN needs its memN.\n" +
				"Linux " + events.MinKernel + "+: older cxl_pci (6.1) reads no event logs.",
			Flags: []cli.Flag{
				&cli.GenericFlag{Name: "type", Value: choiceValue(events.TypeNames, events.ParseType),
					Usage: "record type: " + strings.Join(events.TypeNames, "|") + " (required)"},
				withDefault(&cli.GenericFlag{Name: "log", Value: choiceValue(events.LogNames, events.ParseLog),
					Usage: "event log: " + strings.Join(events.LogNames, "|")}, events.Info.String()),
				&cli.GenericFlag{Name: "dpa", Value: sizeValue(""), Usage: "device physical address of a general-media or dram event"},
			},
			Action: runEventInject,
		}},
	}
}

// eventRequest reads the flags into a checked request.
func eventRequest(c *cli.Context) (events.Request, error) {
	var r events.Request
	var given bool
	if r.Type, given = parsed[events.Type](c, "type"); !given {
		return r, usagef("event inject needs --type %s", strings.Join(events.TypeNames, ", "))
	}
	r.Log, _ = parsed[events.Log](c, "log")
	if v, given := parsed[uint64](c, "dpa"); given {
		r.DPA = &v
	}
	return r, r.Check()
}

func runEventInject(c *cli.Context) error {
	r, err := eventRequest(c)
	if err != nil {
		return err
	}
	if c.NArg() != 1 {
		return usagef("event inject needs exactly one device (cxlvN or memN), got %d", c.NArg())
	}
	e, err := newEnv(c)
	if err != nil {
		return err
	}
	in := &events.Injector{Host: e.host, W: e.w}
	t, err := in.Resolve(c.Args().First(), r)
	if err != nil {
		return err
	}
	if err := in.Inject(t, r); err != nil || e.dryRun {
		return err
	}
	view.Injected(e.out, t.Memdev, r)
	return nil
}

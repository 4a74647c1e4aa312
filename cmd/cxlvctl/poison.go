package main

import (
	"fmt"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/cxlv/cxlv/cmd/cxlvctl/view"
	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/poison"
	"github.com/cxlv/cxlv/virt"
)

const poisonAddressHelp = "Exactly one address: --dpa (the memdev's device physical address; a set's cxlvN\n" +
	"needs its memN), --hpa (a host physical address in a committed region of the device,\n" +
	"translated through the region's interleave to its memdev and DPA) or --namespace with\n" +
	"--offset (a byte offset into the namespace's data: after the info block of an fsdax or\n" +
	"devdax namespace, from the start of a raw one; what its /dev node calls that offset).\n" +
	"The address must be 64-byte aligned and inside the device, region or namespace; it is\n" +
	"checked before anything is written. Uses the kernel's debugfs cxl/memN/" + "%s (Linux " + cxlverr.KernelPoison + "+)."

func poisonCommand() *cli.Command {
	return &cli.Command{
		Name:  "poison",
		Usage: "inject, clear and list the poison of a cxl_virt device (Linux " + cxlverr.KernelPoison + "+)",
		Subcommands: []*cli.Command{
			poisonSendCommand(poison.Inject, "poison a 64-byte line: the device reports it and, mapped, the kernel takes its page away"),
			poisonSendCommand(poison.Clear, "clear a 64-byte line: it reads zeros after (the data Clear Poison carries)"),
			{
				Name:      "list",
				Usage:     "the poison the devices report now (trigger_poison_list and its cxl_poison trace events)",
				ArgsUsage: "cxlvN|memN...|all",
				Description: "Reads the records as `cxl list --media-errors` does: in a tracefs instance of its\n" +
					"own (instances/cxlvctl-poison-memN, removed after), enables the cxl_poison event,\n" +
					"writes the memdev's trigger_poison_list and reads the instance's trace; the global\n" +
					"trace buffer and event switches stay as they were. Several devices are listed in\n" +
					"the order given, `all` lists every cxl_virt device; every name is looked up before\n" +
					"the first list.",
				Flags:  []cli.Flag{jsonFlag(), noHeadersFlag()},
				Action: runPoisonList,
			},
		},
	}
}

func poisonSendCommand(op poison.Op, usage string) *cli.Command {
	return &cli.Command{
		Name:        op.Verb(),
		Usage:       usage,
		ArgsUsage:   "cxlvN|memN",
		Description: fmt.Sprintf(poisonAddressHelp, op),
		Flags: []cli.Flag{
			&cli.GenericFlag{Name: "dpa", Value: sizeValue(""), Usage: "device physical address"},
			&cli.GenericFlag{Name: "hpa", Value: sizeValue(""), Usage: "host physical address in a region of the device"},
			&cli.GenericFlag{Name: "namespace", Aliases: []string{"n"}, Value: nameValue("namespace"), Usage: "namespace (namespaceR.N) the --offset is into"},
			&cli.GenericFlag{Name: "offset", Value: sizeValue(""), Usage: "byte offset into the --namespace's data"},
		},
		Action: func(c *cli.Context) error { return runPoisonSend(c, op) },
	}
}

// poisonSpec reads the address flags: exactly one form.
func poisonSpec(c *cli.Context, verb string) (poison.Spec, error) {
	var spec poison.Spec
	var forms []string
	for _, f := range []struct {
		name string
		dst  **uint64
	}{{"dpa", &spec.DPA}, {"hpa", &spec.HPA}} {
		if v, given := parsed[uint64](c, f.name); given {
			forms = append(forms, "--"+f.name)
			*f.dst = &v
		}
	}
	if c.IsSet("namespace") != c.IsSet("offset") {
		return spec, usagef("poison %s: --namespace and --offset go together", verb)
	}
	if c.IsSet("namespace") {
		forms = append(forms, "--namespace")
		spec.Namespace = c.String("namespace")
		spec.Offset, _ = parsed[uint64](c, "offset")
	}
	switch len(forms) {
	case 0:
		return spec, usagef("poison %s needs an address: --dpa, --hpa or --namespace with --offset", verb)
	case 1:
		return spec, nil
	}
	return spec, usagef("poison %s takes one address, got %s and %s", verb, forms[0], forms[1])
}

// poisonDevice checks the one DEVICE argument of a poison command and
// looks it up.
func poisonDevice(c *cli.Context, verb string) (*env, virt.Device, error) {
	if c.NArg() != 1 {
		return nil, virt.Device{}, usagef("poison %s needs exactly one device (cxlvN or memN), got %d", verb, c.NArg())
	}
	e, err := newEnv(c)
	if err != nil {
		return nil, virt.Device{}, err
	}
	dev, err := virt.ResolveMemdevs(e.host.Sys(), c.Args().First())
	return e, dev, err
}

func runPoisonSend(c *cli.Context, op poison.Op) error {
	spec, err := poisonSpec(c, op.Verb())
	if err != nil {
		return err
	}
	e, dev, err := poisonDevice(c, op.Verb())
	if err != nil {
		return err
	}
	p := e.poisoner()
	if err := p.Check(op, dev.Memdevs()[0]); err != nil {
		return err
	}
	t, err := poison.Resolve(e.host, dev, spec)
	if err != nil {
		return err
	}
	if err := p.Send(op, t); err != nil || e.dryRun {
		return err
	}
	view.PoisonSent(e.out, op, t)
	return nil
}

func runPoisonList(c *cli.Context) error {
	if c.NArg() == 0 {
		return usagef("poison list needs devices (cxlvN or memN), or all")
	}
	e, err := newEnv(c)
	if err != nil {
		return err
	}
	names := c.Args().Slice()
	if slices.Contains(names, "all") {
		if len(names) > 1 {
			return usagef("poison list: all names every device; give it alone")
		}
		devices, err := e.host.Sys().VirtDevices()
		if err != nil {
			return err
		}
		names = nil
		for _, v := range devices {
			names = append(names, v.Name)
		}
	}
	var memdevs []string
	for _, name := range names {
		dev, err := virt.ResolveMemdevs(e.host.Sys(), name)
		if err != nil {
			return err
		}
		for _, m := range dev.Memdevs() {
			if slices.Contains(memdevs, m) {
				return usagef("poison list: %s is named twice (%s)", m, name)
			}
			memdevs = append(memdevs, m)
		}
	}
	var records []poison.Record
	for _, m := range memdevs {
		r, err := e.poisoner().List(m)
		if err != nil {
			return err
		}
		records = append(records, r...)
	}
	if e.dryRun {
		return nil
	}
	if c.Bool("json") {
		return view.WriteJSON(e.out, view.PoisonList(records))
	}
	header, rows := view.PoisonTable(records)
	return view.WriteTable(e.out, tableHeader(c, header), rows)
}

// poisoner returns the poison commands for this environment.
func (e *env) poisoner() *poison.Poisoner {
	return &poison.Poisoner{Host: e.host, W: e.w, DryRun: e.dryRun}
}

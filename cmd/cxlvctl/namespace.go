package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/cxlv/cxlv/cmd/cxlvctl/view"
	"github.com/cxlv/cxlv/region"
	"github.com/cxlv/cxlv/units"
)

func namespaceCommand() *cli.Command {
	return &cli.Command{
		Name:  "namespace",
		Usage: "create and destroy nvdimm namespaces on pmem regions",
		Subcommands: []*cli.Command{
			{
				Name:  "create",
				Usage: "create a namespace (the sysfs sequence of `ndctl create-namespace`)",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "region", Aliases: []string{"r"}, Usage: "nd region (regionN, as region list shows it); required"},
					&cli.StringFlag{Name: "mode", Aliases: []string{"m"}, Value: string(region.ModeFsdax), Usage: "fsdax, devdax or raw"},
					&cli.StringFlag{Name: "size", Aliases: []string{"s"}, Usage: "namespace size (default: the region's largest free extent)"},
					&cli.DurationFlag{Name: "timeout", Value: region.DefaultTimeout, Usage: "how long to wait for the driver's probe"},
					jsonFlag(),
				},
				Action: runNamespaceCreate,
			},
			{
				Name:      "destroy",
				Usage:     "disable namespaces and delete their labels",
				ArgsUsage: "namespaceR.N...",
				Description: "Like `ndctl destroy-namespace`, a namespace with a label (it holds data) is\n" +
					"refused without --force, which destroys it and its label. A namespace in use\n" +
					"(mounted, a partition of it mounted, under device-mapper or md, swap, open) is\n" +
					"refused even with --force: stop that user first. --dry-run --json prints the plan.",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "destroy namespaces that hold a label (a namespace in use is still refused)"},
					jsonFlag(),
				},
				Action: runNamespaceDestroy,
			},
		},
	}
}

func runNamespaceCreate(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("namespace create takes no arguments, got %q", c.Args().First())
	}
	if c.String("region") == "" {
		return usagef("namespace create needs --region regionN")
	}
	mode, err := region.ParseMode(c.String("mode"))
	if err != nil {
		return err
	}
	spec := region.NamespaceSpec{Region: c.String("region"), Mode: mode}
	if s := c.String("size"); s != "" {
		if spec.Size, err = units.ParseSize(s); err != nil {
			return fmt.Errorf("--size: %w", err)
		}
	}
	e, err := newEnv(c)
	if err != nil {
		return err
	}
	ns, err := regionManager(e, c.Duration("timeout")).CreateNamespace(c.Context, spec)
	if err != nil || e.dryRun {
		return err
	}
	if c.Bool("json") {
		return writeJSON(e.out, view.NamespaceCreate(ns))
	}
	printNamespace(e, ns)
	return nil
}

// printNamespace prints one line about a namespace that was made or came back.
func printNamespace(e *env, ns region.NamespaceResult) {
	how := "created"
	if ns.Reassembled {
		how = "re-assembled from labels"
	}
	fmt.Fprintf(e.out, "%s: %s %s, %s, uuid %s (%s)\n", ns.Name, ns.Mode, view.Dash(ns.BlockDev+ns.CharDev),
		units.FormatSize(ns.Size), ns.UUID, how)
}

func runNamespaceDestroy(c *cli.Context) error {
	force := c.Bool("force")
	var done []string
	e, err := destroyEach(c, "namespace destroy needs namespace names (namespaceR.N)",
		func(m *region.Manager, name string) error { _, err := m.Host.Sys().Namespace(name); return err },
		func(m *region.Manager, name string) error {
			_, err := m.CheckDestroyNamespace(name, force)
			return err
		},
		func(m *region.Manager, name string) error {
			if err := m.DestroyNamespace(name, force); err != nil {
				return err
			}
			done = append(done, name)
			return nil
		})
	return reportDestroyed(c, e, err, destroyedJSON{Destroyed: done})
}

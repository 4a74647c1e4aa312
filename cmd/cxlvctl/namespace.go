package main

import (
	"errors"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/cxlv/cxlv/cmd/cxlvctl/view"
	"github.com/cxlv/cxlv/region"
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
					&cli.GenericFlag{Name: "region", Aliases: []string{"r"}, Value: nameValue("nd-region"), Usage: "nd region (regionN, as region list shows it); required"},
					withDefault(&cli.GenericFlag{Name: "mode", Aliases: []string{"m"}, Value: choiceValue(modeNames(), parseNamespaceMode),
						Usage: "fsdax, devdax or raw"}, string(region.ModeFsdax)),
					&cli.GenericFlag{Name: "size", Aliases: []string{"s"}, Value: sizeValue("too small: leave --size out to use the region's largest free extent"),
						Usage: "namespace size (default: the region's largest free extent)"},
					timeoutFlag("how long to wait for the driver's probe"),
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
	spec := region.NamespaceSpec{Region: c.String("region")}
	spec.Mode, _ = parsed[region.Mode](c, "mode")
	spec.Size, _ = parsed[uint64](c, "size")
	e, err := newEnv(c)
	if err != nil {
		return err
	}
	ns, err := regionManager(e, timeout(c)).CreateNamespace(c.Context, spec)
	if err != nil || e.dryRun {
		return err
	}
	if c.Bool("json") {
		return view.WriteJSON(e.out, view.NamespaceCreate(ns))
	}
	view.WriteNamespaceCreate(e.out, ns)
	return nil
}

// parseNamespaceMode: namespace create makes a namespace, so "none",
// which region create takes, is no mode here.
func parseNamespaceMode(s string) (region.Mode, error) {
	if !slices.Contains(modeNames(), s) {
		return "", errors.New("namespace create needs --mode fsdax, devdax or raw")
	}
	return region.Mode(s), nil
}

// modeNames are the namespace modes, as --mode and --namespace take them,
// then extra ones.
func modeNames(extra ...region.Mode) []string {
	var names []string
	for _, m := range append([]region.Mode{region.ModeFsdax, region.ModeDevdax, region.ModeRaw}, extra...) {
		names = append(names, string(m))
	}
	return names
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
	return reportDestroyed(c, e, err, view.DestroyedJSON{Destroyed: done})
}

package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/cxlv/cxlv/acpi"
	"github.com/cxlv/cxlv/cmd/cxlvctl/view"
	"github.com/cxlv/cxlv/hostmem"
)

func nodeTablesCommand() *cli.Command {
	return &cli.Command{
		Name:  "node-tables",
		Usage: "write ACPI tables that make reserved ranges CPU-less NUMA nodes after a reboot",
		Description: "Writes an early initramfs archive (uncompressed cpio) of ACPI tables. When the\n" +
			"firmware has no SRAT (one NUMA node): an SRAT that puts every CPU and all other RAM in\n" +
			"node 0 and each range in a node of its own, and an HMAT naming node 0 their initiator;\n" +
			"else a CEDT with one CXL window per range. At boot the kernel reads them as an ACPI table\n" +
			"upgrade and gives each range a node of its own, as firmware describes CXL memory; a\n" +
			"cxl_virt RAM region there comes online in that node. The archive must be at the front\n" +
			"of the initramfs (the command prints the initramfs-tools hook), memmap= must keep\n" +
			"reserving the ranges, and the kernel must not be locked down (Secure Boot). The kernel\n" +
			"is tainted (TAINT_OVERRIDDEN_ACPI_TABLE). Without --memstart: every reserved range.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "archive to write (required; e.g. /boot/cxlv-acpi.cpio)"},
			&cli.GenericFlag{Name: "memstart", Value: sizeValue(""), Usage: "start of one reserved range to make a node (with --size)"},
			&cli.GenericFlag{Name: "size", Value: sizeValue(""), Usage: "size of that range (a multiple of 256M)"},
			&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "overwrite --output if it exists (as dracut --force)"},
			jsonFlag(),
		},
		Action: runNodeTables,
	}
}

func runNodeTables(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("node-tables takes no arguments, got %q", c.Args().First())
	}
	if c.String("output") == "" {
		return usagef("node-tables needs --output FILE, the archive to write (e.g. -o /boot/cxlv-acpi.cpio)")
	}
	var windows []hostmem.Range
	start, hasStart := parsed[uint64](c, "memstart")
	size, hasSize := parsed[uint64](c, "size")
	switch {
	case hasStart && hasSize:
		windows = []hostmem.Range{{Start: start, Size: size}}
	case hasStart || hasSize:
		return usagef("--memstart and --size go together (or leave both out for every reserved range)")
	}
	output, err := filepath.Abs(c.String("output"))
	if err != nil {
		return usagef("--output: %v", err)
	}
	if err := checkOutput(output, c.Bool("force")); err != nil {
		return err
	}
	e, err := newEnv(c)
	if err != nil {
		return err
	}
	plan, err := acpi.NodeTables(e.host, windows)
	if err != nil {
		return err
	}
	archive := acpi.EarlyCpio(plan.Files)
	if e.dryRun {
		// This object is the whole answer: no plan of kernel writes follows.
		delete(c.App.Metadata, dryRunKey)
	} else if err := os.WriteFile(output, archive, 0o644); err != nil {
		return err
	}
	out := view.NodeTables(plan, output, len(archive), initramfsHook(output), e.dryRun)
	if c.Bool("json") {
		return view.WriteJSON(e.out, out)
	}
	view.WriteNodeTables(e.out, out)
	return nil
}

// checkOutput refuses an --output that is a directory, or a file that
// exists unless force: the archive replaces it whole, and an initrd
// overwritten by mistake leaves a host that no longer boots.
func checkOutput(output string, force bool) error {
	st, err := os.Stat(output)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("--output %s: %w", output, err)
	case st.IsDir():
		return usagef("--output %s is a directory: give the archive's file name, e.g. -o %s", output, filepath.Join(output, "cxlv-acpi.cpio"))
	case !force:
		return usagef("--output %s exists: add --force to overwrite it", output)
	}
	return nil
}

// initramfsHook is the shell that installs an initramfs-tools hook putting
// the archive in front of every initramfs, and rebuilds the current one.
func initramfsHook(archive string) string {
	return fmt.Sprintf("cat >/etc/initramfs-tools/hooks/cxlv-acpi <<'EOF'\n"+
		"#!/bin/sh\n[ \"$1\" = prereqs ] && exit 0\n. /usr/share/initramfs-tools/hook-functions\n"+
		"prepend_earlyinitramfs %s\nEOF\n"+
		"chmod 755 /etc/initramfs-tools/hooks/cxlv-acpi\nupdate-initramfs -u\n", archive)
}

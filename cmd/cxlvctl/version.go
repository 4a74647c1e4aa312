package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/cxlv/cxlv/cmd/cxlvctl/view"
)

// version is cxlvctl's version: the cxl_virt MODULE_VERSION it is released
// with (a test keeps the two equal; -ldflags -X main.version= overrides).
var version = "0.1"

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:   "version",
		Usage:  "print the versions of cxlvctl and of the loaded cxl_virt module",
		Action: func(c *cli.Context) error { return printVersion(c) },
	}
}

// helpCommand shows the help of the commands it names (the app's without).
func helpCommand() *cli.Command {
	return &cli.Command{
		Name:      "help",
		Usage:     "show the commands, or the flags of one command",
		ArgsUsage: "[COMMAND [SUBCOMMAND]]",
		Action: func(c *cli.Context) error {
			commands := c.App.Commands
			var path []string
			for _, name := range c.Args().Slice() {
				sub := findCommand(commands, name)
				if sub == nil {
					return unknownCommand(path, name, commands)
				}
				path, commands = append(path, sub.Name), sub.Subcommands
			}
			if len(path) == 0 {
				return cli.ShowAppHelp(c)
			}
			return c.App.RunContext(c.Context, append(append([]string{c.App.Name}, path...), "--help"))
		},
	}
}

// printVersion prints cxlvctl's version and the module's, warning on stderr
// when the two differ (the CLI may then not know the module's interface).
func printVersion(c *cli.Context) error {
	mod := filepath.Join(c.String("sysfs-root"), "module", "cxl_virt")
	v, err := os.ReadFile(filepath.Join(mod, "version"))
	if err != nil {
		view.Version(c.App.Writer, version, "", "")
		return nil
	}
	modVersion := strings.TrimSpace(string(v))
	src, _ := os.ReadFile(filepath.Join(mod, "srcversion"))
	view.Version(c.App.Writer, version, modVersion, strings.TrimSpace(string(src)))
	if modVersion != version {
		view.VersionMismatch(c.App.ErrWriter, version, modVersion)
	}
	return nil
}

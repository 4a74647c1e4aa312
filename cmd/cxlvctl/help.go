package main

import (
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/cxlv/cxlv/cxlverr"
)

// helpWidth is the column that help text wraps at.
const helpWidth = 80

// example is one entry of a command's EXAMPLES: what it does, and the line.
type example struct{ what, line string }

// examples are the EXAMPLES that end each command's help and man page,
// keyed by command path ("" is cxlvctl itself). Every visible command has
// two to four; a test checks that their flags exist.
var examples = map[string][]example{
	"": {
		{"find reserved memory, make a pmem device on it and list it", "cxlvctl ranges"},
		{"", "cxlvctl create --memstart 6G --size 2G --pmem"},
		{"region, fsdax namespace and DAX-mounted XFS in one command", "cxlvctl region create --device cxlv0 --fs xfs --mount /mnt/cxl"},
		{"print the kernel writes of a command instead of doing them", "cxlvctl remove cxlv0 --force --dry-run"},
	},
	"create": {
		{"2 GiB of pmem on the range reserved with memmap=2G$6G", "cxlvctl create --memstart 6G --size 2G --pmem"},
		{"volatile capacity, for a RAM region (Linux " + cxlverr.KernelRAMRegions + "+)", "cxlvctl create --memstart 0x180000000 --size 1G"},
		{"the same, printed as the control-file write it makes", "cxlvctl create --memstart 6G --size 2G --pmem --dry-run"},
		{"2 GiB of pmem without memmap=: a reserved range if one fits, else borrowed", "cxlvctl create --size 2G --pmem"},
	},
	"remove": {
		{"remove a device that has no region", "cxlvctl remove cxlv0"},
		{"destroy its namespaces and regions first", "cxlvctl remove cxlv0 --force"},
		{"the same, keeping the namespace labels", "cxlvctl remove cxlv0 --force --keep-namespaces"},
		{"remove it and give its borrowed RAM back to the kernel", "cxlvctl remove cxlv0 --release"},
	},
	"release": {
		{"give a free borrowed range back to the kernel as System RAM", "cxlvctl release 0x1c0000000"},
		{"print the control-file write instead of giving it back", "cxlvctl release 0x1c0000000 --dry-run"},
	},
	"list": {
		{"devices linked to memdev, decoder, region, namespace and /dev", "cxlvctl list"},
		{"the same as JSON, for scripts", "cxlvctl list --json"},
	},
	"ranges": {
		{"reserved and borrowed ranges, what uses them, and a memmap= for 4 GiB more", "cxlvctl ranges --size 4G"},
		{"the same as JSON", "cxlvctl ranges --json"},
	},
	"node-tables": {
		{"make every reserved range a CPU-less NUMA node after the next boot", "cxlvctl node-tables -o /boot/cxlv-acpi.cpio"},
		{"one range, and what the tables hold as JSON", "cxlvctl node-tables --memstart 8G --size 4G -o /boot/cxlv-acpi.cpio --json"},
	},
	"info": {
		{"host memory and NUMA nodes with their CXL memdevs", "cxlvctl info"},
		{"the same as JSON", "cxlvctl info --json"},
	},
	"region": {
		{"a pmem region with an fsdax namespace and a DAX mount", "cxlvctl region create --device cxlv0 --fs xfs --mount /mnt/cxl"},
		{"destroy it but keep the namespace labels", "cxlvctl region destroy region0 --keep-namespaces"},
		{"regions with their nd regions and namespaces", "cxlvctl region list"},
	},
	"region create": {
		{"a pmem region with a devdax namespace (/dev/daxX.Y)", "cxlvctl region create --device cxlv0 --namespace devdax"},
		{"an fsdax namespace with XFS mounted -o dax", "cxlvctl region create --device cxlv0 --fs xfs --mount /mnt/cxl"},
		{"a RAM region onlined as movable memory on its own node", "cxlvctl region create --device cxlv0 --type ram"},
		{"bring back a region and its namespaces by uuid", "cxlvctl region create --device cxlv0 --uuid UUID --namespace none"},
	},
	"region destroy": {
		{"destroy a region, its namespaces and their labels", "cxlvctl region destroy region0 --force"},
		{"keep the labels, to re-create with region create --uuid", "cxlvctl region destroy region0 --keep-namespaces"},
	},
	"region list": {
		{"regions with their nd regions and namespaces", "cxlvctl region list"},
		{"the same as JSON", "cxlvctl region list --json"},
	},
	"namespace": {
		{"an fsdax namespace on nd region0", "cxlvctl namespace create --region region0"},
		{"disable a namespace and delete its label", "cxlvctl namespace destroy namespace0.0 --force"},
	},
	"namespace create": {
		{"an fsdax namespace over the largest free extent", "cxlvctl namespace create --region region0"},
		{"a 256 MiB devdax namespace", "cxlvctl namespace create --region region0 --mode devdax --size 256M"},
	},
	"namespace destroy": {
		{"disable a namespace and delete its label", "cxlvctl namespace destroy namespace0.0 --force"},
		{"two at once", "cxlvctl namespace destroy namespace0.0 namespace0.1 --force"},
	},
	"poison": {
		{"poison the line at DPA 0x1000 of cxlv0's memdev", "cxlvctl poison inject cxlv0 --dpa 0x1000"},
		{"what the device reports, with the HPA and region the kernel resolved", "cxlvctl poison list cxlv0"},
		{"clear the line again", "cxlvctl poison clear cxlv0 --dpa 0x1000"},
	},
	"poison inject": {
		{"the line at DPA 0x1000 of cxlv0's memdev", "cxlvctl poison inject cxlv0 --dpa 0x1000"},
		{"a host physical address in one of cxlv0's regions", "cxlvctl poison inject cxlv0 --hpa 0x110004000"},
		{"2 MiB into the data of an fsdax or devdax namespace", "cxlvctl poison inject cxlv0 --namespace namespace0.0 --offset 2M"},
		{"print the debugfs write instead of doing it", "cxlvctl poison inject mem0 --dpa 0x1000 --dry-run"},
	},
	"poison clear": {
		{"clear the line at DPA 0x1000: it reads zeros after", "cxlvctl poison clear cxlv0 --dpa 0x1000"},
		{"the same line through the region that maps it", "cxlvctl poison clear cxlv0 --hpa 0x110001000"},
	},
	"poison list": {
		{"the device's poison list as a table", "cxlvctl poison list cxlv0"},
		{"the same as JSON, for scripts", "cxlvctl poison list mem0 --json"},
	},
	"event": {
		{"a DRAM error at DPA 0x1000 of cxlv0's memdev, in the warning log", "cxlvctl event inject cxlv0 --type dram --dpa 0x1000 --log warn"},
		{"a memory-module event (Health Status Change) in the fatal log", "cxlvctl event inject mem0 --type memory-module --log fatal"},
	},
	"event inject": {
		{"a general-media event at DPA 0x2000, informational", "cxlvctl event inject cxlv0 --type general-media --dpa 0x2000"},
		{"a DRAM event in the failure log of one memdev of a set", "cxlvctl event inject mem1 --type dram --dpa 1M --log fail"},
		{"print the debugfs write instead of doing it", "cxlvctl event inject cxlv0 --type dram --dry-run"},
	},
	"version": {
		{"cxlvctl's version, and the loaded module's version and srcversion", "cxlvctl version"},
		{"the module loaded in another system tree, e.g. a chroot", "cxlvctl version --sysfs-root /mnt/target/sys"},
	},
	"help": {
		{"the commands of cxlvctl", "cxlvctl help"},
		{"one command's flags and examples", "cxlvctl help region create"},
	},
	"completion": {
		{"bash, for every user", "cxlvctl completion bash > /etc/bash_completion.d/cxlvctl"},
		{"zsh, in the first directory of $fpath", `cxlvctl completion zsh > "${fpath[1]}/_cxlvctl"`},
		{"fish, for the current user", "cxlvctl completion fish > ~/.config/fish/completions/cxlvctl.fish"},
	},
}

// examplesText renders the EXAMPLES of a command path as help shows them.
func examplesText(path string) string {
	var b strings.Builder
	for _, ex := range examples[path] {
		if ex.what != "" {
			b.WriteString("   # " + ex.what + "\n")
		}
		b.WriteString("   " + ex.line + "\n")
	}
	return b.String()
}

// withExamples appends a command path's EXAMPLES to a help template. The
// text goes in as a template string literal, so nothing in it is expanded.
func withExamples(template, path string) string {
	text := examplesText(path)
	if text == "" {
		return template
	}
	return template + "\nEXAMPLES:\n{{`" + text + "`}}"
}

// withFlagColumns has a help template print its flags with flagColumns.
func withFlagColumns(template string) string {
	for _, t := range []string{`{{template "visibleFlagCategoryTemplate" .}}`, `{{template "visibleFlagTemplate" .}}`} {
		template = strings.ReplaceAll(template, t, "{{flagColumns .VisibleFlags}}")
	}
	return template
}

// flagColumns renders flags as two columns, names and usage, with the usage
// wrapped within helpWidth; names too long for the column put the usage on
// the next line. (urfave/cli wraps before it expands the tab between them,
// so its lines can run past any width.)
func flagColumns(flags []cli.Flag) string {
	const indent, maxNames = 3, 28
	type row struct{ names, usage string }
	var rows []row
	width := 0
	for _, f := range flags {
		names, usage, _ := strings.Cut(cli.FlagStringer(f), "\t")
		rows = append(rows, row{names, usage})
		if len(names) <= maxNames {
			width = max(width, len(names))
		}
	}
	var b strings.Builder
	pad := strings.Repeat(" ", indent+width+2)
	for _, r := range rows {
		b.WriteString("\n" + strings.Repeat(" ", indent) + r.names)
		if len(r.names) > width {
			b.WriteString("\n" + pad)
		} else {
			b.WriteString(strings.Repeat(" ", width+2-len(r.names)))
		}
		col := len(pad)
		for i, word := range strings.Fields(r.usage) {
			if i > 0 && col+1+len(word) > helpWidth {
				b.WriteString("\n" + pad)
				col = len(pad)
			} else if i > 0 {
				b.WriteString(" ")
				col++
			}
			b.WriteString(word)
			col += len(word)
		}
	}
	return b.String()
}

// eachCommand calls fn for every command below commands, parents first,
// with its path ("region create"); hidden ones (and what is below them)
// only when withHidden.
func eachCommand(commands []*cli.Command, withHidden bool, fn func(path string, c *cli.Command)) {
	var walk func(commands []*cli.Command, parent string)
	walk = func(commands []*cli.Command, parent string) {
		for _, c := range commands {
			if c.Hidden && !withHidden {
				continue
			}
			path := strings.TrimSpace(parent + " " + c.Name)
			fn(path, c)
			walk(c.Subcommands, path)
		}
	}
	walk(commands, "")
}

// configureHelp gives the app and every command below it its EXAMPLES.
func configureHelp(app *cli.App) {
	app.CustomAppHelpTemplate = withExamples(withFlagColumns(cli.AppHelpTemplate), "")
	eachCommand(app.Commands, true, func(path string, c *cli.Command) {
		template := cli.CommandHelpTemplate
		if len(c.Subcommands) > 0 {
			template = cli.SubcommandHelpTemplate
		}
		c.CustomHelpTemplate = withExamples(withFlagColumns(template), path)
		c.Description = reflow(c.Description)
	})
}

// reflow joins the lines of each paragraph of a description (paragraphs
// are separated by a blank line), so that help and man pages fill them to
// their own width instead of breaking where the source did.
func reflow(s string) string {
	paragraphs := strings.Split(strings.TrimSpace(s), "\n\n")
	for i, p := range paragraphs {
		paragraphs[i] = strings.Join(strings.Fields(p), " ")
	}
	return strings.Join(paragraphs, "\n\n")
}

func init() {
	// A boolean flag is off unless given: "(default: false)" says nothing.
	flagString := cli.FlagStringer
	cli.FlagStringer = func(f cli.Flag) string {
		return strings.TrimSuffix(flagString(f), " (default: false)")
	}
	// Help wraps at 80 columns (urfave/cli's default is 10000).
	cli.HelpPrinter = func(w io.Writer, template string, data any) {
		cli.HelpPrinterCustom(w, template, data, map[string]any{
			"wrapAt":      func() int { return helpWidth },
			"flagColumns": flagColumns,
		})
	}
}

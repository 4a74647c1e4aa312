package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"
)

// manCommand writes a man page per command into a directory, rendered from
// the same definitions (usage, description, flags, EXAMPLES) as --help, so
// the two cannot drift. `make install` runs it.
func manCommand() *cli.Command {
	return &cli.Command{
		Name:      "__man",
		Hidden:    true,
		ArgsUsage: "DIR",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("__man needs the directory to write the pages to")
			}
			dir := c.Args().First()
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			for _, page := range manPages(c.App) {
				if err := os.WriteFile(filepath.Join(dir, page.name), []byte(page.text), 0o644); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

type manPage struct{ name, text string }

// manPages renders cxlvctl(1) and one page per visible command below it,
// named as git names its pages: cxlvctl-region-create(1).
func manPages(app *cli.App) []manPage {
	var pages []manPage
	eachCommand(app.Commands, false, func(path string, c *cli.Command) {
		words := strings.Fields(path)
		pages = append(pages, manPage{
			name: "cxlvctl-" + strings.Join(words, "-") + ".1",
			text: commandPage(app, c, words),
		})
	})
	return append([]manPage{{name: "cxlvctl.1", text: appPage(app)}}, pages...)
}

func appPage(app *cli.App) string {
	var b strings.Builder
	header(&b, app, "cxlvctl", app.Usage)
	b.WriteString(".SH SYNOPSIS\n.B cxlvctl\n[\\fIglobal options\\fR] \\fIcommand\\fR [\\fIoptions\\fR] [\\fIarguments\\fR]\n")
	b.WriteString(".SH COMMANDS\n")
	for _, c := range app.Commands {
		if !c.Hidden {
			fmt.Fprintf(&b, ".TP\n.BR cxlvctl\\-%s (1)\n%s\n", roff(c.Name), roff(c.Usage))
		}
	}
	flagsSection(&b, "GLOBAL OPTIONS", app.VisibleFlags())
	examplesSection(&b, "")
	b.WriteString(".SH EXIT STATUS\n")
	for _, c := range exitCodes {
		fmt.Fprintf(&b, ".TP\n.B %d\n%s\n", c.code, roff(c.what))
	}
	return b.String()
}

func commandPage(app *cli.App, c *cli.Command, path []string) string {
	var b strings.Builder
	header(&b, app, "cxlvctl-"+strings.Join(path, "-"), c.Usage)
	fmt.Fprintf(&b, ".SH SYNOPSIS\n.B cxlvctl %s\n", roff(strings.Join(path, " ")))
	if len(c.Subcommands) > 0 {
		b.WriteString("\\fIcommand\\fR ")
	}
	b.WriteString("[\\fIoptions\\fR]")
	if c.ArgsUsage != "" {
		fmt.Fprintf(&b, " \\fI%s\\fR", roff(c.ArgsUsage))
	}
	b.WriteString("\n")
	if c.Description != "" {
		fmt.Fprintf(&b, ".SH DESCRIPTION\n%s\n", roffParagraphs(c.Description))
	}
	if len(c.Subcommands) > 0 {
		b.WriteString(".SH COMMANDS\n")
		for _, sub := range c.Subcommands {
			if !sub.Hidden {
				fmt.Fprintf(&b, ".TP\n.BR cxlvctl\\-%s\\-%s (1)\n%s\n", roff(strings.Join(path, "-")), roff(sub.Name), roff(sub.Usage))
			}
		}
	}
	flagsSection(&b, "OPTIONS", c.VisibleFlags())
	examplesSection(&b, strings.Join(path, " "))
	b.WriteString(".SH SEE ALSO\n.BR cxlvctl (1),\n.BR cxl (1),\n.BR ndctl (1),\n.BR daxctl (1)\n")
	return b.String()
}

func header(b *strings.Builder, app *cli.App, name, usage string) {
	fmt.Fprintf(b, ".TH %s 1 \"\" \"cxlvctl %s\" \"cxlvctl manual\"\n", strings.ToUpper(roff(name)), roff(app.Version))
	fmt.Fprintf(b, ".SH NAME\n%s \\- %s\n", roff(name), roff(usage))
}

func flagsSection(b *strings.Builder, title string, flags []cli.Flag) {
	var visible []cli.Flag
	for _, f := range flags {
		if f != cli.HelpFlag {
			visible = append(visible, f)
		}
	}
	if len(visible) == 0 {
		return
	}
	fmt.Fprintf(b, ".SH %s\n", title)
	for _, f := range visible {
		var names []string
		for _, n := range f.Names() {
			dash := "--"
			if len(n) == 1 {
				dash = "-"
			}
			name := "\\fB" + roff(dash+n) + "\\fR"
			if takesValue(f) {
				name += " \\fIvalue\\fR"
			}
			names = append(names, name)
		}
		usage := ""
		if d, ok := f.(cli.DocGenerationFlag); ok {
			usage = d.GetUsage()
			if v := d.GetDefaultText(); v != "" {
				usage += " (default: " + v + ")"
			} else if v := d.GetValue(); v != "" && takesValue(f) {
				usage += " (default: " + v + ")"
			}
		}
		fmt.Fprintf(b, ".TP\n%s\n%s\n", strings.Join(names, ", "), roff(usage))
	}
}

func examplesSection(b *strings.Builder, path string) {
	list := examples[path]
	if len(list) == 0 {
		return
	}
	b.WriteString(".SH EXAMPLES\n")
	for _, ex := range list {
		if ex.what != "" {
			fmt.Fprintf(b, ".PP\n%s:\n", roff(ex.what))
		}
		fmt.Fprintf(b, ".PP\n.RS\n.nf\n%s\n.fi\n.RE\n", roff(ex.line))
	}
}

// roff escapes text for a man page: backslashes and dashes, and a leading
// dot or quote that roff would read as a request.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// roffParagraphs renders paragraphs separated by a blank line.
func roffParagraphs(s string) string {
	paragraphs := strings.Split(strings.TrimSpace(s), "\n\n")
	for i, p := range paragraphs {
		paragraphs[i] = roff(p)
	}
	return strings.Join(paragraphs, "\n.PP\n")
}

package main

import (
	"io"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// visibleCommands lists every visible command by path, the app itself as "".
func visibleCommands(app *cli.App) map[string]*cli.Command {
	out := map[string]*cli.Command{"": nil}
	eachCommand(app.Commands, false, func(path string, c *cli.Command) { out[path] = c })
	return out
}

func TestHelpEndsWithExamplesAndFits80Columns(t *testing.T) {
	for path := range visibleCommands(newApp(io.Discard, io.Discard)) {
		args := append(strings.Fields(path), "--help")
		out, errOut, rc := cxlvctl(t, "", args...)
		if rc != 0 {
			t.Errorf("%q: exit %d: %s", args, rc, errOut)
			continue
		}
		for _, line := range strings.Split(out, "\n") {
			if len(line) > helpWidth {
				t.Errorf("%q: help line of %d columns: %q", args, len(line), line)
			}
		}
		_, tail, ok := strings.Cut(out, "\nEXAMPLES:\n")
		if !ok || strings.Contains(tail, "OPTIONS:") {
			t.Errorf("%q: help does not end with EXAMPLES:\n%s", args, out)
		}
		if n := len(examples[path]); n < 2 || n > 4 {
			t.Errorf("%q has %d examples; want 2 to 4", path, n)
		}
	}
}

// Every flag an example uses is one its command (or cxlvctl) defines, and
// every example names its own command: examples cannot drift from the code.
func TestExamplesUseRealFlags(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	commands := visibleCommands(app)
	for path, list := range examples {
		c, ok := commands[path]
		if !ok {
			t.Errorf("examples for %q, which is no visible command", path)
			continue
		}
		flags := app.Flags
		if c != nil {
			flags = append(append([]cli.Flag{}, c.Flags...), app.Flags...)
		}
		for _, ex := range list {
			if strings.ContainsAny(ex.line, "`") || strings.ContainsAny(ex.what, "`") {
				t.Errorf("%q: a backquote would end the help template's literal", ex.line)
			}
			if path != "" && !strings.HasPrefix(ex.line, "cxlvctl "+path) {
				t.Errorf("example %q of %q runs another command", ex.line, path)
			}
			if path == "" || len(c.Subcommands) > 0 {
				continue // examples of a group use its subcommands' flags
			}
			for _, word := range strings.Fields(ex.line) {
				name, _, _ := strings.Cut(strings.TrimLeft(word, "-"), "=")
				if strings.HasPrefix(word, "-") && findFlag(flags, name) == nil {
					t.Errorf("example %q of %q: no flag %s", ex.line, path, word)
				}
			}
		}
	}
}

func TestManPageForEveryCommand(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	pages := map[string]string{}
	for _, p := range manPages(app) {
		pages[p.name] = p.text
	}
	for path, c := range visibleCommands(app) {
		name := "cxlvctl.1"
		if path != "" {
			name = "cxlvctl-" + strings.ReplaceAll(path, " ", "-") + ".1"
		}
		page, ok := pages[name]
		if !ok {
			t.Errorf("no man page %s for %q", name, path)
			continue
		}
		for _, want := range []string{".TH ", ".SH NAME", ".SH SYNOPSIS", ".SH EXAMPLES"} {
			if !strings.Contains(page, want) {
				t.Errorf("%s lacks %s", name, want)
			}
		}
		flags := app.VisibleFlags()
		if c != nil {
			flags = c.VisibleFlags()
		}
		for _, f := range flags {
			if f != cli.HelpFlag && !strings.Contains(page, roff("--"+f.Names()[0])) {
				t.Errorf("%s lacks flag --%s", name, f.Names()[0])
			}
		}
		for _, ex := range examples[path] {
			if !strings.Contains(page, roff(ex.line)) {
				t.Errorf("%s lacks example %q", name, ex.line)
			}
		}
	}
	if len(pages) != len(visibleCommands(app)) {
		t.Errorf("%d man pages for %d commands", len(pages), len(visibleCommands(app)))
	}
}

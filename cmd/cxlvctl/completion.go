package main

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/cxlv/cxlv/completions"
	"github.com/cxlv/cxlv/sysfs"
)

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print the shell completion script",
		ArgsUsage: "bash|zsh|fish",
		Description: "Prints the script for bash, zsh or fish; `make install` puts all three where the\n" +
			"shells read them. The script asks cxlvctl itself for candidates (commands, flags and\n" +
			"live device, memdev, region and namespace names), so it needs no update.",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("completion needs one shell: %s", strings.Join(completions.Shells(), ", "))
			}
			script, err := completions.Script(c.Args().First())
			if err != nil {
				return usagef("%s", err)
			}
			_, err = c.App.Writer.Write(script)
			return err
		},
	}
}

// completeCommand is what the completion scripts call with the words of
// the command line (the last one being completed). It prints one candidate
// per line, a tab and a one-line description after commands and flags (fish
// and zsh show it, bash drops it): subcommands, flags, or live names read
// from sysfs, picked from the command tree itself, so new commands complete
// without script changes.
func completeCommand() *cli.Command {
	return &cli.Command{
		Name:            "__complete",
		Hidden:          true,
		SkipFlagParsing: true,
		Action: func(c *cli.Context) error {
			for _, s := range completeWords(c.App, c.String("sysfs-root"), c.Args().Slice()) {
				if s.desc != "" {
					fmt.Fprintf(c.App.Writer, "%s\t%s\n", s.value, s.desc)
				} else {
					fmt.Fprintln(c.App.Writer, s.value)
				}
			}
			return nil
		},
	}
}

// argKinds: what a positional argument completes to, by the placeholder
// of the command's ArgsUsage ("cxlvN", "regionN..."): a kind of live name
// (sysfs.NameKinds). A flag's value completes from the flag's own value
// type (completer).
var argKinds = map[string]string{
	"cxlvN": "cxlv", "memN": "memdev", "regionN": "region", "namespaceR.N": "namespace",
	"START": freeBorrowed, "cxlvN|memN": "cxlv-memdev",
}

// argWords are the candidates for a command's arguments, from its
// ArgsUsage ("[cxlvN|memN...]", "bash|zsh|fish", "START"): for each
// alternative of the first argument the live names of a placeholder
// argKinds knows, and a literal word as it is; a placeholder it does not
// know (FILE, COMMAND) offers nothing. Brackets and "..." are usage
// notation, never words.
func argWords(sysRoot, usage string) []string {
	first, alternatives := firstArg(usage)
	if kind, ok := argKinds[first]; ok {
		return liveNames(sysRoot, kind)
	}
	var words []string
	for _, alt := range alternatives {
		if kind, ok := argKinds[alt]; ok {
			words = append(words, liveNames(sysRoot, kind)...)
		} else if literalWord.MatchString(alt) {
			words = append(words, alt)
		}
	}
	return words
}

// firstArg is the first argument of an ArgsUsage without the usage
// notation ("[cxlvN|memN...]" is "cxlvN|memN"), and its alternatives.
func firstArg(usage string) (first string, alternatives []string) {
	first, _, _ = strings.Cut(usage, " ")
	first = strings.TrimSuffix(strings.Trim(first, "[]"), "...")
	for _, alt := range strings.Split(first, "|") {
		alternatives = append(alternatives, strings.TrimSuffix(alt, "..."))
	}
	return first, alternatives
}

// literalWord is a word a command takes as it is (bash, all), not a
// placeholder (cxlvN, FILE).
var literalWord = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// candidate is one completion and what it is, in one line ("" for names).
type candidate struct{ value, desc string }

// completeWords completes the last of words; sysRoot is the sysfs to read
// names from unless the words give --sysfs-root themselves. What the line
// already has (a name, a flag) is not offered again.
func completeWords(app *cli.App, sysRoot string, words []string) []candidate {
	if len(words) == 0 {
		words = []string{""}
	}
	cur := words[len(words)-1]
	commands, flags := app.Commands, app.Flags
	var cmd *cli.Command
	used := map[string]bool{}
	var valueOf cli.Flag // the flag whose value the current word is
	for i := 0; i < len(words)-1; i++ {
		w := words[i]
		if strings.HasPrefix(w, "-") && w != "--" {
			name, _, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
			f := findFlag(flags, name)
			if f != nil {
				used["--"+f.Names()[0]] = true
			}
			if f != nil && takesValue(f) && !hasValue {
				if i+1 == len(words)-1 {
					valueOf = f
				} else if name == "sysfs-root" {
					sysRoot = words[i+1]
				}
				i++
			}
			continue
		}
		if sub := findCommand(commands, w); sub != nil {
			cmd, commands, flags = sub, sub.Subcommands, sub.Flags
		} else {
			used[w] = true
		}
	}
	// --flag=value: the value completes, with the flag in front of it.
	prefix := ""
	if name, value, ok := strings.Cut(cur, "="); ok && strings.HasPrefix(cur, "-") && valueOf == nil {
		if f := findFlag(flags, strings.TrimLeft(name, "-")); f != nil && takesValue(f) {
			prefix, cur, valueOf = name+"=", value, f
		}
	}
	var candidates []candidate
	switch {
	case valueOf != nil:
		if g, ok := valueOf.(*cli.GenericFlag); ok {
			if values, ok := g.Value.(completer); ok {
				for _, v := range values.candidates(sysRoot) {
					candidates = append(candidates, candidate{value: v})
				}
			}
		}
	case strings.HasPrefix(cur, "-"):
		for _, f := range flags {
			candidates = append(candidates, candidate{"--" + f.Names()[0], oneLine(flagUsage(f))})
		}
	case len(commands) > 0:
		for _, c := range commands {
			if !c.Hidden {
				candidates = append(candidates, candidate{c.Name, oneLine(c.Usage)})
			}
		}
	case cmd != nil:
		for _, v := range argWords(sysRoot, cmd.ArgsUsage) {
			candidates = append(candidates, candidate{value: v})
		}
	}
	var out []candidate
	for _, c := range candidates {
		if strings.HasPrefix(c.value, cur) && (prefix != "" || !used[c.value]) {
			c.value = prefix + c.value
			out = append(out, c)
		}
	}
	return out
}

// oneLine shortens a usage text to what fits beside a candidate: up to its
// first parenthesis or semicolon, at most 60 characters.
func oneLine(s string) string {
	if i := strings.IndexAny(s, "(;"); i > 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > 60 {
		s = strings.TrimSpace(string(r[:59])) + "…"
	}
	return s
}

func flagUsage(f cli.Flag) string {
	if d, ok := f.(cli.DocGenerationFlag); ok {
		return d.GetUsage()
	}
	return ""
}

func findFlag(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

func takesValue(f cli.Flag) bool {
	dv, ok := f.(cli.DocGenerationFlag)
	return ok && dv.TakesValue()
}

func findCommand(commands []*cli.Command, name string) *cli.Command {
	for _, c := range commands {
		if c.Name == name || slices.Contains(c.Aliases, name) {
			return c
		}
	}
	return nil
}

// freeBorrowed is the kind of the borrowed ranges no device uses: their
// starts, as `cxlvctl release` takes them.
const freeBorrowed = "free-borrowed"

// liveNames lists the objects of one kind that exist now.
func liveNames(sysRoot, kind string) []string {
	if kind == "" {
		return nil
	}
	sys, err := sysfs.NewFS(sysRoot)
	if err != nil {
		return nil
	}
	if kind == freeBorrowed {
		ranges, _ := sys.VirtBorrowed()
		var starts []string
		for _, r := range ranges {
			if r.Device == "" {
				starts = append(starts, fmt.Sprintf("%#x", r.Start))
			}
		}
		return starts
	}
	t, err := sys.Topology()
	if err != nil {
		return nil
	}
	return t.Names(kind)
}

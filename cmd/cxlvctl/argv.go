package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
)

// normalizeArgs rewrites a command line into the one form urfave/cli v2
// reads without surprises, or refuses it before any command runs.
//
// urfave/cli v2 stops reading flags at a command's first positional
// argument, so `region destroy region0 --dry-run` would make "--dry-run" a
// region name, after region0 had been destroyed for real. Here the whole
// line is read against the app's own flag and command definitions first:
// every flag, wherever it stands, goes to the level that defines it (the
// command's own, then its parents', then the global flags), as
// `--name=value`; short flags combine (-jv); `--` ends the flags, so names
// that start with '-' can follow it; the names follow a `--` of their own.
// An unknown command or flag or a value flag without its value is a usage
// error (exit 2) naming the fix; a value that does not parse is refused by
// the flag's own value as urfave/cli sets it (flagValue), before any
// command runs.
func normalizeArgs(app *cli.App, args []string) ([]string, error) {
	if len(args) == 0 {
		return args, nil
	}
	type level struct {
		cmd   *cli.Command // nil: the app itself
		flags []string
	}
	levels := []*level{{}}
	commands := app.Commands
	var path, names, rest []string
	endOfFlags := false
	for i := 1; i < len(args); i++ {
		a := args[i]
		if leaf := levels[len(levels)-1].cmd; leaf != nil && leaf.SkipFlagParsing {
			rest = args[i:] // __complete reads the raw words itself
			break
		}
		if endOfFlags || a == "-" || !strings.HasPrefix(a, "-") {
			if len(commands) == 0 {
				names = append(names, a)
				continue
			}
			sub := findCommand(commands, a)
			if sub == nil {
				return nil, unknownCommand(path, a, commands)
			}
			levels = append(levels, &level{cmd: sub})
			path = append(path, sub.Name)
			commands = sub.Subcommands
			continue
		}
		if a == "--" {
			endOfFlags = true
			continue
		}
		// The flags of each level so far, the app's first; lookupFlag
		// tries the innermost level first.
		defs := make([][]cli.Flag, len(levels))
		for j, l := range levels {
			defs[j] = app.Flags
			if l.cmd != nil {
				defs[j] = l.cmd.Flags
			}
		}
		toks, err := readFlag(defs, path, args, &i)
		if err != nil {
			return nil, err
		}
		for _, t := range toks {
			levels[t.level].flags = append(levels[t.level].flags, t.text)
		}
	}
	if slices.Contains(levels[0].flags, "--version") && len(path) > 0 {
		return nil, usagef("--version runs no command: give it alone, or run `cxlvctl version`")
	}
	out := []string{args[0]}
	if helpAsked(levels[len(levels)-1].flags) {
		return append(append(out, path...), "--help"), nil
	}
	for _, l := range levels {
		if l.cmd != nil {
			out = append(out, l.cmd.Name)
		}
		out = append(out, l.flags...)
	}
	if len(names) > 0 {
		out = append(append(out, "--"), names...)
	}
	return append(out, rest...), nil
}

// helpAsked: -h/--help among a command's flags shows its help and nothing
// else, whatever names the line has.
func helpAsked(flags []string) bool {
	return slices.Contains(flags, "--"+cli.HelpFlag.Names()[0])
}

// flagToken is one flag of the normalized line and the level it goes to.
type flagToken struct {
	level int
	text  string
}

// readFlag reads the flag at args[*i] (and its value, advancing *i past
// it) against defs, the flags of each level of the command path.
func readFlag(defs [][]cli.Flag, path, args []string, i *int) ([]flagToken, error) {
	a := args[*i]
	name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
	if lvl, f := lookupFlag(defs, name); f != nil {
		if !takesValue(f) {
			if hasValue {
				if _, err := strconv.ParseBool(value); err != nil {
					return nil, usagef("--%s takes no value (got %q): give --%s alone, or --%s=false", f.Names()[0], value, f.Names()[0], f.Names()[0])
				}
				return []flagToken{{lvl, "--" + f.Names()[0] + "=" + value}}, nil
			}
			return []flagToken{{lvl, "--" + f.Names()[0]}}, nil
		}
		if !hasValue {
			if *i+1 >= len(args) {
				return nil, usagef("--%s needs a value%s", f.Names()[0], valueHint(f))
			}
			*i++
			value = args[*i]
		}
		if value == "" {
			return nil, usagef("--%s needs a value%s, not an empty one", f.Names()[0], valueHint(f))
		}
		return []flagToken{{lvl, "--" + f.Names()[0] + "=" + value}}, nil
	}
	// -jv: single-letter flags combined, getopt style: a flag that takes a
	// value takes the rest of the word (-s512M), or the next word if it is
	// the last letter (-js 512M).
	if short := strings.TrimPrefix(a, "-"); short != a && !strings.HasPrefix(short, "-") && len(short) > 1 && !hasValue {
		var toks []flagToken
		for k, r := range short {
			if _, f := lookupFlag(defs, string(r)); f == nil {
				return nil, unknownFlag(defs, path, a)
			} else if takesValue(f) && k < len(short)-1 {
				one := []string{"-" + string(r) + "=" + short[k+1:]}
				t, err := readFlag(defs, path, one, new(int))
				return append(toks, t...), err
			}
			one := append([]string{"-" + string(r)}, args[*i+1:]...)
			j := 0
			t, err := readFlag(defs, path, one, &j)
			if err != nil {
				return nil, err
			}
			*i += j
			toks = append(toks, t...)
		}
		return toks, nil
	}
	return nil, unknownFlag(defs, path, a)
}

// lookupFlag finds a flag by name or alias, the innermost level first;
// -h/--help exists at every level.
func lookupFlag(defs [][]cli.Flag, name string) (int, cli.Flag) {
	for j := len(defs) - 1; j >= 0; j-- {
		if f := findFlag(defs[j], name); f != nil {
			return j, f
		}
		if slices.Contains(cli.HelpFlag.Names(), name) {
			return j, cli.HelpFlag
		}
	}
	return 0, nil
}

func unknownFlag(defs [][]cli.Flag, path []string, arg string) error {
	var known []string
	for _, fs := range defs {
		for _, f := range fs {
			known = append(known, "--"+f.Names()[0])
		}
	}
	flag, _, _ := strings.Cut(arg, "=")
	where := "cxlvctl"
	if len(path) > 0 {
		where += " " + strings.Join(path, " ")
	}
	msg := fmt.Sprintf("unknown flag %s for '%s'", flag, where)
	if m := closest("--"+strings.TrimLeft(flag, "-"), known); m != "" {
		msg += fmt.Sprintf(": did you mean %s?", m)
	}
	// Only a word that could be a name (regionN, cxlv0, mem-...) gets the
	// hint that names starting with '-' go after --.
	hint := ""
	if mayBeName(flag) {
		hint = "a name that starts with '-' goes after --; "
	}
	return usagef("%s (%ssee `%s --help`)", msg, hint, where)
}

// mayBeName tells whether an unknown flag could be a name: a single-dash
// word longer than a cluster of short flags, ending in a digit (-region0,
// -mem1, -namespace0.0).
func mayBeName(flag string) bool {
	w := strings.TrimPrefix(flag, "-")
	return !strings.HasPrefix(w, "-") && len(w) > 2 && strings.ContainsAny(w[len(w)-1:], "0123456789")
}

func unknownCommand(path []string, name string, commands []*cli.Command) error {
	var known []string
	for _, c := range commands {
		if !c.Hidden {
			known = append(known, c.Name)
		}
	}
	parent := strings.Join(append([]string{"cxlvctl"}, path...), " ")
	msg := fmt.Sprintf("unknown command '%s'", strings.Join(append(slices.Clone(path), name), " "))
	if m := closest(name, known); m != "" {
		msg += fmt.Sprintf(": did you mean '%s'?", strings.Join(append(slices.Clone(path), m), " "))
	}
	return usagef("%s (`%s --help` lists the commands)", msg, parent)
}

// closest is the candidate nearest to s: within an edit distance of a
// third of its length (at least 2), or one that s starts or that starts s.
// urfave/cli v2's own (App.Suggest) does not do this: it takes the best
// Jaro-Winkler score with no cutoff, so any word, frobnicate too, gets a
// "did you mean", hidden names (__complete) and help among the answers; it
// looks at one command's flags, not its parents', and prints to stdout
// beside the error rather than in its one line.
func closest(s string, candidates []string) string {
	best, bestDist := "", 0
	for _, c := range candidates {
		d := editDistance(s, c)
		if strings.HasPrefix(c, s) || strings.HasPrefix(s, c) {
			d = min(d, 1)
		}
		if d <= max(2, len(s)/3) && (best == "" || d < bestDist) {
			best, bestDist = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// valueHint says what a value flag wants, for its error messages.
func valueHint(f cli.Flag) string {
	if g, ok := f.(*cli.GenericFlag); ok {
		if _, ok := g.Value.(*flagValue[time.Duration]); ok {
			return ", a duration such as 30s or 2m"
		}
	}
	return ""
}

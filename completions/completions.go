// Package completions holds the shell completion scripts of cxlvctl, kept as
// plain files in the repository and printed by `cxlvctl completion SHELL`.
package completions

import (
	"embed"
	"fmt"
	"sort"
	"strings"
)

//go:embed cxlvctl.bash cxlvctl.zsh cxlvctl.fish
var scripts embed.FS

// Shells are the shells with a script.
func Shells() []string {
	entries, _ := scripts.ReadDir(".")
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimPrefix(e.Name(), "cxlvctl."))
	}
	sort.Strings(out)
	return out
}

// Script returns the completion script for shell.
func Script(shell string) ([]byte, error) {
	b, err := scripts.ReadFile("cxlvctl." + shell)
	if err != nil {
		return nil, fmt.Errorf("no completion for shell %q: use one of %s", shell, strings.Join(Shells(), ", "))
	}
	return b, nil
}

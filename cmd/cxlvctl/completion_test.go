package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/cxlv/cxlv/cmd/cxlvctl/exitcode"
	"github.com/cxlv/cxlv/completions"
	"github.com/cxlv/cxlv/sysfs"
)

// poison completes a cxl_virt device or its memdev, and a namespace.
func TestCompletePoison(t *testing.T) {
	sys := filepath.Join(fixtureDir("cxlv-region-fsdax"), "sys")
	for _, tc := range []struct {
		words []string
		want  []string
	}{
		{[]string{"poison", ""}, []string{"inject", "clear", "list"}},
		{[]string{"poison", "inject", ""}, []string{"cxlv0", "mem0"}},
		{[]string{"poison", "clear", "cxlv0", "--namespace", ""}, []string{"namespace0.0"}},
		{[]string{"poison", "list", "m"}, []string{"mem0"}},
		{[]string{"poison", "list", ""}, []string{"cxlv0", "mem0", "all"}},
		{[]string{"poison", "list", "--"}, []string{"--json", "--no-headers"}},
		{[]string{"event", "inject", ""}, []string{"cxlv0", "mem0"}},
		{[]string{"event", "inject", "cxlv0", "--type", ""}, []string{"general-media", "dram", "memory-module"}},
		{[]string{"event", "inject", "cxlv0", "--log", "f"}, []string{"fail", "fatal"}},
	} {
		var got []string
		for _, c := range completeWords(newApp(os.Stdout, os.Stderr), sys, tc.words) {
			got = append(got, c.value)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("complete %q = %q; want %q", tc.words, got, tc.want)
		}
	}
}

func TestComplete(t *testing.T) {
	sys := filepath.Join(fixtureDir("qemu-region-fsdax"), "sys")
	for _, tc := range []struct {
		words []string
		want  []string
	}{
		{[]string{""}, []string{"create", "remove", "release", "list", "ranges", "node-tables", "info", "region", "namespace", "poison", "event", "completion", "version", "help"}},
		{[]string{"r"}, []string{"remove", "release", "ranges", "region"}},
		{[]string{"list", "--"}, []string{"--json", "--human", "--verbose", "--health", "--partition", "--firmware", "--media-errors", "--memdev", "--region", "--decoder", "--no-headers"}},
		{[]string{"list", "-j", "--"}, []string{"--human", "--verbose", "--health", "--partition", "--firmware", "--media-errors", "--memdev", "--region", "--decoder", "--no-headers"}}, // a flag given is not offered again
		{[]string{"--sysfs-root", sys, "region", "destroy", "region0", ""}, nil},
		{[]string{"namespace", "destroy", "namespace0.0", "n"}, nil},
		{[]string{"region", "create", "--type="}, []string{"--type=pmem", "--type=ram"}},
		{[]string{"region", "create", "-t=r"}, []string{"-t=ram"}},
		{[]string{"region", "create", "--memdev=m"}, []string{"--memdev=mem0"}},
		{[]string{"namespace", "create", "--region=region0", "--mode="}, []string{"--mode=fsdax", "--mode=devdax", "--mode=raw"}},
		{[]string{"remove", ""}, nil}, // no cxl_virt device in this tree
		{[]string{"--sysfs-root", sys, "region", "destroy", ""}, []string{"region0"}},
		{[]string{"region", "create", "--memdev", ""}, []string{"mem0"}},
		{[]string{"region", "create", "--memdev", "mem0", "--namespace", "f"}, []string{"fsdax"}},
		{[]string{"region", "create", "--fs", ""}, []string{"xfs", "ext4"}},
		{[]string{"region", "create", "--type", ""}, []string{"pmem", "ram"}},
		{[]string{"region", "create", "-t", "r"}, []string{"ram"}}, // an alias completes as its flag
		{[]string{"region", "create", "--type", "ram", "--online", ""}, []string{"movable", "normal", "none"}},
		{[]string{"create", "--size", "5G", "--ways", ""}, []string{"2", "4", "8"}},
		{[]string{"create", "--ways", "4", "--host-bridges="}, []string{"--host-bridges=1", "--host-bridges=2", "--host-bridges=4"}},
		{[]string{"create", "--ways", "4", "--granularity", "1"}, []string{"1K", "16K"}},
		{[]string{"create", "--way"}, []string{"--ways"}},
		{[]string{"region", "create", "--memdev", ""}, []string{"mem0"}},
		{[]string{"namespace", "destroy", ""}, []string{"namespace0.0"}},
		{[]string{"namespace", "create", "--region", ""}, []string{"region0"}},
		{[]string{"namespace", "create", "--mode", "dev"}, []string{"devdax"}},
		{[]string{"completion", ""}, []string{"bash", "zsh", "fish"}},
		{[]string{"--sysfs-root", ""}, nil}, // left to the shell's file completion
	} {
		app := newApp(os.Stdout, os.Stderr)
		var got []string
		for _, c := range completeWords(app, sys, tc.words) {
			got = append(got, c.value)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("complete %q = %q; want %q", tc.words, got, tc.want)
		}
	}
}

// Arguments complete to real words only: live names and literal choices,
// never the usage notation of ArgsUsage ("[cxlvN", "memN...]").
func TestCompleteRealWordsOnly(t *testing.T) {
	sys := filepath.Join(fixtureDir("cxlv-region-fsdax"), "sys")
	app := newApp(io.Discard, io.Discard)
	want := map[string][]string{
		"list":           {"cxlv0", "mem0"},
		"completion":     {"bash", "zsh", "fish"},
		"remove":         {"cxlv0"},
		"region destroy": {"region0"},
	}
	eachCommand(app.Commands, false, func(path string, c *cli.Command) {
		words := append(strings.Fields(path), "")
		var got []string
		for _, cand := range completeWords(app, sys, words) {
			got = append(got, cand.value)
			if !regexp.MustCompile(`^[a-z0-9][a-z0-9.-]*$`).MatchString(cand.value) {
				t.Errorf("complete %q offers %q, not a word the command takes", words, cand.value)
			}
		}
		if w, ok := want[path]; ok && !reflect.DeepEqual(got, w) {
			t.Errorf("complete %q = %q; want %q", words, got, w)
		}
	})
}

// Commands and flags carry a one-line description, names none.
func TestCompleteDescriptions(t *testing.T) {
	out, _, rc := cxlvctl(t, "qemu-region-devdax", "__complete", "region", "")
	if rc != 0 || out != "create\tcreate a pmem region\ndestroy\tdestroy regions, their namespaces\nlist\tlist CXL regions with their nd regions and namespaces\n" {
		t.Errorf("__complete region: exit %d, %q", rc, out)
	}
	app := newApp(io.Discard, io.Discard)
	for _, words := range [][]string{{""}, {"region", "create", "--"}, {"--"}} {
		for _, c := range completeWords(app, "", words) {
			if c.desc == "" || strings.ContainsAny(c.desc, "\n\t") || len([]rune(c.desc)) > 60 {
				t.Errorf("%q: %s has description %q; want one line of at most 60 characters", words, c.value, c.desc)
			}
		}
	}
}

// The hidden command is what the scripts call; it reads names from the
// --sysfs-root given before it.
func TestCompleteCommand(t *testing.T) {
	out, _, rc := cxlvctl(t, "qemu-region-devdax", "__complete", "region", "create", "--memdev", "")
	if rc != 0 || out != "mem0\n" {
		t.Errorf("__complete: exit %d, %q; want mem0", rc, out)
	}
}

func TestCompletionScripts(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		out, _, rc := cxlvctl(t, "", "completion", shell)
		want, err := os.ReadFile(filepath.Join("..", "..", "completions", "cxlvctl."+shell))
		if err != nil {
			t.Fatal(err)
		}
		if rc != 0 || out != string(want) || !strings.Contains(out, "__complete") {
			t.Errorf("completion %s: exit %d, script differs from completions/cxlvctl.%s or does not call __complete", shell, rc, shell)
		}
	}
	if got := completions.Shells(); !reflect.DeepEqual(got, []string{"bash", "fish", "zsh"}) {
		t.Errorf("Shells() = %v", got)
	}
	if _, errOut, rc := cxlvctl(t, "", "completion", "tcsh"); rc != exitcode.Invalid || !strings.Contains(errOut, "use one of bash, fish, zsh") {
		t.Errorf("completion tcsh: exit %d, %q", rc, errOut)
	}
}

// Each script, loaded in its real shell, completes through the __complete
// command: this test binary stands in for cxlvctl on $PATH. bash runs the
// completion function as it would on <TAB> (COMP_WORDS split at '=' as bash
// splits them), fish its own `complete -C`, and zsh a real interactive zsh
// with compinit in a pseudo-terminal (zpty), typing the line and a tab.
func TestCompletionScriptsInTheirShells(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(self, filepath.Join(dir, "cxlvctl")); err != nil {
		t.Fatal(err)
	}
	sys, err := filepath.Abs(filepath.Join(fixtureDir("qemu-region-fsdax"), "sys"))
	if err != nil {
		t.Fatal(err)
	}
	scripts, err := filepath.Abs(filepath.Join("..", "..", "completions"))
	if err != nil {
		t.Fatal(err)
	}
	programs := map[string]string{
		// $3: the words; bash's own split puts '=' in a word of its own.
		"bash": `source "$1/cxlvctl.bash"; read -ra COMP_WORDS <<<"$3"; [[ $3 == *" " ]] && COMP_WORDS+=(""); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _cxlvctl; printf '%s\n' "${COMPREPLY[@]}"`,
		"fish": `source $argv[1]/cxlvctl.fish; complete -C "$argv[3]"`,
		"zsh": `zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "stty columns 1000; PS1=PRO''MPT; autoload -U compinit; compinit -u -D; zstyle ':completion:*' list-prompt ''; source $1/cxlvctl.zsh"
# Type only once zle reads the line: earlier keys meet a cooked terminal.
zpty -r z line '*PROMPT'
# zle finishes the completion before it reads the next key: the line
# killed (^U) and an echo run after it mark the end of its drawing.
zpty -w -n z "$3"$'\t\x15echo DO""NE\n'
zpty -r z out '*DONE*'
zpty -d z
print -r -- "$out"`,
	}
	for _, tc := range []struct {
		shell, line string
		want        []string // in the output, after terminal escapes are removed
		wantNot     string
	}{
		{"bash", "cxlvctl --sysfs-root SYS region destroy re", []string{"region0"}, ""},
		{"bash", "cxlvctl --sysfs-root SYS region destroy region0 ", nil, "region0"},
		{"bash", "cxlvctl region create --type =", []string{"pmem\nram"}, "--type"},
		{"bash", "cxlvctl region create --type = r", []string{"ram"}, "pmem"},
		{"bash", "cxlvctl reg", []string{"region"}, "\t"},
		{"fish", "cxlvctl --sysfs-root SYS region destroy re", []string{"region0"}, ""},
		{"fish", "cxlvctl --sysfs-root SYS region destroy region0 ", nil, "region0"},
		{"fish", "cxlvctl region create --type=", []string{"--type=pmem", "--type=ram"}, ""},
		{"fish", "cxlvctl region ", []string{"create\tcreate a pmem region", "destroy\tdestroy regions, their namespaces"}, ""},
		{"zsh", "cxlvctl --sysfs-root SYS region destroy re", []string{"sys region destroy region0 "}, ""},
		{"zsh", "cxlvctl region create --type=r", []string{"--type=ram"}, ""},
		{"zsh", "cxlvctl region ", []string{"create -- create a pmem region", "destroy -- destroy regions, their namespaces"}, ""},
	} {
		line := strings.ReplaceAll(tc.line, "SYS", sys)
		args := []string{"-c", programs[tc.shell], tc.shell, scripts, sys, line}
		if tc.shell == "fish" {
			args = []string{"-c", programs[tc.shell], scripts, sys, line}
		}
		cmd := exec.Command(tc.shell, args...)
		cmd.Env = append(os.Environ(), "CXLVCTL_TEST_AS_MAIN=1", "PATH="+dir+":"+os.Getenv("PATH"))
		raw, err := cmd.CombinedOutput()
		out := terminalEscapes.ReplaceAllString(strings.ReplaceAll(string(raw), "\r", ""), "")
		ok := err == nil && (tc.wantNot == "" || !strings.Contains(out, tc.wantNot)) && (tc.want != nil || strings.TrimSpace(out) == "")
		for _, w := range tc.want {
			ok = ok && strings.Contains(out, w)
		}
		if !ok {
			t.Errorf("%s completion of %q: %q, %v; want %q, not %q", tc.shell, tc.line, out, err, tc.want, tc.wantNot)
		}
	}
}

// terminalEscapes are the control sequences zle draws with.
var terminalEscapes = regexp.MustCompile("\x1b(\\[[0-9;?]*[a-zA-Z]|[=>])|\x08")

// Every placeholder argKinds knows is one a command's ArgsUsage has, and
// its kind one liveNames lists: renaming a placeholder fails here rather
// than silently dropping its completion. (Flags complete from their own
// value types, and examples are checked by TestExamplesUseRealFlags.)
func TestArgKindsNameRealPlaceholders(t *testing.T) {
	placeholders := map[string]bool{}
	eachCommand(newApp(io.Discard, io.Discard).Commands, true, func(_ string, c *cli.Command) {
		first, alternatives := firstArg(c.ArgsUsage)
		placeholders[first] = true
		for _, alt := range alternatives {
			placeholders[alt] = true
		}
	})
	for placeholder, kind := range argKinds {
		if !placeholders[placeholder] {
			t.Errorf("argKinds has %q, which no command's ArgsUsage names", placeholder)
		}
		if kind != freeBorrowed && !slices.Contains(sysfs.NameKinds, kind) {
			t.Errorf("argKinds[%q] = %q, not one of sysfs.NameKinds", placeholder, kind)
		}
	}
}

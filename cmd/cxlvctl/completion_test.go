package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cxlv/cxlv/completions"
)

func TestComplete(t *testing.T) {
	sys := filepath.Join(fixtureDir("qemu-region-fsdax"), "sys")
	for _, tc := range []struct {
		words []string
		want  []string
	}{
		{[]string{""}, []string{"create", "remove", "list", "ranges", "info", "region", "namespace", "completion"}},
		{[]string{"r"}, []string{"remove", "ranges", "region"}},
		{[]string{"list", "--"}, []string{"--json", "--human", "--verbose", "--memdev", "--region", "--decoder", "--no-headers"}},
		{[]string{"remove", ""}, nil}, // no cxl_virt device in this tree
		{[]string{"--sysfs-root", sys, "region", "destroy", ""}, []string{"region0"}},
		{[]string{"region", "create", "--memdev", ""}, []string{"mem0"}},
		{[]string{"region", "create", "--memdev", "mem0", "--namespace", "f"}, []string{"fsdax"}},
		{[]string{"region", "create", "--fs", ""}, []string{"xfs", "ext4"}},
		{[]string{"region", "create", "--type", ""}, []string{"pmem", "ram"}},
		{[]string{"region", "create", "-t", "r"}, []string{"ram"}}, // an alias completes as its flag
		{[]string{"region", "create", "--type", "ram", "--online", ""}, []string{"movable", "normal", "none"}},
		{[]string{"region", "create", "-m", ""}, []string{"mem0"}},
		{[]string{"namespace", "destroy", ""}, []string{"namespace0.0"}},
		{[]string{"namespace", "create", "--region", ""}, []string{"region0"}},
		{[]string{"namespace", "create", "--mode", "dev"}, []string{"devdax"}},
		{[]string{"completion", ""}, []string{"bash", "zsh", "fish"}},
		{[]string{"--sysfs-root", ""}, nil}, // left to the shell's file completion
	} {
		app := newApp(os.Stdout, os.Stderr)
		if got := completeWords(app, sys, tc.words); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("complete %q = %q; want %q", tc.words, got, tc.want)
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
	if _, errOut, rc := cxlvctl(t, "", "completion", "tcsh"); rc != exitInvalid || !strings.Contains(errOut, "use one of bash, fish, zsh") {
		t.Errorf("completion tcsh: exit %d, %q", rc, errOut)
	}
}

// Each script, loaded in its real shell, completes live names through the
// __complete command: this test binary stands in for cxlvctl on $PATH.
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
	// Each shell completes `cxlvctl --sysfs-root SYS region destroy re`.
	for shell, program := range map[string]string{
		"bash": `source "$1/cxlvctl.bash"; COMP_WORDS=(cxlvctl --sysfs-root "$2" region destroy re); COMP_CWORD=5; _cxlvctl; printf '%s\n' "${COMPREPLY[@]}"`,
		// compdef and compadd exist only inside zsh's completion system.
		"zsh":  `compdef() { :; }; compadd() { shift; print -l -- "$@"; }; source "$1/cxlvctl.zsh"; words=(cxlvctl --sysfs-root "$2" region destroy re); CURRENT=6; _cxlvctl`,
		"fish": `source $argv[1]/cxlvctl.fish; complete -C "cxlvctl --sysfs-root $argv[2] region destroy re"`,
	} {
		if _, err := exec.LookPath(shell); err != nil {
			t.Logf("%s not installed: its script is not exercised", shell)
			continue
		}
		args := []string{"-c", program, shell, scripts, sys}
		if shell == "fish" {
			args = []string{"-c", program, scripts, sys}
		}
		cmd := exec.Command(shell, args...)
		cmd.Env = append(os.Environ(), "CXLVCTL_TEST_AS_MAIN=1", "PATH="+dir+":"+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "region0" {
			t.Errorf("%s completion of `region destroy re`: %q, %v; want region0", shell, out, err)
		}
	}
}

package main

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/cxlv/cxlv/cmd/cxlvctl/exitcode"
	"github.com/cxlv/cxlv/cxlverr"
)

// TestMain lets the test binary stand in for cxlvctl when the completion
// scripts run it (CXLVCTL_TEST_AS_MAIN=1): a shell test then exercises the
// real script against the real command without building a second binary.
//
// Otherwise it records every refusal the package's tests make cxlvctl
// print, and after them checks each one's exit code against the documented
// table (checkExitCodes).
func TestMain(m *testing.M) {
	if os.Getenv("CXLVCTL_TEST_AS_MAIN") == "1" {
		main()
	}
	seen := map[string]refusal{}
	runHook = func(args []string, err error) {
		if err != nil {
			seen[err.Error()] = refusal{args: args, msg: err.Error(), code: exitcode.Of(err)}
		}
	}
	rc := m.Run()
	runHook = nil
	if bad := checkExitCodes(seen); len(bad) > 0 {
		fmt.Fprintf(os.Stderr, "exit-code table: %d of %d refusals exit with another code than their kind's:\n%s",
			len(bad), len(seen), strings.Join(bad, ""))
		rc = 1
	}
	os.Exit(rc)
}

// refusal is one failing command line the tests ran.
type refusal struct {
	args []string
	msg  string
	code int
}

// documentedCodes is the exit-code table of the README and of `cxlvctl
// --help`, kind by kind; TestExitCodeTableDocumented holds both to it.
var documentedCodes = []struct {
	kind   error
	code   int
	readme string
}{
	{cxlverr.ErrInvalid, 2, "2 on invalid input"},
	{cxlverr.ErrPermission, 3, "3 without root"},
	{cxlverr.ErrNotSupported, 4, "4 when the\nmodule is not loaded or the kernel lacks a feature"},
	{cxlverr.ErrBusy, 5, "5 when busy"},
	{cxlverr.ErrNotFound, 6, "6 when a name is unknown"},
	{cxlverr.ErrTimeout, 7, "7 on a\ntime-out"},
	{cxlverr.ErrInterrupted, 130, "130 when interrupted"},
	{errFailure, 1, "1 otherwise"},
}

// errFailure is the kind of what is none of the others: an I/O error, a
// tree that cannot be read.
var errFailure = errors.New("failure")

// refusalKinds say what kind each refusal message is, first match first;
// a message no pattern matches is invalid input. It is written from what
// the messages say, not from the code that returns them, so an error of
// the wrong kind (or of none) shows as a code that differs from its kind's.
var refusalKinds = []struct {
	kind error
	re   *regexp.Regexp
}{
	{cxlverr.ErrInterrupted, regexp.MustCompile(`^interrupted by`)},
	{cxlverr.ErrPermission, regexp.MustCompile(`permission denied|run as root`)},
	{cxlverr.ErrNotSupported, regexp.MustCompile(`not available: module|run: modprobe|kernel too old|needs? Linux [0-9.]+\+|mount debugfs|tracefs is not mounted|^no ACPI`)},
	{cxlverr.ErrBusy, regexp.MustCompile(`of memory online|in use|is busy|no free endpoint decoder|has no free space|holds data and a label|overlaps cxlv[0-9]+ |has region[0-9]+; destroy it first| is on 0x[0-9a-f]+`)},
	{cxlverr.ErrNotFound, regexp.MustCompile(` not found$|^remove: no device |^memdev mem[0-9]+ not found: |no borrowed range starts at`)},
	{cxlverr.ErrTimeout, regexp.MustCompile(`^timed out`)},
	{errFailure, regexp.MustCompile(`: no such file or directory$|^sysfs root: |: reading |^no command given$|no new cxlvN appeared|: injected failure`)},
}

// checkExitCodes returns a line for each refusal whose exit code is not
// the documented one of its kind.
func checkExitCodes(seen map[string]refusal) []string {
	var bad []string
	for _, r := range seen {
		kind := cxlverr.ErrInvalid
		for _, k := range refusalKinds {
			if k.re.MatchString(r.msg) {
				kind = k.kind
				break
			}
		}
		for _, d := range documentedCodes {
			if d.kind == kind && d.code != r.code {
				bad = append(bad, fmt.Sprintf("  %q: exit %d, want %d (%v): %s\n", r.args[1:], r.code, d.code, kind, r.msg))
			}
		}
	}
	sort.Strings(bad)
	return bad
}

// The table the refusals are checked against is the one the README, the
// package comment and --help give, and the one exitCode applies.
func TestExitCodeTableDocumented(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var help strings.Builder
	if rc := run(t.Context(), []string{"cxlvctl", "--help"}, &help, &help); rc != 0 {
		t.Fatalf("--help: exit %d", rc)
	}
	for _, d := range documentedCodes {
		if !strings.Contains(string(readme), d.readme) {
			t.Errorf("README does not say %q", d.readme)
		}
		if !regexp.MustCompile(`(?m)^   ` + fmt.Sprint(d.code) + ` +[a-z]`).MatchString(help.String()) {
			t.Errorf("--help's EXIT CODES do not give %d on a line of its own", d.code)
		}
		if d.kind != errFailure {
			if got := exitcode.Of(fmt.Errorf("wrapped: %w", cxlverr.Errorf(d.kind, "x"))); got != d.code {
				t.Errorf("exitcode.Of(%v) = %d, want %d", d.kind, got, d.code)
			}
		}
	}
	if got := exitcode.Of(errors.New("x")); got != 1 {
		t.Errorf("exitCode of an untyped error = %d, want 1", got)
	}
	for line := range strings.Lines(help.String()) {
		if len(strings.TrimRight(line, "\n")) > helpWidth {
			t.Errorf("--help line wider than %d columns: %q", helpWidth, line)
		}
	}
}

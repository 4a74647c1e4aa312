package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/cxlv/cxlv/cmd/cxlvctl/exitcode"
	"github.com/cxlv/cxlv/cmd/cxlvctl/hostinfo"
)

// The tests run info's helper in the process, on the command line
// cxlvctl would exec it with, so every info test also checks that the
// helper reads what cxlvctl passes.
func init() {
	execInfo = func(c *cli.Context, args []string) error {
		return hostinfo.Main(args[1:], c.App.Writer, c.App.ErrWriter)
	}
}

// cxlvctl must not link ghw or what its packages import (net/http through
// its PCI database): their inits would run at every start, `version`
// included. Only cxlvctl-info may.
func TestCxlvctlLinksNoGhw(t *testing.T) {
	for _, tc := range []struct {
		pkg    string
		linked bool
	}{{".", false}, {"../cxlvctl-info", true}} {
		out, err := exec.Command("go", "list", "-tags", "urfave_cli_no_docs", "-deps", tc.pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", tc.pkg, err, out)
		}
		for _, dep := range []string{"github.com/jaypipes/ghw/pkg/topology", "net/http"} {
			if linked := strings.Contains("\n"+string(out), "\n"+dep+"\n"); linked != tc.linked {
				t.Errorf("%s links %s: %v, want %v", tc.pkg, dep, linked, tc.linked)
			}
		}
	}
}

// Without the helper beside it, info says so in one line, with the fix.
func TestInfoHelperMissing(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(self), infoHelper)); err == nil {
		t.Skipf("%s is beside the test binary", infoHelper)
	}
	_, err = infoHelperPath()
	if err == nil || exitcode.Of(err) != exitcode.NotFound || strings.Contains(err.Error(), "\n") ||
		!strings.Contains(err.Error(), "missing: install both") {
		t.Fatalf("infoHelperPath() = %v (exit %d), want a one-line not-found error with the fix", err, exitcode.Of(err))
	}
}

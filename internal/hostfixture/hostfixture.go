// Package hostfixture opens the systems test/vm/capture-fixtures.sh
// captured as host roots (a package of its own: sysfs's tests use
// fixturetest, and host imports sysfs).
package hostfixture

import (
	"path/filepath"
	"testing"

	"github.com/cxlv/cxlv/host"
	"github.com/cxlv/cxlv/internal/fixturetest"
	"github.com/cxlv/cxlv/sysfs"
)

// Root is the system captured in test/fixtures/<scenario>.
func Root(t testing.TB, scenario string) host.Root {
	t.Helper()
	sys, err := sysfs.NewFS(filepath.Join(fixturetest.Dir(scenario), "sys"))
	if err != nil {
		t.Fatal(err)
	}
	return Of(sys)
}

// Of is the captured system whose sys tree is sys: its proc tree and (for
// a boot with cxl_virt) debugfs tree lie beside it.
func Of(sys sysfs.FS) host.Root {
	return host.New(sys, sys.Path("..", "proc"), sys.Path("..", "debugfs"))
}

// Package host names where the kernel's file systems are mounted: sysfs,
// procfs and debugfs. A Root is the one way the other packages reach the
// kernel's files, the way prometheus/procfs holds its mount point in its
// FS value, so every reader runs unchanged on a tree captured from a real
// VM (test/fixtures/<scenario>/{sys,proc,debugfs}).
package host

import (
	"path/filepath"

	"github.com/cxlv/cxlv/sysfs"
)

// Where the kernel's file systems are mounted on a running system.
const (
	DefaultSys     = "/sys"
	DefaultProc    = "/proc"
	DefaultDebugfs = "/sys/kernel/debug"
)

// Root is one system's sysfs, procfs and debugfs mount points.
type Root struct {
	sys           sysfs.FS
	proc, debugfs string
}

// New returns the system of the sysfs tree sys, with procfs and debugfs
// mounted at proc and debugfs. Only sysfs is opened first: a kernel
// without debugfs has none, and a captured tree may hold few proc files.
func New(sys sysfs.FS, proc, debugfs string) Root {
	return Root{sys: sys, proc: proc, debugfs: debugfs}
}

// Sys is the sysfs tree.
func (r Root) Sys() sysfs.FS { return r.sys }

// Proc joins elem onto the procfs mount point.
func (r Root) Proc(elem ...string) string {
	return filepath.Join(append([]string{r.proc}, elem...)...)
}

// Debugfs joins elem onto the debugfs mount point.
func (r Root) Debugfs(elem ...string) string {
	return filepath.Join(append([]string{r.debugfs}, elem...)...)
}

package region

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/writer"
)

// Tools makes and mounts filesystems. Formatting and mounting are not
// kernel attribute writes, so they run the system's mkfs and mount.
type Tools interface {
	Mkfs(fstype, dev string) error
	Mount(dev, dir string) error
	Unmount(dir string) error
}

// Exec runs mkfs.xfs, mkfs.ext4, mount and umount.
type Exec struct{}

// mkfsArgs are the arguments for a DAX-capable filesystem: ext4 must use
// 4 KiB blocks (it picks 1 KiB on small devices, which rules out DAX); xfs
// leaves out reflink, which 6.1 supports with DAX only experimentally.
func mkfsArgs(fstype, dev string) []string {
	if fstype == "ext4" {
		return []string{"mkfs.ext4", "-q", "-F", "-b", "4096", dev}
	}
	return []string{"mkfs.xfs", "-q", "-f", "-m", "reflink=0", dev}
}

// Mkfs implements Tools.
func (Exec) Mkfs(fstype, dev string) error { return run(mkfsArgs(fstype, dev)) }

// Mount implements Tools: a DAX mount, refused by the kernel when the
// device cannot do DAX.
func (Exec) Mount(dev, dir string) error { return run([]string{"mount", "-o", "dax", dev, dir}) }

// Unmount implements Tools.
func (Exec) Unmount(dir string) error { return run([]string{"umount", dir}) }

func run(argv []string) error {
	var out bytes.Buffer
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(out.String())
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("%s: %s", strings.Join(argv, " "), msg)
	}
	return nil
}

// PrintTools prints the commands instead of running them (--dry-run),
// through the dry run that prints the kernel writes.
type PrintTools struct{ DryRun *writer.DryRun }

func (p PrintTools) print(argv []string) error { return p.DryRun.Command(argv) }

// Mkfs implements Tools.
func (p PrintTools) Mkfs(fstype, dev string) error { return p.print(mkfsArgs(fstype, dev)) }

// Mount implements Tools.
func (p PrintTools) Mount(dev, dir string) error {
	return p.print([]string{"mount", "-o", "dax", dev, dir})
}

// Unmount implements Tools.
func (p PrintTools) Unmount(dir string) error { return p.print([]string{"umount", dir}) }

// checkMountDir refuses a mount point that is not a directory before
// anything is made.
func checkMountDir(dir string) error {
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return cxlverr.Invalidf("mount point %s is not a directory: create it first (mkdir -p %s)", dir, dir)
	}
	return nil
}

// makeFilesystem formats the fsdax namespace Create made and mounts it. A
// namespace that came back from its labels keeps its filesystem: it is only
// mounted. The mount is undone on a later failure; the format needs no
// undo, since the namespace under it is destroyed.
func (m *Manager) makeFilesystem(t *tx, res *Result, s Spec) error {
	if len(res.Namespaces) != 1 || res.Namespaces[0].Mode != ModeFsdax {
		var found []string
		for _, ns := range res.Namespaces {
			found = append(found, ns.Name+" ("+string(ns.Mode)+")")
		}
		return fmt.Errorf("nd %s needs exactly one fsdax namespace for the filesystem; its labels brought back: %s",
			res.NDRegion, strings.Join(found, ", "))
	}
	ns := res.Namespaces[0]
	dev := ns.BlockDev
	tools := m.tools()
	if !ns.Reassembled {
		if err := tools.Mkfs(s.Filesystem, dev); err != nil {
			return err
		}
	}
	if err := tools.Mount(dev, s.MountDir); err != nil {
		return err
	}
	t.push("umount "+s.MountDir, func() error { return tools.Unmount(s.MountDir) })
	res.Filesystem, res.MountDir = s.Filesystem, s.MountDir
	return nil
}

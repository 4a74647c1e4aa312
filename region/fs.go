package region

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/writer"
)

// Tools makes and mounts filesystems. Formatting and mounting are not
// kernel attribute writes, so they run the system's mkfs and mount.
type Tools interface {
	Mkfs(ctx context.Context, fstype, dev string) error
	Mount(ctx context.Context, dev, dir string) error
	Unmount(dir string) error
}

// Exec runs mkfs.xfs, mkfs.ext4 and mount, each killed when ctx ends or
// Timeout (DefaultTimeout when zero) has passed, and unmounts with
// umount(2).
type Exec struct{ Timeout time.Duration }

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
func (x Exec) Mkfs(ctx context.Context, fstype, dev string) error {
	return x.run(ctx, mkfsArgs(fstype, dev))
}

// Mount implements Tools: a DAX mount, refused by the kernel when the
// device cannot do DAX.
func (x Exec) Mount(ctx context.Context, dev, dir string) error {
	return x.run(ctx, mountArgs(dev, dir))
}

// Unmount implements Tools.
func (Exec) Unmount(dir string) error {
	if err := unix.Unmount(dir, 0); err != nil {
		return &fs.PathError{Op: "umount", Path: dir, Err: err}
	}
	return nil
}

func (x Exec) run(ctx context.Context, argv []string) error {
	timeout := cmp.Or(x.Timeout, DefaultTimeout)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	cmdline := strings.Join(argv, " ")
	switch {
	case err == nil:
		return nil
	case ctx.Err() == context.DeadlineExceeded:
		return cxlverr.Errorf(cxlverr.ErrTimeout, "%s: killed after %v", cmdline, timeout)
	case ctx.Err() != nil:
		return fmt.Errorf("%s: %w", cmdline, context.Cause(ctx))
	}
	msg := strings.TrimSpace(out.String())
	if msg == "" {
		msg = err.Error()
	}
	return fmt.Errorf("%s: %s", cmdline, msg)
}

func mountArgs(dev, dir string) []string { return []string{"mount", "-o", "dax", dev, dir} }

// PrintTools prints the commands instead of running them (--dry-run),
// through the dry run that prints the kernel writes.
type PrintTools struct{ DryRun *writer.DryRun }

func (p PrintTools) print(argv []string) error { return p.DryRun.Command(argv) }

// Mkfs implements Tools.
func (p PrintTools) Mkfs(_ context.Context, fstype, dev string) error {
	return p.print(mkfsArgs(fstype, dev))
}

// Mount implements Tools.
func (p PrintTools) Mount(_ context.Context, dev, dir string) error {
	return p.print(mountArgs(dev, dir))
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
func (m *Manager) makeFilesystem(ctx context.Context, t *tx, res *Result, s Spec) error {
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
		if err := tools.Mkfs(ctx, s.Filesystem, dev); err != nil {
			return err
		}
	}
	if err := tools.Mount(ctx, dev, s.MountDir); err != nil {
		return err
	}
	t.push("umount "+s.MountDir, func() error { return tools.Unmount(s.MountDir) })
	res.Filesystem, res.MountDir = s.Filesystem, s.MountDir
	return nil
}

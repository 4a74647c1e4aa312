package region

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/sysfs"
)

// What uses a namespace, found the way the kernel sees it rather than by
// the text of a /dev name: the disk the namespace (or its pfn/btt claim)
// registered and each of its partitions are matched by major:minor against
// /proc/self/mountinfo, by their holders/ directory (device-mapper, md),
// against /proc/swaps, and, on a live system, by an exclusive open of the
// disk's /dev node as `ndctl destroy-namespace` does (EBUSY: a mount, a
// holder or another exclusive opener has it). A captured tree has no device
// nodes; there the sysfs and procfs parts decide.

// disk is a block device of a namespace: the whole disk or a partition.
type disk struct {
	name string // pmem0, pmem0p1
	dev  string // major:minor
	dir  string // its sysfs directory
}

// disks are the namespace's disk and its partitions, nil for none (a
// devdax or idle namespace).
func disks(ns sysfs.Namespace) []disk {
	base := ns.Path
	if ns.Claim != nil {
		base = ns.Claim.Path
	}
	dirs, _ := filepath.Glob(filepath.Join(base, "block", "*"))
	if len(dirs) == 0 {
		return nil
	}
	whole := dirs[0]
	out := []disk{readDisk(whole)}
	parts, _ := os.ReadDir(whole)
	for _, p := range parts {
		dir := filepath.Join(whole, p.Name())
		if _, err := os.Stat(filepath.Join(dir, "partition")); err == nil {
			out = append(out, readDisk(dir))
		}
	}
	return out
}

func readDisk(dir string) disk {
	b, _ := os.ReadFile(filepath.Join(dir, "dev"))
	return disk{name: filepath.Base(dir), dev: strings.TrimSpace(string(b)), dir: dir}
}

// InUseError is a namespace something uses: a mount (of it or a
// partition), a holder, swap, or an exclusive opener. --force does not
// override it. It matches cxlverr.ErrBusy.
type InUseError struct {
	Namespace string
	// User names the user: "/dev/pmem0p1 mounted on /mnt/x".
	User string
	// Fix is what stops it: "umount /mnt/x".
	Fix string
}

func (e *InUseError) Error() string {
	return fmt.Sprintf("%s (%s): %s first; --force does not tear down a namespace in use", e.User, e.Namespace, e.Fix)
}

func (e *InUseError) Is(target error) bool { return target == cxlverr.ErrBusy }

// checkNotInUse refuses a namespace that is mounted, held, swapped on or
// open, naming the first user found.
func (m *Manager) checkNotInUse(ns sysfs.Namespace) error {
	ds := disks(ns)
	if len(ds) == 0 {
		return nil
	}
	byDev := map[string]disk{}
	for _, d := range ds {
		if d.dev != "" {
			byDev[d.dev] = d
		}
	}
	if err := m.checkMounts(ns, byDev); err != nil {
		return err
	}
	for _, d := range ds {
		holders, _ := os.ReadDir(filepath.Join(d.dir, "holders"))
		if len(holders) > 0 {
			h := holders[0].Name()
			return &InUseError{Namespace: ns.Name, User: h + " holds " + d.name,
				Fix: "remove " + h + " (dmsetup remove, mdadm --stop)"}
		}
	}
	if err := m.checkSwaps(ns, ds); err != nil {
		return err
	}
	return checkExclusiveOpen(ns, ds[0])
}

// checkMounts matches the major:minor of each mount (mountinfo's third
// field) with the namespace's disks. A captured tree recorded before
// mountinfo was has /proc/self/mounts: its /dev names are matched instead.
func (m *Manager) checkMounts(ns sysfs.Namespace, byDev map[string]disk) error {
	b, err := os.ReadFile(m.Host.Proc("self", "mountinfo"))
	if errors.Is(err, fs.ErrNotExist) {
		return m.checkMountsByName(ns, byDev)
	}
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		if d, ok := byDev[f[2]]; ok {
			dir := unescapeMount(f[4])
			return &InUseError{Namespace: ns.Name, User: "/dev/" + d.name + " mounted on " + dir, Fix: "umount " + dir}
		}
	}
	return nil
}

func (m *Manager) checkMountsByName(ns sysfs.Namespace, byDev map[string]disk) error {
	b, err := os.ReadFile(m.Host.Proc("self", "mounts"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		for _, d := range byDev {
			if f[0] == "/dev/"+d.name {
				dir := unescapeMount(f[1])
				return &InUseError{Namespace: ns.Name, User: f[0] + " mounted on " + dir, Fix: "umount " + dir}
			}
		}
	}
	return nil
}

// unescapeMount undoes the octal escapes of a mount point (\040 a space).
func unescapeMount(s string) string {
	r := strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`)
	return r.Replace(s)
}

// checkSwaps refuses a namespace whose disk or partition is a swap area:
// /proc/swaps names it by its /dev path; on a live system a path that
// names another node of the same device is caught by its rdev.
func (m *Manager) checkSwaps(ns sysfs.Namespace, ds []disk) error {
	b, err := os.ReadFile(m.Host.Proc("swaps"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for i, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if i == 0 || len(f) == 0 {
			continue // the header
		}
		path := unescapeMount(f[0])
		for _, d := range ds {
			if path == "/dev/"+d.name || rdevOf(path) == d.dev && d.dev != "" {
				return &InUseError{Namespace: ns.Name, User: "swap on " + path, Fix: "swapoff " + path}
			}
		}
	}
	return nil
}

// rdevOf is the major:minor of a block device node, "" for anything else.
func rdevOf(path string) string {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFBLK {
		return ""
	}
	return fmt.Sprintf("%d:%d", unixMajor(st.Rdev), unixMinor(st.Rdev))
}

// unixMajor and unixMinor split a Linux dev_t (glibc's gnu_dev_major/minor).
func unixMajor(d uint64) uint64 { return (d>>8)&0xfff | (d>>32)&^0xfff }
func unixMinor(d uint64) uint64 { return d&0xff | (d>>12)&^0xff }

// checkExclusiveOpen opens the disk's /dev node O_EXCL, as ndctl's
// ndctl_namespace_disable_safe does: the kernel refuses with EBUSY while a
// filesystem, a holder, swap or another exclusive opener claims the disk
// or one of its partitions. Skipped where the node is not this disk (a
// captured tree read on another machine).
func checkExclusiveOpen(ns sysfs.Namespace, whole disk) error {
	node := "/dev/" + whole.name
	if whole.dev == "" || rdevOf(node) != whole.dev {
		return nil
	}
	fd, err := syscall.Open(node, syscall.O_RDONLY|syscall.O_EXCL|syscall.O_CLOEXEC, 0)
	if errors.Is(err, syscall.EBUSY) {
		return &InUseError{Namespace: ns.Name, User: node + " is in use (its exclusive open failed: device busy)",
			Fix: "stop what has it open (fuser -vm " + node + ", lsblk " + node + ")"}
	}
	if err != nil {
		return nil // EACCES as non-root: the writes will say so
	}
	return syscall.Close(fd)
}

// Package sysfs is a typed, read-only model of the kernel objects cxlvctl
// works with: cxl_virt devices, the CXL bus (memdevs, ports, endpoints,
// decoders, regions, nvdimm bridges), the nvdimm bus (nd regions,
// namespaces, pfn/dax/btt claims) and device-dax devices.
//
// The sysfs mount point is a value (FS), the way prometheus/procfs does it,
// so every reader runs unchanged on a tree captured from a real VM. Kernel
// features are detected from the presence of attributes, never assumed from
// a version number; a missing one is a *cxlverr.FeatureError that matches
// cxlverr.ErrNotSupported.
package sysfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// FS is a sysfs tree rooted at a directory: where sysfs is mounted, or a
// captured copy (host.Root holds it with the other mount points).
type FS struct {
	root string
}

// NewFS returns the sysfs tree mounted at root.
func NewFS(root string) (FS, error) {
	info, err := os.Stat(root)
	if err != nil {
		return FS{}, fmt.Errorf("sysfs root: %w", err)
	}
	if !info.IsDir() {
		return FS{}, fmt.Errorf("sysfs root %s is not a directory", root)
	}
	return FS{root: root}, nil
}

// Root is the directory this tree is rooted at.
func (f FS) Root() string { return f.root }

// DriverRegistered reports whether bus has a driver of that name: its
// module is loaded (or built in).
func (f FS) DriverRegistered(bus, driver string) bool {
	return Exists(f.Path("bus", bus, "drivers", driver))
}

// Path joins elem onto the root.
func (f FS) Path(elem ...string) string {
	return filepath.Join(append([]string{f.root}, elem...)...)
}

// resolve follows the symbolic link of a bus entry the way the kernel lays
// them out (/sys/bus/cxl/devices/mem0 -> ../../../devices/.../mem0): one
// relative link to the device's own directory, which holds no further
// links on its way. So one readlink does what filepath.EvalSymlinks does
// with an lstat of every component (about fifteen system calls per
// device). The links of a captured tree are relative too, so they resolve
// inside it; an entry that is a directory already is its own path.
func (f FS) resolve(path string) (string, error) {
	target, err := os.Readlink(path)
	if errors.Is(err, syscall.EINVAL) {
		return path, nil
	}
	if err != nil {
		return "", err
	}
	if filepath.IsAbs(target) {
		return "", fmt.Errorf("%s: link to %s leaves the sysfs tree", path, target)
	}
	return filepath.Join(filepath.Dir(path), target), nil
}

// busDevices lists the entries of /sys/bus/<bus>/devices whose name starts
// with prefix followed by a number (so "mem" does not match "memory"),
// ordered by that number, as resolved device directories.
func (f FS) busDevices(bus, prefix string) ([]string, error) {
	dir := f.Path("bus", bus, "devices")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		// A registered bus with no devices: the kernel's directory is
		// empty, and a captured tree kept in git has none at all.
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, e := range entries {
		if _, ok := numberedName(e.Name(), prefix); !ok {
			continue
		}
		p, err := f.resolve(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	sortByNumber(paths, prefix)
	return paths, nil
}

// busObjects reads every /sys/bus/<bus>/devices/<prefix>N with read. A bus
// that does not exist returns missing: its module is not loaded.
func busObjects[T any](f FS, bus, prefix string, missing error, read func(string) (T, error)) ([]T, error) {
	if !Exists(f.Path("bus", bus)) {
		return nil, missing
	}
	paths, err := f.busDevices(bus, prefix)
	if err != nil {
		return nil, err
	}
	return readEach(paths, read)
}

// readEach reads one object from each directory.
func readEach[T any](paths []string, read func(string) (T, error)) ([]T, error) {
	out := make([]T, 0, len(paths))
	for _, p := range paths {
		v, err := read(p)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// childDirs lists the subdirectories of dir named prefix<number>, ordered.
func childDirs(dir, prefix string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var paths []string
	for _, e := range entries {
		if _, ok := numberedName(e.Name(), prefix); !ok {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if info, err := os.Stat(p); err == nil && info.IsDir() {
			paths = append(paths, p)
		}
	}
	sortByNumber(paths, prefix)
	return paths
}

// numberedName reports whether name is prefix followed by a decimal id
// (decoder names "decoder0.1" count as their port id followed by ".id").
func numberedName(name, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok || rest == "" {
		return 0, false
	}
	first, _, _ := strings.Cut(rest, ".")
	n, err := strconv.Atoi(first)
	if err != nil || n < 0 {
		return 0, false
	}
	for _, c := range rest {
		if (c < '0' || c > '9') && c != '.' {
			return 0, false
		}
	}
	return n, true
}

// sortByNumber orders paths by the numbers in their base names, so that
// region10 follows region9 and decoder0.10 follows decoder0.9.
func sortByNumber(paths []string, prefix string) {
	key := func(p string) []int {
		rest := strings.TrimPrefix(filepath.Base(p), prefix)
		var nums []int
		for _, s := range strings.Split(rest, ".") {
			n, _ := strconv.Atoi(s)
			nums = append(nums, n)
		}
		return nums
	}
	sort.SliceStable(paths, func(i, j int) bool {
		a, b := key(paths[i]), key(paths[j])
		for k := 0; k < len(a) && k < len(b); k++ {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
		}
		return len(a) < len(b)
	})
}

// Exists reports whether path exists (following links) and can be looked
// at: a debugfs file under a directory only root may search is not there
// for anyone else.
func Exists(path string) bool {
	var st unix.Stat_t
	return unix.Stat(path, &st) == nil
}

// readAttr returns the content of the attribute file at path. It costs three
// system calls where os.ReadFile costs seven (fcntl, epoll registration,
// fstat and a read that returns 0 besides open, read and close): a listing
// reads hundreds of attributes, and under emulation (QEMU TCG) each call is
// what the user waits for. Errors are *fs.PathError, so
// errors.Is(err, fs.ErrNotExist) works as with os.ReadFile.
func readAttr(path string) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	for err == unix.EINTR {
		fd, err = unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	// sysfs hands an attribute (at most one page) over in one read, and a
	// regular file of a captured tree gives what was asked for, so a short
	// read is the end; a full one may have more behind it.
	buf := make([]byte, 0, 4096)
	for {
		want := cap(buf) - len(buf)
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		buf = buf[:len(buf)+n]
		if n < want {
			return buf, nil
		}
		buf = append(buf, 0)[:len(buf)]
	}
}

// linkName is the base name of the target of the symbolic link at path, or
// "" when there is none: how sysfs names a related device (driver, uport).
func linkName(path string) string {
	target, err := os.Readlink(path)
	if err != nil {
		return ""
	}
	return filepath.Base(target)
}

// isNotExist reports a missing file, including one under a missing directory.
func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist)
}

package virt

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/sysfs"
)

// Device is what a name a user gives means: a cxl_virt device (an
// interleave set is one device) and, for memN, the one endpoint named.
type Device struct {
	Virt sysfs.VirtDevice
	// Memdev is the memN the name gave; "" when it named the device.
	Memdev string
}

// Memdevs are the memdevs the name covers: the one it gave, else all of
// the device's in position order (none before cxl_mem has bound them).
func (d Device) Memdevs() []string {
	if d.Memdev != "" {
		return []string{d.Memdev}
	}
	return d.Virt.Memdevs
}

// Resolve says which cxl_virt device name means: cxlvN as list prints it,
// or memN for the device, or interleave set, that has that memdev. A
// memdev no cxl_virt device has (QEMU's, hardware's) is an invalid name,
// as is anything else; a cxlvN that is not there is not found.
func Resolve(sys sysfs.FS, name string) (Device, error) {
	if !memdevName(name) {
		d, err := lookup(sys, name)
		return Device{Virt: d}, err
	}
	d, err := OfMemdev(sys, name)
	if err != nil {
		return Device{}, err
	}
	if d != nil {
		return Device{Virt: *d, Memdev: name}, nil
	}
	if _, err := sys.Memdev(name); err != nil {
		return Device{}, cxlverr.Errorf(cxlverr.ErrNotFound, "memdev %s not found: no cxl_virt device has it; use cxlvN or memN as shown by `cxlvctl list`", name)
	}
	return Device{}, cxlverr.Invalidf("invalid device name %q: no cxl_virt device has memdev %s; use cxlvN as shown by `cxlvctl list`", name, name)
}

// ResolveMemdevs is Resolve for the commands that act on memdevs (poison,
// events): a device with no memdev yet is busy.
func ResolveMemdevs(sys sysfs.FS, name string) (Device, error) {
	d, err := Resolve(sys, name)
	if err == nil && len(d.Memdevs()) == 0 {
		err = cxlverr.Errorf(cxlverr.ErrBusy, "%s has no memdev yet (state %q): wait until `cxlvctl list` shows it", d.Virt.Name, d.Virt.State)
	}
	return d, err
}

// memdevName reports a name of the memN form.
func memdevName(name string) bool {
	n, ok := strings.CutPrefix(name, "mem")
	return ok && n != "" && strings.Trim(n, "0123456789") == ""
}

// lookup reads the cxl_virt device called name (cxlvN).
func lookup(sys sysfs.FS, name string) (sysfs.VirtDevice, error) {
	id, err := deviceID(name)
	if err != nil {
		return sysfs.VirtDevice{}, err
	}
	return sys.VirtDevice(fmt.Sprintf("cxlv%d", id))
}

// deviceID parses a device name as list prints it: "cxlv3" is 3. A bare
// number, a sign or a leading zero is not a name (list refuses them too).
func deviceID(name string) (int, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(name, "cxlv"))
	if err != nil || n < 0 || n >= 1<<31 || name != "cxlv"+strconv.Itoa(n) {
		return 0, cxlverr.Invalidf("invalid device name %q: use cxlvN as shown by `cxlvctl list`", name)
	}
	return n, nil
}

// OfMemdev is the cxl_virt device, or interleave set, that has memdev; nil
// when none has it or cxl_virt is not loaded.
func OfMemdev(sys sysfs.FS, memdev string) (*sysfs.VirtDevice, error) {
	devices, err := sys.VirtDevices()
	if err != nil && !errors.Is(err, cxlverr.ErrNotSupported) {
		return nil, err
	}
	for i := range devices {
		if slices.Contains(devices[i].Memdevs, memdev) {
			return &devices[i], nil
		}
	}
	return nil, nil
}

// LinkOf is the link of the cxl_virt device called device (cxlvN) in t: a
// set's is one link.
func LinkOf(t *sysfs.Topology, device string) (sysfs.DeviceLink, error) {
	for _, l := range t.Links() {
		if l.Virt != nil && l.Virt.Name == device {
			return l, nil
		}
	}
	return sysfs.DeviceLink{}, &cxlverr.NotFoundError{Kind: "cxl_virt device", Name: device}
}

// CommitsRefused returns a *sysfs.CacheInvalidationError when the kernel
// will refuse to commit a region on memdev, a cxl_virt device's memdev,
// because the CPU cannot invalidate its caches and the module does not
// lift that.
func CommitsRefused(sys sysfs.FS, memdev string) error {
	state := sys.VirtCacheInvalidation()
	if state != sysfs.CacheInvalidationOff && state != sysfs.CacheInvalidationUnavailable {
		return nil
	}
	d, err := OfMemdev(sys, memdev)
	if err != nil || d == nil {
		return err
	}
	return &sysfs.CacheInvalidationError{State: state}
}

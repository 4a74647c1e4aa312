// Package debugfs drives the cxl_virt control files: it builds and checks
// the create and remove strings, finds the control files (debugfs, or the
// /sys/bus/cxl_virt pair every cxl_virt has besides), writes
// them through a writer.Writer, turns the kernel's errno and the module's
// last_error reason into one line a person can act on, and names the cxlvN
// device a create made.
package debugfs

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/sysfs"
	"github.com/cxlv/cxlv/units"
)

// Limits checked before a write. The layout of a range (where device
// memory starts, how much of it there is) and whether it is reserved and
// free are the module's to decide: it reports them through last_error.
const (
	// MinDeviceSize is the smallest range worth trying: device memory
	// comes in 256 MiB units (the CXL capacity multiplier).
	MinDeviceSize = 256 * units.MiB
	// MaxDevices is how many cxlvN devices the module allows at once.
	MaxDevices = 16
)

// CreateSpec is one create request.
type CreateSpec struct {
	Memstart uint64
	Memsize  uint64
	Pmem     bool
	// Serial is the device serial number; 0 lets the module pick one
	// derived from memstart.
	Serial uint64
	// Borrow lets the module take the range out of System RAM: Memstart
	// 0 lets it pick where (borrow=1, kmod/cxlv_borrow.c).
	Borrow bool
	// Perf are the figures for the device's CDAT (ns, MB/s); a 0 leaves
	// that one to the module's default.
	Perf sysfs.Coordinates
}

// perfKeys are the create keys of the CDAT figures, with their fields.
func (s *CreateSpec) perfKeys() []struct {
	key string
	v   uint64
} {
	return []struct {
		key string
		v   uint64
	}{{"read_latency", s.Perf.ReadLatency}, {"write_latency", s.Perf.WriteLatency},
		{"read_bandwidth", s.Perf.ReadBandwidth}, {"write_bandwidth", s.Perf.WriteBandwidth}}
}

// BorrowUnit is what a borrowed range is made of: whole 256 MiB blocks
// (the capacity unit and a multiple of x86-64's memory block), which the
// module takes from System RAM and gives back as they are.
const BorrowUnit = 256 * units.MiB

// pageSize is x86-64's base page: the module refuses a memsize that is not a
// multiple of it.
const pageSize = 4096

// Validate checks the request itself; the module checks the range.
func (s CreateSpec) Validate() error {
	switch {
	case s.Borrow && s.Memsize%BorrowUnit != 0:
		return cxlverr.Invalidf("size %s is not a multiple of 256M: memory is borrowed from System RAM in 256M blocks", units.FormatSize(s.Memsize))
	case s.Memstart == 0 && !s.Borrow:
		return cxlverr.Invalidf("--memstart is required: the start of a memmap= reserved range (see `cxlvctl ranges`)")
	case s.Memsize == 0:
		return cxlverr.Invalidf("--size is required: how much of the reserved range the device uses")
	case s.Memstart+s.Memsize < s.Memstart:
		return cxlverr.Invalidf("memstart %#x + size %#x wraps past the end of the address space", s.Memstart, s.Memsize)
	case s.Memsize < MinDeviceSize:
		return cxlverr.Invalidf("size %s is too small: a device needs at least 256M of reserved memory", units.FormatSize(s.Memsize))
	case s.Memsize%pageSize != 0:
		return cxlverr.Invalidf("size %d is not a multiple of the %d-byte page size; the module refuses it", s.Memsize, pageSize)
	}
	for _, k := range s.perfKeys() {
		if k.v > units.MaxFigure {
			return cxlverr.Invalidf("%s %d is more than the %d a CDAT entry holds", k.key, k.v, units.MaxFigure)
		}
	}
	return nil
}

// String is the text written to the create file. Numbers are decimal: the
// module also takes 0x hex, but never K/M/G suffixes.
func (s CreateSpec) String() string {
	pmem := 0
	if s.Pmem {
		pmem = 1
	}
	out := fmt.Sprintf("memsize=%d,cxltype=3,pmem=%d", s.Memsize, pmem)
	if s.Memstart != 0 {
		out = fmt.Sprintf("memstart=%d,", s.Memstart) + out
	}
	if s.Borrow {
		out += ",borrow=1"
	}
	if s.Serial != 0 {
		out += fmt.Sprintf(",serial=%d", s.Serial)
	}
	for _, k := range s.perfKeys() {
		if k.v != 0 {
			out += fmt.Sprintf(",%s=%d", k.key, k.v)
		}
	}
	return out
}

// RemoveString is the text written to the remove file for device id;
// release also gives its borrowed range back to the kernel.
func RemoveString(id int, release bool) string {
	if release {
		return "cxlv_dev_id=" + strconv.Itoa(id) + ",release=1"
	}
	return "cxlv_dev_id=" + strconv.Itoa(id)
}

// ReleaseString is the text written to the release file for the free
// borrowed range that starts at start.
func ReleaseString(start uint64) string { return fmt.Sprintf("memstart=%#x", start) }

// DeviceID parses a device name: "cxlv3" (or plain "3") is 3.
func DeviceID(name string) (int, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(name, "cxlv"))
	if err != nil || n < 0 || n >= 1<<31 {
		return 0, cxlverr.Invalidf("invalid device name %q: use cxlvN as shown by `cxlvctl list`", name)
	}
	return n, nil
}

// Package virt is the client of the cxl_virt module: its control files
// (debugfs cxl/cxlv, or the /sys/bus/cxl_virt ones every cxl_virt has
// besides) and the one answer to which cxl_virt device a name means. It
// builds and checks the create, remove and release strings, writes them
// through a writer.Writer, turns the kernel's errno and the module's
// last_error reason into one line a person can act on, names the cxlvN a
// create made, waits for its memdevs and onlines the memory a release gives
// back. Resolve turns the names users type (cxlvN, memN) into a device;
// poison and events act on what it gives.
package virt

import (
	"fmt"
	"strconv"

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

// LineSize is the unit of a device's media: the kernel and the device take
// 64-byte aligned DPAs and poison 64 bytes at a time (CXL r3.0
// 8.2.9.8.4.2), and an event record's address keeps flags in bits 5:0
// (Table 8-43).
const LineSize = 64

// CreateSpec is one create request.
type CreateSpec struct {
	Memstart uint64
	Memsize  uint64
	Pmem     bool
	// Serial is the device serial number; 0 lets the module pick one
	// derived from memstart.
	Serial uint64
	// Borrow lets the module take the range out of System RAM: Memstart
	// 0 lets it pick where (borrow=1, kmod/mem/cxlv_borrow.c).
	Borrow bool
	// Perf are the figures for the device's CDAT (ns, MB/s); a 0 leaves
	// that one to the module's default.
	Perf sysfs.Coordinates
	// Interleave makes the device an interleave set; the zero value is one
	// endpoint, as before sets existed.
	Interleave
	// Firmware is what the device's firmware slots are born with.
	Firmware Firmware
	// Partition is the volatile part of a persistent device.
	Partition Partition
	// QoSClass is the device's QoS Throttling Group.
	QoSClass QoSClass
	// Auto has the device born with its regions committed.
	Auto AutoRegion
}

// AutoRegion is a device born as platform firmware leaves one it set up
// before the OS looks (create keys auto_region= and locked=,
// kmod/emu/cxlv_emu.c): its decoders committed, a region over each
// partition that the kernel assembles at probe (Linux 6.3 and later).
// Locked sets their Lock On Commit: the kernel then refuses to destroy the
// regions (Linux 7.x; the module refuses it where the kernel would not).
type AutoRegion struct {
	Set    bool
	Locked bool
}

func (a AutoRegion) validate() error {
	if a.Locked && !a.Set {
		return cxlverr.Invalidf("--locked goes with --auto-region: only the decoders a device is born with can be locked")
	}
	return nil
}

// keys are the create-string keys; none when unset.
func (a AutoRegion) keys() string {
	switch {
	case a.Locked:
		return ",auto_region=1,locked=1"
	case a.Set:
		return ",auto_region=1"
	}
	return ""
}

// QoSClass is the QoS Throttling Group (QTG) of a device's root decoders
// and memory, as a platform's CFMWS and QTG _DSM give it (create key
// qos_class=, kmod/topo/cxlv_port.c): what `cxl list` shows as qos_class
// and `cxl create-region -Q` matches. Unset, the module's 0.
type QoSClass struct {
	Set   bool
	Class uint64
}

// MaxQoSClass is the largest QTG ID: a 16-bit field of the CFMWS.
const MaxQoSClass = 0xffff

func (q QoSClass) validate() error {
	if q.Set && q.Class > MaxQoSClass {
		return cxlverr.Invalidf("--qos-class %d: a QoS class (QTG ID) is 0 to %d", q.Class, MaxQoSClass)
	}
	return nil
}

// keys is the create-string key of the class; none when unset.
func (q QoSClass) keys() string {
	if !q.Set {
		return ""
	}
	return fmt.Sprintf(",qos_class=%d", q.Class)
}

// Partition is the volatile part a persistent device is born with (CXL
// r3.0 8.2.9.8.2): the first RAMSize bytes of its capacity, the rest
// persistent; in a set each endpoint's first RAMSize / ways bytes (create
// key ram_size=, kmod/emu/cxlv_partition.c). Unset, the
// device keeps the layout of the range's previous device, or is all
// persistent.
type Partition struct {
	Set     bool
	RAMSize uint64
}

// PartitionAlign is the Partition Alignment of a cxl_virt device: the
// boundary moves in 512 MiB steps (kmod/common/cxlv_parse.h).
const PartitionAlign = 512 * units.MiB

func (p Partition) validate(pmem bool, ways uint64) error {
	switch {
	case !p.Set:
		return nil
	case !pmem:
		return cxlverr.Invalidf("--ram-size needs --pmem: a device without --pmem is all volatile already")
	case ways == 1 && p.RAMSize%PartitionAlign != 0:
		return cxlverr.Invalidf("--ram-size %s is not a multiple of the 512M partition alignment (e.g. --ram-size %s)",
			units.FormatSize(p.RAMSize), units.FormatSize(units.AlignUp(p.RAMSize, PartitionAlign)))
	case p.RAMSize%(ways*PartitionAlign) != 0:
		// each endpoint gets RAMSize / ways, a multiple of the alignment
		return cxlverr.Invalidf("--ram-size %s with --ways %d is not a multiple of %d x the 512M partition alignment (e.g. --ram-size %s)",
			units.FormatSize(p.RAMSize), ways, ways, units.FormatSize(units.AlignUp(p.RAMSize, ways*PartitionAlign)))
	}
	return nil
}

// keys is the create-string key of the partition; none when unset.
func (p Partition) keys() string {
	if !p.Set {
		return ""
	}
	return fmt.Sprintf(",ram_size=%d", p.RAMSize)
}

// Firmware is a device's firmware slots from the factory (CXL r3.0
// 8.2.9.3.1): Slots slots, slot 1 running revision Rev. Zero values are
// the module's defaults (2 slots, "cxl_virt").
type Firmware struct {
	Slots uint64
	Rev   string
}

// Firmware limits: Get FW Info reports up to 4 slots of 16-character
// revisions; the kernel's update needs a slot beside the running one.
const (
	MinFirmwareSlots = 2
	MaxFirmwareSlots = 4
	MaxFirmwareRev   = 16
)

func (f Firmware) validate() error {
	if f.Slots != 0 && (f.Slots < MinFirmwareSlots || f.Slots > MaxFirmwareSlots) {
		return cxlverr.Invalidf("--firmware-slots %d: a device has %d to %d firmware slots", f.Slots, MinFirmwareSlots, MaxFirmwareSlots)
	}
	if len(f.Rev) > MaxFirmwareRev {
		return cxlverr.Invalidf("--firmware-rev %q is %d characters: a revision has at most %d", f.Rev, len(f.Rev), MaxFirmwareRev)
	}
	for _, r := range f.Rev {
		// a comma would end the create key
		if r < 0x20 || r > 0x7e || r == ',' {
			return cxlverr.Invalidf("--firmware-rev %q: use printable ASCII without commas", f.Rev)
		}
	}
	return nil
}

// keys are the create-string keys of the firmware slots; none for the
// defaults.
func (f Firmware) keys() string {
	out := ""
	if f.Slots != 0 {
		out += fmt.Sprintf(",fw_slots=%d", f.Slots)
	}
	if f.Rev != "" {
		out += ",fw_rev=" + f.Rev
	}
	return out
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

// Interleave is the shape of an interleave set: Ways endpoints behind
// HostBridges host bridges of one CXL root, interleaved every Granularity
// bytes. Zero fields are the module's defaults (one way, one host bridge,
// 4K granularity).
type Interleave struct {
	Ways, HostBridges, Granularity uint64
}

// Interleave limits (the CXL interleave encodings the kernel's region code
// accepts: 1, 2, 4, 8 ways; 256 B to 16 KiB).
const (
	MaxWays        = 8
	MaxHostBridges = 4
	MinGranularity = 256
	MaxGranularity = 16 * units.KiB
)

// ways is the number of endpoints, 1 when not given.
func (i Interleave) ways() uint64 { return max(i.Ways, 1) }

// StartAlign is where cxlvctl starts a range it picks: 1 MiB for one
// endpoint (the module's rule for memstart), ways x 256 MiB for a set, so
// that its window starts right after the metadata block (see Window).
func (i Interleave) StartAlign() uint64 {
	if i.ways() == 1 {
		return units.MiB
	}
	return i.ways() * MinDeviceSize
}

// Window is the part of a set's range its endpoints offer, as the module
// cuts it (kmod/Documentation/ABI/testing/sysfs-bus-cxl_virt): ways MiB of metadata
// first (a PCI window of 1 MiB per endpoint), then the whole ways x 256 MiB
// blocks, ways x 256 MiB aligned, that fit before the end. Size 0 when
// none fits.
func (i Interleave) Window(start, size uint64) (winStart, capacity uint64) {
	a := i.ways() * MinDeviceSize
	winStart = units.AlignUp(start+i.ways()*units.MiB, a)
	end := units.AlignDown(start+size, a)
	if end <= winStart {
		return winStart, 0
	}
	return winStart, end - winStart
}

func powerOfTwo(v uint64) bool { return v != 0 && v&(v-1) == 0 }

// Validate checks the shape of the set, before the range is looked at.
func (i Interleave) Validate() error {
	ways, hbs := i.ways(), max(i.HostBridges, 1)
	switch {
	case !powerOfTwo(ways) || ways > MaxWays:
		return cxlverr.Invalidf("--ways %d: a set has 1, 2, 4 or 8 endpoints", i.Ways)
	case !powerOfTwo(hbs) || hbs > MaxHostBridges:
		return cxlverr.Invalidf("--host-bridges %d: a set has 1, 2 or 4 host bridges", i.HostBridges)
	case ways == 1 && (hbs > 1 || i.Granularity != 0):
		return cxlverr.Invalidf("--host-bridges and --granularity shape an interleave set: add --ways 2, 4 or 8")
	case hbs > ways:
		return cxlverr.Invalidf("--host-bridges %d does not divide --ways %d: each host bridge needs ways/host-bridges endpoints; give --ways %d or more", hbs, ways, hbs)
	case i.Granularity != 0 && (!powerOfTwo(i.Granularity) || i.Granularity < MinGranularity || i.Granularity > MaxGranularity):
		return cxlverr.Invalidf("--granularity %s: use a power of two from 256 to 16K (e.g. --granularity 4K)", units.FormatSize(i.Granularity))
	case hbs < ways && i.Granularity*hbs > MaxGranularity:
		// a host bridge of several endpoints decodes at granularity x host bridges
		return cxlverr.Invalidf("--granularity %s with --host-bridges %d: a host bridge of several endpoints interleaves at granularity x host-bridges, at most 16K; give --granularity %s or less",
			units.FormatSize(i.Granularity), hbs, units.FormatSize(MaxGranularity/hbs))
	}
	return nil
}

// checkRange checks that a set's range holds at least one ways x 256 MiB
// block after its metadata, as the module would (ENOSPC); the size asked
// for when start is 0 (placed by cxlvctl at a multiple of StartAlign).
func (i Interleave) checkRange(start, size uint64) error {
	if i.ways() == 1 && start == 0 {
		return nil // placed or borrowed: the range is picked to fit
	}
	if start == 0 {
		start = i.StartAlign()
	}
	if _, capacity := i.Window(start, size); capacity > 0 {
		return nil
	}
	winStart, _ := i.Window(start, 0)
	if i.ways() == 1 {
		// kmod/mem/cxlv_mem.c cxlv_mem_validate refuses it (ENOSPC).
		return cxlverr.Invalidf("size %s at %#x gives no capacity: a device needs a 256M-aligned block after its 1 MiB of metadata; give --size %s or more",
			units.FormatSize(size), start, units.FormatSize(winStart+MinDeviceSize-start))
	}
	return cxlverr.Invalidf("size %s gives %d ways no capacity: a set needs a ways x 256M (%s) aligned block after its %d MiB of metadata; give --size %s or more",
		units.FormatSize(size), i.ways(), units.FormatSize(i.ways()*MinDeviceSize), i.ways(), units.FormatSize(winStart+i.ways()*MinDeviceSize-start))
}

// keys are the create-string keys of a set; none for a single device.
func (i Interleave) keys() string {
	if i.ways() == 1 {
		return ""
	}
	out := fmt.Sprintf(",ways=%d", i.Ways)
	if i.HostBridges > 1 {
		out += fmt.Sprintf(",host_bridges=%d", i.HostBridges)
	}
	if i.Granularity != 0 {
		out += fmt.Sprintf(",granularity=%d", i.Granularity)
	}
	return out
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
	case s.Memsize == 0:
		return cxlverr.Invalidf("--size is required: how much of the reserved range the device uses")
	case s.Memstart == 0 && !s.Borrow:
		return cxlverr.Invalidf("--memstart is required: the start of a memmap= reserved range (see `cxlvctl ranges`)")
	case s.Memstart+s.Memsize < s.Memstart:
		return cxlverr.Invalidf("memstart %#x + size %#x wraps past the end of the address space", s.Memstart, s.Memsize)
	case s.Borrow && s.ways() > 1:
		return cxlverr.Invalidf("--ways %d with --borrow: an interleave set needs a reserved range (memmap=, see `cxlvctl ranges`); borrowed ranges are single devices", s.Ways)
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
	if err := s.Interleave.Validate(); err != nil {
		return err
	}
	if err := s.Firmware.validate(); err != nil {
		return err
	}
	if err := s.Partition.validate(s.Pmem, s.ways()); err != nil {
		return err
	}
	if err := s.QoSClass.validate(); err != nil {
		return err
	}
	if err := s.Auto.validate(); err != nil {
		return err
	}
	return s.checkRange(s.Memstart, s.Memsize)
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
	return out + s.keys() + s.Firmware.keys() + s.Partition.keys() + s.QoSClass.keys() + s.Auto.keys()
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

package virt

import (
	"errors"
	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/sysfs"
	"github.com/cxlv/cxlv/units"
	"strings"
	"testing"
)

func TestCreateString(t *testing.T) {
	for _, tc := range []struct {
		spec CreateSpec
		want string
	}{
		{CreateSpec{Memstart: 6 * units.GiB, Memsize: 2 * units.GiB, Pmem: true},
			"memstart=6442450944,memsize=2147483648,cxltype=3,pmem=1"},
		{CreateSpec{Memstart: 0x180000000, Memsize: 512 * units.MiB, Serial: 0x5157},
			"memstart=6442450944,memsize=536870912,cxltype=3,pmem=0,serial=20823"},
		{CreateSpec{Memsize: 2 * units.GiB, Pmem: true, Borrow: true},
			"memsize=2147483648,cxltype=3,pmem=1,borrow=1"},
		{CreateSpec{Memstart: 6 * units.GiB, Memsize: units.GiB, Borrow: true},
			"memstart=6442450944,memsize=1073741824,cxltype=3,pmem=0,borrow=1"},
		{CreateSpec{Memstart: 4 * units.GiB, Memsize: units.GiB, Perf: sysfs.Coordinates{ReadLatency: 250, WriteLatency: 300, ReadBandwidth: 30000, WriteBandwidth: 25000}},
			"memstart=4294967296,memsize=1073741824,cxltype=3,pmem=0,read_latency=250,write_latency=300,read_bandwidth=30000,write_bandwidth=25000"},
		{CreateSpec{Memstart: 4 * units.GiB, Memsize: units.GiB, Perf: sysfs.Coordinates{WriteBandwidth: 1}},
			"memstart=4294967296,memsize=1073741824,cxltype=3,pmem=0,write_bandwidth=1"},
		{CreateSpec{Memstart: 8 * units.GiB, Memsize: 4 * units.GiB, Pmem: true, Interleave: Interleave{Ways: 4, HostBridges: 2, Granularity: 4096}},
			"memstart=8589934592,memsize=4294967296,cxltype=3,pmem=1,ways=4,host_bridges=2,granularity=4096"},
		{CreateSpec{Memstart: 8 * units.GiB, Memsize: units.GiB, Interleave: Interleave{Ways: 2}},
			"memstart=8589934592,memsize=1073741824,cxltype=3,pmem=0,ways=2"},
		{CreateSpec{Memstart: 8 * units.GiB, Memsize: units.GiB, Interleave: Interleave{Ways: 1, HostBridges: 1}},
			"memstart=8589934592,memsize=1073741824,cxltype=3,pmem=0"},
		{CreateSpec{Memstart: 8 * units.GiB, Memsize: units.GiB, Firmware: Firmware{Slots: 3, Rev: "v1.0 beta"}},
			"memstart=8589934592,memsize=1073741824,cxltype=3,pmem=0,fw_slots=3,fw_rev=v1.0 beta"},
		{CreateSpec{Memstart: 8 * units.GiB, Memsize: 2 * units.GiB, Pmem: true, Partition: Partition{Set: true, RAMSize: 512 * units.MiB}},
			"memstart=8589934592,memsize=2147483648,cxltype=3,pmem=1,ram_size=536870912"},
		{CreateSpec{Memstart: 8 * units.GiB, Memsize: 2 * units.GiB, Pmem: true, Partition: Partition{Set: true}},
			"memstart=8589934592,memsize=2147483648,cxltype=3,pmem=1,ram_size=0"},
		{CreateSpec{Memstart: 8 * units.GiB, Memsize: units.GiB, Pmem: true, QoSClass: QoSClass{Set: true, Class: 42}},
			"memstart=8589934592,memsize=1073741824,cxltype=3,pmem=1,qos_class=42"},
		{CreateSpec{Memstart: 8 * units.GiB, Memsize: units.GiB, QoSClass: QoSClass{Set: true}},
			"memstart=8589934592,memsize=1073741824,cxltype=3,pmem=0,qos_class=0"},
		{CreateSpec{Memstart: 8 * units.GiB, Memsize: units.GiB, Auto: AutoRegion{Set: true}},
			"memstart=8589934592,memsize=1073741824,cxltype=3,pmem=0,auto_region=1"},
		{CreateSpec{Memstart: 8 * units.GiB, Memsize: units.GiB, Pmem: true, Auto: AutoRegion{Set: true, Locked: true}},
			"memstart=8589934592,memsize=1073741824,cxltype=3,pmem=1,auto_region=1,locked=1"},
	} {
		if got := tc.spec.String(); got != tc.want {
			t.Errorf("String() = %q; want %q", got, tc.want)
		}
	}
}

func TestValidate(t *testing.T) {
	ok := CreateSpec{Memstart: 6 * units.GiB, Memsize: 2 * units.GiB, Pmem: true}
	borrow := CreateSpec{Memsize: 768 * units.MiB, Borrow: true}
	set := CreateSpec{Memstart: 8 * units.GiB, Memsize: 4 * units.GiB, Pmem: true, Interleave: Interleave{Ways: 4, HostBridges: 2, Granularity: 256}}
	x8 := CreateSpec{Memstart: 16 * units.GiB, Memsize: 4 * units.GiB, Interleave: Interleave{Ways: 8, HostBridges: 4, Granularity: 4 * units.KiB}}
	part := CreateSpec{Memstart: 6 * units.GiB, Memsize: 2 * units.GiB, Pmem: true, Partition: Partition{Set: true, RAMSize: units.GiB}}
	qos := CreateSpec{Memstart: 6 * units.GiB, Memsize: units.GiB, QoSClass: QoSClass{Set: true, Class: MaxQoSClass}}
	partSet := CreateSpec{Memstart: 8 * units.GiB, Memsize: 4 * units.GiB, Pmem: true, Interleave: Interleave{Ways: 2, HostBridges: 2}, Partition: Partition{Set: true, RAMSize: 2 * units.GiB}}
	locked := CreateSpec{Memstart: 6 * units.GiB, Memsize: units.GiB, Auto: AutoRegion{Set: true, Locked: true}}
	for _, s := range []CreateSpec{ok, borrow, set, x8, part, qos, partSet, locked} {
		if err := s.Validate(); err != nil {
			t.Fatalf("Validate(%+v) = %v", s, err)
		}
	}
	for _, tc := range []struct {
		spec   CreateSpec
		reason string
	}{
		{CreateSpec{Memsize: units.GiB}, "--memstart is required"},
		{CreateSpec{Memstart: units.GiB}, "--size is required"},
		{CreateSpec{Memstart: 1 << 63, Memsize: 1 << 63}, "wraps"},
		{CreateSpec{Memstart: 4 << 30, Memsize: 1<<30 - 1}, "page size"},
		{CreateSpec{Memstart: 6 * units.GiB, Memsize: 255 * units.MiB}, "too small"},
		{CreateSpec{Memsize: 768*units.MiB + 4096, Borrow: true}, "not a multiple of 256M"},
		{CreateSpec{Memstart: 4 * units.GiB, Memsize: units.GiB, Perf: sysfs.Coordinates{ReadLatency: units.MaxFigure + 1}}, "read_latency 65535 is more than the 65534"},
		{withSet(Interleave{Ways: 3}), "--ways 3: a set has 1, 2, 4 or 8 endpoints"},
		{withSet(Interleave{Ways: 16}), "--ways 16"},
		{withSet(Interleave{Ways: 4, HostBridges: 3}), "--host-bridges 3: a set has 1, 2 or 4 host bridges"},
		{withSet(Interleave{Ways: 2, HostBridges: 4}), "--host-bridges 4 does not divide --ways 2"},
		{withSet(Interleave{Ways: 4, Granularity: 3000}), "--granularity 3000: use a power of two from 256 to 16K"},
		{withSet(Interleave{Ways: 4, Granularity: 128}), "from 256 to 16K"},
		{withSet(Interleave{Ways: 4, Granularity: 32 * units.KiB}), "--granularity 32K"},
		{withSet(Interleave{Ways: 4, HostBridges: 2, Granularity: 16 * units.KiB}), "--granularity 16K with --host-bridges 2: a host bridge of several endpoints interleaves at granularity x host-bridges, at most 16K; give --granularity 8K or less"},
		{withSet(Interleave{HostBridges: 2}), "add --ways 2, 4 or 8"},
		{withSet(Interleave{Granularity: 4096}), "add --ways 2, 4 or 8"},
		{CreateSpec{Memstart: 8 * units.GiB, Memsize: units.GiB, Interleave: Interleave{Ways: 4}},
			"size 1G gives 4 ways no capacity: a set needs a ways x 256M (1G) aligned block after its 4 MiB of metadata; give --size 2G or more"},
		{CreateSpec{Memstart: 8*units.GiB + 512*units.MiB, Memsize: units.GiB, Interleave: Interleave{Ways: 4}}, "give --size 1536M or more"},
		{CreateSpec{Memsize: 2 * units.GiB, Borrow: true, Interleave: Interleave{Ways: 2}}, "--ways 2 with --borrow: an interleave set needs a reserved range"},
		{withFirmware(Firmware{Slots: 1}), "--firmware-slots 1: a device has 2 to 4 firmware slots"},
		{withFirmware(Firmware{Slots: 5}), "--firmware-slots 5"},
		{withFirmware(Firmware{Rev: "0123456789abcdefg"}), "is 17 characters: a revision has at most 16"},
		{withFirmware(Firmware{Rev: "a,b"}), "use printable ASCII without commas"},
		{withFirmware(Firmware{Rev: "tab\there"}), "use printable ASCII without commas"},
		{CreateSpec{Memstart: 6 * units.GiB, Memsize: units.GiB, Partition: Partition{Set: true}}, "--ram-size needs --pmem"},
		{CreateSpec{Memstart: 6 * units.GiB, Memsize: units.GiB, Pmem: true, Partition: Partition{Set: true, RAMSize: 256 * units.MiB}},
			"--ram-size 256M is not a multiple of the 512M partition alignment (e.g. --ram-size 512M)"},
		{CreateSpec{Memstart: 8 * units.GiB, Memsize: 4 * units.GiB, Pmem: true, Interleave: Interleave{Ways: 2}, Partition: Partition{Set: true, RAMSize: 512 * units.MiB}},
			"--ram-size 512M with --ways 2 is not a multiple of 2 x the 512M partition alignment (e.g. --ram-size 1G)"},
		{CreateSpec{Memstart: 6 * units.GiB, Memsize: units.GiB, QoSClass: QoSClass{Set: true, Class: MaxQoSClass + 1}},
			"--qos-class 65536: a QoS class (QTG ID) is 0 to 65535"},
		{CreateSpec{Memstart: 6 * units.GiB, Memsize: units.GiB, Auto: AutoRegion{Locked: true}},
			"--locked goes with --auto-region"},
	} {
		err := tc.spec.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.reason) || !errors.Is(err, cxlverr.ErrInvalid) {
			t.Errorf("Validate(%+v) = %v; want an cxlverr.ErrInvalid saying %q", tc.spec, err, tc.reason)
		}
	}
}

func TestDeviceID(t *testing.T) {
	for in, want := range map[string]int{"cxlv0": 0, "cxlv15": 15} {
		if got, err := deviceID(in); err != nil || got != want {
			t.Errorf("deviceID(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "cxlv", "mem0", "cxlv-1", "cxlv1x", "cxlv99999999999", "0", "3", "cxlv+3", "cxlv03"} {
		if _, err := deviceID(in); !errors.Is(err, cxlverr.ErrInvalid) {
			t.Errorf("deviceID(%q) error = %v; want cxlverr.ErrInvalid", in, err)
		}
	}
	if got := RemoveString(2, false); got != "cxlv_dev_id=2" {
		t.Errorf("RemoveString(2, false) = %q", got)
	}
	if got := RemoveString(2, true); got != "cxlv_dev_id=2,release=1" {
		t.Errorf("RemoveString(2, true) = %q", got)
	}
}

// withSet is a 4G range at 8G shaped as il.
func withSet(il Interleave) CreateSpec {
	return CreateSpec{Memstart: 8 * units.GiB, Memsize: 4 * units.GiB, Interleave: il}
}

// withFirmware is a 1G device at 6G born with f.
func withFirmware(f Firmware) CreateSpec {
	return CreateSpec{Memstart: 6 * units.GiB, Memsize: units.GiB, Firmware: f}
}

// The window is what the module offers: ways MiB of metadata, then whole
// ways x 256M blocks, aligned (x1: today's 1 MiB, then 256M blocks).
func TestWindow(t *testing.T) {
	for _, tc := range []struct {
		il                         Interleave
		start, size, win, capacity uint64
	}{
		{Interleave{Ways: 4}, 8 * units.GiB, 5 * units.GiB, 9 * units.GiB, 4 * units.GiB},
		{Interleave{Ways: 4}, 8 * units.GiB, 4 * units.GiB, 9 * units.GiB, 3 * units.GiB},
		{Interleave{Ways: 4}, 9*units.GiB - 4*units.MiB, 4 * units.GiB, 9 * units.GiB, 3 * units.GiB},
		{Interleave{Ways: 2}, 8 * units.GiB, 512 * units.MiB, 8*units.GiB + 512*units.MiB, 0},
		{Interleave{}, 4 * units.GiB, 512 * units.MiB, 4*units.GiB + 256*units.MiB, 256 * units.MiB},
	} {
		win, capacity := tc.il.Window(tc.start, tc.size)
		if win != tc.win || capacity != tc.capacity {
			t.Errorf("%+v.Window(%#x, %s) = %#x, %s; want %#x, %s", tc.il, tc.start, units.FormatSize(tc.size),
				win, units.FormatSize(capacity), tc.win, units.FormatSize(tc.capacity))
		}
	}
}

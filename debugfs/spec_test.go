package debugfs

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
	} {
		if got := tc.spec.String(); got != tc.want {
			t.Errorf("String() = %q; want %q", got, tc.want)
		}
	}
}

func TestValidate(t *testing.T) {
	ok := CreateSpec{Memstart: 6 * units.GiB, Memsize: 2 * units.GiB, Pmem: true}
	borrow := CreateSpec{Memsize: 768 * units.MiB, Borrow: true}
	for _, s := range []CreateSpec{ok, borrow} {
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
	} {
		err := tc.spec.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.reason) || !errors.Is(err, cxlverr.ErrInvalid) {
			t.Errorf("Validate(%+v) = %v; want an cxlverr.ErrInvalid saying %q", tc.spec, err, tc.reason)
		}
	}
}

func TestDeviceID(t *testing.T) {
	for in, want := range map[string]int{"cxlv0": 0, "cxlv15": 15, "3": 3} {
		if got, err := DeviceID(in); err != nil || got != want {
			t.Errorf("DeviceID(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "cxlv", "mem0", "cxlv-1", "cxlv1x", "cxlv99999999999"} {
		if _, err := DeviceID(in); !errors.Is(err, cxlverr.ErrInvalid) {
			t.Errorf("DeviceID(%q) error = %v; want cxlverr.ErrInvalid", in, err)
		}
	}
	if got := RemoveString(2, false); got != "cxlv_dev_id=2" {
		t.Errorf("RemoveString(2, false) = %q", got)
	}
	if got := RemoveString(2, true); got != "cxlv_dev_id=2,release=1" {
		t.Errorf("RemoveString(2, true) = %q", got)
	}
}

package units

import (
	"errors"
	"strings"
	"testing"

	"github.com/cxlv/cxlv/cxlverr"
)

func TestParseFigures(t *testing.T) {
	for _, tc := range []struct {
		in    string
		parse func(string) (uint32, error)
		want  uint32
	}{
		{"250ns", ParseLatency, 250},
		{"250", ParseLatency, 250},
		{" 1.5us ", ParseLatency, 1500},
		{"1µs", ParseLatency, 1000},
		{"65534ns", ParseLatency, MaxFigure},
		{"30G", ParseBandwidth, 30000},
		{"30GB/s", ParseBandwidth, 30000},
		{"1.5g", ParseBandwidth, 1500},
		{"25000M", ParseBandwidth, 25000},
		{"25000", ParseBandwidth, 25000},
		{"65534MB/s", ParseBandwidth, MaxFigure},
	} {
		got, err := tc.parse(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("%q: %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

func TestParseFigureErrors(t *testing.T) {
	for _, tc := range []struct {
		in     string
		parse  func(string) (uint32, error)
		reason string
	}{
		{"0", ParseLatency, "at least 1 ns"},
		{"0ns", ParseLatency, "at least 1 ns"},
		{"-5ns", ParseLatency, "positive"},
		{"65535ns", ParseLatency, "more than the 65534 ns"},
		{"1h", ParseLatency, "more than"},
		{"fast", ParseLatency, "not a latency"},
		{"250 ns", ParseLatency, "not a latency"},
		{"0G", ParseBandwidth, "at least 1 MB/s"},
		{"66G", ParseBandwidth, "more than the 65534 MB/s"},
		{"30GiB", ParseBandwidth, "not a bandwidth"},
		{"30T", ParseBandwidth, "not a bandwidth"},
		{"1.2.3G", ParseBandwidth, "not a bandwidth"},
		{"0.0005G", ParseBandwidth, "whole number of MB/s"},
		{"G", ParseBandwidth, "does not start with a number"},
		{"", ParseBandwidth, "does not start with a number"},
	} {
		_, err := tc.parse(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.reason) || !errors.Is(err, cxlverr.ErrInvalid) {
			t.Errorf("%q: %v; want an ErrInvalid saying %q", tc.in, err, tc.reason)
		}
	}
}

func FuzzParseBandwidth(f *testing.F) {
	for _, s := range []string{"30G", "25000M", "1.5g", "0", "65534"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseBandwidth(s)
		if err == nil && (v < 1 || v > MaxFigure) {
			t.Fatalf("%q: %d accepted", s, v)
		}
	})
}

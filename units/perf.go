package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cxlv/cxlv/cxlverr"
)

// MaxFigure is the largest latency (ns) or bandwidth (MB/s) a cxl_virt
// device's CDAT holds: a 16-bit DSLBIS entry with the module's base units
// (CXLV_PERF_MAX, kmod/common/cxlv_parse.h), 0xffff being invalid to Linux.
const MaxFigure = 65534

// FigureError is a latency or bandwidth that could not be parsed or is out
// of range.
type FigureError struct {
	Input  string
	Reason string
	// Example shows the form wanted.
	Example string
}

func (e *FigureError) Error() string {
	return fmt.Sprintf("invalid %q: %s (use e.g. %s)", e.Input, e.Reason, e.Example)
}

// Is makes a FigureError match cxlverr.ErrInvalid.
func (e *FigureError) Is(target error) bool { return target == cxlverr.ErrInvalid }

const (
	latencyExample   = "250ns or 1.5us; 1 to 65534 ns"
	bandwidthExample = "30G (GB/s), 25000M or 25000 (MB/s); 1 MB/s to 65.534 GB/s"
)

// ParseLatency parses a latency in whole nanoseconds: a Go duration
// ("250ns", "1.5us", "1µs") or a plain number of ns, 1 to MaxFigure.
func ParseLatency(s string) (uint32, error) {
	in := s
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseUint(s, 10, 64); err == nil {
		return figure(in, float64(n), "ns", latencyExample)
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, &FigureError{in, "not a latency", latencyExample}
	}
	if d%time.Nanosecond != 0 || d < 0 {
		return 0, &FigureError{in, "not a whole, positive number of ns", latencyExample}
	}
	return figure(in, float64(d.Nanoseconds()), "ns", latencyExample)
}

// bandwidthUnits are the decimal bandwidth units in MB/s, as link rates
// are counted (a "G" is 1000 MB/s, not 1024).
var bandwidthUnits = map[string]float64{"": 1, "m": 1, "mb/s": 1, "g": 1000, "gb/s": 1000}

// ParseBandwidth parses a bandwidth in MB/s: a number, possibly with a
// fraction, and a decimal unit M or G (MB/s, GB/s; none means MB/s),
// 1 to MaxFigure MB/s after conversion, which must be whole.
func ParseBandwidth(s string) (uint32, error) {
	in := s
	s = strings.TrimSpace(s)
	end := 0
	for end < len(s) && (s[end] == '.' || (s[end] >= '0' && s[end] <= '9')) {
		end++
	}
	if end == 0 {
		return 0, &FigureError{in, "does not start with a number", bandwidthExample}
	}
	v, err := strconv.ParseFloat(s[:end], 64)
	mult, ok := bandwidthUnits[strings.ToLower(s[end:])]
	if err != nil || !ok {
		return 0, &FigureError{in, "not a bandwidth", bandwidthExample}
	}
	mbs := v * mult
	if mbs != math.Trunc(mbs) {
		return 0, &FigureError{in, "not a whole number of MB/s", bandwidthExample}
	}
	return figure(in, mbs, "MB/s", bandwidthExample)
}

func figure(in string, v float64, unit, example string) (uint32, error) {
	switch {
	case v < 1:
		return 0, &FigureError{in, "must be at least 1 " + unit, example}
	case v > MaxFigure:
		return 0, &FigureError{in, fmt.Sprintf("more than the %d %s a CDAT entry holds", MaxFigure, unit), example}
	}
	return uint32(v), nil
}

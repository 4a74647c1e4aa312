// Package units parses and prints sizes and physical addresses in the
// binary units of the command line (2G, 512M, 0x180000000).
package units

import (
	"fmt"
	"math/big"
	"math/bits"
	"strconv"
	"strings"

	"github.com/cxlv/cxlv/cxlverr"
)

// Binary size units accepted on the command line.
const (
	KiB uint64 = 1 << (10 * (iota + 1))
	MiB
	GiB
	TiB
)

var unitShift = map[byte]uint{'K': 10, 'M': 20, 'G': 30, 'T': 40}

// SizeError is a size or address that could not be parsed.
type SizeError struct {
	Input  string
	Reason string
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("invalid size %q: %s (use e.g. 2G, 512M, 6442450944 or 0x180000000; K/M/G/T are powers of 1024)",
		e.Input, e.Reason)
}

// Is makes a SizeError match cxlverr.ErrInvalid.
func (e *SizeError) Is(target error) bool { return target == cxlverr.ErrInvalid }

// ParseSize parses a size or physical address: decimal, 0x hexadecimal, or
// decimal with one binary suffix K, M, G or T (also KiB…TiB, any case).
// "2GB" and "2Gb" are refused: B and b are ambiguous (bytes? bits? 1000?).
func ParseSize(s string) (uint64, error) {
	in := s
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, &SizeError{in, "empty"}
	}
	if hex, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		v, err := strconv.ParseUint(hex, 16, 64)
		if err != nil || hex == "" || hex[0] == '+' {
			return 0, &SizeError{in, "not a hexadecimal number"}
		}
		return v, nil
	}
	digits := s
	for i, c := range s {
		if c < '0' || c > '9' {
			digits = s[:i]
			break
		}
	}
	if digits == "" {
		return 0, &SizeError{in, "does not start with a number"}
	}
	v, err := strconv.ParseUint(digits, 10, 64)
	if err != nil {
		return 0, &SizeError{in, "number too large"}
	}
	suffix := s[len(digits):]
	if suffix == "" {
		return v, nil
	}
	if suffix[0] == '.' {
		return 0, &SizeError{in, fractionReason(digits, suffix[1:])}
	}
	shift, ok := unitShift[upper(suffix[0])]
	rest := strings.ToLower(suffix[1:])
	if !ok || (rest != "" && rest != "ib") {
		return 0, &SizeError{in, fmt.Sprintf("unknown unit %q", suffix)}
	}
	if v > 0 && bits.LeadingZeros64(v) < int(shift) {
		return 0, &SizeError{in, "larger than 16 EiB"}
	}
	return v << shift, nil
}

// fractionReason says why a size with a fraction ("4.5G") is refused and,
// when it is a whole number of a smaller unit, what to write instead.
func fractionReason(whole, rest string) string {
	frac := rest
	for i, c := range rest {
		if c < '0' || c > '9' {
			frac = rest[:i]
			break
		}
	}
	unit := rest[len(frac):]
	shift, ok := unitShift[upper(firstByte(unit))]
	if !ok {
		return "a size is a whole number of bytes, or of K, M, G or T"
	}
	reason := fmt.Sprintf("a size in %c is a whole number", upper(unit[0]))
	// whole.frac << shift, exactly, when it is a whole number of bytes.
	n, ok := new(big.Int).SetString(whole+frac, 10)
	if !ok {
		return reason
	}
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(frac))), nil)
	n.Lsh(n, shift)
	if q, r := new(big.Int).QuoRem(n, den, new(big.Int)); r.Sign() == 0 && q.IsUint64() {
		return reason + ": use " + FormatSize(q.Uint64())
	}
	return reason
}

func firstByte(s string) byte {
	if s == "" {
		return 0
	}
	return s[0]
}

func upper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// FormatSize prints v with the largest binary unit that divides it exactly
// (6G, 1536M, 4K), so what cxlvctl prints can be pasted back in.
func FormatSize(v uint64) string {
	for _, u := range []struct {
		suffix string
		shift  uint
	}{{"T", 40}, {"G", 30}, {"M", 20}, {"K", 10}} {
		if v != 0 && v&(1<<u.shift-1) == 0 {
			return strconv.FormatUint(v>>u.shift, 10) + u.suffix
		}
	}
	return strconv.FormatUint(v, 10)
}

// HumanSize prints v in the largest binary unit not above it: as
// FormatSize does when that unit divides it (768M, as list prints it),
// else to one decimal (23.5G), for reading rather than pasting back.
func HumanSize(v uint64) string {
	for _, u := range []struct {
		suffix string
		unit   uint64
	}{{"T", TiB}, {"G", GiB}, {"M", MiB}, {"K", KiB}} {
		if v >= u.unit && v%u.unit == 0 {
			return FormatSize(v)
		}
		if v >= u.unit {
			return strconv.FormatFloat(float64(v)/float64(u.unit), 'f', 1, 64) + u.suffix
		}
	}
	return strconv.FormatUint(v, 10)
}

// AlignUp is the first multiple of a at or above v; a need not be a power
// of two (an interleave set of three ways would align to 768M).
func AlignUp(v, a uint64) uint64 {
	if r := v % a; r != 0 {
		return v + a - r
	}
	return v
}

// AlignDown is the last multiple of a at or below v.
func AlignDown(v, a uint64) uint64 { return v - v%a }

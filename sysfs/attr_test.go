package sysfs

import (
	"strconv"
	"testing"
)

func TestParseU64(t *testing.T) {
	for in, want := range map[string]uint64{
		"0x10000000\n": 0x10000000, "0x0": 0, "256\n": 256, " 0x5157 ": 0x5157, "18446744073709551615": ^uint64(0),
	} {
		if got, err := ParseU64(in); err != nil || got != want {
			t.Errorf("ParseU64(%q) = %#x, %v; want %#x", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0x", "-1", "+1", "0x+1", "0xg", "1G", "18446744073709551616"} {
		if _, err := ParseU64(in); err == nil {
			t.Errorf("ParseU64(%q) succeeded; want an error", in)
		}
	}
}

// FuzzAttr: no attribute text panics the parsers, and every value the
// kernel could print (%#llx or %llu) reads back exactly.
func FuzzAttr(f *testing.F) {
	for _, s := range []string{"0x10000000\n", "256\n", "1\n", "0x\n", "-1\n", "ffff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, err := ParseU64(s); err == nil {
			for _, printed := range []string{"0x" + strconv.FormatUint(v, 16) + "\n", strconv.FormatUint(v, 10) + "\n"} {
				if back, err := ParseU64(printed); err != nil || back != v {
					t.Fatalf("ParseU64(%q) = %d, but %q reads as %d, %v", s, v, printed, back, err)
				}
			}
		}
		if b, err := ParseBool(s); err == nil {
			want := "0"
			if b {
				want = "1"
			}
			if back, _ := ParseBool(want + "\n"); back != b {
				t.Fatalf("ParseBool(%q) = %v does not round-trip", s, b)
			}
		}
	})
}

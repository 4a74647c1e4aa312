package units

import (
	"errors"
	"strings"
	"testing"

	"github.com/cxlv/cxlv/cxlverr"
)

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
	}{
		{"0", 0},
		{"4096", 4096},
		{"2G", 2 * GiB},
		{"2g", 2 * GiB},
		{"2GiB", 2 * GiB},
		{"512M", 512 * MiB},
		{"6G", 6 * GiB},
		{"1T", TiB},
		{"64K", 64 * KiB},
		{"0x180000000", 0x180000000},
		{"0X1000", 0x1000},
		{" 8G\n", 8 * GiB},
	} {
		got, err := ParseSize(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

func TestParseSizeErrors(t *testing.T) {
	for _, tc := range []struct{ in, reason string }{
		{"", "empty"},
		{"2GG", `unknown unit "GG"`},
		{"2Gb", `unknown unit "Gb"`},
		{"2GB", `unknown unit "GB"`},
		{"G", "does not start with a number"},
		{"-1G", "does not start with a number"},
		{"0x", "not a hexadecimal number"},
		{"0xZZ", "not a hexadecimal number"},
		{"0x+1", "not a hexadecimal number"},
		{"1.5G", "a size in G is a whole number: use 1536M"},
		{"0.3G", "a size in G is a whole number ("},
		{"4.5", "a size is a whole number of bytes"},
		{"16777216T", "larger than 16 EiB"},
		{"99999999999999999999", "number too large"},
	} {
		_, err := ParseSize(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("ParseSize(%q) error = %v; want it to say %q", tc.in, err, tc.reason)
		}
		if !errors.Is(err, cxlverr.ErrInvalid) {
			t.Errorf("ParseSize(%q) error does not match cxlverr.ErrInvalid", tc.in)
		}
	}
}

func TestFormatSize(t *testing.T) {
	for _, tc := range []struct {
		in   uint64
		want string
	}{
		{0, "0"}, {1, "1"}, {4096, "4K"}, {1536 * MiB, "1536M"}, {6 * GiB, "6G"}, {2 * TiB, "2T"}, {0x180000001, "6442450945"},
	} {
		if got := FormatSize(tc.in); got != tc.want {
			t.Errorf("FormatSize(%d) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

func TestHumanSize(t *testing.T) {
	if got := HumanSize(25275990016); got != "23.5G" {
		t.Errorf("HumanSize = %q; want 23.5G", got)
	}
	if got := HumanSize(768 << 20); got != "768M" {
		t.Errorf("HumanSize = %q; want 768M, as FormatSize prints it", got)
	}
	if got := HumanSize(512); got != "512" {
		t.Errorf("HumanSize = %q; want 512", got)
	}
}

// FuzzParseSize: no input panics, and every accepted size prints back
// (FormatSize) to text that parses to the same value.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"2G", "0x180000000", "2GG", "2Gb", "512m", "1TiB", "", "18446744073709551615", "16384P"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseSize(s)
		if err != nil {
			return
		}
		back, err := ParseSize(FormatSize(v))
		if err != nil || back != v {
			t.Fatalf("ParseSize(%q) = %d, but FormatSize gives %q which parses to %d, %v", s, v, FormatSize(v), back, err)
		}
	})
}

func TestAlign(t *testing.T) {
	for _, c := range []struct{ v, a, up, down uint64 }{
		{0, MiB, 0, 0},
		{1, MiB, MiB, 0},
		{MiB, MiB, MiB, MiB},
		{0x1b0000001, 512 * MiB, 0x1c0000000, 0x1a0000000},
		// Not a power of two, which a mask gets wrong.
		{MiB, 768 * MiB, 768 * MiB, 0},
		{800 * MiB, 768 * MiB, 1536 * MiB, 768 * MiB},
	} {
		if got := AlignUp(c.v, c.a); got != c.up {
			t.Errorf("AlignUp(%#x, %#x) = %#x, want %#x", c.v, c.a, got, c.up)
		}
		if got := AlignDown(c.v, c.a); got != c.down {
			t.Errorf("AlignDown(%#x, %#x) = %#x, want %#x", c.v, c.a, got, c.down)
		}
	}
}

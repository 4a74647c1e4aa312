package sysfs

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
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

// readAttr reads past one page (a captured tree's file can be larger than
// a sysfs attribute) and reports a missing file as fs.ErrNotExist.
func TestReadAttrSizesAndErrors(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 1, 4095, 4096, 4097, 3*4096 + 17} {
		want := bytes.Repeat([]byte{'x'}, size)
		path := filepath.Join(dir, strconv.Itoa(size))
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readAttr(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("readAttr(%d bytes) = %d bytes, %v", size, len(got), err)
		}
	}
	if _, err := readAttr(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
	if _, err := readAttr(dir); err == nil {
		t.Errorf("a directory read as an attribute")
	}
}

package debugfs

import (
	"errors"
	"strings"
	"testing"
)

func TestCreateString(t *testing.T) {
	for _, tc := range []struct {
		spec CreateSpec
		want string
	}{
		{CreateSpec{Memstart: 6 * GiB, Memsize: 2 * GiB, Pmem: true},
			"memstart=6442450944,memsize=2147483648,cxltype=3,pmem=1"},
		{CreateSpec{Memstart: 0x180000000, Memsize: 512 * MiB, Serial: 0x5157},
			"memstart=6442450944,memsize=536870912,cxltype=3,pmem=0,serial=20823"},
	} {
		if got := tc.spec.String(); got != tc.want {
			t.Errorf("String() = %q; want %q", got, tc.want)
		}
		back, err := ParseCreate(tc.want)
		if err != nil || back != tc.spec {
			t.Errorf("ParseCreate(%q) = %+v, %v; want %+v", tc.want, back, err, tc.spec)
		}
	}
}

func TestParseCreateGrammar(t *testing.T) {
	// The module's grammar: any order, commas or newlines, 0x or decimal.
	got, err := ParseCreate("pmem=1\nmemsize=0x80000000,cxltype=3,memstart=6442450944\n")
	want := CreateSpec{Memstart: 6 * GiB, Memsize: 2 * GiB, Pmem: true}
	if err != nil || got != want {
		t.Fatalf("ParseCreate = %+v, %v; want %+v", got, err, want)
	}
	for _, tc := range []struct{ in, reason string }{
		{"memstart=1,memsize=1,cxltype=3", "missing option pmem="},
		{"memstart=1,memsize=1,cxltype=2,pmem=1", "only type 3"},
		{"memstart=1,memsize=1,cxltype=3,pmem=2", "pmem=2"},
		{"memstart=1,memstart=2,memsize=1,cxltype=3,pmem=1", "given twice"},
		{"memstart=1G,memsize=1,cxltype=3,pmem=1", "option memstart"},
		{"memstart,memsize=1,cxltype=3,pmem=1", "malformed option"},
		{"memstart=1,memsize=1,cxltype=3,pmem=1,colour=red", `unknown option "colour"`},
		{"memstart=1,memsize=1,cxltype=3,pmem=1,serial=0", "serial=0"},
	} {
		if _, err := ParseCreate(tc.in); err == nil || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("ParseCreate(%q) error = %v; want %q", tc.in, err, tc.reason)
		}
	}
}

func TestValidate(t *testing.T) {
	ok := CreateSpec{Memstart: 6 * GiB, Memsize: 2 * GiB, Pmem: true}
	if err := ok.Validate(); err != nil {
		t.Fatalf("Validate(%+v) = %v", ok, err)
	}
	for _, tc := range []struct {
		spec   CreateSpec
		reason string
	}{
		{CreateSpec{Memsize: GiB}, "--memstart is required"},
		{CreateSpec{Memstart: GiB}, "--size is required"},
		{CreateSpec{Memstart: 1 << 63, Memsize: 1 << 63}, "wraps"},
		{CreateSpec{Memstart: 4 << 30, Memsize: 1<<30 - 1}, "page size"},
		{CreateSpec{Memstart: 6 * GiB, Memsize: 255 * MiB}, "too small"},
	} {
		err := tc.spec.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.reason) || !errors.Is(err, ErrInvalid) {
			t.Errorf("Validate(%+v) = %v; want an ErrInvalid saying %q", tc.spec, err, tc.reason)
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
		if _, err := DeviceID(in); !errors.Is(err, ErrInvalid) {
			t.Errorf("DeviceID(%q) error = %v; want ErrInvalid", in, err)
		}
	}
	if got := RemoveString(2); got != "cxlv_dev_id=2" {
		t.Errorf("RemoveString(2) = %q", got)
	}
}

// FuzzCreateString: whatever text parses as a create request prints back to
// text that parses to the same request, and every valid request's string
// uses only the module's keys and decimal numbers.
func FuzzCreateString(f *testing.F) {
	f.Add("memstart=6442450944,memsize=2147483648,cxltype=3,pmem=1")
	f.Add("pmem=0\nmemsize=0x80000000,cxltype=3,memstart=0x180000000,serial=20823")
	f.Add("memstart=1,memsize=1,cxltype=3,pmem=1,serial=0")
	f.Add("memstart=,memsize=1")
	f.Fuzz(func(t *testing.T, text string) {
		spec, err := ParseCreate(text)
		if err != nil {
			return
		}
		out := spec.String()
		back, err := ParseCreate(out)
		if err != nil || back != spec {
			t.Fatalf("ParseCreate(%q) = %+v; its String() %q parses to %+v, %v", text, spec, out, back, err)
		}
		for _, pair := range strings.Split(out, ",") {
			_, val, _ := strings.Cut(pair, "=")
			if strings.Trim(val, "0123456789") != "" || val == "" {
				t.Fatalf("String() = %q: only decimal values expected", out)
			}
		}
	})
}

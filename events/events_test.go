package events

import (
	"errors"
	"testing"

	"github.com/cxlv/cxlv/cxlverr"
)

func TestParse(t *testing.T) {
	for i, name := range TypeNames {
		if ty, err := ParseType(name); err != nil || ty != Type(i) || ty.String() != name {
			t.Errorf("ParseType(%q) = %v, %v", name, ty, err)
		}
	}
	for i, name := range LogNames {
		if l, err := ParseLog(name); err != nil || l != Log(i) || l.String() != name {
			t.Errorf("ParseLog(%q) = %v, %v", name, l, err)
		}
	}
	for _, bad := range []string{"", "General-Media", "dram "} {
		if _, err := ParseType(bad); !errors.Is(err, cxlverr.ErrInvalid) {
			t.Errorf("ParseType(%q): %v", bad, err)
		}
	}
	if _, err := ParseLog("failure"); !errors.Is(err, cxlverr.ErrInvalid) {
		t.Errorf("ParseLog(failure): %v", err)
	}
}

// The text is what kmod/ctl/cxlv_parse.c's cxlv_parse_event() takes.
func TestRequest(t *testing.T) {
	dpa := uint64(0x2000)
	tg := Target{ID: 3, Pos: 1}
	if got, want := request(tg, Request{Type: DRAM, Log: Fail, DPA: &dpa}), "cxlv_dev_id=3,pos=1,record=1,log=2,dpa=0x2000"; got != want {
		t.Errorf("request = %q, want %q", got, want)
	}
	if got, want := request(tg, Request{Type: MemoryModule, Log: Fatal}), "cxlv_dev_id=3,pos=1,record=2,log=3"; got != want {
		t.Errorf("request = %q, want %q", got, want)
	}
	odd := uint64(0x2008)
	if err := (Request{Type: GeneralMedia, DPA: &odd}).Check(); !errors.Is(err, cxlverr.ErrInvalid) {
		t.Errorf("unaligned DPA: %v", err)
	}
	if err := (Request{Type: MemoryModule, DPA: &dpa}).Check(); !errors.Is(err, cxlverr.ErrInvalid) {
		t.Errorf("memory-module with a DPA: %v", err)
	}
	if err := (Request{Type: GeneralMedia, DPA: &dpa}).Check(); err != nil {
		t.Errorf("aligned DPA: %v", err)
	}
}

package acpi

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strconv"
	"testing"

	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/hostmem"
	"github.com/cxlv/cxlv/internal/hostfixture"
)

// oneNode is a q35 guest without SRAT, 2 CPUs, 3 GiB with memmap=1G$4G.
const oneNode = "firmware-one-node"

func TestNodeTablesOnOneNodeFirmware(t *testing.T) {
	h := hostfixture.Root(t, oneNode)
	plan, err := NodeTables(h, nil)
	if err != nil {
		t.Fatal(err)
	}
	window := hostmem.Range{Start: 4 << 30, Size: 1 << 30}
	if !reflect.DeepEqual(plan.Windows, []hostmem.Range{window}) || plan.FirmwareSRAT {
		t.Fatalf("windows %v, firmware SRAT %v; want the memmap= range and a new SRAT", plan.Windows, plan.FirmwareSRAT)
	}
	madt, err := os.ReadFile(h.Sys().Path("firmware", "acpi", "tables", "APIC"))
	if err != nil {
		t.Fatal(err)
	}
	cpus, err := ParseMADT(madt)
	if err != nil || len(cpus) != 2 {
		t.Fatalf("MADT CPUs %v, %v; want the guest's 2", cpus, err)
	}
	if len(plan.Files) != 2 || string(plan.Files[0].Data[:4]) != "SRAT" || string(plan.Files[1].Data[:4]) != "HMAT" {
		t.Fatalf("files %v; want SRAT, HMAT", plan.Files)
	}
	if _, err := checkTable(plan.Files[1].Data, "HMAT", hmatFixedSize); err != nil {
		t.Error(err)
	}

	// The SRAT read back: domain 0 has every System RAM range of the
	// firmware's map but the window, which is domain 1.
	mem, err := ParseSRATMemory(plan.Files[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	memmap, err := hostmem.ReadFirmwareMemmap(h.Sys())
	if err != nil {
		t.Fatal(err)
	}
	var ramTotal, sratTotal uint64
	for _, e := range memmap {
		if e.Type == "System RAM" {
			ramTotal += e.End - e.Start + 1
		}
	}
	var domain1 []hostmem.Range
	for _, m := range mem {
		switch {
		case m.ProximityDomain == 1:
			domain1 = append(domain1, m.Range)
		case m.ProximityDomain != 0 || m.Overlaps(window):
			t.Errorf("SRAT memory %+v: want proximity domain 0 outside the window", m)
		default:
			sratTotal += m.Size
		}
	}
	if sratTotal != ramTotal-window.Size {
		t.Errorf("SRAT domain 0 covers %#x bytes; want the firmware's System RAM %#x less the window", sratTotal, ramTotal)
	}
	if !reflect.DeepEqual(domain1, []hostmem.Range{window}) {
		t.Errorf("SRAT domain 1 %v; want the window %v", domain1, window)
	}

	// With that SRAT as the firmware's, the window has a node: refused.
	if err := checkUncovered(plan.Files[0].Data, []hostmem.Range{window}); !errors.Is(err, cxlverr.ErrInvalid) {
		t.Errorf("window the SRAT places: %v; want ErrInvalid", err)
	}
}

// TestCEDT: the CFMWS of a firmware that keeps its SRAT read back.
func TestCEDT(t *testing.T) {
	windows := []hostmem.Range{{Start: 4 << 30, Size: 1 << 30}, {Start: 8 << 30, Size: 256 << 20}}
	got, err := ParseCEDTWindows(CEDT(windows))
	if err != nil || !reflect.DeepEqual(got, windows) {
		t.Errorf("CEDT windows %v, %v; want %v", got, err, windows)
	}
}

func TestNodeTablesRefusals(t *testing.T) {
	h := hostfixture.Root(t, oneNode)
	for _, tc := range []struct {
		window hostmem.Range
		want   string
	}{
		{hostmem.Range{Start: 4 << 30, Size: 100 << 20}, "not 256 MiB aligned"},
		{hostmem.Range{Start: 1 << 30, Size: 256 << 20}, "not reserved"},
		{hostmem.Range{Start: 4 << 30, Size: 2 << 30}, "not reserved"},
	} {
		_, err := NodeTables(h, []hostmem.Range{tc.window})
		if !errors.Is(err, cxlverr.ErrInvalid) || !bytes.Contains([]byte(err.Error()), []byte(tc.want)) {
			t.Errorf("window %+v: %v; want ErrInvalid with %q", tc.window, err, tc.want)
		}
	}
}

// TestEarlyCpio reads the archive back the way the kernel's
// find_cpio_data does: newc headers, names, 4-byte padding.
func TestEarlyCpio(t *testing.T) {
	files := []File{{Name: "a.aml", Data: table("SRAT", 3, []byte{1, 2, 3})}, {Name: "bb.aml", Data: []byte("xyz")}}
	b := EarlyCpio(files)
	var names []string
	var datas [][]byte
	for len(b) > 0 {
		if len(b) < 110 || string(b[:6]) != "070701" {
			t.Fatalf("bad header at %d bytes from the end", len(b))
		}
		field := func(i int) int {
			v, err := strconv.ParseUint(string(b[6+8*i:14+8*i]), 16, 32)
			if err != nil {
				t.Fatal(err)
			}
			return int(v)
		}
		mode, size, namesize := field(1), field(6), field(11)
		name := string(b[110 : 110+namesize-1])
		off := (110 + namesize + 3) &^ 3
		data := b[off : off+size]
		b = b[(off+size+3)&^3:]
		if name == "TRAILER!!!" {
			break
		}
		if mode&0o170000 == 0o100000 {
			names, datas = append(names, name), append(datas, data)
		}
	}
	if len(b) != 0 {
		t.Errorf("%d bytes after the trailer", len(b))
	}
	want := []string{UpgradeDir + "/a.aml", UpgradeDir + "/bb.aml"}
	if !reflect.DeepEqual(names, want) || !bytes.Equal(datas[0], files[0].Data) || !bytes.Equal(datas[1], files[1].Data) {
		t.Errorf("archive holds %q; want %q with their data", names, want)
	}
	if _, err := checkTable(datas[0], "SRAT", 0); err != nil {
		t.Error(err)
	}
}

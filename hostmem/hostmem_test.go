package hostmem

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cxlv/cxlv/internal/hostfixture"
	"github.com/cxlv/cxlv/units"
	"github.com/cxlv/cxlv/virt"
)

func TestParseIomemFixture(t *testing.T) {
	f, err := os.Open(hostfixture.Root(t, "qemu-bare").Proc("iomem"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	entries, hidden, err := ParseIomem(f)
	if err != nil || hidden || len(entries) == 0 {
		t.Fatalf("ParseIomem = %d entries, hidden %v, %v", len(entries), hidden, err)
	}
	want := IomemEntry{Start: 0x100000, End: 0x7ffdefff, Name: "System RAM"}
	found := false
	for _, e := range entries {
		if e == want {
			found = true
		}
		if e.End < e.Start {
			t.Errorf("entry %+v ends before it starts", e)
		}
	}
	if !found {
		t.Errorf("no %+v in the captured iomem", want)
	}
}

func TestParseIomemHidden(t *testing.T) {
	// What a non-root user reads: every address zero.
	_, hidden, err := ParseIomem(strings.NewReader("00000000-00000000 : Reserved\n  00000000-00000000 : System RAM\n"))
	if err != nil || !hidden {
		t.Errorf("hidden = %v, %v; want true", hidden, err)
	}
	if _, _, err := ParseIomem(strings.NewReader("garbage\n")); err == nil {
		t.Error("ParseIomem accepted a malformed line")
	}
}

func TestCmdlineMemmaps(t *testing.T) {
	got, err := CmdlineMemmaps(`console=ttyS0 memmap=1G$0x100000000 memmap=512M!0x140000000 memmap=2G$6G,256M$8G quiet`)
	want := []Range{{0x100000000, units.GiB}, {6 * units.GiB, 2 * units.GiB}, {8 * units.GiB, 256 * units.MiB}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("CmdlineMemmaps = %v, %v; want %v", got, err, want)
	}
	if _, err := CmdlineMemmaps("memmap=2GG$4G"); err == nil {
		t.Error("accepted memmap=2GG$4G")
	}
}

// The kernel merges a memmap= range with an adjacent firmware one
// (fffc0000-13fffffff : Reserved); only the part the firmware calls RAM
// is offered.
func TestSubtractFirmware(t *testing.T) {
	merged := Range{Start: 0xfffc0000, Size: 0x140000000 - 0xfffc0000}
	fw := []MemmapEntry{
		{Start: 0xfffc0000, End: 0xffffffff, Type: "Reserved"},
		{Start: 0x100000000, End: 0x17fffffff, Type: "System RAM"},
	}
	got := subtractFirmware(merged, fw)
	if want := []Range{{Start: 0x100000000, Size: units.GiB}}; !reflect.DeepEqual(got, want) {
		t.Errorf("subtractFirmware = %v; want %v", got, want)
	}
}

func TestReservedFree(t *testing.T) {
	r := Reserved{Range: Range{Start: 4 * units.GiB, Size: 4 * units.GiB}, UsedBy: []Used{
		{Device: "cxlv1", Range: Range{Start: 6 * units.GiB, Size: units.GiB}},
		{Device: "cxlv0", Range: Range{Start: 4 * units.GiB, Size: units.GiB}},
	}}
	if got, want := r.Free(), (Range{Start: 5 * units.GiB, Size: units.GiB}); got != want {
		t.Errorf("Free() = %+v; want %+v (the first of the two equal gaps)", got, want)
	}
	r.UsedBy = r.UsedBy[1:] // only cxlv0, at the start
	if got, want := r.Free(), (Range{Start: 5 * units.GiB, Size: 3 * units.GiB}); got != want {
		t.Errorf("Free() = %+v; want %+v (all after cxlv0)", got, want)
	}
}

func TestHostReadFixture(t *testing.T) {
	hm, err := Read(hostfixture.Root(t, "qemu-bare"))
	if err != nil {
		t.Fatal(err)
	}
	// Only the kernel's own first page is reserved outside the firmware map.
	if len(hm.Usable(virt.MinDeviceSize)) != 0 || hm.Hidden {
		t.Errorf("usable = %+v, hidden %v; want none: all big ranges are firmware ranges", hm.Usable(virt.MinDeviceSize), hm.Hidden)
	}
	if len(hm.SystemRAM) != 2 {
		t.Errorf("System RAM = %+v", hm.SystemRAM)
	}
	if _, ok := hm.Suggest(2 * units.GiB); ok {
		t.Error("suggested a range on a guest without RAM above 4 GiB")
	}
	big := HostMemory{SystemRAM: []Range{{Start: 4 * units.GiB, Size: 20 * units.GiB}}}
	if got, ok := big.Suggest(2 * units.GiB); !ok || got != (Range{Start: 22 * units.GiB, Size: 2 * units.GiB}) || MemmapArg(got) != "memmap=2G$0x580000000" {
		t.Errorf("Suggest = %+v, %v, %s", got, ok, MemmapArg(got))
	}
}

// The line ranges suggests for /etc/default/grub, sourced by bash as
// grub-mkconfig does, leaves \$ for GRUB's parser, which makes it $.
func TestGrubDefaultArgSurvivesBothExpansions(t *testing.T) {
	arg := MemmapArg(Range{Start: 6 * units.GiB, Size: 2 * units.GiB})
	file := filepath.Join(t.TempDir(), "grub")
	line := `GRUB_CMDLINE_LINUX_DEFAULT="quiet ` + GrubDefaultArg(arg) + `"` + "\n"
	if err := os.WriteFile(file, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("bash", "-c", `. "$1" && printf %s "$GRUB_CMDLINE_LINUX_DEFAULT"`, "-", file).Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "quiet " + strings.ReplaceAll(arg, "$", `\$`); string(out) != want {
		t.Errorf("grub-mkconfig sees %q; want %q (GRUB then reads \\$ as $)", out, want)
	}
}

// Borrowed ranges come from the module's list, with the device on each;
// a free one is where a device goes before anything is borrowed anew.
func TestReadBorrowed(t *testing.T) {
	hm, err := Read(hostfixture.Root(t, "cxlv-borrowed"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Reserved{
		{Range: Range{0x1b0000000, 512 * units.MiB}, Sources: []string{SourceBorrowed}},
		{Range: Range{0x1d0000000, 512 * units.MiB}, Sources: []string{SourceBorrowed},
			UsedBy: []Used{{Device: "cxlv0", Range: Range{0x1d0000000, 512 * units.MiB}}}},
	}
	if got := hm.Usable(virt.MinDeviceSize); !reflect.DeepEqual(got, want) {
		t.Errorf("Usable = %+v\nwant     %+v", got, want)
	}
	if r, ok := hm.Fit(512*units.MiB, units.MiB); !ok || r != (Range{0x1b0000000, 512 * units.MiB}) {
		t.Errorf("Fit(512M) = %+v, %v; want the free borrowed range", r, ok)
	}
	if r, ok := hm.Fit(768*units.MiB, units.MiB); ok {
		t.Errorf("Fit(768M) = %+v; want none: the free range is 512M and the other has a device", r)
	}
	// A set's start is a multiple of ways x 256M: the free range at
	// 6.75G holds 256M from 7G on for an x2 set, and not 512M.
	if r, ok := hm.Fit(256*units.MiB, 512*units.MiB); !ok || r != (Range{0x1c0000000, 256 * units.MiB}) {
		t.Errorf("Fit(256M, align 512M) = %+v, %v; want 256M at 7G", r, ok)
	}
	if r, ok := hm.Fit(512*units.MiB, 512*units.MiB); ok {
		t.Errorf("Fit(512M, align 512M) = %+v; want none: 512M-aligned, the free range holds 256M", r)
	}
}

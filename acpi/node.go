package acpi

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/host"
	"github.com/cxlv/cxlv/hostmem"
)

// NodePlan is what NodeTables builds for a set of windows.
type NodePlan struct {
	Windows []hostmem.Range
	// FirmwareSRAT is true when the firmware has an SRAT of its own, which
	// stays: then only a CEDT is written, and the windows get nodes as CXL
	// windows the firmware did not place (on 7.3, without access
	// coordinates unless the firmware has an HMAT).
	FirmwareSRAT bool
	// CPUs and RAM are what the new SRAT puts in proximity domain 0; window
	// i is domain i+1.
	CPUs []CPU
	RAM  []hostmem.Range
	// Files are the tables, in the order they go into the cpio.
	Files []File
}

// NodeTables returns the tables that make each window a CPU-less NUMA node
// after a reboot with them in the initramfs; no windows means every
// reserved range, trimmed to 256 MiB boundaries. Every window must be 256 MiB
// aligned and inside a range the kernel keeps reserved (memmap=): RAM the
// kernel uses cannot leave node 0, and a new SRAT must still cover all of
// it.
func NodeTables(h host.Root, windows []hostmem.Range) (NodePlan, error) {
	plan := NodePlan{Windows: windows}
	if err := checkLockdown(h); err != nil {
		return plan, err
	}
	hm, err := hostmem.Read(h)
	if err != nil {
		return plan, err
	}
	if len(windows) == 0 {
		windows = reservedWindows(hm)
		plan.Windows = windows
	}
	if len(windows) == 0 {
		return plan, cxlverr.Invalidf(
			"no reserved range of 256M or more for a node: reserve one with memmap= first (cxlvctl ranges suggests one)")
	}
	for _, w := range windows {
		if w.Size == 0 || w.Start%WindowAlign != 0 || w.Size%WindowAlign != 0 {
			return plan, cxlverr.Invalidf("range %#x+%#x is not 256 MiB aligned: a CXL window's base and size are multiples of 256M", w.Start, w.Size)
		}
		if !reservedAtBoot(hm, w) {
			return plan, cxlverr.Invalidf("range %#x-%#x is not reserved by memmap= or the firmware: reserve it first (cxlvctl ranges), or it stays System RAM of node 0", w.Start, w.End()-1)
		}
	}
	if err := checkNoCEDT(h); err != nil {
		return plan, err
	}
	srat, err := readTable(h, "SRAT")
	if err != nil {
		return plan, err
	}
	if srat != nil {
		if err := checkUncovered(srat, windows); err != nil {
			return plan, err
		}
		plan.FirmwareSRAT = true
		plan.Files = []File{{Name: "cxlv-cedt.aml", Data: CEDT(windows)}}
		return plan, nil
	}
	if hmat, err := readTable(h, "HMAT"); err != nil || hmat != nil {
		if err == nil {
			err = cxlverr.Errorf(cxlverr.ErrNotSupported, "the firmware has an HMAT but no SRAT: cxlvctl does not replace its HMAT")
		}
		return plan, err
	}
	madt, err := readTable(h, "APIC")
	if err != nil {
		return plan, err
	}
	if madt == nil {
		return plan, cxlverr.Errorf(cxlverr.ErrNotSupported, "no ACPI MADT (/sys/firmware/acpi/tables/APIC): NUMA nodes from ACPI tables need an ACPI system")
	}
	if plan.CPUs, err = ParseMADT(madt); err != nil {
		return plan, err
	}
	for _, e := range hm.Firmware {
		if e.Type == "System RAM" {
			plan.RAM = append(plan.RAM, hostmem.Range{Start: e.Start, Size: e.End - e.Start + 1})
		}
	}
	for _, w := range windows {
		plan.RAM = hostmem.Subtract(plan.RAM, w)
	}
	plan.Files = []File{
		{Name: "cxlv-srat.aml", Data: SRAT(plan.CPUs, plan.RAM, windows)},
		{Name: "cxlv-hmat.aml", Data: HMAT(len(windows))},
	}
	return plan, nil
}

// reservedWindows are the 256 MiB aligned parts of the ranges reserved at
// boot.
func reservedWindows(hm hostmem.HostMemory) []hostmem.Range {
	var out []hostmem.Range
	for _, r := range hm.Reserved {
		start := (r.Start + WindowAlign - 1) &^ (WindowAlign - 1)
		end := r.End() &^ (WindowAlign - 1)
		if w := (hostmem.Range{Start: start, Size: end - start}); end > start && reservedAtBoot(hm, w) {
			out = append(out, w)
		}
	}
	return out
}

// reservedAtBoot is true when w lies in one range reserved by memmap= or
// the firmware (a borrowed range is System RAM at boot).
func reservedAtBoot(hm hostmem.HostMemory, w hostmem.Range) bool {
	for _, r := range hm.Reserved {
		if r.Start <= w.Start && w.End() <= r.End() && !(r.Borrowed() && len(r.Sources) == 1) {
			return true
		}
	}
	return false
}

// checkUncovered refuses windows the firmware's SRAT already places: the
// kernel ignores a CFMWS over them, and their node is the firmware's.
func checkUncovered(srat []byte, windows []hostmem.Range) error {
	mem, err := ParseSRATMemory(srat)
	if err != nil {
		return err
	}
	for _, w := range windows {
		for _, m := range mem {
			if m.Overlaps(w) {
				return cxlverr.Invalidf("the firmware's SRAT already puts %#x-%#x in proximity domain %d: it has a node of the firmware's",
					w.Start, w.End()-1, m.ProximityDomain)
			}
		}
	}
	return nil
}

// checkNoCEDT refuses a firmware that has a CEDT: its windows get nodes
// already, and replacing its table would hide them from cxl_acpi.
func checkNoCEDT(h host.Root) error {
	cedt, err := readTable(h, "CEDT")
	if err != nil || cedt == nil {
		return err
	}
	windows, err := ParseCEDTWindows(cedt)
	if err != nil {
		return err
	}
	var spans []string
	for _, w := range windows {
		spans = append(spans, fmt.Sprintf("%#x-%#x", w.Start, w.End()-1))
	}
	return cxlverr.Errorf(cxlverr.ErrNotSupported,
		"the firmware has a CEDT (/sys/firmware/acpi/tables/CEDT, CXL windows %s): each window has a node already, and cxlvctl does not replace the table",
		strings.Join(spans, ", "))
}

// readTable returns the firmware's ACPI table sig, nil when it has none.
func readTable(h host.Root, sig string) ([]byte, error) {
	p := h.Sys().Path("firmware", "acpi", "tables", sig)
	t, err := os.ReadFile(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case errors.Is(err, fs.ErrPermission):
		return nil, fmt.Errorf("reading %s: %w: run as root", p, err)
	}
	return t, err
}

// checkLockdown refuses under kernel lockdown, where the kernel ignores
// tables in the initramfs ("kernel is locked down, ignoring table
// override"): the tables would do nothing.
func checkLockdown(h host.Root) error {
	b, err := os.ReadFile(h.Sys().Path("kernel", "security", "lockdown"))
	if err != nil || strings.Contains(string(b), "[none]") {
		return nil
	}
	return cxlverr.Errorf(cxlverr.ErrNotSupported,
		"kernel lockdown is on (%s): the kernel ignores ACPI tables in the initramfs (firmware with Secure Boot); boot without lockdown to use them",
		strings.TrimSpace(string(b)))
}

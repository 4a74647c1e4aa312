// Package hostmem finds the host's physical memory ranges: /proc/iomem,
// the firmware's map (/sys/firmware/memmap) and the memmap= reservations
// of the kernel command line, and which cxl_virt devices use them.
package hostmem

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/host"
	"github.com/cxlv/cxlv/sysfs"
	"github.com/cxlv/cxlv/units"
)

// IomemEntry is one line of /proc/iomem.
type IomemEntry struct {
	Start, End uint64 // End is inclusive, as the kernel prints it
	Name       string
	Depth      int // nesting level (two spaces per level)
}

// ParseIomem parses /proc/iomem. Without root the kernel prints every
// address as zero; Hidden then reports true.
func ParseIomem(r io.Reader) (entries []IomemEntry, hidden bool, err error) {
	sc := bufio.NewScanner(r)
	hidden = true
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimLeft(line, " ")
		span, name, ok := strings.Cut(trimmed, " : ")
		lo, hi, ok2 := strings.Cut(span, "-")
		if !ok || !ok2 {
			return nil, false, fmt.Errorf("iomem: malformed line %q", line)
		}
		e := IomemEntry{Name: name, Depth: (len(line) - len(trimmed)) / 2}
		if e.Start, err = sysfs.ParseU64("0x" + lo); err != nil {
			return nil, false, fmt.Errorf("iomem: line %q: %w", line, err)
		}
		if e.End, err = sysfs.ParseU64("0x" + hi); err != nil {
			return nil, false, fmt.Errorf("iomem: line %q: %w", line, err)
		}
		if e.End != 0 {
			hidden = false
		}
		entries = append(entries, e)
	}
	return entries, hidden && len(entries) > 0, sc.Err()
}

// MemmapEntry is one /sys/firmware/memmap/N entry (the e820 table the
// firmware handed over).
type MemmapEntry struct {
	Start, End uint64 // End inclusive
	Type       string
}

// ReadFirmwareMemmap reads /sys/firmware/memmap.
func ReadFirmwareMemmap(sys sysfs.FS) ([]MemmapEntry, error) {
	dirs, err := filepath.Glob(sys.Path("firmware", "memmap", "*"))
	if err != nil {
		return nil, err
	}
	var out []MemmapEntry
	for _, d := range dirs {
		var e MemmapEntry
		var s, t string
		if s, err = readTrim(filepath.Join(d, "start")); err == nil {
			e.Start, err = sysfs.ParseU64(s)
		}
		if err == nil {
			if s, err = readTrim(filepath.Join(d, "end")); err == nil {
				e.End, err = sysfs.ParseU64(s)
			}
		}
		if err == nil {
			t, err = readTrim(filepath.Join(d, "type"))
			e.Type = t
		}
		if err != nil {
			return nil, fmt.Errorf("firmware memmap %s: %w", d, err)
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out, nil
}

func readTrim(p string) (string, error) {
	b, err := os.ReadFile(p)
	return strings.TrimSpace(string(b)), err
}

// CmdlineMemmaps returns the ranges reserved by memmap=SIZE$START arguments.
func CmdlineMemmaps(cmdline string) ([]Range, error) {
	var out []Range
	for _, arg := range strings.Fields(cmdline) {
		val, ok := strings.CutPrefix(arg, "memmap=")
		if !ok {
			continue
		}
		for _, one := range strings.Split(val, ",") {
			size, start, ok := strings.Cut(one, "$")
			if !ok {
				continue // memmap=nn!ss (legacy pmem), nn#ss (ACPI), nn@ss (RAM)
			}
			sz, err := units.ParseSize(size)
			if err != nil {
				return nil, fmt.Errorf("kernel argument %s: %w", arg, err)
			}
			st, err := units.ParseSize(start)
			if err != nil {
				return nil, fmt.Errorf("kernel argument %s: %w", arg, err)
			}
			out = append(out, Range{Start: st, Size: sz})
		}
	}
	return out, nil
}

// Range is a span of physical addresses.
type Range struct {
	Start, Size uint64
}

// End is the first address after the range.
func (r Range) End() uint64 { return r.Start + r.Size }

// Overlaps is true when r and o share an address.
func (r Range) Overlaps(o Range) bool { return r.Start < o.End() && o.Start < r.End() }

// Reserved is a reserved range a device could use, with what uses it.
type Reserved struct {
	Range
	// Sources say where the range was seen: "iomem" (reserved by the
	// kernel though RAM to the firmware) and/or "cmdline" (a memmap= argument),
	// or "borrowed" (taken from System RAM by cxl_virt).
	Sources []string
	// UsedBy are the cxl_virt devices inside the range.
	UsedBy []Used
	// Node is where a borrowed range came from and goes back to.
	Node int
}

// Borrowed reports a range cxl_virt took out of System RAM.
func (r Reserved) Borrowed() bool { return slices.Contains(r.Sources, SourceBorrowed) }

// SourceBorrowed marks a range cxl_virt borrowed from System RAM.
const SourceBorrowed = "borrowed"

// Used is one device's part of a reserved range.
type Used struct {
	Device string
	Range
}

// Free is the largest part of the range no device uses; none of a
// borrowed range that has its device (one each).
func (r Reserved) Free() Range {
	if r.Borrowed() && len(r.UsedBy) > 0 {
		return Range{}
	}
	used := append([]Used(nil), r.UsedBy...)
	sort.Slice(used, func(i, j int) bool { return used[i].Start < used[j].Start })
	best, cur := Range{}, r.Start
	for _, u := range used {
		if u.Start > cur && u.Start-cur > best.Size {
			best = Range{Start: cur, Size: u.Start - cur}
		}
		if u.End() > cur {
			cur = u.End()
		}
	}
	if r.End() > cur && r.End()-cur > best.Size {
		best = Range{Start: cur, Size: r.End() - cur}
	}
	return best
}

// HostMemory is what Read finds.
type HostMemory struct {
	Reserved []Reserved
	// SystemRAM are the top-level System RAM ranges of /proc/iomem.
	SystemRAM []Range
	// Hidden is true when /proc/iomem showed zero addresses (not root).
	Hidden bool
	// Firmware is the firmware's own map (/sys/firmware/memmap).
	Firmware []MemmapEntry
}

// Read collects, from the files of h, the reserved ranges meant for
// devices and the cxl_virt devices using them. A Reserved range of /proc/iomem counts only where the
// firmware's own map (/sys/firmware/memmap, which memmap= does not change)
// calls it System RAM: what the firmware reserves (ACPI, PCI holes) is
// never device memory, and the kernel merges adjacent reserved ranges.
// memmap=SIZE$START arguments of the kernel command line count too.
func Read(h host.Root) (HostMemory, error) {
	var hm HostMemory
	add := func(r Range, source string) *Reserved {
		for i := range hm.Reserved {
			if hm.Reserved[i].Range == r {
				hm.Reserved[i].Sources = append(hm.Reserved[i].Sources, source)
				return &hm.Reserved[i]
			}
		}
		hm.Reserved = append(hm.Reserved, Reserved{Range: r, Sources: []string{source}})
		return &hm.Reserved[len(hm.Reserved)-1]
	}
	f, err := os.Open(h.Proc("iomem"))
	if err != nil {
		return hm, err
	}
	entries, hidden, err := ParseIomem(f)
	f.Close()
	if err != nil {
		return hm, err
	}
	hm.Hidden = hidden
	var reservedIomem []Range
	for _, e := range entries {
		r := Range{Start: e.Start, Size: e.End - e.Start + 1}
		switch {
		case hidden || e.Depth != 0:
		case e.Name == "Reserved" || e.Name == "reserved":
			reservedIomem = append(reservedIomem, r)
		case e.Name == "System RAM":
			hm.SystemRAM = append(hm.SystemRAM, r)
		}
	}
	if hm.Firmware, err = ReadFirmwareMemmap(h.Sys()); err != nil {
		return hm, err
	}
	for _, r := range reservedIomem {
		for _, piece := range subtractFirmware(r, hm.Firmware) {
			add(piece, "iomem")
		}
	}
	if cmdline, err := os.ReadFile(h.Proc("cmdline")); err == nil {
		args, err := CmdlineMemmaps(string(cmdline))
		if err != nil {
			return hm, err
		}
		for _, r := range args {
			add(r, "cmdline")
		}
	}
	borrowed, err := h.Sys().VirtBorrowed()
	if err != nil && !isNotSupported(err) {
		return hm, err
	}
	for _, b := range borrowed {
		r := add(Range{Start: b.Start, Size: b.Size}, SourceBorrowed)
		r.Node = b.Node
	}
	devs, err := h.Sys().VirtDevices()
	if err != nil && !isNotSupported(err) {
		return hm, err
	}
	for _, d := range devs {
		if d.Memstart == nil || d.Memsize == nil {
			continue
		}
		u := Used{Device: d.Name, Range: Range{Start: *d.Memstart, Size: *d.Memsize}}
		for i := range hm.Reserved {
			if hm.Reserved[i].Overlaps(u.Range) {
				hm.Reserved[i].UsedBy = append(hm.Reserved[i].UsedBy, u)
			}
		}
	}
	sort.Slice(hm.Reserved, func(i, j int) bool { return hm.Reserved[i].Start < hm.Reserved[j].Start })
	return hm, nil
}

// subtractFirmware returns the parts of r the firmware map calls System RAM.
func subtractFirmware(r Range, memmap []MemmapEntry) []Range {
	pieces := []Range{r}
	for _, e := range memmap {
		if e.Type == "System RAM" {
			continue
		}
		pieces = Subtract(pieces, Range{Start: e.Start, Size: e.End - e.Start + 1})
	}
	return pieces
}

// Subtract returns the parts of ranges outside o.
func Subtract(ranges []Range, o Range) []Range {
	var out []Range
	for _, p := range ranges {
		if !p.Overlaps(o) {
			out = append(out, p)
			continue
		}
		if p.Start < o.Start {
			out = append(out, Range{Start: p.Start, Size: o.Start - p.Start})
		}
		if o.End() < p.End() {
			out = append(out, Range{Start: o.End(), Size: p.End() - o.End()})
		}
	}
	return out
}

// Usable are the reserved ranges of at least minSize bytes (what a device
// needs).
func (hm HostMemory) Usable(minSize uint64) []Reserved {
	var out []Reserved
	for _, r := range hm.Reserved {
		if r.Size >= minSize {
			out = append(out, r)
		}
	}
	return out
}

// Fit is where a device of size bytes whose start is a multiple of align
// can go without borrowing: the free part of a reserved range, or a whole
// free borrowed range (one device each), the first in address order.
func (hm HostMemory) Fit(size, align uint64) (Range, bool) {
	for _, r := range hm.Reserved {
		free := r.Free()
		if start := units.AlignUp(free.Start, align); start < free.End() && free.End()-start >= size {
			return Range{Start: start, Size: size}, true
		}
	}
	return Range{}, false
}

// MemmapArg is the kernel argument that reserves r ("memmap=2G$0x180000000").
func MemmapArg(r Range) string {
	return fmt.Sprintf("memmap=%s$%#x", units.FormatSize(r.Size), r.Start)
}

// GrubDefaultArg is a kernel argument as written inside the double quotes of
// GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub. grub-mkconfig's shell
// expands the file once (\\ to \, \$ to $) and GRUB's own parser once more
// (\$ to $, where a bare $ would start a variable), so each $ is written \\\$.
func GrubDefaultArg(arg string) string {
	return strings.ReplaceAll(arg, "$", `\\\$`)
}

// Suggest proposes a range of size bytes to reserve: the top of the largest
// System RAM range above 4 GiB, 1 GiB aligned, keeping the rest as RAM.
func (hm HostMemory) Suggest(size uint64) (Range, bool) {
	var best Range
	for _, r := range hm.SystemRAM {
		if r.End() > 4*units.GiB && r.Size > best.Size {
			best = r
		}
	}
	start := units.AlignDown(best.End()-size, units.GiB)
	if best.Size == 0 || size >= best.Size || start < best.Start || start < 4*units.GiB {
		return Range{}, false
	}
	return Range{Start: start, Size: size}, true
}

func isNotSupported(err error) bool { return errors.Is(err, cxlverr.ErrNotSupported) }

package view

import (
	"fmt"
	"io"
	"strings"

	"github.com/cxlv/cxlv/hostmem"
	"github.com/cxlv/cxlv/units"
)

// RangeJSON is a reserved or borrowed range of `ranges --json`.
type RangeJSON struct {
	Start   uint64     `json:"start"`
	Size    uint64     `json:"size"`
	Sources []string   `json:"sources"`
	UsedBy  []UsedJSON `json:"used_by,omitempty"`
	Free    *SpanJSON  `json:"free,omitempty"`
	// A borrowed range: where it goes back to, and how.
	Borrowed bool   `json:"borrowed,omitempty"`
	Node     *int   `json:"node,omitempty"`
	Release  string `json:"release,omitempty"`
}

// UsedJSON is a cxl_virt device inside a range.
type UsedJSON struct {
	Device string `json:"device"`
	Start  uint64 `json:"start"`
	Size   uint64 `json:"size"`
}

// SpanJSON is a range of physical memory.
type SpanJSON struct {
	Start uint64 `json:"start"`
	Size  uint64 `json:"size"`
}

// RangesJSON is what `ranges --json` prints.
type RangesJSON struct {
	Reserved []RangeJSON `json:"reserved"`
	// Suggest is a memmap= argument reserving more, "" when no RAM fits.
	Suggest string `json:"suggest,omitempty"`
}

// Ranges is the JSON form of the usable ranges and of the memmap=
// argument suggested ("" for none).
func Ranges(usable []hostmem.Reserved, suggest string) RangesJSON {
	out := RangesJSON{Reserved: []RangeJSON{}, Suggest: suggest}
	for _, r := range usable {
		j := RangeJSON{Start: r.Start, Size: r.Size, Sources: r.Sources}
		for _, u := range r.UsedBy {
			j.UsedBy = append(j.UsedBy, UsedJSON{Device: u.Device, Start: u.Start, Size: u.Size})
		}
		if free := r.Free(); free.Size > 0 {
			j.Free = &SpanJSON{Start: free.Start, Size: free.Size}
		}
		if r.Borrowed() {
			node := r.Node
			j.Borrowed, j.Node, j.Release = true, &node, releaseHint(r)
		}
		out.Reserved = append(out.Reserved, j)
	}
	return out
}

// releaseHint is the command that gives a borrowed range back: a
// release of the range when it is free, else a remove of its device.
func releaseHint(r hostmem.Reserved) string {
	if len(r.UsedBy) > 0 {
		return "cxlvctl remove --release " + r.UsedBy[0].Device
	}
	return fmt.Sprintf("cxlvctl release %#x", r.Start)
}

// RangesTable is the table of `cxlvctl ranges`: a row per range.
func RangesTable(ranges RangesJSON) (header []string, rows [][]string) {
	for _, r := range ranges.Reserved {
		used, free := "-", "-"
		var names []string
		for _, u := range r.UsedBy {
			names = append(names, u.Device)
		}
		if len(names) > 0 {
			used = strings.Join(names, ",")
		}
		if r.Free != nil {
			free = fmt.Sprintf("%s@%#x", units.FormatSize(r.Free.Size), r.Free.Start)
		}
		rows = append(rows, []string{fmt.Sprintf("%#x", r.Start), fmt.Sprintf("%#x", r.Start+r.Size-1),
			units.FormatSize(r.Size), strings.Join(r.Sources, ","), used, free})
	}
	return []string{"START", "END", "SIZE", "SOURCE", "USED_BY", "FREE"}, rows
}

// WriteRangesNotes prints what follows the ranges table: how each
// borrowed range goes back, and how to reserve size more.
func WriteRangesNotes(prose io.Writer, ranges RangesJSON, size uint64) {
	for _, r := range ranges.Reserved {
		if r.Borrowed {
			fmt.Fprintf(prose, "borrowed from System RAM (node %d) at %#x: give it back with `%s`\n", *r.Node, r.Start, r.Release)
		}
	}
	if ranges.Suggest != "" {
		fmt.Fprintf(prose, "\nto reserve %s more, add to the kernel command line and reboot: %s\n"+
			"in /etc/default/grub: GRUB_CMDLINE_LINUX_DEFAULT=\"... %s\", then update-grub;\n"+
			"after the reboot /proc/cmdline must show %s\n",
			units.FormatSize(size), ranges.Suggest, hostmem.GrubDefaultArg(ranges.Suggest), ranges.Suggest)
	}
}

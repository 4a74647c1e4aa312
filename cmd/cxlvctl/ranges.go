package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/cxlv/cxlv/cmd/cxlvctl/view"
	"github.com/cxlv/cxlv/hostmem"
	"github.com/cxlv/cxlv/units"
	"github.com/cxlv/cxlv/virt"
)

func rangesCommand() *cli.Command {
	return &cli.Command{
		Name:  "ranges",
		Usage: "show reserved and borrowed memory usable for devices, what uses it, and how to get more",
		Flags: []cli.Flag{
			noHeadersFlag(),
			jsonFlag(),
			withDefault(&cli.GenericFlag{Name: "size", Value: sizeValue("too small: give the size of the memmap= range to suggest, e.g. --size 2G"),
				Usage: "size of the memmap= range to suggest"}, "2G"),
		},
		Action: runRanges,
	}
}

type rangeJSON struct {
	Start   uint64     `json:"start"`
	Size    uint64     `json:"size"`
	Sources []string   `json:"sources"`
	UsedBy  []usedJSON `json:"used_by,omitempty"`
	Free    *spanJSON  `json:"free,omitempty"`
	// A borrowed range: where it goes back to, and how.
	Borrowed bool   `json:"borrowed,omitempty"`
	Node     *int   `json:"node,omitempty"`
	Release  string `json:"release,omitempty"`
}

type usedJSON struct {
	Device string `json:"device"`
	Start  uint64 `json:"start"`
	Size   uint64 `json:"size"`
}

type spanJSON struct {
	Start uint64 `json:"start"`
	Size  uint64 `json:"size"`
}

type rangesJSON struct {
	Reserved []rangeJSON `json:"reserved"`
	// Suggest is a memmap= argument reserving more, "" when no RAM fits.
	Suggest string `json:"suggest,omitempty"`
}

func runRanges(c *cli.Context) error {
	size, _ := parsed[uint64](c, "size")
	e, err := newEnv(c)
	if err != nil {
		return err
	}
	hm, err := hostmem.Read(e.host)
	if err != nil {
		return err
	}
	if hm.Hidden {
		fmt.Fprintln(e.errOut, "cxlvctl: warning: /proc/iomem hides addresses from non-root users; run as root to see every range")
	}
	out := rangesJSON{Reserved: []rangeJSON{}}
	for _, r := range hm.Usable(virt.MinDeviceSize) {
		j := rangeJSON{Start: r.Start, Size: r.Size, Sources: r.Sources}
		for _, u := range r.UsedBy {
			j.UsedBy = append(j.UsedBy, usedJSON{Device: u.Device, Start: u.Start, Size: u.Size})
		}
		if free := r.Free(); free.Size > 0 {
			j.Free = &spanJSON{Start: free.Start, Size: free.Size}
		}
		if r.Borrowed() {
			node := r.Node
			j.Borrowed, j.Node, j.Release = true, &node, releaseHint(r)
		}
		out.Reserved = append(out.Reserved, j)
	}
	if s, ok := hm.Suggest(size); ok {
		out.Suggest = hostmem.MemmapArg(s)
	}
	if c.Bool("json") {
		return view.WriteJSON(e.out, out)
	}
	prose := proseOut(c, e)
	var rows [][]string
	for _, r := range out.Reserved {
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
	if len(rows) == 0 {
		fmt.Fprintln(prose, "no reserved or borrowed range of 256M or more")
	} else if err := view.WriteTable(e.out, tableHeader(c, []string{"START", "END", "SIZE", "SOURCE", "USED_BY", "FREE"}), rows); err != nil {
		return err
	}
	for _, r := range out.Reserved {
		if r.Borrowed {
			fmt.Fprintf(prose, "borrowed from System RAM (node %d) at %#x: give it back with `%s`\n", *r.Node, r.Start, r.Release)
		}
	}
	if out.Suggest != "" {
		fmt.Fprintf(prose, "\nto reserve %s more, add to the kernel command line and reboot: %s\n"+
			"in /etc/default/grub: GRUB_CMDLINE_LINUX_DEFAULT=\"... %s\", then update-grub;\n"+
			"after the reboot /proc/cmdline must show %s\n",
			units.FormatSize(size), out.Suggest, hostmem.GrubDefaultArg(out.Suggest), out.Suggest)
	}
	return nil
}

// releaseHint is the command that gives a borrowed range back: a
// release of the range when it is free, else a remove of its device.
func releaseHint(r hostmem.Reserved) string {
	if len(r.UsedBy) > 0 {
		return "cxlvctl remove --release " + r.UsedBy[0].Device
	}
	return fmt.Sprintf("cxlvctl release %#x", r.Start)
}

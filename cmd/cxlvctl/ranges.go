package main

import (
	"github.com/urfave/cli/v2"

	"github.com/cxlv/cxlv/cmd/cxlvctl/view"
	"github.com/cxlv/cxlv/hostmem"
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
		view.RangesHidden(e.errOut)
	}
	var suggest string
	if s, ok := hm.Suggest(size); ok {
		suggest = hostmem.MemmapArg(s)
	}
	out := view.Ranges(hm.Usable(virt.MinDeviceSize), suggest)
	if c.Bool("json") {
		return view.WriteJSON(e.out, out)
	}
	prose := proseOut(c, e)
	if header, rows := view.RangesTable(out); len(rows) == 0 {
		view.NoRanges(prose)
	} else if err := view.WriteTable(e.out, tableHeader(c, header), rows); err != nil {
		return err
	}
	view.WriteRangesNotes(prose, out, size)
	return nil
}

package view

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/cxlv/cxlv/region"
	"github.com/cxlv/cxlv/units"
)

// WriteRegionCreate says what region create made.
func WriteRegionCreate(out io.Writer, res *region.Result) {
	if res.RAMResult != nil {
		writeRAMCreate(out, res)
		return
	}
	fmt.Fprintf(out, "%s: %s pmem region on %s, uuid %s, nd %s\n", res.Region,
		units.FormatSize(res.Size), regionPath(res), res.UUID, res.NDRegion)
	for _, ns := range res.Namespaces {
		WriteNamespaceCreate(out, ns)
	}
	if res.MountDir != "" {
		fmt.Fprintf(out, "%s on %s mounted at %s (dax)\n", res.Filesystem, res.Namespaces[0].BlockDev, res.MountDir)
	}
	fmt.Fprintf(out, "took %v (region %v, namespace %v)\n", res.TotalTime.Round(time.Millisecond),
		res.RegionTime.Round(time.Millisecond), res.NamespaceTime.Round(time.Millisecond))
}

// regionPath names the memdevs and decoders of a new region: "mem0
// (decoder0.0 -> decoder2.0)", or for an interleave set "mem2,mem0,mem3,mem1,
// 4 ways of 4K (decoder0.0 -> decoder5.0,decoder3.0,decoder6.0,decoder4.0)".
func regionPath(res *region.Result) string {
	if len(res.Memdevs) < 2 {
		return fmt.Sprintf("%s (%s -> %s)", res.Memdev, res.RootDecoder, res.EndpointDecoder)
	}
	return fmt.Sprintf("%s, %d ways of %s (%s -> %s)", strings.Join(res.Memdevs, ","), res.Ways,
		units.FormatSize(res.Granularity), res.RootDecoder, strings.Join(res.EndpointDecoders, ","))
}

// writeRAMCreate prints what a RAM region's memory became.
func writeRAMCreate(out io.Writer, res *region.Result) {
	r := res.RAMResult
	if r.Via == region.ViaKmem {
		fmt.Fprintf(out, "%s: %s pmem region on %s, nd %s, devdax %s, %s to kmem (%s offers no create_ram_region)\n",
			res.Region, units.FormatSize(res.Size), regionPath(res), res.NDRegion,
			res.Namespaces[0].Name, r.Dax, res.RootDecoder)
	} else {
		fmt.Fprintf(out, "%s: %s ram region on %s, %s\n", res.Region,
			units.FormatSize(res.Size), regionPath(res), r.Dax)
	}
	node := "-"
	if r.TargetNode != nil {
		node = strconv.Itoa(*r.TargetNode)
	}
	fmt.Fprintf(out, "memory: %s added in %d blocks of %s, %s online (%s), node %s (blocks on node %s)\n",
		units.FormatSize(r.MemoryBytes), r.Blocks, units.FormatSize(r.BlockSize), units.FormatSize(r.OnlineBytes),
		onlineText(r.Online, r.Zones), node, Dash(JoinInts(r.Nodes)))
	fmt.Fprintf(out, "took %v (memory added %v after the bind, online %v)\n", res.TotalTime.Round(time.Millisecond),
		r.AddTime.Round(time.Millisecond), r.OnlineTime.Round(time.Millisecond))
}

func onlineText(p region.OnlinePolicy, zones []string) string {
	if len(zones) == 0 {
		return "--online " + string(p)
	}
	return strings.Join(zones, ",") + ", --online " + string(p)
}

// WriteNamespaceCreate prints one line about a namespace that was made or
// came back.
func WriteNamespaceCreate(out io.Writer, ns region.NamespaceResult) {
	how := "created"
	if ns.Reassembled {
		how = "re-assembled from labels"
	}
	fmt.Fprintf(out, "%s: %s %s, %s, uuid %s (%s)\n", ns.Name, ns.Mode, Dash(ns.BlockDev+ns.CharDev),
		units.FormatSize(ns.Size), ns.UUID, how)
}

// WriteKept says which labels stayed and how they come back.
func WriteKept(out io.Writer, kept []KeptJSON) {
	for _, k := range kept {
		fmt.Fprintf(out, "kept the labels of %s (%s, uuid %s): bring them back with `%s`\n",
			strings.Join(k.Namespaces, ", "), k.Region, k.UUID, k.Command)
	}
}

package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jaypipes/ghw"
	"github.com/urfave/cli/v2"

	"github.com/cxlv/cxlv/debugfs"
	"github.com/cxlv/cxlv/sysfs"
)

func infoCommand() *cli.Command {
	return &cli.Command{
		Name:   "info",
		Usage:  "show host memory and NUMA nodes, with the CXL memdevs on each node",
		Flags:  []cli.Flag{jsonFlag()},
		Action: runInfo,
	}
}

type nodeJSON struct {
	ID          int      `json:"id"`
	Cores       int      `json:"cores"`
	MemoryBytes int64    `json:"memory_bytes"`
	Distances   []int    `json:"distances,omitempty"`
	Memdevs     []string `json:"memdevs,omitempty"`
	// MemoryOnly marks a node with memory and no CPU, what a CXL RAM
	// region with its own proximity domain becomes.
	MemoryOnly bool `json:"memory_only,omitempty"`
	// Regions are the CXL RAM regions whose memory blocks are on the node.
	Regions []string `json:"cxl_regions,omitempty"`
}

type infoJSON struct {
	TotalPhysicalBytes int64      `json:"total_physical_bytes"`
	TotalUsableBytes   int64      `json:"total_usable_bytes"`
	Nodes              []nodeJSON `json:"nodes"`
	// CXLLoaded tells whether the CXL bus exists (cxl_core).
	CXLLoaded  bool          `json:"cxl_loaded"`
	VirtLoaded bool          `json:"cxl_virt_loaded"`
	Features   []featureJSON `json:"features,omitempty"`
}

type featureJSON struct {
	Name      string `json:"name"`
	MinKernel string `json:"min_kernel"`
	Present   bool   `json:"present"`
}

func runInfo(c *cli.Context) error {
	e, err := newEnv(c)
	if err != nil {
		return err
	}
	// ghw reads <chroot>/sys and <chroot>/proc; warnings would pollute stderr
	// of JSON consumers. PCI is not used: it needs a pci.ids database.
	opts := []any{ghw.WithChroot(filepath.Dir(e.sys.Root())), ghw.WithDisableWarnings()}
	topo, err := ghw.Topology(opts...)
	if err != nil {
		return fmt.Errorf("reading NUMA topology: %w", err)
	}
	out := infoJSON{Nodes: []nodeJSON{}, VirtLoaded: e.sys.VirtLoaded()}
	// Totals need /proc/meminfo, which a captured tree may lack: say so and
	// show the rest.
	if mem, err := ghw.Memory(opts...); err == nil {
		out.TotalPhysicalBytes, out.TotalUsableBytes = mem.TotalPhysicalBytes, mem.TotalUsableBytes
	} else {
		fmt.Fprintf(e.errOut, "cxlvctl: warning: host memory totals unknown: %v\n", err)
	}
	var memdevs []sysfs.Memdev
	regionsOn := map[int][]string{}
	if top, err := e.sys.Topology(); err == nil {
		out.CXLLoaded, memdevs = true, top.Memdevs
		for _, r := range top.Regions {
			if st := top.RAM[r.Name]; st != nil {
				for _, n := range ramNodes(st) {
					regionsOn[n] = append(regionsOn[n], r.Name)
				}
			}
		}
		for _, f := range top.Features() {
			out.Features = append(out.Features, featureJSON{Name: f.Name, MinKernel: f.MinKernel, Present: f.Present})
		}
	}
	byNode := map[int][]string{}
	for _, m := range memdevs {
		if m.NumaNode != nil {
			byNode[*m.NumaNode] = append(byNode[*m.NumaNode], m.Name)
		}
	}
	for _, n := range topo.Nodes {
		nj := nodeJSON{ID: n.ID, Cores: len(n.Cores), Distances: n.Distances, Memdevs: byNode[n.ID], Regions: regionsOn[n.ID]}
		if n.Memory != nil {
			nj.MemoryBytes = n.Memory.TotalUsableBytes
		}
		nj.MemoryOnly = nj.Cores == 0 && nj.MemoryBytes > 0
		out.Nodes = append(out.Nodes, nj)
	}
	if c.Bool("json") {
		return writeJSON(e.out, out)
	}
	fmt.Fprintf(e.out, "memory: %s physical, %s usable\ncxl: %s, cxl_virt: %s\n",
		debugfs.HumanSize(uint64(out.TotalPhysicalBytes)), debugfs.HumanSize(uint64(out.TotalUsableBytes)),
		loaded(out.CXLLoaded), loaded(out.VirtLoaded))
	for _, f := range out.Features {
		state := "yes"
		if !f.Present {
			state = "no (Linux " + f.MinKernel + "+)"
		}
		fmt.Fprintf(e.out, "feature %s: %s\n", f.Name, state)
	}
	var rows [][]string
	for _, n := range out.Nodes {
		var dist []string
		for _, d := range n.Distances {
			dist = append(dist, strconv.Itoa(d))
		}
		kind := "cpu+memory"
		switch {
		case n.MemoryOnly:
			kind = "memory-only"
		case n.MemoryBytes == 0:
			kind = "cpu-only"
		}
		rows = append(rows, []string{strconv.Itoa(n.ID), kind, strconv.Itoa(n.Cores), debugfs.HumanSize(uint64(n.MemoryBytes)),
			dash(strings.Join(dist, " ")), dash(strings.Join(n.Memdevs, ",")), dash(strings.Join(n.Regions, ","))})
	}
	return writeTable(e.out, []string{"NODE", "KIND", "CORES", "MEMORY", "DISTANCES", "MEMDEVS", "CXL_RAM"}, rows)
}

// ramNodes are the nodes a RAM region's memory is on: its blocks' nodes,
// else the dax device's target node.
func ramNodes(st *sysfs.RAMState) []int {
	if len(st.Summary.Nodes) > 0 {
		return st.Summary.Nodes
	}
	if st.Dax != nil && st.Dax.TargetNode != nil {
		return []int{*st.Dax.TargetNode}
	}
	return nil
}

func loaded(b bool) string {
	if b {
		return "loaded"
	}
	return "not loaded"
}

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
	if top, err := e.sys.Topology(); err == nil {
		out.CXLLoaded, memdevs = true, top.Memdevs
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
		nj := nodeJSON{ID: n.ID, Cores: len(n.Cores), Distances: n.Distances, Memdevs: byNode[n.ID]}
		if n.Memory != nil {
			nj.MemoryBytes = n.Memory.TotalUsableBytes
		}
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
		rows = append(rows, []string{strconv.Itoa(n.ID), strconv.Itoa(n.Cores), debugfs.HumanSize(uint64(n.MemoryBytes)),
			dash(strings.Join(dist, " ")), dash(strings.Join(n.Memdevs, ","))})
	}
	return writeTable(e.out, []string{"NODE", "CORES", "MEMORY", "DISTANCES", "MEMDEVS"}, rows)
}

func loaded(b bool) string {
	if b {
		return "loaded"
	}
	return "not loaded"
}

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jaypipes/ghw/pkg/memory"
	"github.com/jaypipes/ghw/pkg/option"
	"github.com/jaypipes/ghw/pkg/topology"
	"github.com/urfave/cli/v2"

	"github.com/cxlv/cxlv/cmd/cxlvctl/view"
	"github.com/cxlv/cxlv/sysfs"
	"github.com/cxlv/cxlv/units"
)

func infoCommand() *cli.Command {
	return &cli.Command{
		Name:   "info",
		Usage:  "show host memory and NUMA nodes, with the CXL memdevs on each node",
		Flags:  []cli.Flag{jsonFlag(), noHeadersFlag()},
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
	// Access0 and Access1 are the node's access coordinates (from the
	// nearest initiator, from the nearest CPU): HMAT's, or those the
	// kernel computed for a CXL region on the node.
	Access0 *view.CoordinatesJSON `json:"access0,omitempty"`
	Access1 *view.CoordinatesJSON `json:"access1,omitempty"`
	// MemoryTier is the N of memory_tierN the node is in: the lower, the
	// faster (DRAM is 4).
	MemoryTier *int `json:"memory_tier,omitempty"`
}

type infoJSON struct {
	TotalPhysicalBytes int64      `json:"total_physical_bytes"`
	TotalUsableBytes   int64      `json:"total_usable_bytes"`
	Nodes              []nodeJSON `json:"nodes"`
	// CXLLoaded tells whether the CXL bus exists (cxl_core).
	CXLLoaded  bool `json:"cxl_loaded"`
	VirtLoaded bool `json:"cxl_virt_loaded"`
	// CacheInvalidation is what cxl_virt does about the CPU cache
	// invalidation of region commits (sysfs.CacheInvalidation*).
	CacheInvalidation string        `json:"cxl_virt_cache_invalidation,omitempty"`
	Features          []featureJSON `json:"features,omitempty"`
	// Hooks are cxl_virt's hooks into other drivers (sysfs.VirtHook).
	Hooks []hookJSON `json:"cxl_virt_hooks,omitempty"`
}

type hookJSON struct {
	Name    string `json:"name"`
	State   string `json:"state"`
	Target  string `json:"target"`
	Kernels string `json:"kernels"`
	Switch  string `json:"switch"`
	Why     string `json:"why"`
}

// cacheInvalidationText says what each cache_invalidation state means for
// region create.
var cacheInvalidationText = map[string]string{
	sysfs.CacheInvalidationNone:        "none (this kernel's CXL core does not invalidate CPU caches on commit)",
	sysfs.CacheInvalidationCPU:         "by the CPU (no hypervisor: the kernel invalidates the caches on commit)",
	sysfs.CacheInvalidationSkipped:     "skipped (the CPU reports a hypervisor; cxl_virt's regions need none and commit)",
	sysfs.CacheInvalidationOff:         "off (the CPU reports a hypervisor and cxl_virt has coherent_regions=0: its regions are refused)",
	sysfs.CacheInvalidationUnavailable: "unavailable (the CPU reports a hypervisor and this kernel gives cxl_virt no way round it: regions are refused; see dmesg)",
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
	topo, mem, err := hostMemory(e)
	if err != nil {
		return err
	}
	out := infoJSON{Nodes: []nodeJSON{}, VirtLoaded: e.host.Sys().VirtLoaded(), CacheInvalidation: e.host.Sys().VirtCacheInvalidation()}
	hooks, err := e.host.Sys().VirtHooks()
	if err != nil {
		return err
	}
	for _, h := range hooks {
		out.Hooks = append(out.Hooks, hookJSON(h))
	}
	if mem != nil {
		out.TotalPhysicalBytes, out.TotalUsableBytes = mem.TotalPhysicalBytes, mem.TotalUsableBytes
	}
	var memdevs []sysfs.Memdev
	regionsOn := map[int][]string{}
	if top, err := e.host.Sys().Topology(); err == nil {
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
	var ids []int
	for _, n := range topo.Nodes {
		ids = append(ids, n.ID)
	}
	perfs, err := e.host.Sys().NodePerfs(ids)
	if err != nil {
		return err
	}
	for _, n := range topo.Nodes {
		p := perfs[n.ID]
		nj := nodeJSON{ID: n.ID, Cores: len(n.Cores), Distances: n.Distances, Memdevs: byNode[n.ID], Regions: regionsOn[n.ID],
			Access0: view.Coordinates(p.Access0), Access1: view.Coordinates(p.Access1), MemoryTier: p.Tier}
		if n.Memory != nil {
			nj.MemoryBytes = n.Memory.TotalUsableBytes
		}
		nj.MemoryOnly = nj.Cores == 0 && nj.MemoryBytes > 0
		out.Nodes = append(out.Nodes, nj)
	}
	if c.Bool("json") {
		return view.WriteJSON(e.out, out)
	}
	prose := proseOut(c, e)
	fmt.Fprintf(prose, "memory: %s physical, %s usable\ncxl: %s, cxl_virt: %s\n",
		units.HumanSize(uint64(out.TotalPhysicalBytes)), units.HumanSize(uint64(out.TotalUsableBytes)),
		loaded(out.CXLLoaded), loaded(out.VirtLoaded))
	if out.CacheInvalidation != "" {
		text := cacheInvalidationText[out.CacheInvalidation]
		if text == "" {
			text = out.CacheInvalidation
		}
		fmt.Fprintf(prose, "cxl_virt region cache invalidation: %s\n", text)
	}
	for _, h := range out.Hooks {
		fmt.Fprintf(e.out, "cxl_virt hook %s: %s; %s; kernels: %s; switch: %s; why: %s\n", h.Name, h.State, h.Target, h.Kernels, h.Switch, h.Why)
	}
	for _, f := range out.Features {
		state := "yes"
		if !f.Present {
			state = "no (Linux " + f.MinKernel + "+)"
		}
		fmt.Fprintf(prose, "feature %s: %s\n", f.Name, state)
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
		tier, access := "-", "-"
		if n.MemoryTier != nil {
			tier = strconv.Itoa(*n.MemoryTier)
		}
		if a := perfs[n.ID].Access1; a != nil {
			access = view.PerfCell(*a)
		}
		rows = append(rows, []string{strconv.Itoa(n.ID), kind, strconv.Itoa(n.Cores), units.HumanSize(uint64(n.MemoryBytes)),
			view.Dash(strings.Join(dist, " ")), view.Dash(strings.Join(n.Memdevs, ",")), view.Dash(strings.Join(n.Regions, ",")), tier, access})
	}
	return view.WriteTable(e.out, tableHeader(c, []string{"NODE", "KIND", "CORES", "MEMORY", "DISTANCES", "MEMDEVS", "CXL_RAM", "TIER", "CPU_ACCESS"}), rows)
}

// hostMemory reads the NUMA topology and the memory totals with ghw's
// topology and memory packages only (its root package pulls in every
// hardware class), from the --sysfs-root and --proc-root trees. A missing
// /proc/meminfo (a captured tree may lack it) leaves mem nil with a warning.
func hostMemory(e *env) (*topology.Info, *memory.Info, error) {
	root, cleanup, err := ghwRoot(e.host.Sys().Root(), e.host.Proc())
	if err != nil {
		return nil, nil, err
	}
	defer cleanup()
	// ghw warns on stderr about what it cannot read; outside its root
	// package the only switch for that is the variable.
	os.Setenv("GHW_DISABLE_WARNINGS", "1")
	opt := option.WithChroot(root)
	topo, err := topology.New(opt)
	if err != nil {
		return nil, nil, fmt.Errorf("reading NUMA topology: %w", err)
	}
	mem, err := memory.New(opt)
	if err != nil {
		fmt.Fprintf(e.errOut, "cxlvctl: warning: host memory totals unknown: %v\n", err)
		return topo, nil, nil
	}
	return topo, mem, nil
}

// ghwRoot is a directory whose sys and proc are the given trees: ghw reads
// <chroot>/sys and <chroot>/proc, and its path overrides panic in v0.27
// (option.PathOverrides is read back as a map[string]string). When the
// trees are not already siblings named sys and proc, it is a temporary
// directory of two symbolic links.
func ghwRoot(sysRoot, procRoot string) (string, func(), error) {
	sysAbs, err := filepath.Abs(sysRoot)
	if err != nil {
		return "", nil, err
	}
	procAbs, err := filepath.Abs(procRoot)
	if err != nil {
		return "", nil, err
	}
	parent := filepath.Dir(sysAbs)
	if filepath.Base(sysAbs) == "sys" && procAbs == filepath.Join(parent, "proc") {
		return parent, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "cxlvctl-info-")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	for name, target := range map[string]string{"sys": sysAbs, "proc": procAbs} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			cleanup()
			return "", nil, err
		}
	}
	return dir, cleanup, nil
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

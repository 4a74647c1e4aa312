package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/jaypipes/ghw/pkg/memory"
	"github.com/jaypipes/ghw/pkg/option"
	"github.com/jaypipes/ghw/pkg/topology"
	"github.com/urfave/cli/v2"

	"github.com/cxlv/cxlv/cmd/cxlvctl/view"
	"github.com/cxlv/cxlv/sysfs"
)

func infoCommand() *cli.Command {
	return &cli.Command{
		Name:   "info",
		Usage:  "show host memory and NUMA nodes, with the CXL memdevs on each node",
		Flags:  []cli.Flag{jsonFlag(), noHeadersFlag()},
		Action: runInfo,
	}
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
	out := view.InfoJSON{Nodes: []view.NodeJSON{}, VirtLoaded: e.host.Sys().VirtLoaded(), CacheInvalidation: e.host.Sys().VirtCacheInvalidation()}
	hooks, err := e.host.Sys().VirtHooks()
	if err != nil {
		return err
	}
	for _, h := range hooks {
		out.Hooks = append(out.Hooks, view.HookJSON(h))
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
			out.Features = append(out.Features, view.FeatureJSON(f))
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
		nj := view.NodeJSON{ID: n.ID, Cores: len(n.Cores), Distances: n.Distances, Memdevs: byNode[n.ID], Regions: regionsOn[n.ID],
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
	view.WriteInfoSummary(e.out, proseOut(c, e), out)
	header, rows := view.InfoTable(out)
	return view.WriteTable(e.out, tableHeader(c, header), rows)
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

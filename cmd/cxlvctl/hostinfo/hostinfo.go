// Package hostinfo is what `cxlvctl info` prints: the host's memory and
// NUMA nodes as ghw reads them, with the CXL memdevs and regions on each
// node from sysfs. It is the one package that imports ghw, whose every
// package brings its PCI database's net/http and some fifty package inits:
// the cxlvctl-info helper links it, cxlvctl does not, and `cxlvctl info`
// execs the helper once it has parsed its command line.
package hostinfo

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/jaypipes/ghw/pkg/memory"
	"github.com/jaypipes/ghw/pkg/option"
	"github.com/jaypipes/ghw/pkg/topology"

	"github.com/cxlv/cxlv/cmd/cxlvctl/view"
	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/sysfs"
)

// options are the helper's flags: cxlvctl's --sysfs-root and --proc-root,
// and info's --json and --no-headers, under the same names.
type options struct {
	SysRoot, ProcRoot string
	JSON, NoHeaders   bool
}

// parse reads the helper's command line (without the program name).
// cxlvctl has checked it already; a bad one is a usage error all the same.
func parse(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("cxlvctl-info", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.SysRoot, "sysfs-root", "/sys", "")
	fs.StringVar(&o.ProcRoot, "proc-root", "/proc", "")
	fs.BoolVar(&o.JSON, "json", false, "")
	fs.BoolVar(&o.NoHeaders, "no-headers", false, "")
	if err := fs.Parse(args); err != nil {
		return o, cxlverr.Invalidf("cxlvctl-info: %v", err)
	}
	if fs.NArg() > 0 {
		return o, cxlverr.Invalidf("cxlvctl-info: takes no arguments")
	}
	return o, nil
}

// Main is the helper: it parses args, prints info to out and returns the
// error, if any, for the caller to print and exit on.
func Main(args []string, out, errOut io.Writer) error {
	o, err := parse(args)
	if err != nil {
		return err
	}
	return run(o, out, errOut)
}

// run prints info: as JSON, or the summary and a table of the nodes.
func run(o options, out, errOut io.Writer) error {
	sys, err := sysfs.NewFS(o.SysRoot)
	if err != nil {
		return err
	}
	topo, mem, err := hostMemory(o.SysRoot, o.ProcRoot, errOut)
	if err != nil {
		return err
	}
	info, err := collect(sys, topo, mem)
	if err != nil {
		return err
	}
	if o.JSON {
		return view.WriteJSON(out, info)
	}
	prose := out
	header, rows := view.InfoTable(info)
	if o.NoHeaders {
		// The rows alone on stdout, the lines around them on stderr.
		prose, header = errOut, nil
	}
	view.WriteInfoSummary(out, prose, info)
	return view.WriteTable(out, header, rows)
}

// collect joins ghw's nodes and totals with what sysfs says about CXL.
func collect(sys sysfs.FS, topo *topology.Info, mem *memory.Info) (view.InfoJSON, error) {
	out := view.InfoJSON{Nodes: []view.NodeJSON{}, VirtLoaded: sys.VirtLoaded(), CacheInvalidation: sys.VirtCacheInvalidation()}
	hooks, err := sys.VirtHooks()
	if err != nil {
		return out, err
	}
	for _, h := range hooks {
		out.Hooks = append(out.Hooks, view.HookJSON(h))
	}
	if mem != nil {
		out.TotalPhysicalBytes, out.TotalUsableBytes = mem.TotalPhysicalBytes, mem.TotalUsableBytes
	}
	var memdevs []sysfs.Memdev
	regionsOn := map[int][]string{}
	if top, err := sys.Topology(); err == nil {
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
	perfs, err := sys.NodePerfs(ids)
	if err != nil {
		return out, err
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
	return out, nil
}

// hostMemory reads the NUMA topology and the memory totals with ghw's
// topology and memory packages only (its root package pulls in every
// hardware class), from the --sysfs-root and --proc-root trees. A missing
// /proc/meminfo (a captured tree may lack it) leaves mem nil with a warning.
func hostMemory(sysRoot, procRoot string, errOut io.Writer) (*topology.Info, *memory.Info, error) {
	root, cleanup, err := ghwRoot(sysRoot, procRoot)
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
		view.Warning(errOut, fmt.Errorf("host memory totals unknown: %w", err))
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

package view

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cxlv/cxlv/sysfs"
	"github.com/cxlv/cxlv/units"
)

// NodeJSON is a NUMA node of `info --json`.
type NodeJSON struct {
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
	Access0 *CoordinatesJSON `json:"access0,omitempty"`
	Access1 *CoordinatesJSON `json:"access1,omitempty"`
	// MemoryTier is the N of memory_tierN the node is in: the lower, the
	// faster (DRAM is 4).
	MemoryTier *int `json:"memory_tier,omitempty"`
}

// InfoJSON is what `info --json` prints.
type InfoJSON struct {
	TotalPhysicalBytes int64      `json:"total_physical_bytes"`
	TotalUsableBytes   int64      `json:"total_usable_bytes"`
	Nodes              []NodeJSON `json:"nodes"`
	// CXLLoaded tells whether the CXL bus exists (cxl_core).
	CXLLoaded  bool `json:"cxl_loaded"`
	VirtLoaded bool `json:"cxl_virt_loaded"`
	// CacheInvalidation is what cxl_virt does about the CPU cache
	// invalidation of region commits (sysfs.CacheInvalidation*).
	CacheInvalidation string        `json:"cxl_virt_cache_invalidation,omitempty"`
	Features          []FeatureJSON `json:"features,omitempty"`
	// Hooks are cxl_virt's hooks into other drivers (sysfs.VirtHook).
	Hooks []HookJSON `json:"cxl_virt_hooks,omitempty"`
}

// HookJSON is a hook of cxl_virt into another driver (sysfs.VirtHook).
type HookJSON struct {
	Name    string `json:"name"`
	State   string `json:"state"`
	Target  string `json:"target"`
	Kernels string `json:"kernels"`
	Switch  string `json:"switch"`
	Why     string `json:"why"`
}

// FeatureJSON is a CXL feature of the kernel (sysfs.Feature).
type FeatureJSON struct {
	Name      string `json:"name"`
	MinKernel string `json:"min_kernel"`
	Present   bool   `json:"present"`
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

// WriteInfoSummary prints the lines above info's table: the memory
// totals, what is loaded, cxl_virt's cache invalidation and the features
// to prose, and cxl_virt's hooks to out.
func WriteInfoSummary(out, prose io.Writer, info InfoJSON) {
	fmt.Fprintf(prose, "memory: %s physical, %s usable\ncxl: %s, cxl_virt: %s\n",
		units.HumanSize(uint64(info.TotalPhysicalBytes)), units.HumanSize(uint64(info.TotalUsableBytes)),
		loaded(info.CXLLoaded), loaded(info.VirtLoaded))
	if info.CacheInvalidation != "" {
		text := cacheInvalidationText[info.CacheInvalidation]
		if text == "" {
			text = info.CacheInvalidation
		}
		fmt.Fprintf(prose, "cxl_virt region cache invalidation: %s\n", text)
	}
	for _, h := range info.Hooks {
		fmt.Fprintf(out, "cxl_virt hook %s: %s; %s; kernels: %s; switch: %s; why: %s\n", h.Name, h.State, h.Target, h.Kernels, h.Switch, h.Why)
	}
	for _, f := range info.Features {
		state := "yes"
		if !f.Present {
			state = "no (Linux " + f.MinKernel + "+)"
		}
		fmt.Fprintf(prose, "feature %s: %s\n", f.Name, state)
	}
}

// InfoTable is the table of `cxlvctl info`: a row per NUMA node.
func InfoTable(info InfoJSON) (header []string, rows [][]string) {
	header = []string{"NODE", "KIND", "CORES", "MEMORY", "DISTANCES", "MEMDEVS", "CXL_RAM", "TIER", "CPU_ACCESS"}
	for _, n := range info.Nodes {
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
		if a := n.Access1; a != nil {
			access = PerfCell(sysfs.Coordinates(*a))
		}
		rows = append(rows, []string{strconv.Itoa(n.ID), kind, strconv.Itoa(n.Cores), units.HumanSize(uint64(n.MemoryBytes)),
			Dash(strings.Join(dist, " ")), Dash(strings.Join(n.Memdevs, ",")), Dash(strings.Join(n.Regions, ",")), tier, access})
	}
	return header, rows
}

func loaded(b bool) string {
	if b {
		return "loaded"
	}
	return "not loaded"
}

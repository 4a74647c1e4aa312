package sysfs

import (
	"path/filepath"
	"strconv"
	"strings"
)

// Coordinates are performance figures as the kernel and cxl_virt publish
// them: latencies in ns, bandwidths in MB/s. A cxl_virt device's are the
// figures its CDAT carries; a region's accessN and a node's
// accessN/initiators are what the kernel computed from them (access0: from
// the nearest initiator, access1: from the nearest CPU).
type Coordinates struct {
	ReadLatency, WriteLatency, ReadBandwidth, WriteBandwidth uint64
}

// readCoordinates reads the four attributes of dir: nil when any is
// missing (a kernel or module without them, a region the kernel gave no
// coordinates).
func readCoordinates(a *attrs) *Coordinates {
	var c Coordinates
	for _, f := range []struct {
		name string
		dst  *uint64
	}{{"read_latency", &c.ReadLatency}, {"write_latency", &c.WriteLatency},
		{"read_bandwidth", &c.ReadBandwidth}, {"write_bandwidth", &c.WriteBandwidth}} {
		v := a.optU64(f.name)
		if v == nil {
			return nil
		}
		*f.dst = *v
	}
	return &c
}

// NodePerf is what the kernel says about a NUMA node's memory performance.
type NodePerf struct {
	// Access0 and Access1 are the node's access coordinates (HMAT, or a
	// CXL region's), nil when the kernel has none.
	Access0, Access1 *Coordinates
	// Tier is the memory tier (N of memory_tierN) the node is in, nil
	// without memory tiering or when the node has no memory.
	Tier *int
}

// NodePerfs reads NodePerf for each node.
func (f FS) NodePerfs(nodes []int) (map[int]NodePerf, error) {
	tiers, err := f.memoryTiers()
	if err != nil {
		return nil, err
	}
	out := map[int]NodePerf{}
	for _, n := range nodes {
		dir := f.Path("devices", "system", "node", "node"+strconv.Itoa(n))
		a0 := attrs{dir: filepath.Join(dir, "access0", "initiators")}
		a1 := attrs{dir: filepath.Join(dir, "access1", "initiators")}
		p := NodePerf{Access0: readCoordinates(&a0), Access1: readCoordinates(&a1)}
		if t, ok := tiers[n]; ok {
			p.Tier = &t
		}
		if a0.err != nil {
			return nil, a0.err
		}
		if a1.err != nil {
			return nil, a1.err
		}
		out[n] = p
	}
	return out, nil
}

// memoryTiers maps each node to its memory tier
// (/sys/devices/virtual/memory_tiering/memory_tierN/nodelist).
func (f FS) memoryTiers() (map[int]int, error) {
	out := map[int]int{}
	for _, dir := range childDirs(f.Path("devices", "virtual", "memory_tiering"), "memory_tier") {
		tier, ok := numberedName(filepath.Base(dir), "memory_tier")
		if !ok {
			continue
		}
		a := attrs{dir: dir}
		nodes, err := parseNodeList(a.str("nodelist"))
		if a.err != nil {
			return nil, a.err
		}
		if err != nil {
			return nil, err
		}
		for _, n := range nodes {
			out[n] = tier
		}
	}
	return out, nil
}

// parseNodeList parses a kernel node list such as "0", "1-3" or "0,2-3".
func parseNodeList(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, err
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				return nil, err
			}
		}
		for n := a; n <= b; n++ {
			out = append(out, n)
		}
	}
	return out, nil
}

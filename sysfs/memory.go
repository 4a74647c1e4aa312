package sysfs

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cxlv/cxlv/cxlverr"
)

// Memory blocks (/sys/devices/system/memory) and NUMA nodes
// (/sys/devices/system/node): what a CXL RAM region becomes once kmem has
// hot-added its dax device. Blocks are named memory<id>, id being the
// block's physical address divided by block_size_bytes; the kernel prints
// block_size_bytes and phys_index in hex without a 0x.

// Memory block states, as the state attribute reads and takes them.
const (
	BlockOnline       = "online"
	BlockOffline      = "offline"
	BlockGoingOffline = "going-offline"
)

// MemoryBlock is one hot-pluggable memory block, memoryN.
type MemoryBlock struct {
	Name  string
	ID    uint64
	Path  string
	State string // online, offline, going-offline
	// Zones is valid_zones: the zone of an online block ("Normal",
	// "Movable"), or the zones an offline one may go to, default first.
	Zones string
	// Node is the NUMA node the block belongs to (its nodeN link).
	Node *int
}

// Online reports whether the block is online.
func (b MemoryBlock) Online() bool { return b.State == BlockOnline }

// Zone is the zone of an online block, "" for an offline one.
func (b MemoryBlock) Zone() string {
	if !b.Online() {
		return ""
	}
	return b.Zones
}

// memoryDir is /sys/devices/system/memory.
func (f FS) memoryDir(elem ...string) string {
	return f.Path(append([]string{"devices", "system", "memory"}, elem...)...)
}

// MemoryPath is the path of a file below /sys/devices/system/memory.
func (f FS) MemoryPath(elem ...string) string { return f.memoryDir(elem...) }

// parseHex parses the unprefixed hex of block_size_bytes and phys_index.
func parseHex(s string) (uint64, error) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "0x")
	if s == "" || strings.HasPrefix(s, "+") {
		return 0, fmt.Errorf("invalid hex number %q", s)
	}
	return strconv.ParseUint(s, 16, 64)
}

func errNoHotplug() error {
	return &cxlverr.FeatureError{Name: "memory hotplug (/sys/devices/system/memory)", MinKernel: cxlverr.KernelMemoryHotplug}
}

// MemoryBlockSize is the size of one memory block (block_size_bytes).
func (f FS) MemoryBlockSize() (uint64, error) {
	b, err := readAttr(f.memoryDir("block_size_bytes"))
	if isNotExist(err) {
		return 0, errNoHotplug()
	}
	if err != nil {
		return 0, err
	}
	v, err := parseHex(string(b))
	if err == nil && v == 0 {
		err = fmt.Errorf("block_size_bytes is 0")
	}
	return v, err
}

// AutoOnlineBlocks is the policy for hot-added memory: offline, online,
// online_kernel or online_movable.
func (f FS) AutoOnlineBlocks() (string, error) {
	b, err := readAttr(f.memoryDir("auto_online_blocks"))
	if isNotExist(err) {
		return "", errNoHotplug()
	}
	return strings.TrimSpace(string(b)), err
}

// MemoryBlock reads memory block id: a *cxlverr.NotFoundError when there
// is none (memory not hot-added yet, or removed). Any other failure to read
// its state (EACCES, EIO) is an error naming the file, so that a wait for
// the block fails at once instead of taking it for one still to come.
func (f FS) MemoryBlock(id uint64) (MemoryBlock, error) {
	p := f.memoryDir("memory" + strconv.FormatUint(id, 10))
	state, err := readAttr(filepath.Join(p, "state"))
	if isNotExist(err) {
		return MemoryBlock{}, &cxlverr.NotFoundError{Kind: "memory block", Name: filepath.Base(p)}
	}
	if err != nil {
		return MemoryBlock{}, err
	}
	a := attrs{dir: p}
	b := MemoryBlock{Name: filepath.Base(p), Path: p, State: strings.TrimSpace(string(state)), Zones: a.str("valid_zones")}
	if s, ok := a.raw("phys_index"); ok {
		v, err := parseHex(s)
		if err != nil {
			a.fail("phys_index", err)
		}
		b.ID = v
	}
	if nodes := childDirs(p, "node"); len(nodes) > 0 { // the nodeN link
		n, _ := numberedName(filepath.Base(nodes[0]), "node")
		b.Node = &n
	}
	return b, a.err
}

// MemoryBlocksIn reads the blocks that cover [start, start+size), in
// order. Blocks not present (memory not hot-added yet) are left out.
func (f FS) MemoryBlocksIn(start, size uint64) ([]MemoryBlock, uint64, error) {
	bs, err := f.MemoryBlockSize()
	if err != nil || size == 0 {
		return nil, bs, err
	}
	var out []MemoryBlock
	for id := start / bs; id <= (start+size-1)/bs; id++ {
		b, err := f.MemoryBlock(id)
		if errors.Is(err, cxlverr.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, bs, err
		}
		out = append(out, b)
	}
	return out, bs, nil
}

// BlockSummary counts blocks by state, with the zones of the online ones
// and the nodes of all.
type BlockSummary struct {
	Blocks, Online, Offline int
	BlockSize               uint64
	Zones                   []string
	Nodes                   []int
}

// Summarize counts blocks of size bs.
func Summarize(blocks []MemoryBlock, bs uint64) BlockSummary {
	s := BlockSummary{Blocks: len(blocks), BlockSize: bs}
	for _, b := range blocks {
		if b.Online() {
			s.Online++
			if z := b.Zone(); z != "" && !slices.Contains(s.Zones, z) {
				s.Zones = append(s.Zones, z)
			}
		} else {
			s.Offline++
		}
		if b.Node != nil && !slices.Contains(s.Nodes, *b.Node) {
			s.Nodes = append(s.Nodes, *b.Node)
		}
	}
	slices.Sort(s.Nodes)
	return s
}

// OnlineBytes and OfflineBytes are the memory in each state.
func (s BlockSummary) OnlineBytes() uint64  { return uint64(s.Online) * s.BlockSize }
func (s BlockSummary) OfflineBytes() uint64 { return uint64(s.Offline) * s.BlockSize }

// Movable is true when every online block is in ZONE_MOVABLE, nil when
// none is online (daxctl's "movable").
func (s BlockSummary) Movable() *bool {
	if s.Online == 0 {
		return nil
	}
	m := len(s.Zones) == 1 && s.Zones[0] == "Movable"
	return &m
}

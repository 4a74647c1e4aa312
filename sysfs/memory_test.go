package sysfs

import (
	"errors"
	"strconv"
	"testing"

	"github.com/cxlv/cxlv/cxlverr"
)

// Memory blocks and nodes of the 6.1 guests (q35, -m 2G: 16 blocks of
// 128 MiB on node 0, the first spanning DMA and DMA32).
func TestMemoryBlocksQemu(t *testing.T) {
	fs := fixture(t, "qemu-bare")
	bs, err := fs.MemoryBlockSize()
	if err != nil || bs != 128<<20 {
		t.Fatalf("MemoryBlockSize() = %#x, %v; want 128 MiB (block_size_bytes reads 8000000, hex)", bs, err)
	}
	if p, err := fs.AutoOnlineBlocks(); err != nil || p != "offline" {
		t.Errorf("AutoOnlineBlocks() = %q, %v; want 6.1's offline", p, err)
	}
	blocks, bs, err := fs.MemoryBlocksIn(0, 2<<30)
	if err != nil || bs != 128<<20 || len(blocks) != 16 {
		t.Fatalf("MemoryBlocksIn(0, 2G) = %d blocks, %v", len(blocks), err)
	}
	for i, b := range blocks {
		if b.ID != uint64(i) || b.Name != "memory"+itoa(i) || !b.Online() || b.Node == nil || *b.Node != 0 {
			t.Errorf("block %d = %+v", i, b)
		}
	}
	if blocks[0].Zone() != "none" || blocks[15].Zone() != "DMA32" {
		t.Errorf("zones %q, %q; want none (spans DMA and DMA32) and DMA32", blocks[0].Zone(), blocks[15].Zone())
	}
	// A range only partly covered reads the blocks that exist.
	if blocks, _, err := fs.MemoryBlocksIn(15<<27, 1<<30); err != nil || len(blocks) != 1 || blocks[0].Name != "memory15" {
		t.Errorf("MemoryBlocksIn(memory15..) = %+v, %v; want memory15 alone", blocks, err)
	}
	if _, err := fs.MemoryBlock(16); !isNotFound(err) {
		t.Errorf("MemoryBlock(16) = %v; want cxlverr.NotFoundError", err)
	}
	s := Summarize(blocks, bs)
	if s.Blocks != 16 || s.Online != 16 || s.OnlineBytes() != 2<<30 || s.OfflineBytes() != 0 ||
		len(s.Nodes) != 1 || s.Nodes[0] != 0 || s.Movable() == nil || *s.Movable() {
		t.Errorf("Summarize = %+v", s)
	}
	if m := Summarize(nil, bs).Movable(); m != nil {
		t.Errorf("Movable() of no online block = %v; want nil", *m)
	}
}

func TestNoMemoryHotplug(t *testing.T) {
	fs, err := NewFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fs.MemoryBlockSize(); !errors.Is(err, cxlverr.ErrNotSupported) {
		t.Errorf("MemoryBlockSize() on a tree without memory blocks: %v", err)
	}
}

func TestParseHex(t *testing.T) {
	for in, want := range map[string]uint64{"8000000\n": 0x8000000, "0000000f": 15, "0x10": 16} {
		if got, err := parseHex(in); err != nil || got != want {
			t.Errorf("parseHex(%q) = %#x, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "0x", "+1", "xyz"} {
		if _, err := parseHex(in); err == nil {
			t.Errorf("parseHex(%q) accepted", in)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// A RAM region on 6.12 (cxl_virt pmem=0, memory on CPU-less node 1): the
// region, its dax_region0 and dax0.0 held by kmem, memory34-39 online
// movable.
func TestRAMStateCxlv(t *testing.T) {
	fs := fixture(t, "cxlv-ram-movable")
	r, err := fs.Region("region0")
	if err != nil {
		t.Fatal(err)
	}
	if !r.RAM() || r.DaxRegion != "dax_region0" || r.PmemRegion != "" || r.UUID != "" || r.Resource == nil || *r.Resource != 0x110000000 {
		t.Errorf("region0 = %+v", r)
	}
	st, err := fs.RAMState(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := st.Dax
	if d == nil || d.Name != "dax0.0" || d.Region != "region0" || d.Parent != "dax_region0" || d.Driver != "kmem" || d.Mode() != "system-ram" ||
		d.TargetNode == nil || *d.TargetNode != 1 || d.Resource == nil || *d.Resource != 0x110000000 || d.Size != 768<<20 {
		t.Fatalf("dax device %+v", d)
	}
	if !st.Added() || len(st.Blocks) != 6 || st.Blocks[0].Name != "memory34" || st.Blocks[5].Name != "memory39" {
		t.Errorf("blocks %+v", st.Blocks)
	}
	s := st.Summary
	if s.Online != 6 || s.Offline != 0 || s.OnlineBytes() != 768<<20 || len(s.Zones) != 1 || s.Zones[0] != "Movable" ||
		len(s.Nodes) != 1 || s.Nodes[0] != 1 || s.Movable() == nil || !*s.Movable() {
		t.Errorf("summary %+v", s)
	}
	top, err := fs.Topology()
	if err != nil {
		t.Fatal(err)
	}
	links := top.Links()
	if len(links) != 1 || len(links[0].Regions) != 1 || links[0].Regions[0].RAM == nil || links[0].Regions[0].RAM.Dax.Name != "dax0.0" {
		t.Errorf("links %+v", links)
	}
	// Without a region: the root decoder offers create_ram_region only.
	bare := fixture(t, "cxlv-ram-bare")
	root, err := bare.Decoder("decoder0.0")
	if err != nil || !root.CanCreateRAMRegion || root.CanCreatePmemRegion || !root.CapRAM || root.CapPmem {
		t.Errorf("bare decoder0.0 = %+v, %v", root, err)
	}
	if name, err := bare.NextRegionName(root, "ram"); err != nil || name != "region0" {
		t.Errorf("NextRegionName(ram) = %q, %v", name, err)
	}
	if _, err := bare.NextRegionName(root, "pmem"); !errors.Is(err, cxlverr.ErrNotSupported) {
		t.Errorf("NextRegionName(pmem) on a ram-only decoder: %v", err)
	}
	if p, err := bare.AutoOnlineBlocks(); err != nil || p != "online" {
		t.Errorf("AutoOnlineBlocks() = %q, %v; want Debian 6.12's online", p, err)
	}
}

// FuzzParseHex: what parses is the number the text spells in hex.
func FuzzParseHex(f *testing.F) {
	for _, s := range []string{"8000000\n", "0000000f", "0x10", "", "+1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parseHex(s)
		if err != nil {
			return
		}
		if again, err := parseHex(strconv.FormatUint(v, 16)); err != nil || again != v {
			t.Fatalf("parseHex(%q) = %#x, but %x reads back as %#x, %v", s, v, v, again, err)
		}
	})
}

package sysfs

// A CXL RAM region (6.3+) becomes memory in three steps: the cxl_region
// driver adds dax_regionN below the region, dax_cxl gives it one dax
// device with the KMEM flag, and kmem hot-adds that device's range as
// memory blocks, which the kernel's auto_online_blocks policy (or
// cxlvctl) onlines. Without RAM regions (6.1), a pmem region's devdax
// namespace gives kmem its dax device instead (daxctl reconfigure-device
// --mode=system-ram); kmem adds the memory blocks wholly inside it.

// RAMState is what the memory of a RAM region has become.
type RAMState struct {
	// Dax is the region's dax device, nil until dax_cxl made it.
	Dax *DaxDevice
	// Start and Size are the memory's physical range (the dax device's,
	// else the region's); Start is nil when unreadable.
	Start *uint64
	Size  uint64
	// Blocks are the memory blocks kmem added for the range.
	Blocks  []MemoryBlock
	Summary BlockSummary
}

// Added reports whether kmem holds the dax device and every block inside
// its range exists.
func (s RAMState) Added() bool {
	bs := s.Summary.BlockSize
	if s.Dax == nil || s.Dax.Driver != "kmem" || bs == 0 || s.Start == nil {
		return false
	}
	first, end := (*s.Start+bs-1)/bs, (*s.Start+s.Size)/bs
	return end > first && uint64(s.Summary.Blocks) == end-first
}

// Kmem reports whether kmem holds the dax device: its memory is system RAM.
func (s RAMState) Kmem() bool { return s.Dax != nil && s.Dax.Driver == "kmem" }

// RAMState reads the dax device and memory blocks of region r; daxDevs
// are the dax bus's devices (read once by the caller, or nil to read them).
func (f FS) RAMState(r Region, daxDevs []DaxDevice) (RAMState, error) {
	var s RAMState
	if daxDevs == nil {
		var err error
		if daxDevs, err = f.DaxDevices(); droppedIfUnloaded(err) != nil {
			return s, err
		}
	}
	for i := range daxDevs {
		if daxDevs[i].Region == r.Name {
			s.Dax = &daxDevs[i]
			break
		}
	}
	s.Start, s.Size = r.Resource, r.Size
	if s.Dax != nil {
		s.Size = s.Dax.Size
		if s.Dax.Resource != nil {
			s.Start = s.Dax.Resource
		}
	}
	if s.Dax == nil || s.Start == nil || !r.RAM() && !s.Kmem() {
		return s, nil // no memory blocks (yet)
	}
	blocks, bs, err := f.MemoryBlocksIn(*s.Start, s.Size)
	if err != nil {
		return s, err
	}
	s.Blocks, s.Summary = blocks, Summarize(blocks, bs)
	return s, nil
}

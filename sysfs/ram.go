package sysfs

// A CXL RAM region (6.3+) becomes memory in three steps: the cxl_region
// driver adds dax_regionN below the region, dax_cxl gives it one dax
// device with the KMEM flag, and kmem hot-adds that device's range as
// memory blocks, which the kernel's auto_online_blocks policy (or
// cxlvctl) onlines.

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

// Added reports whether kmem holds the dax device and every block of its
// range exists.
func (s RAMState) Added() bool {
	return s.Dax != nil && s.Dax.Driver == "kmem" && s.Summary.BlockSize > 0 &&
		uint64(s.Summary.Blocks) == s.Size/s.Summary.BlockSize
}

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
	if s.Dax == nil || s.Start == nil {
		return s, nil
	}
	blocks, bs, err := f.MemoryBlocksIn(*s.Start, s.Size)
	if err != nil {
		return s, err
	}
	s.Blocks, s.Summary = blocks, Summarize(blocks, bs)
	return s, nil
}

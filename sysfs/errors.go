package sysfs

import (
	"github.com/cxlv/cxlv/cxlverr"
)

// CacheInvalidationError is a region commit that Linux 6.2+ refuses on a
// cxl_virt device because the CPU reports a hypervisor (it cannot
// invalidate its caches for the region) and the module does not lift that.
type CacheInvalidationError struct {
	// State is the module's cache_invalidation: CacheInvalidationOff or
	// CacheInvalidationUnavailable.
	State string
}

func (e *CacheInvalidationError) Error() string {
	const why = "the CPU reports a hypervisor, and Linux 6.2+ commits no CXL region there (it cannot invalidate the CPU caches)"
	if e.State == CacheInvalidationOff {
		return why + "; cxl_virt lifts that for its own regions, but it was loaded with coherent_regions=0: reload it with coherent_regions=1"
	}
	return why + "; cxl_virt cannot lift that on this kernel (cache_invalidation: unavailable, dmesg says why): use bare metal or a VM that hides the hypervisor CPUID bit"
}

// Is makes errors.Is(err, cxlverr.ErrNotSupported) true.
func (e *CacheInvalidationError) Is(target error) bool { return target == cxlverr.ErrNotSupported }

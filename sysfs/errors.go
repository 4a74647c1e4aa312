package sysfs

import (
	"errors"
	"fmt"
)

// ErrNotSupported is matched (errors.Is) by every *FeatureError: the running
// kernel, or the set of loaded modules, lacks what an operation needs.
var ErrNotSupported = errors.New("not supported")

// FeatureError names a kernel feature that is missing and the first kernel
// that has it, or the module that provides it.
type FeatureError struct {
	// Name is what is missing, e.g. "create_ram_region".
	Name string
	// MinKernel is the first kernel release that has it ("6.3"); empty
	// when a module provides it instead.
	MinKernel string
	// Module is the module that provides it ("cxl_virt"); empty when only a
	// newer kernel helps.
	Module string
	// Attr is the sysfs attribute whose absence showed it is missing
	// ("create_ram_region"); the message then says the kernel is too old.
	Attr string
}

func (e *FeatureError) Error() string {
	switch {
	case e.Module != "" && e.Attr != "":
		return fmt.Sprintf("%s not available: module %s is not loaded (%s missing; run: modprobe %s)",
			e.Name, e.Module, e.Attr, e.Module)
	case e.Module != "":
		return fmt.Sprintf("%s not available: module %s is not loaded (run: modprobe %s)",
			e.Name, e.Module, e.Module)
	case e.MinKernel != "" && e.Attr != "":
		return fmt.Sprintf("kernel too old: %s need Linux %s+ (%s missing)", e.Name, e.MinKernel, e.Attr)
	case e.MinKernel != "":
		return fmt.Sprintf("%s not supported: needs Linux %s or newer", e.Name, e.MinKernel)
	}
	return fmt.Sprintf("%s not supported by this kernel", e.Name)
}

// Is makes errors.Is(err, ErrNotSupported) true.
func (e *FeatureError) Is(target error) bool { return target == ErrNotSupported }

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

// Is makes errors.Is(err, ErrNotSupported) true.
func (e *CacheInvalidationError) Is(target error) bool { return target == ErrNotSupported }

// NotFoundError is an object name that does not exist in sysfs.
type NotFoundError struct {
	Kind string // "cxl_virt device", "memdev", "region", ...
	Name string
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("%s %s not found", e.Kind, e.Name)
}

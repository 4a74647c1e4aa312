// Package cxlverr is the one error vocabulary of cxlv: the kinds of
// failure a caller (and cxlvctl's exit code) tells apart, as sentinels to
// match with errors.Is, and the typed errors that carry them. Every package
// returns these, wrapped with %w, and nothing else decides a kind.
package cxlverr

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The kinds of failure. Each typed error below, and each *Error, matches
// exactly one of them.
var (
	// ErrInvalid is a request refused before anything was written: bad
	// flags, sizes, names, misaligned or unreserved ranges.
	ErrInvalid = errors.New("invalid request")
	// ErrPermission is the kernel refusing a non-root user.
	ErrPermission = fs.ErrPermission
	// ErrNotSupported is a module that is not loaded, or a kernel that
	// lacks a feature.
	ErrNotSupported = errors.New("not supported")
	// ErrBusy is something in use. It is the kernel's EBUSY, so a refusal
	// of the kernel's and one of ours match alike.
	ErrBusy error = syscall.EBUSY
	// ErrNotFound is a name that does not exist.
	ErrNotFound = errors.New("not found")
	// ErrTimeout is a wait for the kernel that ran out of time.
	ErrTimeout = errors.New("timed out")
	// ErrInterrupted is a signal that stopped the work.
	ErrInterrupted = errors.New("interrupted")
)

// Error is a one-line message of the kind (or with the cause) Err: the
// message replaces Err's text, errors.Is and errors.As see through to it.
type Error struct {
	Msg string
	Err error
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// Errorf is an *Error of kind with a formatted message.
func Errorf(kind error, format string, args ...any) error {
	return &Error{Msg: fmt.Sprintf(format, args...), Err: kind}
}

// Invalidf is an ErrInvalid with a formatted message.
func Invalidf(format string, args ...any) error { return Errorf(ErrInvalid, format, args...) }

// The first kernel release of each feature cxlv needs: the one place these
// numbers are written.
const (
	KernelPmemRegions       = "6.0" // create_pmem_region
	KernelRAMRegions        = "6.3" // create_ram_region, region mode
	KernelParentDport       = "6.3"
	KernelQosClass          = "6.5"
	KernelDecodersCommitted = "6.7"
	KernelMemoryHotplug     = "2.6.15" // /sys/devices/system/memory
	KernelPoison            = "6.4"    // trigger_poison_list, debugfs inject_poison and clear_poison
	KernelEvents            = "6.3"    // cxl_pci reads event records on its event interrupt
)

// FeatureError names a kernel feature that is missing and the first kernel
// that has it, or the module that provides it. It matches ErrNotSupported.
type FeatureError struct {
	// Name is what is missing, e.g. "create_ram_region".
	Name string
	// MinKernel is the first kernel release that has it (a Kernel*
	// constant); empty when a module provides it instead.
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

// NotFoundError is an object name that does not exist. It matches
// ErrNotFound.
type NotFoundError struct {
	Kind string // "cxl_virt device", "memdev", "region", ...
	Name string
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("%s %s not found", e.Kind, e.Name)
}

// Is makes errors.Is(err, ErrNotFound) true.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// TimeoutError is a kernel probe that did not finish in time. It matches
// ErrTimeout.
type TimeoutError struct {
	What    string
	Pending string // what was still missing at the end
	Timeout time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("timed out after %v waiting for %s: %s (dmesg may say why)", e.Timeout, e.What, e.Pending)
}

// Is makes errors.Is(err, ErrTimeout) true.
func (e *TimeoutError) Is(target error) bool { return target == ErrTimeout }

// InterruptedError is the cause of a context cancelled by a signal. It
// matches ErrInterrupted.
type InterruptedError struct{ Signal syscall.Signal }

func (e *InterruptedError) Error() string {
	return fmt.Sprintf("interrupted by %s", unix.SignalName(e.Signal))
}

// Is makes errors.Is(err, ErrInterrupted) true.
func (e *InterruptedError) Is(target error) bool { return target == ErrInterrupted }

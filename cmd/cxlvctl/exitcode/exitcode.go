// Package exitcode holds cxlvctl's exit codes and the one mapping from an
// error to its code, shared by cxlvctl and the cxlvctl-info helper that
// `cxlvctl info` becomes, so both exit the same way on the same error.
package exitcode

import (
	"errors"
	"syscall"

	"github.com/cxlv/cxlv/cxlverr"
)

// The exit codes (cxlvctl's package comment lists them).
const (
	OK = iota
	Failure
	Invalid
	Permission
	NotSupported
	Busy
	NotFound
	Timeout
)

// Interrupted is the shell's code for a command stopped by SIGINT.
const Interrupted = 128 + int(syscall.SIGINT)

// Of maps an error to its exit code, from the kinds of cxlverr, first
// match first.
func Of(err error) int {
	if err == nil {
		return OK
	}
	for _, k := range []struct {
		kind error
		code int
	}{
		{cxlverr.ErrInterrupted, Interrupted},
		{cxlverr.ErrInvalid, Invalid},
		{cxlverr.ErrPermission, Permission},
		{cxlverr.ErrNotSupported, NotSupported},
		{cxlverr.ErrBusy, Busy},
		{cxlverr.ErrNotFound, NotFound},
		{cxlverr.ErrTimeout, Timeout},
	} {
		if errors.Is(err, k.kind) {
			return k.code
		}
	}
	return Failure
}

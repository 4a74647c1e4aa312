package cxlverr

import (
	"errors"
	"fmt"
	"syscall"
	"testing"
)

// Every typed error matches its kind, and only that one, through %w.
func TestKinds(t *testing.T) {
	kinds := []error{ErrInvalid, ErrPermission, ErrNotSupported, ErrBusy, ErrNotFound, ErrTimeout, ErrInterrupted}
	for _, c := range []struct {
		err  error
		kind error
	}{
		{Invalidf("bad %s", "size"), ErrInvalid},
		{Errorf(ErrBusy, "in use"), ErrBusy},
		{&Error{Msg: "denied", Err: syscall.EACCES}, ErrPermission},
		{syscall.EBUSY, ErrBusy},
		{&FeatureError{Name: "RAM regions", MinKernel: KernelRAMRegions}, ErrNotSupported},
		{&NotFoundError{Kind: "region", Name: "region9"}, ErrNotFound},
		{&TimeoutError{What: "the probe"}, ErrTimeout},
		{&InterruptedError{Signal: syscall.SIGINT}, ErrInterrupted},
	} {
		err := fmt.Errorf("context: %w", c.err)
		for _, k := range kinds {
			if got, want := errors.Is(err, k), k == c.kind; got != want {
				t.Errorf("errors.Is(%v, %v) = %v, want %v", err, k, got, want)
			}
		}
	}
	if got := Invalidf("bad %s", "size").Error(); got != "bad size" {
		t.Errorf("Invalidf message %q", got)
	}
}

package main

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cxlv/cxlv/cmd/cxlvctl/exitcode"
	"github.com/cxlv/cxlv/cxlverr"
)

// A signal cancels the context with an *InterruptedError, which a command
// error may wrap, and the exit code is the shell's 130.
func TestInterruptSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		ctx, stop := interruptible(t.Context())
		if err := syscall.Kill(syscall.Getpid(), sig); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
			t.Fatalf("%v did not cancel the context", sig)
		}
		var ie *cxlverr.InterruptedError
		err := fmt.Errorf("region create: %w; nothing was left behind", context.Cause(ctx))
		if !errors.As(err, &ie) || ie.Signal != sig || exitcode.Of(err) != exitcode.Interrupted || exitcode.Interrupted != 130 ||
			err.Error() != "region create: interrupted by "+unix.SignalName(sig)+"; nothing was left behind" {
			t.Errorf("%v: %v, exit %d", sig, err, exitcode.Of(err))
		}
		stop()
	}
}

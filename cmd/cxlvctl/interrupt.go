package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/cxlv/cxlv/cxlverr"
)

// interruptSignals are the ways a user or a service manager stops us.
var interruptSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// interruptible returns a context that the first interrupt signal cancels,
// with a *cxlverr.InterruptedError as its cause. The region transactions
// stop at their next kernel write or wait, or at their end, and roll back,
// so Ctrl-C before a region create has returned leaves nothing behind (not
// even a changed auto_online_blocks); a second one kills the process the
// default way, in case a rollback hangs.
// stop releases the signals (main never does: see there).
func interruptible(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, interruptSignals...)
	go func() {
		select {
		case sig := <-sigs:
			cancel(&cxlverr.InterruptedError{Signal: sig.(syscall.Signal)})
			signal.Stop(sigs)
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		cancel(nil)
	}
}

package region

import (
	"context"
	"fmt"
	"time"

	"github.com/cxlv/cxlv/cxlverr"
)

// Event is one progress report: a step started (Done false) or finished.
type Event struct {
	Step    string
	Done    bool
	Elapsed time.Duration // since the step started, when Done
}

// pollInterval is how often a wait re-reads sysfs. The probes it waits for
// take milliseconds to a second; polling keeps the package free of uevent
// plumbing and works the same on a captured tree.
const pollInterval = 5 * time.Millisecond

// waitFor polls pending until it reports nothing pending, fails, or the
// manager's timeout passes, reporting progress around it. ctx is checked
// before every poll, so an interrupt during the write that started the
// probe stops it too, even when the probe is already done.
func (m *Manager) waitFor(ctx context.Context, what string, pending func() (string, error)) error {
	start := time.Now()
	m.report(Event{Step: "wait for " + what})
	ctx, cancel := context.WithTimeout(ctx, m.timeout())
	defer cancel()
	missing := ""
	for {
		switch ctx.Err() {
		case nil:
		case context.DeadlineExceeded:
			return &cxlverr.TimeoutError{What: what, Pending: missing, Timeout: m.timeout()}
		default:
			return fmt.Errorf("%w while waiting for %s", context.Cause(ctx), what)
		}
		var err error
		if missing, err = pending(); err != nil {
			return err
		}
		if missing == "" {
			m.report(Event{Step: "wait for " + what, Done: true, Elapsed: time.Since(start)})
			return nil
		}
		select {
		case <-ctx.Done():
		case <-time.After(pollInterval):
		}
	}
}

func (m *Manager) report(e Event) {
	if m.Progress != nil {
		m.Progress(e)
	}
}

func (m *Manager) timeout() time.Duration {
	if m.Timeout > 0 {
		return m.Timeout
	}
	return DefaultTimeout
}

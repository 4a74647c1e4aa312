package region

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/cxlv/cxlv/host"
	"github.com/cxlv/cxlv/writer"
)

// undo is what puts one completed step back. Most undos are kernel writes;
// unmounting a filesystem is not, so an undo is a function with a label.
type undo struct {
	what string
	run  func() error
	// guard stops the rollback when it fails: the undos below it would
	// do harm (unbinding a region whose memory could not be offlined
	// would leak that memory until reboot).
	guard bool
}

// tx applies kernel writes one at a time and remembers how to reverse each
// one, so that a failure anywhere leaves the kernel as it was found.
type tx struct {
	// ctx, when set, makes the transaction interruptible: once it is
	// done, the next write fails with its cause and the caller rolls
	// back. Teardowns leave it nil: stopping one halfway helps no one.
	ctx context.Context
	w   writer.Writer
	// host is the system written to, whose CPU a failure's hint may name.
	host  host.Root
	undos []undo
}

// write performs one kernel write. When it succeeds, the given reverse
// writes (applied in the order given) are pushed on the undo stack.
func (t *tx) write(path, value string, reverse ...writer.Op) error {
	if err := t.interrupted(); err != nil {
		return fmt.Errorf("%w before writing %s", err, path)
	}
	if err := t.w.Write(path, value); err != nil {
		return err
	}
	if len(reverse) > 0 {
		t.pushWrites(reverse...)
	}
	return nil
}

// interrupted returns the cause of an interruptible transaction's cancelled
// context. It yields first: cxlvctl runs on one P (cmd/cxlvctl main), so a
// signal that arrived during a kernel write reaches the context only once
// this goroutine lets the ones that deliver it run.
func (t *tx) interrupted() error {
	if t.ctx == nil {
		return nil
	}
	runtime.Gosched()
	return context.Cause(t.ctx)
}

// step is one kernel write and the writes that reverse it (none when a
// later undo, such as deleting the object, reverses it anyway).
type step struct {
	path, value string
	undo        []writer.Op
}

// run performs steps in order, stopping at the first failure.
func (t *tx) run(steps []step) error {
	for _, s := range steps {
		if err := t.write(s.path, s.value, s.undo...); err != nil {
			return err
		}
	}
	return nil
}

// pushWrites records reverse writes for something already done.
func (t *tx) pushWrites(ops ...writer.Op) {
	names := make([]string, len(ops))
	for i, op := range ops {
		names[i] = op.String()
	}
	t.push(strings.Join(names, "; "), func() error {
		for _, op := range ops {
			if err := t.w.Write(op.Path, op.Value); err != nil {
				return err
			}
		}
		return nil
	})
}

// push records an arbitrary undo.
func (t *tx) push(what string, run func() error) {
	t.undos = append(t.undos, undo{what: what, run: run})
}

// pushGuard records an undo whose failure stops the rollback.
func (t *tx) pushGuard(what string, run func() error) {
	t.undos = append(t.undos, undo{what: what, run: run, guard: true})
}

// writeScoped writes value to path for the duration of the transaction:
// a rollback writes old back, and so does the restore function it returns,
// which drops that undo once it has run.
func (t *tx) writeScoped(path, value, old string) (restore func() error, err error) {
	if err := t.w.Write(path, value); err != nil {
		return nil, err
	}
	back := writer.Op{Path: path, Value: old}
	t.pushWrites(back)
	at := len(t.undos) - 1
	return func() error {
		if err := t.w.Write(back.Path, back.Value); err != nil {
			return err
		}
		t.undos = append(t.undos[:at:at], t.undos[at+1:]...)
		return nil
	}, nil
}

// rollback runs every undo, newest first, and returns the ones that failed.
// It keeps going after a failure, since each undo that works releases
// something, except after a guard: then it names what it left as it is.
func (t *tx) rollback() error {
	var errs []error
	for i := len(t.undos) - 1; i >= 0; i-- {
		err := t.undos[i].run()
		if err == nil {
			continue
		}
		errs = append(errs, fmt.Errorf("undo %s: %w", t.undos[i].what, err))
		if t.undos[i].guard && i > 0 {
			var left []string
			for j := i - 1; j >= 0; j-- {
				left = append(left, t.undos[j].what)
			}
			errs = append(errs, fmt.Errorf("stopped there, not undone: %s", strings.Join(left, "; ")))
			break
		}
	}
	t.undos = nil
	return errors.Join(errs...)
}

// finish rolls back when *err is set, wrapping it in an *Error that says
// whether the rollback was complete, and when it is nil but the transaction
// was interrupted. Use as: defer t.finish(op, &err).
func (t *tx) finish(op string, err *error) {
	if *err == nil {
		// A signal that came before the end undoes the work: the
		// last steps may have had no write or wait to notice it.
		if cause := t.interrupted(); cause != nil {
			*err = fmt.Errorf("%w before it finished", cause)
		}
	}
	if *err == nil {
		return
	}
	*err = &Error{Op: op, Err: *err, RollbackErr: t.rollback(), hint: hintFor(*err, t.host)}
}

// Error is a failed operation and what happened to the work it had done.
type Error struct {
	Op  string // "region create", "namespace create", ...
	Err error
	// RollbackErr lists the undo steps that failed; nil means the kernel
	// is back in the state it was in before Op started.
	RollbackErr error
	// hint says what a person can do about Err; empty when nothing is known.
	hint string
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("%s: %v", e.Op, e.Err)
	if e.hint != "" {
		msg += " (" + e.hint + ")"
	}
	if e.RollbackErr != nil {
		return msg + "; rollback incomplete: " + e.RollbackErr.Error()
	}
	return msg + "; nothing was left behind"
}

func (e *Error) Unwrap() error { return e.Err }

// Package writertest holds the writer.Writer that tests put in place of the
// kernel: it records every write and can fail one of them.
package writertest

import (
	"errors"
	"sync"

	"github.com/cxlv/cxlv/writer"
)

// ErrInjected is returned by a Recorder at its FailAt step.
var ErrInjected = errors.New("injected failure")

// Recorder records writes (and mkdir, rmdir) instead of performing them, optionally passing
// them on to Next. When FailAt is n > 0, the n-th write (1-based) fails
// with FailErr (ErrInjected if nil) and is not passed on.
type Recorder struct {
	Next    writer.Writer
	FailAt  int
	FailErr error

	mu  sync.Mutex
	ops []writer.Op
}

// Write implements Writer.
func (r *Recorder) Write(path, value string) error {
	if err := r.record(writer.Op{Path: path, Value: value}); err != nil {
		return err
	}
	if r.Next != nil {
		return r.Next.Write(path, value)
	}
	return nil
}

// Mkdir implements writer.Dirs; Next, if set, must implement it too.
func (r *Recorder) Mkdir(path string) error {
	return r.dir(writer.Op{Path: path, Dir: "mkdir"}, writer.Dirs.Mkdir)
}

// Rmdir implements writer.Dirs; Next, if set, must implement it too.
func (r *Recorder) Rmdir(path string) error {
	return r.dir(writer.Op{Path: path, Dir: "rmdir"}, writer.Dirs.Rmdir)
}

// dir records a directory op and passes it on to Next with pass.
func (r *Recorder) dir(op writer.Op, pass func(writer.Dirs, string) error) error {
	if err := r.record(op); err != nil {
		return err
	}
	if r.Next != nil {
		return pass(r.Next.(writer.Dirs), op.Path)
	}
	return nil
}

// record adds op and returns the injected failure when it is op's turn.
func (r *Recorder) record(op writer.Op) error {
	r.mu.Lock()
	r.ops = append(r.ops, op)
	n := len(r.ops)
	r.mu.Unlock()
	if r.FailAt > 0 && n == r.FailAt {
		err := r.FailErr
		if err == nil {
			err = ErrInjected
		}
		return &writer.WriteError{Op: op.Dir, Path: op.Path, Value: op.Value, Err: err}
	}
	return nil
}

// Ops returns a copy of the writes recorded so far.
func (r *Recorder) Ops() []writer.Op {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]writer.Op(nil), r.ops...)
}

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

// Recorder records writes instead of performing them, optionally passing
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
	r.mu.Lock()
	r.ops = append(r.ops, writer.Op{Path: path, Value: value})
	n := len(r.ops)
	r.mu.Unlock()
	if r.FailAt > 0 && n == r.FailAt {
		if r.FailErr != nil {
			return &writer.WriteError{Path: path, Value: value, Err: r.FailErr}
		}
		return &writer.WriteError{Path: path, Value: value, Err: ErrInjected}
	}
	if r.Next != nil {
		return r.Next.Write(path, value)
	}
	return nil
}

// Ops returns a copy of the writes recorded so far.
func (r *Recorder) Ops() []writer.Op {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]writer.Op(nil), r.ops...)
}

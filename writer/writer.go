// Package writer is the single path by which cxlvctl changes kernel state.
//
// Every write to sysfs or debugfs goes through a Writer, so that tests can
// record the exact sequence of kernel writes and inject a failure at any
// step (writertest.Recorder), and --dry-run can print what would be written
// (DryRun).
package writer

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Writer writes one attribute value to one kernel file.
type Writer interface {
	// Write stores value in the file at path with a single write(2), the
	// way `echo value > path` does, and returns the kernel's error.
	Write(path, value string) error
}

// Dirs is a Writer that also makes and removes directories where a
// kernel file system takes that as a request: a tracefs instance, its own
// ring buffer and event switches, is a mkdir under tracefs's instances/.
type Dirs interface {
	Writer
	// Mkdir makes the directory, as mkdir(2).
	Mkdir(path string) error
	// Rmdir removes the directory, as rmdir(2).
	Rmdir(path string) error
}

// Kernel writes to the real files. Values are written with a trailing
// newline in one write(2): several 6.1 stores (a region's uuid) accept
// exactly one length, which is what echo produces.
type Kernel struct{}

// Write implements Writer. It opens and writes with the system calls
// themselves: os.File.Write would retry a short write, handing the store
// the rest of the value as a second value.
func (Kernel) Write(path, value string) error {
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CLOEXEC, 0)
	for err == unix.EINTR {
		fd, err = unix.Open(path, unix.O_WRONLY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return &WriteError{Open: true, Path: path, Value: value, Err: err}
	}
	werr := writeOnce(fd, value)
	cerr := unix.Close(fd)
	if werr != nil {
		return &WriteError{Path: path, Value: value, Err: werr}
	}
	if cerr != nil {
		return &fs.PathError{Op: "close", Path: path, Err: cerr}
	}
	return nil
}

// writeOnce writes value and a newline to fd in one write(2); a short
// write is an error, not retried: a store takes a value whole or not at all.
// EINTR is retried: a store that a signal stopped did not take the value
// (offlining memory stops on any signal, Go's preemption signal included).
func writeOnce(fd int, value string) error {
	b := []byte(value + "\n")
	n, err := unix.Write(fd, b)
	for err == unix.EINTR {
		n, err = unix.Write(fd, b)
	}
	if err != nil {
		return err
	}
	if n < len(b) {
		return fmt.Errorf("%w: %d of %d bytes", io.ErrShortWrite, n, len(b))
	}
	return nil
}

// Mkdir implements Dirs.
func (Kernel) Mkdir(path string) error {
	if err := os.Mkdir(path, 0o755); err != nil {
		return &WriteError{Op: "mkdir", Path: path, Err: errnoOf(err)}
	}
	return nil
}

// Rmdir implements Dirs.
func (Kernel) Rmdir(path string) error {
	if err := os.Remove(path); err != nil {
		return &WriteError{Op: "rmdir", Path: path, Err: errnoOf(err)}
	}
	return nil
}

// errnoOf is the kernel's errno of a failed mkdir or rmdir: the path is
// already named.
func errnoOf(err error) error {
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		return pathErr.Err
	}
	return err
}

// WriteError is a write the kernel refused, or the open before it (a
// missing file: an unloaded driver's bind).
type WriteError struct {
	// Open is a failed open: the file is missing or not writable.
	Open bool
	// Op is "mkdir" or "rmdir" for a directory, "" for a write.
	Op    string
	Path  string
	Value string
	Err   error
}

func (e *WriteError) Error() string {
	if e.Op != "" {
		return fmt.Sprintf("%s %s: %v", e.Op, e.Path, e.Err)
	}
	if e.Open {
		return fmt.Sprintf("open %s: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("write %q to %s: %v", e.Value, e.Path, e.Err)
}

func (e *WriteError) Unwrap() error { return e.Err }

// Op is one recorded write, or with Dir set a mkdir or rmdir.
type Op struct {
	Path  string
	Value string
	// Dir is "mkdir" or "rmdir" for a directory operation, "" for a write.
	Dir string
}

func (o Op) String() string {
	if o.Dir != "" {
		return o.Dir + " " + o.Path
	}
	return fmt.Sprintf("%s <- %q", o.Path, o.Value)
}

// DryRun performs no write and prints each one instead as a shell command
// as it comes, or, with JSON, records them all for the caller to print as
// one JSON object once the plan is complete (Steps). The commands a dry
// run would run besides (mkfs, mount) are printed or recorded the same way
// (Command), so the plan holds them in order.
type DryRun struct {
	Out  io.Writer
	JSON bool

	mu    sync.Mutex
	steps []Step
}

// Step is one planned write (Path and Value) or command (Command) that a
// dry run with JSON recorded.
type Step struct {
	Path    string
	Value   *string
	Command []string
}

// Write implements Writer.
func (d *DryRun) Write(path, value string) error {
	if d.JSON {
		d.add(Step{Path: path, Value: &value})
		return nil
	}
	_, err := fmt.Fprintf(d.Out, "echo %s > %s\n", shellQuote(value), path)
	return err
}

// Mkdir implements Dirs: a planned mkdir, printed as the command.
func (d *DryRun) Mkdir(path string) error { return d.Command([]string{"mkdir", path}) }

// Rmdir implements Dirs: a planned rmdir, printed as the command.
func (d *DryRun) Rmdir(path string) error { return d.Command([]string{"rmdir", path}) }

// Command prints, or records, a command a dry run would run.
func (d *DryRun) Command(argv []string) error {
	if d.JSON {
		d.add(Step{Command: append([]string(nil), argv...)})
		return nil
	}
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = shellQuote(a)
	}
	_, err := fmt.Fprintln(d.Out, strings.Join(quoted, " "))
	return err
}

func (d *DryRun) add(s Step) {
	d.mu.Lock()
	d.steps = append(d.steps, s)
	d.mu.Unlock()
}

// Steps are the writes and commands recorded so far with JSON, in order;
// never nil.
func (d *DryRun) Steps() []Step {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]Step{}, d.steps...)
}

func shellQuote(s string) string {
	safe := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '.' || c == '_' || c == '-' || c == ',' || c == '=' || c == '/' || c == ':') {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	out := "'"
	for _, c := range s {
		if c == '\'' {
			out += `'\''`
		} else {
			out += string(c)
		}
	}
	return out + "'"
}

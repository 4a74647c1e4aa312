package view

import (
	"fmt"
	"io"
)

// The one-line messages of the commands, one function each, so that all
// their wording is here.

// Error is the one line a failed command prints on stderr.
func Error(w io.Writer, err error) { fmt.Fprintf(w, "cxlvctl: %v\n", err) }

// Warning is a problem that does not stop the command, on stderr.
func Warning(w io.Writer, err error) { fmt.Fprintf(w, "cxlvctl: warning: %v\n", err) }

// Progress is a state change of something a command waits for.
func Progress(w io.Writer, subject, state string) { fmt.Fprintf(w, "%s: %s\n", subject, state) }

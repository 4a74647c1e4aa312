package view

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cxlv/cxlv/events"
	"github.com/cxlv/cxlv/poison"
	"github.com/cxlv/cxlv/units"
	"github.com/cxlv/cxlv/virt"
)

// The one-line messages of the commands, one function each, so that all
// their wording is here.

// Error is the one line a failed command prints on stderr.
func Error(w io.Writer, err error) { fmt.Fprintf(w, "cxlvctl: %v\n", err) }

// Warning is a problem that does not stop the command, on stderr.
func Warning(w io.Writer, err error) { fmt.Fprintf(w, "cxlvctl: warning: %v\n", err) }

// Progress is a state change of something a command waits for.
func Progress(w io.Writer, subject, state string) { fmt.Fprintf(w, "%s: %s\n", subject, state) }

// Step is a step of a region transaction, as it starts and once done.
func Step(w io.Writer, step string, done bool, elapsed time.Duration) {
	if done {
		fmt.Fprintf(w, "%s: done in %v\n", step, elapsed.Round(time.Millisecond))
		return
	}
	fmt.Fprintf(w, "%s ...\n", step)
}

// Version is `cxlvctl version`: cxlvctl's, and the loaded module's unless
// module is "".
func Version(w io.Writer, cxlvctl, module, srcversion string) {
	fmt.Fprintf(w, "cxlvctl %s\n", cxlvctl)
	if module == "" {
		fmt.Fprintln(w, "cxl_virt not loaded")
		return
	}
	fmt.Fprintf(w, "cxl_virt %s srcversion %s\n", module, srcversion)
}

// VersionMismatch warns that cxlvctl may not know the module's interface.
func VersionMismatch(w io.Writer, cxlvctl, module string) {
	Warning(w, fmt.Errorf("cxlvctl %s and cxl_virt %s differ: install the cxlvctl of the loaded module", cxlvctl, module))
}

// UsingFreeRange is the reserved range create picked for a device.
func UsingFreeRange(w io.Writer, start uint64) {
	fmt.Fprintf(w, "using the free range at %#x (`cxlvctl ranges`)\n", start)
}

// Borrowing says, before a create, that its range comes from System RAM;
// memstart 0 leaves the place to the module.
func Borrowing(w io.Writer, size, memstart uint64) {
	where := "where the module finds blocks it can offline (above 4G, one node; `cxlvctl ranges` shows it afterwards)"
	if memstart != 0 {
		where = fmt.Sprintf("at %#x", memstart)
	}
	fmt.Fprintf(w, "borrowing %s of System RAM from the running kernel %s: it stays out of the kernel's hands until `cxlvctl remove --release` or `cxlvctl release`\n",
		units.FormatSize(size), where)
}

// Borrowed is where a created device's borrowed range is, and how to give
// it back.
func Borrowed(w io.Writer, name string, size, memstart uint64) {
	fmt.Fprintf(w, "%s: on %s of System RAM borrowed at %#x; it stays borrowed after a remove (data and labels kept) until `cxlvctl remove --release %s`\n",
		name, units.FormatSize(size), memstart, name)
}

// Capacity is a created device's capacity out of the range asked for;
// ways > 0 for a set of that many endpoints.
func Capacity(w io.Writer, name string, capacity, asked, ways uint64) {
	if ways > 0 {
		fmt.Fprintf(w, "%s: capacity %s of the %s range asked for, %d endpoints of %s (metadata first, then whole %d x 256M blocks)\n",
			name, units.FormatSize(capacity), units.FormatSize(asked), ways, units.FormatSize(capacity/ways), ways)
		return
	}
	fmt.Fprintf(w, "%s: capacity %s of the %s range asked for (metadata first, then whole 256M blocks)\n",
		name, units.FormatSize(capacity), units.FormatSize(asked))
}

// Injected is an event record put into a memdev's log.
func Injected(w io.Writer, memdev string, r events.Request) {
	where := ""
	if r.DPA != nil {
		where = fmt.Sprintf(" at DPA %#x", *r.DPA)
	}
	fmt.Fprintf(w, "inject: %s event in %s's %s log%s\n", r.Type, memdev, r.Log, where)
}

// PoisonSent is a poison inject or clear done.
func PoisonSent(w io.Writer, op poison.Op, t poison.Target) {
	fmt.Fprintf(w, "%s: %s DPA %#x%s\n", op.Verb(), t.Memdev, t.DPA, PoisonWhere(t.HPA, t.Region))
}

// RangesHidden warns that a non-root /proc/iomem shows no addresses.
func RangesHidden(w io.Writer) {
	Warning(w, fmt.Errorf("/proc/iomem hides addresses from non-root users; run as root to see every range"))
}

// NoRanges is `cxlvctl ranges` with no range to show.
func NoRanges(w io.Writer) { fmt.Fprintln(w, "no reserved or borrowed range of 256M or more") }

// Destroyed is a region destroyed.
func Destroyed(w io.Writer, name string) { fmt.Fprintf(w, "destroyed %s\n", name) }

// WriteGivenBack is a borrowed range given back to the kernel.
func WriteGivenBack(w io.Writer, back *virt.GivenBack) { fmt.Fprintln(w, GivenBack(back)) }

// Removed is a device removed, and with released what its range gave
// back to the kernel.
func Removed(w io.Writer, what string, released bool, back *virt.GivenBack) {
	if released {
		fmt.Fprintf(w, "removed %s; %s\n", what, GivenBack(back))
		return
	}
	fmt.Fprintf(w, "removed %s\n", what)
}

// KeptLabels are the labels a remove kept, and the two commands that
// bring the namespaces back.
func KeptLabels(w io.Writer, k KeptJSON, recreate string) {
	fmt.Fprintf(w, "kept the labels of %s (%s, uuid %s): create the device again on the same range (%s), then `%s`\n",
		strings.Join(k.Namespaces, ", "), k.Region, k.UUID, recreate, k.Command)
}

// NoDevices is `remove --all` with nothing to remove.
func NoDevices(w io.Writer) { fmt.Fprintln(w, "remove all: no cxl_virt device") }

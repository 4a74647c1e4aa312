package poison

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/host"
	"github.com/cxlv/cxlv/sysfs"
	"github.com/cxlv/cxlv/writer"
)

// Op is a poison command: the name of its debugfs file under cxl/memN.
type Op string

// The two commands the kernel's debugfs offers (drivers/cxl/mem.c).
const (
	Inject Op = "inject_poison"
	Clear  Op = "clear_poison"
)

// Verb is the command's name in cxlvctl: "inject" or "clear".
func (op Op) Verb() string { return strings.TrimSuffix(string(op), "_poison") }

// triggerAttr is the memdev attribute that makes the kernel read the
// device's poison list into cxl_poison trace events.
const triggerAttr = "trigger_poison_list"

// Poisoner sends the poison commands of one system, every write through W.
type Poisoner struct {
	Host host.Root
	W    writer.Writer
	// DryRun prints the writes of List without reading a trace.
	DryRun bool
}

// checkKernel refuses a kernel without the poison interfaces before
// anything is written: 6.1 has neither trigger_poison_list nor the debugfs
// files. debugfs files are checked for op; "" checks the list alone.
func (p *Poisoner) checkKernel(memdev string, op Op) error {
	if !sysfs.Exists(p.Host.Sys().Path("bus", "cxl", "devices", memdev, triggerAttr)) {
		// A kernel with the poison list has the cxl_poison event; it
		// shows trigger_poison_list only for a device that offers the
		// command (QEMU 7.2's device did not).
		if dir, err := p.tracefsDir(); err == nil && sysfs.Exists(filepath.Join(dir, "events", "cxl", "cxl_poison")) {
			return cxlverr.Errorf(cxlverr.ErrNotSupported, "%s has no poison list: the device does not offer Get Poison List (no %s/%s)",
				memdev, memdev, triggerAttr)
		}
		return &cxlverr.FeatureError{Name: "poison inject, clear and list", MinKernel: cxlverr.KernelPoison,
			Attr: memdev + "/" + triggerAttr}
	}
	if op == "" {
		return nil
	}
	if !sysfs.Exists(p.Host.Debugfs("cxl")) {
		return cxlverr.Errorf(cxlverr.ErrNotSupported, "poison %s: debugfs is not mounted at %s: mount it (mount -t debugfs none %s) or pass --debugfs-root",
			op.Verb(), p.Host.Debugfs(), p.Host.Debugfs())
	}
	if f := p.Host.Debugfs("cxl", memdev, string(op)); !sysfs.Exists(f) {
		return cxlverr.Errorf(cxlverr.ErrNotSupported, "poison %s: no %s: the kernel did not enable the device's %s command (dmesg of cxl_pci's probe may say why)",
			op.Verb(), f, op.Verb())
	}
	return nil
}

// Send writes the target's DPA to memdev's op file; the kernel sends the
// command and emits a cxl_poison event of its type.
func (p *Poisoner) Send(op Op, t Target) error {
	if err := p.checkKernel(t.Memdev, op); err != nil {
		return err
	}
	err := p.W.Write(p.Host.Debugfs("cxl", t.Memdev, string(op)), fmt.Sprintf("%#x", t.DPA))
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.EPERM), errors.Is(err, syscall.EACCES):
		return cxlverr.Errorf(cxlverr.ErrPermission, "poison %s %s DPA %#x: permission denied: run as root (under kernel lockdown debugfs takes no writes)",
			op.Verb(), t.Memdev, t.DPA)
	case errors.Is(err, syscall.EINVAL):
		return cxlverr.Errorf(cxlverr.ErrInvalid, "poison %s %s DPA %#x: the kernel refused the address (%v)", op.Verb(), t.Memdev, t.DPA, err)
	}
	return fmt.Errorf("poison %s %s DPA %#x: %w", op.Verb(), t.Memdev, t.DPA, err)
}

// Check says, before anything is written, whether op can be sent to memdev.
func (p *Poisoner) Check(op Op, memdev string) error { return p.checkKernel(memdev, op) }

// Record is one entry of a device's poison list, as the kernel's
// cxl_poison List event reports it (drivers/cxl/core/trace.h).
type Record struct {
	Memdev string
	DPA    uint64
	Length uint64
	// HPA and Region are where a committed region maps the DPA; nil and
	// "" when none does.
	HPA    *uint64
	Region string
	// Source is the device's: Unknown, Internal, External, Injected or
	// Vendor (CXL r3.0 table 8-140).
	Source string
	// Flags are the list's: More, Overflow, Scanning.
	Flags []string
	// OverflowTime is the device's timestamp of the overflow, 0 without.
	OverflowTime uint64
}

// tracefsDir finds tracefs: its own mount point, or the directory debugfs
// mounts it on.
func (p *Poisoner) tracefsDir() (string, error) {
	for _, d := range []string{p.Host.Sys().Path("kernel", "tracing"), p.Host.Debugfs("tracing")} {
		if sysfs.Exists(filepath.Join(d, "trace")) {
			return d, nil
		}
	}
	return "", cxlverr.Errorf(cxlverr.ErrNotSupported, "poison list: tracefs is not mounted: mount it (mount -t tracefs nodev %s)",
		p.Host.Sys().Path("kernel", "tracing"))
}

// instanceName is the tracefs instance List reads the records in: one per
// memdev, so two lists of one memdev cannot mix their records.
func instanceName(memdev string) string { return "cxlvctl-poison-" + memdev }

// List asks the kernel for memdev's poison list and reads it back from the
// cxl_poison trace events, as `cxl list --media-errors` does: in a tracefs
// instance of its own, made for the list and removed after it, so the
// global trace buffer and event switches stay as they were.
func (p *Poisoner) List(memdev string) (records []Record, err error) {
	if err := p.checkKernel(memdev, ""); err != nil {
		return nil, err
	}
	dir, err := p.tracefsDir()
	if err != nil {
		return nil, err
	}
	dirs, ok := p.W.(writer.Dirs)
	if !ok {
		return nil, fmt.Errorf("poison list: the writer cannot make a tracefs instance")
	}
	instance := filepath.Join(dir, "instances", instanceName(memdev))
	if err := dirs.Mkdir(instance); err != nil {
		if errors.Is(err, syscall.EEXIST) {
			return nil, cxlverr.Errorf(cxlverr.ErrBusy, "poison list %s: tracefs instance %s exists: another list of %s is running, or one was killed (then rmdir it)",
				memdev, instance, memdev)
		}
		return nil, fmt.Errorf("poison list %s: %w", memdev, err)
	}
	defer func() {
		if rerr := dirs.Rmdir(instance); err == nil && rerr != nil {
			err = fmt.Errorf("poison list %s: %w", memdev, rerr)
		}
	}()
	for _, w := range []struct{ path, value string }{
		{filepath.Join(instance, "events", "cxl", "cxl_poison", "enable"), "1"},
		{p.Host.Sys().Path("bus", "cxl", "devices", memdev, triggerAttr), "1"},
	} {
		if err := p.W.Write(w.path, w.value); err != nil {
			return nil, fmt.Errorf("poison list %s: %w", memdev, err)
		}
	}
	if p.DryRun {
		return nil, nil
	}
	b, err := os.ReadFile(filepath.Join(instance, "trace"))
	if err != nil {
		return nil, fmt.Errorf("poison list %s: %w", memdev, err)
	}
	return ParseTrace(string(b), memdev)
}

// ParseTrace returns memdev's records among the cxl_poison List events of
// trace text, in order.
func ParseTrace(text, memdev string) ([]Record, error) {
	var out []Record
	for _, line := range strings.Split(text, "\n") {
		_, event, ok := strings.Cut(line, " cxl_poison: ")
		if !ok {
			continue
		}
		f := fields(event)
		if f["trace_type"] != "List" || f["memdev"] != memdev {
			continue
		}
		r, err := record(f)
		if err != nil {
			return nil, fmt.Errorf("cxl_poison event %q: %w", strings.TrimSpace(line), err)
		}
		out = append(out, r)
	}
	return out, nil
}

// fields splits an event's "key=value key=value" text.
func fields(event string) map[string]string {
	f := map[string]string{}
	for _, kv := range strings.Fields(event) {
		if k, v, ok := strings.Cut(kv, "="); ok {
			f[k] = v
		}
	}
	return f
}

// noHPA is the hpa of a record no region maps (ULLONG_MAX).
const noHPA = ^uint64(0)

func record(f map[string]string) (Record, error) {
	r := Record{Memdev: f["memdev"], Region: f["region"], Source: f["source"]}
	var err error
	if r.DPA, err = sysfs.ParseU64(f["dpa"]); err != nil {
		return r, err
	}
	if r.Length, err = sysfs.ParseU64(f["dpa_length"]); err != nil {
		return r, err
	}
	if hpa, err := sysfs.ParseU64(f["hpa"]); err == nil && hpa != noHPA && r.Region != "" {
		r.HPA = &hpa
	}
	if f["flags"] != "" {
		r.Flags = strings.Split(f["flags"], "|")
	}
	if r.OverflowTime, err = strconv.ParseUint(f["overflow_time"], 10, 64); err != nil {
		return r, fmt.Errorf("overflow_time: %w", err)
	}
	return r, nil
}

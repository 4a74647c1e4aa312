// Package events injects event records into the event logs of cxl_virt
// devices through the module's debugfs cxl/cxlv/inject_event
// (kmod/ctl/cxlv_ctl.c): General Media, DRAM and Memory Module records (CXL
// r3.0 8.2.9.2.1.1-3) in one of the four logs. The device raises its MSI,
// and the kernel's cxl_pci (Linux 6.3+) reads the records into the
// cxl_general_media, cxl_dram and cxl_memory_module trace events and clears
// them. Everything is checked before anything is written.
package events

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"syscall"

	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/host"
	"github.com/cxlv/cxlv/sysfs"
	"github.com/cxlv/cxlv/virt"
	"github.com/cxlv/cxlv/writer"
)

// Type is the kind of record injected.
type Type int

// The record types, in the module's record= numbering.
const (
	GeneralMedia Type = iota
	DRAM
	MemoryModule
)

// TypeNames are the --type values, in Type order.
var TypeNames = []string{"general-media", "dram", "memory-module"}

func (t Type) String() string { return TypeNames[t] }

// ParseType reads a --type value.
func ParseType(s string) (Type, error) {
	i, err := parseName("type", s, TypeNames)
	return Type(i), err
}

// parseName finds s among a flag's names.
func parseName(flag, s string, names []string) (int, error) {
	i := slices.Index(names, s)
	if i < 0 {
		return 0, cxlverr.Invalidf("--%s %q: use one of %s", flag, s, strings.Join(names, ", "))
	}
	return i, nil
}

// Log is the event log a record goes to, which is also its severity.
type Log int

// The logs, in the module's log= numbering (CXL r3.0 Table 8-49).
const (
	Info Log = iota
	Warn
	Fail
	Fatal
)

// LogNames are the --log values, in Log order.
var LogNames = []string{"info", "warn", "fail", "fatal"}

func (l Log) String() string { return LogNames[l] }

// ParseLog reads a --log value.
func ParseLog(s string) (Log, error) {
	i, err := parseName("log", s, LogNames)
	return Log(i), err
}

// Request is one record to inject. DPA is a General Media or DRAM event's
// address (0 when nil); a Memory Module event has none.
type Request struct {
	Type Type
	Log  Log
	DPA  *uint64
}

// Check refuses what the request alone gets wrong.
func (r Request) Check() error {
	if r.DPA == nil {
		return nil
	}
	if r.Type == MemoryModule {
		return cxlverr.Invalidf("--dpa: a %s event has no address; leave --dpa out", r.Type)
	}
	// The record's Physical Address holds flags in bits 5:0 (CXL r3.0
	// Table 8-43): a line, as poison's.
	if *r.DPA%virt.LineSize != 0 {
		return cxlverr.Invalidf("--dpa %#x is not 64-byte aligned: an event's address is a 64-byte line; use %#x",
			*r.DPA, *r.DPA&^(virt.LineSize-1))
	}
	return nil
}

// Target is the endpoint a record goes to.
type Target struct {
	Device string // cxlvN
	ID     int    // N of cxlvN
	Pos    int    // the endpoint's position in the set
	Memdev string // memN
	Host   string // the memdev's PCI function
}

// Injector injects records on one system, every write through W.
type Injector struct {
	Host host.Root
	W    writer.Writer
}

// Resolve finds the endpoint of a DEVICE argument (cxlvN of one endpoint,
// or memN) and checks the request's DPA against its capacity.
func (in *Injector) Resolve(name string, r Request) (Target, error) {
	dev, err := virt.ResolveMemdevs(in.Host.Sys(), name)
	if err != nil {
		return Target{}, err
	}
	memdevs := dev.Memdevs()
	if len(memdevs) > 1 {
		return Target{}, cxlverr.Invalidf("%s is an interleave set of %d memdevs (%s): an event is one endpoint's; name its memdev instead",
			dev.Virt.Name, len(memdevs), strings.Join(memdevs, " "))
	}
	m, err := in.Host.Sys().Memdev(memdevs[0])
	if err != nil {
		return Target{}, err
	}
	if capacity := m.RAMSize + m.PmemSize; r.DPA != nil && *r.DPA >= capacity {
		return Target{}, cxlverr.Invalidf("--dpa %#x is outside %s: its DPAs are 0 to %#x", *r.DPA, m.Name, capacity-1)
	}
	return Target{Device: dev.Virt.Name, ID: dev.Virt.ID, Pos: slices.Index(dev.Virt.Memdevs, m.Name),
		Memdev: m.Name, Host: m.Host}, nil
}

// MinKernel is the first kernel whose cxl_pci reads event records (its
// event interrupt: cxl_event_config()).
const MinKernel = cxlverr.KernelEvents

// Check refuses, before anything is written, a cxl_virt without
// inject_event, then a kernel whose cxl_pci does not take the endpoint's MSI
// (6.1 reads no event logs, so it allocates no vector: no msi_irqs).
func (in *Injector) Check(t Target) error {
	if f := virt.DebugfsFile(in.Host, virt.EventFile); !sysfs.Exists(f) {
		return cxlverr.Errorf(cxlverr.ErrNotSupported, "event inject: no %s: mount debugfs (mount -t debugfs none %s) or load a cxl_virt with event injection (`cxlvctl version` names it)",
			f, in.Host.Debugfs())
	}
	if !sysfs.Exists(in.Host.Sys().Path("bus", "pci", "devices", t.Host, "msi_irqs")) {
		return &cxlverr.FeatureError{Name: "event logs read by cxl_pci", MinKernel: MinKernel,
			Attr: t.Host + "/msi_irqs"}
	}
	return nil
}

// request is the text inject_event takes (kmod/common/cxlv_parse.h).
func request(t Target, r Request) string {
	s := fmt.Sprintf("cxlv_dev_id=%d,pos=%d,record=%d,log=%d", t.ID, t.Pos, r.Type, r.Log)
	if r.DPA != nil {
		s += fmt.Sprintf(",dpa=%#x", *r.DPA)
	}
	return s
}

// Inject writes one record to t's log; the module says why it refuses one.
func (in *Injector) Inject(t Target, r Request) error {
	if err := r.Check(); err != nil {
		return err
	}
	if err := in.Check(t); err != nil {
		return err
	}
	err := in.W.Write(virt.DebugfsFile(in.Host, virt.EventFile), request(t, r))
	if err == nil {
		return nil
	}
	what := fmt.Sprintf("event inject %s %s", t.Memdev, r.Type)
	if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES) {
		return cxlverr.Errorf(cxlverr.ErrPermission, "%s: permission denied: run as root", what)
	}
	reason := virt.LastError(in.Host, virt.EventFile)
	if reason == "" {
		reason = err.Error()
	}
	kind := cxlverr.ErrInvalid
	if errors.Is(err, syscall.ENODEV) {
		kind = cxlverr.ErrNotFound
	}
	return cxlverr.Errorf(kind, "%s: refused by cxl_virt: %s", what, reason)
}

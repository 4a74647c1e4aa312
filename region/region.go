// Package region creates and destroys CXL pmem regions and the nvdimm
// namespaces on them, and RAM regions with the memory they become (ram.go),
// natively through sysfs: the same write sequences libcxl and libndctl
// use, with no external tools.
//
// Every kernel write goes through a writer.Writer, so a test can record the
// exact sequence and inject a failure at any step, and --dry-run can print
// it. Each write that changes state has an undo; when a step fails, the undos
// run newest first, so the kernel is left as it was found — including the
// endpoint decoder DPA allocations that ndctl leaves behind. The probes the
// kernel runs after a region is bound (cxl_region, cxl_pmem_region,
// nd_region, nd_pmem, dax_pmem; dax_cxl, kmem) are asynchronous; the
// package waits for them with a bounded timeout and reports progress.
package region

import (
	"crypto/rand"
	"fmt"
	"strings"
	"time"

	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/host"
	"github.com/cxlv/cxlv/writer"
)

// DefaultTimeout bounds each wait for the kernel (an asynchronous probe) or
// a command (mkfs, mount); cxlvctl's --timeout defaults to it.
const DefaultTimeout = 30 * time.Second

// regionAlign is the HPA and DPA granularity of CXL regions (6.1
// alloc_hpa and dpa_size_store both want multiples of 256 MiB).
const regionAlign = 256 << 20

// Manager creates and destroys regions and namespaces on one system.
type Manager struct {
	Host host.Root
	W    writer.Writer
	// Simulate is set when W does not change the kernel (a dry run, or a
	// recorder over a captured tree): waits are skipped and the names of
	// objects the kernel would create are predicted.
	Simulate bool
	// Timeout bounds each wait and command; DefaultTimeout when zero.
	Timeout time.Duration
	// Progress, when set, is told about each wait.
	Progress func(Event)
	// Tools formats and mounts filesystems; Exec when nil.
	Tools Tools
	// NewUUID makes the uuids of new regions, namespaces and claims; a
	// random version 4 UUID when nil (tests make them predictable).
	NewUUID func() string
}

func (m *Manager) uuid() string {
	if m.NewUUID != nil {
		return m.NewUUID()
	}
	return newUUID()
}

func (m *Manager) tools() Tools {
	if m.Tools != nil {
		return m.Tools
	}
	return Exec{Timeout: m.timeout()}
}

// cxlDev is the path of an attribute of a device on the CXL bus.
func (m *Manager) cxlDev(name, attr string) string {
	return m.Host.Sys().Path("bus", "cxl", "devices", name, attr)
}

// ndDev is the path of an attribute of a device on the nvdimm bus.
func (m *Manager) ndDev(name, attr string) string {
	return m.Host.Sys().Path("bus", "nd", "devices", name, attr)
}

// driverFile is bind or unbind of a driver.
func (m *Manager) driverFile(bus, driver, file string) string {
	return m.Host.Sys().Path("bus", bus, "drivers", driver, file)
}

// newUUID makes a random (version 4) UUID in canonical form.
func newUUID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// ParseUUID checks a UUID given by a user and returns it in the canonical
// lower-case form the kernel prints. The region uuid store takes exactly
// 36 characters plus a newline, and rejects the nil UUID.
func ParseUUID(s string) (string, error) {
	u := strings.ToLower(strings.TrimSpace(s))
	bad := len(u) != 36
	for i, c := range u {
		switch i {
		case 8, 13, 18, 23:
			bad = bad || c != '-'
		default:
			bad = bad || !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')
		}
	}
	if bad {
		return "", cxlverr.Invalidf("invalid uuid %q: want 8-4-4-4-12 hex digits, e.g. %s", s, newUUID())
	}
	if strings.Trim(u, "0-") == "" {
		return "", cxlverr.Invalidf("invalid uuid %q: the nil uuid cannot name a region", s)
	}
	return u, nil
}

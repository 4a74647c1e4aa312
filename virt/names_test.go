package virt

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/internal/hostfixture"
)

// nameCase is a name given on a captured boot, and what it means: the
// device and memdevs, or the kind of error and what it says.
type nameCase struct {
	scenario, name  string
	device, memdevs string
	kind            error
	says            string
}

// Every name form on captured boots: cxlvN and memN of one device and of
// an x4 set (its memdevs as the module lists them: mem1 mem2 mem0 mem3), a
// QEMU memdev without cxl_virt, and the names that mean nothing.
func TestResolve(t *testing.T) {
	for _, tc := range []nameCase{
		{scenario: "cxlv-bare", name: "cxlv0", device: "cxlv0", memdevs: "mem0"},
		{scenario: "cxlv-bare", name: "mem0", device: "cxlv0", memdevs: "mem0"},
		{scenario: "cxlv-set-2x2", name: "cxlv0", device: "cxlv0", memdevs: "mem1 mem2 mem0 mem3"},
		{scenario: "cxlv-set-2x2", name: "mem0", device: "cxlv0", memdevs: "mem0"},
		{scenario: "cxlv-set-2x2", name: "mem3", device: "cxlv0", memdevs: "mem3"},
		{scenario: "cxlv-bare", name: "cxlv3", kind: cxlverr.ErrNotFound, says: "cxl_virt device cxlv3 not found"},
		{scenario: "cxlv-bare", name: "mem7", kind: cxlverr.ErrNotFound, says: "memdev mem7 not found: no cxl_virt device has it"},
		{scenario: "qemu-bare", name: "mem0", kind: cxlverr.ErrInvalid, says: `invalid device name "mem0": no cxl_virt device has memdev mem0`},
		{scenario: "qemu-bare", name: "cxlv0", kind: cxlverr.ErrNotSupported, says: "cxl_virt"},
		{scenario: "cxlv-bare", name: "0", kind: cxlverr.ErrInvalid, says: `invalid device name "0": use cxlvN`},
		{scenario: "cxlv-bare", name: "cxlv00", kind: cxlverr.ErrInvalid, says: `invalid device name "cxlv00"`},
		{scenario: "cxlv-bare", name: "memory0", kind: cxlverr.ErrInvalid, says: `invalid device name "memory0"`},
		{scenario: "cxlv-bare", name: "mem", kind: cxlverr.ErrInvalid, says: `invalid device name "mem"`},
		{scenario: "cxlv-bare", name: "pmem0", kind: cxlverr.ErrInvalid, says: `invalid device name "pmem0"`},
	} {
		d, err := Resolve(hostfixture.Root(t, tc.scenario).Sys(), tc.name)
		if tc.kind != nil {
			if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("%s: Resolve(%s) = %v; want %v saying %q", tc.scenario, tc.name, err, tc.kind, tc.says)
			}
			continue
		}
		if err != nil || d.Virt.Name != tc.device || strings.Join(d.Memdevs(), " ") != tc.memdevs {
			t.Errorf("%s: Resolve(%s) = %s %v, %v; want %s %s", tc.scenario, tc.name, d.Virt.Name, d.Memdevs(), err, tc.device, tc.memdevs)
		}
		if named := d.Memdev != ""; named != strings.HasPrefix(tc.name, "mem") {
			t.Errorf("%s: Resolve(%s).Memdev = %q", tc.scenario, tc.name, d.Memdev)
		}
	}
}

// A memdev names the set it is one endpoint of, or nothing.
func TestOfMemdev(t *testing.T) {
	sys := hostfixture.Root(t, "cxlv-set-2x2").Sys()
	for _, m := range []string{"mem0", "mem1", "mem2", "mem3"} {
		if d, err := OfMemdev(sys, m); err != nil || d == nil || d.Name != "cxlv0" || !d.Set() {
			t.Errorf("OfMemdev(%s) = %+v, %v; want the set cxlv0", m, d, err)
		}
	}
	if d, err := OfMemdev(sys, "mem4"); d != nil || err != nil {
		t.Errorf("OfMemdev(mem4) = %+v, %v; want none", d, err)
	}
	// Without cxl_virt no memdev is one of its.
	if d, err := OfMemdev(hostfixture.Root(t, "qemu-bare").Sys(), "mem0"); d != nil || err != nil {
		t.Errorf("OfMemdev(mem0) without cxl_virt = %+v, %v; want none", d, err)
	}
}

// A set is one link, its members in the module's position order.
func TestLinkOf(t *testing.T) {
	topo, err := hostfixture.Root(t, "cxlv-set-2x2").Sys().Topology()
	if err != nil {
		t.Fatal(err)
	}
	l, err := LinkOf(topo, "cxlv0")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range l.Endpoints() {
		names = append(names, m.Memdev.Name)
	}
	if !slices.Equal(names, l.Virt.Memdevs) || len(names) != 4 {
		t.Errorf("LinkOf(cxlv0) endpoints %v; want the module's %v", names, l.Virt.Memdevs)
	}
	var nf *cxlverr.NotFoundError
	if _, err := LinkOf(topo, "cxlv1"); !errors.As(err, &nf) || nf.Name != "cxlv1" {
		t.Errorf("LinkOf(cxlv1) = %v; want cxl_virt device cxlv1 not found", err)
	}
}

// remove's words for a device that is not there, and only for that.
func TestControlResolve(t *testing.T) {
	c := &Control{Host: hostfixture.Root(t, "cxlv-bare")}
	if _, err := c.Resolve("cxlv5"); !errors.Is(err, cxlverr.ErrNotFound) || err.Error() != "remove: no device cxlv5: see `cxlvctl list`" {
		t.Errorf("Resolve(cxlv5) = %v", err)
	}
	if _, err := c.Resolve("mem7"); err == nil || !strings.HasPrefix(err.Error(), "memdev mem7 not found") {
		t.Errorf("Resolve(mem7) = %v", err)
	}
}

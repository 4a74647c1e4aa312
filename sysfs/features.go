package sysfs

import (
	"path/filepath"

	"github.com/cxlv/cxlv/cxlverr"
)

// Feature is a kernel capability cxlvctl cares about, detected from the
// presence of the attribute that provides it on an object that exists.
type Feature struct {
	Name      string
	MinKernel string // first release with it
	Present   bool
}

// featureProbes: which attribute, below which kind of object, shows a feature.
var featureProbes = []struct {
	name, minKernel string
	object          string // "root-decoder" or "port"
	attr            string
	// capability a root decoder must have for the attribute to show
	// (6.12 hides create_ram_region on a decoder that is not cap_ram).
	capability string
}{
	{"pmem regions (create_pmem_region)", cxlverr.KernelPmemRegions, "root-decoder", "create_pmem_region", "cap_pmem"},
	{"ram regions (create_ram_region)", cxlverr.KernelRAMRegions, "root-decoder", "create_ram_region", "cap_ram"},
	{"decoder qos_class", cxlverr.KernelQosClass, "root-decoder", "qos_class", ""},
	{"port parent_dport", cxlverr.KernelParentDport, "port", "parent_dport", ""},
	{"port decoders_committed", cxlverr.KernelDecodersCommitted, "port", "decoders_committed", ""},
}

// Features reports the features that can be decided on this system: those
// whose probe object exists (a root decoder, a non-root port).
func (t *Topology) Features() []Feature {
	var out []Feature
	for _, p := range featureProbes {
		dir := ""
		switch p.object {
		case "root-decoder":
			for _, d := range t.Decoders {
				if d.Kind == RootDecoder && (p.capability == "" || (&attrs{dir: d.Path}).flag(p.capability)) {
					dir = d.Path
					break
				}
			}
		case "port":
			for _, port := range t.Ports {
				if port.Kind != RootPort {
					dir = port.Path
					break
				}
			}
		}
		if dir != "" {
			out = append(out, Feature{Name: p.name, MinKernel: p.minKernel, Present: Exists(filepath.Join(dir, p.attr))})
		}
	}
	return out
}

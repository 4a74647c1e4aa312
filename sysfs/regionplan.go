package sysfs

import (
	"strings"

	"github.com/cxlv/cxlv/cxlverr"
)

// Readers the region package plans a region with: which decoders a memdev
// can use and what name the next region of a root decoder gets.

// EndpointDecodersOf lists the decoders of the memdev's endpoint port,
// ordered by id (the order the kernel allocates DPA in).
func (f FS) EndpointDecodersOf(memdev string) ([]Decoder, error) {
	ports, err := f.Ports()
	if err != nil {
		return nil, err
	}
	ep := endpointOf(ports, memdev)
	if ep == nil {
		return nil, &cxlverr.NotFoundError{Kind: "endpoint port of memdev", Name: memdev}
	}
	return f.decodersOf(ep.Name)
}

// RootDecodersOf lists the decoders of the CXL root the memdev sits below.
func (f FS) RootDecodersOf(memdev string) ([]Decoder, error) {
	ports, err := f.Ports()
	if err != nil {
		return nil, err
	}
	root := rootOf(ports, endpointOf(ports, memdev))
	if root == nil {
		return nil, &cxlverr.NotFoundError{Kind: "CXL root of memdev", Name: memdev}
	}
	return f.decodersOf(root.Name)
}

// decodersOf lists the decoders of one port, ordered by id.
func (f FS) decodersOf(port string) ([]Decoder, error) {
	all, err := f.Decoders()
	if err != nil {
		return nil, err
	}
	var out []Decoder
	for _, d := range all {
		if d.Port == port {
			out = append(out, d)
		}
	}
	return out, nil
}

// NextRegionName is the name create_pmem_region (mode "pmem") or
// create_ram_region ("ram") of a root decoder offers for its next region
// ("region3").
func (f FS) NextRegionName(d Decoder, mode string) (string, error) {
	a := attrs{dir: d.Path}
	attr := "create_" + mode + "_region"
	name, ok := a.raw(attr)
	if a.err != nil {
		return "", a.err
	}
	if !ok {
		minKernel, what := cxlverr.KernelPmemRegions, "pmem regions"
		if mode == "ram" {
			minKernel, what = cxlverr.KernelRAMRegions, "RAM regions"
		}
		return "", &cxlverr.FeatureError{Name: what + " on " + d.Name, MinKernel: minKernel, Attr: attr}
	}
	return name, nil
}

// Namespace returns the nvdimm namespace called name ("namespace0.0").
func (f FS) Namespace(name string) (Namespace, error) {
	rest, ok := strings.CutPrefix(name, "namespace")
	id, _, dot := strings.Cut(rest, ".")
	if !ok || !dot {
		return Namespace{}, &cxlverr.NotFoundError{Kind: "namespace", Name: name}
	}
	r, err := f.NDRegion("region" + id)
	if err != nil {
		return Namespace{}, &cxlverr.NotFoundError{Kind: "namespace", Name: name}
	}
	for _, ns := range r.Namespaces {
		if ns.Name == name {
			return ns, nil
		}
	}
	return Namespace{}, &cxlverr.NotFoundError{Kind: "namespace", Name: name}
}

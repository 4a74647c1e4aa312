package region

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/sysfs"
	"github.com/cxlv/cxlv/units"
	"github.com/cxlv/cxlv/virt"
	"github.com/cxlv/cxlv/writer"
)

// Region types: the partition of the memdev a region maps.
const (
	TypePmem = "pmem"
	TypeRAM  = "ram"
)

// Spec says what Create makes.
type Spec struct {
	Memdev string // memN
	// Members are the memdevs of an interleave set in position order
	// (Memdev is the first): the region interleaves across all of them.
	// Nil for a region on Memdev alone.
	Members []string
	// Type is TypePmem ("" too) or TypeRAM.
	Type string
	// Online is what the memory of a RAM region becomes; OnlineMovable
	// when "".
	Online OnlinePolicy
	// Size of the region in bytes, a multiple of 256 MiB; 0 takes all the
	// memdev's free capacity of the region's type.
	Size uint64
	// UUID re-creates a region with a known uuid; "" makes a new one. The
	// namespaces whose labels the memdev keeps come back with the region.
	UUID string
	// Namespace is the mode of the namespace to create; ModeNone (or "")
	// for none. Not created when namespaces came back from their labels.
	Namespace Mode
	// Filesystem ("xfs", "ext4") is made on an fsdax namespace and mounted
	// with -o dax on MountDir.
	Filesystem string
	MountDir   string
}

// Result is what Create made.
type Result struct {
	Region          string
	UUID            string // pmem only
	Size            uint64
	Memdev          string
	RootDecoder     string
	EndpointDecoder string
	// An interleaved region: every memdev and endpoint decoder in
	// position order (Memdev and EndpointDecoder are position 0's).
	Memdevs          []string
	EndpointDecoders []string
	Ways             uint64
	Granularity      uint64
	Type             string
	NDRegion         string
	// RAM regions: the memory they became.
	*RAMResult
	// Namespaces are the namespaces created, or re-assembled from labels.
	Namespaces []NamespaceResult
	Filesystem string
	MountDir   string
	// Timings of the phases, as measured here.
	RegionTime    time.Duration
	NamespaceTime time.Duration
	TotalTime     time.Duration
}

// plan is a region create worked out from the current sysfs state.
type plan struct {
	mode   string // TypePmem or TypeRAM
	region string
	root   sysfs.Decoder
	// endpoints are the endpoint decoders in position order, one per
	// memdev: the region's interleave ways.
	endpoints []sysfs.Decoder
	size      uint64
	uuid      string // pmem only
	online    OnlinePolicy
	// kmem: the memory of a pmem region becomes RAM through a devdax
	// namespace and kmem (kmem.go), on kernels without RAM regions.
	kmem bool
}

// Create makes a pmem region on one memdev and, as asked, a namespace on it,
// a filesystem and a mount; or a RAM region whose memory comes online as
// asked (ram.go). On any failure everything it did is undone.
func (m *Manager) Create(ctx context.Context, s Spec) (res *Result, err error) {
	start := time.Now()
	if err := s.validate(); err != nil {
		return nil, err
	}
	p, err := m.plan(s)
	if err != nil {
		return nil, err
	}
	t := &tx{ctx: ctx, w: m.W, host: m.Host}
	defer t.finish("region create", &err)

	res = &Result{
		Region: p.region, UUID: p.uuid, Size: p.size, Memdev: s.Memdev,
		RootDecoder: p.root.Name, EndpointDecoder: p.endpoints[0].Name, Type: p.mode,
		Ways: p.ways(), Granularity: p.root.InterleaveGranularity,
	}
	if len(s.Members) > 1 {
		res.Memdevs = s.Members
		for _, ep := range p.endpoints {
			res.EndpointDecoders = append(res.EndpointDecoders, ep.Name)
		}
	}
	if p.mode == TypeRAM {
		if res.RAMResult, err = m.createRAM(ctx, t, p); err != nil {
			return nil, err
		}
		res.RegionTime = time.Since(start)
		res.TotalTime = res.RegionTime
		return res, nil
	}
	nd, err := m.createRegion(ctx, t, p)
	if err != nil {
		return nil, err
	}
	res.NDRegion, res.RegionTime = nd.Name, time.Since(start)
	if p.kmem {
		if err := m.createKmem(ctx, t, p, nd, res); err != nil {
			return nil, err
		}
		res.TotalTime = time.Since(start)
		return res, nil
	}
	for _, ns := range nd.Namespaces {
		if !ns.Idle() {
			res.Namespaces = append(res.Namespaces, namespaceResult(ns, true))
		}
	}
	if len(res.Namespaces) == 0 && s.Namespace != ModeNone && s.Namespace != "" {
		nsStart := time.Now()
		ns, err := m.createNamespace(ctx, t, NamespaceSpec{Region: nd.Name, Mode: s.Namespace}, nd)
		if err != nil {
			return nil, err
		}
		res.Namespaces = append(res.Namespaces, ns)
		res.NamespaceTime = time.Since(nsStart)
	}
	if s.Filesystem != "" {
		if err := m.makeFilesystem(ctx, t, res, s); err != nil {
			return nil, err
		}
	}
	res.TotalTime = time.Since(start)
	return res, nil
}

func (s Spec) validate() error {
	if s.Memdev == "" {
		return cxlverr.Invalidf("no memdev given: name one with --memdev memN or --device cxlvN")
	}
	if step := regionAlign * uint64(max(len(s.Members), 1)); s.Size%step != 0 {
		return cxlverr.Invalidf("region size %s is not a multiple of %s: CXL regions come in 256M steps per interleave way (e.g. --size %s)",
			units.FormatSize(s.Size), units.FormatSize(step), units.FormatSize(max(step, s.Size/step*step)))
	}
	switch s.Type {
	case TypeRAM:
		return s.validateRAM()
	case "", TypePmem:
	default:
		return cxlverr.Invalidf("unknown region type %q: use pmem or ram", s.Type)
	}
	if s.Online != "" {
		return cxlverr.Invalidf("--online is for RAM regions: add --type ram, or drop --online")
	}
	if s.Namespace != "" {
		if _, err := ParseMode(string(s.Namespace)); err != nil {
			return err
		}
	}
	switch s.Filesystem {
	case "":
		if s.MountDir != "" {
			return cxlverr.Invalidf("--mount needs --fs xfs|ext4")
		}
		return nil
	case "xfs", "ext4":
	default:
		return cxlverr.Invalidf("unknown filesystem %q: use xfs or ext4", s.Filesystem)
	}
	if s.Namespace != ModeFsdax {
		return cxlverr.Invalidf("a DAX filesystem needs an fsdax namespace: add --namespace fsdax")
	}
	if s.MountDir == "" {
		return cxlverr.Invalidf("--fs %s needs --mount DIR", s.Filesystem)
	}
	return checkMountDir(s.MountDir)
}

// plan picks the decoders, the size and the uuid of a new region.
func (m *Manager) plan(s Spec) (plan, error) {
	md, err := m.Host.Sys().Memdev(s.Memdev)
	if err != nil {
		return plan{}, err
	}
	// Refused before anything is written: the kernel's refusal is a WARN.
	if err := virt.CommitsRefused(m.Host.Sys(), md.Name); err != nil {
		return plan{}, err
	}
	if s.Type == TypeRAM {
		return m.planRAM(s, md)
	}
	return m.planPmem(s, md)
}

// planPmem picks the decoders, the size and the uuid of a pmem region.
func (m *Manager) planPmem(s Spec, md sysfs.Memdev) (plan, error) {
	if md.PmemSize == 0 {
		return plan{}, cxlverr.Invalidf("%s has no persistent capacity: create the device with --pmem (pmem=1), or make a RAM region (--type ram, Linux %s+)", md.Name, cxlverr.KernelRAMRegions)
	}
	if md.LabelStorageSize == 0 {
		return plan{}, fmt.Errorf("%s has no label storage area: libnvdimm cannot host namespaces on it", md.Name)
	}
	p := plan{mode: TypePmem, uuid: s.UUID}
	var err error
	if p.uuid == "" {
		p.uuid = m.uuid()
	} else if p.uuid, err = ParseUUID(s.UUID); err != nil {
		return plan{}, err
	}
	if p.endpoints, p.size, err = m.pickEndpoints(s, md, TypePmem); err != nil {
		return plan{}, err
	}
	if p.size, err = sizeWithin(s, md.Name, p.size); err != nil {
		return plan{}, err
	}
	if p.root, err = m.pickRoot(md.Name); err != nil {
		return plan{}, err
	}
	if p.region, err = m.Host.Sys().NextRegionName(p.root, TypePmem); err != nil {
		return plan{}, err
	}
	return p, nil
}

// sizeWithin is the size of the region s asks for: all of avail (the free
// capacity the endpoints leave) when it names none, refused when it asks
// for more, which the kernel would refuse at the region's size (ENOSPC).
func sizeWithin(s Spec, memdev string, avail uint64) (uint64, error) {
	switch {
	case s.Size == 0:
		return avail, nil
	case s.Size > avail:
		on := memdev
		if len(s.Members) > 1 {
			on = fmt.Sprintf("the %d memdevs of %s", len(s.Members), strings.Join(s.Members, ","))
		}
		return 0, cxlverr.Invalidf("region size %s is more than the %s free on %s: give --size %s or less, or leave --size out",
			units.FormatSize(s.Size), units.FormatSize(avail), on, units.FormatSize(avail))
	}
	return s.Size, nil
}

// pickEndpoints returns the lowest free endpoint decoder of each memdev of
// the region, md (the first) and the other Members, in position order, and
// the size of the largest region they leave room for: each way offers the
// same DPA.
func (m *Manager) pickEndpoints(s Spec, md sysfs.Memdev, mode string) ([]sysfs.Decoder, uint64, error) {
	ep, avail, err := m.pickEndpoint(md, mode)
	if err != nil || len(s.Members) < 2 {
		return []sysfs.Decoder{ep}, avail, err
	}
	eps := []sysfs.Decoder{ep}
	for _, name := range s.Members[1:] {
		other, err := m.Host.Sys().Memdev(name)
		if err != nil {
			return nil, 0, err
		}
		ep, a, err := m.pickEndpoint(other, mode)
		if err != nil {
			return nil, 0, err
		}
		eps, avail = append(eps, ep), min(avail, a)
	}
	return eps, avail * uint64(len(eps)), nil
}

// pickEndpoint returns the memdev's lowest free endpoint decoder (the kernel
// allocates DPA in decoder order) and the capacity of the mode (pmem, ram)
// still free.
func (m *Manager) pickEndpoint(md sysfs.Memdev, mode string) (sysfs.Decoder, uint64, error) {
	decoders, err := m.Host.Sys().EndpointDecodersOf(md.Name)
	if err != nil {
		return sysfs.Decoder{}, 0, err
	}
	used := uint64(0)
	var free, orphan *sysfs.Decoder
	for i, d := range decoders {
		switch {
		case d.DPASize != 0 && d.Region == "":
			orphan = &decoders[i]
			fallthrough
		case d.DPASize != 0:
			if d.Mode == mode {
				used += d.DPASize
			}
		case free == nil && d.Region == "":
			free = &decoders[i]
		}
	}
	if free == nil && orphan != nil {
		return sysfs.Decoder{}, 0, cxlverr.Errorf(cxlverr.ErrBusy, "%s has no free endpoint decoder: %s holds DPA but no region (left by a failed `cxl create-region`?); free it with: echo 0 > %s",
			md.Name, orphan.Name, m.cxlDev(orphan.Name, "dpa_size"))
	}
	if free == nil {
		return sysfs.Decoder{}, 0, cxlverr.Errorf(cxlverr.ErrBusy, "%s has no free endpoint decoder: destroy one of its regions first", md.Name)
	}
	capacity := md.PmemSize
	if mode == TypeRAM {
		capacity = md.RAMSize
	}
	avail := uint64(0)
	if capacity > used {
		avail = (capacity - used) / regionAlign * regionAlign
	}
	if avail == 0 {
		return sysfs.Decoder{}, 0, fmt.Errorf("%s has no free %s capacity: destroy one of its regions first", md.Name, mode)
	}
	return *free, avail, nil
}

// pickRoot returns the first root decoder above the memdev that can hold a
// pmem region.
func (m *Manager) pickRoot(memdev string) (sysfs.Decoder, error) {
	roots, err := m.Host.Sys().RootDecodersOf(memdev)
	if err != nil {
		return sysfs.Decoder{}, err
	}
	for _, d := range roots {
		if d.CanCreatePmemRegion && d.CapPmem {
			return d, nil
		}
	}
	return sysfs.Decoder{}, &cxlverr.FeatureError{Name: "a pmem-capable root decoder above " + memdev, MinKernel: cxlverr.KernelPmemRegions}
}

// regionSteps is the libcxl sequence (ndctl cxl/region.c create_region)
// for a region of p.mode over p.endpoints, up to the commit; the bind is
// the caller's, since what undoes it depends on the type.
func (m *Manager) regionSteps(p plan) []step {
	r, root := p.region, p.root.Name
	steps := []step{
		{m.cxlDev(root, "create_"+p.mode+"_region"), r, ops(m.cxlDev(root, "delete_region"), r)},
		{m.cxlDev(r, "interleave_granularity"), strconv.FormatUint(p.root.InterleaveGranularity, 10), nil},
		{m.cxlDev(r, "interleave_ways"), strconv.FormatUint(p.ways(), 10), nil},
	}
	if p.mode == TypePmem { // a ram region has no uuid
		steps = append(steps, step{m.cxlDev(r, "uuid"), p.uuid, nil})
	}
	steps = append(steps, step{m.cxlDev(r, "size"), hex(p.size), nil})
	for i, e := range p.endpoints {
		ep := e.Name
		// The mode of a decoder cannot go back to "none"; a decoder of the
		// other mode is put back to it.
		if e.Mode != p.mode {
			var back []writer.Op
			if e.Mode == TypePmem || e.Mode == TypeRAM {
				back = ops(m.cxlDev(ep, "mode"), e.Mode)
			}
			steps = append(steps, step{m.cxlDev(ep, "mode"), p.mode, back})
		}
		target := "target" + strconv.Itoa(i)
		steps = append(steps,
			step{m.cxlDev(ep, "dpa_size"), hex(p.size / p.ways()), ops(m.cxlDev(ep, "dpa_size"), "0")},
			step{m.cxlDev(r, target), ep, ops(m.cxlDev(r, target), "")})
	}
	return append(steps, step{m.cxlDev(r, "commit"), "1", ops(m.cxlDev(r, "commit"), "0")})
}

// ways is the region's interleave ways: one per endpoint decoder.
func (p plan) ways() uint64 { return uint64(len(p.endpoints)) }

// createRegion makes a pmem region, binds it and waits for its nd region.
func (m *Manager) createRegion(ctx context.Context, t *tx, p plan) (sysfs.NDRegion, error) {
	r := p.region
	steps := append(m.regionSteps(p),
		step{m.driverFile("cxl", "cxl_region", "bind"), r, ops(m.driverFile("cxl", "cxl_region", "unbind"), r)})
	if err := t.run(steps); err != nil {
		return sysfs.NDRegion{}, err
	}
	// Unbinding the region while libnvdimm still has its nd region queued
	// for adding oopses the kernel (nd_device_unregister runs kill_device
	// on a device not added yet: seen on 6.1 after a SIGINT right after
	// the bind), so an undo first lets the queue drain.
	t.push("wait for the nvdimm buses' queued probes", m.Host.Sys().WaitNDProbes)
	if m.Simulate {
		return predictedNDRegion(r, p.size), nil
	}
	return m.waitNDRegion(ctx, r)
}

// waitNDRegion waits until the CXL region's nd region (same id) is probed,
// with its namespaces — created from labels, or the idle seed — in place.
func (m *Manager) waitNDRegion(ctx context.Context, region string) (sysfs.NDRegion, error) {
	var nd sysfs.NDRegion
	err := m.waitFor(ctx, "nd "+region+" (cxl_region, cxl_pmem_region, nd_region probes)", func() (string, error) {
		var err error
		if nd, err = m.Host.Sys().NDRegion(region); err != nil {
			return err.Error(), nil
		}
		if nd.Driver == "" || nd.NamespaceSeed == "" {
			return "nd " + region + " not bound to nd_region yet", nil
		}
		// Bound is not enough: its labelled namespaces are still being added.
		if err := nd.WaitProbe(); err != nil {
			return err.Error(), nil
		}
		if nd, err = m.Host.Sys().NDRegion(region); err != nil {
			return err.Error(), nil
		}
		return unsettledNamespace(nd), nil
	})
	return nd, err
}

// unsettledNamespace names a labelled namespace not probed yet, "" when
// each is bound to nd_pmem itself (raw) or claimed by a bound pfn/dax/btt
// device.
func unsettledNamespace(nd sysfs.NDRegion) string {
	for _, ns := range nd.Namespaces {
		switch {
		case ns.Idle():
		case ns.Claim != nil && (ns.Claim.Driver == "" || ns.Claim.Kind == sysfs.ClaimDax && ns.CharDev == ""):
			return ns.Name + "'s " + ns.Claim.Name + " not probed yet"
		case ns.Claim == nil && ns.Driver == "":
			return ns.Name + " not probed yet"
		}
	}
	return ""
}

// predictedNDRegion is the nd region a fresh CXL region gets: the same id
// and size, with the seeds the nvdimm core creates first.
func predictedNDRegion(region string, size uint64) sysfs.NDRegion {
	id := region[len("region"):]
	return sysfs.NDRegion{
		Name:               region,
		Size:               size,
		MaxAvailableExtent: size,
		NamespaceSeed:      "namespace" + id + ".0",
		PfnSeed:            "pfn" + id + ".0",
		DaxSeed:            "dax" + id + ".0",
	}
}

func ops(path, value string) []writer.Op { return []writer.Op{{Path: path, Value: value}} }

func hex(v uint64) string { return "0x" + strconv.FormatUint(v, 16) }

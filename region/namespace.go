package region

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/sysfs"
	"github.com/cxlv/cxlv/units"
)

// Mode is how a namespace is used.
type Mode string

const (
	ModeNone   Mode = "none"   // no namespace
	ModeFsdax  Mode = "fsdax"  // /dev/pmemN with struct pages, for DAX filesystems
	ModeDevdax Mode = "devdax" // /dev/daxR.N character device
	ModeRaw    Mode = "raw"    // /dev/pmemN without struct pages
)

// ParseMode checks a mode named by a user.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeNone, ModeFsdax, ModeDevdax, ModeRaw:
		return m, nil
	}
	return "", cxlverr.Invalidf("unknown namespace mode %q: use fsdax, devdax, raw or none", s)
}

// NamespaceSpec says what CreateNamespace makes.
type NamespaceSpec struct {
	Region string // the nd region, regionN
	Mode   Mode
	// Size in bytes; 0 takes the region's largest free extent.
	Size uint64
}

// NamespaceResult describes a namespace that was made or came back.
type NamespaceResult struct {
	Name string
	Mode Mode
	// UUID is the claim's (pfn/dax) uuid, the namespace's for raw, and
	// RawUUID the namespace's: the keys of `ndctl list`.
	UUID    string
	RawUUID string
	Size    uint64
	Holder  string // pfnR.N or daxR.N
	// BlockDev is /dev/pmemN (fsdax, raw), CharDev /dev/daxR.N (devdax).
	BlockDev string
	CharDev  string
	// Reassembled is true when the namespace came back from its labels.
	Reassembled bool
}

func namespaceResult(ns sysfs.Namespace, reassembled bool) NamespaceResult {
	r := NamespaceResult{
		Name: ns.Name, Mode: Mode(ns.Mode), UUID: ns.UUID, Size: ns.Size, Holder: ns.Holder,
		BlockDev: ns.BlockDev, CharDev: ns.CharDev, Reassembled: reassembled,
	}
	if ns.Claim != nil {
		r.UUID, r.RawUUID = ns.Claim.UUID, ns.UUID
	}
	return r
}

// CreateNamespace makes a namespace on an enabled nd region. On failure
// everything it did is undone.
func (m *Manager) CreateNamespace(ctx context.Context, s NamespaceSpec) (res NamespaceResult, err error) {
	if s.Mode == ModeNone || s.Mode == "" {
		return res, cxlverr.Invalidf("namespace create needs --mode fsdax, devdax or raw")
	}
	if _, err := ParseMode(string(s.Mode)); err != nil {
		return res, err
	}
	nd, err := m.Host.Sys().NDRegion(s.Region)
	if err != nil {
		return res, err
	}
	if nd.Driver == "" {
		return res, fmt.Errorf("nd %s is disabled: its CXL region is not bound (cxlvctl region list)", nd.Name)
	}
	t := &tx{ctx: ctx, w: m.W, host: m.Host}
	defer t.finish("namespace create", &err)
	return m.createNamespace(ctx, t, s, nd)
}

// createNamespace runs the libndctl sequence for a labelled pmem namespace
// (ndctl namespace.c setup_namespace): uuid and size on the region's
// namespace seed, the claim class, then a pfn (fsdax) or dax (devdax) seed
// pointed at the namespace and bound to its driver.
func (m *Manager) createNamespace(ctx context.Context, t *tx, s NamespaceSpec, nd sysfs.NDRegion) (NamespaceResult, error) {
	ns := nd.NamespaceSeed
	size := s.Size
	if size != 0 && nd.Align > 0 && size%nd.Align != 0 {
		return NamespaceResult{}, cxlverr.Invalidf("namespace size %s is not a multiple of nd %s's alignment %s",
			units.FormatSize(size), nd.Name, units.FormatSize(nd.Align))
	}
	free := nd.MaxAvailableExtent
	if nd.Align > 0 {
		free = free / nd.Align * nd.Align
	}
	if free == 0 {
		return NamespaceResult{}, cxlverr.Errorf(cxlverr.ErrBusy, "nd %s has no free space: destroy one of its namespaces first", nd.Name)
	}
	if size > free {
		return NamespaceResult{}, cxlverr.Invalidf("namespace size %s is more than the %s free in nd %s: give --size %s or less, or leave --size out",
			units.FormatSize(size), units.FormatSize(free), nd.Name, units.FormatSize(free))
	}
	if size == 0 {
		size = free
	}
	// Setting size 0 deletes the namespace's labels and clears its uuid,
	// which undoes the uuid, the size and the label writes at once.
	rawUUID := m.uuid()
	steps := []step{
		{m.ndDev(ns, "uuid"), rawUUID, ops(m.ndDev(ns, "size"), "0")},
		{m.ndDev(ns, "size"), strconv.FormatUint(size, 10), nil},
	}
	claim, holderClass, driver := "", "", "nd_pmem"
	switch s.Mode {
	case ModeFsdax:
		claim, holderClass = nd.PfnSeed, "pfn"
	case ModeDevdax:
		claim, holderClass, driver = nd.DaxSeed, "dax", "dax_pmem"
	}
	bound, uuid := ns, rawUUID
	if claim != "" {
		steps = append(steps, step{m.ndDev(ns, "holder_class"), holderClass, ops(m.ndDev(ns, "holder_class"), "")})
		// Writing "" to namespace detaches the claim and resets its uuid
		// and mode, whichever of the three writes got through.
		uuid = m.uuid()
		steps = append(steps,
			step{m.ndDev(claim, "uuid"), uuid, ops(m.ndDev(claim, "namespace"), "")},
			step{m.ndDev(claim, "mode"), "pmem", nil},
			step{m.ndDev(claim, "namespace"), ns, nil},
		)
		bound = claim
	}
	steps = append(steps, step{m.driverFile("nd", driver, "bind"), bound, ops(m.driverFile("nd", driver, "unbind"), bound)})
	if err := t.run(steps); err != nil {
		return NamespaceResult{}, err
	}
	if m.Simulate {
		res := NamespaceResult{Name: ns, Mode: s.Mode, UUID: uuid, Size: size, Holder: claim}
		if claim != "" {
			res.RawUUID = rawUUID
		}
		if s.Mode == ModeDevdax {
			res.CharDev = predictedDevNode(ns, "dax")
		} else {
			res.BlockDev = predictedDevNode(ns, "pmem")
		}
		return res, nil
	}
	return m.waitNamespace(ctx, ns, s.Mode)
}

// predictedDevNode is the /dev node the kernel names after a namespace:
// namespaceR.N gives /dev/daxR.N (dax_pmem), and /dev/pmemR, or /dev/pmemR.N
// for N > 0 (nvdimm_namespace_disk_name).
func predictedDevNode(ns, kind string) string {
	id := strings.TrimPrefix(ns, "namespace")
	if kind == "pmem" {
		id = strings.TrimSuffix(id, ".0")
	}
	return "/dev/" + kind + id
}

// waitNamespace waits for the probe of a namespace's driver to publish its
// /dev node.
func (m *Manager) waitNamespace(ctx context.Context, name string, mode Mode) (NamespaceResult, error) {
	var ns sysfs.Namespace
	err := m.waitFor(ctx, name+" ("+string(mode)+") device node", func() (string, error) {
		var err error
		if ns, err = m.Host.Sys().Namespace(name); err != nil {
			return err.Error(), nil
		}
		node := ns.BlockDev
		if mode == ModeDevdax {
			node = ns.CharDev
		}
		if node == "" {
			return "no device node in sysfs yet", nil
		}
		if _, err := os.Stat(node); err != nil {
			return err.Error(), nil
		}
		return "", nil
	})
	if err != nil {
		return NamespaceResult{}, err
	}
	return namespaceResult(ns, false), nil
}

// ErrIdle is returned for an operation on a namespace that holds nothing.
var ErrIdle = errors.New("namespace is an idle seed: nothing to destroy")

// DestroyNamespace disables a namespace, releases its claim and deletes its
// labels (ndctl destroy-namespace). A namespace in use is refused, and
// without force any namespace that holds data (a label).
func (m *Manager) DestroyNamespace(name string, force bool) error {
	ns, err := m.CheckDestroyNamespace(name, force)
	if err != nil {
		return err
	}
	if err := m.destroyNamespace(ns); err != nil {
		return fmt.Errorf("namespace destroy %s: %w", name, err)
	}
	return nil
}

// CheckDestroyNamespace refuses, before anything is written, what
// DestroyNamespace would refuse.
func (m *Manager) CheckDestroyNamespace(name string, force bool) (sysfs.Namespace, error) {
	ns, err := m.Host.Sys().Namespace(name)
	if err != nil {
		return ns, err
	}
	if ns.Idle() {
		return ns, fmt.Errorf("namespace destroy %s: %w", name, ErrIdle)
	}
	if err := m.refuseKmemHeld(ns); err != nil {
		return ns, fmt.Errorf("namespace destroy %s: %w", name, err)
	}
	if err := m.checkNotInUse(ns); err != nil {
		return ns, fmt.Errorf("namespace destroy %s: %w", name, err)
	}
	if !force {
		return ns, fmt.Errorf("namespace destroy %s: %w", name, &LabelError{Namespace: describe(ns)})
	}
	return ns, nil
}

// destroyNamespace writes the destroy of a namespace checked before.
func (m *Manager) destroyNamespace(ns sysfs.Namespace) error {
	if ns.Idle() {
		return ErrIdle
	}
	var steps []step
	switch {
	case ns.Claim != nil:
		if ns.Claim.Driver != "" {
			steps = append(steps, step{path: m.driverFile("nd", ns.Claim.Driver, "unbind"), value: ns.Claim.Name})
		}
		steps = append(steps, step{path: m.ndDev(ns.Claim.Name, "namespace"), value: ""})
	case ns.Driver != "":
		steps = append(steps, step{path: m.driverFile("nd", ns.Driver, "unbind"), value: ns.Name})
	}
	if ns.HolderClass != "" {
		steps = append(steps, step{path: m.ndDev(ns.Name, "holder_class"), value: ""})
	}
	steps = append(steps, step{path: m.ndDev(ns.Name, "size"), value: "0"})
	return (&tx{w: m.W}).run(steps)
}

package region

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/sysfs"
)

// RAM regions (Linux 6.3+): the region is made like a pmem one from
// create_ram_region, without a uuid; once bound, dax_cxl gives it a dax
// device and kmem hot-adds that as memory blocks. Whether the kernel
// onlines the blocks, and into which zone, is the global
// auto_online_blocks policy (Debian's 6.12: online, ZONE_NORMAL, which may
// never be given back). Create sets the policy it was asked for during the
// bind and restores it afterwards, then puts any block that still differs
// into the asked state. Destroy offlines the blocks before the region is
// unbound: kmem cannot remove online memory and would leak it until reboot.

// OnlinePolicy is what the memory of a RAM region becomes.
type OnlinePolicy string

const (
	// OnlineMovable onlines the blocks into ZONE_MOVABLE: only movable
	// pages land there, so the memory can be offlined and given back.
	OnlineMovable OnlinePolicy = "movable"
	// OnlineNormal onlines them into ZONE_NORMAL: usable by the kernel
	// itself, but offlining can fail once unmovable pages land there.
	OnlineNormal OnlinePolicy = "normal"
	// OnlineNone leaves them offline.
	OnlineNone OnlinePolicy = "none"
)

// ParseOnline checks a policy named by a user.
func ParseOnline(s string) (OnlinePolicy, error) {
	switch p := OnlinePolicy(s); p {
	case OnlineMovable, OnlineNormal, OnlineNone:
		return p, nil
	}
	return "", cxlverr.Invalidf("unknown --online %q: use movable, normal or none", s)
}

// autoOnline is the auto_online_blocks value that onlines hot-added
// memory the policy's way.
func (p OnlinePolicy) autoOnline() string {
	switch p {
	case OnlineNormal:
		return "online_kernel"
	case OnlineNone:
		return sysfs.BlockOffline
	}
	return "online_movable"
}

// holds reports whether a block is in the state the policy asks for.
func (p OnlinePolicy) holds(b sysfs.MemoryBlock) bool {
	switch p {
	case OnlineNone:
		return b.State == sysfs.BlockOffline
	case OnlineNormal:
		return b.Online() && b.Zone() != "Movable"
	}
	return b.Online() && b.Zone() == "Movable"
}

// onlineAs is the state value that onlines a block back into the zone it
// was in.
func onlineAs(b sysfs.MemoryBlock) string {
	if b.Zone() == "Movable" {
		return "online_movable"
	}
	return "online_kernel"
}

// Ways for memory to become RAM (RAMResult.Via).
const (
	// ViaRAMRegion: a CXL RAM region, dax_cxl and kmem (6.3+).
	ViaRAMRegion = "cxl-ram-region"
	// ViaKmem: a pmem region, a devdax namespace and kmem, where the
	// kernel has no RAM regions (as daxctl reconfigure-device
	// --mode=system-ram does it).
	ViaKmem = "pmem-devdax-kmem"
)

// RAMResult is what a RAM region's memory became.
type RAMResult struct {
	// Via says how: ViaRAMRegion or ViaKmem.
	Via string
	// Dax is the dax device kmem holds (daxR.0).
	Dax string
	// TargetNode is the NUMA node dax_cxl gave the memory (target_node).
	TargetNode *int
	// Nodes are the nodes of the memory blocks.
	Nodes  []int
	Online OnlinePolicy
	// MemoryBytes and Blocks are the memory kmem added (the whole memory
	// blocks inside the dax device); OnlineBytes the part online, in Zones.
	MemoryBytes uint64
	Blocks      int
	BlockSize   uint64
	OnlineBytes uint64
	Zones       []string
	// AddTime runs from the bind until kmem added the memory; OnlineTime
	// is what putting the blocks into the asked state took on top.
	AddTime    time.Duration
	OnlineTime time.Duration
}

func (s Spec) validateRAM() error {
	if _, err := ParseOnline(string(s.onlinePolicy())); err != nil {
		return err
	}
	for _, bad := range []struct {
		set  bool
		flag string
	}{
		{s.Filesystem != "", "--fs"}, // before --namespace, which --fs implies
		{s.MountDir != "", "--mount"},
		{s.UUID != "", "--uuid"},
		{s.Namespace != "" && s.Namespace != ModeNone, "--namespace"},
	} {
		if bad.set {
			return cxlverr.Invalidf("%s is for pmem regions: a RAM region becomes system memory, with no uuid, namespace or filesystem", bad.flag)
		}
	}
	return nil
}

func (s Spec) onlinePolicy() OnlinePolicy {
	if s.Online == "" {
		return OnlineMovable
	}
	return s.Online
}

// planRAM picks the root decoder, endpoint decoder and size of a RAM
// region. The kernel's ability comes first: without create_ram_region
// nothing else matters.
func (m *Manager) planRAM(s Spec, md sysfs.Memdev) (plan, error) {
	p := plan{mode: TypeRAM, online: s.onlinePolicy()}
	roots, err := m.Host.Sys().RootDecodersOf(md.Name)
	if err != nil {
		return plan{}, err
	}
	var found, offered bool
	for _, d := range roots {
		offered = offered || d.CanCreateRAMRegion
		if d.CanCreateRAMRegion && d.CapRAM {
			p.root, found = d, true
			break
		}
	}
	switch {
	case !found && !offered && md.PmemSize > 0:
		return m.planKmem(s, md)
	case !found && !offered && md.RAMSize > 0:
		return plan{}, fmt.Errorf("%w: here only persistent capacity becomes RAM (a pmem region, devdax and kmem): create the device with --pmem", ramRootMissing(md.Name, roots))
	case !found:
		return plan{}, ramRootMissing(md.Name, roots)
	}
	if md.RAMSize == 0 {
		return plan{}, fmt.Errorf("%s has no volatile capacity: RAM regions need a pmem=0 device (cxlvctl create without --pmem) or a memdev with ram_size", md.Name)
	}
	if err := m.checkRAMDrivers(); err != nil {
		return plan{}, err
	}
	if p.endpoints, p.size, err = m.pickEndpoints(s, md, TypeRAM); err != nil {
		return plan{}, err
	}
	if p.size, err = sizeWithin(s, md.Name, p.size); err != nil {
		return plan{}, err
	}
	if p.region, err = m.Host.Sys().NextRegionName(p.root, TypeRAM); err != nil {
		return plan{}, err
	}
	return p, nil
}

// ramRootMissing says why no root decoder above memdev takes a RAM region:
// the kernel lacks create_ram_region (before 6.3, or a root decoder not
// flagged ram-capable on 6.12), or no decoder is ram-capable.
func ramRootMissing(memdev string, roots []sysfs.Decoder) error {
	for _, d := range roots {
		if d.CapRAM && !d.CanCreateRAMRegion {
			return &cxlverr.FeatureError{Name: "RAM regions", MinKernel: cxlverr.KernelRAMRegions, Attr: "create_ram_region"}
		}
	}
	return &cxlverr.FeatureError{Name: "a ram-capable root decoder above " + memdev, MinKernel: cxlverr.KernelRAMRegions, Attr: "cap_ram"}
}

// driverNeed is a driver a path needs, and the module that provides it.
type driverNeed struct{ bus, driver, module string }

// ramDrivers turn a RAM region into memory.
var ramDrivers = []driverNeed{{"cxl", "cxl_dax_region", "dax_cxl"}, {"dax", "kmem", "kmem"}}

// checkRAMDrivers refuses before any write when the drivers that turn the
// region into memory are missing: the region would be made and never
// become memory.
func (m *Manager) checkRAMDrivers() error { return m.checkDrivers(ramDrivers) }

func (m *Manager) checkDrivers(needs []driverNeed) error {
	for _, d := range needs {
		if !sysfs.Exists(m.Host.Sys().Path("bus", d.bus, "drivers", d.driver)) {
			return &cxlverr.FeatureError{Name: "RAM regions as memory", Module: d.module, Attr: d.bus + " driver " + d.driver}
		}
	}
	return nil
}

// createRAM makes the region with the asked online policy in force,
// binds it, waits for kmem to add its memory, puts every block in the
// asked state and restores the policy.
func (m *Manager) createRAM(ctx context.Context, t *tx, p plan) (*RAMResult, error) {
	r := p.region
	unbind := ops(m.driverFile("cxl", "cxl_region", "unbind"), r)[0]
	return m.becomeMemory(ctx, t, p, "dax"+strings.TrimPrefix(r, "region")+".0", func() error {
		return t.run(m.regionSteps(p))
	}, func() error {
		if err := t.write(m.driverFile("cxl", "cxl_region", "bind"), r); err != nil {
			return err
		}
		t.pushGuard("offline the memory of "+r+"; "+unbind.String(), func() error {
			return m.offlineThen(r, p.online, func(w *tx) error { return w.write(unbind.Path, unbind.Value) })
		})
		return nil
	})
}

// offlineThen offlines the memory of region r, once the kmem probe is
// done with it, and then runs release (the write that makes kmem drop it);
// the memory comes back online when either fails. It is the undo of the
// write that added the memory with online policy p.
func (m *Manager) offlineThen(r string, p OnlinePolicy, release func(*tx) error) error {
	waitErr := m.waitProbeDone(r, p)
	if waitErr != nil && !errors.Is(waitErr, cxlverr.ErrTimeout) {
		return waitErr
	}
	off := &tx{w: m.W}
	if _, err := m.offlineRAM(off, r); err != nil {
		return withRollback(err, off.rollback())
	}
	if err := release(off); err != nil {
		return withRollback(err, off.rollback())
	}
	if waitErr != nil {
		return fmt.Errorf("%w; offlined and released what there was: blocks added after that stay online", waitErr)
	}
	return nil
}

// becomeMemory runs prepare and then add, the write after which kmem adds
// the memory of p.region as dax device dax, with the asked online policy
// in force; it waits for the memory, puts every block in the asked state
// and restores the policy.
func (m *Manager) becomeMemory(ctx context.Context, t *tx, p plan, dax string, prepare, add func() error) (*RAMResult, error) {
	autoPath := m.Host.Sys().MemoryPath("auto_online_blocks")
	old, err := m.Host.Sys().AutoOnlineBlocks()
	if err != nil {
		return nil, err
	}
	restore := func() error { return nil }
	if want := p.online.autoOnline(); old != want {
		if restore, err = t.writeScoped(autoPath, want, old); err != nil {
			return nil, err
		}
	}
	if err := prepare(); err != nil {
		return nil, err
	}
	r := p.region
	bindStart := time.Now()
	if err := add(); err != nil {
		return nil, err
	}
	res := &RAMResult{Online: p.online, Via: ViaRAMRegion}
	if p.kmem {
		res.Via = ViaKmem
	}
	if m.Simulate {
		res.Dax = dax
		return res, restore()
	}
	st, err := m.waitRAM(ctx, r)
	if err != nil {
		return nil, err
	}
	res.AddTime = time.Since(bindStart)
	onlineStart := time.Now()
	if err := m.settleBlocks(t, st.Blocks, p.online); err != nil {
		return nil, err
	}
	if err := restore(); err != nil {
		return nil, err
	}
	res.OnlineTime = time.Since(onlineStart)
	if st, err = m.ramState(r); err != nil {
		return nil, err
	}
	if bad := firstNotHolding(st.Blocks, p.online); bad != nil {
		return nil, fmt.Errorf("%s is %s (%s) after onlining it %s", bad.Name, bad.State, bad.Zones, p.online)
	}
	res.Dax, res.TargetNode = st.Dax.Name, st.Dax.TargetNode
	sum := st.Summary
	res.Nodes, res.MemoryBytes, res.Blocks, res.BlockSize = sum.Nodes, uint64(sum.Blocks)*sum.BlockSize, sum.Blocks, sum.BlockSize
	res.OnlineBytes, res.Zones = sum.OnlineBytes(), sum.Zones
	return res, nil
}

// waitProbeDone waits, even after an interrupt, until kmem's probe has
// added the memory of region r and onlined it with policy p: blocks it has
// yet to add or online would be missed by the offlining and then stay
// online, leaked, when kmem is unbound (seen on 7.3 after a SIGINT during
// the wait). A region gone needs no wait. A probe that never finishes
// ends the wait at the timeout, returned so that the undo can go on with
// what there is and say so; a failed read ends it at once.
func (m *Manager) waitProbeDone(r string, p OnlinePolicy) error {
	err := m.waitFor(context.Background(), "kmem's probe of "+r+" before undoing it", func() (string, error) {
		st, err := m.ramState(r)
		switch {
		case err != nil:
			return "", err
		case !st.Added():
			return "memory of " + r + " not all added", nil
		}
		if b := firstNotHolding(st.Blocks, p); b != nil {
			return b.Name + " not onlined " + string(p) + " yet", nil
		}
		return "", nil
	})
	if errors.Is(err, cxlverr.ErrNotFound) {
		return nil
	}
	return err
}

func firstNotHolding(blocks []sysfs.MemoryBlock, p OnlinePolicy) *sysfs.MemoryBlock {
	for i := range blocks {
		if !p.holds(blocks[i]) {
			return &blocks[i]
		}
	}
	return nil
}

// ramState reads the dax device and memory blocks of region r.
func (m *Manager) ramState(r string) (sysfs.RAMState, error) {
	reg, err := m.Host.Sys().Region(r)
	if err != nil {
		return sysfs.RAMState{}, err
	}
	return m.Host.Sys().RAMState(reg, nil)
}

// waitRAM waits until kmem holds the region's dax device and has added
// every memory block of it.
func (m *Manager) waitRAM(ctx context.Context, r string) (sysfs.RAMState, error) {
	var st sysfs.RAMState
	err := m.waitFor(ctx, "memory of "+r+" (cxl_region, dax_cxl, kmem probes)", func() (string, error) {
		var err error
		if st, err = m.ramState(r); err != nil {
			return "", err
		}
		switch {
		case st.Dax == nil:
			return "no dax device below " + r + " yet (dax_cxl)", nil
		case st.Dax.Driver != "kmem":
			return st.Dax.Name + " not bound to kmem yet", nil
		case !st.Added():
			return fmt.Sprintf("%d of %d memory blocks of %s added", st.Summary.Blocks, st.Size/max(st.Summary.BlockSize, 1), st.Dax.Name), nil
		}
		return "", nil
	})
	return st, err
}

// settleBlocks puts each block not in the policy's state into it, with an
// undo that puts it back: an online block of the wrong zone is offlined
// and onlined again.
func (m *Manager) settleBlocks(t *tx, blocks []sysfs.MemoryBlock, p OnlinePolicy) error {
	for _, b := range blocks {
		if p.holds(b) {
			continue
		}
		state := m.Host.Sys().MemoryPath(b.Name, "state")
		if b.Online() {
			if err := t.write(state, sysfs.BlockOffline, ops(state, onlineAs(b))...); err != nil {
				return err
			}
		}
		if p == OnlineNone {
			continue
		}
		if err := t.write(state, p.autoOnline(), ops(state, sysfs.BlockOffline)...); err != nil && !m.onlinedMeanwhile(b, p, err) {
			return err
		}
	}
	return nil
}

// onlinedMeanwhile reports whether offline block b, whose onlining failed
// with err, now holds policy p all the same: kmem binds (its driver link)
// before its probe has onlined every block with the auto_online_blocks
// policy, and onlining a block that probe got to first fails with EINVAL
// (drivers/base/memory.c state_store: already online).
func (m *Manager) onlinedMeanwhile(b sysfs.MemoryBlock, p OnlinePolicy, err error) bool {
	if b.Online() || !errors.Is(err, syscall.EINVAL) {
		return false
	}
	now, rerr := m.Host.Sys().MemoryBlock(b.ID)
	return rerr == nil && p.holds(now)
}

// OfflineError is memory the kernel would not offline: a page it cannot
// migrate (ZONE_NORMAL memory the kernel allocated from, a pinned page).
// It matches syscall.EBUSY when the kernel said so.
type OfflineError struct {
	Block  string
	Region string
	Err    error
}

func (e *OfflineError) Error() string {
	return fmt.Sprintf("%s of %s cannot be offlined (%v): its memory holds pages the kernel cannot move; free them (stop what uses node memory) and retry", e.Block, e.Region, errnoOf(e.Err))
}

func (e *OfflineError) Unwrap() error { return e.Err }

func errnoOf(err error) error {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err
		}
		err = u
	}
}

// offlineRAM offlines every online memory block of region r, lowest
// first, each with an undo that onlines it back into its zone, and
// returns how many it offlined. When one cannot be offlined it returns an
// *OfflineError; the caller rolls t back.
func (m *Manager) offlineRAM(t *tx, r string) (int, error) {
	st, err := m.ramState(r)
	if errors.Is(err, cxlverr.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n := 0
	for _, b := range st.Blocks {
		if !b.Online() {
			continue
		}
		state := m.Host.Sys().MemoryPath(b.Name, "state")
		if err := t.write(state, sysfs.BlockOffline, ops(state, onlineAs(b))...); err != nil {
			return n, &OfflineError{Block: b.Name, Region: r, Err: err}
		}
		n++
	}
	return n, nil
}

// withRollback says whether a rollback after err put everything back.
func withRollback(err, rollbackErr error) error {
	if rollbackErr == nil {
		return fmt.Errorf("%w; nothing was changed", err)
	}
	return fmt.Errorf("%w; putting it back failed: %v", err, rollbackErr)
}

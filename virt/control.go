package virt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/cxlv/cxlv/cxlverr"
	"github.com/cxlv/cxlv/host"
	"github.com/cxlv/cxlv/sysfs"
	"github.com/cxlv/cxlv/writer"
)

// Control drives the cxl_virt control files of one system.
type Control struct {
	Host host.Root
	W    writer.Writer
	// DryRun skips what only a real write can tell: naming the new device
	// and waiting for it.
	DryRun bool
	// Euid is the caller's effective uid, for the "run as root" hint.
	Euid int
}

// NewControl returns a Control for the running system's caller.
func NewControl(root host.Root, w writer.Writer) *Control {
	return &Control{Host: root, W: w, Euid: os.Geteuid()}
}

// Files are the control files of one system: create, remove and release
// in Dir, and again in Fallback.
type Files struct {
	// Dir holds the control files to write.
	Dir string
	// Fallback is the /sys/bus/cxl_virt directory to retry in when
	// debugfs refuses a write (kernel lockdown); "" when Dir is that one.
	Fallback string
	// LastError returns the reason of the last failed request (root only).
	LastError string
}

// Files finds the control files: debugfs first, as the cxlv interface
// defines them, with /sys/bus/cxl_virt to fall back on; that directory alone
// when debugfs does not have them or kernel lockdown refuses its writes.
// Every cxl_virt has the sysfs files and its last_error (kmod/ctl/cxlv_ctl.c).
func (c *Control) Files() (Files, error) {
	if !c.Host.Sys().VirtLoaded() {
		return Files{}, &cxlverr.FeatureError{Name: "cxl_virt control files", Module: "cxl_virt"}
	}
	bus := c.Host.Sys().Path("bus", "cxl_virt")
	f := Files{Dir: bus, LastError: filepath.Join(bus, "last_error")}
	dir := DebugfsFile(c.Host, "")
	if sysfs.Exists(filepath.Join(dir, "create")) && !c.lockedDown() {
		f.Dir, f.Fallback = dir, bus
	}
	return f, nil
}

// EventFile is the control file that injects event records: in debugfs
// only, with no /sys/bus/cxl_virt twin (kmod/ctl/cxlv_ctl.c).
const EventFile = "inject_event"

// DebugfsFile is the path of the control file name in debugfs (cxl/cxlv);
// "" is that directory.
func DebugfsFile(root host.Root, name string) string { return root.Debugfs("cxl", "cxlv", name) }

// lockedDown reports kernel lockdown ([integrity] or [confidentiality]),
// under which debugfs refuses writes.
func (c *Control) lockedDown() bool {
	b, err := os.ReadFile(c.Host.Sys().Path("kernel", "security", "lockdown"))
	return err == nil && !strings.Contains(string(b), "[none]")
}

// write sends value to the control file name, retrying on the sysfs
// fallback when debugfs says EPERM to root (lockdown that the lockdown
// file did not show).
func (c *Control) write(f Files, name, value string) error {
	err := c.W.Write(filepath.Join(f.Dir, name), value)
	if err != nil && f.Fallback != "" && errors.Is(err, syscall.EPERM) && c.Euid == 0 {
		return c.W.Write(filepath.Join(f.Fallback, name), value)
	}
	return err
}

// LastError is the module's reason for its last refused request of the
// control file op (its last_error, less the "op: " it starts with), or ""
// when it gave none.
func LastError(root host.Root, op string) string {
	return lastError(root.Sys().Path("bus", "cxl_virt", "last_error"), op)
}

func lastError(path, op string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(strings.TrimSpace(string(b)), op+": ")
}

// explain turns a refused write into one line: what failed, why (the
// module's last_error when it gave one) and what to do.
func (c *Control) explain(op string, f Files, err error) error {
	reason := lastError(f.LastError, op)
	with := func(fallback string) string {
		if reason != "" {
			return reason
		}
		return fallback
	}
	var msg string
	kind := err
	switch {
	case errors.Is(err, syscall.EPERM), errors.Is(err, syscall.EACCES):
		if c.Euid != 0 {
			msg = fmt.Sprintf("%s: permission denied: run as root (sudo cxlvctl %s ...)", op, op)
		} else {
			msg = fmt.Sprintf("%s: permission denied as root: kernel lockdown? use a cxl_virt with /sys/bus/cxl_virt/%s", op, op)
		}
	case errors.Is(err, syscall.ENOENT) && opened(err):
		msg = fmt.Sprintf("%s: %s: see `cxlvctl ranges`", op, with("no borrowed range starts there"))
		kind = errors.Join(cxlverr.ErrNotFound, err)
	case errors.Is(err, syscall.ENOENT):
		msg = fmt.Sprintf("%s: cxl_virt control file vanished: module unloaded? run `modprobe cxl_virt`", op)
	case errors.Is(err, syscall.ENOMEM) && strings.Contains(reason, "memmap="):
		// The module's reason says how much it could have had, and the way out.
		msg = op + ": " + reason
	case errors.Is(err, syscall.ENOMEM):
		msg = op + ": " + with("not enough System RAM could be borrowed") + ": ask for a smaller --size, or reserve memory at boot with memmap= (`cxlvctl ranges`)"
	case errors.Is(err, syscall.EBUSY):
		switch {
		case op == "remove" && reason != "":
			// The module's reason already names the region to destroy.
			msg = "remove: " + reason + ", or use `cxlvctl remove --force`"
		case op == "remove":
			msg = "remove: device busy: destroy its regions and namespaces first, or use `cxlvctl remove --force`"
		case op == "release":
			msg = "release: " + with("a device is on the range") + ": `cxlvctl remove --release` that device instead"
		default:
			msg = "create: " + with("range busy") + ": pick a range listed by `cxlvctl ranges`"
		}
	case errors.Is(err, syscall.EEXIST):
		msg = "create: " + with("range or serial already used by another cxl_virt device") + ": pick a free range (`cxlvctl ranges`) or remove that device"
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		msg = "create: " + with("range is not reserved memory") + ": reserve it with memmap= (see `cxlvctl ranges`)"
	case errors.Is(err, syscall.ENOSPC):
		msg = "create: " + with("range too small") + ": give a larger --size"
	case errors.Is(err, syscall.EMFILE):
		msg = fmt.Sprintf("create: %s: remove a device first (`cxlvctl remove cxlvN`)", with(fmt.Sprintf("all %d device slots in use", MaxDevices)))
	case errors.Is(err, syscall.EOPNOTSUPP):
		// A feature this cxl_virt lacks (an interleave set): not supported.
		msg = op + ": " + with("not supported by this cxl_virt") + " (`cxlvctl version` names the module)"
		kind = errors.Join(cxlverr.ErrNotSupported, err)
	case errors.Is(err, syscall.ENODEV):
		msg = fmt.Sprintf("%s: %s: see `cxlvctl list`", op, with("no such device"))
	default:
		msg = fmt.Sprintf("%s: rejected by cxl_virt: %s", op, with(errnoText(err)+" (see dmesg)"))
	}
	return &cxlverr.Error{Msg: msg, Err: kind}
}

// opened reports a refusal by the module itself: the control file was
// there and the write reached it.
func opened(err error) bool {
	var we *writer.WriteError
	return errors.As(err, &we) && !we.Open
}

func errnoText(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	return err.Error()
}

// Created is what a create made.
type Created struct {
	// Name is the new cxlvN ("" on a dry run).
	Name   string
	Device *sysfs.VirtDevice
	// Memdev is the memN of the device, when waited for; an interleave
	// set's memdevs in position order, separated by spaces.
	Memdev string
}

// Create validates spec, writes it and names the device it made by
// comparing the device list before and after.
func (c *Control) Create(spec CreateSpec) (Created, error) {
	if err := spec.Validate(); err != nil {
		return Created{}, err
	}
	f, err := c.Files()
	if err != nil {
		return Created{}, err
	}
	before, err := c.deviceNames()
	if err != nil {
		return Created{}, err
	}
	if err := c.write(f, "create", spec.String()); err != nil {
		return Created{}, c.explain("create", f, err)
	}
	if c.DryRun {
		return Created{}, nil
	}
	after, err := c.Host.Sys().VirtDevices()
	if err != nil {
		return Created{}, err
	}
	for i := range after {
		if !before[after[i].Name] {
			return Created{Name: after[i].Name, Device: &after[i]}, nil
		}
	}
	return Created{}, &cxlverr.Error{Msg: "create: the module accepted the request but no new cxlvN appeared; see dmesg"}
}

func (c *Control) deviceNames() (map[string]bool, error) {
	devs, err := c.Host.Sys().VirtDevices()
	if err != nil {
		return nil, err
	}
	names := make(map[string]bool, len(devs))
	for _, d := range devs {
		names[d.Name] = true
	}
	return names, nil
}

// Remove removes the device called name; release also gives its range
// back to the kernel, which only a borrowed range can be, and says what
// went back (nil without release or on a dry run).
func (c *Control) Remove(name string, release bool) (*GivenBack, error) {
	d, err := c.device(name)
	if err != nil {
		return nil, err
	}
	var back *GivenBack
	if release {
		if err := releasable(d); err != nil {
			return nil, err
		}
		if back, err = c.borrowedAt(*d.Memstart); err != nil {
			return nil, err
		}
	}
	f, err := c.Files()
	if err != nil {
		return nil, err
	}
	if err := c.write(f, "remove", RemoveString(d.ID, release)); err != nil {
		return nil, c.explain("remove", f, err)
	}
	return c.onlineGivenBack(back)
}

// Release gives the free borrowed range that starts at start back to the
// kernel and says what went back (nil on a dry run).
func (c *Control) Release(start uint64) (*GivenBack, error) {
	f, err := c.Files()
	if err != nil {
		return nil, err
	}
	if err := c.checkRelease(start); err != nil {
		return nil, err
	}
	back, err := c.borrowedAt(start)
	if err != nil {
		return nil, err
	}
	if err := c.write(f, "release", ReleaseString(start)); err != nil {
		return nil, c.explain("release", f, err)
	}
	return c.onlineGivenBack(back)
}

// checkRelease refuses what the module's release would refuse
// (kmod/mem/cxlv_borrow.c cxlv_borrow_release), with its words: no borrowed
// range starts at start, or a device is on it. The borrowed list is root's
// to read; for anyone else the write says what is wrong.
func (c *Control) checkRelease(start uint64) error {
	if !sysfs.Exists(c.Host.Sys().Path("bus", "cxl_virt", "borrowed")) {
		return nil // a module without borrowing: it answers itself
	}
	ranges, err := c.Host.Sys().VirtBorrowed()
	if err != nil || (ranges == nil && c.Euid != 0) {
		return err
	}
	for _, r := range ranges {
		switch {
		case r.Start != start:
		case r.Device != "":
			return &cxlverr.Error{Msg: fmt.Sprintf("release: %s is on %#x: `cxlvctl remove --release %s` instead", r.Device, start, r.Device),
				Err: cxlverr.ErrBusy}
		default:
			return nil
		}
	}
	return &cxlverr.Error{Msg: fmt.Sprintf("release: no borrowed range starts at %#x: see `cxlvctl ranges`", start), Err: cxlverr.ErrNotFound}
}

// GivenBack is a borrowed range given back to the kernel.
type GivenBack struct {
	Start, Size uint64
	// Onlined counts the memory blocks cxlvctl brought online: the
	// kernel's policy (auto_online_blocks) adds hot-added memory offline
	// on Debian, and the blocks were online when they were borrowed.
	Onlined int
}

// borrowedAt is the borrowed range that holds addr; nil when the module
// lists none there (it then refuses the request itself, with its reason).
func (c *Control) borrowedAt(addr uint64) (*GivenBack, error) {
	ranges, err := c.Host.Sys().VirtBorrowed()
	if err != nil {
		return nil, err
	}
	for _, r := range ranges {
		if addr >= r.Start && addr-r.Start < r.Size {
			return &GivenBack{Start: r.Start, Size: r.Size}, nil
		}
	}
	return nil, nil
}

// onlineGivenBack brings back online the blocks of a range the kernel
// hot-added offline.
func (c *Control) onlineGivenBack(back *GivenBack) (*GivenBack, error) {
	if back == nil || c.DryRun {
		return nil, nil
	}
	blocks, _, err := c.Host.Sys().MemoryBlocksIn(back.Start, back.Size)
	if err != nil {
		return back, err
	}
	for _, b := range blocks {
		if b.Online() {
			continue
		}
		if err := c.W.Write(c.Host.Sys().MemoryPath(b.Name, "state"), sysfs.BlockOnline); err != nil {
			return back, fmt.Errorf("the range %#x is back in the kernel but %s stays offline (%w): online it with `echo online > %s`",
				back.Start, b.Name, err, c.Host.Sys().MemoryPath(b.Name, "state"))
		}
		back.Onlined++
	}
	return back, nil
}

// CheckReleasable says, before anything is written, whether a remove of
// the device called name can also give its range back.
func (c *Control) CheckReleasable(name string) error {
	d, err := c.device(name)
	if err != nil {
		return err
	}
	return releasable(d)
}

func releasable(d sysfs.VirtDevice) error {
	if d.Borrowed == nil || !*d.Borrowed {
		return cxlverr.Invalidf("remove --release %s: its range was reserved at boot, not borrowed from System RAM: nothing to give back; remove it without --release", d.Name)
	}
	return nil
}

// Resolve resolves the name of a device to remove (the package's Resolve),
// in remove's words when it is not there.
func (c *Control) Resolve(name string) (Device, error) {
	d, err := Resolve(c.Host.Sys(), name)
	return d, noDevice(err)
}

// device reads the cxl_virt device called name (cxlvN), in remove's words
// when it is not there.
func (c *Control) device(name string) (sysfs.VirtDevice, error) {
	d, err := lookup(c.Host.Sys(), name)
	return d, noDevice(err)
}

func noDevice(err error) error {
	var nf *cxlverr.NotFoundError
	if errors.As(err, &nf) {
		return &cxlverr.Error{Msg: fmt.Sprintf("remove: no device %s: see `cxlvctl list`", nf.Name), Err: err}
	}
	return err
}

// WaitMemdev waits until the device's memdev is bound to cxl_mem and has
// its endpoint: cxl_pci and cxl_mem probe asynchronously after a create.
// progress, if not nil, is told each state change. A deadline gives
// cxlverr.ErrTimeout; any other end of ctx gives its cause.
func (c *Control) WaitMemdev(ctx context.Context, name string, progress func(string)) (string, error) {
	var memdev string
	err := poll(ctx, progress, func() (string, bool, error) {
		state, m, err := c.memdevState(name)
		memdev = m
		return state, state == "ready", err
	}, func(state string, stopped error) error {
		if stopped != nil {
			return fmt.Errorf("%s: stopped waiting for its memdev (%s): %w; the device stays (cxlvctl remove %s)",
				name, state, stopped, name)
		}
		return cxlverr.Errorf(cxlverr.ErrTimeout, "%s: memdev not ready (%s) after waiting: check dmesg for cxl_pci/cxl_mem errors", name, state)
	})
	return memdev, err
}

// WaitAutoRegions waits, for a device born with its regions committed,
// until the kernel has assembled and bound a region under each of its root
// decoders: where dax_cxl is loaded, until a RAM region's memory is a dax
// device's with its driver (kmem's blocks all added), and where cxl_pmem
// is, until a pmem region is an nd region.
func (c *Control) WaitAutoRegions(ctx context.Context, name string, progress func(string)) error {
	return poll(ctx, progress, func() (string, bool, error) {
		return c.autoRegionState(name)
	}, func(state string, stopped error) error {
		if stopped != nil {
			return fmt.Errorf("%s: stopped waiting for its regions (%s): %w; the device stays (cxlvctl remove %s)",
				name, state, stopped, name)
		}
		return cxlverr.Errorf(cxlverr.ErrTimeout, "%s: regions not assembled (%s) after waiting: check dmesg for cxl_port and cxl_region errors", name, state)
	})
}

// poll asks check every 100 ms until it says done, telling progress each
// new state; when ctx ends first, fail makes the error from the last state
// and, unless the deadline passed, the cause.
func poll(ctx context.Context, progress func(string), check func() (string, bool, error),
	fail func(state string, stopped error) error) error {
	last := ""
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		state, done, err := check()
		switch {
		case errors.Is(err, syscall.ENODEV) || errors.Is(err, syscall.ENXIO):
			// An attribute read while the probe adds or updates its
			// group (seen on 7.3: memN/pmem/size gave ENODEV): look again.
			state = "probing"
		case err != nil:
			return err
		}
		if state != last && progress != nil {
			progress(state)
		}
		last = state
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			if ctx.Err() != context.DeadlineExceeded {
				return fail(state, context.Cause(ctx))
			}
			return fail(state, nil)
		case <-tick.C:
		}
	}
}

// autoRegionState says how far the kernel has come with the regions of a
// device born with them.
func (c *Control) autoRegionState(name string) (string, bool, error) {
	sys := c.Host.Sys()
	t, err := sys.Topology()
	if err != nil {
		return "", false, err
	}
	l, err := LinkOf(t, name)
	if err != nil {
		return "", false, err
	}
	daxLoaded, pmemLoaded := sys.DriverRegistered("cxl", "cxl_dax_region"), sys.DriverRegistered("cxl", "cxl_pmem_region")
	for _, decoder := range l.Virt.Decoders {
		r := regionUnder(l, decoder)
		switch {
		case r == nil:
			return "waiting for a region under " + decoder, false, nil
		case !r.Region.Committed || r.Region.Driver == "":
			return "waiting for " + r.Region.Name + " to be bound", false, nil
		case r.Region.RAM() && daxLoaded && (r.RAM == nil || r.RAM.Dax == nil || r.RAM.Dax.Driver == ""):
			return "waiting for the dax device of " + r.Region.Name, false, nil
		case r.RAM != nil && r.RAM.Dax != nil && r.RAM.Dax.Driver == "kmem" && !r.RAM.Added():
			return "waiting for kmem to add the memory of " + r.Region.Name, false, nil
		case !r.Region.RAM() && pmemLoaded && r.NDRegion == nil:
			return "waiting for the nd region of " + r.Region.Name, false, nil
		}
	}
	return "regions assembled", true, nil
}

// regionUnder is the device's region from root decoder decoder, or nil.
func regionUnder(l sysfs.DeviceLink, decoder string) *sysfs.RegionLink {
	for i := range l.Regions {
		if l.Regions[i].Region.Decoder == decoder {
			return &l.Regions[i]
		}
	}
	return nil
}

// memdevState says how far the probe of a device has come.
func (c *Control) memdevState(name string) (state, memdev string, err error) {
	t, err := c.Host.Sys().Topology()
	if err != nil {
		return "", "", err
	}
	l, err := LinkOf(t, name)
	if err != nil {
		return "", "", err
	}
	if l.Virt.State != "" && l.Virt.State != "ready" && l.Virt.State != "busy" {
		return "device " + l.Virt.State, "", nil
	}
	members := l.Endpoints()
	switch {
	case len(members) == 0:
		return "waiting for memdev", "", nil
	case l.Virt.Set() && uint64(len(members)) < *l.Virt.Ways:
		return fmt.Sprintf("waiting for memdevs (%d of %d)", len(members), *l.Virt.Ways), "", nil
	}
	var names []string
	for _, m := range members {
		names = append(names, m.Memdev.Name)
		switch {
		case m.Memdev.Driver == "":
			return "waiting for cxl_mem to bind " + m.Memdev.Name, m.Memdev.Name, nil
		case m.Endpoint == nil:
			return "waiting for the endpoint of " + m.Memdev.Name, m.Memdev.Name, nil
		}
	}
	return "ready", strings.Join(names, " "), nil
}

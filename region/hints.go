package region

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/cxlv/cxlv/host"
	"github.com/cxlv/cxlv/writer"
)

// hints turn a refused write into what a person can do about it, keyed by
// the attribute written and the errno the kernel returned (the reasons are
// those of the 6.1 stores in drivers/cxl and drivers/nvdimm).
var hints = []struct {
	attr  string
	errno syscall.Errno
	hint  string
}{
	{"uuid", syscall.EBUSY, "another region already has this uuid"},
	{"uuid", syscall.EINVAL, "the kernel wants a canonical, non-nil uuid"},
	{"create_pmem_region", syscall.EBUSY, "another region was created at the same time; try again"},
	{"create_ram_region", syscall.EBUSY, "another region was created at the same time; try again"},
	{"auto_online_blocks", syscall.EINVAL, "this kernel does not know that online policy"},
	{"size", syscall.ENOSPC, "not enough free space in the root decoder's window or the nd region; use a smaller --size"},
	{"size", syscall.ERANGE, "larger than the free part of the root decoder's window; use a smaller --size"},
	{"size", syscall.EINVAL, "the size must be a multiple of the alignment: 256 MiB for a CXL region, the nd region's align for a namespace"},
	{"dpa_size", syscall.ENOSPC, "the memdev has less free pmem capacity than that; use a smaller --size"},
	{"dpa_size", syscall.EBUSY, "the decoder is in use, or a lower decoder has no DPA yet"},
	{"mode", syscall.ENXIO, "the memdev has no capacity of that kind"},
	{"target0", syscall.ENXIO, "the memdev cannot be reached through this root decoder"},
	{"commit", syscall.ENXIO, "the region is missing targets"},
	{"bind", syscall.ENOENT, "the driver is not loaded: modprobe cxl_pmem nd_pmem dax_pmem (pmem) or dax_cxl kmem (ram)"},
	{"bind", syscall.ENXIO, "the driver refused the device; dmesg has its reason"},
	{"bind", syscall.ENODEV, "the driver refused the device; dmesg has its reason"},
	{"holder_class", syscall.EBUSY, "the namespace is enabled or claimed"},
	{"namespace", syscall.ENXIO, "the namespace is smaller than 16 MiB"},
}

// hintFor is the hint for err, a refused write to the system h.
func hintFor(err error, h host.Root) string {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return ""
	}
	if errno == syscall.EACCES || errno == syscall.EPERM {
		return "kernel state can only be changed as root"
	}
	// The kernel refuses a value, or a missing file (an unloaded driver's
	// bind) the open, with a *writer.WriteError.
	var we *writer.WriteError
	var attr string
	if errors.As(err, &we) {
		attr = filepath.Base(we.Path)
	}
	if attr == "commit" && errno == syscall.ENXIO && underHypervisor(h.Proc("cpuinfo")) {
		return hypervisorHint
	}
	for _, h := range hints {
		if h.attr == attr && h.errno == errno {
			return h.hint
		}
	}
	return ""
}

// hypervisorHint explains the commit refusal of Linux 6.2 and later in a
// VM: committing a region must invalidate CPU caches
// (cxl_region_invalidate_memregion), which the kernel will not do when the
// CPU reports a hypervisor. cxl_virt lifts it for its own regions unless
// loaded with coherent_regions=0 (virt.CommitsRefused says so first).
const hypervisorHint = "this CPU reports a hypervisor, and Linux 6.2+ refuses to commit CXL regions in a VM " +
	"(dmesg: Failed to synchronize CPU cache state): a cxl_virt device's regions commit when cxl_virt is loaded with coherent_regions=1 " +
	"(/sys/bus/cxl_virt/cache_invalidation: skipped); other devices need bare metal, or a VM with the bit hidden (QEMU -cpu ...,hypervisor=off)"

// underHypervisor reports whether the CPU flags of cpuinfo include
// "hypervisor".
func underHypervisor(cpuinfo string) bool {
	b, err := os.ReadFile(cpuinfo)
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "flags" {
			return slices.Contains(strings.Fields(v), "hypervisor")
		}
	}
	return false
}

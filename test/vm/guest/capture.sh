#!/bin/bash
# Guest side of test/vm/capture-fixtures.sh: runs a setup script (sourced,
# with lib.sh loaded), then captures the sysfs trees and the tools' JSON of
# the same boot into /out/fixture.
#   capture.sh SETUP_SCRIPT
. "$CXLV/test/vm/guest/lib.sh"
setup=$1
# shellcheck source=/dev/null
. "$setup"

dst=$OUT/fixture
mkdir -p "$dst/proc/self"
# NUMA nodes and memory blocks: what ghw and the memory views read.
roots=(/sys/bus/cxl /sys/bus/nd /sys/bus/dax /sys/firmware/memmap
	/sys/devices/system/node /sys/devices/system/memory)
# debugfs: cxl_virt's control files and the memdevs' poison files (6.5+).
debugfs=(/sys/kernel/debug/cxl/cxlv /sys/kernel/debug/cxl/mem*)
# /sys/module/cxl_virt: the version and srcversion `cxlvctl version` reads.
for optional in /sys/bus/cxl_virt /sys/devices/virtual/cxl_virt /sys/module/cxl_virt "${debugfs[@]}"; do
	[ -e "$optional" ] && roots+=("$optional")
done
step "snapshot sysfs" "$CXLV/test/tools/bin/sysfs-snap" "$dst" "${roots[@]}"
if [ -e "$dst/sys/kernel/debug/cxl" ]; then
	mkdir -p "$dst/debugfs"
	mv "$dst/sys/kernel/debug/cxl" "$dst/debugfs/"
	rm -r "$dst/sys/kernel"
fi
# The firmware's ACPI tables that node-tables reads: binary, so sysfs-snap
# leaves them out.
mkdir -p "$dst/sys/firmware/acpi/tables"
for t in APIC SRAT CEDT HMAT; do
	[ ! -e "/sys/firmware/acpi/tables/$t" ] || cat "/sys/firmware/acpi/tables/$t" >"$dst/sys/firmware/acpi/tables/$t"
done
# cpuinfo and self/mounts: what region reads (the hypervisor flag, the
# mounted namespaces).
for f in iomem meminfo cmdline cpuinfo self/mounts; do
	cat "/proc/$f" >"$dst/proc/$f"
done

# capture_json FILE CMD...: the command's JSON, recorded in INFO.
capture_json() {
	local file=$1
	shift
	"$@" >"$dst/$file" || return
	printf '%-22s %s\n' "$file" "$*" >>"$dst/INFO"
}
{
	echo "captured by test/vm/capture-fixtures.sh; setup: ${setup#"$CXLV"/}"
	echo "kernel $(uname -r); $(cxl version | sed 's/^/ndctl /')"
	echo "files and the commands that produced them:"
} >"$dst/INFO"
step "cxl list -vvv" capture_json cxl-list-vvv.json cxl list -vvv
step "cxl list -M -u" capture_json cxl-list-M-u.json cxl list -M -u
step "cxl list -M -D -R" capture_json cxl-list-M-D-R.json cxl list -M -D -R
step "ndctl list -v -R -N -D" capture_json ndctl-list.json ndctl list -v -R -N -D
step "ndctl list -Nv" capture_json ndctl-list-Nv.json ndctl list -N -v
step "daxctl list" capture_json daxctl-list.json daxctl list

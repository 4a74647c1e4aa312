#!/usr/bin/env bash
# Extracts the private drivers/cxl headers the module needs from the
# linux-source package into $GEN, but only when that package has exactly the
# version of linux-image-$KVER: a header from another ABI would build and then
# corrupt memory at run time. Re-extracts whenever the version changes.
#
# Usage: KVER=<release> GEN=<dir> extract-headers.sh
set -euo pipefail

: "${KVER:?KVER (kernel release) is required}"
: "${GEN:?GEN (output directory) is required}"

headers=(cxl.h cxlmem.h cxlpci.h)

imgver=$(dpkg-query -W -f='${Version}' "linux-image-$KVER" 2>/dev/null || true)
if [ -z "$imgver" ]; then
	echo "cxl_virt: linux-image-$KVER is not installed; install it or pass KVER=<release>" >&2
	exit 1
fi
series=${KVER%%-*}
series=${series%.*}
srcpkg=linux-source-$series
srcver=$(dpkg-query -W -f='${Version}' "$srcpkg" 2>/dev/null || true)
if [ "$srcver" != "$imgver" ]; then
	echo "cxl_virt: $srcpkg is ${srcver:-not installed} but linux-image-$KVER is $imgver; install $srcpkg=$imgver" >&2
	exit 1
fi

# Re-extract when the source version or this script changes.
stamp=$GEN/.source-version
want="$srcver $(sha256sum "$0" | cut -c1-16)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
	exit 0
fi

tarball=/usr/src/$srcpkg.tar.xz
# The files read below besides drivers/cxl's headers.
sources=(include/linux/device/bus.h include/linux/module.h include/linux/device.h
	include/linux/hrtimer.h include/linux/workqueue.h include/uapi/linux/pci_regs.h
	drivers/cxl/core/region.c include/linux/memregion.h drivers/cxl/core/hdm.c
	kernel/resource.c drivers/nvdimm/nd.h include/acpi/actbl1.h drivers/cxl/port.c)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# One pass over the tarball, since every pass decompresses all of it: the
# files above, drivers/cxl's headers and <cxl/...> (which 6.1 lacks: the
# one member allowed to be missing).
tar -xJf "$tarball" -C "$tmp" --wildcards "$srcpkg/drivers/cxl/*.h" "$srcpkg/include/cxl/*" \
	"${sources[@]/#/$srcpkg/}" 2>"$tmp/tar.err" ||
	! grep -v "include/cxl/\*: Not found in archive\|Exiting with failure status" "$tmp/tar.err" >&2 ||
	exit 1
mkdir "$tmp/gen"
for h in "${headers[@]}"; do
	cp "$tmp/$srcpkg/drivers/cxl/$h" "$tmp/gen/"
done
# Anything these headers include from drivers/cxl must come along too.
for inc in $(sed -n 's/^#include "\(.*\)"/\1/p' "$tmp/gen/"*.h | sort -u); do
	cp "$tmp/$srcpkg/drivers/cxl/$inc" "$tmp/gen/"
done
# and the <cxl/...> headers they include (6.1 has none).
for inc in $(sed -n 's|^#include <\(cxl/.*\)>|\1|p' "$tmp/gen/"*.h | sort -u); do
	sources+=("include/$inc")
done
for f in "${sources[@]}"; do
	[ -f "$tmp/$srcpkg/$f" ] || { echo "cxl_virt: $srcpkg $srcver has no $f" >&2; exit 1; }
done
rm -rf "$GEN"
mkdir -p "$(dirname "$GEN")"
mv "$tmp/gen" "$GEN"

# known WHAT FILE PATTERN...: FILE matches one of the forms cxlv_compat.h
# handles; otherwise the build stops here, naming the kernel and the piece,
# rather than produce a module that guesses.
known() {
	local what=$1 file=$2 p
	shift 2
	for p in "$@"; do
		grep -Eq "$p" "$tmp/$srcpkg/$file" && return 0
	done
	echo "cxl_virt: kernel $KVER ($srcpkg $srcver): $file has no form of $what that cxlv_compat.h knows; port the module to this CXL core" >&2
	exit 1
}
known 'MODULE_IMPORT_NS()' include/linux/module.h \
	'define MODULE_IMPORT_NS\(ns\)[[:space:]]+MODULE_INFO\(import_ns, (__stringify\()?ns\)?\)'
known 'cxl_decoder_add()' drivers/cxl/cxl.h \
	'^int cxl_decoder_add\(struct cxl_decoder \*cxld(, int \*target_map)?\);'
known 'cxl_root_decoder_alloc()' drivers/cxl/cxl.h \
	'cxl_root_decoder_alloc\(struct cxl_port \*port,$'
known 'devm_cxl_add_dport()' drivers/cxl/cxl.h \
	'^struct cxl_dport \*devm_cxl_add_dport\(struct cxl_port \*port,$'
# Region commit and reset invalidate the CPU caches from 6.2: cxlv_coherent.c
# makes cxl_virt's regions skip that in the two functions that do it.
if grep -q 'cpu_cache_has_invalidate_memregion()' "$tmp/$srcpkg/drivers/cxl/core/region.c"; then
	known 'commit_store()' drivers/cxl/core/region.c \
		'^static ssize_t commit_store\(struct device \*dev, struct device_attribute \*attr,$'
	known 'cxl_region_decode_reset()' drivers/cxl/core/region.c \
		'^static (void|int) cxl_region_decode_reset\(struct cxl_region \*cxlr, int count\)$'
	known 'cpu_cache_invalidate_memregion()' include/linux/memregion.h \
		'^int cpu_cache_invalidate_memregion\((int res_desc|phys_addr_t start, size_t len)\);'
fi
# The DVSEC registers are in cxlpci.h up to 6.x, in pci_regs.h from 7.x.
grep -Eq 'define PCI_DVSEC_CXL_REG_LOCATOR[[:space:]]' "$tmp/$srcpkg/include/uapi/linux/pci_regs.h" ||
	known 'the CXL DVSEC registers' drivers/cxl/cxlpci.h 'define CXL_DVSEC_REG_LOCATOR[[:space:]]'
# An HDM port claims its whole component register block (6.1) or only the
# HDM decoder capability in it (6.12 on): cxl_virt guards the rest.
known 'the HDM decoder register claim' drivers/cxl/core/hdm.c \
	'devm_cxl_iomap_block\(dev, port->component_reg_phys,$' \
	'cxl_map_component_regs\(reg_map, &cxlhdm->regs,$'
# A struct cxl_root (6.9 on) carries the ops whose qos_class CDAT-based
# performance needs: through a pointer (6.x) or embedded (7.x).
if grep -Eq '^struct cxl_root \{' "$tmp/$srcpkg/drivers/cxl/cxl.h"; then
	known 'the cxl_root ops' drivers/cxl/cxl.h \
		'^	const struct cxl_root_ops \*ops;' '^	struct cxl_root_ops ops;'
	known 'the qos_class op' drivers/cxl/cxl.h \
		'int \(\*qos_class\)\(struct cxl_root \*cxl_root,$'
	known 'the dport access coordinates' drivers/cxl/cxl.h \
		'^	struct access_coordinate coord\[ACCESS_COORDINATE_MAX\];'
fi
# libnvdimm exports nvdimm_clear_poison() but declares it only in its
# private nd.h: cxlv_badrange.c takes the declaration as the kernel writes
# it, never a copy of another kernel's.
nd_decls=(
	'^long nvdimm_clear_poison\(struct device \*dev, phys_addr_t phys,$'
)
for d in "${nd_decls[@]}"; do
	name=${d#* } name=${name%%\\*}
	known "$name()" drivers/nvdimm/nd.h "$d"
done
{
	printf '/* Generated by scripts/extract-headers.sh from %s %s drivers/nvdimm/nd.h. */\n' "$srcpkg" "$srcver"
	for d in "${nd_decls[@]}"; do
		RE=$d awk '$0 ~ ENVIRON["RE"] { p = 1 } p { print } p && /;$/ { exit }' \
			"$tmp/$srcpkg/drivers/nvdimm/nd.h"
	done
} >"$GEN/cxlv_nd.h"
feature() {	# feature MACRO PATTERN FILE...: PATTERN in any FILE there is
	local macro=$1 pattern=$2 f
	shift 2
	for f in "$@"; do
		if grep -Eqs "$pattern" "$tmp/$srcpkg/$f"; then
			printf '#define %s 1\n' "$macro"
			return
		fi
	done
	printf '/* %s: not in this kernel */\n' "$macro"
}
{
	printf '/* Generated by scripts/extract-headers.sh from %s %s. */\n' "$srcpkg" "$srcver"
	feature CXLV_HAVE_CONST_BUS 'bus_register\(const struct bus_type' include/linux/device/bus.h
	feature CXLV_HAVE_PORT_UPORT_DEV 'struct device \*uport_dev;' drivers/cxl/cxl.h
	feature CXLV_HAVE_DECODER_HOSTONLYMEM 'CXL_DECODER_HOSTONLYMEM' drivers/cxl/cxl.h
	feature CXLV_HAVE_CONST_FIND_CHILD 'device_find_child\(struct device \*[a-z]+, const void \*data' include/linux/device.h
	feature CXLV_HAVE_HRTIMER_SETUP 'void hrtimer_setup\(struct hrtimer \*timer' include/linux/hrtimer.h
	feature CXLV_HAVE_SYSTEM_DFL_WQ '^extern struct workqueue_struct \*system_dfl_wq;' include/linux/workqueue.h
	feature CXLV_HAVE_DECODER_TARGET_MAP 'int cxl_decoder_add\(struct cxl_decoder \*cxld\);' drivers/cxl/cxl.h
	feature CXLV_HAVE_LAZY_DPORTS 'struct cxl_dport \*\(\*add_dport\)\(struct cxl_port \*port' drivers/cxl/cxl.h
	feature CXLV_HAVE_PCI_DVSEC_CXL 'define PCI_DVSEC_CXL_REG_LOCATOR[[:space:]]' include/uapi/linux/pci_regs.h
	feature CXLV_HAVE_REGION_CACHE_INVALIDATE 'cpu_cache_has_invalidate_memregion\(\)' drivers/cxl/core/region.c
	feature CXLV_HAVE_RAM_REGIONS 'create_ram_region' drivers/cxl/core/region.c
	feature CXLV_HAVE_HDM_CAP_CLAIM 'cxl_map_component_regs\(reg_map, &cxlhdm->regs,$' drivers/cxl/core/hdm.c
	feature CXLV_HAVE_SINGLE_DPORT_HDM 'Fallback to passthrough decoder' drivers/cxl/port.c drivers/cxl/core/hdm.c
	feature CXLV_HAVE_SPLIT_REPARENT 'reparent_children_after_split\(res, new_res' kernel/resource.c
	feature CXLV_HAVE_CXL_ROOT '^struct cxl_root \{' drivers/cxl/cxl.h
	feature CXLV_HAVE_AUTO_REGIONS '^int cxl_add_to_region\(' drivers/cxl/core/region.c
	feature CXLV_HAVE_REGION_LOCK 'define CXL_REGION_F_LOCK[[:space:]]' drivers/cxl/cxl.h
	feature CXLV_HAVE_ROOT_OPS_PTR '^	const struct cxl_root_ops \*ops;' drivers/cxl/cxl.h
	feature CXLV_HAVE_IMPORT_NS_STRING 'define MODULE_IMPORT_NS\(ns\)[[:space:]]+MODULE_INFO\(import_ns, ns\)' include/linux/module.h
	# The kernel's own mailbox, event, poison and CDAT definitions
	feature CXLV_HAVE_EVENT_OPCODES 'CXL_MBOX_OP_GET_EVENT_RECORD[[:space:]]*=' drivers/cxl/cxlmem.h
	feature CXLV_HAVE_FW_TRANSFER 'CXL_MBOX_OP_TRANSFER_FW[[:space:]]*=' drivers/cxl/cxlmem.h
	feature CXLV_HAVE_TIMESTAMP_OPCODES 'CXL_MBOX_OP_SET_TIMESTAMP[[:space:]]*=' drivers/cxl/cxlmem.h
	feature CXLV_HAVE_EVENT_RECORDS '^union cxl_event \{' drivers/cxl/cxlmem.h include/cxl/event.h
	feature CXLV_HAVE_HEALTH_INFO '^struct cxl_get_health_info \{' drivers/cxl/cxlmem.h include/cxl/event.h
	feature CXLV_HAVE_POISON_PAYLOADS '^struct cxl_mbox_poison_out \{' drivers/cxl/cxlmem.h
	feature CXLV_HAVE_ACPI_CDAT '^struct acpi_cdat_dslbis \{' include/acpi/actbl1.h
} >"$GEN/cxlv_features.h"
echo "$want" >"$stamp"
echo "cxl_virt: extracted drivers/cxl headers from $srcpkg $srcver"

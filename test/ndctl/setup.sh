# The set-up that replaces loading cxl_test in ndctl's CXL tests: sourced by
# their test/common as test/ndctl/adapt.sh rewrites it (CXLV_NDCTL_SETUP),
# inside each test's shell, under its errexit and ERR trap, so a set-up
# failure fails the test where it happens. cxlv_setup creates the cxl_virt
# set a test looks for and names its CXL root as the test's bus;
# cxlv_teardown destroys its regions and removes it, as unloading cxl_test
# does. The guest scenario (test/e2e/ndctl-cxl.sh) exports CXLV_KO and
# CXLV_NDCTL_RANGE (memstart=...,memsize=... of a memmap= range).
# shellcheck shell=bash

# The tests' bus (-b). cxl's commands know a cxl_virt set by its name,
# which cxlv_setup sets. ndctl's know an nvdimm bus by its provider, which
# the kernel names "CXL" for every CXL nvdimm bus (cxl_test's mock renames
# its own "cxl_test"): security.sh names only nvdimm buses with it, reads it
# before it loads its module and compares it with its nmem's bus provider,
# so it gets that name from the start.
cxlv_nd_bus_test() { [ "$(basename "$0")" = security.sh ]; }
# shellcheck disable=SC2034 # read by the tests' commands
if cxlv_nd_bus_test; then CXL_TEST_BUS=CXL; else CXL_TEST_BUS=; fi
cxlv_dbg=/sys/kernel/debug/cxl/cxlv

# cxlv_ndctl_spec TEST: the create request for TEST. Tests that look for a
# root decoder across two host bridges (nr_targets == 2) get a 2-way set over
# two host bridges; the one that also wants memdevs with RAM and pmem
# capacity, the pmem from DPA 1 GiB as cxl_test's mock memdevs have it
# (cxl-poison.sh), such a set of partitioned memdevs of 1 GiB RAM + 512 MiB
# pmem each (CXLV_NDCTL_WIDE_RANGE); the one that looks for a memdev with
# RAM capacity a RAM device; the one that checks the platform's QoS class
# (test/common's CXL_TEST_QOS_CLASS, which cxl_test's mock ACPI gives) a
# pmem device the platform gives that class; the others one pmem device, the
# root decoder and the host bridge of one target each.
cxlv_ndctl_spec() {
	case $1 in
	cxl-poison.sh) echo "$CXLV_NDCTL_WIDE_RANGE,cxltype=3,pmem=1,ways=2,host_bridges=2,ram_size=$((2 << 30))" ;;
	cxl-qos-class.sh) echo "$CXLV_NDCTL_RANGE,cxltype=3,pmem=1,qos_class=$CXL_TEST_QOS_CLASS" ;;
	cxl-region-sysfs.sh | cxl-xor-region.sh)
		echo "$CXLV_NDCTL_RANGE,cxltype=3,pmem=1,ways=2,host_bridges=2" ;;
	cxl-destroy-region.sh) echo "$CXLV_NDCTL_RANGE,cxltype=3,pmem=0" ;;
	*) echo "$CXLV_NDCTL_RANGE,cxltype=3,pmem=1" ;;
	esac
}

# cxlv_setup: in place of modprobe cxl_test. The tests' rc is still 77
# (skip) there, so a failed set-up would count as a skip: it runs with rc 1.
cxlv_setup() {
	local dev i rc_before=$rc
	rc=1
	cxlv_teardown
	insmod "$CXLV_KO"
	cxlv_ndctl_spec "$(basename "$0")" >"$cxlv_dbg/create"
	dev=$(ls /sys/bus/cxl_virt/devices)
	for ((i = 0; i < 600; i++)); do
		cxlv_bound "$dev" && break
		sleep 0.1
	done
	cxlv_bound "$dev"
	cxlv_nd_bus_test || CXL_TEST_BUS=$dev
	rc=$rc_before
}

# cxlv_bound DEV: every memdev of DEV has its driver (its memdev file is
# empty until then).
cxlv_bound() {
	local mems
	read -ra mems <"/sys/bus/cxl_virt/devices/$1/memdev"
	[ ${#mems[@]} -gt 0 ]
}

# cxlv_teardown: what unloading cxl_test undoes, a test's regions and its
# DPA reservations (cxl reserve-dpa) included, then the set and the module.
cxlv_teardown() {
	local path dev m mems
	[ -d /sys/bus/cxl_virt ] || return 0
	for path in /sys/bus/cxl_virt/devices/*; do
		[ -e "$path" ] || continue
		dev=${path##*/}
		cxl destroy-region -f -b "$dev" all 2>&1 || true
		read -ra mems <"$path/memdev"
		for m in "${mems[@]}"; do
			cxl free-dpa -t pmem "$m" >/dev/null 2>&1 || true
			cxl free-dpa -t ram "$m" >/dev/null 2>&1 || true
		done
		printf 'cxlv_dev_id=%s' "${dev#cxlv}" >"$cxlv_dbg/remove"
	done
	rmmod cxl_virt
}

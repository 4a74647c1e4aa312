#!/bin/bash
# vm: --mem 3G --memmap 1G$0x100000000
# kernels: 7.3
# cxlv-region-fsdax on 7.3, whose cxl core has the poison interfaces, with
# two poisoned lines injected through debugfs (DPA 0x1000 and 0x200000),
# then the writes of `cxlvctl poison list mem0` done by hand (its
# trace_marker line, trigger_poison_list): the trace they gave, the
# event's enable (0 again) and tracing_on go to debugfs/tracing, where
# cxlvctl finds tracefs in a tree without sys/kernel/tracing; the memdev's
# debugfs directory (inject_poison, clear_poison) is captured with it.
# shellcheck source=test/vm/fixture-setup/cxlv-region-fsdax.sh
. "$CXLV/test/vm/fixture-setup/cxlv-region-fsdax.sh"
trace=/sys/kernel/tracing
[ -e $trace/events ] || mount -t tracefs nodev $trace
step "enable cxl_poison events" sh -c "echo 1 > $trace/events/cxl/cxl_poison/enable"
for dpa in 0x1000 0x200000; do
	step "inject DPA $dpa" sh -c "echo $dpa > /sys/kernel/debug/cxl/mem0/inject_poison"
done
step "mark the list" sh -c "echo 'cxlvctl poison list mem0' > $trace/trace_marker"
step "trigger the poison list" sh -c "echo 1 > /sys/bus/cxl/devices/mem0/trigger_poison_list"
step "disable cxl_poison events" sh -c "echo 0 > $trace/events/cxl/cxl_poison/enable"
saved=$OUT/fixture/debugfs/tracing
mkdir -p "$saved/events/cxl/cxl_poison"
for f in trace tracing_on events/cxl/cxl_poison/enable; do
	step "capture $f" cp "$trace/$f" "$saved/$f"
done

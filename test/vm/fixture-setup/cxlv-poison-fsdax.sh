#!/bin/bash
# vm: --mem 3G --memmap 1G$0x100000000
# kernels: 7.3
# cxlv-region-fsdax on 7.3, whose cxl core has the poison interfaces, with
# two poisoned lines injected through debugfs (DPA 0x1000 and 0x200000),
# then what `cxlvctl poison list mem0` does, by hand: a tracefs instance
# cxlvctl-poison-mem0 with the cxl_poison event enabled in it and one
# trigger_poison_list. The instance's trace and the global trace go to
# debugfs/tracing, where cxlvctl finds tracefs in a tree without
# sys/kernel/tracing; the memdev's debugfs directory (inject_poison,
# clear_poison) is captured with it.
# shellcheck source=test/vm/fixture-setup/cxlv-region-fsdax.sh
. "$CXLV/test/vm/fixture-setup/cxlv-region-fsdax.sh"
trace=/sys/kernel/tracing
[ -e $trace/events ] || mount -t tracefs nodev $trace
for dpa in 0x1000 0x200000; do
	step "inject DPA $dpa" sh -c "echo $dpa > /sys/kernel/debug/cxl/mem0/inject_poison"
done
instance=instances/cxlvctl-poison-mem0
step "make the tracefs instance" mkdir $trace/$instance
step "enable cxl_poison in it" sh -c "echo 1 > $trace/$instance/events/cxl/cxl_poison/enable"
step "trigger the poison list" sh -c "echo 1 > /sys/bus/cxl/devices/mem0/trigger_poison_list"
saved=$OUT/fixture/debugfs/tracing
mkdir -p "$saved/$instance"
step "capture the global trace" cp $trace/trace "$saved/trace"
step "capture the instance's trace" cp "$trace/$instance/trace" "$saved/$instance/trace"
step "remove the instance" rmdir $trace/$instance

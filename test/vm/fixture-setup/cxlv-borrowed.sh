#!/bin/bash
# vm: --mem 6G --append nokaslr
# No memmap=: two 512M ranges borrowed from System RAM, one with cxl_virt
# device cxlv0 (pmem=1, its memdev bound, no region) and one free (its
# device cxlv1 removed, the range kept borrowed).
cxlv0_memdev_bound() { [ -n "$(cat /sys/bus/cxl_virt/devices/cxlv0/memdev)" ] && all_memdevs_bound; }
borrow() { echo "borrow=1,memsize=0x20000000,cxltype=3,pmem=1" >/sys/kernel/debug/cxl/cxlv/create; }
step "load the CXL stack and cxl_virt" load_stack --ram --pmem
step "borrow 512M for cxlv0" borrow
step "borrow 512M for cxlv1" borrow
step "wait for the memdevs" wait_for 30 cxlv0_memdev_bound
step "remove cxlv1, keeping its range" sh -c 'echo cxlv_dev_id=1 >/sys/kernel/debug/cxl/cxlv/remove'
step "two borrowed ranges, one free" sh -c 'cat /sys/bus/cxl_virt/borrowed; [ "$(grep -c " free$" /sys/bus/cxl_virt/borrowed)" = 1 ]'

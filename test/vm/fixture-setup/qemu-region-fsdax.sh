#!/bin/bash
# vm: --hide-hypervisor --cxl --mem 2G
# QEMU's emulated device with a pmem region and an fsdax namespace (/dev/pmem0).
step "load CXL stack" load_stack --qemu
step "create pmem region" cxl create-region -m -d decoder0.0 -t pmem mem0
step "create fsdax namespace" ndctl create-namespace -r region0 -m fsdax

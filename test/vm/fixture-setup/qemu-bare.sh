#!/bin/bash
# vm: --cxl --mem 2G
# QEMU's emulated CXL type-3 device enumerated by the stock drivers, no region.
step "load CXL stack" load_stack --qemu

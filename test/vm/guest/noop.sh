#!/bin/bash
# Does nothing: measures a VM round trip (run-vm.sh -- test/vm/guest/noop.sh).
uname -r

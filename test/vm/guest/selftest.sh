#!/bin/bash
# Guest half of test/vm/selftest.sh: misbehaves on purpose.
#   selftest.sh fail|warn|hang
. "$CXLV/test/vm/guest/lib.sh"
case $1 in
fail) step "a step that fails" false ;;
# Injects a kernel-log line shaped like a WARN(): the host must reject the run.
warn) echo "WARNING: CPU: 0 PID: 1 at selftest injected by test/vm/guest/selftest.sh" >/dev/kmsg ;;
hang) sleep 3600 ;;
*) fail "selftest.sh: unknown mode $1" ;;
esac

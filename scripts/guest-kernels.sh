#!/usr/bin/env bash
# The one list of the guest kernels the project targets, and what `make test`
# does on each. The module is built and installed with DKMS for all of them.
#
#   Debian 12's 6.1 (linux-image-amd64, this machine)          whole suite
#   Debian 12's 6.12 (linux-image-6.12-amd64, +deb12, this     smoke set
#     machine; bookworm-security's build of trixie's line)
#   Debian 13's 6.12 (+deb13, the trixie root)                 whole suite
#   trixie-backports' 7.3 (+deb13, the trixie root)            whole suite
#   Debian 13's 6.12 PREEMPT_RT (+deb13-rt, the trixie root)   refused: make kmod
#                                                              and dkms install
#                                                              must fail with the
#                                                              module's one line
#                                                              (test/dkms/run.sh)
#
# The smoke set is the scenarios with a '# sets: smoke' line. The trixie
# kernels boot trixie's user space (ndctl 81); Debian 12's (76.1) is tested
# on 6.1 and on the +deb12 6.12, the kernels Debian 12 ships (no 7.x is
# built for it: 7.3 comes from trixie-backports only).
#
# guest-kernels.sh                 every release the module is built for,
#                                  one a line
# guest-kernels.sh --suite         the releases the whole suite runs on
# guest-kernels.sh --host          the releases installed on this machine
# guest-kernels.sh --role KVER     suite or smoke (nothing for another kernel)
# guest-kernels.sh --packages      this machine's meta packages (test/vm/deps.sh)
# guest-kernels.sh --trixie-series the series the trixie root installs
#                                  (test/vm/trixie-root.sh kernel SERIES)
# guest-kernels.sh --rt            the PREEMPT_RT releases the build refuses
# guest-kernels.sh --rt-series     their series in the trixie root
#                                  (test/vm/trixie-root.sh kernel --rt SERIES)
# Nothing is printed for a kernel that is not installed yet (make deps).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# WHERE WHAT ROLE: WHERE is host (WHAT: the meta package),
# trixie or trixie-rt (WHAT: the series in the trixie root, plain or -rt).
targets=(
	"host linux-image-amd64 suite"
	"host linux-image-6.12-amd64 smoke"
	"trixie 6.12 suite"
	"trixie 7.3 suite"
	"trixie-rt 6.12 refused"
)

# release WHERE WHAT: the installed release of one target.
release() {
	case $1 in
	host)
		dpkg-query -W -f='${Depends}' "$2" 2>/dev/null |
			grep -o 'linux-image-[^ ,]*' | head -1 | sed 's/^linux-image-//' || true ;;
	trixie | trixie-rt)
		# shellcheck disable=SC2046 # the flag or nothing
		bash "$here/../test/vm/trixie-root.sh" kernels $([ "$1" = trixie ] || echo --rt) |
			awk -v s="$2." 'index($0, s) == 1' | tail -1 ;;
	esac
}

mode=${1:-}
for target in "${targets[@]}"; do
	read -r where what role <<<"$target"
	case $mode in
	--packages) [ "$where" = host ] && echo "$what" ;;
	--trixie-series) [ "$where" = trixie ] && echo "$what" ;;
	--rt-series) [ "$where" = trixie-rt ] && echo "$what" ;;
	--rt) [ "$role" = refused ] && release "$where" "$what" ;;
	'') [ "$role" != refused ] && release "$where" "$what" ;;
	--suite) [ "$role" = suite ] && release "$where" "$what" ;;
	--host) [ "$where" = host ] && release "$where" "$what" ;;
	--role) [ "$(release "$where" "$what")" = "${2:?--role KVER}" ] && echo "$role" ;;
	*) echo "guest-kernels.sh: unknown option '$mode' (--suite, --host, --role KVER, --packages, --trixie-series, --rt, --rt-series)" >&2; exit 2 ;;
	esac
done
exit 0

# cxlv: the cxl_virt kernel module, the cxlvctl control plane and the VM bench
# that proves both against the stock Debian kernel.

SHELL := /bin/bash
GO ?= go
export PATH := $(PATH):/usr/local/go/bin:/usr/lib/go-1.23/bin
# A Go older than go.mod's fetches the right toolchain through the module proxy.
export GOTOOLCHAIN := auto
# Static, so the same binary runs in the VM's initramfs.
export CGO_ENABLED := 0
# Guest kernel releases, unless given (KVERS, or one KVER): Debian 12's 6.1
# and 6.12 (+deb12), Debian 13's 6.12 (+deb13) and trixie-backports' 7.3, the
# one list in scripts/guest-kernels.sh. The module is built for each; Debian
# 13's kernels inside the project's trixie root (test/vm/trixie-root.sh).
# Expanded when used, so after `deps` has installed them.
KVERS ?= $(or $(KVER),$(shell bash scripts/guest-kernels.sh))

.PHONY: all deps go build kmod install install-test deb deb-test test lint unit gofuzz fuzz e2e dkms stress demo bench fixtures checkpatch clean

all: build kmod

# The packages, Debian 12's guest kernels, and the trixie root with Debian
# 13's (made on the first run, about 5 min).
deps: go
	@bash test/vm/deps.sh

go:
	@bash scripts/ensure-go.sh

# bin/cxlvctl.test: the e2e suite runs cxlvctl's live cross-checks in the guest.
# urfave_cli_no_docs: leaves out urfave/cli's markdown and man page writers
# (blackfriday, go-md2man), whose init was the largest of cxlvctl's start-up.
# -s -w: the binaries (those `make install` ships) without the symbol table
# and DWARF, a third of their size; the test binary keeps them.
# bin/cxlvctl-info: `cxlvctl info` execs it from cxlvctl's directory; it
# alone links ghw, whose package inits cxlvctl's other commands then skip.
build: go
	$(GO) build -trimpath -tags urfave_cli_no_docs -ldflags='-s -w' -o bin/ ./cmd/cxlvctl ./cmd/cxlvctl-info
	$(GO) test -c -tags urfave_cli_no_docs -o bin/cxlvctl.test ./cmd/cxlvctl

# The binaries (cxlvctl and its info helper, side by side), a man page per command (rendered from the same definitions as
# --help), the completions, in the places Debian's bash, zsh and fish read,
# and the JSON reference.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(if $(filter /usr,$(PREFIX)),$(PREFIX)/share/zsh/vendor-completions,$(PREFIX)/share/zsh/site-functions)
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
DOCDIR ?= $(PREFIX)/share/doc/cxlvctl
install: build
	install -D -m 0755 -t $(DESTDIR)$(BINDIR) bin/cxlvctl bin/cxlvctl-info
	bin/cxlvctl __man $(DESTDIR)$(MANDIR)/man1
	install -D -m 0644 completions/cxlvctl.bash $(DESTDIR)$(BASHCOMPDIR)/cxlvctl
	install -D -m 0644 completions/cxlvctl.zsh $(DESTDIR)$(ZSHCOMPDIR)/_cxlvctl
	install -D -m 0644 completions/cxlvctl.fish $(DESTDIR)$(FISHCOMPDIR)/cxlvctl.fish
	install -D -m 0644 docs/json.md $(DESTDIR)$(DOCDIR)/json.md

# `make install` into a scratch DESTDIR: files in place, pages render,
# completions load in bash, zsh and fish.
install-test: deps build
	bash test/install/run.sh

# cxlv-dkms and cxlvctl .debs in bin/deb/, and their install with apt in
# clean Debian 12 and 13 chroots.
deb: build
	bash scripts/deb.sh

deb-test: deps deb
	bash test/deb/run.sh

# test/claim: the test-only module the e2e scenarios load in the guest.
kmod: deps
	@for k in $(KVERS); do $(MAKE) -C kmod KVER=$$k && $(MAKE) -C test/claim KVER=$$k || exit 1; done

unit: go
	$(GO) vet ./...
	$(GO) test ./...
	bash scripts/readme-results.sh --check
	bash scripts/readme-claims.sh

# gofmt, staticcheck on every package and deadcode on the programs, failing
# on any finding; the pinned tools are built on first use (scripts/lint.sh).
# Then the module's layers: no file includes a header of a higher layer.
lint: go
	bash scripts/lint.sh
	bash scripts/check-layers.sh

# Every Go fuzz target for a bounded number of inputs (GOFUZZ_TIME).
gofuzz: go
	bash scripts/gofuzz.sh

# The user-space harness of the module's create/remove parser, and the
# static guest tools the VM fuzz scenario uses.
fuzz:
	$(MAKE) -C test/fuzz test

# The suite on each guest kernel, whole or its smoke set as
# scripts/guest-kernels.sh says (test/vm/run-e2e.sh); a failure on one still
# runs the next. Two boots at a time (E2E_JOBS): one TCG guest keeps about 1.2
# of the 2 cores busy, and with three whole suites one at a time make test
# took about 62 minutes.
E2E_JOBS ?= 2
e2e: deps build kmod fuzz
	E2E_JOBS=$(E2E_JOBS) bash test/vm/run-e2e.sh $(KVERS)

# The README's `dkms install` for each guest kernel: Debian 12's on this
# host, Debian 13's in the trixie root.
dkms: deps kmod
	bash test/dkms/run.sh $(KVERS)

test: lint unit install-test deb-test gofuzz checkpatch fuzz dkms e2e

# Issue 7's full counts; `make test` runs the bounded versions.
stress: deps build kmod fuzz
	bash test/stress/run.sh
	bash test/stress/borrow.sh

demo: deps build kmod
	bash test/demo.sh

bench: deps build kmod
	bash test/bench/startup.sh
	bash test/bench/run.sh
	bash test/bench/ram-node.sh
	bash test/bench/demotion.sh
	bash test/bench/interleave.sh
	bash scripts/readme-results.sh

fixtures: deps build kmod
	bash test/vm/capture-fixtures.sh

# checkpatch.pl unpacked once into the VM cache (test/vm/common.sh), not into
# every clone: unpacking it decompresses all of linux-source.
checkpatch: deps
	. test/vm/common.sh && CHECKPATCH_DIR=$$cache_dir/checkpatch bash kmod/scripts/checkpatch.sh

clean:
	rm -rf bin
	-$(MAKE) -C kmod clean
	-$(MAKE) -C test/claim clean

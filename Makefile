# cxlv: the cxl_virt kernel module, the cxlvctl control plane and the VM bench
# that proves both against the stock Debian kernel.

SHELL := /bin/bash
GO ?= go
export PATH := $(PATH):/usr/local/go/bin:/usr/lib/go-1.23/bin
# A Go older than go.mod's fetches the right toolchain through the module proxy.
export GOTOOLCHAIN := auto
# Static, so the same binary runs in the VM's initramfs.
export CGO_ENABLED := 0
# Guest kernel release: what linux-image-amd64 points to, unless given.
KVER ?= $(shell dpkg-query -W -f='$${Depends}' linux-image-amd64 2>/dev/null | grep -o 'linux-image-[^ ,]*' | head -1 | sed 's/^linux-image-//')

.PHONY: all deps go build kmod test unit gofuzz fuzz e2e stress demo bench fixtures checkpatch clean

all: build kmod

deps: go
	@bash test/vm/deps.sh

go:
	@bash scripts/ensure-go.sh

# bin/cxlvctl.test: the e2e suite runs cxlvctl's live cross-checks in the guest.
build: go
	$(GO) build -trimpath -o bin/cxlvctl ./cmd/cxlvctl
	$(GO) test -c -o bin/cxlvctl.test ./cmd/cxlvctl

kmod: deps
	$(MAKE) -C kmod KVER=$(KVER)

unit: go
	$(GO) vet ./...
	$(GO) test ./...

# Every Go fuzz target for a bounded number of inputs (GOFUZZ_TIME).
gofuzz: go
	bash scripts/gofuzz.sh

# The user-space harness of the module's create/remove parser, and the
# static guest tools the VM fuzz scenario uses.
fuzz:
	$(MAKE) -C test/fuzz test

e2e: deps build kmod fuzz
	bash test/vm/run-suite.sh

test: unit gofuzz checkpatch fuzz e2e

# Issue 7's full counts; `make test` runs the bounded versions.
stress: deps build kmod fuzz
	bash test/stress/run.sh

demo: deps build kmod
	bash test/demo.sh

bench: deps build kmod
	bash test/bench/run.sh

fixtures: deps build kmod
	bash test/vm/capture-fixtures.sh

checkpatch: deps
	bash kmod/scripts/checkpatch.sh

clean:
	rm -rf bin
	-$(MAKE) -C kmod clean

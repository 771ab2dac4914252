# SPDX-License-Identifier: GPL-2.0
# smo - Slab Movable Objects for Linux: the map of the project.
#
#   make demo        boot the guest and run bench/demo (installs what is missing)
#   make check       install what is missing, build everything, run the bats
#                    suite once, slow tests skipped; "N passed, N failed"
#                    (make check-full: the slow ones too, as CI; make
#                    check-slub-debug: the object-moving files again with
#                    slub_debug=FZPU)
#   make help        all targets
#
# Everything built lives in $(SMO_CACHE) (default ~/.cache/smo), keyed by the
# kernel source version, the patches of kernel-patch/series and vm/config/.

SHELL := /bin/bash
SMO_CACHE ?= $(HOME)/.cache/smo
export SMO_CACHE
# Kernel flavor: normal, or debug (KASAN, lockdep, kmemleak, KFENCE,
# failslab; caches not in SLUB debug mode: vm/config/flavor/debug.config;
# its own cache key)
FLAVOR ?= normal
SMO_FLAVOR ?= $(FLAVOR)
export SMO_FLAVOR
FILE ?=

.DEFAULT_GOAL := help

help: ## this list
	@echo "smo - Slab Movable Objects for Linux"
	@echo
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | \
		awk -F':.*## ' '{ printf "  make %-20s %s\n", $$1, $$2 }'
	@echo
	@echo "Variables: SMO_CACHE=$(SMO_CACHE)  SMO_CMDLINE (extra guest kernel args)"
	@echo "           FLAVOR=normal|debug|kcsan|mainline (kernel flavor, e.g. make check FLAVOR=debug)"
	@echo "           FILE=selftests/x.bats (check-one)  VM_TIMEOUT (per guest command, s)"
	@echo "           SMO_CHECK_FULL=1 (check, check-one: run the tests marked vm_slow too)"

deps: ## install missing Debian packages (apt-get; needs root)
	vm/install-deps

kernel: ## prepare, patch (kernel-patch/series), configure and build the guest kernel
	vm/build-kernel >/dev/null

modules: kernel ## build every module under modules/ against the guest kernel
	vm/build-modules

initramfs: modules ## build the guest initramfs (busybox, kmod, modules, agent)
	vm/build-initramfs >/dev/null

build: ## kernel + modules + initramfs (vm/build, the one builder; prints the kernel's key)
	vm/build

vm: build ## boot an interactive guest shell on this terminal (Ctrl-A X quits)
	vm/boot --interactive

check: ## install what is missing, build, run every selftest once, the slow ones skipped (the quick run, two files at a time: about 5 min warm)
	vm/install-deps
	vm/check

check-full: ## make check with the slow tests too (vm_slow: reboots, lib/test_xarray, the system workload; CI runs it)
	vm/install-deps
	SMO_CHECK_FULL=1 vm/check

check-slub-debug: ## the object-moving selftests again with slub_debug=FZPU on every cache (the series' debug branches; CI runs it)
	vm/install-deps
	vm/check --slub-debug

check-debug-full: ## every selftest on the debug kernel (make check FLAVOR=debug runs the object-moving subset; not in CI: ~60 min)
	SMO_DEBUG_FULL=1 $(MAKE) --no-print-directory check FLAVOR=debug SMO_FLAVOR=debug

check-kcsan: ## strict KCSAN flavor with full preemption: smo_test, node, reliability and autonomy suites (not in CI: ~15 min build, ~32 min run)
	vm/install-deps
	SMO_FLAVOR=kcsan vm/check selftests/smo_test.bats selftests/node.bats selftests/reliability.bats selftests/autonomy.bats

check-one: ## run one bats file once: make check-one FILE=selftests/x.bats
	@test -n "$(FILE)" || { echo "usage: make check-one FILE=selftests/x.bats" >&2; exit 2; }
	vm/check --once $(FILE)

demo: ## install what is missing, build, boot a guest and run the demo (bench/demo)
	vm/install-deps
	vm/with-vm bench/demo

checkpatch: kernel ## scripts/checkpatch.pl --strict on every patch and module source (named exceptions only)
	vm/checkpatch

dist: ## the two DKMS source tarballs, smo and smo-tests ($(SMO_CACHE)/dist/*-VERSION.tar.gz)
	vm/dist

dkms-check: kernel ## DKMS builds, skips an unpatched 6.12, installs; a guest modprobes the installed modules and runs the template tests
	vm/dkms-check

bench: ## what SMO buys and costs, as ratios in one boot: table, bench/out/results.json, bench/out/bench.png
	vm/with-vm bench/run

bench-seed-cmpxchg: ## hotpath rows on a kernel whose movable caches lose the double-word cmpxchg, as in the 2019 RFC (builds that flavor)
	SMO_FLAVOR=seed-cmpxchg vm/with-vm bench/run --only hotpath --out bench/out/seed-cmpxchg

bench-system: ## smo vs mainline 6.12 on a fragmenting file workload: huge pages after/at boot, slab use, pageblock census (builds both kernels, each with the census patch; ~10 min warm, ~20 cold)
	SMO_MAINLINE_KEY=$$(SMO_FLAVOR=mainline vm/build) && \
		SMO_KERNEL_KEY=$$(SMO_FLAVOR=census vm/build) && \
		export SMO_MAINLINE_KEY SMO_KERNEL_KEY SMO_FLAVOR=census && bench/system

bench-pathwalk: ## cached path walks (stat of 16384 tmpfs paths), smo vs mainline, alternating boots: ratio >= 0.99 (not in CI: a second kernel; ~5 min warm, on a quiet host)
	SMO_MAINLINE_KEY=$$(SMO_FLAVOR=mainline vm/build) && \
		SMO_KERNEL_KEY=$$(SMO_FLAVOR=normal vm/build) && \
		export SMO_MAINLINE_KEY SMO_KERNEL_KEY && bench/pathwalk

bench-dentry: ## dentry slabs freed per evicted dentry: smo_dentry vs the shrinker
	vm/with-vm bench/dentry

bench-harness: ## print the harness's cold/warm/boot timings (takes ~10 min)
	vm/install-deps
	bench/harness-figures

bisect-check: kernel ## every patch applies with git am and builds on its own (warnings fail)
	vm/bisect-check

bisect-check-full: kernel ## bisect-check with the whole kernel (vmlinux, modpost, modules) after each patch (not in CI: ~30-40 min)
	vm/bisect-check --full

debian-config-check: ## the series' objects compile with Debian's amd64 config (O= build)
	vm/debian-config-check

guide-check: ## run README's module author's guide verbatim in a temporary clone
	vm/guide-check

static-check: bisect-check ## sparse (make C=2) on every object the series changes: no warning the pristine tree lacks
	vm/static-check

static-check-full: bisect-check ## static-check plus coccinelle (every scripts/coccinelle rule) on the changed files (not in CI: ~8 more minutes)
	vm/install-deps --full
	vm/static-check --full

radix-tree-check: kernel ## build and run tools/testing/radix-tree (xarray, idr-test, multiorder) of the patched tree on the host
	vm/radix-tree-check --quick "$$(vm/prepare-tree --print-kdir)"

config-variants: ## the series with MOVABLE=n, SLUB_DEBUG=n and NUMA=n: each builds; the last two boot and move objects (not in CI: ~20 min)
	vm/config-variants

mte-check: ## the dentry and XArray workloads on an arm64 MTE guest with KASAN_HW_TAGS (not in CI: needs a QEMU whose MTE works; Debian 12's 7.2 panics at boot even without the series)
	vm/mte-check

clean-cache: ## remove $(SMO_CACHE) (all built kernels, initramfs, logs)
	@echo "removing $(SMO_CACHE)"
	@case "$(SMO_CACHE)" in ""|/|"$(HOME)"|"$(HOME)/") echo "refusing to remove '$(SMO_CACHE)'" >&2; exit 1;; esac
	rm -rf -- "$(SMO_CACHE)"

clean: ## remove module build output in the checkout
	-$(MAKE) -C modules KDIR=$$(vm/prepare-tree --print-kdir) clean

.PHONY: mte-check check-full check-debug-full check-slub-debug static-check static-check-full bench-pathwalk radix-tree-check check-kcsan config-variants bench bench-system bench-seed-cmpxchg bisect-check bisect-check-full debian-config-check guide-check checkpatch dist dkms-check bench-dentry help deps kernel modules initramfs build vm check check-one demo bench-harness clean-cache clean

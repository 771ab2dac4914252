#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The packager's path, run by vm/dkms-check (make dkms-check): the guest
# boots an initramfs whose module tree is the one DKMS installed for the
# guest kernel (packages smo and smo-tests), and loads the modules by name.
# Anywhere else (VM_MODPROBE unset, as in make check) those tests skip.
#
# The last tests run on the host everywhere, without a guest: each shows
# that a check of CI's packaging and hygiene steps fails on the damage it
# is there for (vm/radix-tree-check, vm/checkpatch's SPDX check,
# vm/static-check and vm/debian-config-check with a stale SMO_KERNEL_KEY),
# on made-up inputs in the test's temporary directory.

load lib/vm

USER_MODULES="smo_dentry smo_node smo_template"
TEST_MODULES="smo_test smo_xarray smo_bench"

setup_file() {
	[[ "${VM_MODPROBE:-0}" == 1 ]] || return 0
	vm_start
}

teardown_file() {
	[[ "${VM_MODPROBE:-0}" == 1 ]] || return 0
	vm_stop
}

# needs_dkms_guest: skip unless the guest boots DKMS's module tree
needs_dkms_guest() {
	[[ "${VM_MODPROBE:-0}" == 1 ]] ||
		skip "needs the DKMS-installed module tree (make dkms-check)"
}

teardown() {
	[[ "${VM_MODPROBE:-0}" == 1 ]] || return 0
	vm_teardown_test
}

@test "the guest's modules are the ones DKMS installed, with their dependencies" {
	needs_dkms_guest
	run -1 vm_run "test -e /lib/modules/smo"
	run -0 vm_run 'ls /lib/modules/$(uname -r)/modules.dep'
	for m in $USER_MODULES $TEST_MODULES; do
		run -0 vm_run "modinfo -F filename $m"
		[[ "$output" == /lib/modules/*/$m.ko* ]] || { echo "$m: $output"; false; }
	done
}

@test "every module of both packages loads by name and unloads" {
	needs_dkms_guest
	for m in $USER_MODULES $TEST_MODULES; do
		run -0 vm_insmod "$m"
		vm_module_loaded "$m"
		run -0 vm_rmmod "$m"
	done
}

@test "only the test modules carry MODULE_INFO(test) and taint the kernel with TAINT_TEST" {
	needs_dkms_guest
	local m taint
	for m in $USER_MODULES; do
		run -0 vm_run "modinfo -F test $m"
		[ -z "$output" ] || { echo "$m: test=$output"; false; }
	done
	for m in $TEST_MODULES; do
		run -0 vm_run "modinfo -F test $m"
		[ "$output" = Y ] || { echo "$m: test=$output"; false; }
	done
	# The kernel's taint is sticky and the test before loaded the test
	# modules, so TAINT_TEST (bit 18 of /proc/sys/kernel/tainted) is set
	# here whatever this test loads.  What each module did itself is in
	# its own taint flags, /sys/module/NAME/taint (the kernel adds a
	# module's flag to its own): N is TAINT_TEST, O (out of tree) is there
	# for every one of ours, so an empty read fails too.
	for m in $USER_MODULES $TEST_MODULES; do
		run -0 vm_run "modprobe $m && echo taint=\$(cat /sys/module/$m/taint) && rmmod $m"
		taint="$(sed -n 's/^taint=//p' <<<"$output")"
		[[ "$taint" == *O* ]] || { echo "$m: taint '$taint' lacks O: not the module load we mean"; false; }
		if [[ " $TEST_MODULES " == *" $m "* ]]; then
			[[ "$taint" == *N* ]] || { echo "$m: taint '$taint' lacks N (TAINT_TEST)"; false; }
		else
			[[ "$taint" != *N* ]] || { echo "$m: taint '$taint' has N (TAINT_TEST)"; false; }
		fi
	done
}

# Host side, no guest

@test "radix-tree-check fails a test binary that exits 0 without its summary line" {
	local d="$BATS_TEST_TMPDIR" rtc="$VM_ROOT/vm/radix-tree-check"
	printf 'XArray: 412 of 412 tests passed\n' >"$d/xarray.log"
	run -0 "$rtc" --verdict xarray "$d/xarray.log"
	: >"$d/empty.log"
	for t in xarray idr-test main maple; do
		run -1 "$rtc" --verdict "$t" "$d/empty.log"
		assert_output --partial "tests passed\" (want 1"
	done
	printf 'XArray: 411 of 412 tests passed\n' >"$d/short.log"
	run -1 "$rtc" --verdict xarray "$d/short.log"
	assert_output --partial "failed checks: XArray: 411 of 412"
	printf 'XArray: 0 of 0 tests passed\n' >"$d/zero.log"
	run -1 "$rtc" --verdict xarray "$d/zero.log"
	# main runs the XArray checks first, then the rest up to "tests completed"
	run -1 "$rtc" --verdict main "$d/xarray.log"
	assert_output --partial 'no line "tests completed"'
	printf 'tests completed\n' >>"$d/xarray.log"
	run -0 "$rtc" --verdict main "$d/xarray.log"
	printf 'IDA: 34 of 34 tests passed\nnr_allocated = 3\n' >"$d/idr.log"
	run -1 "$rtc" --verdict idr-test "$d/idr.log"
	assert_output --partial "leak: nr_allocated = 3"
}

@test "checkpatch's SPDX check fails on a missing line and on a licence LICENSES/ lacks" {
	local d="$BATS_TEST_TMPDIR" k="$BATS_TEST_TMPDIR/kdir" cp="$VM_ROOT/vm/checkpatch" l
	local -a p
	# a tree's LICENSES/ in small: GPL-2.0 and MIT, one exception
	mkdir -p "$k"/LICENSES/{preferred,dual,deprecated,exceptions}
	printf 'Valid-License-Identifier: GPL-2.0\nValid-License-Identifier: GPL-2.0+\n' >"$k/LICENSES/preferred/GPL-2.0"
	printf 'Valid-License-Identifier: MIT\n' >"$k/LICENSES/preferred/MIT"
	printf 'Valid-License-Identifier: Apache-2.0\n' >"$k/LICENSES/dual/Apache-2.0"
	printf 'Valid-License-Identifier: Zlib\n' >"$k/LICENSES/deprecated/Zlib"
	printf 'SPDX-Exception-Identifier: Linux-syscall-note\n' >"$k/LICENSES/exceptions/Linux-syscall-note"
	# what we ship passes (not what kbuild generates: *.mod.c)
	p=()
	for l in "$VM_ROOT"/modules/*/*.[ch] "$VM_ROOT"/modules/*/Kbuild; do
		[[ "$l" == *.mod.c ]] || p+=("$l")
	done
	run -0 "$cp" --spdx "$k" "${p[@]}"
	mapfile -t p < <(smo_series | sed "s|^|$VM_ROOT/kernel-patch/|")
	run -0 "$cp" --spdx "$k" "${p[@]}"
	for l in '// SPDX-License-Identifier: GPL-2.0' '// SPDX-License-Identifier: (GPL-2.0 OR MIT)'; do
		printf '%s\nint x;\n' "$l" >"$d/ok.c"
		run -0 "$cp" --spdx "$k" "$d/ok.c"
	done
	printf '/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */\n' >"$d/ok.h"
	run -0 "$cp" --spdx "$k" "$d/ok.h"
	# no line, the wrong comment style, an unknown licence or exception
	for l in 'int y;' '/* SPDX-License-Identifier: GPL-2.0 */' '// SPDX-License-Identifier: GPL-2.0-bogus' \
		'// SPDX-License-Identifier: GPL-2.0 WITH MIT' '// SPDX-License-Identifier: GPL-2.0 OR'; do
		printf '%s\nint x;\n' "$l" >"$d/bad.c"
		run -1 "$cp" --spdx "$k" "$d/bad.c"
		assert_output --partial "bad.c: SPDX: "
	done
	# a file a patch creates: its first added line
	sed '0,/^+\/\/ SPDX-License-Identifier: GPL-2.0$/s//+\/\/ SPDX-License-Identifier: GPL-2.0-bogus/' \
		"$VM_ROOT"/kernel-patch/0019-*.patch >"$d/0019.patch"
	run -1 "$cp" --spdx "$k" "$d/0019.patch"
	assert_output --partial "mm/slab_movable_kunit.c line 1: 'GPL-2.0-bogus' is no licence"
}

# stale_key_cache DIR: an SMO_CACHE in DIR whose bisect repository has a
# branch smo-deadbeef0000 and whose debian-config/ has a patched tree
# src-deadbeef0000 (an older series), plus a Debian config package, all
# made up; prints nothing
stale_key_cache() {
	local c="$1/cache" r="$1/cache/bisect/linux-source-6.12" t
	local -a g=(git -C "$r" -c user.name=t -c user.email=t@localhost)
	mkdir -p "$r" "$1/deb/DEBIAN" "$1/deb/usr/src/linux-config-6.12" "$1/tar/linux-source-6.12"
	"${g[@]}" init -q
	echo pristine >"$r/f"
	"${g[@]}" add f
	"${g[@]}" commit -q -m pristine
	"${g[@]}" tag pristine
	"${g[@]}" checkout -q -b smo-deadbeef0000
	echo older series >"$r/f"
	"${g[@]}" commit -q -a -m "an older series"
	"${g[@]}" rev-list --reverse pristine..smo-deadbeef0000 >"$c/bisect/.series-deadbeef0000"
	printf 'Package: linux-config-6.12\nVersion: 1\nArchitecture: all\nMaintainer: t <t@localhost>\nDescription: t\n' \
		>"$1/deb/DEBIAN/control"
	printf 'CONFIG_64BIT=y\n' | xz >"$1/deb/usr/src/linux-config-6.12/config.amd64_none_amd64.xz"
	mkdir -p "$c/debian-config"
	dpkg-deb -b "$1/deb" "$c/debian-config/linux-config-6.12_1_all.deb" >/dev/null
	t="$c/debian-config/src-deadbeef0000/linux-source-6.12"
	mkdir -p "$t/scripts"
	touch "$c/debian-config/src-deadbeef0000/.prepared"
	printf '#!/bin/sh\necho "the tree of deadbeef0000 was used" >&2\nexit 1\n' >"$t/scripts/config"
	chmod +x "$t/scripts/config"
	echo not a kernel >"$1/tar/linux-source-6.12/README"
	tar -C "$1/tar" -cJf "$1/linux.tar.xz" linux-source-6.12
}

@test "static-check and debian-config-check take the series in kernel-patch/, not a stale SMO_KERNEL_KEY" {
	command -v dpkg-deb >/dev/null || skip "no dpkg-deb"
	smo_linux_version >/dev/null 2>&1 || skip "$SMO_LINUX_PKG is not installed"
	local d="$BATS_TEST_TMPDIR" key
	stale_key_cache "$d"
	key="$("$VM_ROOT/vm/prepare-tree" --print-key)"
	[[ "$key" != deadbeef0000 ]]
	run -1 env SMO_CACHE="$d/cache" SMO_KERNEL_KEY=deadbeef0000 "$VM_ROOT/vm/static-check"
	assert_output --partial "no branch smo-$key in"
	key="$(SMO_FLAVOR=normal "$VM_ROOT/vm/prepare-tree" --print-key)"
	# the made-up tarball takes no patch: the check stops at the first, in
	# a tree of the current key, after removing the one of the stale key
	run -1 env SMO_CACHE="$d/cache" SMO_KERNEL_KEY=deadbeef0000 SMO_LINUX_TARBALL="$d/linux.tar.xz" \
		"$VM_ROOT/vm/debian-config-check"
	refute_output --partial "the tree of deadbeef0000 was used"
	assert_output --partial "removing old tree $d/cache/debian-config/src-deadbeef0000"
	assert_output --partial "does not apply"
	[[ -d "$d/cache/debian-config/src-$key" && ! -e "$d/cache/debian-config/src-deadbeef0000" ]]
}

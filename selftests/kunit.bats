#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The series' own in-tree tests, run in the guest and folded into this
# suite: the KUnit suite slab_movable (mm/slab_movable_kunit.c: setup
# errors, a fragmented movable cache shrinking with every object intact,
# turning mobility off waits for passes) and lib/test_xarray.c, whose
# check_movable() moves the nodes of an XA_FLAGS_MOVABLE array.  Both are
# modules of the kernel tree (vm/config/smo.config); vm/build-initramfs
# ships them in /lib/modules/smo/kunit/.  Their KTAP and summary lines are
# printed with each test.

load lib/vm

KUNIT_DIR=/lib/modules/smo/kunit
# test_xarray runs millions of checks: a minute or two under TCG
vm_min_timeout 900

setup_file() {
	vm_start
}

teardown_file() {
	vm_stop
}

teardown() {
	vm_run "rmmod slab_movable_kunit test_xarray 2>/dev/null; true"
}

@test "KUnit suite slab_movable: every case passes" {
	run -0 vm_run "test -f $KUNIT_DIR/slab_movable_kunit.ko"
	run -0 vm_run "insmod $KUNIT_DIR/slab_movable_kunit.ko"
	run -0 vm_run "cat /sys/kernel/debug/kunit/slab_movable/results"
	echo "$output"
	sed 's/^/# /' <<<"$output" >&3
	# one "ok N name" per case, none "not ok", and the suite line
	cases=$(grep -cE '^[[:space:]]+ok [0-9]+ slab_movable_test_' <<<"$output" || true)
	failed=$(grep -cE 'not ok' <<<"$output" || true)
	echo "cases passed: $cases, failed: $failed"
	[ "$failed" -eq 0 ]
	[ "$cases" -ge 6 ]
	grep -qE '^ok [0-9]+ slab_movable' <<<"$output"
}

@test "lib/test_xarray passes, check_movable() included" {
	# 158 million checks: about a minute on the normal kernel under TCG,
	# over ten on the debug kernel (KASAN, lockdep, SLUB_DEBUG_ON), which
	# the CI budget has no room for; the normal kernel runs it twice
	[[ "${SMO_FLAVOR:-normal}" != debug ]] ||
		skip "takes over 10 minutes on the debug kernel; runs on the normal kernel"
	run -0 vm_run "test -f $KUNIT_DIR/test_xarray.ko"
	run -0 vm_run "echo smo-kunit-xarray > /dev/kmsg; insmod $KUNIT_DIR/test_xarray.ko; echo \"insmod \$?\"; dmesg | sed -n '/smo-kunit-xarray/,\$p' | grep -E 'XArray: '"
	echo "$output"
	echo "# ${lines[-1]}" >&3
	[[ "$output" == *"insmod 0"* ]]
	# "XArray: N of N tests passed"
	summary=$(grep -oE 'XArray: [0-9]+ of [0-9]+ tests passed' <<<"$output")
	read -r _ passed _ total _ <<<"$summary"
	[ "$passed" -eq "$total" ]
	[ "$total" -gt 1000000 ]
}

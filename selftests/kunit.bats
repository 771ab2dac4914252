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
# printed with each test.  A case that KUnit reports skipped ("# SKIP") did
# not run its checks: it fails the test, as a failed case does.  A splat in
# the kernel log fails the test during which it was printed (teardown).

load lib/vm

KUNIT_DIR=/lib/modules/smo/kunit
# test_xarray runs millions of checks: a minute or two under TCG
vm_min_timeout 900
# the soft lockup (2 x watchdog_thresh) and RCU stall thresholds, which
# the test_xarray test raises for its insmod (see there)
WD_THRESH=/proc/sys/kernel/watchdog_thresh
RCU_STALL=/sys/module/rcupdate/parameters/rcu_cpu_stall_timeout

setup_file() {
	vm_start
	KUNIT_THRESHOLDS=$(vm_run "echo \$(cat $WD_THRESH) \$(cat $RCU_STALL)")
	export KUNIT_THRESHOLDS
}

teardown_file() {
	vm_stop
}

# restore_thresholds: the boot's lockup and stall thresholds
restore_thresholds() {
	local wd rcu
	read -r wd rcu <<<"$KUNIT_THRESHOLDS"
	vm_run "echo $wd > $WD_THRESH && echo $rcu > $RCU_STALL"
}

# unload first, so that what the unload prints counts for the test too
teardown() {
	vm_run "rmmod slab_movable_kunit test_xarray 2>/dev/null; true"
	restore_thresholds
	vm_teardown_test
}

@test "KUnit suite slab_movable: every case passes" {
	run -0 vm_run "test -f $KUNIT_DIR/slab_movable_kunit.ko"
	run -0 vm_run "insmod $KUNIT_DIR/slab_movable_kunit.ko"
	run -0 vm_run "cat /sys/kernel/debug/kunit/slab_movable/results"
	echo "$output"
	sed 's/^/# /' <<<"$output" >&3
	# The suite's plan "1..N" (its cases), one "ok N name" per case with
	# no directive, none "not ok", none skipped, and the suite line "ok"
	plan=$(sed -nE 's/^[[:space:]]+1\.\.([0-9]+)$/\1/p' <<<"$output" | head -n 1)
	cases=$(grep -cE '^[[:space:]]+ok [0-9]+ slab_movable_test_[a-z_]+$' <<<"$output" || true)
	failed=$(grep -cE 'not ok' <<<"$output" || true)
	skipped=$(grep -E '# SKIP' <<<"$output" || true)
	echo "plan: ${plan:-none}, cases passed: $cases, failed: $failed"
	[ -z "$skipped" ] || { echo "skipped, not run: $skipped"; false; }
	[ "$failed" -eq 0 ]
	[ "$cases" -ge 6 ]
	[ "$cases" -eq "$plan" ]
	grep -qE '^ok [0-9]+ slab_movable$' <<<"$output"
}

@test "lib/test_xarray passes, check_movable() included" {
	vm_slow "158 million checks, a minute"
	vm_not_with_debug_caches "lib/xarray.c; xarray.bats moves the debug nodes"
	# 158 million checks: about a minute on the normal kernel under TCG,
	# over ten on the debug kernel (KASAN, lockdep, SLUB_DEBUG_ON), which
	# the CI budget has no room for; the normal kernel runs it twice
	[[ "${SMO_FLAVOR:-normal}" != debug ]] ||
		skip "takes over 10 minutes on the debug kernel; runs on the normal kernel"
	run -0 vm_run "test -f $KUNIT_DIR/test_xarray.ko"
	# Its module init runs every check in one call, in stretches of
	# over 20 s without a reschedule under TCG with slub_debug=FZPU
	# (mainline's check_store_range(), poisoning each new slab): on this
	# PREEMPT_NONE kernel the soft lockup detector (20 s) and an RCU stall
	# (21 s) fired.  For this insmod they wait 120 s (watchdog_thresh 60,
	# rcu_cpu_stall_timeout 120); a hang still shows, and teardown
	# restores the boot's values.
	[[ "$KUNIT_THRESHOLDS" =~ ^[0-9]+\ [0-9]+$ ]]
	run -0 vm_run "echo 60 > $WD_THRESH && echo 120 > $RCU_STALL"
	run -0 vm_run "echo smo-kunit-xarray > /dev/kmsg; insmod $KUNIT_DIR/test_xarray.ko; echo \"insmod \$?\"
		echo ${KUNIT_THRESHOLDS% *} > $WD_THRESH && echo ${KUNIT_THRESHOLDS#* } > $RCU_STALL && echo restored
		dmesg | sed -n '/smo-kunit-xarray/,\$p' | grep -E 'XArray: '"
	echo "$output"
	echo "# ${lines[-1]}" >&3
	[[ "$output" == *"insmod 0"* ]]
	[[ "$output" == *restored* ]]
	# "XArray: N of N tests passed"
	summary=$(grep -oE 'XArray: [0-9]+ of [0-9]+ tests passed' <<<"$output")
	read -r _ passed _ total _ <<<"$summary"
	[ "$passed" -eq "$total" ]
	[ "$total" -gt 1000000 ]
}

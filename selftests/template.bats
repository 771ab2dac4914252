#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The module author's template (modules/smo_template/): its cache is movable
# from the first object, shrinking it after punching holes frees slabs, and
# every object's payload survives the moves.  A copy renamed with
# `sed s/smo_template/<yours>/g` tests the copied module the same way.
#
# Every test loads the module (a fresh, empty cache) and unloads it; the
# teardown fails the test on BUG/WARNING/Oops/... in the kernel log.

load lib/vm

MOD=smo_template
SLAB=/sys/kernel/slab/$MOD
CONTROL=/sys/kernel/debug/$MOD/control

setup_file() {
	vm_start
}

teardown_file() {
	vm_stop
}

setup() {
	vm_setup_module "$MOD"
}

teardown() {
	vm_teardown_module "$MOD"
}

# control CMD...: write one command to the control file
control() {
	vm_run "echo '$*' > $CONTROL"
}

# attr NAME: first field of /sys/kernel/slab/$MOD/NAME
attr() { vm_slab_attr "$MOD" "$1"; }

# counter NAME: a counter from reading the control file
counter() { vm_stat "$CONTROL" "$1"; }

@test "the cache is movable from its first object" {
	run -0 vm_run "cat $SLAB/ops"
	[[ "$output" == *"ctor : "* ]]
	[[ "$output" == *"isolate : "* ]]
	[[ "$output" == *"migrate : "* ]]
	[ "$(attr objects)" -eq 0 ]
}

@test "shrink after punching holes frees slabs and every payload survives" {
	ops=$(attr objs_per_slab)
	run -0 control "alloc $((20 * ops)) 0"
	run -0 control "keep-every 10"
	live=$(counter objects)
	[ "$live" -eq "$((2 * ops))" ]
	run -0 control verify
	before=$(attr slabs)

	run -0 control shrink

	after=$(attr slabs)
	moved=$(counter moved)
	sysfs=$(attr objects)
	kfence=$(counter kfence)
	echo "slabs $before -> $after, $live objects ($ops per slab), moved $moved"
	echo "sysfs objects $sysfs, $kfence from KFENCE"
	[ "$after" -lt "$before" ]
	[ "$((after * 2))" -le "$before" ]
	[ "$moved" -gt 0 ]
	[ "$(counter objects)" -eq "$live" ]
	# objects KFENCE allocated (debug kernels) are in no slab
	[ "$((sysfs + kfence))" -eq "$live" ]
	run -0 control verify
}

@test "sysfs shrink and slabinfo -s move objects too" {
	ops=$(attr objs_per_slab)
	run -0 control "alloc $((10 * ops)) 0"
	run -0 control "keep-every $ops"
	before=$(attr slabs)
	run -0 vm_run "echo 1 > $SLAB/shrink"
	after=$(attr slabs)
	echo "slabs $before -> $after"
	[ "$after" -lt "$before" ]
	run -0 vm_run "slabinfo $MOD -s"
	run -0 control verify
	run -0 control free-all
	[ "$(counter objects)" -eq 0 ]
	run -0 control shrink
	[ "$(attr objects)" -eq 0 ]
}

@test "malformed commands fail with EINVAL" {
	for c in "" "alloc" "alloc 0" "alloc x" "alloc 1 9" "alloc 1 0 0" \
		"keep-every" "keep-every 0" "shrink now" "frob 1"; do
		# echo's failed write: status 1 with the errno's message
		run vm_run "echo '$c' > $CONTROL"
		[ "$status" -eq 1 ] || { echo "'$c': status $status: $output"; false; }
		[[ "$output" == *"Invalid argument"* ]] || { echo "'$c': $output"; false; }
	done
	[ "$(counter objects)" -eq 0 ]
}

@test "kmemleak finds no leak after this file's tests" {
	vm_kmemleak_test
}

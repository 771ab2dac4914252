#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Movable XArray nodes and objects referenced from an XArray, through the
# smo_xarray module: its cache smox_test holds objects stored in an XArray
# created with XA_FLAGS_MOVABLE, whose nodes come from radix_tree_node_movable; its
# IDR's nodes come from radix_tree_node and must never move.

load lib/vm
load lib/census

CALLFN=/sys/kernel/debug/smo_xarray/callfn
STATS=/sys/kernel/debug/smo_xarray/stats
SLABS=/sys/kernel/slab

setup_file() {
	vm_start
}

teardown_file() {
	vm_stop
}

setup() {
	vm_setup_module smo_xarray
}

teardown() {
	census_teardown smo_xarray
}

callfn() {
	vm_run "echo '$*' > $CALLFN"
}

stat_of() { vm_stat "$STATS" "$1"; }

# field CACHE ATTR [NODE]: total, or the N<NODE>= value (0 if absent)
field() { vm_slab_attr "$@"; }

# settled CACHE: objects of a cache that is not movable, after its shrink
# (which moves nothing there) has drained KASAN's quarantine: on the debug
# kernel quarantined nodes count as allocated until the quarantine frees
# them, which it may do in the middle of a count (2725 -> 2186 once)
settled() {
	local out
	out=$(vm_run "echo 1 > $SLABS/$1/shrink && cat $SLABS/$1/objects") || return 1
	echo "${out%% *}"
}

# shrink CACHE: moved XArray nodes and objects are freed after an RCU grace
# period; a second shrink after waiting for the RCU callbacks frees their slabs
shrink() {
	vm_run "echo 1 > $SLABS/$1/shrink && echo barrier > $CALLFN &&
		echo 1 > $SLABS/$1/shrink"
}

# fragment [KEEP]: 20000 objects, one in KEEP (default 16) kept.  With a KEEP
# above 64 (the entries of a leaf node) whole leaves go, which fragments
# radix_tree_node_movable as well.
fragment() {
	local keep=${1:-16}
	run -0 callfn "populate 20000"
	run -0 callfn "punch $keep"
	[ "$(stat_of objects)" -eq $(( (20000 + keep - 1) / keep )) ]
}

@test "radix_tree_node_movable is movable, radix_tree_node is not" {
	vm_debug_full_only "which cache is movable, the same on every kernel"
	run -0 vm_run "cat $SLABS/radix_tree_node_movable/ops"
	[[ "$output" == *"migrate : xa_migrate_nodes"* ]]
	# read it for sure: a failed read has no "migrate" either
	run -0 vm_run "cat $SLABS/radix_tree_node/ops"
	[[ "$output" == *"ctor : "* ]]
	[[ "$output" != *migrate* ]]
	run -0 vm_run "cat $SLABS/smox_test/ops"
	[[ "$output" == *"migrate : smox_migrate"* ]]
	run -0 vm_run "slabinfo radix_tree_node_movable --report"
	[[ "$output" == *"** Defragmentation at 30%"* ]]
}

@test "shrinking smox_test and radix_tree_node_movable leaves at most one partial slab per node" {
	vm_debug_full_only "slab counts; the RCU reader test shrinks under KASAN"
	fragment 200
	before_obj=$(field smox_test slabs)
	before_node=$(field radix_tree_node_movable slabs)
	run -0 shrink smox_test
	run -0 shrink radix_tree_node_movable
	echo "smox_test slabs $before_obj -> $(field smox_test slabs)," \
	     "radix_tree_node_movable slabs $before_node -> $(field radix_tree_node_movable slabs)"
	for c in smox_test radix_tree_node_movable; do
		for n in 0 1; do
			p=$(field "$c" partial "$n")
			((p <= 1)) && continue
			echo "$c node $n: $p partial slabs"
			# KASAN's quarantine (debug flavor) keeps the originals
			# every pass frees, a shrink that drains it moves and
			# quarantines again: the bound holds on the normal kernel
			# (make check-debug-full saw 2 and 3 here)
			[[ "${SMO_FLAVOR:-normal}" != normal ]] || false
		done
	done
	[ "$(field smox_test slabs)" -lt "$before_obj" ]
	[ "$(field radix_tree_node_movable slabs)" -lt "$before_node" ]
	[ "$(stat_of moved)" -gt 0 ]
	run -0 callfn verify
}

# The reader counts the entries of each pass: a pass that no populate or
# punch overlapped (checked) must see as many as the array holds, so a
# move that hides entries from RCU walkers fails here, not only one that
# corrupts them.  Some checked passes must have overlapped object moves.
@test "an RCU reader walking the array across repeated shrinks sees no corruption" {
	fragment
	run -0 callfn "reader start"
	for i in 1 2 3 4 5; do
		run -0 callfn "populate 2000"
		run -0 callfn "punch 3"
		run -0 vm_run "echo 1 > $SLABS/smox_test/shrink && echo 1 > $SLABS/radix_tree_node_movable/shrink"
	done
	run -0 callfn "reader stop"
	run -0 vm_run "grep -E '^(reader_|moved )' $STATS | tr '\n' ' '"
	echo "$output"
	[ "$(stat_of reader_passes)" -gt 0 ]
	[ "$(stat_of reader_checked)" -gt 0 ]
	[ "$(stat_of reader_moving)" -gt 0 ]
	[ "$(stat_of reader_missed)" -eq 0 ]
	[ "$(stat_of reader_errors)" -eq 0 ]
	[ "$(stat_of moved)" -gt 0 ]
	run -0 callfn verify
}

# slabtop and monitoring watch radix_tree_node for the page cache's nodes:
# the name must keep holding them (an earlier version of patch 0006 gave it
# to the movable cache, and radix_tree_node held nothing on any system)
@test "the page cache's XArray nodes are in radix_tree_node, as on mainline" {
	vm_debug_full_only "which cache holds them, the same on every kernel"
	# the previous test's IDR and array nodes must not be freed (after an
	# RCU grace period) while this one counts: 97 instead of 256 once
	run -0 callfn barrier
	mov0=$(field radix_tree_node_movable objects)
	fix0=$(settled radix_tree_node)
	# 64 MiB of page cache in tmpfs: 16384 pages, about 256 leaf nodes
	run -0 vm_run "dd if=/dev/zero of=/tmp/pagecache bs=1M count=64 2>&1"
	mov1=$(field radix_tree_node_movable objects)
	fix1=$(settled radix_tree_node)
	# and leave no pending frees for the next test's counts
	run -0 vm_run "rm -f /tmp/pagecache"
	run -0 callfn barrier
	echo "radix_tree_node $fix0 -> $fix1, radix_tree_node_movable $mov0 -> $mov1"
	[ "$((fix1 - fix0))" -ge 128 ]
	[ "$mov1" -eq "$mov0" ]
}

@test "IDR users are untouched by shrinking radix_tree_node_movable" {
	vm_debug_full_only "no new kernel path beyond the RCU reader test's"
	# nodes freed after an RCU grace period must not fall into the count
	run -0 callfn barrier
	mov0=$(field radix_tree_node_movable objects)
	fix0=$(settled radix_tree_node)
	run -0 callfn "idr_populate 20000"
	# the IDR's nodes come from the fixed cache (20000 ids take about
	# 20000 / 64 leaves; other users free nodes of it meanwhile, so half
	# of that is asked), none from the movable one: otherwise the test
	# below would shrink a cache the IDR is not in
	mov1=$(field radix_tree_node_movable objects)
	fix1=$(settled radix_tree_node)
	echo "radix_tree_node_movable $mov0 -> $mov1, radix_tree_node $fix0 -> $fix1"
	[ "$mov1" -eq "$mov0" ]
	[ "$((fix1 - fix0))" -ge $((20000 / 64 / 2)) ]
	run -0 callfn "idr_punch 10"
	fragment 200
	fixed_before=$(settled radix_tree_node)
	run -0 shrink radix_tree_node_movable
	run -0 callfn idr_verify
	[ "$(stat_of idr_ids)" -eq 2000 ]
	# no node of the IDR was moved: the shrink allocated nothing in its
	# cache (objects, counted settled; the guest's own page cache may add
	# a few nodes meanwhile, far from the 313 leaves of the IDR)
	fixed_after=$(settled radix_tree_node)
	echo "radix_tree_node objects around the shrink: $fixed_before -> $fixed_after"
	[ "$fixed_after" -le $((fixed_before + 16)) ]
	run -0 callfn verify
}

@test "kmem_defrag_slabs and slabinfo -s reach smox_test" {
	vm_debug_full_only "entry points the normal kernel's passes cover"
	fragment
	before=$(field smox_test slabs)
	run -0 vm_run "slabinfo smox_test -s && echo barrier > $CALLFN && slabinfo smox_test -s"
	[ "$(field smox_test slabs)" -lt "$before" ]
	run -0 callfn verify
}

@test "load and unload with live objects in a loop (20 rounds, 4 in the quick run) returns to the baseline" {
	vm_debug_full_only "a load loop; reliability.bats unloads during passes under KASAN"
	run -0 vm_run "rmmod smo_xarray"
	base=$(field radix_tree_node_movable objects)
	# each round's shrink moves objects and nodes while the array is
	# fresh: verify (and idr_verify) before the unload
	for i in $(seq "$(vm_rounds 20)"); do
		run vm_run "insmod /lib/modules/smo/smo_xarray.ko &&
			echo 'populate 3000' > $CALLFN &&
			echo 'punch 4' > $CALLFN &&
			echo 'idr_populate 500' > $CALLFN &&
			echo 1 > $SLABS/smox_test/shrink &&
			echo 1 > $SLABS/radix_tree_node_movable/shrink &&
			echo verify > $CALLFN && echo idr_verify > $CALLFN &&
			rmmod smo_xarray"
		[ "$status" -eq 0 ] || { echo "round $i: $output"; false; }
	done
	run -1 vm_run "test -e $SLABS/smox_test"
	# the nodes of the destroyed arrays are back (after RCU)
	run -0 vm_run "insmod /lib/modules/smo/smo_xarray.ko && echo barrier > $CALLFN &&
		rmmod smo_xarray && echo 1 > $SLABS/radix_tree_node_movable/shrink"
	after=$(field radix_tree_node_movable objects)
	echo "radix_tree_node_movable objects: baseline $base, after $after"
	[ "$after" -le "$((base + 64))" ]
	# setup's module for teardown
	run -0 vm_run "insmod /lib/modules/smo/smo_xarray.ko"
}

@test "callfn rejects bad input with EINVAL and is root-only" {
	vm_debug_full_only "parsing, the same on every kernel"
	for c in "" "   " "abc" "populate" "populate -1" "populate 0" \
		 "populate 18446744073709551616" "punch 0" "reader" "reader go" \
		 "verify 1" "idr_punch x"; do
		# echo's failed write: status 1 with the errno's message
		run vm_run "echo '$c' > $CALLFN"
		[ "$status" -eq 1 ] || { echo "'$c': status $status: $output"; false; }
		[[ "$output" == *"Invalid argument"* ]] || { echo "'$c': $output"; false; }
	done
	run -1 vm_run "head -c 4096 /dev/zero | tr '\\0' a > $CALLFN"
	[[ "$output" == *"Invalid argument"* ]]
	run -1 vm_run "su -s /bin/sh tester -c 'echo populate 1 > $CALLFN'"
	[[ "$output" == *"Permission denied"* ]]
	[ "$(stat_of objects)" -eq 0 ]
}

@test "kmemleak finds no leak after this file's tests" {
	vm_kmemleak_test
}

#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Node moves and balancing beyond two nodes: the guest of this file has a
# third NUMA node, node 2, with memory and no CPU (vm/boot SMO_NODE2_MB), as
# memory expanders and CXL nodes are.  Objects must reach it and leave it,
# balance must spread over three nodes, and a move to a node that fills up
# on the way must stop, count every object as moved or left, lose nothing
# and leave the objects that did not fit where SLUB could put them.

load lib/vm
load lib/census
load lib/smo_test

CTL=/sys/kernel/debug/smo_node
FILL=/mnt/fill
NODE2_MB=192
# a move of 100000 objects under TCG
vm_min_timeout 300

setup_file() {
	export SMO_NODE2_MB=$NODE2_MB
	vm_start
}

teardown_file() {
	vm_stop
}

setup() {
	vm_setup_module smo_test smo_node
}

teardown() {
	vm_run "umount $FILL 2>/dev/null; true"
	census_teardown smo_node smo_test
}


# on_node NODE: slabs of smo_test on NODE
on_node() { vm_slabs_on_node smo_test "$1"; }

# node_free_kb NODE: MemFree of NODE
node_free_kb() {
	vm_run "cat /sys/devices/system/node/node$1/meminfo" | awk '$3 == "MemFree:" { print $4 }'
}

@test "the guest has three nodes with memory, node 2 without CPU" {
	run -0 vm_run "cat /sys/devices/system/node/online /sys/devices/system/node/has_normal_memory /sys/devices/system/node/has_cpu"
	[ "${lines[0]}" = 0-2 ]
	[ "${lines[1]}" = 0-2 ]
	[ "${lines[2]}" = 0-1 ]
}

@test "move N2 takes objects of nodes 0 and 1 to the memory-only node, and back" {
	run -0 callfn "alloc 3000 0"
	run -0 callfn "alloc 3000 1"
	run -0 callfn enable
	[ "$(on_node 0)" -gt 0 ]
	[ "$(on_node 1)" -gt 0 ]
	[ "$(on_node 2)" -eq 0 ]
	run -0 vm_run "echo N2 > $CTL/smo_test/move"
	echo "after move N2: N0=$(on_node 0) N1=$(on_node 1) N2=$(on_node 2)"
	[ "$(on_node 0)" -eq 0 ]
	[ "$(on_node 1)" -eq 0 ]
	[ "$(on_node 2)" -gt 0 ]
	[ "$(node_result move left)" -eq 0 ]
	run -0 callfn verify
	run -0 vm_run "echo 'N2 N0' > $CTL/smo_test/move"
	[ "$(on_node 2)" -eq 0 ]
	[ "$(on_node 0)" -gt 0 ]
	[ "$(on_node 1)" -eq 0 ]
	run -0 callfn verify
}

@test "balance spreads a cache piled on one node over three nodes" {
	run -0 callfn "alloc 20000 0"
	run -0 callfn "punch 3"
	run -0 callfn enable
	run -0 vm_run "echo 1 > $CTL/smo_test/balance"
	a=$(on_node 0) b=$(on_node 1) c=$(on_node 2)
	echo "slabs per node after balance: N0=$a N1=$b N2=$c"
	max=$a min=$a
	for v in $b $c; do
		((v > max)) && max=$v
		((v < min)) && min=$v
	done
	[ "$min" -gt 0 ]
	[ $((max - min)) -le 1 ]
	run -0 callfn verify
	run -0 vm_run "cat $CTL/smo_test/balance"
	[[ "$output" == "balance 0 moved "* ]]
}

# Node 2 is filled by a tmpfs bound to it (mpol=bind:2) whose size leaves
# 6 MiB free (2 MiB left room for too little: the write itself called the
# OOM killer, bound to node 2).  smo_test's migrate() allocates with
# kmem_cache_alloc_node(GFP_KERNEL), which falls back to other nodes, each
# time on a fresh slab (the CPU slab is never of the node asked for): a
# move that went on regardless reported "moved 300000 left 0" and grew
# node 0 from 5358 slabs to 6035 while node 2 took 421.  The move stops
# when the target has no room for another slab (-ENOSPC, the rest counted
# as left); nothing is lost, and once node 2 has room again a second move
# empties the other nodes.
@test "a move that fills its target node stops with ENOSPC, counts every object, fragments nothing, loses nothing" {
	free=$(node_free_kb 2)
	# 12 MiB stay free on node 2: room for part of the 21 MiB of slabs
	# the move needs, above the node's watermarks, then no more
	size=$(( (free / 1024) - 12 ))
	[ "$size" -gt 16 ]
	run vm_run "mkdir -p $FILL && mount -t tmpfs -o mpol=bind:2,size=${size}m none $FILL &&
		dd if=/dev/zero of=$FILL/x bs=1M 2>/dev/null; df -k $FILL | tail -1"
	echo "$output"
	full=$(node_free_kb 2)
	echo "node 2 MemFree: $free kB before the fill, $full kB after"
	[ "$full" -lt 20480 ]
	[ "$full" -gt 8192 ]
	# the fill itself may meet the OOM killer (a tmpfs bound to a nearly
	# full node, no swap); the move must not: the log up to here is checked
	# with OOM kills allowed, the rest (teardown) without
	VM_OOM_EXPECTED=1 vm_check_log
	run -0 callfn "alloc 300000 0"
	run -0 callfn enable
	before0=$(on_node 0)
	run vm_run "echo N2 > $CTL/smo_test/move; echo \"status \$?\"; cat $CTL/smo_test/move"
	echo "$output"
	[ "$status" -eq 0 ]
	result=$output
	moved=$(node_result move moved)
	left=$(node_result move left)
	n0=$(on_node 0) n1=$(on_node 1) n2=$(on_node 2)
	echo "full node 2: moved $moved left $left; slabs N0 $before0 -> $n0, N1=$n1 N2=$n2"
	echo "# full target node: moved $moved left $left, slabs N0 $before0 -> $n0 N1 $n1 N2 $n2" >&3
	[[ "$result" == *"status 1"* ]]
	[[ "$result" == *"move -28 moved "* ]]
	run -0 callfn verify
	# part moved, part stayed, and the two add up to what the cache holds
	[ "$moved" -gt 0 ]
	[ "$left" -gt 0 ]
	[ "$((moved + left))" -eq "$((300000 - $(stat_of kfence)))" ]
	# what stayed did not spread over fresh slabs
	[ "$((n0 + n1))" -le "$before0" ]
	# an OOM kill during the move fails here, with the log around it
	vm_check_log

	run -0 vm_run "umount $FILL"
	run -0 vm_run "echo N2 > $CTL/smo_test/move"
	echo "with room: N0=$(on_node 0) N1=$(on_node 1) N2=$(on_node 2)"
	[ "$(on_node 0)" -eq 0 ]
	[ "$(on_node 1)" -eq 0 ]
	[ "$(on_node 2)" -gt 0 ]
	run -0 callfn verify
}

@test "kmemleak finds no leak after this file's tests" {
	vm_kmemleak_test
}

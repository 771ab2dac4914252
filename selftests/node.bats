#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Moving objects between the guest's two NUMA nodes and balancing slabs
# across them, through the smo_node control module, on smo_test and on the
# XArray caches (smox_test, radix_tree_node_movable).  Full slabs must move too,
# also without slub_debug, where SLUB keeps no list of them.

load lib/vm
load lib/census
load lib/smo_test

CTL=/sys/kernel/debug/smo_node
SMOX=/sys/kernel/debug/smo_xarray/callfn

setup_file() {
	vm_start
}

teardown_file() {
	vm_stop
}

setup() {
	vm_setup_module smo_test smo_xarray smo_node
}

teardown() {
	census_teardown smo_bench smo_node smo_xarray smo_test
}

smox() { vm_run "echo '$*' > $SMOX"; }

# on_node CACHE NODE: slabs of CACHE on NODE
on_node() { vm_slabs_on_node "$@"; }

# ctl CACHE FILE INPUT: write INPUT to the control file
ctl() {
	vm_run "echo '$3' > $CTL/$1/$2"
}

@test "move N1 empties node 0 of smo_test, full slabs included, and back" {
	run -0 callfn "alloc 5000 0"
	run -0 callfn enable
	[ "$(on_node smo_test 0)" -gt 0 ]
	[ "$(on_node smo_test 1)" -eq 0 ]

	run -0 ctl smo_test move N1
	[ "$(on_node smo_test 0)" -eq 0 ]
	[ "$(on_node smo_test 1)" -gt 0 ]
	# KFENCE objects stay; a replacement may come from KFENCE too (moved)
	k=$(stat_of kfence)
	moved=$(node_result move moved)
	echo "moved $moved, $k objects from KFENCE"
	# two commands, not "[ a ] && [ b ]": errexit ignores a failing
	# command that is not the last of an && list
	[ "$moved" -le 5000 ]
	[ "$moved" -ge $((5000 - k)) ]
	run vm_run "cat $CTL/smo_test/move"
	[[ "$output" == "move 0 moved $moved left 0" ]]
	run -0 callfn verify

	run -0 ctl smo_test move " n0 "
	[ "$(on_node smo_test 1)" -eq 0 ]
	[ "$(on_node smo_test 0)" -gt 0 ]
	run -0 callfn verify
}

@test "move N1 N0 moves only node 1's objects" {
	run -0 callfn "alloc 3000 0"
	run -0 callfn "alloc 2000 1"
	run -0 callfn enable
	[ "$(on_node smo_test 1)" -gt 0 ]
	run -0 ctl smo_test move "N1 N0"
	[ "$(on_node smo_test 1)" -eq 0 ]
	moved=$(node_result move moved)
	[ "$moved" -le 2000 ]
	[ "$moved" -ge $((2000 - $(stat_of kfence))) ]
	run -0 callfn verify
}

@test "balance after piling everything on one node evens the slab counts" {
	run -0 callfn "alloc 20000 0"
	run -0 callfn "punch 3"
	run -0 callfn enable
	[ "$(on_node smo_test 1)" -eq 0 ]
	run -0 ctl smo_test balance 1
	a=$(on_node smo_test 0)
	b=$(on_node smo_test 1)
	echo "slabs per node after balance: N0=$a N1=$b"
	[ "$b" -gt 0 ]
	[ $(( a > b ? a - b : b - a )) -le 1 ]
	run -0 callfn verify
	run vm_run "cat $CTL/smo_test/balance"
	[[ "$output" == "balance 0 moved "* ]]
}

@test "the XArray caches move to node 1 and balance too" {
	run -0 smox "populate 30000"
	run -0 smox "punch 100"
	run -0 ctl smox_test move N0
	vm_run "echo barrier > $SMOX; echo 1 > $SLABS/smox_test/shrink"
	[ "$(on_node smox_test 0)" -gt 0 ]
	run -0 ctl smox_test move N1
	run -0 ctl radix_tree_node_movable move N1
	# moved objects and nodes are freed after RCU; a shrink then frees the slabs
	vm_run "echo barrier > $SMOX; echo 1 > $SLABS/smox_test/shrink; echo 1 > $SLABS/radix_tree_node_movable/shrink"
	[ "$(on_node smox_test 0)" -eq 0 ]
	run -0 smox verify
	for c in radix_tree_node_movable smox_test; do
		run ctl $c balance 1
		[ "$status" -eq 0 ] || {
			echo "balance $c: $output"
			vm_run "cat $CTL/$c/balance $SLABS/$c/slabs"
			false
		}
	done
	a=$(on_node smox_test 0)
	b=$(on_node smox_test 1)
	echo "smox_test slabs per node: N0=$a N1=$b"
	[ $(( a > b ? a - b : b - a )) -le 1 ]
	run -0 smox verify
}

# Every pass must leave alone what is not movable: smo_bench_fix is
# smo_bench_mov's twin without callbacks, fragmented the same way in the
# same boot.  Its slabs, per node, partial ones included, must be exactly
# what they were after a sysfs shrink of every movable cache, two
# kmem_defrag_slabs() calls, a node move and a balance, and every object
# must be intact.  No cache outside the modules' movable ones and the two
# the series makes movable may list a migrate callback (the kmalloc
# caches and the aliases merged into them included).
@test "every pass leaves the caches that are not movable untouched" {
	run -0 vm_run "insmod /lib/modules/smo/smo_bench.ko && echo 1 > $CTL/rescan"
	run -0 vm_run "echo 'frag 20000 4' > /sys/kernel/debug/smo_bench/callfn"
	run -0 callfn "alloc 5000 0"
	run -0 callfn "punch 4"
	run -0 callfn enable
	run -0 smox "populate 5000"
	run -0 smox "punch 4"
	fix="$SLABS/smo_bench_fix"
	run -0 vm_run "cat $fix/slabs $fix/partial $fix/objects"
	before=$output
	run -0 vm_run "for c in \$(grep -l '^migrate' $SLABS/*/ops | sed 's|/ops||'); do echo 1 > \$c/shrink; done
		echo 'defrag -1' > $CALLFN && echo 'defrag 0' > $CALLFN"
	run -0 ctl smo_bench_mov move N1
	# the movable twin did move
	run -0 vm_run "cat $CTL/smo_bench_mov/move"
	echo "smo_bench_mov: $output"
	[[ "$output" == "move 0 moved "* && "$output" != "move 0 moved 0 "* ]]
	run -0 ctl smo_bench_mov balance 1
	run -0 vm_run "cat $fix/slabs $fix/partial $fix/objects"
	after=$output
	echo "smo_bench_fix before: $before"
	echo "smo_bench_fix after:  $after"
	[ "$before" = "$after" ]
	run -0 vm_run "echo verify > /sys/kernel/debug/smo_bench/callfn"
	# callbacks only where the modules and the series set them
	run -0 vm_run "grep -l '^migrate' $SLABS/*/ops | sed 's|$SLABS/||; s|/ops||' | sort | tr '\n' ' '"
	echo "caches with a migrate callback: $output"
	[ "$output" = "dentry radix_tree_node_movable smo_bench_mov smo_test smox_test " ] ||
		[ "$output" = "radix_tree_node_movable smo_bench_mov smo_test smox_test " ]
	run -0 vm_run "echo release > /sys/kernel/debug/smo_bench/callfn && rmmod smo_bench"
}

@test "bad input fails with the documented errno and changes nothing" {
	run -0 callfn "alloc 500 0"
	run -0 callfn enable
	before=$(on_node smo_test 0)
	for v in N2 N-1 N "0 1 2" abc "" "   " "N0 N1 N1" "N0N1" "N+1" "N0 N0" \
		 "N18446744073709551616" "1"; do
		run ctl smo_test move "$v"
		[ "$status" -ne 0 ] || { echo "move accepted '$v'"; false; }
		[[ "$output" == *"Invalid argument"* ]] || { echo "'$v': $output"; false; }
	done
	for v in 0 2 "" abc "1 1" -1; do
		run ctl smo_test balance "$v"
		[ "$status" -ne 0 ] || { echo "balance accepted '$v'"; false; }
		[[ "$output" == *"Invalid argument"* ]] || { echo "'$v': $output"; false; }
	done
	run vm_run "head -c 4096 /dev/zero | tr '\\0' N > $CTL/smo_test/move"
	[[ "$output" == *"Invalid argument"* ]]
	[ "$(on_node smo_test 0)" -eq "$before" ]
	run -0 callfn verify
}

@test "a cache that is not movable gives EOPNOTSUPP, a destroyed one ENOENT" {
	run ctl kmalloc-64 move N1
	[ "$status" -ne 0 ]
	[[ "$output" == *"not supported"* ]]
	run -0 vm_run "rmmod smo_xarray"
	run ctl smox_test move N1
	[ "$status" -ne 0 ]
	[[ "$output" == *"No such file or directory"* ]]
	# a cache created later shows up after a rescan
	run -0 vm_run "insmod /lib/modules/smo/smo_xarray.ko && echo 1 > $CTL/rescan && echo 'populate 100' > $SMOX"
	run -0 ctl smox_test move N1
}

@test "the control files are root-only" {
	run vm_run "su -s /bin/sh tester -c 'echo N1 > $CTL/smo_test/move'"
	[ "$status" -ne 0 ]
	run vm_run "su -s /bin/sh tester -c 'cat $CTL/smo_test/move'"
	[ "$status" -ne 0 ]
}

@test "kmemleak finds no leak after this file's tests" {
	vm_kmemleak_test
}

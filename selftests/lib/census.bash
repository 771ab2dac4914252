# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# selftests/lib/census.bash - after a moving test, count the objects a
# module holds against SLUB's own count (load after lib/vm).
#
# A module's verify reads through its own pointers, and freed slab memory
# keeps its contents on a kernel without poisoning, so an object lost or
# left behind by a move can still verify.  SLUB's `objects` attribute counts
# what the slabs hold; KFENCE objects are in no slab, so each module counts
# those it holds itself.
#
# `objects` is exact only with every CPU slab back on the node lists and,
# on a KASAN kernel, the cache's quarantine drained (quarantined objects
# still count as allocated).  A write of the sysfs `shrink` does both; on a
# movable cache it also moves objects, which is one more pass for the
# census to check.  Moved XArray nodes and objects are freed after an RCU
# grace period, so smo_xarray's census repeats rcu_barrier() and shrink
# until a shrink moves nothing.
#
#   census_slub CACHE    SLUB's object count of CACHE after a shrink
#   census_smo_test      smo_test's objects == SLUB objects + KFENCE
#   census_smo_xarray    smo_xarray's objects (smox_test) and the nodes of
#                 its movable array (radix_tree_node_movable holds no other
#                 node) == SLUB objects + KFENCE
#   census_teardown MODULE...  for teardown(): the census of each loaded
#                 module that has one, then vm_teardown_module MODULE...
#
# Each census prints what it compared and returns 1 on a mismatch; one of a
# module that is not loaded succeeds.

# census_field TEXT KEY: the value after KEY in "key value" lines
census_field() {
	awk -v k="$2" '$1 == k { print $2 }' <<<"$1"
}

census_slub() {
	local out
	out=$(vm_run "d=/sys/kernel/slab/$1 && echo 1 > \$d/shrink && cat \$d/objects") || {
		echo "census: shrink of $1 failed: $out" >&2
		return 1
	}
	echo "${out%% *}"
}

census_smo_test() {
	local out stats live kfence slub
	# one guest command (each costs a second on the debug kernel): nothing
	# if the module is gone, else SLUB's count after a shrink, then stats
	out=$(vm_run "grep -q '^smo_test ' /proc/modules || exit 0
		d=/sys/kernel/slab/smo_test
		echo 1 > \$d/shrink && cat \$d/objects &&
		cat /sys/kernel/debug/smo_test/stats") || {
		echo "census smo_test: shrink or stats failed: $out"
		return 1
	}
	[[ -n "$out" ]] || return 0
	slub=$(head -n1 <<<"$out")
	slub=${slub%% *}
	stats=$(tail -n +2 <<<"$out")
	live=$(census_field "$stats" objects)
	kfence=$(census_field "$stats" kfence)
	echo "census smo_test: module $live, SLUB $slub + KFENCE $kfence"
	[[ -n "$live" && -n "$kfence" && -n "$slub" ]] || return 1
	((slub + kfence == live))
}

census_smo_xarray() {
	local stats objects kfence nodes nodes_kfence slub_objs slub_nodes
	local i callfn=/sys/kernel/debug/smo_xarray/callfn
	vm_module_loaded smo_xarray || return 0
	# the shrinks themselves may move nodes, whose old copies then wait
	# for RCU: a round that moved nothing is exact, so try a few
	for ((i = 1; i <= 5; i++)); do
		vm_run "echo barrier > $callfn" >/dev/null || return 1
		slub_nodes=$(census_slub radix_tree_node_movable) || return 1
		slub_objs=$(census_slub smox_test) || return 1
		stats=$(vm_run "cat /sys/kernel/debug/smo_xarray/stats") || return 1
		objects=$(census_field "$stats" objects)
		kfence=$(census_field "$stats" kfence)
		nodes=$(census_field "$stats" nodes)
		nodes_kfence=$(census_field "$stats" nodes_kfence)
		[[ -n "$objects" && -n "$kfence" && -n "$nodes" && -n "$nodes_kfence" ]] || return 1
		((slub_objs + kfence == objects && slub_nodes + nodes_kfence == nodes)) && break
	done
	echo "census smo_xarray: objects: module $objects, SLUB $slub_objs + KFENCE $kfence;" \
		"nodes: module $nodes, SLUB $slub_nodes + KFENCE $nodes_kfence (round $i)"
	((i <= 5))
}

census_teardown() {
	local rc=0 m
	for m in "$@"; do
		# a skipped test moved nothing: unload only (vm_test_skipped)
		vm_test_skipped && break
		case "$m" in
		smo_test) census_smo_test || rc=1 ;;
		smo_xarray) census_smo_xarray || rc=1 ;;
		esac
	done
	vm_teardown_module "$@" || return 1
	((rc == 0)) || fail "object census failed after: ${BATS_TEST_DESCRIPTION:-test}"
}

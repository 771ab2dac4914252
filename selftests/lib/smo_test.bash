# shellcheck shell=bash
# selftests/lib/smo_test.bash - helpers for bats files that drive the
# smo_test module (load after lib/vm):
#
#   callfn CMD...     write one command to smo/callfn; fails with the
#                     write's error message
#   stat_of KEY       a counter of smo/stats (objects, moved, kfence, ...)
#   attr NAME         first field of /sys/kernel/slab/smo_test/NAME
#   node_field NAME NODE  the N<NODE>= value of a per-node slab attribute
#                     (0 if absent)

SLABS=/sys/kernel/slab
SLAB=$SLABS/smo_test
CALLFN=/sys/kernel/debug/smo/callfn
RESULT=/sys/kernel/debug/smo/result
STATS=/sys/kernel/debug/smo/stats
# smo_node's control files for smo_test (move, balance)
NODE_CTL=/sys/kernel/debug/smo_node/smo_test

callfn() {
	vm_run "echo '$*' > $CALLFN"
}

stat_of() {
	vm_run "cat $STATS" | awk -v k="$1" '$1 == k { print $2 }'
}

attr() {
	local out
	out=$(vm_run "cat $SLAB/$1") || return 1
	echo "${out%% *}"
}

node_field() {
	local out
	out=$(vm_run "cat $SLAB/$1") || return 1
	vm_node_value "$2" "$out"
}

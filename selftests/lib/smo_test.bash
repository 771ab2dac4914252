# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# selftests/lib/smo_test.bash - helpers for bats files that drive the
# smo_test module (load after lib/vm):
#
#   callfn CMD...     write one command to smo_test/callfn; fails with the
#                     write's error message
#   stat_of KEY       a counter of smo_test/stats (objects, moved, kfence, ...)
#   attr NAME         first field of /sys/kernel/slab/smo_test/NAME
#   node_field NAME NODE  the N<NODE>= value of a per-node slab attribute
#                     (0 if absent)
#   node_result FILE KEY  the number after KEY in smo_node's one-line
#                     result in smo_test's FILE (move, balance), e.g.
#                     "move 0 moved 5000 left 0"; empty if KEY is absent

SLABS=/sys/kernel/slab
SLAB=$SLABS/smo_test
CALLFN=/sys/kernel/debug/smo_test/callfn
RESULT=/sys/kernel/debug/smo_test/result
STATS=/sys/kernel/debug/smo_test/stats
# smo_node's control files for smo_test (move, balance)
NODE_CTL=/sys/kernel/debug/smo_node/smo_test

callfn() {
	vm_run "echo '$*' > $CALLFN"
}

stat_of() { vm_stat "$STATS" "$1"; }

attr() { vm_slab_attr smo_test "$1"; }

node_field() { vm_slab_attr smo_test "$1" "$2"; }

node_result() {
	vm_run "cat $NODE_CTL/$1" |
		awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'
}

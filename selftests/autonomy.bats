#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The kernel defragments movable caches by itself (patch 24): with nothing
# written, the background work evacuates the sparse slabs of a fragmented
# smo_test cache; it honours its thresholds (vm.slab_defrag_min_slabs, the
# cache's defrag_used_ratio), its budget per run (vm.slab_defrag_max_slabs)
# and its off switch (vm.slab_defrag_interval=0); it backs off from a cache
# whose runs free nothing; /proc/vmstat counts what it did.  Compaction
# (patch 25) empties the slabs of a movable cache in its way, which gives
# huge pages back.  Each movable cache counts its passes in sysfs (patch
# 26), in agreement with /proc/vmstat and with smo_test's own counts; the
# slab_defrag trace events report each pass and each slab; the cache's
# movable file stops its mobility without its owner.
#
# This file boots the kernel's defaults (SMO_BACKGROUND_DEFRAG=1): every
# other file boots with the background work off, so that its slab counts
# are exact.  Only the first test leaves the interval at its default; the
# others shorten it to one second, which is what they measure against.
# Allocations go to node 0, with KFENCE off as in smo_test.bats.  On the
# debug kernel's CI run (vm_debug_full_only) the background and compaction
# run under KASAN and lockdep with nothing written and with slabs that
# cannot move; the tests of exact counts and of the thresholds are left to
# make check-debug-full, where the thresholds are still slow to see a
# fragmented cache: KASAN's quarantine holds freed objects, which the
# threshold check counts as in use until the quarantine drains (the
# background shrinks the quarantine only after the check; issue 26).

load lib/vm
load lib/census
load lib/smo_test

VMSTAT=/proc/vmstat
SYSCTL=/proc/sys/vm

setup_file() {
	export SMO_BACKGROUND_DEFRAG=1
	vm_start
	vm_kfence_off
	# the kernel's defaults, as documented in the guide and vm.rst
	run -0 vm_run "cat $SYSCTL/slab_defrag_interval $SYSCTL/slab_defrag_min_slabs $SYSCTL/slab_defrag_max_slabs"
	DEFAULTS=$(echo $output)
	export DEFAULTS
}

teardown_file() {
	vm_stop
}

setup() {
	vm_setup_module smo_test
}

teardown() {
	# back to the defaults, for the next test
	vm_run "echo 15 > $SYSCTL/slab_defrag_interval; echo 101 > $SYSCTL/slab_defrag_min_slabs; echo 64 > $SYSCTL/slab_defrag_max_slabs" || true
	census_teardown smo_test
}

ev() { vm_stat $VMSTAT "slab_defrag_$1"; }

# The per-cache counters of patch 26 (sysfs defrag_NAME, /proc/vmstat
# slab_defrag_NAME)
COUNTERS="passes slabs_isolated objects_offered objects_moved slabs_freed slabs_vacated vacate_failed"
TRACING=/sys/kernel/tracing

# counts: "NAME CACHE VMSTAT" per counter, smo_test's and the sum of all
counts() {
	vm_run "for c in $COUNTERS; do
			echo \$c \$(cat $SLAB/defrag_\$c) \$(awk -v k=slab_defrag_\$c '\$1 == k { print \$2 }' $VMSTAT)
		done"
}

# delta BEFORE AFTER NAME COLUMN: how much counter NAME grew (column 2 the
# cache's, 3 /proc/vmstat's)
delta() {
	local a b
	a=$(awk -v k="$3" -v c="$4" '$1 == k { print $c }' <<<"$1")
	b=$(awk -v k="$3" -v c="$4" '$1 == k { print $c }' <<<"$2")
	echo $((b - a))
}

# trace_start / trace_take: the slab_defrag events from a clean buffer, one
# per line ("slab_defrag_pass: cache=... ..."), task and time cut off
trace_start() {
	vm_run "test -d $TRACING/events/slab_defrag && echo 0 > $TRACING/tracing_on && echo > $TRACING/trace &&
		echo 1 > $TRACING/events/slab_defrag/enable && echo 1 > $TRACING/tracing_on"
}
trace_take() {
	vm_run "echo 0 > $TRACING/events/slab_defrag/enable && grep -o 'slab_defrag_[a-z]*: .*' $TRACING/trace; echo > $TRACING/trace"
}

# traced_on_fragment CMD: with the background off, fragment 130 slabs and
# run CMD in the guest with the slab_defrag events on; sets c0 and c1 (the
# counts before and after) and events (trace_take's)
traced_on_fragment() {
	run -0 vm_run "echo 0 > $SYSCTL/slab_defrag_interval"
	fragment 130
	c0=$(counts)
	run -0 trace_start
	run -0 vm_run "$1"
	run -0 trace_take
	events=$output
	c1=$(counts)
}

# tsum EVENTS NAME FIELD: the sum of FIELD=N over the events NAME
tsum() {
	awk -v e="$2:" -v f="$3" '$1 == e { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == f) s += kv[2] } } END { print s + 0 }' <<<"$1"
}
# tcount EVENTS NAME [WORD]: how many events NAME (with WORD as a field)
tcount() {
	awk -v e="$2:" -v w="${3:-}" '$1 == e { for (i = 2; i <= NF; i++) if (w == "" || $i == w) { n++; break } } END { print n + 0 }' <<<"$1"
}

# fragment NSLABS: NSLABS slabs of smo_test on node 0 keeping one object in
# 10 (below the default defrag_used_ratio of 30 %), mobility on
fragment() {
	ops=$(attr objs_per_slab)
	callfn "alloc $(($1 * ops)) 0"
	callfn "punch 10"
	# counted before mobility is on: from then on, a background run that
	# happens to come may take slabs at once
	# (the debug kernel's KASAN changes the layout: vm_debug_full_only)
	[ "${SMO_FLAVOR:-normal}" = debug ] || [ "$(attr slabs)" -eq "$1" ]
	callfn enable
}

# wait_runs N SECS: wait until N more background runs have ended, at most
# SECS seconds (times the timeout scale); fails on the timeout
wait_runs() {
	local want=$(($(ev background_runs) + $1)) end=$((SECONDS + $2 * VM_TIMEOUT_SCALE))
	# a run counts itself when it starts: wait for one more to know it ended
	while (($(ev background_runs) < want + 1)); do
		((SECONDS < end)) || { echo "wait_runs: fewer than $1 runs in $2 s"; return 1; }
		sleep 1
	done
}

@test "the background defragmentation is on by default, with the documented thresholds and counters" {
	[ "$DEFAULTS" = "15 101 64" ]
	for c in background_runs slabs_isolated objects_offered slabs_freed slabs_vacated vacate_failed; do
		run -0 vm_run "grep -c '^slab_defrag_$c ' $VMSTAT"
		[ "$output" = 1 ]
	done
	# root writes them, everyone reads them (badinput.bats tries the writes)
	run -0 vm_run "stat -c '%a %U' $SYSCTL/slab_defrag_interval $SYSCTL/slab_defrag_min_slabs $SYSCTL/slab_defrag_max_slabs"
	[ "$(sort -u <<<"$output")" = "644 root" ]
}

@test "with nothing written, the kernel evacuates the sparse slabs of a fragmented movable cache" {
	vm_debug_full_only "KASAN's quarantine keeps freed objects in use: the thresholds see a dense cache until it drains (11 runs, 203 s, in one rehearsal)"
	fragment 130
	live=$(stat_of objects)
	runs0=$(ev background_runs) freed0=$(ev slabs_freed) offered0=$(ev objects_offered)
	# the default interval is 15 s: three of them, at most
	end=$((SECONDS + 45 * VM_TIMEOUT_SCALE))
	while (($(attr slabs) > 130 - 32)); do
		((SECONDS < end)) || { echo "slabs still $(attr slabs) after 45 s"; false; }
		sleep 1
	done
	slabs=$(attr slabs)
	runs=$(($(ev background_runs) - runs0)) freed=$(($(ev slabs_freed) - freed0))
	offered=$(($(ev objects_offered) - offered0))
	echo "# nothing written: slabs 130 -> $slabs in $runs runs, $freed slabs freed, $offered objects offered, moved $(stat_of moved)" >&3
	[ "$runs" -ge 1 ]
	[ "$freed" -ge $((130 - slabs)) ]
	[ "$offered" -gt 0 ]
	[ "$(stat_of moved)" -gt 0 ]
	[ "$(stat_of objects)" -eq "$live" ]
	run -0 callfn verify
}

@test "a background run evacuates at most vm.slab_defrag_max_slabs slabs per node" {
	vm_debug_full_only "KASAN's quarantine keeps freed objects in use: the thresholds see a dense cache until it drains"
	run -0 vm_run "echo 0 > $SYSCTL/slab_defrag_interval && echo 8 > $SYSCTL/slab_defrag_max_slabs"
	fragment 130
	freed0=$(ev slabs_freed) isolated0=$(ev slabs_isolated) runs0=$(ev background_runs)
	run -0 vm_run "echo 1 > $SYSCTL/slab_defrag_interval"
	wait_runs 2 30
	run -0 vm_run "echo 0 > $SYSCTL/slab_defrag_interval"
	sleep 1
	runs=$(($(ev background_runs) - runs0))
	isolated=$(($(ev slabs_isolated) - isolated0)) freed=$(($(ev slabs_freed) - freed0))
	echo "# max_slabs 8: $runs runs isolated $isolated slabs and freed $freed; slabs 130 -> $(attr slabs)" >&3
	[ "$isolated" -gt 0 ]
	[ "$isolated" -le $((8 * runs)) ]
	[ "$freed" -le $((8 * runs)) ]
	[ "$(attr slabs)" -ge $((130 - 8 * runs)) ]
	run -0 callfn verify
}

@test "the background leaves a cache below vm.slab_defrag_min_slabs alone, and takes it once the threshold is lowered" {
	vm_debug_full_only "KASAN's quarantine keeps freed objects in use: the thresholds see a dense cache until it drains"
	fragment 50
	run -0 vm_run "echo 1 > $SYSCTL/slab_defrag_interval"
	wait_runs 3 30
	[ "$(attr slabs)" -eq 50 ]
	[ "$(stat_of moved)" -eq 0 ]
	run -0 vm_run "echo 20 > $SYSCTL/slab_defrag_min_slabs"
	wait_runs 2 30
	echo "# min_slabs 101: 50 slabs left alone; min_slabs 20: 50 -> $(attr slabs)" >&3
	[ "$(attr slabs)" -lt 50 ]
	[ "$(stat_of moved)" -gt 0 ]
	run -0 callfn verify
}

@test "vm.slab_defrag_interval=0 stops the background work" {
	run -0 vm_run "echo 0 > $SYSCTL/slab_defrag_interval"
	sleep 1
	runs0=$(ev background_runs)
	fragment 130
	sleep $((3 * VM_TIMEOUT_SCALE))
	[ "$(ev background_runs)" -eq "$runs0" ]
	[ "$(attr slabs)" -eq 130 ]
	[ "$(stat_of moved)" -eq 0 ]
}

@test "a cache whose background runs free nothing is visited less and less often" {
	vm_debug_full_only "KASAN's quarantine keeps freed objects in use: the thresholds see a dense cache until it drains"
	run -0 vm_run "echo 0 > $SYSCTL/slab_defrag_interval"
	fragment 130
	# every allocation of migrate() fails: no object moves, no slab frees
	callfn "failmig 100"
	isolated0=$(ev slabs_isolated) runs0=$(ev background_runs)
	run -0 vm_run "echo 1 > $SYSCTL/slab_defrag_interval"
	wait_runs 13 90
	run -0 vm_run "echo 0 > $SYSCTL/slab_defrag_interval"
	sleep 1
	runs=$(($(ev background_runs) - runs0))
	isolated=$(($(ev slabs_isolated) - isolated0))
	# each try isolates the budget: 64 of the 130 slabs below the ratio
	tries=$((isolated / 64))
	echo "# failmig 100: tried in $tries of $runs runs ($isolated slabs isolated), slabs $(attr slabs)" >&3
	[ $((isolated % 64)) -eq 0 ]
	# skipping 1, 2, 4, then 8 runs after each fruitless try: tries in
	# runs 1, 3, 6, 11 and 20, where every run tried before
	[ "$runs" -ge 13 ]
	[ "$tries" -ge 4 ]
	[ "$tries" -le $(( runs < 20 ? 4 : 5 )) ]
	[ "$(attr slabs)" -eq 130 ]
	callfn "failmig 0"
	run -0 callfn verify
}

# Compaction (patch 25): compact_memory empties the slabs of a movable cache
# in the pageblocks it clears

@test "compact_memory empties the partial slabs of a fragmented movable cache" {
	vm_debug_full_only "slab counts"
	run -0 vm_run "echo 0 > $SYSCTL/slab_defrag_interval"
	fragment 130
	live=$(stat_of objects) optimum=$(( (130 * ops / 10 + ops - 1) / ops ))
	vacated0=$(ev slabs_vacated) failed0=$(ev vacate_failed)
	run -0 vm_run "echo 1 > /proc/sys/vm/compact_memory"
	slabs=$(attr slabs)
	vacated=$(($(ev slabs_vacated) - vacated0)) failed=$(($(ev vacate_failed) - failed0))
	echo "# compact_memory: slabs 130 -> $slabs (optimum $optimum), $vacated vacated, $failed left (full or CPU slabs)" >&3
	[ "$vacated" -ge $((130 - slabs)) ]
	# nearly every slab is in compaction's way; the objects fill the rest
	[ "$slabs" -le $((2 * optimum + 2)) ]
	[ "$(stat_of objects)" -eq "$live" ]
	[ "$(stat_of moved)" -gt 0 ]
	run -0 callfn verify
}

@test "compact_memory leaves a slab whose objects do not move, and counts it" {
	run -0 vm_run "echo 0 > $SYSCTL/slab_defrag_interval"
	fragment 130
	callfn "failmig 100"
	failed0=$(ev vacate_failed) vacated0=$(ev slabs_vacated)
	run -0 vm_run "echo 1 > /proc/sys/vm/compact_memory"
	failed=$(($(ev vacate_failed) - failed0))
	echo "# failmig 100: compact_memory left $failed slabs" >&3
	[ "$failed" -ge 100 ]
	[ "$(($(ev slabs_vacated) - vacated0))" -eq 0 ]
	[ "$(attr slabs)" -eq 130 ]
	callfn "failmig 0"
	run -0 callfn verify
}

# node0_hugepages: the huge pages node 0 gives after compact_memory, asked
# for all it has (and given back at once)
node0_hugepages() {
	local h=/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages
	vm_run "echo 1 > /proc/sys/vm/compact_memory && echo 512 > $h && cat $h && echo 0 > $h"
}

@test "huge pages: a node whose obstacle is a fragmented movable cache gives them once the cache is movable" {
	vm_debug_full_only "allocates 2 million objects"
	# debug objects (slub_debug=FZPU) are three times larger and slow to
	# allocate: a third of them fill about as many pageblocks
	local nobj=2000000
	vm_slub_debug_all && nobj=700000
	run -0 vm_run "echo 0 > $SYSCTL/slab_defrag_interval"
	run -0 node0_hugepages
	fresh=$output
	# 2 million objects on node 0 (about 140 MiB of slabs), one in 20 kept
	callfn "alloc $nobj 0"
	callfn "punch 20"
	slabs0=$(attr slabs)
	run -0 node0_hugepages
	fixed=$output
	callfn enable
	vacated0=$(ev slabs_vacated)
	run -0 node0_hugepages
	movable=$output
	vacated=$(($(ev slabs_vacated) - vacated0))
	echo "# huge pages on node 0: $fresh fresh, $fixed with $slabs0 sparse slabs ($(((slabs0 + 511) / 512)) pageblocks of them), $movable once movable ($vacated slabs vacated, $(attr slabs) left)" >&3
	# compaction empties nearly every sparse slab, wherever it sits ...
	[ "$vacated" -ge $((slabs0 * 9 / 10)) ]
	# ... and node 0 gives at least 10 more huge pages (before patch 25: the
	# same count, give or take one)
	[ "$movable" -ge $((fixed + 10)) ]
	run -0 callfn verify
}

# Counters and trace events (patch 26)

@test "a shrink is counted per cache and in /proc/vmstat, in agreement with smo_test's own counts" {
	run -0 vm_run "echo 0 > $SYSCTL/slab_defrag_interval"
	fragment 130
	moved0=$(stat_of moved)
	# occupancy: every slab is a partial one kept below 30 % in use, or
	# a full, CPU or isolated one (on the debug kernel, KASAN's quarantine
	# holds some of the objects punched out: they count as in use)
	run -0 vm_run "cat $SLAB/occupancy"
	occ=$output slabs0=$(attr slabs)
	echo "# occupancy before the shrink: $occ" >&3
	[ "$(tr ' ' '\n' <<<"$occ" | awk -F: '{ n += $2 } END { print n }')" -eq "$slabs0" ]
	[ "${SMO_FLAVOR:-normal}" = debug ] ||
		[ "$(tr ' ' '\n' <<<"$occ" | awk -F: -v max=$((ops * 3 / 10)) '$1 ~ /^[0-9]+$/ && $1 >= max' | wc -l)" -eq 0 ]
	c0=$(counts)
	run -0 vm_run "echo 1 > $SLAB/shrink"
	c1=$(counts)
	moved=$(($(stat_of moved) - moved0))
	for c in $COUNTERS; do
		# smo_test is the only movable cache: its counts are the sums
		[ "$(delta "$c0" "$c1" $c 2)" -eq "$(delta "$c0" "$c1" $c 3)" ] || { echo "$c: cache $(delta "$c0" "$c1" $c 2), vmstat $(delta "$c0" "$c1" $c 3)"; false; }
	done
	echo "# shrink: passes $(delta "$c0" "$c1" passes 2), slabs isolated $(delta "$c0" "$c1" slabs_isolated 2), objects offered $(delta "$c0" "$c1" objects_offered 2), moved $(delta "$c0" "$c1" objects_moved 2) (smo_test: $moved), slabs freed $(delta "$c0" "$c1" slabs_freed 2), slabs 130 -> $(attr slabs)" >&3
	[ "$(delta "$c0" "$c1" passes 2)" -ge 1 ]
	[ "$(delta "$c0" "$c1" slabs_isolated 2)" -gt 0 ]
	# every object that left its slab was moved by smo_test's migrate()
	[ "$(delta "$c0" "$c1" objects_moved 2)" -eq "$moved" ]
	[ "$moved" -gt 0 ]
	[ "$(delta "$c0" "$c1" objects_offered 2)" -ge "$moved" ]
	[ "$(delta "$c0" "$c1" slabs_freed 2)" -ge $((slabs0 - $(attr slabs))) ]
	run -0 callfn verify
}

@test "the slab_defrag trace events report every pass and every slab of a shrink" {
	traced_on_fragment "echo 1 > $SLAB/shrink"
	echo "# trace: $(grep -m1 slab_defrag_slab: <<<"$events")" >&3
	echo "# trace: $(grep -m1 slab_defrag_pass: <<<"$events")" >&3
	# every event is smo_test's, for a shrink
	[ "$(tcount "$events" slab_defrag_pass)" -eq "$(tcount "$events" slab_defrag_pass reason=shrink)" ]
	[ "$(tcount "$events" slab_defrag_pass cache=smo_test)" -eq "$(delta "$c0" "$c1" passes 2)" ]
	[ "$(tcount "$events" slab_defrag_slab cache=smo_test)" -eq "$(delta "$c0" "$c1" slabs_isolated 2)" ]
	[ "$(tcount "$events" slab_defrag_slab reason=shrink)" -eq "$(delta "$c0" "$c1" slabs_isolated 2)" ]
	[ "$(tsum "$events" slab_defrag_pass offered)" -eq "$(delta "$c0" "$c1" objects_offered 2)" ]
	[ "$(tsum "$events" slab_defrag_pass moved)" -eq "$(delta "$c0" "$c1" objects_moved 2)" ]
	# a pass frees the slabs it reports freed, one by one
	[ "$(tsum "$events" slab_defrag_pass freed)" -eq "$(tcount "$events" slab_defrag_slab freed)" ]
	[ "$(tsum "$events" slab_defrag_pass slabs)" -eq "$(tcount "$events" slab_defrag_slab)" ]
	[ "$(tcount "$events" slab_defrag_slab freed)" -gt 0 ]
	run -0 callfn verify
}

@test "the slab_defrag trace events report the slabs compaction vacates" {
	traced_on_fragment "echo 1 > /proc/sys/vm/compact_memory"
	vacated=$(delta "$c0" "$c1" slabs_vacated 2)
	echo "# compact_memory: $vacated slabs vacated, $(delta "$c0" "$c1" vacate_failed 2) not; $(tcount "$events" slab_defrag_slab reason=compaction) slab events" >&3
	[ "$vacated" -gt 0 ]
	[ "$(tcount "$events" slab_defrag_pass reason=compaction)" -eq "$(delta "$c0" "$c1" passes 2)" ]
	# one slab per pass; a vacated slab is one reported freed
	[ "$(tcount "$events" slab_defrag_slab reason=compaction)" -eq "$(delta "$c0" "$c1" passes 2)" ]
	[ "$(tcount "$events" slab_defrag_slab freed)" -eq "$vacated" ]
	run -0 callfn verify
}

@test "writing 0 to a cache's movable file stops its mobility without its owner, and 1 brings it back" {
	run -0 vm_run "echo 0 > $SYSCTL/slab_defrag_interval"
	fragment 130
	run -0 vm_run "cat $SLAB/movable && echo 0 > $SLAB/movable && cat $SLAB/movable"
	[ "$output" = "$(printf '1\n0')" ]
	passes0=$(attr defrag_passes) slabs0=$(attr slabs)
	# neither a shrink, compaction nor the background touches it
	run -0 vm_run "echo 1 > $SLAB/shrink && echo 1 > /proc/sys/vm/compact_memory && echo 1 > $SYSCTL/slab_defrag_interval && echo 20 > $SYSCTL/slab_defrag_min_slabs"
	sleep $((3 * VM_TIMEOUT_SCALE))
	run -0 vm_run "echo 0 > $SYSCTL/slab_defrag_interval"
	[ "$(attr defrag_passes)" -eq "$passes0" ]
	[ "$(stat_of moved)" -eq 0 ]
	# (the debug kernel's shrink empties KASAN's quarantine, which may
	# free slabs that only quarantined objects kept)
	[ "${SMO_FLAVOR:-normal}" = debug ] || [ "$(attr slabs)" -eq "$slabs0" ]
	slabs0=$(attr slabs)
	# the owner's callbacks are still registered
	run -0 vm_run "grep -c '^migrate' $SLAB/ops"
	run -0 vm_run "echo 1 > $SLAB/movable && cat $SLAB/movable && echo 1 > $SLAB/shrink"
	[ "$output" = 1 ]
	echo "# movable 0: $slabs0 slabs untouched by shrink, compaction and background; movable 1: shrink $slabs0 -> $(attr slabs)" >&3
	[ "$(attr defrag_passes)" -gt "$passes0" ]
	[ "$(stat_of moved)" -gt 0 ]
	[ "$(attr slabs)" -lt "$slabs0" ]
	run -0 callfn verify
	# the owner may go away while mobility is off; a new cache starts off
	run -0 vm_run "echo 0 > $SLAB/movable"
	run -0 vm_rmmod smo_test
	run -0 vm_insmod smo_test
	run -0 vm_run "cat $SLAB/movable"
	[ "$output" = 0 ]
}

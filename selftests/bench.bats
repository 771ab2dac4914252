#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# modules/smo_bench, the in-kernel half of `make bench`: its commands do what
# bench/run reads from them (the defrag figures, one value per repetition,
# objects intact after every move), reject malformed input with EINVAL and
# leave nothing behind on unload.  Sizes are small: the figures here are
# checked for shape and sense, not for speed (that is bench/run's job).
# The "host:" tests need no guest: they run bench/run and bench/demo against
# a stand-in vm/run that answers from canned text, and check their verdicts
# (a row without a measurement is NOT RUN and fails the run; the kernel log
# is scanned with vm/lib.sh's SMO_SPLAT_PATTERNS).

load lib/vm

MOD=smo_bench
CALLFN=/sys/kernel/debug/smo_bench/callfn
RESULT=/sys/kernel/debug/smo_bench/result
SLABS=/sys/kernel/slab
vm_min_timeout 300

setup_file() {
	vm_start
}

teardown_file() {
	vm_stop
}

setup() {
	[[ "$BATS_TEST_DESCRIPTION" == host:* ]] || vm_setup_module "$MOD"
}

teardown() {
	[[ "$BATS_TEST_DESCRIPTION" == host:* ]] || vm_teardown_module "$MOD"
}

# bench CMD: one smo_bench command, then its result
bench() {
	vm_run "echo '$*' > $CALLFN && cat $RESULT"
}

# kv KEY TEXT: the rest of the line of TEXT that starts with KEY
kv() {
	awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' <<<"$2"
}

# count LIST: the number of words in LIST
count() {
	wc -w <<<"$1"
}

# all_positive LIST: every word of LIST is a number above zero
all_positive() {
	local v
	for v in $1; do
		[[ "$v" =~ ^[0-9]+$ ]] && ((v > 0)) || return 1
	done
}

@test "frag and shrink: movable cache at the optimum per node, fixed cache keeps its slabs, objects intact" {
	ops=$(vm_run "cat $SLABS/smo_bench_mov/objs_per_slab")
	run -0 bench "frag 5000 10"
	frag=$output
	live=$(kv mov_live "$frag")
	[ "$live" -eq 500 ]
	[ "$(kv fix_live "$frag")" -eq 500 ]
	fix_before=$(vm_run "cat $SLABS/smo_bench_fix/slabs")

	run -0 bench "shrink mov"
	moved=$(kv moved "$output")
	[ "$(kv migrate_failed "$output")" -eq 0 ]
	run -0 bench "shrink fix"
	[ "$(kv moved "$output")" -eq 0 ]

	mov_after=$(vm_run "cat $SLABS/smo_bench_mov/slabs")
	fix_after=$(vm_run "cat $SLABS/smo_bench_fix/slabs")
	echo "moved $moved; movable slabs after: $mov_after; fixed: ${fix_before%% *} -> $fix_after"
	[ "$moved" -gt 0 ]
	nodes=0
	for nd in $(grep -o '^mov_live_N[0-9]*' <<<"$frag" | sed 's/mov_live_N//'); do
		on_node=$(kv "mov_live_N$nd" "$frag")
		opt=$(((on_node + ops - 1) / ops))
		have=$(vm_node_value "$nd" "$mov_after")
		echo "node $nd: $on_node live, $have slabs, optimum $opt"
		[ "$have" -le "$((opt + 1))" ]
		nodes=$((nodes + 1))
	done
	[ "$nodes" -ge 1 ]
	# without mobility a shrink frees (almost) nothing: every slab holds a
	# live object
	[ "$((${fix_after%% *} * 10))" -ge "$((${fix_before%% *} * 9))" ]

	run -0 bench verify
	echo "$output"
	[ "$(kv mov_verified "$output")" -eq "$live" ]
	[ "$(kv mov_corrupt "$output")" -eq 0 ]
	[ "$(kv mov_lost "$output")" -eq 0 ]
	[ "$(kv fix_corrupt "$output")" -eq 0 ]
}

@test "migcost, hotpath, remote and scan print one figure per repetition" {
	run -0 bench "migcost 4000 10 2"
	echo "$output"
	# "verified": the movable cache's objects checked after each shrink
	# (migcost releases them before it returns, so a verify afterwards
	# would look at an empty pool): 4000 objects, one in 10 kept
	for k in copied copy_ns moved shrink_ns verified; do
		[ "$(count "$(kv "$k" "$output")")" -eq 2 ]
		all_positive "$(kv "$k" "$output")"
	done
	for v in $(kv verified "$output"); do
		[ "$v" -ge 390 ]
		[ "$v" -le 400 ]
	done

	run -0 bench "hotpath 5 2 32"
	for k in mov_ns fix_ns; do
		[ "$(count "$(kv "$k" "$output")")" -eq 5 ]
		all_positive "$(kv "$k" "$output")"
	done

	run vm_run "cat /sys/devices/system/cpu/online"
	if [ "$output" != 0 ]; then
		run -0 bench "remote 3 2 16"
		echo "$output"
		for k in mov_ns fix_ns; do
			[ "$(count "$(kv "$k" "$output")")" -eq 3 ]
			all_positive "$(kv "$k" "$output")"
		done
	fi

	run -0 bench "scan 2 5 7"
	echo "$output"
	read -r base extra <<<"$(kv caches "$output")"
	# the walk sees exactly the extra caches, and they are gone afterwards
	[ "$((extra - base))" -eq 7 ]
	for k in defrag_ns_0 defrag_ns_extra walk_ns_0 walk_ns_extra; do
		[ "$(count "$(kv "$k" "$output")")" -eq 2 ]
		all_positive "$(kv "$k" "$output")"
	done
	run vm_run "ls -d $SLABS/smo_bench_x* 2>/dev/null | wc -l"
	[ "$output" -eq 0 ]
}

@test "malformed commands fail with EINVAL and change nothing" {
	run -0 bench "frag 2000 4"
	before=$(vm_run "cat $SLABS/smo_bench_mov/objects $SLABS/smo_bench_fix/objects")
	run vm_run "bad=0 n=0
		while IFS= read -r c; do
			n=\$((n + 1))
			out=\$(printf '%s' \"\$c\" | dd of=$CALLFN bs=4096 2>&1) &&
				{ echo \"ACCEPTED '\$c'\"; bad=1; continue; }
			case \$out in *'Invalid argument'*) ;; *) echo \"'\$c': \$out\"; bad=1 ;; esac
		done <<'LIST'
frag
frag 0 2
frag 10 0
frag 2000001 2
frag -1 2
frag +1 2
frag 1 2 3
frag 0x10 2
shrink
shrink both
shrink 1
release now
verify 1
migcost 100 2 0
migcost 100 2 1025
hotpath 0 1 1
hotpath 1 1 0
hotpath 1 1 4097
remote 1 1
scan 0 1 1
scan 1 0 1
scan 1 1001 1
scan 1 1 1001
bogus
FRAG 10 2
LIST
		echo tried=\$n
		[ \$bad -eq 0 ]"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(sed -n 's/^tried=//p' <<<"$output")" -eq 25 ]
	after=$(vm_run "cat $SLABS/smo_bench_mov/objects $SLABS/smo_bench_fix/objects")
	[ "$before" = "$after" ]
	run -0 bench verify
	[ "$(kv mov_verified "$output")" -eq 500 ]
	[ "$(kv fix_verified "$output")" -eq 500 ]
}

@test "unloading with live objects frees both caches" {
	run -0 bench "frag 3000 3"
	run -0 bench "shrink mov"
	run -0 vm_rmmod "$MOD"
	run vm_run "ls -d $SLABS/smo_bench_mov $SLABS/smo_bench_fix 2>/dev/null | wc -l"
	[ "$output" -eq 0 ]
	# SLUB complains of objects left in a destroyed cache
	run vm_log_since_mark
	[[ "$output" != *"objects remaining"* ]]
	[[ "$output" != *"still has objects"* ]]
	run -0 vm_insmod "$MOD"
}

# stand_in: copies of bench/run, bench/demo and vm/lib.sh in TREE
# ($BATS_TEST_TMPDIR/tree) with a stand-in vm/run: it answers each guest
# command from canned text (STANDIN_SCAN: smo_bench's scan result;
# STANDIN_DMESG: the kernel log; STANDIN_DEAD=1: dmesg fails as from a guest
# that is gone) and "ok" to anything else
stand_in() {
	TREE="$BATS_TEST_TMPDIR/tree"
	mkdir -p "$TREE/bench" "$TREE/vm" "$BATS_TEST_TMPDIR/guest"
	cp "$VM_ROOT/bench/run" "$VM_ROOT/bench/demo" "$TREE/bench/"
	cp "$VM_ROOT/vm/lib.sh" "$TREE/vm/"
	cat >"$TREE/vm/run" <<'STANDIN'
#!/bin/bash
set -euo pipefail
while [[ "${1:-}" == -[dt] ]]; do shift 2; done
case "$*" in
*dmesg*) [[ "${STANDIN_DEAD:-0}" != 1 ]] || exit 255; printf '%s\n' "${STANDIN_DMESG:-}" ;;
*"'scan "*) printf '%s\n' "$STANDIN_SCAN" ;;
*"cat order"*) echo "100 409600" ;;
*objs_per_slab*) echo 10 ;;
*smo_test/stats*) echo "objects 1000" ;;
"uname -r") echo 6.12.0-stand-in ;;
*) echo ok ;;
esac
STANDIN
	chmod +x "$TREE/vm/run"
	export SMO_RUN_DIR="$BATS_TEST_TMPDIR/guest" SMO_FLAVOR=normal
}

# scan_result D0 DX: smo_bench's scan result with defrag ns per call D0
# without and DX with the extra caches (3 repetitions)
scan_result() {
	printf 'caches 150 350\ndefrag_ns_0 %s %s %s\ndefrag_ns_extra %s %s %s\n' \
		"$1" "$1" "$1" "$2" "$2" "$2"
	printf 'walk_ns_0 500 500 500\nwalk_ns_extra 1500 1500 1500\n'
}

@test "host: bench/run's scan row reads NOT RUN and fails the run without a measurement" {
	vm_slow "a self-test of bench/run"
	stand_in
	export STANDIN_SCAN
	STANDIN_SCAN=$(scan_result 1000 1020)
	run "$TREE/bench/run" --only scan --out "$BATS_TEST_TMPDIR/out"
	echo "$output"
	[ "$status" -eq 0 ]
	assert_line --regexp '^scan +200 extra caches +met '
	# no time without the extra caches: a ratio of nan, no measurement
	STANDIN_SCAN=$(scan_result 0 1020)
	run "$TREE/bench/run" --only scan --out "$BATS_TEST_TMPDIR/out"
	echo "$output"
	[ "$status" -eq 1 ]
	assert_line --regexp '^scan +200 extra caches +NOT RUN '
	assert_output --partial "not run or failed: scan"
	if command -v python3 >/dev/null; then
		python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
assert d["scenarios"]["scan"]["ratio_median"] is None, d["scenarios"]["scan"]
assert d["not_run"] == ["scan"], d["not_run"]' "$BATS_TEST_TMPDIR/out/results.json"
	fi
}

@test "host: bench/demo fails on the splats of SMO_SPLAT_PATTERNS and on a guest gone at the end" {
	vm_slow "a self-test of bench/demo"
	local line
	stand_in
	export STANDIN_DMESG="smo_test: module loaded" STANDIN_DEAD=0
	run "$TREE/bench/demo" --objects 1000
	echo "$output"
	[ "$status" -eq 0 ]
	assert_line clean
	# splats of vm/lib.sh's list beyond the six patterns bench/demo once
	# kept of its own
	for line in "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:" \
		"INFO: task kworker/0:1:12 blocked for more than 45 seconds." \
		"BUG smo_test (Not tainted): Poison overwritten" \
		"refcount_t: underflow; use-after-free." \
		"Kernel panic - not syncing: stand-in"; do
		STANDIN_DMESG=$'smo_test: module loaded\n'"$line"
		run "$TREE/bench/demo" --objects 1000
		[ "$status" -eq 1 ] || fail "bench/demo passed a kernel log with: $line"
		assert_output --partial "the kernel log shows a splat"
		refute_line clean
	done
	STANDIN_DMESG="" STANDIN_DEAD=1
	run "$TREE/bench/demo" --objects 1000
	[ "$status" -eq 1 ] || fail "bench/demo passed a guest that did not answer dmesg"
	refute_line clean
}

@test "kmemleak finds no leak after this file's tests" {
	vm_kmemleak_test
}

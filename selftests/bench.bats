#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# modules/smo_bench, the in-kernel half of `make bench`: its commands do what
# bench/run reads from them (the defrag figures, one value per repetition,
# objects intact after every move), reject malformed input with EINVAL and
# leave nothing behind on unload.  Sizes are small: the figures here are
# checked for shape and sense, not for speed (that is bench/run's job).

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
	vm_setup_module "$MOD"
}

teardown() {
	vm_teardown_module "$MOD"
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

@test "kmemleak finds no leak after this file's tests" {
	vm_kmemleak_test
}

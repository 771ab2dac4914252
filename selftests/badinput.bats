#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Bad input and permissions for every file the project adds: the debugfs
# control files of the modules (callfn, move, balance, rescan, ...), the
# defrag_used_ratio and movable attributes of the slab caches and the background
# defragmentation's sysctls.  Each hostile string must
# fail with EINVAL (the documented errno for malformed input), change
# nothing and leave a clean kernel log; the unprivileged user "tester" may
# neither write any of them nor read the root-only ones.

load lib/vm

CALLFN=/sys/kernel/debug/smo_test/callfn
SLABS=/sys/kernel/slab
DEBUGFS_DIRS="/sys/kernel/debug/smo_test /sys/kernel/debug/smo_xarray /sys/kernel/debug/smo_node /sys/kernel/debug/smo_dentry /sys/kernel/debug/smo_bench /sys/kernel/debug/smo_template"
RATIO_CACHES="smo_test smox_test radix_tree_node_movable dentry"
vm_min_timeout 600

setup_file() {
	vm_start
	vm_run "for m in smo_test smo_xarray smo_node smo_dentry smo_bench smo_template; do
			insmod /lib/modules/smo/\$m.ko || exit 1
		done
		echo 'alloc 100' > $CALLFN && echo enable > $CALLFN &&
		echo 'populate 100' > /sys/kernel/debug/smo_xarray/callfn"
}

teardown_file() {
	vm_stop
}

teardown() {
	vm_teardown_test
}

# Hostile inputs, built in the guest as files /tmp/hostile/NAME with
# printf escapes (so every byte reaches the guest intact): the empty line,
# whitespace, signs, overflows, a leading NUL, non-UTF-8 bytes, control
# characters, a format string, too many words and 64 KiB of text and digits.
make_hostile() {
	vm_run "rm -rf /tmp/hostile && mkdir /tmp/hostile && cd /tmp/hostile &&
		printf '\\n' > empty-line &&
		printf '   ' > spaces &&
		printf ' \\t \\n' > tab-newline &&
		printf '+' > plus &&
		printf '-' > minus &&
		printf -- '--1' > double-minus &&
		printf '18446744073709551616' > u64-overflow &&
		printf '99999999999999999999999999999999' > huge &&
		printf '\\000abc' > leading-nul &&
		printf '\\377\\376\\375' > non-utf8 &&
		printf '\\303\\050' > bad-utf8-seq &&
		printf '\\033[2J\\007' > control &&
		printf '%%s%%n%%x' > format &&
		printf 'abc' > word &&
		printf '0x10' > hex &&
		printf '1e3' > exponent &&
		printf 'a b c d e f g h' > many-words &&
		head -c 65536 /dev/zero | tr '\\0' a > 64k-text &&
		head -c 65536 /dev/zero | tr '\\0' 9 > 64k-digits &&
		ls | wc -l"
}

# smo_node has a directory per cache; these stand for all of them (the
# movable caches and one that is not)
NODE_CACHES="smo_test|smox_test|radix_tree_node_movable|dentry|kmalloc-64"

# Every file the project adds under debugfs (one path per line)
debugfs_files() {
	vm_run "find $DEBUGFS_DIRS -type f 2>/dev/null" |
		grep -E -v "^/sys/kernel/debug/smo_node/[^/]+/" |
		cat - <(vm_run "find $DEBUGFS_DIRS -type f 2>/dev/null" |
			grep -E "^/sys/kernel/debug/smo_node/($NODE_CACHES)/")
}

# Every writable file the project adds (one path per line)
writable_files() {
	local f
	for f in $(debugfs_files); do
		vm_run "test -n \"\$(find $f -perm -200)\"" >/dev/null && echo "$f"
	done
	for f in $RATIO_CACHES; do echo "$SLABS/$f/defrag_used_ratio"; echo "$SLABS/$f/movable"; done
}

@test "every hostile string fails with EINVAL on every writable file and changes nothing" {
	run -0 make_hostile
	nr_inputs=$output
	[ "$nr_inputs" -ge 19 ]
	files=$(writable_files)
	nr_files=$(wc -l <<<"$files")
	[ "$nr_files" -ge 8 ]
	grep -q smo_test/callfn <<<"$files"
	grep -q smo_xarray/callfn <<<"$files"
	grep -q smo_node/rescan <<<"$files"
	grep -q smo_node/smo_test/move <<<"$files"
	grep -q smo_node/smo_test/balance <<<"$files"
	grep -q smo_bench/callfn <<<"$files"
	grep -q smo_template/control <<<"$files"
	before=$(vm_run "cat /sys/kernel/debug/smo_test/stats $SLABS/smo_test/objects; for c in $RATIO_CACHES; do cat $SLABS/\$c/defrag_used_ratio $SLABS/\$c/movable; done")
	# One write(2) of the whole input per file (dd bs > input size)
	run vm_run "tried=0 bad=0
		for f in \$(cat <<'LIST'
$files
LIST
		); do
			for h in /tmp/hostile/*; do
				tried=\$((tried + 1))
				out=\$(dd if=\$h of=\$f bs=131072 count=1 2>&1)
				rc=\$?
				case \"\$rc:\$out\" in
				0:*) bad=\$((bad + 1)); echo \"ACCEPTED \$f \${h##*/}\" ;;
				*'Invalid argument'*) ;;
				*) bad=\$((bad + 1)); echo \"WRONG \$f \${h##*/}: \$out\" ;;
				esac
			done
		done
		echo tried=\$tried bad=\$bad
		[ \$bad -eq 0 ]"
	echo "$output" | tail -n 40
	[ "$status" -eq 0 ]
	tried=$(sed -n 's/^tried=\([0-9]*\) .*/\1/p' <<<"$output")
	[ "$tried" -eq "$((nr_inputs * nr_files))" ]
	after=$(vm_run "cat /sys/kernel/debug/smo_test/stats $SLABS/smo_test/objects; for c in $RATIO_CACHES; do cat $SLABS/\$c/defrag_used_ratio $SLABS/\$c/movable; done")
	[ "$before" = "$after" ]
	run -0 vm_run "echo verify > $CALLFN && echo verify > /sys/kernel/debug/smo_xarray/callfn"
	echo "# bad input: $nr_inputs hostile strings x $nr_files files = $tried writes, all EINVAL, nothing changed" >&3
}

# A command each file takes (harmless: nothing moves or changes) and the
# file; the test writes it with a NUL and junk after it in the same write
NUL_CASES="/sys/kernel/debug/smo_test/callfn verify
/sys/kernel/debug/smo_xarray/callfn verify
/sys/kernel/debug/smo_bench/callfn verify
/sys/kernel/debug/smo_template/control verify
/sys/kernel/debug/smo_node/rescan 1"

@test "a valid command cut short by a NUL fails with EINVAL on every command file" {
	local line f cmd nr=0 cases
	mapfile -t cases <<<"$NUL_CASES"
	for line in "${cases[@]}"; do
		f=${line%% *} cmd=${line#* }
		# the command alone is taken: the NUL is what the write fails on
		run -0 vm_run "printf '$cmd' | dd of=$f bs=4096 2>&1"
		run vm_run "printf '$cmd\\000junk' | dd of=$f bs=4096 2>&1"
		if [ "$status" -ne 1 ] || [[ "$output" != *"Invalid argument"* ]]; then
			echo "$f took '$cmd\\0junk' (status $status): $output"
			return 1
		fi
		nr=$((nr + 1))
	done
	[ "$nr" -eq 5 ]
}

@test "an open without a write (zero bytes) changes nothing and reports no error" {
	files=$(writable_files)
	before=$(vm_run "cat /sys/kernel/debug/smo_test/stats; for c in $RATIO_CACHES; do cat $SLABS/\$c/defrag_used_ratio; done")
	run -0 vm_run "for f in $(tr '\n' ' ' <<<"$files"); do : > \$f || exit 1; done"
	after=$(vm_run "cat /sys/kernel/debug/smo_test/stats; for c in $RATIO_CACHES; do cat $SLABS/\$c/defrag_used_ratio; done")
	[ "$before" = "$after" ]
}

@test "the unprivileged user can write none of the files and read no root-only one" {
	files=$(writable_files)
	all_debugfs=$(debugfs_files)
	# debugfs control and report files are root-only by their own mode too
	run vm_run "for f in $(tr '\n' ' ' <<<"$all_debugfs"); do
			m=\$(stat -c %a \$f); case \$m in [0-7]00) ;; *) echo \"\$f mode \$m\"; exit 1;; esac
		done"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	run vm_run_as_tester "n=0 bad=0
		for f in $(tr '\n' ' ' <<<"$files"); do
			n=\$((n + 1))
			out=\$( (echo 1 > \$f) 2>&1) && { echo \"WROTE \$f\"; bad=1; }
			case \$out in *'Permission denied'*) ;; *) echo \"\$f: \$out\"; bad=1 ;; esac
		done
		for f in $(tr '\n' ' ' <<<"$all_debugfs"); do
			n=\$((n + 1))
			out=\$(cat \$f 2>&1) && { echo \"READ \$f\"; bad=1; }
			case \$out in *'Permission denied'*) ;; *) echo \"\$f: \$out\"; bad=1 ;; esac
		done
		echo tried=\$n
		[ \$bad -eq 0 ]"
	echo "$output" | tail -n 30
	[ "$status" -eq 0 ]
	nr=$(sed -n 's/^tried=//p' <<<"$output")
	[ "$nr" -eq "$(($(wc -l <<<"$files") + $(wc -l <<<"$all_debugfs")))" ]
	# defrag_used_ratio is root-only (0600) like the other slab attributes
	run -1 vm_run_as_tester "cat $SLABS/smo_test/defrag_used_ratio"
	[[ "$output" == *"Permission denied"* ]]
	run vm_run "stat -c %a $(tr '\n' ' ' <<<"$files" | tr ' ' '\n' | grep defrag_used_ratio | tr '\n' ' ')"
	[ "$(sort -u <<<"$output")" = 600 ]
	# so is movable; the per-cache counters are root-only and read-only
	run vm_run "stat -c %a $SLABS/smo_test/movable $SLABS/dentry/movable"
	[ "$(sort -u <<<"$output")" = 600 ]
	run vm_run "stat -c %a $SLABS/smo_test/defrag_* | grep -v -x 600"
	[ "$(sort -u <<<"$output")" = 400 ]
	run -1 vm_run_as_tester "cat $SLABS/smo_test/defrag_passes"
	[[ "$output" == *"Permission denied"* ]]
	nr=$((nr + 2))
	echo "# permissions: $nr write/read attempts as tester, all denied" >&3
}

# The background defragmentation's sysctls (patch 24): name, a valid value
# other than the default, and values out of their range
SYSCTL_CASES="slab_defrag_interval 5 86401 4294967296 -1
slab_defrag_min_slabs 50 0 16777217 -1
slab_defrag_max_slabs 8 0 16777217 -1"

@test "the background defragmentation's sysctls reject hostile and out-of-range values with EINVAL and stay root-only" {
	run -0 make_hostile
	local name ok tried=0 nr_inputs=$output
	while read -r name ok out_of_range; do
		f=/proc/sys/vm/$name
		# "0x10" is excluded: like every proc_douintvec sysctl these take
		# C number bases, so it is the valid value 16
		run vm_run "before=\$(cat $f) bad=0 n=0
			for v in $out_of_range; do
				n=\$((n + 1))
				out=\$(printf '%s' \$v | dd of=$f bs=4096 2>&1) && { echo \"ACCEPTED $name \$v\"; bad=1; }
				case \$out in *'Invalid argument'*) ;; *) [ \$bad = 1 ] || echo \"WRONG $name \$v: \$out\"; bad=1 ;; esac
			done
			for h in /tmp/hostile/*; do
				[ \${h##*/} = hex ] && continue
				n=\$((n + 1))
				out=\$(dd if=\$h of=$f bs=131072 count=1 2>&1) && { echo \"ACCEPTED $name \${h##*/}\"; bad=1; continue; }
				case \$out in *'Invalid argument'*) ;; *) echo \"WRONG $name \${h##*/}: \$out\"; bad=1 ;; esac
			done
			[ \"\$(cat $f)\" = \"\$before\" ] || { echo \"$name changed to \$(cat $f)\"; bad=1; }
			echo tried=\$n
			[ \$bad = 0 ]"
		echo "$output" | tail -n 20
		[ "$status" -eq 0 ]
		tried=$((tried + $(sed -n 's/^tried=//p' <<<"$output")))
		# root-only to write, and a valid value is taken
		run vm_run_as_tester "echo $ok > $f"
		[ "$status" -ne 0 ]
		[[ "$output" == *"Permission denied"* ]]
		run -0 vm_run "old=\$(cat $f) && echo $ok > $f && cat $f && echo \$old > $f"
		[ "$(head -n 1 <<<"$output")" = "$ok" ]
	done <<<"$SYSCTL_CASES"
	# three values out of range and every hostile string but hex, per sysctl
	[ "$tried" -eq $((3 * (3 + nr_inputs - 1))) ]
	echo "# sysctls: $tried hostile or out-of-range writes, all EINVAL, nothing changed" >&3
}

@test "a slab cache's movable file takes 0 and 1 only, and 1 only while its owner has callbacks" {
	local f=$SLABS/smo_test/movable bad
	run -0 vm_run "cat $f $SLABS/kmalloc-64/movable"
	[ "$output" = "$(printf '1\n0')" ]
	for v in 2 -1 10 4294967296 01x; do
		run vm_run "printf '%s' $v | dd of=$f bs=4096 2>&1"
		[ "$status" -ne 0 ] && [[ "$output" == *"Invalid argument"* ]] || { echo "movable took $v: $output"; false; }
	done
	# kmalloc-64 has no callbacks: it cannot be made movable
	run vm_run "echo 1 > $SLABS/kmalloc-64/movable"
	[ "$status" -ne 0 ] && [[ "$output" == *"Invalid argument"* ]]
	run -0 vm_run "cat $f $SLABS/kmalloc-64/movable"
	[ "$output" = "$(printf '1\n0')" ]
	# the counters take no write, not even from root
	run vm_run "echo 0 > $SLABS/smo_test/defrag_passes"
	[ "$status" -ne 0 ]
	# 0 and 1 are taken, and reported back
	run -0 vm_run "echo 0 > $f && cat $f && echo 1 > $f && cat $f"
	[ "$output" = "$(printf '0\n1')" ]
	echo "# movable: 5 out-of-range values and 1 on a cache without callbacks, all EINVAL" >&3
}

@test "kmemleak finds no leak after this file's tests" {
	vm_kmemleak_test
}

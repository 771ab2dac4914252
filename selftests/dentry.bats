#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Targeted dentry reclaim through smo_dentry: shrinking the dentry cache
# evicts the unused dentries of sparse slabs, frees slabs, and never touches
# what is in use (open files, mount points, tmpfs/sysfs/debugfs/proc), also
# while lookups, creates and unlinks run and while filesystems are unmounted.
#
# The disk filesystem is an ext2 image on a loop device in the guest's /tmp.

load lib/vm

SLAB=/sys/kernel/slab/dentry
STATS=/sys/kernel/debug/smo_dentry/stats
MNT=/mnt/t
# the workloads below run minutes under TCG with a shrink loop beside them
vm_min_timeout 300

# the ext2 images the tests mount, on loop devices
setup_disks() {
	vm_run "mkdir -p $MNT /mnt/u &&
		truncate -s 48M /tmp/t.img &&
		losetup /dev/loop0 /tmp/t.img && mke2fs -q -N 16384 /dev/loop0 &&
		mount -t ext2 /dev/loop0 $MNT &&
		truncate -s 8M /tmp/u.img &&
		losetup /dev/loop1 /tmp/u.img && mke2fs -q /dev/loop1"
}

setup_file() {
	vm_start
	setup_disks
}

teardown_file() {
	vm_stop
}

teardown() {
	vm_run "killall tail 2>/dev/null; echo 0 > /sys/kernel/debug/slab_mobility/evict_ms 2>/dev/null; true"
	vm_teardown_module smo_dentry
}

field() { vm_slab_attr dentry "$1"; }

stat_of() { vm_stat "$STATS" "$1"; }

# FRAG_DIRS directories (2000; a fifth on the debug flavor's CI run, where
# the 40000 lookups take minutes, and in the quick run), each looked up for
# 20 missing names, the lookups going round the directories so that
# consecutive dentries belong to different ones; then 3 of 4 directories
# are removed, which frees their children: the dentry slabs are left a
# quarter full of unused dentries.  300 files stay open in a background
# process.
FRAG_DIRS=$(vm_rounds 2000)
fragment() {
	vm_run "cd $MNT && rm -rf d keep && mkdir d keep &&
		awk 'BEGIN { for (i = 0; i < 300; i++) print \"keep/f\" i }' | xargs touch &&
		for f in keep/*; do echo \"\$f\" > \"\$f\"; done &&
		(tail -f keep/* > /dev/null 2>&1 &) &&
		awk 'BEGIN { for (i = 0; i < $FRAG_DIRS; i++) print \"d/\" i }' | xargs mkdir &&
		awk 'BEGIN { for (j = 0; j < 20; j++) for (i = 0; i < $FRAG_DIRS; i++) print \"d/\" i \"/m\" j }' |
			xargs ls > /dev/null 2>&1;
		awk 'BEGIN { for (i = 0; i < $FRAG_DIRS; i++) if (i % 4) print \"d/\" i }' | xargs rmdir"
}

# What must survive a shrink: mounts and directory listings
snapshot() {
	vm_run "cat /proc/mounts; for d in / /proc/self /sys /sys/kernel/debug /sys/kernel/slab/dentry $MNT $MNT/keep $MNT/d /tmp; do echo \"== \$d\"; ls -a \$d | sort; done" | grep -v -e '^== /proc/self' | md5sum
}

# The constructor slab mobility needs made SLUB put the free pointer after
# each dentry: 200 bytes instead of 192, 20 per slab instead of 21, most
# dentries off a cache line.  Patches 16 and 17 place it in d_fsdata, so a
# dentry keeps mainline's size.  Red zones and poisoning (slub_debug, the
# debug flavor) move the free pointer out on purpose, and so does KASAN:
# checked on the normal kernel without them.
@test "struct dentry keeps its size: the free pointer stays inside the object" {
	local debug
	debug=$(vm_run "cat $SLAB/poison $SLAB/red_zone $SLAB/store_user" | tr -d '\n')
	[[ "$debug" == 000 ]] || skip "slub_debug is on for the dentry cache"
	# KASAN (debug flavor) adds its metadata to every object, on purpose too
	[[ "${SMO_FLAVOR:-normal}" == normal ]] ||
		skip "the $SMO_FLAVOR kernel's sanitizers change the object layout"
	obj=$(field object_size)
	size=$(field slab_size)
	order=$(field order)
	per_slab=$(field objs_per_slab)
	echo "object_size $obj slab_size $size order $order objs_per_slab $per_slab"
	[ "$size" -eq "$obj" ]
	[ $((obj % 64)) -eq 0 ]
	[ "$per_slab" -eq $(( (4096 << order) / size )) ]
	echo "# dentry: $obj bytes, slab_size $size, $per_slab per order-$order slab" >&3
}

@test "shrinking the movable dentry cache frees partial and total slabs" {
	vm_debug_full_only "slab counts; the race tests below shrink under KASAN"
	run fragment
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	vm_run "echo 1 > $SLAB/shrink"       # not movable yet: flush only
	slabs0=$(field slabs)
	partial0=$(field partial)
	run -0 vm_run "insmod /lib/modules/smo/smo_dentry.ko"
	run -0 vm_run "cat $SLAB/ops"
	[[ "$output" == *"migrate : smod_migrate"* ]]
	run -0 vm_run "echo 1 > $SLAB/shrink"
	slabs1=$(field slabs)
	partial1=$(field partial)
	echo "dentry slabs $slabs0 -> $slabs1, partial $partial0 -> $partial1"
	vm_run "cat $STATS"
	[ "$partial1" -lt "$partial0" ]
	[ "$slabs1" -lt "$slabs0" ]
	[ "$(stat_of evicted)" -gt 0 ]
	[ "$(stat_of taken)" -eq $(( $(stat_of evicted) + $(stat_of raced) + $(stat_of returned) )) ]
}

@test "nothing in use disappears: paths, mounts, listings and open files" {
	vm_debug_full_only "the race tests below shrink the same dentries under KASAN"
	run -0 fragment
	run -0 vm_run "insmod /lib/modules/smo/smo_dentry.ko"
	before=$(snapshot)
	run -0 vm_run "echo 1 > $SLAB/shrink && echo 1 > $SLAB/shrink"
	[ "$(stat_of evicted)" -gt 0 ]
	after=$(snapshot)
	[ "$before" = "$after" ]
	run vm_run "ls $MNT/keep | wc -l"
	[ "$output" -eq 300 ]
	run vm_run "cat $MNT/keep/f7 $MNT/keep/f299"
	[ "$output" = "$(printf 'keep/f7\nkeep/f299')" ]
	# the files the background process holds open are still open and readable
	run -0 vm_run "pid=\$(pidof tail); ls /proc/\$pid/fd | wc -l; cat /proc/\$pid/fd/3 > /dev/null"
	[ "${lines[0]}" -ge 300 ]
	run vm_run "ls $MNT/d | wc -l"
	[ "$output" -eq $((FRAG_DIRS / 4)) ]
	# every dentry offered is counted once: taken, or skipped for a reason
	stats_add_up
}

# stats_add_up: smo_dentry's counters add up (every dentry offered is
# taken or skipped for one reason; every one taken is evicted, left alone
# because it was taken into use meanwhile, or given back); leaves them in ST
stats_add_up() {
	local k v
	run -0 vm_run "cat $STATS"
	echo "$output"
	declare -gA ST=()
	while read -r k v; do ST[$k]=$v; done <<<"$output"
	[ "${ST[candidates]}" -eq $((ST[taken] + ST[skip_not_cached] + ST[skip_in_use] + ST[skip_busy])) ]
	[ "${ST[taken]}" -eq $((ST[evicted] + ST[raced] + ST[returned])) ]
}

# A slab whose only dentry is in use: 2100 files, every 21st held open,
# the others deleted and their negative dentries dropped (drop_caches),
# leave 100 slabs with one open file each.  The shrink offers them (the
# denser slabs keep the room), and each comes back as in use, still open.
@test "a dentry in use is offered, counted as in use and stays" {
	vm_debug_full_only "slab layout; the race tests shrink dentries in use under KASAN"
	run -0 vm_run "mkdir -p $MNT/h && cd $MNT/h &&
		awk 'BEGIN { for (i = 0; i < 2100; i++) print \"f\" i }' | xargs touch &&
		for i in \$(seq 0 21 2099); do echo f\$i > f\$i; done &&
		(tail -f \$(awk 'BEGIN { for (i = 0; i < 2100; i += 21) print \"f\" i }') > /dev/null 2>&1 &) &&
		sleep 1 &&
		awk 'BEGIN { for (i = 0; i < 2100; i++) if (i % 21) print \"f\" i }' | xargs rm &&
		sync && echo 2 > /proc/sys/vm/drop_caches &&
		ls /proc/\$(pidof tail)/fd | wc -l"
	[ "$output" -ge 100 ]
	run -0 vm_run "insmod /lib/modules/smo/smo_dentry.ko"
	run -0 vm_run "echo 1 > $SLAB/shrink"
	stats_add_up
	[ "${ST[skip_in_use]}" -ge 50 ]
	run -0 vm_run "ls $MNT/h | wc -l; cat $MNT/h/f0 $MNT/h/f2079"
	[ "${lines[0]}" -eq 100 ]
	[ "${lines[1]}" = f0 ]
	[ "${lines[2]}" = f2079 ]
	run -0 vm_run "killall tail; rm -rf $MNT/h"
}

# A dentry the pass took while unused and that is opened before the batch
# evicts it is left alone and counted as raced, not evicted (the kernel
# once counted every dentry it handed to shrink_dentry_list() as evicted).
# 100 slabs with two unused file dentries each, f<21k> and f<21k+10>
# (built as above); the evict delay point holds each batch for a second
# after isolate() took its dentries; the f<21k> files are opened as soon
# as a batch has taken some, the f<21k+10> ones stay closed: in the same
# batch one dentry races and its neighbour is evicted (counting on the
# guest's own sparse slabs for an eviction made the test fail whenever the
# reopening beat every later batch).  The batch that waits is almost
# always one of these 100 slabs: one of the guest's own sparse slabs may
# come first, so up to three tries.
@test "a dentry taken into use while its batch waits is left alone, counted as raced" {
	local delay=/sys/kernel/debug/slab_mobility/evict_ms try raced=0
	run -0 vm_run "test -e $delay"
	run -0 vm_run "insmod /lib/modules/smo/smo_dentry.ko"
	for try in 1 2 3; do
		run -0 vm_run "mkdir -p $MNT/r$try && cd $MNT/r$try &&
			awk 'BEGIN { for (i = 0; i < 2100; i++) print \"f\" i }' | xargs touch &&
			for i in \$(seq 0 21 2099); do
				echo f\$i > f\$i; echo f\$((i + 10)) > f\$((i + 10))
			done &&
			(tail -f \$(awk 'BEGIN { for (i = 0; i < 2100; i++) if (i % 21 == 0 || i % 21 == 10) print \"f\" i }') > /dev/null 2>&1 &) &&
			sleep 1 &&
			awk 'BEGIN { for (i = 0; i < 2100; i++) if (i % 21 && i % 21 != 10) print \"f\" i }' | xargs rm &&
			sync && echo 2 > /proc/sys/vm/drop_caches && killall tail"
		taken0=$(stat_of taken)
		# (not "cd && ... && (shrink) &": that would cd in the background)
		run -0 vm_run "cd $MNT/r$try || exit 1
			echo 1000 > $delay || exit 1
			(echo 1 > $SLAB/shrink; echo \"shrink \$?\" > /tmp/shrink.rc) &
			for i in \$(seq 300); do
				[ \$(awk '\$1 == \"taken\" { print \$2 }' $STATS) -gt $taken0 ] && break
				sleep 0.05
			done
			(tail -f \$(awk 'BEGIN { for (i = 0; i < 2100; i += 21) print \"f\" i }') > /dev/null 2>&1 &)
			sleep 0.3; echo 0 > $delay; wait; cat /tmp/shrink.rc"
		echo "try $try: $output"
		[[ "$output" == *"shrink 0"* ]]
		stats_add_up
		raced=${ST[raced]}
		# what was raced is still there, open
		run -0 vm_run "ls $MNT/r$try | wc -l; cat $MNT/r$try/f0 $MNT/r$try/f2079 $MNT/r$try/f2089; killall tail"
		[ "${lines[0]}" -eq 200 ]
		[ "${lines[1]}" = f0 ]
		[ "${lines[2]}" = f2079 ]
		[ "${lines[3]}" = f2089 ]
		((raced == 0)) || break
	done
	echo "# raced: $raced after $try tries, evicted ${ST[evicted]}" >&3
	[ "$raced" -gt 0 ]
	[ "${ST[evicted]}" -gt 0 ]
}

@test "concurrent lookups, creates and unlinks during repeated shrinks lose nothing" {
	local rounds
	rounds=$(vm_rounds 8)
	run -0 vm_run "insmod /lib/modules/smo/smo_dentry.ko"
	run vm_run "cd $MNT && rm -rf w && mkdir w &&
		(for r in \$(seq $rounds); do
			awk -v r=\$r 'BEGIN { for (i = 0; i < 400; i++) print \"w/\" r \"_\" i }' | xargs touch
			awk -v r=\$r 'BEGIN { for (i = 0; i < 400; i++) print \"w/x\" r \"_\" i }' | xargs ls > /dev/null 2>&1
			awk -v r=\$r 'BEGIN { for (i = 0; i < 400; i += 2) print \"w/\" r \"_\" i }' | xargs rm
		done; echo done > /tmp/wl.done) > /dev/null 2>&1 &
		n=0; while [ ! -e /tmp/wl.done ]; do echo 1 > $SLAB/shrink; n=\$((n + 1)); done; rm /tmp/wl.done; echo shrinks \$n"
	[ "$status" -eq 0 ]
	echo "$output"
	# the shrinks did evict: the race was run, not skipped
	[ "$(stat_of evicted)" -gt 0 ]
	# each round leaves its 200 odd-numbered files
	run vm_run "ls $MNT/w | wc -l"
	[ "$output" -eq $((200 * rounds)) ]
	run vm_run "ls $MNT/w | grep -c '_[0-9]*[13579]\$'"
	[ "$output" -eq $((200 * rounds)) ]
}

@test "umount race: mount, populate, umount in a loop while shrinks run" {
	rounds=$(vm_rounds 15)
	run -0 vm_run "insmod /lib/modules/smo/smo_dentry.ko"
	run vm_run "(while [ ! -e /tmp/stop ]; do echo 1 > $SLAB/shrink; done; echo stopped > /tmp/stopped) > /dev/null 2>&1 &
		fail=0
		for r in \$(seq $rounds); do
			mount -t ext2 /dev/loop1 /mnt/u || fail=1
			mkdir -p /mnt/u/s && awk 'BEGIN { for (i = 0; i < 200; i++) print \"/mnt/u/s/f\" i }' | xargs touch
			awk 'BEGIN { for (i = 0; i < 200; i++) print \"/mnt/u/s/none\" i }' | xargs ls > /dev/null 2>&1
			rm -rf /mnt/u/s
			umount /mnt/u || fail=1
		done
		touch /tmp/stop; while [ ! -e /tmp/stopped ]; do sleep 0.1; done; rm -f /tmp/stop /tmp/stopped
		exit \$fail"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	# eviction ran while the filesystem went away
	[ "$(stat_of evicted)" -gt 0 ]
	run vm_run "grep -c /mnt/u /proc/mounts"
	[ "$output" -eq 0 ]
}

# d_defrag_evict() kills a batch's dentries one superblock at a time.  The
# evict delay point (patch 0013) holds it 2 s after the first superblock
# while the batch still holds the dentries of the other; meanwhile both
# filesystems are unmounted: umount kills the dentries on our list, leaves
# them there and frees the superblock.  Before d_defrag_isolate() took a
# passive superblock reference per dentry, the batch then read d_sb of a
# dead dentry and trylocked s_umount in freed memory (a KASAN report on the
# debug flavor).  Now the dead dentries are handed back ("returned").
@test "unmounting while a batch holds its dentries touches no freed superblock" {
	local delay=/sys/kernel/debug/slab_mobility/evict_ms
	run -0 vm_run "test -e $delay"
	# Sparse slabs holding dentries of both filesystems: directories made
	# alternately on u and v, each looked up for 10 missing names, the
	# lookups going round the directories, then 3 of 4 directories removed.
	# Unused dentries of other filesystems go first (drop_caches), so that
	# only u and v have dentries to evict.
	run -0 vm_run "mkdir -p /mnt/v && truncate -s 8M /tmp/v.img &&
		losetup /dev/loop2 /tmp/v.img && mke2fs -q /dev/loop2 && mke2fs -q -F /dev/loop1 &&
		mount -t ext2 /dev/loop1 /mnt/u && mount -t ext2 /dev/loop2 /mnt/v &&
		echo 2 > /proc/sys/vm/drop_caches && cd /mnt &&
		awk 'BEGIN { for (i = 0; i < 400; i++) { print \"u/\" i; print \"v/\" i } }' | xargs mkdir &&
		awk 'BEGIN { for (j = 0; j < 10; j++) for (i = 0; i < 400; i++) { print \"u/\" i \"/m\" j; print \"v/\" i \"/m\" j } }' |
			xargs ls > /dev/null 2>&1;
		awk 'BEGIN { for (i = 0; i < 400; i++) if (i % 4) { print \"u/\" i; print \"v/\" i } }' | xargs rmdir"
	run -0 vm_insmod smo_dentry
	# The first batch's stats come in once both its superblocks are done;
	# the next batch then waits on its first superblock: unmount both now
	run -0 vm_run "echo 1500 > $delay
		(echo 1 > $SLAB/shrink; echo \"shrink \$?\" > /tmp/shrink.rc) &
		for i in \$(seq 600); do
			[ \$(awk '\$1 == \"evicted\" { print \$2 }' $STATS) -gt 0 ] && break
			sleep 0.1
		done
		umount /mnt/u; echo \"umount u \$?\"
		umount /mnt/v; echo \"umount v \$?\"
		wait; echo 0 > $delay; cat /tmp/shrink.rc
		losetup -d /dev/loop2; rm -f /tmp/v.img"
	echo "$output"
	[[ "$output" == *"umount u 0"* ]]
	[[ "$output" == *"umount v 0"* ]]
	[[ "$output" == *"shrink 0"* ]]
	returned=$(stat_of returned)
	echo "evicted $(stat_of evicted), returned $returned"
	# the window was hit: dentries of an unmounted superblock came back
	[ "$returned" -gt 0 ]
}

# Eviction runs beside everything else that frees or moves dentries.  The
# evict delay point holds each batch 300 ms after its dentries, while
# drop_caches empties the dcache, a tmpfs file takes most of the free
# memory (the dcache shrinker runs under that pressure) and directories
# whose children may sit in the batch are renamed away and back.  Every
# file must keep its name and contents.
@test "drop_caches, memory pressure and renames while batches wait lose nothing" {
	vm_not_with_debug_caches "the eviction path; the take is the same as the shrink tests'"
	vm_debug_full_only "a 3/4-of-memory tmpfs file under KASAN"
	local delay=/sys/kernel/debug/slab_mobility/evict_ms
	run -0 vm_run "test -e $delay"
	run -0 fragment
	run -0 vm_run "cd $MNT && for i in d/*; do echo \"\$i\" > \"\$i/f\"; done && ls d | wc -l"
	dirs=$output
	[ "$dirs" -eq $((FRAG_DIRS / 4)) ]
	run -0 vm_insmod smo_dentry
	run -0 vm_run "echo 300 > $delay
		(echo 1 > $SLAB/shrink; echo \"shrink \$?\" > /tmp/shrink.rc) &
		# the first batch evicted (and now held): the window is open
		# before drop_caches can take the dentries the shrink wants
		for t in \$(seq 100); do
			awk '\$1 == \"evicted\" && \$2 > 0 { ok = 1 } END { exit !ok }' $STATS && break
			sleep 0.1
		done
		cd $MNT/d
		for round in 1 2 3 4 5; do
			echo 2 > /proc/sys/vm/drop_caches
			for i in \$(ls | head -50); do mv \"\$i\" \"\$i.r\"; done
			for i in *.r; do mv \"\$i\" \"\${i%.r}\"; done
		done
		avail=\$(awk '\$1 == \"MemAvailable:\" { print int(\$2 / 1024 * 3 / 4) }' /proc/meminfo)
		dd if=/dev/zero of=/tmp/pressure bs=1M count=\$avail 2>/dev/null; rm -f /tmp/pressure
		echo \"pressure \$avail MiB\"
		wait; echo 0 > $delay; cat /tmp/shrink.rc"
	echo "$output"
	[[ "$output" == *"shrink 0"* ]]
	[[ "$output" == *"pressure "* ]]
	evicted=$(stat_of evicted)
	echo "evicted $evicted"
	[ "$evicted" -gt 0 ]
	# every directory back under its name, with its file and contents
	run -0 vm_run "cd $MNT && n=0 && for i in d/*; do [ \"\$(cat \"\$i/f\")\" = \"\$i\" ] || { echo \"bad \$i\"; exit 1; }; n=\$((n + 1)); done; echo \$n; ls d | grep -c '\\.r\$' || true"
	[ "${lines[0]}" -eq "$dirs" ]
	[ "${lines[1]}" -eq 0 ]
	run -0 vm_run "cat $MNT/keep/f7"
	[ "$output" = keep/f7 ]
}

@test "load and unload with the cache populated; unload leaves it not movable" {
	vm_debug_full_only "reliability.bats unloads smo_dentry during passes under KASAN"
	run -0 fragment
	for i in $(seq "$(vm_rounds 5)"); do
		run vm_run "insmod /lib/modules/smo/smo_dentry.ko && echo 1 > $SLAB/shrink && rmmod smo_dentry"
		[ "$status" -eq 0 ] || { echo "round $i: $output"; false; }
	done
	# read it for sure: a failed read has no "migrate" either
	run -0 vm_run "cat $SLAB/ops"
	[[ "$output" == *"ctor : "* ]]
	[[ "$output" != *migrate* ]]
	run vm_run "ls $MNT/keep | wc -l"
	[ "$output" -eq 300 ]
}

# tmpfs keeps its files only in the dcache: an evicted tmpfs dentry is a lost
# file.  (Whether sysfs or debugfs dentries are evicted cannot be seen from
# userspace, which re-creates them on lookup; the "ls /sys/kernel/slab |
# grep -c dentry" this test used to check was always >= 1.)
@test "tmpfs files survive shrinks of the movable dentry cache" {
	run -0 vm_run "mkdir -p /tmp/tt && for i in \$(seq 50); do echo \$i > /tmp/tt/f\$i; done"
	run -0 vm_run "insmod /lib/modules/smo/smo_dentry.ko && echo 1 > $SLAB/shrink && echo 1 > $SLAB/shrink"
	run -0 vm_run "cat /tmp/tt/f50; ls /tmp/tt | wc -l; ls /sys/kernel/debug/smo_dentry"
	[ "${lines[0]}" -eq 50 ]
	[ "${lines[1]}" -eq 50 ]
	[ "${lines[2]}" = stats ]
}

# The dentry cache has a constructor, so SLUB skips init_on_alloc and
# init_on_free for it; patch 17 wipes dentries itself (all of them but
# d_lockref, whose lock the constructor set up).  A guest booted with both
# options must report them on, and the dentry cache must still evict, free
# slabs and keep every path: a wipe of the constructed lock would trip
# lockdep (debug flavor) or corrupt the next d_lock user.
@test "with init_on_alloc=1 init_on_free=1 the dentry cache still shrinks and keeps every path" {
	vm_slow "a reboot with another command line"
	vm_not_with_debug_caches "init_on_* changes the objects, not the paths"
	vm_debug_full_only "a reboot with another command line"
	vm_stop
	vm_start init_on_alloc=1 init_on_free=1
	setup_disks
	run -0 vm_run "dmesg | grep 'mem auto-init'"
	echo "$output"
	[[ "$output" == *"heap alloc:on, heap free:on"* ]]
	run -0 fragment
	vm_run "echo 1 > $SLAB/shrink"
	slabs0=$(field slabs)
	run -0 vm_run "insmod /lib/modules/smo/smo_dentry.ko"
	run -0 vm_run "echo 1 > $SLAB/shrink"
	slabs1=$(field slabs)
	echo "dentry slabs $slabs0 -> $slabs1"
	[ "$slabs1" -lt "$slabs0" ]
	[ "$(stat_of evicted)" -gt 0 ]
	run -0 vm_run "cat $MNT/keep/f7 $MNT/keep/f299"
	[ "$output" = "$(printf 'keep/f7\nkeep/f299')" ]
	# evicted and reclaimed dentries come back from disk, wiped and set up again
	run -0 vm_run "echo 2 > /proc/sys/vm/drop_caches; ls $MNT/d | wc -l; ls $MNT/keep | wc -l"
	[ "${lines[0]}" -eq $((FRAG_DIRS / 4)) ]
	[ "${lines[1]}" -eq 300 ]
	echo "# init_on_alloc/free: dentry slabs $slabs0 -> $slabs1, evicted $(stat_of evicted)" >&3
}

@test "kmemleak finds no leak after this file's tests" {
	vm_kmemleak_test
}

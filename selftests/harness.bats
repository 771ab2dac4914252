#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Self-test of the VM harness itself: the guest boots with the expected
# topology, the agent returns output and exit status faithfully, modules
# load, the kernel log scan catches a real WARN, timeouts and a dead guest are
# reported instead of hanging the run.

load lib/vm

# The module used for the load/unload and splat tests.
HARNESS_MODULE="${HARNESS_MODULE:-smo_test}"

setup_file() { vm_start; }
teardown_file() { vm_stop; }
teardown() { vm_teardown_test; }

@test "the VM boots and its agent answers" {
	vm_alive
	run -0 vm_run 'echo hello from $(uname -m)'
	assert_output "hello from x86_64"
	[[ -s "$VM_RUN_DIR/boot.seconds" ]]
}

@test "the guest runs a SLUB kernel with sysfs slab info" {
	run -0 vm_run 'test -d /sys/kernel/slab && ls /sys/kernel/slab | wc -l'
	((output > 10))
}

@test "the guest has two NUMA nodes online" {
	run -0 vm_run 'cat /sys/devices/system/node/online'
	assert_output "0-1"
	run -0 vm_run 'cat /sys/devices/system/node/node1/cpulist'
	assert_output "1"
}

@test "debugfs, tmpfs and the unprivileged user are set up" {
	run -0 vm_run 'grep -c " /sys/kernel/debug debugfs " /proc/mounts; grep -c " /tmp tmpfs " /proc/mounts'
	assert_output $'1\n1'
	run -0 vm_run_as_tester 'id -u; touch /tmp/t && echo ok'
	assert_output $'1000\nok'
	run -0 vm_run 'command -v slabinfo insmod rmmod lsmod'
}

@test "test guests boot with the kernel's own passes off, and tracefs mounted" {
	# vm/lib.sh smo_background_defrag_arg: counts stay where tests left them
	run -0 vm_run 'cat /proc/sys/vm/slab_defrag_interval /proc/sys/vm/compaction_proactiveness'
	assert_output $'0\n0'
	run -0 vm_run 'test -d /sys/kernel/tracing/events/slab_defrag && echo ok'
	assert_output ok
}

@test "the guest command's exit status is returned" {
	run -3 vm_run 'echo on stdout; echo on stderr >&2; exit 3'
	assert_output $'on stdout\non stderr'
	run -0 vm_run true
	run -1 vm_run false
}

@test "output round-trips byte for byte" {
	local s
	s=$'quotes \' " `back` $HOME ${x} \\ \\n %s %%\n\ttabbed line\n\nlast line  '
	vm_run "cat <<'SMO_EOF'
$s
SMO_EOF" >"$BATS_TEST_TMPDIR/got"
	printf '%s\n' "$s" >"$BATS_TEST_TMPDIR/want"
	cmp "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got"
	# no trailing newline, binary-ish bytes
	run -0 vm_run "printf 'a\\001b'"
	[[ "$output" == $'a\001b' ]]
	# a larger output
	run -0 vm_run 'seq 1 20000 | md5sum'
	assert_output "$(seq 1 20000 | md5sum)"
}

@test "a module from modules/ loads and unloads" {
	run -0 vm_run "test -f /lib/modules/smo/$HARNESS_MODULE.ko"
	run -0 vm_insmod "$HARNESS_MODULE"
	run -0 vm_run "lsmod | grep -w ^$HARNESS_MODULE"
	run -0 vm_run "test -e /sys/kernel/slab/$HARNESS_MODULE && test -e /sys/kernel/debug/smo_test/callfn"
	run -0 vm_rmmod "$HARNESS_MODULE"
	run -1 vm_run "lsmod | grep -w ^$HARNESS_MODULE"
}

@test "the kernel log scan catches a WARN" {
	run -0 vm_check_log # baseline: nothing so far
	run -0 vm_insmod "$HARNESS_MODULE"
	# the write itself may fail (EIO); only the splat matters
	run vm_run 'echo warn > /sys/kernel/debug/smo_test/callfn'
	run -1 vm_check_log
	assert_output --partial "WARNING:"
	run -0 vm_rmmod "$HARNESS_MODULE"
	# the check moved the baseline past the splat: teardown stays clean
	vm_log_reset
	run -0 vm_check_log
}

# A splat found by a teardown helper must fail the test even when the
# helper runs more commands after the check: teardown runs without errexit
# and only its return status counts (vm_teardown_module once lost it)
@test "a splat seen by vm_teardown_module and census_teardown fails the test" {
	vm_slow "two nested bats runs, each booting a guest"
	local f="$BATS_TEST_TMPDIR/nested.bats" lib="$VM_ROOT/selftests/lib"
	for td in "vm_teardown_module $HARNESS_MODULE" "census_teardown $HARNESS_MODULE"; do
		# written with printf: bats would rewrite an "@test" line of a
		# heredoc in this file as one of its own tests
		printf '%s\n' "load $lib/vm" "load $lib/census" \
			'setup_file() { vm_start; }' 'teardown_file() { vm_stop; }' \
			"teardown() { $td; }" "@""test \"warns\" {" \
			"	vm_insmod $HARNESS_MODULE" \
			"	vm_run 'echo warn > /sys/kernel/debug/smo_test/callfn' || true" \
			'}' >"$f"
		# the outer run's filter and state must not reach the nested bats
		run env -u BATS_TEST_FILTER -u BATS_RUN_TMPDIR bats "$f"
		echo "$td: $output"
		[ "$status" -ne 0 ]
		[[ "$output" == *"not ok 1 warns"* ]]
		[[ "$output" == *"WARNING:"* ]]
	done
}

# vm_teardown_module runs validate, the series' check and the rmmods as one
# guest command: a part that fails must fail the teardown and still leave
# the other parts to run
@test "a failing check in vm_teardown_module fails it and still removes the module" {
	failing_teardown() {
		_vm_slab_check_script() { echo 'echo check boom; exit 1'; }
		vm_teardown_module "$HARNESS_MODULE"
	}
	run -0 vm_insmod "$HARNESS_MODULE"
	run failing_teardown
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"check boom"* ]]
	[[ "$output" == *"module teardown failed"* ]]
	run vm_module_loaded "$HARNESS_MODULE"
	[ "$status" -eq 1 ]
}

@test "the kernel log scan catches a task hung in D state" {
	vm_slow "a harness self-test: a task held 8 s in D state"
	local hung=/proc/sys/kernel/hung_task_timeout_secs old
	run -0 vm_run "test -e $hung" # the config has DETECT_HUNG_TASK
	run -0 vm_check_log
	run -0 vm_insmod "$HARNESS_MODULE"
	old=$(vm_run "cat $hung")
	# 1 s instead of the configured timeout (checked every 5 s)
	run -0 vm_run "echo 1 > $hung && echo 'hang 8' > /sys/kernel/debug/smo_test/callfn"
	run -0 vm_run "echo $old > $hung"
	run -1 vm_check_log
	assert_output --partial "blocked for more than 1 seconds"
	run -0 vm_rmmod "$HARNESS_MODULE"
	vm_log_reset
	run -0 vm_check_log
}

@test "the hung-task report comes before the harness gives up on the command" {
	local secs interval limit=$((VM_TIMEOUT * VM_TIMEOUT_SCALE))
	secs=$(vm_run 'cat /proc/sys/kernel/hung_task_timeout_secs')
	interval=$(vm_run 'cat /proc/sys/kernel/hung_task_check_interval_secs')
	echo "hung task timeout ${secs}s, checked every ${interval}s; command timeout ${limit}s"
	[ "$secs" -gt 0 ]
	[ "$interval" -gt 0 ]
	[ "$((secs + interval))" -lt "$limit" ]
}

@test "the kernel log scan catches a soft lockup" {
	vm_slow "a harness self-test: a CPU held past the soft-lockup threshold"
	local thresh=/proc/sys/kernel/watchdog_thresh old
	run -0 vm_run "test -e $thresh" # the config has SOFTLOCKUP_DETECTOR
	old=$(vm_run "cat $thresh")
	run -0 vm_check_log
	run -0 vm_insmod "$HARNESS_MODULE"
	# a soft lockup is reported after 2 * watchdog_thresh seconds
	run -0 vm_run "echo 1 > $thresh && echo 'lockup 5' > /sys/kernel/debug/smo_test/callfn"
	run -0 vm_run "echo $old > $thresh"
	run -1 vm_check_log
	assert_output --partial "soft lockup"
	run -0 vm_rmmod "$HARNESS_MODULE"
	vm_log_reset
	run -0 vm_check_log
}

@test "the kernel log scan fails on an OOM kill unless the test expects one" {
	vm_slow "a harness self-test: two OOM kills"
	local cg=/sys/fs/cgroup/smo-oom oom
	# a memory cgroup of 16 MiB and a shell in it that wants more (busybox
	# tail keeps the whole newline-free /dev/zero): the OOM killer kills it
	oom="mkdir -p $cg && echo 16M > $cg/memory.max &&
		sh -c 'echo \$\$ > $cg/cgroup.procs && exec tail /dev/zero'; true"
	run -0 vm_run "grep -qw memory /sys/fs/cgroup/cgroup.controllers &&
		echo +memory > /sys/fs/cgroup/cgroup.subtree_control"
	run -0 vm_check_log
	run -0 vm_run "$oom"
	run -1 vm_check_log
	assert_output --partial "out of memory"
	# expected: the same kill passes the check
	run -0 vm_run "$oom"
	VM_OOM_EXPECTED=1 run -0 vm_check_log
	run -0 vm_run "rmdir $cg"
}

@test "host: vm/check refuses a bad SMO_CHECK_JOBS before it builds or boots anything" {
	local bad
	for bad in 0 two -1 " 2"; do
		# an empty cache: a value that slipped through would start a build
		run env SMO_CHECK_JOBS="$bad" SMO_CACHE="$BATS_TEST_TMPDIR/cache" \
			"$VM_ROOT/vm/check" "$BATS_TEST_DIRNAME/kunit.bats"
		[ "$status" -eq 1 ]
		[[ "$output" == *"SMO_CHECK_JOBS must be a positive number, not '$bad'"* ]]
		[[ "$output" != *"build-"* ]]
	done
}

@test "host: vm/static-compare keys each sparse finding alike when two sparse runs interleave" {
	# CI run of 44014ac: under make -j2 the info lines of one error came
	# after another's error line; the findings changed keys and static-check
	# failed with 2 new and 2 gone warnings that were the same warnings
	local t=/tree in="$BATS_TEST_TMPDIR/in.log" mixed="$BATS_TEST_TMPDIR/mixed.log"
	cat >"$in" <<LOG
$t/include/linux/a.h:24:33: error: incompatible types (different address spaces):
$t/include/linux/a.h:24:33:    struct node [noderef] __rcu *
$t/include/linux/a.h:24:33:    struct node *
$t/include/linux/a.h:17:9: error: incompatible types (different address spaces):
$t/include/linux/a.h:17:9:    struct node [noderef] __rcu *
$t/include/linux/a.h:17:9:    struct node *
$t/lib/b.c:5:1: warning: symbol 'x' was not declared. Should it be static?
LOG
	# the same lines, the second error's between the first's
	awk '{ l[NR] = $0 } END { n = split("1 4 2 5 3 6 7", o, " ")
		for (i = 1; i <= n; i++) print l[o[i]] }' "$in" >"$mixed"
	run "$VM_ROOT/vm/static-compare" --normalise-sparse "$in" "$t"
	[ "$status" -eq 0 ]
	local want=$(cut -f1 <<<"$output" | sort)
	[ "$(wc -l <<<"$want")" -eq 3 ]
	[[ "$want" == *"a.h: error: incompatible types (different address spaces): |    struct node [noderef] __rcu * |    struct node *"* ]]
	run "$VM_ROOT/vm/static-compare" --normalise-sparse "$mixed" "$t"
	[ "$status" -eq 0 ]
	[ "$(cut -f1 <<<"$output" | sort)" == "$want" ]
}

@test "every 6.12 stall and lockup format is a splat to the log scan" {
	local line
	while IFS= read -r line; do
		grep -qE -- "$SMO_SPLAT_PATTERNS" <<<"$line" || {
			echo "not matched: $line"
			return 1
		}
	done <<'FORMATS'
rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:
rcu: INFO: rcu_sched self-detected stall on CPU
rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks: { 1-... } 21002 jiffies s: 113 root: 0x2/.
INFO: rcu_tasks detected stalls on tasks:
INFO: rcu_tasks_trace detected stalls on tasks:
watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [smo_race:123]
watchdog: Watchdog detected hard LOCKUP on cpu 1
BUG: workqueue lockup - pool cpus=0 node=0 flags=0x0 nice=0 stuck for 31s!
INFO: task rmmod:321 blocked for more than 45 seconds.
FORMATS
	# an OOM kill is a failure for the tests (vm_check_log), not a splat
	# to the benchmarks' scan
	run ! grep -qE -- "$SMO_SPLAT_PATTERNS" <<<"Out of memory: Killed process 12 (tail)"
	grep -qE -- "$SMO_OOM_PATTERNS" <<<"Memory cgroup out of memory: Killed process 12 (tail)"
}

@test "a command past its timeout fails fast and the agent still answers" {
	vm_slow "a harness self-test"
	local start=$SECONDS
	VM_TIMEOUT_SCALE=1 VM_TIMEOUT=3 run -124 vm_run 'sleep 30'
	((SECONDS - start <= 10))
	run -0 vm_run 'echo still here'
	assert_output "still here"
	# the killed command left nothing behind
	run -1 vm_run 'ps | grep -v grep | grep "sleep 30"'
}

@test "a guest crash is reported as 255 and a restart recovers" {
	vm_slow "a harness self-test: a crash and a reboot"
	run vm_run 'echo c > /proc/sysrq-trigger'
	# the command dies with the guest: 255 (or no reply at all)
	[[ "$status" == 255 || "$status" == 124 ]]
	for _ in 1 2 3 4 5 6 7 8 9 10; do vm_alive || break; sleep 0.5; done
	run ! vm_alive
	run -255 vm_run true
	run -1 vm_check_log
	assert_output --partial "Kernel panic"
	vm_restart
	run -0 vm_run 'echo back'
	assert_output "back"
}

@test "kmemleak finds no leak after this file's tests" {
	vm_kmemleak_test
}

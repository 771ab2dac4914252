# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# selftests/lib/vm.bash - bats helpers that run tests inside the smo QEMU guest.
#
# Load from every .bats file (it also loads bats-support and bats-assert):
#
#   load lib/vm
#   setup_file()    { vm_start; }            # one guest per .bats file
#   teardown_file() { vm_stop; }
#   teardown()      { vm_teardown_test; }    # fails a test that splatted
#
#   @test "x" { run -0 vm_run 'cat /sys/kernel/slab/smo_test/objects'; }
#
# Functions
#   vm_start [KERNEL_ARGS...]  without SMO_KERNEL_KEY, build what is
#                 missing (vm/build) and pin its key; with it (vm/check sets
#                 it), boot that build as it is.  Boots the guest with
#                 SMO_CMDLINE plus KERNEL_ARGS, the kernel's background
#                 defragmentation off unless the file set
#                 SMO_BACKGROUND_DEFRAG=1 (vm/lib.sh), wait for its agent.  Exports
#                 VM_RUN_DIR.  Fails (with the console tail) if it does not boot.
#   vm_stop       power the guest off via the agent, then kill the QEMU pid
#                 that vm_start started if it is still there.  Copies the
#                 console log to $VM_LOG_DIR/<file>.console.log.
#   vm_restart [KERNEL_ARGS...]  vm_stop + vm_start (e.g. after a panic test).
#   vm_run CMD... run CMD (words joined by spaces, run by `sh -c` as root in
#                 the guest); prints stdout+stderr, returns the guest's exit
#                 status; 124 if it ran past VM_TIMEOUT seconds (default 60,
#                 times VM_TIMEOUT_SCALE: 1, or 5 on a debug flavor;
#                 the host gives up at VM_TIMEOUT+5 s even if the guest hangs);
#                 255 if QEMU is not running.  Use as `run vm_run 'cmd'`.
#   vm_run_as_tester CMD...  as vm_run, but as the unprivileged user tester
#                 (uid 1000).
#   vm_insmod NAME [ARGS...]  insmod /lib/modules/smo/NAME.ko ARGS...; with
#                 VM_MODPROBE=1 `modprobe NAME ARGS...` from the guest's
#                 module tree (vm/dkms-check boots DKMS's installed tree)
#   vm_rmmod NAME             rmmod NAME
#   vm_module_loaded NAME     true if module NAME is loaded in the guest
#   vm_node_value N LINE      the N<N>= value of a per-node sysfs line such
#                 as /sys/kernel/slab/<cache>/slabs (0 if node N is absent).
#   vm_slabs_on_node CACHE N  the slabs of CACHE on node N.
#   vm_slab_attr CACHE NAME [NODE]  the first field of
#                 /sys/kernel/slab/CACHE/NAME (a total), or its N<NODE>=
#                 value (0 if absent).
#   vm_stat FILE KEY  the value after KEY in a guest file of "KEY VALUE"
#                 lines: the modules' stats and control files.
#   vm_rounds N   N, or a fifth of it on the debug flavor's CI run and in
#                 the quick run, for repetition loops; vm_debug_full_only
#                 [WHY] skips a test on that debug run (make
#                 check-debug-full runs everything).
#   vm_quick      true in the quick run (make check; SMO_CHECK_FULL and
#                 SMO_DEBUG_FULL unset).
#   vm_slow [WHY]  skip a slow test in the quick make check (SMO_CHECK_FULL=1:
#                 make check-full, CI, runs it).
#   vm_not_with_debug_caches [WHY]  skip a test on the slub_debug=FZPU pass
#                 when debug caches change nothing in the code it checks.
#   vm_kfence_off  stop KFENCE from taking allocations for the rest of
#                 this guest's life (sample_interval 0): for files whose
#                 tests count objects per slab exactly (a KFENCE object sits
#                 in no slab).  A no-op without KFENCE; fails if the write
#                 fails.
#   vm_setup_module NAME...   for setup(): vm_insmod each NAME in order; on
#                 a failure print insmod's output and fail the test.
#   vm_teardown_module NAME...  for teardown(): vm_slub_validate, rmmod
#                 each NAME that is loaded (in order, in one guest command;
#                 a failing rmmod fails the test), then vm_teardown_test.
#   vm_slub_validate [CACHE...]  have SLUB check the slabs and list counters
#                 of CACHE (default: every cache with a migrate callback,
#                 radix_tree_node_movable among them, and radix_tree_node)
#                 where the cache has SLUB debugging on (slub_debug=FZPU pass, debug flavor);
#                 elsewhere a no-op.  Prints what it validated; fails if a
#                 write fails.  Drift shows as "slabs counted but counter="
#                 in the log, which vm_check_log fails on.
#   vm_slab_check [CACHE...]  the series' partial-list check (debugfs
#                 slab_mobility/check) of CACHE (default as vm_slub_validate),
#                 with or without SLUB debugging; fails on drift.
#   vm_check_log  scan the guest kernel log (ttyS0, captured on the host)
#                 since the previous check for splats (BUG:, WARNING:, Oops,
#                 KASAN, UBSAN, lockdep, list corruption, SLUB debug reports,
#                 panics...; see VM_LOG_PATTERNS); prints the offending lines
#                 and returns 1 on a hit.  Either way the baseline moves to
#                 the current end of the log.
#   vm_log_reset  move the baseline to the end of the log without checking.
#   vm_log_since_mark  print the log lines since the baseline (no check).
#   vm_teardown_test  for teardown(): vm_check_log, and fail the test if it
#                 hit or if QEMU has died.
#   vm_kmemleak_check  kernels with kmemleak (FLAVOR=debug): wait until the
#                 newest objects are old enough to count, scan twice and
#                 print any report; returns 1 if kmemleak suspects a leak,
#                 2 if the kernel has no kmemleak.  vm_start clears the
#                 reports of the boot, so only this file's leaks count.
#   vm_kmemleak_test  for a last @test of a file: skip without kmemleak,
#                 fail with the reports on a leak.
#   vm_alive      true while the QEMU of this file runs.
#   vm_console    print the path of the console log.
#
# Environment: SMO_CMDLINE (extra kernel args, e.g. slub_debug=FZPU),
# SMO_KERNEL_KEY (a build to boot, see vm_start), SMO_CHECK_FULL, VM_TIMEOUT, VM_MODPROBE=1, SMO_INITRD (vm/boot's), VM_LOG_DIR (default $SMO_CACHE/logs/<checkout
# id>, as vm/check),
# VM_LOG_PATTERNS_EXTRA (extra grep -E alternatives), VM_TIMEOUT_SCALE,
# plus vm/boot's SMO_*.
#   vm_min_timeout SECS  raise VM_TIMEOUT to at least SECS.

bats_require_minimum_version 1.5.0 # run -N
bats_load_library bats-support
bats_load_library bats-assert

# vm/lib.sh is the one library of the host side: the checkout (SMO_ROOT),
# the cache (SMO_CACHE), the splat patterns, the QEMU liveness test, the
# log directory of this checkout
# shellcheck source=../../vm/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../vm/lib.sh"
VM_ROOT="$SMO_ROOT"
export VM_ROOT
: "${VM_TIMEOUT:=60}"
# The debug kernel (KASAN, lockdep, kmemleak, SLUB_DEBUG_ON) runs every
# command several times slower under TCG: its timeouts stretch by this factor
if [[ -z "${VM_TIMEOUT_SCALE:-}" ]]; then
	if [[ "${SMO_FLAVOR:-normal}" == normal ]]; then
		VM_TIMEOUT_SCALE=1
	else
		VM_TIMEOUT_SCALE=5
	fi
fi

# vm_debug_full_only [WHY]: skip this test on the debug flavor unless the
# whole suite was asked for (SMO_DEBUG_FULL=1: make check-debug-full).  The
# debug kernel under TCG runs the whole suite in about an hour, more than
# the CI budget holds; make check FLAVOR=debug keeps the tests that put the
# series' own kernel paths (isolation, moves, eviction, destroy, races at
# the delay points) under KASAN, lockdep and SLUB_DEBUG_ON, and leaves to
# the full run the repetitions (load loops, long stress mixes) that the
# normal kernel's two passes run anyway.
_vm_debug_subset() {
	[[ "${SMO_FLAVOR:-normal}" == debug && "${SMO_DEBUG_FULL:-0}" != 1 ]]
}

vm_debug_full_only() {
	_vm_debug_subset || return 0
	skip "debug flavor: make check-debug-full runs it${1:+ ($1)}"
}

# vm_rounds N: the number of rounds of a repetition loop: N, or a fifth of
# it (at least 1) on the debug flavor's CI run (see vm_debug_full_only) and
# in the quick run (vm_quick): every round runs the same kernel paths, the
# first one already reaches them
vm_rounds() {
	if _vm_debug_subset || vm_quick; then
		echo $(((${1:?vm_rounds N} + 4) / 5))
	else
		echo "$1"
	fi
}

# vm_quick: true in the quick run (make check, or bats run by hand; see
# smo_check_quick in vm/lib.sh)
vm_quick() { smo_check_quick; }

# vm_slow [WHY]: skip this test in the quick run (make check, the
# newcomer's command, which must stay near five minutes on 2 cores under
# TCG: with the kernel build, install and make demo, 15 minutes) unless
# the full suite was asked for: SMO_CHECK_FULL=1 (make check-full and the
# other passes CI runs) or SMO_DEBUG_FULL=1.  For the
# tests that each take a quarter of a minute or more (a reboot with
# another command line, lib/test_xarray, the system workload) and whose
# code the quick run's other tests reach too, and for the self-tests of
# the harness's and benchmarks' failure detection (they check our
# scripts, not the kernel)
vm_slow() {
	vm_quick || return 0
	skip "slow: make check-full runs it${1:+ ($1)}"
}

# vm_not_with_debug_caches [WHY]: skip this test on the slub_debug=FZPU
# pass (make check-slub-debug) when the code it checks runs the same with
# and without debug caches (a blocked pass, a destroy waiting, lib code):
# that pass is for the series' debug branches
vm_not_with_debug_caches() {
	vm_slub_debug_all || return 0
	skip "the same code with and without debug caches: make check runs it${1:+ ($1)}"
}

# vm_min_timeout SECS: raise VM_TIMEOUT to at least SECS (for files whose
# workloads take minutes)
vm_min_timeout() {
	((VM_TIMEOUT >= $1)) || VM_TIMEOUT=$1
	export VM_TIMEOUT
}
: "${VM_LOG_DIR:=$(smo_log_dir)}"

# the splat patterns are vm/lib.sh's (one list for tests and benchmarks)
VM_LOG_PATTERNS="$SMO_SPLAT_PATTERNS"

# The run dir survives between setup_file and the tests through this file
# (exported variables do too; the file is for helpers run in subshells).
_vm_state_file() { printf '%s/vm-run-dir\n' "${BATS_FILE_TMPDIR:?vm.bash needs bats}"; }

_vm_rundir() {
	if [[ -z "${VM_RUN_DIR:-}" && -f "$(_vm_state_file)" ]]; then
		VM_RUN_DIR="$(cat "$(_vm_state_file)")"
	fi
	printf '%s\n' "${VM_RUN_DIR:-}"
}

vm_alive() {
	local dir
	dir="$(_vm_rundir)"
	[[ -n "$dir" ]] && smo_qemu_alive "$dir"
}

vm_console() { printf '%s/console.log\n' "$(_vm_rundir)"; }

vm_start() {
	local dir="${BATS_FILE_TMPDIR:?vm_start must be called from setup_file}/vm"
	local build_log="$BATS_FILE_TMPDIR/vm-build.log" cmdline
	cmdline="$(smo_background_defrag_arg) ${SMO_CMDLINE:-} $*"
	# The sanitizer kernels run everything several times slower: a soft
	# lockup there is a CPU without a schedule for 60 s, not 20 s
	((VM_TIMEOUT_SCALE == 1)) || cmdline="watchdog_thresh=30 $cmdline"
	# A key handed over names a finished build (vm/check's).  Without one,
	# build here and keep the key for this file's later boots (vm_restart):
	# a patch edited meanwhile must not send them to another tree.
	if [[ -z "${SMO_KERNEL_KEY:-}" ]]; then
		if ! SMO_KERNEL_KEY="$("$VM_ROOT/vm/build" 2>>"$build_log" 3>&-)"; then
			echo "vm_start: vm/build failed; last lines of $build_log:" >&2
			tail -n 30 "$build_log" >&2
			return 1
		fi
		export SMO_KERNEL_KEY
	fi
	mkdir -p "$dir"
	printf '%s\n' "$dir" >"$(_vm_state_file)"
	export VM_RUN_DIR="$dir"
	rm -f "$dir/log.offset"
	# The guest is killed when the bats process of this file goes away, even
	# if teardown_file never runs.  setup_file runs in that process; record
	# it so vm_restart from a test (a shorter-lived process) keeps it.
	[[ -f "$BATS_FILE_TMPDIR/vm-owner" ]] || echo "$$" >"$BATS_FILE_TMPDIR/vm-owner"
	# 3>&-: QEMU must not hold bats' fd 3, or bats waits for it forever.
	if ! SMO_CMDLINE="" "$VM_ROOT/vm/boot" --daemon --run-dir "$dir" \
		--cmdline "$cmdline" --owner "$(cat "$BATS_FILE_TMPDIR/vm-owner")" \
		>/dev/null 2>"$BATS_FILE_TMPDIR/vm-boot.log" 3>&-; then
		cat "$BATS_FILE_TMPDIR/vm-boot.log" >&2
		echo "vm_start: the guest did not boot (run dir $dir)" >&2
		_vm_save_console
		return 1
	fi
	echo 0 >"$dir/log.offset"
	# Leaks of the boot are not this file's: forget them
	vm_run "test -e $VM_KMEMLEAK && echo clear > $VM_KMEMLEAK" >/dev/null 2>&1 || true
}

# vm_slub_debug_all: true if this file's guests boot with SLUB consistency
# checks on every cache (SMO_CMDLINE has a global slub_debug=...F...: make
# check-slub-debug)
vm_slub_debug_all() {
	[[ " ${SMO_CMDLINE:-} " =~ \ slub_debug=[A-Z]*F[A-Z]*\  ]]
}

# vm_check_slub_debug_mode: the guest runs the SLUB debug mode the harness
# asked for: with vm_slub_debug_all, /proc/cmdline carries the option and
# a movable cache created now has sanity checks; without, it has none (the
# production paths: CPU slabs, frozen slabs, the cmpxchg freelist)
vm_check_slub_debug_mode() {
	local out want=0
	vm_slub_debug_all && want=1
	out="$(vm_run 'cat /proc/cmdline; cat /sys/kernel/slab/radix_tree_node/sanity_checks')" || {
		echo "vm_check_slub_debug_mode: the guest did not answer: $out"
		return 1
	}
	if ((want)) && [[ " $(head -n1 <<<"$out") " != *" slub_debug="* ]]; then
		echo "vm_check_slub_debug_mode: slub_debug asked for, not on the guest's command line: $out"
		return 1
	fi
	if [[ "$(tail -n1 <<<"$out")" != "$want" ]]; then
		echo "vm_check_slub_debug_mode: radix_tree_node sanity_checks is $(tail -n1 <<<"$out"), want $want (SMO_CMDLINE='${SMO_CMDLINE:-}')"
		return 1
	fi
}

VM_KMEMLEAK=/sys/kernel/debug/kmemleak

vm_kmemleak_check() {
	local out have
	# 2 (skip) only when the kernel has no kmemleak; a dead or hung guest
	# is a failure, not a skip
	have="$(vm_run "test -e $VM_KMEMLEAK && echo yes || echo no" 2>&1)" || {
		echo "vm_kmemleak_check: the guest did not answer: $have"
		return 1
	}
	[[ "$have" == yes ]] || return 2
	# kmemleak reports only objects older than 5 s, and an object only once
	# a scan has found no reference to it
	out="$(VM_TIMEOUT=300 vm_run "sleep 6 && echo scan > $VM_KMEMLEAK &&
		echo scan > $VM_KMEMLEAK && cat $VM_KMEMLEAK")" || {
		echo "vm_kmemleak_check: scan failed: $out"
		return 1
	}
	[[ -z "$out" ]] && return 0
	echo "vm_kmemleak_check: kmemleak reports:"
	sed 's/^/  | /' <<<"$out" | head -n 80
	return 1
}

vm_kmemleak_test() {
	local rc=0
	vm_kmemleak_check || rc=$?
	((rc == 2)) && skip "this kernel has no kmemleak (use FLAVOR=debug)"
	((rc == 0)) || fail "kmemleak found leaks"
	echo "# kmemleak: no leak in $(basename "$BATS_TEST_FILENAME")" >&3
}

_vm_save_console() {
	local dir name
	dir="$(_vm_rundir)"
	[[ -n "$dir" && -f "$dir/console.log" ]] || return 0
	name="$(basename "${BATS_TEST_FILENAME:-vm}" .bats)"
	mkdir -p "$VM_LOG_DIR" 2>/dev/null || return 0
	cp "$dir/console.log" "$VM_LOG_DIR/$name.console.log" 2>/dev/null || true
}

# Stop the guest; fail (1) if its kernel log shows a splat after the last
# check: what teardown_file did (rmmod of the file's modules) and the
# shutdown are checked too, not only the tests.  With the guest gone,
# vm_check_log takes the log from the last check to its end.
vm_stop() {
	local dir rc=0
	dir="$(_vm_rundir)"
	[[ -n "$dir" ]] || return 0
	"$VM_ROOT/vm/stop" -d "$dir" 3>&- || true
	vm_check_log >&2 || rc=1
	_vm_save_console
	return "$rc"
}

vm_restart() {
	vm_stop
	vm_start "$@"
}

vm_run() {
	local dir
	dir="$(_vm_rundir)"
	if [[ -z "$dir" ]]; then
		echo "vm_run: no VM (call vm_start in setup_file)" >&2
		return 255
	fi
	"$VM_ROOT/vm/run" -d "$dir" -t "$((${VM_TIMEOUT:-60} * VM_TIMEOUT_SCALE))" -- "$*" 3>&-
}

vm_run_as_tester() {
	local cmd="$*"
	vm_run "su tester -s /bin/sh -c $(printf '%q' "$cmd")"
}

vm_insmod() {
	local name="${1:?vm_insmod NAME [ARGS...]}"
	shift
	if [[ "${VM_MODPROBE:-0}" == 1 ]]; then
		vm_run "modprobe $name $*"
	else
		vm_run "insmod /lib/modules/smo/$name.ko $*"
	fi
}

vm_rmmod() { vm_run "rmmod ${1:?vm_rmmod NAME}"; }

vm_module_loaded() {
	vm_run "grep -q '^${1:?vm_module_loaded NAME} ' /proc/modules" >/dev/null 2>&1
}

vm_node_value() {
	local v
	v=$(sed -n "s/.*N$1=\([0-9]*\).*/\1/p" <<<"$2")
	echo "${v:-0}"
}

# vm_slabs_on_node CACHE NODE: the slabs of CACHE on NODE (its sysfs slabs)
vm_slabs_on_node() {
	vm_slab_attr "${1:?vm_slabs_on_node CACHE NODE}" slabs "${2:?vm_slabs_on_node CACHE NODE}"
}

vm_slab_attr() {
	local out
	out=$(vm_run "cat /sys/kernel/slab/${1:?vm_slab_attr CACHE NAME [NODE]}/${2:?vm_slab_attr CACHE NAME [NODE]}") ||
		return 1
	if (($# < 3)); then
		echo "${out%% *}"
	else
		vm_node_value "$3" "$out"
	fi
}

vm_stat() {
	vm_run "cat ${1:?vm_stat FILE KEY}" |
		awk -v k="${2:?vm_stat FILE KEY}" '$1 == k { print $2 }'
}

vm_kfence_off() {
	vm_run 'p=/sys/module/kfence/parameters/sample_interval
		[ ! -e $p ] || echo 0 > $p'
}

vm_setup_module() {
	local out name
	: "${1:?vm_setup_module NAME...}"
	for name in "$@"; do
		out="$(vm_insmod "$name")" || {
			echo "insmod $name failed: $out"
			return 1
		}
	done
}

# vm_test_skipped: true in teardown() after the test called skip (bats
# sets BATS_TEST_SKIPPED): the test moved nothing, its teardown only
# unloads (the checks of a skipped test cost 10-20 s each on the debug
# kernel, where CI skips the vm_debug_full_only tests)
vm_test_skipped() {
	[[ -n "${BATS_TEST_SKIPPED:-}" ]]
}

vm_teardown_module() {
	local rc=0 out checks=""
	: "${1:?vm_teardown_module NAME...}"
	# One guest command for validate, the series' check and the rmmods
	# (every command starts a handful of processes, a second each on the
	# debug kernel): each part runs in its own subshell, so a failing one
	# does not keep the others from running.  A module the test already
	# removed is fine; one that will not go is not.
	vm_test_skipped || checks="( $(_vm_slub_validate_script) ) || rc=1
			( $(_vm_slab_check_script) ) || rc=1"
	if vm_alive; then
		out="$(vm_run "rc=0
			$checks
			for m in $*; do
				grep -q \"^\$m \" /proc/modules || continue
				rmmod \$m || { echo \"rmmod \$m failed\"; rc=1; }
			done
			exit \$rc" 2>&1)" || { echo "$out"; rc=1; }
	fi
	# not the last command: its status must be kept by hand (teardown runs
	# without errexit, and only the function's return status counts)
	vm_teardown_test || rc=1
	((rc == 0)) || fail "module teardown failed after: ${BATS_TEST_DESCRIPTION:-test}"
}

# The caches vm_slub_validate and vm_slab_check look at by default, as a
# guest shell expression: every cache with a migrate callback, and
# radix_tree_node (the page cache's XArray nodes)
_VM_CHECKED_CACHES='$(grep -l "^migrate :" /sys/kernel/slab/*/ops 2>/dev/null | sed "s|/sys/kernel/slab/||; s|/ops||") radix_tree_node'

# Validation only runs where the cache has sanity checks: without them 6.12's
# validate_store() refuses with EINVAL and SLUB keeps no full list to count.
# Where the command line asks for them on every cache (vm_slub_debug_all),
# a cache without them fails: a lost command line must not turn the
# validation of the slub_debug pass into nothing.
vm_slub_validate() {
	vm_alive || return 0
	vm_run "$(_vm_slub_validate_script "$@")"
}

# _vm_slub_validate_script [CACHE...]: vm_slub_validate's guest command
_vm_slub_validate_script() {
	local caches="$*" need=0
	[[ -n "$caches" ]] || caches="$_VM_CHECKED_CACHES"
	vm_slub_debug_all && need=1
	echo "for c in $caches; do
		d=/sys/kernel/slab/\$c
		[ -d \$d ] && [ ! -L \$d ] || continue
		if [ \"\$(cat \$d/sanity_checks)\" != 1 ]; then
			[ $need = 0 ] || { echo \"\$c has no sanity checks under slub_debug\"; exit 1; }
			continue
		fi
		echo 1 > \$d/validate || { echo \"validate \$c failed\"; exit 1; }
		echo \"validated \$c\"
	done"
}

# vm_slab_check [CACHE...]: have the series check each node's partial list
# against its count (patch 0022, /sys/kernel/debug/slab_mobility/check) for
# CACHE (default: every cache with a migrate callback, and radix_tree_node).
# Unlike validate it works on caches without SLUB debugging: the production
# paths the sanitizers run.  A no-op on kernels without the file (mainline).
vm_slab_check() {
	vm_alive || return 0
	vm_run "$(_vm_slab_check_script "$@")"
}

# _vm_slab_check_script [CACHE...]: vm_slab_check's guest command
_vm_slab_check_script() {
	local caches="$*"
	[[ -n "$caches" ]] || caches="$_VM_CHECKED_CACHES"
	echo "f=/sys/kernel/debug/slab_mobility/check
		[ -e \$f ] || exit 0
		for c in $caches; do
			[ -d /sys/kernel/slab/\$c ] || continue
			echo \$c > \$f || { echo \"check \$c failed\"; exit 1; }
			echo \"checked \$c\"
		done"
}

# Put a marker into the kernel log and wait until it shows up on the console
# log: everything printed before it is then in the file.  Prints the byte
# offset of the marker line, or the file size if the guest cannot be reached.
_vm_log_mark() {
	local dir="$1" mark off i
	mark="smo-log-mark-$$-$RANDOM$RANDOM"
	if vm_alive && VM_TIMEOUT=10 vm_run "echo $mark >/dev/kmsg" >/dev/null 2>&1; then
		for ((i = 0; i < 100; i++)); do
			off="$(grep -a -b -F -m1 -- "$mark" "$dir/console.log" 2>/dev/null | cut -d: -f1)"
			[[ -n "$off" ]] && { printf '%s\n' "$off"; return 0; }
			sleep 0.05
		done
	fi
	stat -c %s "$dir/console.log" 2>/dev/null || echo 0
}

# Print the log between the baseline and a new mark; move the baseline.
_vm_log_take() {
	local dir start end
	dir="$(_vm_rundir)"
	[[ -n "$dir" && -f "$dir/console.log" ]] || return 0
	start="$(cat "$dir/log.offset" 2>/dev/null || echo 0)"
	end="$(_vm_log_mark "$dir")"
	((end >= start)) || start=0
	echo "$end" >"$dir/log.offset"
	tail -c +"$((start + 1))" "$dir/console.log" | head -c "$((end - start))" | tr -d '\r'
}

vm_log_since_mark() {
	local dir start
	dir="$(_vm_rundir)"
	start="$(cat "$dir/log.offset" 2>/dev/null || echo 0)"
	tail -c +"$((start + 1))" "$dir/console.log" | tr -d '\r'
}

vm_log_reset() { _vm_log_take >/dev/null; }

# vm_check_log: fail (1) on a splat in the kernel log since the last check,
# and on an OOM kill unless VM_OOM_EXPECTED=1.  The console log is this
# file's whole kernel log, read from the byte where the last check stopped:
# each OOM kill is counted once, in the test during which it happened, and
# not lost to a kernel ring buffer that wraps.
vm_check_log() {
	local text pat="$VM_LOG_PATTERNS" hits
	[[ -n "${VM_LOG_PATTERNS_EXTRA:-}" ]] && pat+="|$VM_LOG_PATTERNS_EXTRA"
	[[ "${VM_OOM_EXPECTED:-0}" == 1 ]] || pat+="|$SMO_OOM_PATTERNS"
	text="$(_vm_log_take)"
	hits="$(grep -a -E -n -- "$pat" <<<"$text" || true)"
	[[ -z "$hits" ]] && return 0
	echo "vm_check_log: kernel log splat (console: $(vm_console)):"
	# the matching lines, then the log from the first hit on (bounded)
	sed 's/^/  | /' <<<"$hits"
	echo "  --- context ---"
	local first="${hits%%:*}"
	sed -n "${first},$((first + 40))p" <<<"$text" | sed 's/^/  | /'
	return 1
}

vm_teardown_test() {
	local rc=0
	vm_check_log || rc=1
	if ! vm_alive; then
		echo "vm_teardown_test: QEMU is not running (console: $(vm_console))"
		tail -n 30 "$(vm_console)" 2>/dev/null | tr -d '\r' | sed 's/^/  | /'
		rc=1
	fi
	if ((rc)); then
		fail "kernel log check failed after: ${BATS_TEST_DESCRIPTION:-test}"
	fi
}

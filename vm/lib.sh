# shellcheck shell=bash
# vm/lib.sh - shared definitions for the smo VM harness scripts.
#
# Sourced (never run) by vm/* scripts.  Defines where the cache lives, how the
# kernel build directory is keyed, and small helpers for progress messages.
#
# Environment:
#   SMO_CACHE   cache root (default: ~/.cache/smo).  Everything the harness
#               builds lives below it; `make clean-cache` removes it.
#   SMO_LINUX_TARBALL   kernel source tarball (default /usr/src/linux-source-6.12.tar.xz)
#   SMO_LINUX_PKG       Debian package providing it (default linux-source-6.12)

# The checkout this file belongs to.  Parameter expansion, not dirname:
# vm/run sources this file for every guest command a test sends, and every
# program it starts costs host CPU that the guests need.
_smo_here="${BASH_SOURCE[0]%/*}"
[[ "$_smo_here" != "${BASH_SOURCE[0]}" ]] || _smo_here=.
SMO_ROOT="$(cd "$_smo_here/.." && pwd)"
unset _smo_here
SMO_CACHE="${SMO_CACHE:-$HOME/.cache/smo}"
SMO_LINUX_PKG="${SMO_LINUX_PKG:-linux-source-6.12}"
SMO_LINUX_TARBALL="${SMO_LINUX_TARBALL:-/usr/src/linux-source-6.12.tar.xz}"
SMO_LINUX_DIRNAME="linux-source-6.12"
# Bump when the way a tree is prepared/configured changes incompatibly, so old
# cached trees are not reused.
SMO_KEY_VERSION="1"

# Kernel flavor: "normal" (vm/config/*.config) or the name of an extra
# fragment vm/config/flavor/NAME.config merged on top (make check FLAVOR=debug),
# plus, if it exists, a patch vm/config/flavor/NAME.patch applied after the
# series (a measurement variant, never part of kernel-patch/).
SMO_FLAVOR="${SMO_FLAVOR:-normal}"

export SMO_ROOT SMO_CACHE SMO_FLAVOR

# What marks a kernel splat in a guest's log (grep -E): the one list for the
# selftests (selftests/lib/vm.bash) and the benchmarks.  "slabs counted but
# counter=" is SLUB's validate reporting drifted nr_partial/nr_slabs: 6.12
# prints it with pr_err and the write of validate still succeeds; "partial
# list drift" is the series' own check (patch 0022, any cache).  Stalls
# and lockups, in 6.12's formats: "rcu: INFO: rcu_preempt detected stalls
# on CPUs/tasks:", "rcu: INFO: rcu_preempt self-detected stall on CPU",
# "rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks:",
# "INFO: rcu_tasks detected stalls on tasks:", "watchdog: BUG: soft lockup -
# CPU#0 stuck for 22s!", "Watchdog detected hard LOCKUP on cpu 1", "BUG:
# workqueue lockup - pool", "INFO: task x:1 blocked for more than 45
# seconds." (selftests/harness.bats matches each against this list).
SMO_SPLAT_PATTERNS='BUG:|BUG [^ ]+ \((Not t|T)ainted|WARNING:|Oops|general protection|KASAN|UBSAN|possible circular locking|list_add corruption|list_del corruption|Object corrupt|Redzone|Poison overwritten|kernel BUG at|Kernel panic|INFO: possible recursive locking|inconsistent lock state|rcu_[a-z_]* (self-)?detected (expedited )?stalls?|soft lockup|hard LOCKUP|refcount_t: |slabs counted but counter=|partial list drift|blocked for more than [0-9]+ seconds'
# What an OOM kill prints: a test fails on it unless it expects one
# (selftests/lib/vm.bash, VM_OOM_EXPECTED)
SMO_OOM_PATTERNS='invoked oom-killer|Out of memory: Killed process|Memory cgroup out of memory'

# smo_splat_lines TEXT: print the lines of a kernel log TEXT that match
# SMO_SPLAT_PATTERNS; true if there is one.  The one scan of the host
# scripts (benchmarks, config-variants); the selftests take the patterns
# into selftests/lib/vm.bash.
smo_splat_lines() {
	grep -E "$SMO_SPLAT_PATTERNS" <<<"$1"
}

# The objects the series changes, which vm/bisect-check (plus each patch's
# other .c files) and vm/debian-config-check build
SMO_SERIES_OBJECTS=(mm/slub.o mm/slab_common.o mm/compaction.o mm/vmstat.o lib/xarray.o lib/radix-tree.o fs/dcache.o)
# What fails those builds (grep -E): compiler and objtool warnings
# ("file.c:12:3: warning:", "x.o: warning:"), not make's own ("make[1]:
# warning: jobserver unavailable")
SMO_WARNING_RE=':[0-9]+:[0-9]+: warning:|\.o: warning:'

msg()  { printf '%s: %s\n' "${SMO_PROG:-${0##*/}}" "$*" >&2; }
die()  { msg "error: $*"; exit 1; }

# The extra config fragment of SMO_FLAVOR (nothing for "normal").
smo_flavor_fragment() {
	[[ "$SMO_FLAVOR" == normal ]] && return 0
	[[ "$SMO_FLAVOR" =~ ^[a-z0-9_-]+$ ]] ||
		die "bad SMO_FLAVOR '$SMO_FLAVOR' (normal, or a name under vm/config/flavor/)"
	local f="$SMO_ROOT/vm/config/flavor/$SMO_FLAVOR.config"
	[[ -f "$f" ]] || die "unknown flavor '$SMO_FLAVOR': no $f"
	printf '%s\n' "$f"
}
# The extra patch of SMO_FLAVOR, if it has one (nothing otherwise).
smo_flavor_patch() {
	local f
	f="$(smo_flavor_fragment)"
	[[ -n "$f" && -f "${f%.config}.patch" ]] || return 0
	printf '%s\n' "${f%.config}.patch"
}
# Fail at once on an unknown flavor (not later inside a command substitution)
smo_flavor_fragment >/dev/null

# Print "--help" text: the leading comment block of the calling script.
smo_usage() {
	awk 'NR == 1 || /SPDX-License-Identifier/ { next }
		/^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
}

# Handle --help / -h in a script's first argument.
smo_help_check() {
	case "${1:-}" in
	-h|--help) smo_usage; exit 0 ;;
	esac
}

# Patches listed in kernel-patch/series, in order (comments and blank lines
# skipped; only the first field of a line is the file name).
smo_series() {
	local series="$SMO_ROOT/kernel-patch/series" line
	[[ -f "$series" ]] || return 0
	while IFS= read -r line || [[ -n "$line" ]]; do
		line="${line%%#*}"
		read -r line _ <<<"$line" || true
		[[ -n "$line" ]] && printf '%s\n' "$line"
	done <"$series"
}

# True for a flavor built from the pristine tree (its fragment carries the
# line "# smo-flavor: pristine", e.g. vm/config/flavor/mainline.config): no
# patch of the series, and no module of ours built for it or shipped in its
# initramfs.
smo_flavor_pristine() {
	local f
	f="$(smo_flavor_fragment)"
	[[ -n "$f" ]] && grep -qx '# smo-flavor: pristine' "$f"
}

# The patches the current flavor's tree gets: the series, or none for a
# pristine flavor.
smo_flavor_series() {
	smo_flavor_pristine || smo_series
}

smo_linux_version() {
	dpkg-query -W -f='${Version}' "$SMO_LINUX_PKG" 2>/dev/null ||
		die "$SMO_LINUX_PKG is not installed (run vm/install-deps)"
}

# Key of the kernel build: source package version, every patch of the series
# (name and content, in order), every vm/config/*.config fragment and, for a
# flavor other than "normal", its vm/config/flavor/ fragment and patch.
# SMO_KERNEL_KEY, if set, pins it (make check computes it once so that a patch
# edited mid-run cannot make later steps look for another tree).
smo_kernel_key() {
	if [[ -n "${SMO_KERNEL_KEY:-}" ]]; then
		printf '%s\n' "$SMO_KERNEL_KEY"
		return
	fi
	smo_kernel_key_computed
}

smo_kernel_key_computed() {
	local p f
	{
		printf 'key-version %s\n' "$SMO_KEY_VERSION"
		printf 'linux %s %s\n' "$SMO_LINUX_PKG" "$(smo_linux_version)"
		while IFS= read -r p; do
			f="$SMO_ROOT/kernel-patch/$p"
			[[ -f "$f" ]] || die "kernel-patch/series lists $p, which does not exist"
			printf 'patch %s %s\n' "$p" "$(sha256sum <"$f" | cut -d' ' -f1)"
		done < <(smo_flavor_series)
		for f in "$SMO_ROOT"/vm/config/*.config; do
			[[ -f "$f" ]] || continue
			printf 'config %s %s\n' "${f##*/}" "$(sha256sum <"$f" | cut -d' ' -f1)"
		done
		f="$(smo_flavor_fragment)"
		if [[ -n "$f" ]]; then
			printf 'flavor %s %s\n' "$SMO_FLAVOR" "$(sha256sum <"$f" | cut -d' ' -f1)"
		fi
		f="$(smo_flavor_patch)"
		if [[ -n "$f" ]]; then
			printf 'flavor-patch %s\n' "$(sha256sum <"$f" | cut -d' ' -f1)"
		fi
	} | sha256sum | cut -c1-12
}

# Directory holding one keyed kernel tree plus its stamps and logs.
smo_kernel_dir() { printf '%s/kernel-%s\n' "$SMO_CACHE" "$(smo_kernel_key)"; }
# The kernel tree itself (KDIR for module builds).
smo_kdir() { printf '%s/%s\n' "$(smo_kernel_dir)" "$SMO_LINUX_DIRNAME"; }

# Run a long command with its output in LOG; print a progress line every
# SMO_PROGRESS_SECS (default 20) seconds with the elapsed time and the log's
# last line.  On failure print the log tail and its path.
smo_run_logged() {
	local log="$1" what="$2"; shift 2
	local start=$SECONDS pid rc last
	msg "$what (log: $log)"
	"$@" >"$log" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		local i
		for ((i = 0; i < ${SMO_PROGRESS_SECS:-20}; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 1
		done
		if kill -0 "$pid" 2>/dev/null; then
			last="$(tail -n 1 "$log" 2>/dev/null | cut -c1-100)"
			msg "  ... $((SECONDS - start))s: $last"
		fi
	done
	rc=0
	wait "$pid" || rc=$?
	if ((rc != 0)); then
		msg "$what FAILED (exit $rc) after $((SECONDS - start))s; last lines of $log:"
		tail -n 30 "$log" >&2
		return "$rc"
	fi
	msg "$what done in $((SECONDS - start))s"
}

# smo_check_quick: true for the quick run of the selftests (make check, or
# bats run by hand): neither the full suite (SMO_CHECK_FULL=1: make
# check-full and every other pass CI runs) nor the whole debug suite
# (SMO_DEBUG_FULL=1: make check-debug-full) was asked for.  vm/check picks
# its number of files at a time by it, selftests/lib/vm.bash (vm_quick)
# what to skip and shorten.
smo_check_quick() {
	[[ "${SMO_CHECK_FULL:-0}" != 1 && "${SMO_DEBUG_FULL:-0}" != 1 ]]
}

# smo_background_defrag_arg: the kernel arguments that turn the kernel's
# own passes off at boot, so that a test or a benchmark finds its slabs
# where it left them: the background defragmentation (patch 24:
# vm.slab_defrag_interval) and proactive compaction, whose kcompactd
# vacates the slabs of movable caches (patch 25) on their own node: once
# in a FZPU pass of node.bats it emptied a smox_test slab of node 1 into
# another of node 1 while a move to node 0 ran.  Nothing when
# SMO_BACKGROUND_DEFRAG=1 (selftests/autonomy.bats boots with the
# kernel's defaults).  vm_start and vm/with-vm add them; bench/system,
# whose "smo" row is the kernel left to itself, boots without them.
smo_background_defrag_arg() {
	[[ "${SMO_BACKGROUND_DEFRAG:-0}" == 1 ]] ||
		printf '%s\n' "sysctl.vm.slab_defrag_interval=0 sysctl.vm.compaction_proactiveness=0"
}

# smo_qemu_alive RUNDIR: true while the QEMU started for RUNDIR runs: the
# pid in RUNDIR/qemu.pid is neither gone nor a zombie, and its command line
# names RUNDIR's agent pipe (a recycled pid is some other process).  The
# one liveness test of vm/boot, vm/run, vm/stop and selftests/lib/vm.bash.
# Bash builtins only: vm/run calls it for every guest command and while it
# waits.
smo_qemu_alive() {
	local dir="${1:?smo_qemu_alive RUNDIR}" pid="" stat st args=()
	{ read -r pid || [[ -n "$pid" ]]; } 2>/dev/null <"$dir/qemu.pid" || return 1
	[[ "$pid" =~ ^[0-9]+$ && -r "/proc/$pid/stat" ]] || return 1
	read -r stat 2>/dev/null <"/proc/$pid/stat" || return 1
	# the state follows the command name in parentheses, which may hold
	# spaces and parentheses itself
	st="${stat##*) }"
	st="${st%% *}"
	[[ "$st" != Z && "$st" != X ]] || return 1
	mapfile -d '' args 2>/dev/null <"/proc/$pid/cmdline" || return 1
	[[ "${args[*]}" == *"$dir/agent"* ]]
}

# A short id of this checkout, for what checkouts must not share (the
# initramfs, logs)
smo_checkout_id() { printf '%s' "$SMO_ROOT" | sha256sum | cut -c1-8; }

# Logs of this checkout's test runs
smo_log_dir() { printf '%s/logs/%s\n' "$SMO_CACHE" "$(smo_checkout_id)"; }

# The initramfs of this checkout for the current kernel: one per checkout, so
# checkouts (a developer's, CI's clone) testing the same kernel at the same
# time do not boot each other's modules.
smo_initramfs() {
	printf '%s/initramfs-%s.cpio.gz\n' "$(smo_kernel_dir)" "$(smo_checkout_id)"
}

# Remove all but the SMO_KEEP_KERNELS (default 5: normal, debug, kcsan,
# mainline and one more) most recently used keyed
# kernel trees (about 1.8 GB each).  Only kernel-<hash> directories are
# touched.
smo_prune_kernels() {
	local keep="${SMO_KEEP_KERNELS:-5}" d n=0 current
	current="$(smo_kernel_dir)"
	while IFS= read -r d; do
		[[ "$d" == "$current" ]] && continue
		n=$((n + 1))
		if ((n >= keep)); then
			msg "pruning old kernel tree $d"
			rm -rf -- "$d"
		fi
	done < <(ls -1dt "$SMO_CACHE"/kernel-[0-9a-f]*[0-9a-f] 2>/dev/null)
}

#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# bench/system (make bench-system) in short: the file workload bench/fsfrag.c
# on ext4 (a virtio disk) and tmpfs, 500 files, on the smo kernel of this
# run only (the mainline kernel is not built by make check).  It keeps the
# program, the guest configuration it needs (cgroup2 with the memory
# controller, ext4, virtio, hugetlb, THP, madvise) and the report working:
# every phase leaves its records, the counts are the ones the fixed seed
# gives, huge pages are obtained, the JSON parses and the kernel log is
# clean (bench/system fails on a splat).  Each bench/system call boots its
# own guests, with this pass's SMO_CMDLINE.

load lib/vm

OUT="$BATS_FILE_TMPDIR/out"
vm_min_timeout 600


# rec ROW PHASE KIND [NAME]: the last field of the first matching record
rec() {
	awk -v p="$2" -v k="$3" -v n="${4:-}" '$1 == p && $2 == k && (n == "" || $3 == n) {
		print $NF; exit }' "$OUT/$1.txt"
}

@test "system: the quick workload runs on smo and smo-explicit and reports" {
	run timeout $((VM_TIMEOUT * VM_TIMEOUT_SCALE)) \
		"$VM_ROOT/bench/system" --quick --rows smo,smo-explicit --out "$OUT"
	echo "$output"
	[ "$status" -eq 0 ]
	assert_output --partial "smo system benchmark: 500 files on ext4 + 125 on tmpfs"
	assert_output --partial "hugetlb 2M got/asked"
	[ -s "$OUT/smo.txt" ]
	[ -s "$OUT/smo-explicit.txt" ]
}

@test "system: every phase leaves its records, with the counts the seed gives" {
	local row phase
	for row in smo smo-explicit; do
		for phase in start populate churn pressure before-huge huge; do
			grep -q "^$phase cache dentry " "$OUT/$row.txt" ||
				fail "$row: no dentry record for phase $phase"
			grep -q "^$phase meminfo Slab " "$OUT/$row.txt" ||
				fail "$row: no Slab: record for phase $phase"
			grep -q "^$phase buddy 1 " "$OUT/$row.txt" ||
				fail "$row: no node 1 buddyinfo record for phase $phase"
		done
		# populate: 500 files on ext4 then 125 on tmpfs, each created and
		# read back; churn deletes directory 0 whole (100 files) and 4 of 5
		# of the rest: 420 of 500 on ext4
		[ "$(awk '$1 == "populate" && $2 == "step-create" { print $4; exit }' "$OUT/$row.txt")" = 500 ]
		[ "$(awk '$1 == "populate" && $2 == "step-read" { print $4; exit }' "$OUT/$row.txt")" = 500 ]
		[ "$(awk '$1 == "populate" && $2 == "step-stat" { print $4; exit }' "$OUT/$row.txt")" = 505 ]
		[ "$(awk '$1 == "churn" && $2 == "step-delete" { print $4; exit }' "$OUT/$row.txt")" = 420 ]
		[ "$(awk '$1 == "churn" && $2 == "step-create-new" { print $4; exit }' "$OUT/$row.txt")" = 25 ]
		# the pressure phase really took memory
		(($(awk '$2 == "pressure-peak-kB" { print $3 }' "$OUT/$row.txt") > 1024 * 1024))
		grep -q "^movable dentry$" "$OUT/$row.txt"
	done
	# the explicit pass row really ran its passes
	grep -q '^explicit cache dentry ' "$OUT/smo-explicit.txt"
}

@test "system: huge pages are obtained and counted" {
	local row want got thp
	for row in smo smo-explicit; do
		want=$(awk '$1 == "huge" && $2 == "hugetlb" { print $3 }' "$OUT/$row.txt")
		got=$(rec "$row" huge hugetlb)
		thp=$(awk '$1 == "huge" && $2 == "thp" { print $4 }' "$OUT/$row.txt")
		((want > 0 && got > 0 && got <= want)) || fail "$row: hugetlb $got of $want"
		# after a 500-file workload most of a 2 GiB guest is obtainable
		((got * 2 > want)) || fail "$row: only $got of $want hugetlb pages"
		((thp > 0)) || fail "$row: no THP in the MADV_HUGEPAGE mapping"
	done
}

@test "system: system.json parses and holds every row and phase" {
	command -v python3 >/dev/null || fail "python3 missing (vm/install-deps installs it)"
	run -0 python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for row in ("smo", "smo-explicit"):
    ph = d["rows"][row]["phases"]
    for p in ("start", "populate", "churn", "pressure", "before-huge", "huge"):
        assert "dentry" in ph[p]["caches"], (row, p)
    assert ph["huge"]["hugetlb"]["got"] > 0, row
    assert "dentry" in d["rows"][row]["movable"], row
assert "explicit" in d["rows"]["smo-explicit"]["phases"]
assert d["rows"]["smo-explicit"]["smo_dentry"]["candidates"] > 0
print("ok")' "$OUT/system.json"
	assert_output ok
}

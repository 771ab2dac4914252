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
# own guests, with this pass's SMO_CMDLINE; the last test boots none: it
# checks the hugetlb verdict against mainline with bench/system --report on
# crafted records.

load lib/vm

OUT="$BATS_FILE_TMPDIR/out"
vm_min_timeout 600


# rec ROW PHASE KIND [NAME]: the last field of the first matching record
rec() {
	awk -v p="$2" -v k="$3" -v n="${4:-}" '$1 == p && $2 == k && (n == "" || $3 == n) {
		print $NF; exit }' "$OUT/$1.txt"
}

@test "system: the quick workload runs on smo and smo-explicit and reports" {
	vm_slow "the file workload boots two guests"
	run timeout $((VM_TIMEOUT * VM_TIMEOUT_SCALE)) \
		"$VM_ROOT/bench/system" --quick --rows smo,smo-explicit --out "$OUT"
	echo "$output"
	[ "$status" -eq 0 ]
	assert_output --partial "smo system benchmark: 500 files on ext4 + 125 on tmpfs"
	assert_output --partial "hugetlb 2M got/asked"
	assert_output --partial "smo: huge pages after the workload / right after boot >= 0.9: "
	[ -s "$OUT/smo.txt" ]
	[ -s "$OUT/smo-explicit.txt" ]
}

@test "system: every phase leaves its records, with the counts the seed gives" {
	vm_slow "reads the quick workload's records"
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

@test "system: huge pages are obtained and counted, after the workload and at boot" {
	vm_slow "reads the quick workload's records"
	local row want got thp
	for row in smo smo-explicit; do
		want=$(awk '$1 == "huge" && $2 == "hugetlb" { print $3 }' "$OUT/$row.txt")
		got=$(rec "$row" huge hugetlb)
		thp=$(awk '$1 == "huge" && $2 == "thp" { print $4 }' "$OUT/$row.txt")
		((want > 0 && got > 0 && got <= want)) || fail "$row: hugetlb $got of $want"
		# after a 500-file workload most of a 2 GiB guest is obtainable
		((got * 2 > want)) || fail "$row: only $got of $want hugetlb pages"
		((thp > 0)) || fail "$row: no THP in the MADV_HUGEPAGE mapping"
		# and right after boot, before the workload
		got=$(rec "$row" fresh hugetlb)
		((got * 2 > want)) || fail "$row: only $got of $want hugetlb pages at boot"
		grep -q "^boot pageblocks 0 Movable [1-9]" "$OUT/$row.txt" ||
			fail "$row: no pageblock count of node 0 at boot"
	done
}

@test "system: system.json parses and holds every row and phase" {
	vm_slow "reads the quick workload's records"
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

# hugetlb_report MAINLINE SMO [MAINLINE_AT_BOOT SMO_AT_BOOT]: bench/system
# --report (it boots nothing) on crafted records whose only figures are each
# row's count of hugetlb pages obtained after the workload (of 1001 asked;
# "-": no such record) and right after boot (default 1000)
hugetlb_report() {
	local dir="$BATS_TEST_TMPDIR/report" row got fresh i=0
	local -a at_boot=("${3:-1000}" "${4:-1000}")
	rm -rf "$dir"
	mkdir -p "$dir"
	for row in mainline smo; do
		got="$1"
		shift
		fresh="${at_boot[i++]}"
		printf 'row %s\nkernel 6.12.0\n' "$row" >"$dir/$row.txt"
		[[ "$got" == - ]] || printf 'huge hugetlb 1001 %s\n' "$got" >>"$dir/$row.txt"
		[[ "$fresh" == - ]] || printf 'fresh hugetlb 1001 %s\n' "$fresh" >>"$dir/$row.txt"
	done
	run "$VM_ROOT/bench/system" --report --quick --rows mainline,smo --out "$dir"
	echo "$output"
}

@test "system: a hugetlb target without a mainline figure (none, or 0 pages) is NOT RUN and fails, never met" {
	hugetlb_report 300 600
	[ "$status" -eq 0 ]
	assert_output --partial "smo: hugetlb pages >= 2x mainline (600 vs 300): met"
	hugetlb_report 300 599
	[ "$status" -eq 0 ]
	assert_output --partial "smo: hugetlb pages >= 2x mainline (599 vs 300): missed"
	# mainline obtained nothing: its measurement did not work, and any
	# count is >= 2 x 0
	hugetlb_report 0 600
	[ "$status" -eq 1 ]
	assert_output --partial "smo: hugetlb pages >= 2x mainline (600 vs 0): NOT RUN"
	refute_output --partial ": met"
	assert_output --partial "could not run: smo-hugetlb"
	hugetlb_report - 600
	[ "$status" -eq 1 ]
	assert_output --partial "smo: hugetlb pages >= 2x mainline: NOT RUN (no figure)"
}

@test "system: the headline is huge pages after the workload over those at boot, met at 0.9 for smo" {
	hugetlb_report 640 900 1000 1000
	[ "$status" -eq 0 ]
	assert_output --partial "mainline: huge pages after the workload / right after boot: 0.64 (640 of 1000)"
	assert_output --partial "smo: huge pages after the workload / right after boot >= 0.9: 0.90 (900 of 1000): met"
	assert_output --regexp "after / at boot +0.64 +0.90"
	hugetlb_report 640 899 1000 1000
	[ "$status" -eq 0 ]
	assert_output --partial "smo: huge pages after the workload / right after boot >= 0.9: 0.90 (899 of 1000): missed"
	# no boot figure, or none obtained at boot: no measurement, never met
	hugetlb_report 640 900 1000 0
	[ "$status" -eq 1 ]
	assert_output --partial "smo: huge pages after the workload / right after boot: NOT RUN (no figure)"
	assert_output --partial "could not run: smo-headline"
	hugetlb_report 640 900 1000 -
	[ "$status" -eq 1 ]
	assert_output --partial "could not run: smo-headline"
}

@test "system: the pageblock census after the huge-page phase sums the nodes and ranks holders by blocks held alone" {
	local dir="$BATS_TEST_TMPDIR/census"
	mkdir -p "$dir"
	{
		printf 'row mainline\nkernel 6.12.0\nhuge hugetlb 1001 640\nfresh hugetlb 1001 1000\n'
		printf 'huge census node 0 blocks 512 free 300 movable 100 held 112\n'
		printf 'huge census node 1 blocks 512 free 310 movable 102 held 100\n'
		printf 'huge census node 0 holder slab:dentry blocks 60 sole 5 pages 300\n'
		printf 'huge census node 1 holder slab:dentry blocks 50 sole 4 pages 200\n'
		printf 'huge census node 0 holder slab:ext4_inode_cache blocks 40 sole 30 pages 900\n'
		printf 'huge census node 0 holder other blocks 90 sole 12 pages 2000\n'
		# before the huge-page phase: not in the census report
		printf 'before-huge census node 0 holder slab:kmalloc-64 blocks 500 sole 500 pages 9\n'
	} >"$dir/mainline.txt"
	printf 'row smo\nkernel 6.12.0\nhuge hugetlb 1001 900\nfresh hugetlb 1001 1000\n' >"$dir/smo.txt"
	run "$VM_ROOT/bench/system" --report --quick --rows mainline,smo --out "$dir"
	echo "$output"
	assert_output --partial "mainline: 1024 blocks: 610 free, 202 movable, 212 held"
	assert_output --partial "smo: no census (a kernel without census.patch)"
	refute_output --partial "kmalloc-64"
	# ranked by blocks held alone: ext4 inodes (30), other (12), dentries (9)
	assert_output --regexp "slab:ext4_inode_cache +held +40 +alone +30 +pages +900"
	assert_output --regexp "other +held +90 +alone +12 +pages +2000"
	assert_output --regexp "slab:dentry +held +110 +alone +9 +pages +500"
	[[ "$output" =~ ext4_inode_cache.*$'\n'.*other.*$'\n'.*slab:dentry ]]
	run -0 python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = d["rows"]["mainline"]["phases"]["huge"]
assert c["census_node0"]["held"] == 112, c
assert c["census_node0_slab:ext4_inode_cache"]["sole"] == 30, c
print("ok")' "$dir/system.json"
}

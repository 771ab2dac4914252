#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The packager's path, run by vm/dkms-check (make dkms-check): the guest
# boots an initramfs whose module tree is the one DKMS installed for the
# guest kernel (packages smo and smo-tests), and loads the modules by name.
# Anywhere else (VM_MODPROBE unset, as in make check) every test skips.

load lib/vm

USER_MODULES="smo_dentry smo_node smo_template"
TEST_MODULES="smo_test smo_xarray smo_bench"

setup_file() {
	[[ "${VM_MODPROBE:-0}" == 1 ]] || return 0
	vm_start
}

teardown_file() {
	[[ "${VM_MODPROBE:-0}" == 1 ]] || return 0
	vm_stop
}

setup() {
	[[ "${VM_MODPROBE:-0}" == 1 ]] ||
		skip "needs the DKMS-installed module tree (make dkms-check)"
}

teardown() {
	[[ "${VM_MODPROBE:-0}" == 1 ]] || return 0
	vm_teardown_test
}

@test "the guest's modules are the ones DKMS installed, with their dependencies" {
	run -1 vm_run "test -e /lib/modules/smo"
	run -0 vm_run 'ls /lib/modules/$(uname -r)/modules.dep'
	for m in $USER_MODULES $TEST_MODULES; do
		run -0 vm_run "modinfo -F filename $m"
		[[ "$output" == /lib/modules/*/$m.ko* ]] || { echo "$m: $output"; false; }
	done
}

@test "every module of both packages loads by name and unloads" {
	for m in $USER_MODULES $TEST_MODULES; do
		run -0 vm_insmod "$m"
		vm_module_loaded "$m"
		run -0 vm_rmmod "$m"
	done
}

@test "only the test modules carry MODULE_INFO(test) and taint the kernel" {
	for m in $USER_MODULES; do
		run -0 vm_run "modinfo -F test $m"
		[ -z "$output" ] || { echo "$m: test=$output"; false; }
	done
	for m in $TEST_MODULES; do
		run -0 vm_run "modinfo -F test $m"
		[ "$output" = Y ] || { echo "$m: test=$output"; false; }
	done
	# TAINT_TEST is bit 18
	run -0 vm_run "modprobe smo_bench && cat /proc/sys/kernel/tainted && rmmod smo_bench"
	(( (${lines[0]} >> 18) & 1 ))
}

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# kselftest: the kernel's own tests run against slabx, retargeted at build
# time from the target kernel's source (tests/Kbuild, kernel_tests.sed):
# lib/test_objpool.c against slabx's objpool. The module runs its ten
# cases in its init and then refuses to load (-EAGAIN), as the kernel's
# does; its summary in the kernel log must show every case popping
# objects and every case's memory given back. See Makefile for where it
# runs and how it finds the modules.

DIR=$(dirname "$(readlink -f "$0")")
# shellcheck source=/dev/null
. "$DIR/../kselftest/ktap_helpers.sh"
# shellcheck source=slabx_lib.sh
. "$DIR/slabx_lib.sh"

CASES=10

# Whether the kernel preempts a task that never yields: lib/test_objpool.c's
# workers loop without a cond_resched() on every CPU, so on a kernel
# without preemption (UML's) nothing else runs again.
kernel_preempts()
{
	local model=/sys/kernel/debug/sched/preempt

	[ -r $model ] && { grep -q '(full)' $model; return; }
	uname -v | grep -qE 'PREEMPT( |_RT|$)'
}

ktap_print_header
# shellcheck disable=SC2119 # no module required but slabx: see below
slabx_require
ktap_set_plan 1

# Built where the kernel's source was there: a kernel built from source,
# the one kind that has slabx's KUnit modules too (a distribution kernel's
# headers have neither).
if ! slabx_mod_path slabx_kernel_test_objpool > /dev/null; then
	if slabx_kernel_older 6 7 || ! slabx_mod_path slabx_test > /dev/null; then
		ktap_test_skip "lib/test_objpool.c: not in this kernel, or its source was not there to build the test from"
		ktap_finished
	fi
	ktap_test_fail "lib/test_objpool.c: slabx_kernel_test_objpool.ko was not built"
	ktap_finished
fi

if ! kernel_preempts; then
	ktap_test_skip "lib/test_objpool.c: its workers never yield, and this kernel does not preempt them"
	ktap_finished
fi
# Its async cases drop the last object, freeing the pool, with preemption
# off and from an hrtimer (ot_bulk_async()): no allocator may free memory
# there on PREEMPT_RT, the kernel's objpool no more than slabx's (the rt
# guest saw sleeping-in-atomic splats from slabx_objpool_free()).
if uname -v | grep -q PREEMPT_RT; then
	ktap_test_skip "lib/test_objpool.c: it frees its pools with preemption off, which PREEMPT_RT forbids"
	ktap_finished
fi

slabx_load slabx || ktap_exit_fail_msg "cannot load slabx"
slabx_klog_mark
if slabx_load slabx_kernel_test_objpool; then
	ktap_print_msg "loaded: the test should refuse to load when done"
	rmmod slabx_kernel_test_objpool
fi
log=$(slabx_klog)
rmmod slabx

# Each run ends with a summary of its cases. An insmod may run the module
# more than once (busybox's, in the test guest, ran it twice: its init's
# error made it try again): every run is judged.
ok=0
summary=$(echo "$log" | grep -E 'duration: [0-9]+us[[:space:]]+hits:')
runs=$(($(echo "$summary" | grep -c .) / CASES))
if [ $runs -lt 1 ] || [ "$(echo "$summary" | grep -c .)" -ne $((runs * CASES)) ]; then
	ktap_print_msg "summary of $CASES cases missing"
	ok=1
fi
echo "$summary" | while read -r line; do ktap_print_msg "$line"; done
# "duration: Nus  hits: N  miss: N  NAME": every case popped objects.
if echo "$summary" | sed -E 's/.*hits: *([0-9]+).*/\1/' | grep -qx 0; then
	ktap_print_msg "a case got no object"
	ok=1
fi
# "kmalloc: ALLOC - FREE = LEFT", the same for vmalloc: nothing left.
mem=$(echo "$log" | grep -E '(kmalloc|vmalloc): [0-9]+ - [0-9]+ = ')
[ "$(echo "$mem" | grep -c .)" -eq $((2 * runs * CASES)) ] ||
	{ ktap_print_msg "memory summaries missing"; ok=1; }
if echo "$mem" | grep -qv '= 0$'; then
	ktap_print_msg "memory not given back: $(echo "$mem" | grep -v '= 0$' | head -1)"
	ok=1
fi
ktap_test_result "lib/test_objpool.c against slabx's objpool" [ $ok = 0 ]
ktap_finished

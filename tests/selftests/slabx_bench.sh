#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# kselftest for the microbenchmark module, so that `make bench` cannot rot:
# a short run prints one figure per size and pattern, and rejects bad
# parameters. The figures themselves are only meaningful on the perf kernel.
# See Makefile for where it runs and how it finds the modules.

DIR=$(dirname "$(readlink -f "$0")")
# shellcheck source=/dev/null
. "$DIR/../kselftest/ktap_helpers.sh"
# shellcheck source=slabx_lib.sh
. "$DIR/slabx_lib.sh"

short_run_prints_every_figure()
{
	local ok=0 size pattern

	slabx_load slabx || return 1
	slabx_klog_mark
	slabx_load slabx_bench rounds=1 ops=2048 || ok=1
	slabx_klog > "$log"
	for size in 64 256; do
		for pattern in pair batch1 batch32 batch1024; do
			grep -Eq "slabx_bench: size +$size $pattern +kmem_cache +[0-9]+\.[0-9]+ ns +slabx +[0-9]+\.[0-9]+ ns +ratio [0-9]+\.[0-9]+ +floor [0-9]+\.[0-9]+ ns +slabx/floor [0-9]+\.[0-9]+ +kmem_cache/floor [0-9]+\.[0-9]+" "$log" ||
				{ ktap_print_msg "no figure for $size $pattern"; ok=1; }
		done
		for pattern in reserve reserve32; do
			grep -Eq "slabx_bench: size +$size $pattern +mempool +[0-9]+\.[0-9]+ ns +slabx +[0-9]+\.[0-9]+ ns +ratio [0-9]+\.[0-9]+ +floor [0-9]+\.[0-9]+ ns +slabx/floor [0-9]+\.[0-9]+ +mempool/floor [0-9]+\.[0-9]+" "$log" ||
				{ ktap_print_msg "no figure for $size $pattern"; ok=1; }
		done
		grep -Eq "slabx_bench: size +$size reserve memory: 100 x 16 objects: mempool [0-9]+ B +slabx [0-9]+ B +ratio [0-9]+\.[0-9]+" "$log" ||
			{ ktap_print_msg "no reserve memory figure for $size"; ok=1; }
		# GFP_NOWAIT under pressure: the pair and the fill; the calls
		# that get NULL unless pages came back in every round. Not
		# with generic KASAN, whose quarantine keeps SLUB's frees.
		if ! grep -Eq "slabx_bench: size +$size nowait +skipped: KASAN quarantines" "$log"; then
			for pattern in nowait nowaitfill; do
				grep -Eq "slabx_bench: size +$size $pattern +kmem_cache +[0-9]+\.[0-9]+ ns +slabx +[0-9]+\.[0-9]+ ns +ratio [0-9]+\.[0-9]+" "$log" ||
					{ ktap_print_msg "no figure for $size $pattern"; ok=1; }
			done
			grep -Eq "slabx_bench: size +$size nowaitnull +(kmem_cache +[0-9]+\.[0-9]+ ns +slabx +[0-9]+\.[0-9]+ ns +ratio [0-9]+\.[0-9]+|not measured)" "$log" ||
				{ ktap_print_msg "no figure for $size nowaitnull"; ok=1; }
		fi
		grep -Eq "slabx_bench: size +$size allcpus +[0-9]+ CPUs kmem_cache [0-9]+\.[0-9]+ Mpairs/s +slabx [0-9]+\.[0-9]+ Mpairs/s +ratio [0-9]+\.[0-9]+" "$log" ||
			{ ktap_print_msg "no all-CPUs figure for $size"; ok=1; }
		if slabx_kernel_older 6 12; then
			# No kvfree_rcu_barrier(): the comparison is skipped.
			grep -Eq "slabx_bench: size +$size free_rcu +skipped: no kvfree_rcu_barrier" "$log" ||
				{ ktap_print_msg "no free_rcu skip for $size"; ok=1; }
			continue
		fi
		{ grep -Eq "slabx_bench: size +$size free_rcu +kfree_rcu +[0-9]+\.[0-9]+ ns +slabx +[0-9]+\.[0-9]+ ns +ratio [0-9]+\.[0-9]+" "$log" &&
		  grep -Eq "slabx_bench: size +$size free_rcu +peak pages kfree_rcu [0-9]+ slabx [0-9]+; reusable after kfree_rcu [0-9]+ us slabx [0-9]+ us; slabx call_rcu per 1000 frees [0-9]+" "$log" &&
		  grep -Eq "slabx_bench: size +$size free_rcu +slabx_free +[0-9]+\.[0-9]+ ns +slabx_free_rcu +[0-9]+\.[0-9]+ ns +rcu/plain [0-9]+\.[0-9]+" "$log"; } ||
			{ ktap_print_msg "no free_rcu figures for $size"; ok=1; }
	done
	grep -Eq "slabx_bench: size +0 page +kmem_cache +[0-9]+\.[0-9]+ ns +slabx +[0-9]+\.[0-9]+ ns +ratio [0-9]+\.[0-9]+" "$log" ||
		{ ktap_print_msg "no page figure"; ok=1; }
	grep -Eq "slabx_bench: alloc_nolock from NMI: ([0-9]+ of 2000 succeeded|not measured)" "$log" ||
		{ ktap_print_msg "no NMI figure"; ok=1; }
	grep -q 'slabx_bench: done' "$log" || ok=1
	rmmod slabx_bench || ok=1
	rmmod slabx || ok=1
	return $ok
}

objpool_short_run_prints_every_figure()
{
	local ok=0 what

	slabx_load slabx || return 1
	slabx_klog_mark
	slabx_load slabx_objpool_bench rounds=1 ms=2 || ok=1
	slabx_klog > "$log"
	# One line per pattern on one CPU, and on all of them.
	for what in "pop\+push " "pop\+push\+timer"; do
		[ "$(grep -Ec "slabx_objpool_bench: $what +[0-9]+ CPUs? +lib +[0-9]+\.[0-9]+ Mpairs/s \([0-9]+\.[0-9]+ per CPU\) +slabx +[0-9]+\.[0-9]+ Mpairs/s \([0-9]+\.[0-9]+ per CPU\) +ratio slabx/lib [0-9]+\.[0-9]+" "$log")" = 2 ] ||
			{ ktap_print_msg "not two objpool figures for $what"; ok=1; }
	done
	grep -Eq 'slabx_objpool_bench: ring bytes, 1024 objects, [0-9]+ possible CPUs: lib [0-9]+ slabx [0-9]+' "$log" || ok=1
	grep -q 'slabx_objpool_bench: done' "$log" || ok=1
	rmmod slabx_objpool_bench || ok=1
	rmmod slabx || ok=1
	return $ok
}

bad_parameters_rejected()
{
	local ok=0

	slabx_load slabx || return 1
	slabx_klog_mark
	slabx_load slabx_bench rounds=0 2> /dev/null && ok=1
	slabx_klog | grep -q 'slabx_bench: rounds must be' || ok=1
	slabx_klog_mark
	slabx_load slabx_bench ops=10 2> /dev/null && ok=1
	slabx_klog | grep -q 'slabx_bench: rounds must be' || ok=1
	if [ -n "$objpool" ]; then
		slabx_klog_mark
		slabx_load slabx_objpool_bench ms=0 2> /dev/null && ok=1
		slabx_klog | grep -q 'slabx_objpool_bench: rounds must be' || ok=1
	fi
	lsmod | grep -q '^slabx_objpool_bench ' && { rmmod slabx_objpool_bench; ok=1; }
	lsmod | grep -q '^slabx_bench ' && { rmmod slabx_bench; ok=1; }
	rmmod slabx || ok=1
	return $ok
}

ktap_print_header
# lib/objpool, slabx_objpool_bench's peer, came in 6.7.
objpool=slabx_objpool_bench
! slabx_kernel_older 6 7 || objpool=
slabx_require slabx_bench $objpool
log=$(mktemp) || ktap_exit_fail_msg "mktemp failed"
trap 'rm -f "$log"' EXIT
ktap_set_plan 3
ktap_test_result "short run prints every figure" short_run_prints_every_figure
if [ -n "$objpool" ]; then
	ktap_test_result "objpool short run prints every figure" objpool_short_run_prints_every_figure
else
	ktap_test_skip "objpool short run: no lib/objpool before 6.7"
fi
ktap_test_result "bad parameters are rejected" bad_parameters_rejected
ktap_finished

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# kselftest for slabx's tracepoints (trace system "slabx", slabx_trace.h):
# the events of the demo workload (tests/slabx_demo.ko) against the demo
# cache's debugfs statistics, silence while the events are off, and the
# rcu_free sheaf, any-context and pool events of tests/slabx_trace_helper.ko.
# Each case skips on a kernel without tracefs. See Makefile for
# where it runs and how it finds the modules.

DIR=$(dirname "$(readlink -f "$0")")
# shellcheck source=/dev/null
. "$DIR/../kselftest/ktap_helpers.sh"
# shellcheck source=slabx_lib.sh
. "$DIR/slabx_lib.sh"

DBG=/sys/kernel/debug/slabx
N=500
TMP=/tmp/slabx_trace.$$
T=

# Find tracefs, mounting it if need be; T is its directory.
find_tracefs()
{
	grep -qw tracefs /proc/filesystems || return 1
	if [ -f /sys/kernel/tracing/trace ]; then
		T=/sys/kernel/tracing
	elif [ -d /sys/kernel/tracing ] &&
	     mount -t tracefs nodev /sys/kernel/tracing 2> /dev/null; then
		T=/sys/kernel/tracing
	elif [ -f /sys/kernel/debug/tracing/trace ]; then
		T=/sys/kernel/debug/tracing
	else
		return 1
	fi
}

# Start a trace of the slabx events named in $@ ("enable": all of them).
trace_start()
{
	local e

	echo 0 > $T/tracing_on
	echo 0 > $T/events/slabx/enable
	for e in "$@"; do
		if [ "$e" = enable ]; then
			echo 1 > $T/events/slabx/enable
		else
			echo 1 > "$T/events/slabx/$e/enable"
		fi
	done
	: > $T/trace
	echo 1 > $T/tracing_on
}

# Stop tracing, keep the trace in $TMP.trace.
trace_stop()
{
	echo 0 > $T/tracing_on
	echo 0 > $T/events/slabx/enable
	grep -v '^#' $T/trace > $TMP.trace
	: > $T/trace
	echo 1 > $T/tracing_on
}

# Lines of event $1 with all the words $2... in $TMP.trace.
count()
{
	local ev=$1 w

	shift
	cp $TMP.trace $TMP.sel
	grep " $ev: " $TMP.sel > $TMP.tmp || true
	mv $TMP.tmp $TMP.sel
	for w in "$@"; do
		grep -- " $w\( \|\$\)" $TMP.sel > $TMP.tmp || true
		mv $TMP.tmp $TMP.sel
	done
	wc -l < $TMP.sel
}

# $1 = $2, else say what $3 was.
same()
{
	[ "$1" = "$2" ] && return 0
	ktap_print_msg "$3: $1 events, stats say $2"
	return 1
}

# Sum of the numbers after "$2=" in event lines $1.
sum()
{
	grep " $1: " $TMP.trace | sed -n "s/.* $2=\([0-9]*\).*/\1/p" |
		awk '{ s += $1 } END { print s + 0 }'
}

# Each demo allocation and free is one event, with its size and a path of
# the slab or the sheaves; refills, flushes and barn trades as counted.
demo_events()
{
	local ok=0 f=$DBG/demo/stats bad

	slabx_load slabx || return 1
	trace_start enable
	slabx_load slabx_demo nr_objects=$N || ok=1
	trace_stop
	same "$(count slabx_alloc cache=demo)" "$(statval $f alloc)" alloc || ok=1
	same "$(count slabx_free cache=demo)" "$(statval $f free)" free || ok=1
	same "$(count slabx_alloc cache=demo size=128)" $((2 * N)) "alloc size=128" || ok=1
	same "$(count slabx_alloc cache=demo gfp=GFP_KERNEL)" $((2 * N)) \
		"alloc gfp=GFP_KERNEL" || ok=1
	same "$(count slabx_alloc cache=demo path=sheaf)" \
		"$(statval $f alloc_fastpath)" "alloc path=sheaf" || ok=1
	same "$(count slabx_alloc cache=demo path=slab)" \
		"$(statval $f alloc_slowpath)" "alloc path=slab" || ok=1
	same "$(count slabx_free cache=demo path=sheaf)" \
		"$(statval $f free_fastpath)" "free path=sheaf" || ok=1
	same "$(count slabx_sheaf_refill cache=demo)" \
		"$(statval $f sheaf_refill)" sheaf_refill || ok=1
	same "$(count slabx_sheaf_flush cache=demo)" \
		"$(statval $f sheaf_flush)" sheaf_flush || ok=1
	same "$(count slabx_barn_get cache=demo success=1)" \
		"$(statval $f barn_get)" barn_get || ok=1
	same "$(count slabx_barn_put cache=demo success=1)" \
		"$(statval $f barn_put)" barn_put || ok=1
	[ "$(count slabx_sheaf_refill cache=demo)" -gt 0 ] ||
		{ ktap_print_msg "no sheaf refill"; ok=1; }
	# Objects moved: at most a sheaf each, and as many as taken from them.
	[ "$(sum slabx_sheaf_refill objects)" -ge \
	  "$(count slabx_alloc cache=demo path=sheaf)" ] ||
		{ ktap_print_msg "refills moved too few objects"; ok=1; }
	bad=$(grep ' slabx_alloc: cache=demo ' $TMP.trace |
	      grep -cv ' node=[0-9]* path=\(sheaf\|slab\)$')
	[ "$bad" = 0 ] || { ktap_print_msg "$bad allocations with a bad node or path"; ok=1; }
	ktap_print_msg "demo: $(count slabx_alloc cache=demo) allocs ($(count slabx_alloc cache=demo path=sheaf) sheaf), $(count slabx_free cache=demo) frees, $(count slabx_sheaf_refill cache=demo) refills moving $(sum slabx_sheaf_refill objects)"
	[ $ok = 0 ] || { sed 's/^/# /' $f; head -n 5 $TMP.trace | sed 's/^/# /'; }
	# The destroy flushes the sheaves the demo left.
	trace_start slabx_sheaf_flush slabx_free
	rmmod slabx_demo || ok=1
	trace_stop
	[ "$(count slabx_free cache=demo)" = $N ] ||
		{ ktap_print_msg "unload freed $(count slabx_free cache=demo), not $N"; ok=1; }
	[ "$(count slabx_sheaf_flush cache=demo)" -gt 0 ] ||
		{ ktap_print_msg "destroy flushed no sheaf"; ok=1; }
	rmmod slabx || ok=1
	return $ok
}

# Events that are off record nothing.
disabled_silent()
{
	local ok=0

	slabx_load slabx || return 1
	trace_start
	slabx_load slabx_demo nr_objects=$N || ok=1
	rmmod slabx_demo || ok=1
	trace_stop
	if grep -q ' slabx_' $TMP.trace; then
		ktap_print_msg "$(grep -c ' slabx_' $TMP.trace) slabx events with every event off"
		ok=1
	fi
	rmmod slabx || ok=1
	return $ok
}

# slabx_free_rcu() of 15 objects into sheaves of 4: each rcu_free sheaf
# queued is completed after its grace period, with its objects and wait.
rcu_sheaf_events()
{
	local ok=0 f=$DBG/trace_rcu/stats sub ndone

	slabx_load slabx || return 1
	trace_start enable
	slabx_load slabx_trace_helper || ok=1
	trace_stop
	sub=$(count slabx_rcu_sheaf_submit cache=trace_rcu)
	ndone=$(count slabx_rcu_sheaf_done cache=trace_rcu)
	same "$sub" "$(statval $f rcu_sheaf_submitted)" rcu_sheaf_submit || ok=1
	same "$ndone" "$sub" "rcu_sheaf_done, against submit," || ok=1
	[ "$sub" -ge 4 ] || { ktap_print_msg "only $sub sheaves queued"; ok=1; }
	same "$(sum slabx_rcu_sheaf_done objects)" "$(statval $f free_rcu_sheaf)" \
		"objects of rcu_sheaf_done" || ok=1
	[ "$(grep ' slabx_rcu_sheaf_done: ' $TMP.trace | grep -c ' wait_ns=0 ')" = 0 ] ||
		{ ktap_print_msg "a completion without a wait"; ok=1; }
	ktap_print_msg "rcu: $sub sheaves, $(sum slabx_rcu_sheaf_done objects) objects, waits $(sum slabx_rcu_sheaf_done wait_ns) ns in all"
	# Any context: every object through slabx_alloc_nolock().
	f=$DBG/trace_nolock/stats
	same "$(count slabx_alloc cache=trace_nolock path=nolock)" \
		"$(statval $f alloc_nolock)" "alloc path=nolock" || ok=1
	[ "$(statval $f alloc_nolock)" -gt 0 ] || ok=1
	# The pool-mode cache: 16 objects out, one miss, 16 back.
	f=$DBG/trace_pool/stats
	same "$(count slabx_alloc cache=trace_pool path=pool)" "$(statval $f alloc)" \
		"alloc path=pool" || ok=1
	same "$(count slabx_free cache=trace_pool path=pool)" "$(statval $f free)" \
		"free path=pool" || ok=1
	[ "$(count slabx_objpool_miss)" -ge 1 ] ||
		{ ktap_print_msg "no objpool miss"; ok=1; }
	[ $ok = 0 ] || grep -v 'slabx_alloc\|slabx_free' $TMP.trace | head -n 20 | sed 's/^/# /'
	rmmod slabx_trace_helper || ok=1
	rmmod slabx || ok=1
	return $ok
}

ktap_print_header
slabx_require slabx_demo slabx_trace_helper
trap 'rm -f $TMP.*' EXIT
ktap_set_plan 3
# A kernel without tracing (the kcsan test kernel) lacks what each case
# tests: each one skips, the file does not.
if ! find_tracefs; then
	for c in "demo events match its stats" "disabled events record nothing" \
		 "rcu_free sheaf, nolock and pool events"; do
		ktap_test_skip "$c: no tracefs (no CONFIG_EVENT_TRACING)"
	done
	ktap_finished
fi
# The events come with slabx: look for them once it is loaded.
if slabx_load slabx && [ -d $T/events/slabx ] && rmmod slabx; then
	# Room for the demo's events; the size is given back after.
	size=$(cat $T/buffer_size_kb)
	echo 4096 > $T/buffer_size_kb
	ktap_test_result "demo events match its stats" demo_events
	ktap_test_result "disabled events record nothing" disabled_silent
	ktap_test_result "rcu_free sheaf, nolock and pool events" rcu_sheaf_events
	echo "${size%% *}" > $T/buffer_size_kb
else
	rmmod slabx 2> /dev/null
	ktap_test_fail "slabx has no events in $T/events/slabx"
	ktap_test_skip "disabled events record nothing"
	ktap_test_skip "rcu_free sheaf, nolock and pool events"
fi
ktap_finished

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of make bench's report (scripts/bench-report.sh) on the
# results of real boots (fixtures/: three of the perf view, two of
# um-perf): the figures of a boot, the medians over the boots against
# expected.tsv (checked by hand: the 64 B pair's ratios 0.943, 1.094 and
# 1.015 give 1.015 [0.943, 1.094]; 1.570 and 1.614 give 1.592), and the
# chart. Prints "bench-report: N passed, N failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../scripts/bench-report.sh
. "$here/../../scripts/bench-report.sh"

fx=$here/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

result()
{
	if [ "$1" -eq 0 ]; then
		echo "ok $2"
		passed=$((passed + 1))
	else
		echo "not ok $2"
		failed=$((failed + 1))
	fi
}

# One boot: every pattern's three ratios, the objpool lines keyed by CPUs,
# and the time until freed objects are reusable (22319 us over 14738 us).
figures_of_one_boot()
{
	figures "$fx/perf-boot1.txt" > "$tmp/one"
	grep -qxP 'size 64 pair slabx/kernel\t0.943' "$tmp/one" &&
	grep -qxP 'size 64 pair slabx/floor\t5.56' "$tmp/one" &&
	grep -qxP 'size 64 pair kernel/floor\t5.89' "$tmp/one" &&
	grep -qP '^size 256 allcpus slabx/kernel\t' "$tmp/one" &&
	grep -qP '^objpool pop\+push 1cpu slabx/lib\t' "$tmp/one" &&
	grep -qP '^objpool pop\+push allcpus slabx/lib\t' "$tmp/one" &&
	grep -qxP 'size 64 free_rcu-reusable slabx/kernel\t1.514' "$tmp/one" &&
	[ "$(grep -c . "$tmp/one")" -eq 35 ]
}

medians_over_boots()
{
	{
		for b in 1 2 3; do figures "$fx/perf-boot$b.txt"; done |
			aggregate perf
		for b in 1 2; do figures "$fx/um-perf-boot$b.txt"; done |
			aggregate um-perf
	} > "$tmp/results.tsv"
	diff -u "$here/expected.tsv" "$tmp/results.tsv"
}

# Every slabx/peer figure is a bar, in both views where both have it,
# with its range over the boots; objpool's throughput ratios inverted,
# their range too (1/1.488 = 0.672, 1/1.687 = 0.593, 1/1.443 = 0.693),
# so that below 1 is slabx better on every bar.
chart_has_every_figure()
{
	local f

	chart "$here/expected.tsv" "$tmp/ratios.svg" "$tmp/chart.tsv" || return 1
	grep -q '<svg' "$tmp/ratios.svg" || return 1
	[ "$(head -1 "$tmp/chart.tsv")" = "figure	kind	perf	perf.min	perf.max	um-perf	um-perf.min	um-perf.max" ] ||
		return 1
	[ "$(grep -c . "$tmp/chart.tsv")" -eq 20 ] || return 1
	grep -qxP 'objpool allcpus\ttime\t0.672\t0.593\t0.693\t0.998\t0.943\t1.058' \
		"$tmp/chart.tsv" || return 1
	grep -qxP '64 pair\ttime\t1.015\t0.943\t1.094\t1.592\t1.570\t1.614' \
		"$tmp/chart.tsv" || return 1
	for f in "64 pair" "256 batch1024" "64 free_rcu" \
		 "64 free_rcu-reusable" page "objpool+timer allcpus"; do
		grep -q ">$f<" "$tmp/ratios.svg" || { echo "no bar $f"; return 1; }
	done
}

# Bytes are no times: a memory figure goes to a panel of its own, with an
# axis of its own, and is no bar among the times.
chart_keeps_memory_apart()
{
	printf 'perf\t%s\t%s\n' \
		'size 64 pair slabx/kernel' '0.650	0.630	0.660	3' \
		'size 64 reserve-memory slabx/kernel' '0.977	0.977	0.977	3' \
		> "$tmp/mem.tsv"
	chart "$tmp/mem.tsv" "$tmp/mem.svg" "$tmp/mem-chart.tsv" || return 1
	grep -qxP '64 pair\ttime\t0.650\t0.630\t0.660' "$tmp/mem-chart.tsv" &&
	grep -qxP '64 reserve-memory\tmemory\t0.977\t0.977\t0.977' "$tmp/mem-chart.tsv" &&
	grep -q '>memory (bytes held)<' "$tmp/mem.svg" &&
	grep -q '>64 reserve-memory<' "$tmp/mem.svg"
}

# The reserve's lines: the pair's ratio, and the memory line (bytes) as a
# figure of its own, never mixed into the pair's.
reserve_lines()
{
	printf '%s\n' \
		'size   64 reserve   mempool   15.94 ns  slabx   10.39 ns  ratio 0.652  floor 1.26 ns  slabx/floor 8.19  mempool/floor 12.56' \
		'size   64 reserve memory: 100 x 16 objects: mempool 121600 B  slabx 118912 B  ratio 0.977' \
		> "$tmp/reserve.txt"
	figures "$tmp/reserve.txt" > "$tmp/reserve"
	grep -qxP 'size 64 reserve slabx/kernel\t0.652' "$tmp/reserve" &&
	grep -qxP 'size 64 reserve kernel/floor\t12.56' "$tmp/reserve" &&
	grep -qxP 'size 64 reserve-memory slabx/kernel\t0.977' "$tmp/reserve" &&
	[ "$(grep -c '^size 64 reserve slabx/kernel' "$tmp/reserve")" -eq 1 ]
}

# slabx_free_rcu() against slabx_free(): its own figure, not a bar of the
# chart (no kernel peer), and not taken for the kfree_rcu line; the line
# of sheaf counts is no figure.
free_rcu_plain_line()
{
	printf '%s\n' \
		'size   64 free_rcu  kfree_rcu    5.02 ns  slabx    6.99 ns  ratio 1.391' \
		'size   64 free_rcu  slabx over 20480 frees: 60 sheaves allocated, 40 of them large; after the grace period 20 kept in a barn, 96 barn sheaves filled from large ones, 40 flushed to the slabs' \
		'size   64 free_rcu  slabx_free    3.61 ns  slabx_free_rcu    6.99 ns  rcu/plain 1.936' \
		> "$tmp/plain.txt"
	figures "$tmp/plain.txt" > "$tmp/plain"
	grep -qxP 'size 64 free_rcu rcu/plain\t1.936' "$tmp/plain" &&
	grep -qxP 'size 64 free_rcu slabx/kernel\t1.391' "$tmp/plain" &&
	[ "$(grep -c . "$tmp/plain")" -eq 2 ]
}

# GFP_NOWAIT under pressure: the pair, the fill and the calls that get
# NULL, each a figure of its own; the line of pinned pages and objects per
# fill is no figure, nor the line of a figure not measured.
nowait_lines()
{
	printf '%s\n' \
		'size   64 nowait    489012 pages pinned; objects per fill kmem_cache 1984 slabx 2112' \
		'size   64 nowait    kmem_cache    9.12 ns  slabx    7.40 ns  ratio 0.811' \
		'size   64 nowaitfill kmem_cache   31.50 ns  slabx   22.05 ns  ratio 0.700' \
		'size   64 nowaitnull kmem_cache  812.00 ns  slabx  406.00 ns  ratio 0.500' \
		'size  256 nowaitnull not measured: pages came back in every round' \
		> "$tmp/nowait.txt"
	figures "$tmp/nowait.txt" > "$tmp/nowait"
	grep -qxP 'size 64 nowait slabx/kernel\t0.811' "$tmp/nowait" &&
	grep -qxP 'size 64 nowaitfill slabx/kernel\t0.7' "$tmp/nowait" &&
	grep -qxP 'size 64 nowaitnull slabx/kernel\t0.5' "$tmp/nowait" &&
	[ "$(grep -c . "$tmp/nowait")" -eq 3 ]
}

# The objpool modes of lib/test_objpool.c, each keyed by its name and its
# CPUs; the ring memory line is not a figure.
objpool_mode_lines()
{
	printf '%s\n' \
		'objpool: overrun        1 CPU  lib     1.20 Mpairs/s (1.20 per CPU)  slabx     2.40 Mpairs/s (2.40 per CPU)  ratio slabx/lib 2.013' \
		'objpool: overrun        2 CPUs lib     2.00 Mpairs/s (1.00 per CPU)  slabx     3.00 Mpairs/s (1.50 per CPU)  ratio slabx/lib 1.512' \
		'objpool: async+timer    1 CPU  lib     1.00 Mpairs/s (1.00 per CPU)  slabx     1.25 Mpairs/s (1.25 per CPU)  ratio slabx/lib 1.254' \
		'objpool: ring bytes, 1024 objects, 2 possible CPUs: lib 16416 slabx 17200 ratio slabx/lib 1.047' \
		> "$tmp/modes.txt"
	figures "$tmp/modes.txt" > "$tmp/modes"
	grep -qxP 'objpool overrun 1cpu slabx/lib\t2.013' "$tmp/modes" &&
	grep -qxP 'objpool overrun allcpus slabx/lib\t1.512' "$tmp/modes" &&
	grep -qxP 'objpool async\+timer 1cpu slabx/lib\t1.254' "$tmp/modes" &&
	[ "$(grep -c . "$tmp/modes")" -eq 3 ]
}

figures_of_one_boot
result $? "figures of one boot"
objpool_mode_lines
result $? "objpool mode lines"
reserve_lines
result $? "reserve lines"
free_rcu_plain_line
result $? "free_rcu plain line"
nowait_lines
result $? "nowait lines"
medians_over_boots
result $? "medians over the boots"
chart_has_every_figure
result $? "chart has every figure"
chart_keeps_memory_apart
result $? "chart keeps memory apart"
echo "bench-report: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

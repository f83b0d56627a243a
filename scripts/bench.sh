#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: the benchmarks (tests/slabx_bench.c, slabx_objpool_bench.c)
# in several views, each booted several times, and one report of the
# ratios: median over the boots, with the smallest and the largest.
#   perf:    the x86 perf kernel under QEMU TCG (calls, returns and atomics
#            cost far more than on hardware; SMP, NMIs)
#   um-perf: the same C at native speed under User-mode Linux, one CPU
#   stock-6.12: Debian's production 6.12 kernel under QEMU TCG (SLUB with
#            memcg, init_on_alloc, hardened free lists; slabx too honours
#            init_on_alloc there)
# Every ratio comes from one boot, where slabx, the kernel's allocator and
# the floor (a per-CPU array) ran alternately on the same CPU.
# SLABX_BENCH_VIEWS and SLABX_BENCH_BOOTS (default 3) change what runs;
# the table goes to stdout and build/bench/results.tsv (view, figure,
# median, min, max, boots), and a chart of the ratios to
# build/bench/ratios.svg (gnuplot).
set -euo pipefail
. "$(dirname "$0")/common.sh"

views=${SLABX_BENCH_VIEWS:-perf um-perf stock-6.12}
boots=${SLABX_BENCH_BOOTS:-3}
[ "$boots" -ge 1 ] 2>/dev/null ||
	{ echo "bench: SLABX_BENCH_BOOTS must be a number, at least 1" >&2; exit 1; }
out=$SLABX_OUT/bench
mkdir -p "$out"

# shellcheck source=bench-report.sh
. "$SLABX_TOP/scripts/bench-report.sh"

: > "$out/results.tsv.new"
for view in $views; do
	: > "$out/$view.figures"
	for boot in $(seq 1 "$boots"); do
		echo "bench: $view, boot $boot of $boots" >&2
		dir=$SLABX_OUT/$view-boot$boot-bench
		SLABX_VARIANT=boot$boot "$SLABX_TOP/scripts/run-tests.sh" "$view" bench \
			> /dev/null || { echo "bench: $view boot $boot failed" >&2; exit 1; }
		figures "$dir/results.txt" >> "$out/$view.figures"
	done
	aggregate "$view" < "$out/$view.figures" >> "$out/results.tsv.new"
done
mv "$out/results.tsv.new" "$out/results.tsv"

chart "$out/results.tsv" "$out/ratios.svg" "$out/chart.tsv" ||
	echo "bench: no chart (gnuplot failed)" >&2

awk -F '\t' '
	$1 != view { view = $1; printf "\n== %s: median [min, max] over %d boots\n", view, $6 }
	{ printf "%-36s %6.2f  [%.2f, %.2f]\n", $2, $3, $4, $5 }' "$out/results.tsv"
echo
echo "(ratios below 1 mean slabx is faster; results in $out/results.tsv)"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: the benchmarks (tests/slabx_bench.c, slabx_objpool_bench.c)
# in several views, each booted several times, and one report of the
# ratios: median over the boots, with the smallest and the largest.
#   perf:    the x86 perf kernel under QEMU TCG (calls, returns and atomics
#            cost far more than on hardware; SMP, NMIs)
#   um-perf: the same C at native speed under User-mode Linux, one CPU
# Every ratio comes from one boot, where slabx, the kernel's allocator and
# the floor (a per-CPU array) ran alternately on the same CPU.
# SLABX_BENCH_VIEWS and SLABX_BENCH_BOOTS (default 3) change what runs;
# the table goes to stdout and build/bench/results.tsv (view, figure,
# median, min, max, boots), and a chart of the ratios to
# build/bench/ratios.svg (gnuplot; installed if missing).
set -euo pipefail
. "$(dirname "$0")/common.sh"

views=${SLABX_BENCH_VIEWS:-perf um-perf}
boots=${SLABX_BENCH_BOOTS:-3}
[ "$boots" -ge 1 ] 2>/dev/null ||
	{ echo "bench: SLABX_BENCH_BOOTS must be a number, at least 1" >&2; exit 1; }
out=$SLABX_OUT/bench
mkdir -p "$out"

# The figures of one boot's results.txt, one "figure<TAB>value" per line.
figures()
{
	awk '
	function num(s) { sub(/[^0-9.]+$/, "", s); return s + 0 }
	/^size +[0-9]+ / && / ratio / {
		key = "size " $2 " " $3
		for (i = 1; i < NF; i++) {
			if ($i == "ratio") print key " slabx/kernel\t" num($(i + 1))
			if ($i == "slabx/floor") print key " slabx/floor\t" num($(i + 1))
			if ($i == "kmem_cache/floor") print key " kernel/floor\t" num($(i + 1))
		}
	}
	# One CPU, then all of them (with one CPU online both say "1 CPU").
	/^objpool: pop\+push/ && /ratio slabx\/lib/ {
		key = "objpool " $2 (seen[$2]++ ? " allcpus" : " 1cpu")
		print key " slabx/lib\t" num($NF)
	}' "$1"
}

# Median, min and max of the values of each figure over the boots, the
# figures in the order the benchmark printed them.
aggregate()
{
	awk -F '\t' -v view="$1" '
	!($1 in n) { order[++keys] = $1 }
	{ v[$1, ++n[$1]] = $2 }
	END {
		for (k = 1; k <= keys; k++) {
			key = order[k]
			m = n[key]
			for (i = 1; i <= m; i++) {
				x = v[key, i]
				for (j = i - 1; j > 0 && a[j] > x; j--)
					a[j + 1] = a[j]
				a[j + 1] = x
			}
			med = m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
			printf "%s\t%s\t%.3f\t%.3f\t%.3f\t%d\n", view, key, med, a[1], a[m], m
		}
	}'
}

# The slabx/peer ratios of results.tsv $1 as a bar chart, SVG $2: one
# group per figure, one bar per view, a line at 1. Every bar is a ratio of
# times (below 1: slabx faster); objpool's throughput ratios are inverted.
chart()
{
	local data=$out/chart.tsv

	command -v gnuplot > /dev/null || {
		[ "$(id -u)" -eq 0 ] &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends gnuplot-nox > /dev/null
	} || return 1
	awk -F '\t' '
	$2 ~ /slabx\/(kernel|lib)$/ {
		f = $2
		v = $3
		if (f ~ /slabx\/lib$/) { v = v > 0 ? 1 / v : 0; sub(/slabx\/lib$/, "lib/slabx", f) }
		sub(/ slabx\/kernel$/, "", f)
		sub(/^size /, "", f)
		sub(/^0 page$/, "page", f)
		sub(/^objpool pop\+push/, "objpool", f)
		sub(/ lib\/slabx$/, "", f)
		if (!(f in seen)) { seen[f] = 1; figs[++nf] = f }
		if (!($1 in vseen)) { vseen[$1] = 1; views[++nv] = $1 }
		val[f, $1] = v
	}
	END {
		printf "figure"
		for (j = 1; j <= nv; j++) printf "\t%s", views[j]
		printf "\n"
		for (i = 1; i <= nf; i++) {
			printf "%s", figs[i]
			for (j = 1; j <= nv; j++)
				printf "\t%s", ((figs[i], views[j]) in val) ? sprintf("%.3f", val[figs[i], views[j]]) : "-"
			printf "\n"
		}
	}' "$1" > "$data"
	gnuplot <<-EOF
	set terminal svg size 1200,520 dynamic font "sans,10" background rgb "white"
	set output "$2"
	set termoption noenhanced
	set title "slabx / kernel peer, time ratio, median of the boots (below 1: slabx faster; objpool: lib/slabx throughput)"
	set datafile separator "\t"
	set datafile missing "-"
	set style data histograms
	set style histogram clustered gap 1
	set style fill solid 0.8 border -1
	set xtics rotate by -40 scale 0
	set yrange [0:*]
	set grid ytics
	set key top left
	set arrow from graph 0, first 1 to graph 1, first 1 nohead dashtype 2 linewidth 2
	plot for [i=2:$(( $(head -1 "$data" | tr '\t' '\n' | wc -l) ))] "$data" using i:xtic(1) title columnheader(i)
	EOF
}

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

chart "$out/results.tsv" "$out/ratios.svg" ||
	echo "bench: no chart (gnuplot failed)" >&2

awk -F '\t' '
	$1 != view { view = $1; printf "\n== %s: median [min, max] over %d boots\n", view, $6 }
	{ printf "%-36s %6.2f  [%.2f, %.2f]\n", $2, $3, $4, $5 }' "$out/results.tsv"
echo
echo "(ratios below 1 mean slabx is faster; results in $out/results.tsv)"

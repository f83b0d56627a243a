# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The report of make bench (scripts/bench.sh): the figures of each boot,
# their medians over the boots, the chart. Sourced, not run; also by
# tests/bench/check.sh, which tests them on fixtures.

# The figures of one boot's results.txt, one "figure<TAB>value" per line.
figures()
{
	awk '
	function num(s) { sub(/[^0-9.]+$/, "", s); return s + 0 }
	/^size +[0-9]+ / && / ratio / {
		key = "size " $2 " " $3
		# "size N reserve memory: ...": bytes, not time.
		if ($4 == "memory:")
			key = key "-memory"
		for (i = 1; i < NF; i++) {
			if ($i == "ratio") print key " slabx/kernel\t" num($(i + 1))
			if ($i == "slabx/floor") print key " slabx/floor\t" num($(i + 1))
			if ($i == "kmem_cache/floor" || $i == "kmalloc/floor" ||
			    $i == "mempool/floor")
				print key " kernel/floor\t" num($(i + 1))
		}
	}
	# "size N free_rcu peak pages ...; reusable after kfree_rcu X us
	# slabx Y us; ...": how long after the last free everything is free
	# again, slabx over the kernel.
	/^size +[0-9]+ free_rcu +peak pages / {
		for (i = 1; i + 6 <= NF; i++)
			if ($i == "reusable" && $(i + 3) > 0)
				printf "size %s free_rcu-reusable slabx/kernel\t%.3f\n",
				       $2, $(i + 6) / $(i + 3)
	}
	# "size N free_rcu slabx_free X ns slabx_free_rcu Y ns rcu/plain R":
	# what the grace period adds to slabx_free(), no kernel peer.
	/^size +[0-9]+ free_rcu +slabx_free / {
		for (i = 1; i < NF; i++)
			if ($i == "rcu/plain")
				print "size " $2 " free_rcu rcu/plain\t" num($(i + 1))
	}
	# "reserve scaling: 1048576/16 objects: take+put ratio X
	# reserve+unreserve ratio Y": the cost of the reserve at its largest size
	# over its smallest, no kernel peer (flat: about 1).
	/^reserve scaling: / {
		for (i = 1; i < NF; i++)
			if ($i == "ratio")
				print "reserve scaling " $(i - 1) " large/small\t" num($(i + 1))
	}
	# Each mode on one CPU, then all of them (with one CPU online both
	# say "1 CPU"); not the ring memory line.
	/^objpool: / && /Mpairs\/s/ && /ratio slabx\/lib/ {
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

# The slabx/peer ratios of results.tsv $1 as a bar chart, SVG $2 (its
# data, as gnuplot reads it, in $3): one
# group per figure, one bar per view, a line at 1. Every bar is a ratio of
# times (below 1: slabx faster); objpool's throughput ratios are inverted.
chart()
{
	local data=$3

	# scripts/deps.sh installs gnuplot-nox.
	command -v gnuplot > /dev/null || return 1
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

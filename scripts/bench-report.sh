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

# The slabx/peer ratios of results.tsv $1 as a chart, SVG $2, its data
# in $3 (one row per figure: figure, kind, then median, min and max per
# view, "-" where a view lacks it; $3.plot: the same, one row per bar, as
# gnuplot reads it). Every ratio is one of times or bytes, slabx over
# the peer, so below 1 is slabx better everywhere: objpool's throughput
# ratios are inverted. Horizontal bars from 1 on a log axis centred on 1,
# one per view, with the range of the boots; bytes (kind memory) in a
# panel of their own below the times.
chart()
{
	local data=$3 plot=$3.plot rows mem views names

	# scripts/deps.sh installs gnuplot-nox.
	command -v gnuplot > /dev/null || return 1
	awk -F '\t' -v plot="$plot" '
	$2 ~ /slabx\/(kernel|lib)$/ {
		f = $2
		med = $3; lo = $4; hi = $5
		if (f ~ /slabx\/lib$/) {
			med = med > 0 ? 1 / med : 0
			t = lo; lo = hi > 0 ? 1 / hi : 0; hi = t > 0 ? 1 / t : 0
			sub(/slabx\/lib$/, "lib/slabx", f)
		}
		sub(/ slabx\/kernel$/, "", f)
		sub(/^size /, "", f)
		sub(/^0 page$/, "page", f)
		sub(/^objpool pop\+push/, "objpool", f)
		sub(/ lib\/slabx$/, "", f)
		kind = f ~ /-memory$/ ? "memory" : "time"
		if (!(f in seen)) { seen[f] = 1; figs[++nf] = f; kinds[f] = kind }
		if (!($1 in vseen)) { vseen[$1] = 1; views[++nv] = $1 }
		val[f, $1] = sprintf("%.3f\t%.3f\t%.3f", med, lo, hi)
	}
	END {
		printf "figure\tkind"
		for (j = 1; j <= nv; j++)
			printf "\t%s\t%s.min\t%s.max", views[j], views[j], views[j]
		printf "\n"
		for (i = 1; i <= nf; i++) {
			f = figs[i]
			printf "%s\t%s", f, kinds[f]
			for (j = 1; j <= nv; j++)
				printf "\t%s", ((f, views[j]) in val) ? val[f, views[j]] : "-\t-\t-"
			printf "\n"
			# One bar per view: its row in its panel, then the bar.
			row[kinds[f]]++
			for (j = 1; j <= nv; j++)
				if ((f, views[j]) in val)
					printf "%s\t%d\t%s\t%d\t%s\n", kinds[f],
					       row[kinds[f]], f, j, val[f, views[j]] > plot
		}
	}' "$1" > "$data"
	[ -s "$plot" ] || return 1
	rows=$(awk -F '\t' '$1 == "time" { n = $2 } END { print n + 0 }' "$plot")
	mem=$(awk -F '\t' '$1 == "memory" { n = $2 } END { print n + 0 }' "$plot")
	views=$(head -1 "$data" | awk -F '\t' '{ print (NF - 2) / 3 }')
	# The figures' names at their rows, for each panel.
	tics()
	{
		awk -F '\t' -v k="$1" '$1 == k && !seen[$2]++ {
			printf "%s\"%s\" %d", n++ ? ", " : "", $3, $2 }' "$plot"
	}
	# A panel's axis: powers of 2 either side of 1, wide enough for every
	# range of its kind.
	range()
	{
		awk -F '\t' -v k="$1" '
		function far(x) { return x > 0 ? (x >= 1 ? x : 1 / x) : 1 }
		$1 == k { for (i = 5; i <= 7; i++) if (far($i) > r) r = far($i) }
		END { p = 2; while (p < r * 1.05) p *= 2; print p }' "$plot"
	}
	# The tics of an axis reaching $1 either side of 1, as fractions below
	# 1: "1/4" 0.25, ... "1" 1, ... "4" 4.
	xtics()
	{
		awk -v r="$1" 'BEGIN {
			for (p = r; p >= 2; p /= 2) printf "\"1/%d\" %g, ", p, 1 / p
			for (p = 1; p < r; p *= 2) printf "\"%d\" %d, ", p, p
			printf "\"%d\" %d", r, r }'
	}
	names=$(head -1 "$data" | awk -F '\t' '{ for (i = 3; i <= NF; i += 3) printf "%s ", $i }')
	# The gnuplot lines of one panel: the bars of kind $1, $2 rows of
	# them, titled $3, the panel's bottom at $4 (a fraction of the whole).
	panel()
	{
		local r

		r=$(range "$1")
		cat <<-EOF
		set size 1, ($2 + 4) / total
		set origin 0, $4
		set title "$3"
		set xrange [1.0 / $r:$r]
		set xtics ($(xtics "$r"))
		set yrange [$2 + 0.5:0.5]
		set ytics scale 0 ($(tics "$1"))
		plot for [j=1:$views] "$plot" using (strcol(1) eq "$1" && \$4 == j ? \$5 : 1/0):(y(\$2, j)):(lo(\$5)):(hi(\$5)):(y(\$2, j) - h / 2):(y(\$2, j) + h / 2) with boxxyerror fill solid 0.7 title word("$names", j), \\
		     for [j=1:$views] "$plot" using (strcol(1) eq "$1" && \$4 == j ? \$5 : 1/0):(y(\$2, j)):6:7 with xerrorbars linecolor rgb "black" pointtype 0 notitle
		EOF
	}
	gnuplot <<-EOF
	set terminal svg size 1100,$((160 + 10 * views * (rows + mem) + 120 * (mem > 0))) dynamic font "sans,11" background rgb "white"
	set output "$2"
	set termoption noenhanced
	set datafile separator "\t"
	set logscale x 2
	set grid xtics
	set lmargin 26
	set rmargin 4
	set key outside top center horizontal
	h = 0.8 / $views
	y(r, j) = r + (j - ($views + 1) / 2.0) * h
	lo(m) = m < 1 ? m : 1
	hi(m) = m < 1 ? 1 : m
	# Each panel as high as its rows, the title above them.
	total = $((rows + mem)) + 4.0 * ($mem > 0) + 6
	set multiplot title "slabx / kernel peer, median of the boots, bars from the fastest to the slowest boot (log scale; below 1: slabx better)"
	set arrow 1 from 1, graph 0 to 1, graph 1 nohead dashtype 2 linewidth 2
	$(panel time "$rows" "time (objpool: throughput, inverted)" "1 - ($rows + 6) / total")
	$([ "$mem" -eq 0 ] || { echo "set key off"; panel memory "$mem" "memory (bytes held)" 0; })
	unset multiplot
	EOF
}

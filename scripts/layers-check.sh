#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The layering of Documentation/design.md ("Layers"), checked on the
# objects of slabx.ko: every function or variable an object uses from
# another object of the module (nm -u against nm --defined-only) must be
# of its own layer or a lower one, or listed there as a call up, with the
# file that defines it. The tracepoints, defined in cache.c for all, are
# every layer's. Built for Debian's stock 6.12, as fastpath-check.sh.
# Usage: scripts/layers-check.sh [dir of slabx.ko's objects]
#   -> prints every call the table does not allow; exits 1 if any.
set -euo pipefail
. "$(dirname "$0")/common.sh"

dir=${1:-}
doc=$SLABX_TOP/Documentation/design.md
if [ -z "$dir" ]; then
	dir=$(stock_module_dir) ||
		{ echo "$dir"; echo "layers-check: build failed"; exit 1; }
fi

# The two tables, from the section "Layers" of design.md:
#   | N | `a.c`, `b.c` |             -> "layer a.c N"
#   | `sym()` | `file.c` | why |     -> "up sym file.c"
rules=$(awk '
	/^## / { in_layers = ($0 == "## Layers") }
	!in_layers || !/^\| / { next }
	$2 ~ /^[0-9]+$/ {
		n = split($0, cell, "|"); files = cell[3]
		gsub(/[`, ]+/, " ", files); m = split(files, f, " ")
		for (i = 1; i <= m; i++) print "layer", f[i], $2
		next
	}
	$2 ~ /^`[a-z_0-9]+(\(\))?`$/ && $4 ~ /^`[a-z_0-9]+\.c`$/ {
		sym = $2; file = $4
		gsub(/[`()]/, "", sym); gsub(/`/, "", file)
		print "up", sym, file
	}' "$doc")
[ -n "$rules" ] || { echo "layers-check: no \"## Layers\" tables in $doc"; exit 1; }

# The module's objects, each named by its source.
# The lines of slabx-y, up to the first that does not go on.
objs=$(awk '/^slabx-y / { on = 1 } on { print; if (!/\\$/) exit }' \
	"$SLABX_TOP/Kbuild" | grep -o '[a-z_]*\.o')
src_of() { echo "${1%.o}.c"; }

defs=$(for o in $objs; do
	nm --defined-only "$dir/$o" |
		awk -v f="$(src_of "$o")" '$2 ~ /^[TDBR]$/ { print $3, f }'
done)

bad=0
for o in $objs; do
	from=$(src_of "$o")
	nm -u "$dir/$o" | awk '{ print $2 }' |
	awk -v from="$from" -v rules="$rules" -v defs="$defs" '
	BEGIN {
		n = split(rules, r, "\n")
		for (i = 1; i <= n; i++) {
			split(r[i], w, " ")
			if (w[1] == "layer") layer[w[2]] = w[3]
			else up[w[2]] = w[3]
		}
		n = split(defs, d, "\n")
		for (i = 1; i <= n; i++) { split(d[i], w, " "); def[w[1]] = w[2] }
		if (!(from in layer)) { print from ": in no layer of design.md"; bad = 1 }
	}
	{
		to = def[$1]
		if (to == "" || to == from) next
		if (!(to in layer)) { print to ": in no layer of design.md"; bad = 1; next }
		if (layer[to] <= layer[from]) next
		if ($1 ~ /^(__tracepoint|__traceiter|__SCK__tp_func|__SCT__tp_func)_slabx_/) next
		if (up[$1] == to) next
		print from " (layer " layer[from] ") calls up to " to \
		      " (layer " layer[to] "): " $1
		bad = 1
	}
	END { exit bad }' || bad=1
done
exit $bad

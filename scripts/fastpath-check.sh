#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The fast path's rule, checked on the machine code: slabx_alloc() and
# slabx_free() save no register (no push: the sheaf pop and push need
# only the caller-saved ones) and call nothing but ftrace's entry, the
# preemption thunk (which saves what it uses) and the printk of a
# WARN(). And no timed entry point crosses a 4 KiB page (QEMU TCG runs
# such code much slower, see __slabx_hot()): each section of
# __slabx_hot() starts a page and fits in it, and the other entry points
# that make bench times fit in a page of .text. Checked on slabx.ko built
# for Debian's stock 6.12, as users run it: the debug kernels' KASAN and
# lockdep add calls on purpose.
# Usage: scripts/fastpath-check.sh [slabx.ko]   (default: build one)
#   -> prints what breaks the rule; exits 1 if anything does.
set -euo pipefail
. "$(dirname "$0")/common.sh"

ko=${1:-}
if [ -z "$ko" ]; then
	dir=$(stock_module_dir) ||
		{ echo "$dir"; echo "fastpath-check: build failed"; exit 1; }
	ko=$dir/slabx.ko
fi
bad=0
for fn in alloc free; do
	# Each entry point has a section of its own (__slabx_hot()).
	objdump -dr --no-show-raw-insn -j ".text.slabx_hot.$fn" "$ko" |
	awk -v fn="slabx_$fn" '
	index($0, "<" fn ">:") { seen = 1 }
	/\tpush/ { print fn ": saves a register: " $0; bad = 1 }
	/\tcall / {
		if ($0 ~ /\*/) { print fn ": indirect call: " $0; bad = 1 }
		else call = $0
		next
	}
	call != "" && /R_X86_64_(PLT32|PC32)/ {
		sym = $NF; sub(/[-+]0x[0-9a-f]+$/, "", sym)
		if (sym !~ /^(__fentry__|__SCT__preempt_schedule(_notrace)?|__warn_printk)$/) {
			print fn ": calls " sym ": " call; bad = 1
		}
		call = ""
	}
	END {
		if (!seen) { print fn ": not found in its section"; bad = 1 }
		exit bad
	}' || bad=1
done

# mawk has no strtonum(): hex() reads the hex numbers of readelf and nm.
hex_awk='
	function hex(s,   i, n) {
		n = 0; s = tolower(s)
		for (i = 1; i <= length(s); i++)
			n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return n
	}
'

# The hot sections: aligned to a page, none larger than one.
readelf -S -W "$ko" | awk "$hex_awk"'
	$2 ~ /^\.text\.slabx_hot\./ {
		size = hex($6); align = $NF
		if (align != 4096 || size > 4096) {
			print $2 ": " size " bytes, aligned to " align \
			      ": it must start a page and fit in it"
			bad = 1
		}
	}
	END { exit bad }' || bad=1
# The timed entry points in .text, which the module loader places at the
# start of a page: none crosses one.
nm -S "$ko" | awk "$hex_awk"'
	$4 ~ /^slabx_(alloc_reserved|free_reserved|free_rcu|alloc_bulk|free_bulk)$/ {
		start = hex($1); end = start + hex($2) - 1
		if (int(start / 4096) != int(end / 4096)) {
			print $4 ": crosses a 4 KiB page of .text (" $1 ", " \
			      hex($2) " bytes): give it __slabx_hot()"
			bad = 1
		}
	}
	END { exit bad }' || bad=1
exit $bad

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The fast path's rule, checked on the machine code: slabx_alloc() and
# slabx_free() save no register (no push: the sheaf pop and push need
# only the caller-saved ones) and call nothing but ftrace's entry, the
# preemption thunk (which saves what it uses) and the printk of a
# WARN(). Checked on slabx.ko built for Debian's stock 6.12, as users
# run it: the debug kernels' KASAN and lockdep add calls on purpose.
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
exit $bad

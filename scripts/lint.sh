#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Static checks; any warning fails:
#   - W=1 build and sparse (C=2) against the debug kernel, from scratch
#   - checkpatch.pl --strict on every C source and header, tools/ included
#   - kernel-doc on every C source and header
#   - the fast path's rule on slabx.ko's machine code (fastpath-check.sh)
#   - the layering of design.md on slabx.ko's objects (layers-check.sh)
#   - shellcheck on every shell script
#   - the user's documents name only what exists (docs-check.py)
set -euo pipefail
. "$(dirname "$0")/common.sh"

kdir=$("$SLABX_TOP/scripts/kernel.sh" debug)
src=$(src_dir "$TOOLS_SERIES")
command -v shellcheck > /dev/null || "$SLABX_TOP/scripts/deps.sh" >&2
cd "$SLABX_TOP"
shopt -s nullglob
# Plain relative paths: checkpatch's checks of file names do not see a
# name given as ./name.
files=(*.c *.h tests/*.c tests/*.h examples/*/*.c)
# The bash scripts, and the sh of the guest's busybox and of the kselftests
# (scripts/guest-init.sh and tests/selftests/ name their sh in a directive
# for shellcheck).
scripts=(scripts/*.sh tests/selftests/*.sh tests/bench/*.sh tests/splats/*.sh .ci/run)
fail=0

report()
{
	if [ -s "$2" ]; then
		echo "lint: $1:" >&2
		cat "$2" >&2
		fail=1
	else
		echo "lint: $1: clean" >&2
	fi
}

log=$(mktemp)
trap 'rm -f "$log"' EXIT

# A separate output tree, rebuilt from scratch, so every file is compiled
# and checked with these flags.
rm -rf "$SLABX_OUT/lint"
SLABX_OUT=$SLABX_OUT/lint KDIR=$kdir scripts/build-module.sh debug W=1 C=2 \
	> /dev/null 2> "$log" || echo "build failed" >> "$log"
report "W=1 + sparse" "$log"

# --no-tree: out of tree. FILE_PATH_CHANGES and SPDX are about in-tree
# files; the kernel's own file list does not know ours.
: > "$log"
for f in "${files[@]}"; do
	"$src/scripts/checkpatch.pl" --strict --no-tree --quiet --terse \
		--ignore FILE_PATH_CHANGES -f "$f" 2>&1 |
		grep -E ': (ERROR|WARNING|CHECK):' >> "$log" || true
done
# The userspace tools in kernel style too; they define the kernel's
# __printf() themselves, which checkpatch would have them use.
for f in tools/*/*.c tools/*/tests/*.c; do
	"$src/scripts/checkpatch.pl" --strict --no-tree --quiet --terse \
		--ignore FILE_PATH_CHANGES,PREFER_DEFINED_ATTRIBUTE_MACRO \
		-f "$f" 2>&1 | grep -E ': (ERROR|WARNING|CHECK):' >> "$log" || true
done
report "checkpatch --strict" "$log"

"$src/scripts/kernel-doc" -none -Wall "${files[@]}" > "$log" 2>&1 || true
report "kernel-doc" "$log"

"$SLABX_TOP/scripts/fastpath-check.sh" > "$log" 2>&1 || true
report "fast path (no register saved, no call)" "$log"

"$SLABX_TOP/scripts/layers-check.sh" > "$log" 2>&1 || true
report "layers (no call up a layer)" "$log"

# -x -P SCRIPTDIR: follow what a script sources from its own directory.
# A sourced bash file (scripts/common.sh) has no #! line to say it is bash.
: > "$log"
for f in "${scripts[@]}"; do
	opts=(-x -P SCRIPTDIR -f gcc)
	head -n 1 "$f" | grep -q '^#!' || grep -q '^# shellcheck shell=' "$f" ||
		opts+=(-s bash)
	shellcheck "${opts[@]}" "$f" >> "$log" 2>&1 || true
done
report "shellcheck" "$log"

python3 "$SLABX_TOP/scripts/docs-check.py" 2>&1 | grep -v '^docs: 0 problems$' > "$log" || true
report "docs (README.md, Documentation/ name what exists)" "$log"

exit $fail

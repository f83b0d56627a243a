#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Everything `make check` runs: static checks, the userspace models, then
# the KUnit suites and kselftests on every kernel flavour. Runs all of it
# even after a failure; the last line printed is "N passed, N failed" over
# the model runs and the KUnit and kselftest cases of all flavours (also in
# build/check-summary).
set -uo pipefail
. "$(dirname "$0")/common.sh"

flavours=${SLABX_FLAVOURS:-debug rt kcsan um}
mkdir -p "$SLABX_OUT"
rm -f "$SLABX_OUT/check-summary"
fail=0
passed=0
failed=0

"$SLABX_TOP/scripts/lint.sh" || { echo "check: lint failed" >&2; fail=1; }

# Userspace models of the lockless structures: the same code, pthreads.
model=$(make -s -C "$SLABX_TOP/tests/userspace" check 2>&1 | tee /dev/stderr |
	sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' | tail -1)
read -r p q <<< "${model:-0 1}"
[ "$q" -eq 0 ] || { echo "check: userspace model failed" >&2; fail=1; }
passed=$((passed + p))
failed=$((failed + q))

for f in $flavours; do
	rm -f "$SLABX_OUT/$f-check/counts"
	"$SLABX_TOP/scripts/run-tests.sh" "$f" check ||
		{ echo "check: $f failed" >&2; fail=1; }
	if [ -f "$SLABX_OUT/$f-check/counts" ]; then
		read -r p q < "$SLABX_OUT/$f-check/counts"
	else
		p=0 q=1
	fi
	passed=$((passed + p))
	failed=$((failed + q))
done

[ $fail -eq 0 ] || [ $failed -gt 0 ] || failed=1
echo "$passed passed, $failed failed" | tee "$SLABX_OUT/check-summary"
exit $fail

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Everything `make check` runs: static checks, the userspace models, then
# the KUnit suites and kselftests on every kernel flavour, then slabx in
# Debian's stock kernels (scripts/check-distro.sh). Runs all of it
# even after a failure; the last line printed is "N passed, N failed" over
# the model runs and the KUnit and kselftest cases of all flavours (also in
# build/check-summary).
set -uo pipefail
. "$(dirname "$0")/common.sh"

flavours=${SLABX_FLAVOURS:-debug debug-6.1 rt kcsan um}
mkdir -p "$SLABX_OUT"
rm -f "$SLABX_OUT/check-summary"
fail=0
passed=0
failed=0

"$SLABX_TOP/scripts/lint.sh" || { echo "check: lint failed" >&2; fail=1; }

# Userspace checks of the lockless structures, on the same code: each
# program's "N passed, M failed" line is summed; no line, or an error
# exit with none failed (a crash), counts as a failure.
model=$(make -s -C "$SLABX_TOP/tests/userspace" check 2>&1 | tee /dev/stderr |
	sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' |
	awk '{ p += $1; q += $2; n++ } END { if (n) print p, q }') ||
	model="${model:-0 0} error"
read -r p q err <<< "${model:-0 1}"
[ -z "$err" ] || [ "$q" -gt 0 ] || q=1
[ "$q" -eq 0 ] || { echo "check: userspace model failed" >&2; fail=1; }
passed=$((passed + p))
failed=$((failed + q))

# slabxinfo's host tests: its parsing and figures on captured debugfs trees.
mkdir -p "$SLABX_OUT/slabxinfo"
info=$(make -s -C "$SLABX_TOP/tools/slabxinfo" O="$SLABX_OUT/slabxinfo" check 2>&1 |
	tee /dev/stderr | sed -n 's/^slabxinfo: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' | tail -1)
read -r p q <<< "${info:-0 1}"
[ "$q" -eq 0 ] || { echo "check: slabxinfo tests failed" >&2; fail=1; }
passed=$((passed + p))
failed=$((failed + q))

# make bench's report (medians, chart) on the figures of real boots.
report=$("$SLABX_TOP/tests/bench/check.sh" 2>&1 | tee /dev/stderr |
	sed -n 's/^bench-report: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
read -r p q <<< "${report:-0 1}"
[ "$q" -eq 0 ] || { echo "check: bench report tests failed" >&2; fail=1; }
passed=$((passed + p))
failed=$((failed + q))

# How a guest's console log is judged: each kind of splat fails a run.
splats=$("$SLABX_TOP/tests/splats/check.sh" 2>&1 | tee /dev/stderr |
	sed -n 's/^splats: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
read -r p q <<< "${splats:-0 1}"
[ "$q" -eq 0 ] || { echo "check: splat tests failed" >&2; fail=1; }
passed=$((passed + p))
failed=$((failed + q))

# One guest run: FLAVOUR, then optionally a VARIANT name and its kernel
# command line (see run-tests.sh); its counts are added to the totals.
run_guest()
{
	local f=$1 variant=${2:-} dir

	dir=$SLABX_OUT/$f${variant:+-$variant}-check
	rm -f "$dir/counts"
	SLABX_VARIANT=$variant SLABX_CMDLINE=${3:-} \
		"$SLABX_TOP/scripts/run-tests.sh" "$f" check ||
		{ echo "check: $f ${variant:-} failed" >&2; fail=1; }
	add_counts "$dir/counts"
}

for f in $flavours; do
	run_guest "$f"
done

# The suites in the order of the other boots (nolock before rcu): after
# the rcu suite's full_sheaves_go_home and rcu_wait_profile, this boot's
# watermark_refill saw no reserve refill within 12 s (an open bug, see
# the closing note of 2026-12-05; not seen in any other boot or order).
# kmemleak on (the debug kernel has it, off unless asked for): the
# kselftests and the suites that cover every path an object takes; the
# stress suites would take too long with kmemleak under TCG. 4 vCPUs, not
# 8: kmemleak serialises every allocation, and 8 vCPUs on 2 host cores
# then starve the kernel's own RCU at boot (a stall before slabx loads).
[[ " $flavours " != *" debug "* ]] ||
	SLABX_CPUS=4 run_guest debug kmemleak "kmemleak=on slabx.tests=slabx_test,slabx_sheaf_test,slabx_nolock_test,slabx_rcu_test,slabx_objpool_test,slabx_checkers_test,slabx_kmalloc_test,slabx_reserve_test"

# The rcu_free suite once more with every CPU's RCU callbacks offloaded to
# rcuo kthreads (as on Android): full rcu_free sheaves must still reach
# the barn of their node. The boot must say that it offloads all 8 CPUs.
[[ " $flavours " != *" debug "* ]] ||
	SLABX_EXPECT_LOG='Offload RCU callbacks from CPUs: 0-7\.' \
	run_guest debug nocb "rcu_nocbs=all slabx.tests=slabx_rcu_test"

# One vCPU, one node: the suites with real NMIs and the torture test (its
# NMI path), where an NMI can only come from the CPU it interrupts (the
# any-context calls in NMI on a uniprocessor). About 20 s of guest time.
[[ " $flavours " != *" debug "* ]] ||
	SLABX_CPUS=1 run_guest debug up "slabx.tests=slabx_nolock_test,slabx_kmalloc_test,slabx_objpool_test slabx.selftests=slabx_torture"

# Once more under UML with slabx's debug=1 (every cache a SLABX_DEBUG one,
# without sheaves: the slab layer alone, each misuse reported) and the
# kernel's init_on_alloc/init_on_free switches on.
[[ " $flavours " != *" um "* ]] ||
	run_guest um debug1 "slabx.debug=1 init_on_alloc=1 init_on_free=1"

# Once more under UML with sheaves and the kernel's init_on_alloc and
# init_on_free on: every free then runs the checkers' hook (it clears the
# object) before the sheaves take the object, the path that no other boot
# without KASAN takes.
[[ " $flavours " != *" um "* ]] ||
	run_guest um init "init_on_alloc=1 init_on_free=1"

# Debian's stock kernels (SLABX_DISTRO=0 leaves them out).
if [ "${SLABX_DISTRO:-1}" != 0 ]; then
	"$SLABX_TOP/scripts/check-distro.sh" || { echo "check: distro failed" >&2; fail=1; }
	add_counts "$SLABX_OUT/distro-check/counts"
fi

[ $fail -eq 0 ] || [ $failed -gt 0 ] || failed=1
echo "$passed passed, $failed failed" | tee "$SLABX_OUT/check-summary"
exit $fail

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of how scripts/run-tests.sh judges a console log
# (scripts/splats.sh): each kind of splat in SPLATS fails a run, as one
# line in the middle of a real boot's console log; that log alone
# (fixtures/clean.log: a passing boot of the debug flavour, every suite
# and kselftest, 48 windows of reports asked for, CPUs going offline and
# online) fails none; a report that a test asked for passes inside its
# window, and fails with a second one in it or without its window's end.
# Prints "splats: N passed, N failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../scripts/splats.sh
. "$here/../../scripts/splats.sh"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
passed=0
failed=0

result()
{
	if [ "$1" -eq 0 ]; then
		echo "ok $2"
		passed=$((passed + 1))
	else
		echo "not ok $2"
		failed=$((failed + 1))
	fi
}

# A console log: a clean boot's lines with $1 (lines) in the middle.
console()
{
	head -20 "$here/fixtures/clean.log"
	[ -z "$1" ] || printf '%s\n' "$1"
	tail -n +21 "$here/fixtures/clean.log"
}

# check_splats on a log with LINES in it must fail (1) or pass (0).
judge()
{
	local want=$1 name=$2 lines=$3 got=0

	console "$lines" > "$out/console.log"
	check_splats 2> "$out/stderr" || got=1
	[ "$got" -eq "$want" ] || sed 's/^/# /' "$out/stderr"
	result $((got != want)) "$name"
}

# Every kind of splat fails a run: one console line of each, as the kernel
# prints it (timestamps and all).
while IFS='|' read -r name line; do
	judge 1 "fails on $name" "$line"
done <<'LINES'
WARNING|[   12.345678] WARNING: CPU: 1 PID: 42 at mm/slub.c:123 foo+0x1/0x2
BUG|[   12.345678] BUG: KASAN: slab-use-after-free in bar+0x10/0x20
kernel BUG|[   12.345678] kernel BUG at mm/slub.c:456!
Oops|[   12.345678] Oops: general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] PREEMPT SMP KASAN
general protection fault|[   12.345678] general protection fault, maybe for address 0x0
Kernel panic|[   12.345678] Kernel panic - not syncing: Fatal exception
recursive locking|[   12.345678] WARNING: possible recursive locking detected
circular locking|[   12.345678] possible circular locking dependency detected
inconsistent lock state|[   12.345678] inconsistent lock state
DEBUG_LOCKS_WARN_ON|[   12.345678] DEBUG_LOCKS_WARN_ON(1)
lockdep off|[   12.345678] INFO: lockdep is turned off.
suspicious RCU usage|[   12.345678] suspicious RCU usage.
RCU stall|[   32.345678] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:
RCU self-detected stall|[   32.345678] rcu: INFO: rcu_preempt self-detected stall on CPU
hung task|[  150.345678] INFO: task kworker/1:2:123 blocked for more than 122 seconds.
soft lockup|[   40.345678] watchdog: BUG: soft lockup - CPU#1 stuck for 26s! [slabx_tort_w0:321]
hard lockup|[   40.345678] Watchdog detected hard LOCKUP on cpu 1
UBSAN|[   12.345678] UBSAN: shift-out-of-bounds in slab.c:12:3
ODEBUG|[   12.345678] ODEBUG: free active (active state 0) object: 00000000deadbeef object type: timer_list hint: foo+0x0/0x10
list_add corruption|[   12.345678] list_add corruption. next->prev should be prev (ffff888000000000), but was 0000000000000000.
list_del corruption|[   12.345678] list_del corruption, ffff888000000000->next is LIST_POISON1 (dead000000000100)
Call Trace|[   12.345678] Call Trace:
sleeping in atomic|[   12.345678] BUG: sleeping function called from invalid context at mm/slub.c:1
scheduling while atomic|[   12.345678] BUG: scheduling while atomic: slabx_tort_w0/321/0x00000002
dying CPU not vacated|[   20.345678] Dying CPU not properly vacated!
RT throttling|[   20.345678] sched: RT throttling activated
RCU expedited stall|[   32.345678] rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks: { 3-... } 21003 jiffies s: 1421 root: 0x8/.
workqueue hog|[   20.345678] workqueue: slabx_cpu_work_fn [slabx] hogged CPU for >10000us 4 times, consider switching to WQ_UNBOUND
NOHZ tick-stop error|[   20.345678] NOHZ tick-stop error: local softirq work is pending, handler #08!!!
LINES

result=0
console "" > "$out/console.log"
check_splats 2> "$out/stderr" || result=1
[ "$result" -eq 0 ] || sed 's/^/# /' "$out/stderr"
result "$result" "a clean boot's console log passes"

# A report that a test provoked on purpose passes inside its window.
judge 0 "an expected KASAN report passes" \
"[    5.000000] slabx-expect: BEGIN uaf: kasan: slab-use-after-free
[    5.000001] ==================================================================
[    5.000002] BUG: KASAN: slab-use-after-free in reports_uaf+0x10/0x20
[    5.000003] Call Trace:
[    5.000004]  <TASK>
[    5.000005] slabx-expect: END uaf"
# A second report in the window is not the one asked for.
judge 1 "a second report in a window fails" \
"[    5.000000] slabx-expect: BEGIN uaf: kasan: slab-use-after-free
[    5.000002] BUG: KASAN: slab-use-after-free in reports_uaf+0x10/0x20
[    5.000003] Call Trace:
[    5.000004] WARNING: CPU: 0 PID: 1 at slab.c:1 other+0x0/0x1
[    5.000005] slabx-expect: END uaf"
judge 1 "a window without its report fails" \
"[    5.000000] slabx-expect: BEGIN uaf: kasan: slab-use-after-free
[    5.000005] slabx-expect: END uaf"
judge 1 "a window that never ends fails" \
"[    5.000000] slabx-expect: BEGIN uaf: kasan: slab-use-after-free
[    5.000002] BUG: KASAN: slab-use-after-free in reports_uaf+0x10/0x20"

# Two kinds in one window: one header of each, and no more.
judge 0 "a window of two kinds passes with both" \
"[    5.000000] slabx-expect: BEGIN kf: kasan+warning: invalid-free
[    5.000002] BUG: KASAN: invalid-free in kfree+0x10/0x20
[    5.000003] Call Trace:
[    5.000004] WARNING: CPU: 0 PID: 1 at mm/slub.c:1 kfree+0x0/0x1
[    5.000005] Call Trace:
[    5.000006] slabx-expect: END kf"
judge 0 "a window of two kinds passes with one" \
"[    5.000000] slabx-expect: BEGIN kf: kasan+warning: invalid-free
[    5.000002] BUG: KASAN: invalid-free in kfree+0x10/0x20
[    5.000003] Call Trace:
[    5.000006] slabx-expect: END kf"
judge 1 "a window of two kinds fails on a second of one" \
"[    5.000000] slabx-expect: BEGIN kf: kasan+warning: invalid-free
[    5.000002] BUG: KASAN: invalid-free in kfree+0x10/0x20
[    5.000003] Call Trace:
[    5.000004] BUG: KASAN: slab-use-after-free in other+0x0/0x1
[    5.000006] slabx-expect: END kf"

# lockdep's reports are "BUG:" lines, then its lock lists and one trace.
judge 0 "an expected lockdep report passes" \
"[    5.000000] slabx-expect: BEGIN nest: lockdep: Invalid wait context
[    5.000001] =============================
[    5.000002] [ BUG: Invalid wait context ]
[    5.000003] 6.12.118 #1 Not tainted
[    5.000004] Call Trace:
[    5.000005]  <TASK>
[    5.000006] slabx-expect: END nest"
judge 1 "a lockdep report of another kind fails" \
"[    5.000000] slabx-expect: BEGIN nest: lockdep: Invalid wait context
[    5.000002] [ BUG: Invalid wait context ]
[    5.000003] WARNING: possible recursive locking detected
[    5.000006] slabx-expect: END nest"

echo "splats: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

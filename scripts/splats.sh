# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# How scripts/run-tests.sh judges a guest's console log: the kernel splats
# that fail a run, and the windows of the reports that tests provoke on
# purpose. Sourced, not run; also by tests/splats/check.sh, which feeds
# these functions made-up and real console lines.
#
# check_splats and expected_reports read $out/console.log and write
# $out/console-unexpected.log, $out/expected.txt and $out/splats.txt; the
# caller sets $out.
# shellcheck disable=SC2154 # $out

SPLATS='WARNING:|BUG:|kernel BUG|Oops|general protection fault|Kernel panic'
SPLATS+='|possible recursive locking|possible circular locking'
SPLATS+='|inconsistent lock state|DEBUG_LOCKS_WARN_ON|lockdep is turned off'
SPLATS+='|suspicious RCU usage|detected stall|self-detected stall'
SPLATS+='|blocked for more than|soft lockup|hard LOCKUP|UBSAN|ODEBUG'
SPLATS+='|list_add corruption|list_del corruption|Call Trace:'
SPLATS+='|sleeping function called from invalid context'
# The kernel's other "this should never happen" lines: a task (or the
# fair server, a deadline entity) left on a CPU going offline, whose
# WARN() in sched_cpu_dying() prints this text on a line of its own before
# its WARNING: line; an RT task that used 95% of a CPU for a period; any
# RCU stall, the expedited ones too ("rcu: INFO: rcu_preempt detected
# expedited stalls" has no "detected stall" in it); a per-CPU work item
# that hogged its CPU (with CONFIG_WQ_CPU_INTENSIVE_REPORT, which our
# test kernels lack); softirq work left pending when a CPU stopped its
# tick. "BUG: scheduling while atomic" is a BUG: line already.
SPLATS+='|Dying CPU not properly vacated|sched: RT throttling activated'
SPLATS+='|rcu: INFO:|workqueue: .* hogged CPU for|NOHZ tick-stop error'

# The console log without the reports tests asked for. In each window of
# an expected report, the lines with its TEXT go, and of the report
# itself one splat header of its KIND and one call trace; a second header
# or trace (another report in the window) stays for check_splats to find.
# KIND may name two kinds, KIND+KIND (kasan+warning: a call that the
# kernel both warns about and KASAN reports): one header of each may come.
# The run fails when a window lacks its report or never ends.
expected_reports()
{
	awk -v out="$out/expected.txt" '
	# The first header of each kind the window allows.
	function allowed_header(line,	i) {
		for (i = 1; i <= nallow; i++)
			if (allow[i] != "" && index(line, allow[i]) && !headers[i]) {
				headers[i] = 1
				return 1
			}
		return 0
	}
	function headers_allowed(	i, n) {
		for (i = 1; i <= nallow; i++)
			n += allow[i] != ""
		return n
	}
	{ sub(/\r$/, "") }
	/slabx-expect: BEGIN / {
		if (name != "") { print "unended window " name > "/dev/stderr"; bad = 1 }
		s = $0; sub(/.*slabx-expect: BEGIN /, "", s)
		name = s; sub(/: .*/, "", name)
		kind = s; sub(/^[^:]*: /, "", kind)
		text = kind; sub(/: .*/, "", kind); sub(/^[^:]*: /, "", text)
		nallow = split(kind, kinds, "+")
		for (i = 1; i <= nallow; i++) {
			allow[i] = ""
			if (kinds[i] == "kasan") allow[i] = "BUG: KASAN:"
			if (kinds[i] == "warning") allow[i] = "WARNING:"
			if (kinds[i] == "lockdep") allow[i] = "BUG: "
			headers[i] = 0
		}
		seen = 0; traces = 0; next
	}
	/slabx-expect: END / {
		if (name == "") { print "END without BEGIN: " $0 > "/dev/stderr"; bad = 1; next }
		if (!seen) { print "expected report did not come: " name ": " text > "/dev/stderr"; bad = 1 }
		else print name ": " text > out
		name = ""; next
	}
	name != "" && allowed_header($0) {
		if (index($0, text)) seen = 1
		next
	}
	name != "" && index($0, text) && !seen { seen = 1; next }
	name != "" && /Call Trace:/ && traces < headers_allowed() { traces++; next }
	{ print }
	END {
		if (name != "") { print "unended window " name > "/dev/stderr"; bad = 1 }
		exit bad
	}' "$out/console.log" > "$out/console-unexpected.log"
}

check_splats()
{
	: > "$out/expected.txt"
	expected_reports || { echo "FAIL: expected reports" >&2; return 1; }
	if grep -E -n "$SPLATS" "$out/console-unexpected.log" > "$out/splats.txt"; then
		echo "FAIL: kernel splat in $out/console.log:" >&2
		head -20 "$out/splats.txt" >&2
		return 1
	fi
}

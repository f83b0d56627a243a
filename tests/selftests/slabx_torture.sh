#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# kselftest for slabx_torture.ko, the torture test that needs no KUnit (so
# it runs on distribution kernels too): it loads slabx, then the torture
# module, which stresses every path of slabx's API at once in its init and
# prints one KTAP result per path to the kernel log. Each of those becomes
# a result here (ok, not ok or skip, with the module's counts and findings
# as diagnostics); a module that did not finish, or printed fewer results
# than it planned, fails. $SLABX_TORTURE_PARAMS, if set, replaces the
# module parameters given below (e.g. "ops=100000 obj_size=61").
# See Makefile for where it runs and how it finds the modules.

DIR=$(dirname "$(readlink -f "$0")")
# shellcheck source=/dev/null
. "$DIR/../kselftest/ktap_helpers.sh"
# shellcheck source=slabx_lib.sh
. "$DIR/slabx_lib.sh"

# The module's own defaults: a run of about 10 to 20 s on the debug kernel
# under QEMU TCG (idle host). kmemleak=on serialises every allocation: 3 x
# 5000 operations took 122 s there, so a tenth of the default work then.
params=${SLABX_TORTURE_PARAMS-}
if [ -z "${SLABX_TORTURE_PARAMS+set}" ] &&
   grep -qw 'kmemleak=on' /proc/cmdline; then
	params="ops=1500"
fi

# The module's lines since the mark, without timestamp and prefix.
torture_lines()
{
	slabx_klog | sed -En 's/^(\[[^]]*\] *)?slabx_torture: //p'
}

# Load slabx and the torture module, keep its lines in $log, unload both.
# Return: insmod's status of the torture module.
run_torture()
{
	local rc

	slabx_load slabx || return 1
	slabx_klog_mark
	ktap_print_msg "insmod slabx_torture $params"
	# shellcheck disable=SC2086 # one word per parameter
	slabx_load slabx_torture $params
	rc=$?
	torture_lines > "$log"
	if [ -e /sys/module/slabx_torture ]; then
		rmmod slabx_torture || rc=1
	fi
	rmmod slabx || rc=1
	return $rc
}

# One result per result line of the module; its other lines (counts,
# findings) become diagnostics.
report()
{
	local line name why

	while IFS= read -r line; do
		case $line in
		1..*) ;;
		"not ok "*)
			name=${line#not ok * }
			why=${name#* # }
			name=${name%% *}
			[ "$why" = "$name" ] || ktap_print_msg "$name: $why"
			ktap_test_fail "$name"
			;;
		"ok "*" # SKIP "*)
			name=${line#ok * }
			ktap_print_msg "${name%% *}: skipped: ${name#* # SKIP }"
			ktap_test_skip "${name%% *}"
			;;
		"ok "*)
			name=${line#ok * }
			ktap_test_pass "${name%% *}"
			;;
		"# "*) echo "$line" ;;
		*) ktap_print_msg "$line" ;;
		esac
	done < "$log"
}

ktap_print_header
slabx_require slabx_torture
log=$(mktemp) || ktap_exit_fail_msg "mktemp failed"
trap 'rm -f "$log"' EXIT

rc=0
run_torture || rc=$?
plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$log")
if [ -z "$plan" ]; then
	sed 's/^/# /' "$log"
	ktap_exit_fail_msg "slabx_torture printed no results (insmod: $rc)"
fi
ktap_set_plan "$plan"
report
grep -q '^# done in ' "$log" || ktap_exit_fail_msg "slabx_torture did not finish"
[ "$rc" = 0 ] || ktap_exit_fail_msg "insmod slabx_torture failed: $rc"
ktap_finished

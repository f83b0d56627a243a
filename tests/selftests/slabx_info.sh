#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# kselftest for slabxinfo (tools/slabxinfo/), slabx's slabinfo: its
# figures of the demo cache (tests/slabx_demo.ko) against the debugfs
# files, its JSON, the view of one cache, the live view while caches come
# and go, and its messages without slabx or without debugfs. It runs the
# slabxinfo in $PATH (the test guest's /bin/slabxinfo), else the one
# built in tools/slabxinfo/ of a slabx tree, and skips without one.
# See Makefile for where it runs and how it finds the modules.

DIR=$(dirname "$(readlink -f "$0")")
# shellcheck source=/dev/null
. "$DIR/../kselftest/ktap_helpers.sh"
# shellcheck source=slabx_lib.sh
. "$DIR/slabx_lib.sh"

DBG=/sys/kernel/debug/slabx
N=300
TMP=/tmp/slabx_info.$$

# The number after "KEY": in the object of cache $1 in the JSON file $3:
# from its "name" to the next cache's.
jsonval()
{
	sed -n "s/.*{\"name\":\"$1\",//p" "$3" | sed 's/{"name":.*//' |
		grep -o "\"$2\":[0-9-]*" | head -n 1 | cut -d: -f2
}

# Whether output file $1 of slabxinfo has a line of cache $2 (its first
# word) whose column $3 is $4; says what it has instead.
column_is()
{
	local got

	got=$(awk -v n="$2" -v c="$3" '$1 == n { print $c; exit }' "$1")
	[ "$got" = "$4" ] && return 0
	ktap_print_msg "$2: column $3 is '$got', stats say '$4'"
	return 1
}

# slabx is not loaded at the start (slabx_require): say so, exit 1.
without_slabx()
{
	local rc=0

	slabxinfo > $TMP.out 2>&1 || rc=$?
	sed 's/^/# /' $TMP.out
	[ $rc = 1 ] && grep -q '^slabxinfo: slabx is not loaded' $TMP.out
}

# Without debugfs mounted (in a mount namespace of its own, so that the
# rest of the system keeps it): say so, exit 1.
without_debugfs()
{
	local rc=0

	unshare -m sh -c 'umount -l /sys/kernel/debug && exec slabxinfo' \
		> $TMP.out 2>&1 || rc=$?
	sed 's/^/# /' $TMP.out
	[ $rc = 1 ] &&
		grep -q '^slabxinfo: debugfs is not mounted on /sys/kernel/debug' $TMP.out
}

# The table's demo line against demo/stats: objects in use and total,
# object size, slabs, order, sheaf capacity.
table_matches_debugfs()
{
	local ok=0 f=$DBG/demo/stats

	slabxinfo > $TMP.out || return 1
	sed 's/^/# /' $TMP.out
	head -n 1 $TMP.out | grep -q '^NAME  *INUSE  *TOTAL  *USE%  *OBJSIZE  *MEMORY  *SLABS  *ORD  *SHEAF  *HIT%  *BARN  *WASTE$' ||
		{ ktap_print_msg "unexpected header"; ok=1; }
	column_is $TMP.out demo 2 "$(statval $f objects_inuse)" || ok=1
	column_is $TMP.out demo 3 "$(statval $f objects_total)" || ok=1
	column_is $TMP.out demo 5 "$(statval $f object_size)" || ok=1
	column_is $TMP.out demo 7 "$(statval $f slabs)" || ok=1
	column_is $TMP.out demo 8 "$(statval $f order)" || ok=1
	column_is $TMP.out demo 9 "$(statval $f sheaf_capacity)" || ok=1
	# The demo's figures, as slabx_module.sh checks them in debugfs.
	[ "$(statval $f object_size)" = 128 ] || ok=1
	[ "$(statval $f objects_inuse)" -ge $N ] || ok=1
	grep -q "^[0-9]* caches*; slabx holds $(sed -n 's/^pages_held //p' $DBG/summary) pages" $TMP.out ||
		{ ktap_print_msg "no pages_held footer"; ok=1; }
	return $ok
}

# -j: one line of JSON, whose demo figures are those of demo/stats.
json_matches_debugfs()
{
	local ok=0 f=$DBG/demo/stats k ps

	slabxinfo -j > $TMP.json || return 1
	[ "$(wc -l < $TMP.json)" = 1 ] || { ktap_print_msg "not one line"; ok=1; }
	# A syntax check without jq: brackets balance outside strings, which
	# have no escapes here (the names are plain).
	awk '{
		s = $0; gsub(/"[^"]*"/, "\"\"", s)
		if (s ~ /[^][{}:,"0-9.eE+a-z -]/) bad = 1
		for (i = 1; i <= length(s); i++) {
			ch = substr(s, i, 1)
			if (ch == "{" || ch == "[") d++
			if (ch == "}" || ch == "]") d--
			if (d < 0) bad = 1
		}
		if (d != 0 || substr(s, 1, 1) != "{" || substr(s, length(s), 1) != "}") bad = 1
	} END { exit bad }' $TMP.json || { ktap_print_msg "bad JSON"; ok=1; }
	for k in object_size objects_inuse objects_total slabs pages order \
		 sheaf_capacity alloc free alloc_fastpath free_fastpath; do
		[ "$(jsonval demo $k $TMP.json)" = "$(statval $f $k)" ] && continue
		ktap_print_msg "JSON $k is '$(jsonval demo $k $TMP.json)', stats say '$(statval $f $k)'"
		ok=1
	done
	[ "$(jsonval demo alloc $TMP.json)" = $((2 * N)) ] || ok=1
	ps=$(grep -o '"page_size":[0-9]*' $TMP.json | cut -d: -f2)
	[ "$(jsonval demo memory $TMP.json)" = $(($(statval $f pages) * ps)) ] ||
		{ ktap_print_msg "memory is not pages x page_size"; ok=1; }
	grep -q '"nodes":\[{"node":0,' $TMP.json || ok=1
	[ $ok = 0 ] || sed 's/^/# /' $TMP.json
	return $ok
}

# slabxinfo demo: every line of stats, with its value; the counters per
# CPU, the nodes and the barns.
cache_view()
{
	local ok=0 f=$DBG/demo/stats key value

	slabxinfo demo > $TMP.out || return 1
	sed 's/^/# /' $TMP.out
	while read -r key value; do
		case "$value" in
		'' | *=* | *[!0-9]*) continue ;;
		esac
		[ "$(awk -v k="$key" '$1 == k { print $2; exit }' $TMP.out)" = "$value" ] &&
			continue
		ktap_print_msg "slabxinfo demo: $key is not $value"
		ok=1
	done < $f
	grep -q '^counter  *total  *cpu[0-9]' $TMP.out ||
		{ ktap_print_msg "no per-CPU counters"; ok=1; }
	grep -q '^node  *slabs  *partial  *empty  *objects  *inuse$' $TMP.out ||
		{ ktap_print_msg "no per-node lines"; ok=1; }
	column_is $TMP.out 0 2 "$(sed -n 's/^node0 slabs=\([0-9]*\) .*/\1/p' $f)" ||
		ok=1
	grep -q '^barn  *full  *empty$' $TMP.out || ok=1
	grep -q "^  objects  $(statval $f objects_inuse) in use of $(statval $f objects_total) " $TMP.out ||
		ok=1
	# A cache that is not there.
	slabxinfo no_such_cache > $TMP.out 2>&1 && ok=1
	grep -q '^slabxinfo: no cache no_such_cache in ' $TMP.out || ok=1
	return $ok
}

# -s sorts by a column; a column that is not one is refused (exit 2).
sort_columns()
{
	local ok=0 rc=0

	slabxinfo -s name > $TMP.out || ok=1
	grep -q '^demo ' $TMP.out || ok=1
	slabxinfo -s bogus > $TMP.out 2>&1 || rc=$?
	[ $rc = 2 ] && grep -q 'no column bogus' $TMP.out || ok=1
	return $ok
}

# -w -n: two refreshes of rates; the demo is idle, so its rates are 0.
live_view()
{
	local ok=0

	slabxinfo -w 1 -n 2 > $TMP.out || return 1
	sed 's/^/# /' $TMP.out
	[ "$(grep -c '^slabxinfo [0-9:]*: rates per second over' $TMP.out)" = 2 ] ||
		ok=1
	[ "$(grep -c '^NAME .* ALLOC/s  *FREE/s ' $TMP.out)" = 2 ] || ok=1
	column_is $TMP.out demo 5 0.0 || ok=1
	column_is $TMP.out demo 6 0.0 || ok=1
	slabxinfo -w 0.5 -n 2 -j > $TMP.json || ok=1
	[ "$(grep -c '"rates":{"alloc":0,' $TMP.json)" = 2 ] || ok=1
	return $ok
}

# The live view while a cache comes and goes under it: the table goes on
# without errors; the view of that one cache ends with a clear message.
caches_come_and_go()
{
	local ok=0 pid rc=0

	rmmod slabx_demo || return 1
	(
		for _ in 1 2 3 4 5 6; do
			slabx_load slabx_demo nr_objects=$N && rmmod slabx_demo
		done
	) &
	pid=$!
	slabxinfo -w 0.1 -n 40 > $TMP.out 2> $TMP.err || ok=1
	wait $pid || ok=1
	[ -s $TMP.err ] && { sed 's/^/# /' $TMP.err; ok=1; }
	slabx_load slabx_demo nr_objects=$N || return 1
	(sleep 2; rmmod slabx_demo) &
	pid=$!
	slabxinfo -w 1 -n 4 demo > $TMP.out 2> $TMP.err || rc=$?
	wait $pid || ok=1
	sed 's/^/# /' $TMP.err
	[ $rc = 1 ] && grep -q '^slabxinfo: no cache demo in ' $TMP.err || ok=1
	return $ok
}

ktap_print_header
command -v slabxinfo > /dev/null ||
	PATH=$PATH:$DIR/../../tools/slabxinfo
command -v slabxinfo > /dev/null ||
	slabx_skip_all "slabxinfo not found (make -C tools/slabxinfo)"
slabx_require slabx_demo
ktap_set_plan 8
ktap_test_result "without slabx: a clear message, exit 1" without_slabx
ktap_test_result "without debugfs: a clear message, exit 1" without_debugfs
if slabx_load slabx && slabx_load slabx_demo nr_objects=$N; then
	ktap_test_result "table agrees with demo/stats" table_matches_debugfs
	ktap_test_result "JSON agrees with demo/stats" json_matches_debugfs
	ktap_test_result "slabxinfo demo shows every counter" cache_view
	ktap_test_result "-s sorts, a bad column exits 2" sort_columns
	ktap_test_result "live view: rates of an idle cache are 0" live_view
	ktap_test_result "caches come and go under the live view" \
		caches_come_and_go
else
	for t in table json cache_view sort live come_and_go; do
		ktap_test_fail "$t: slabx or slabx_demo did not load"
	done
fi
[ ! -e /sys/module/slabx_demo ] || rmmod slabx_demo
[ ! -e /sys/module/slabx ] || rmmod slabx
rm -f $TMP.out $TMP.err $TMP.json
ktap_finished

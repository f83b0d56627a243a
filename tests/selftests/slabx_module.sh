#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# kselftest for slabx.ko as a module: load/unload cycles, the debugfs tree,
# and the statistics after the demo workload (tests/slabx_demo.ko). See
# Makefile for where it runs and how it finds the modules.

DIR=$(dirname "$(readlink -f "$0")")
# shellcheck source=/dev/null
. "$DIR/../kselftest/ktap_helpers.sh"
# shellcheck source=slabx_lib.sh
. "$DIR/slabx_lib.sh"

DBG=/sys/kernel/debug/slabx

load_unload_load()
{
	slabx_load slabx && [ -d $DBG ] &&
	rmmod slabx && [ ! -e $DBG ] &&
	slabx_load slabx && [ -f $DBG/summary ] &&
	rmmod slabx && [ ! -e $DBG ]
}

debugfs_tree()
{
	local ok=0 key

	slabx_load slabx || return 1
	slabx_load slabx_demo nr_objects=10 || ok=1
	[ -f $DBG/summary ] && [ -f $DBG/demo/stats ] || ok=1
	for key in name object_size stride align order objs_per_slab \
		   sheaf_capacity objects_inuse objects_total slabs pages \
		   objects_barn alloc free alloc_fastpath alloc_slowpath \
		   free_fastpath free_slowpath alloc_fail slab_new \
		   slab_discard free_invalid node_lock sheaf_refill \
		   sheaf_flush sheaf_alloc sheaf_free barn_get barn_get_fail \
		   barn_put barn_put_fail sheaf_prefill_fast \
		   sheaf_prefill_slow sheaf_prefill_oversize \
		   sheaf_return_fast sheaf_return_slow node0 barn0; do
		[ -n "$(statval $DBG/demo/stats $key)" ] ||
			{ ktap_print_msg "stats lacks $key"; ok=1; }
	done
	grep -q '^demo ' $DBG/summary || ok=1
	grep -q '^pages_held ' $DBG/summary || ok=1
	[ -f $DBG/fail_pages ] || ok=1
	rmmod slabx_demo || ok=1
	[ ! -e $DBG/demo ] || ok=1
	rmmod slabx || ok=1
	return $ok
}

# The demo allocates N objects singly and N in bulk, then frees half of all.
stats_after_workload()
{
	local ok=0 f=$DBG/demo/stats n=500

	slabx_load slabx || return 1
	slabx_load slabx_demo nr_objects=$n || ok=1
	[ "$(statval $f alloc)" = $((2 * n)) ] || ok=1
	[ "$(statval $f free)" = $n ] || ok=1
	# In use from the slabs' view: held by the demo, or cached in sheaves.
	[ "$(statval $f objects_inuse)" -ge $n ] || ok=1
	[ "$(statval $f alloc_fastpath)" -gt 0 ] || ok=1
	[ "$(statval $f free_fastpath)" -gt 0 ] || ok=1
	[ "$(statval $f alloc_fail)" = 0 ] || ok=1
	[ "$(statval $f pages)" = $(($(statval $f slabs) << $(statval $f order))) ] ||
		ok=1
	[ "$(statval $f objects_total)" = \
	  $(($(statval $f slabs) * $(statval $f objs_per_slab))) ] || ok=1
	[ "$(statval $f slab_new)" -gt 0 ] || ok=1
	[ $ok = 0 ] || cat $f | sed 's/^/# /'
	rmmod slabx_demo || ok=1
	rmmod slabx || ok=1
	return $ok
}

ktap_print_header
slabx_require slabx_demo
ktap_set_plan 3
ktap_test_result "module loads, unloads and loads again" load_unload_load
ktap_test_result "debugfs tree has the documented files" debugfs_tree
ktap_test_result "stats match the demo workload" stats_after_workload
ktap_finished

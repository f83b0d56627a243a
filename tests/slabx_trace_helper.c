// SPDX-License-Identifier: GPL-2.0
/*
 * A workload for the tracepoint kselftest (selftests/slabx_trace.sh): at
 * load it frees objects of the cache "trace_rcu" with slabx_free_rcu() and
 * waits for them (rcu_free sheaves queued and completed), allocates and
 * frees with the any-context calls on "trace_nolock", and empties the
 * pool-mode cache "trace_pool" (one pop miss). The caches stay until it is
 * unloaded, so that their debugfs statistics can be read.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/module.h>
#include <linux/preempt.h>

#include "../slabx.h"

#define HELPER_OBJS	16
#define HELPER_SHEAF	4

static struct slabx_cache *rcu_cache, *nolock_cache, *pool_cache;

static void rcu_work(void)
{
	void *objs[HELPER_OBJS];
	unsigned int i;

	/*
	 * On one CPU throughout: objects of another node would wait in
	 * their slabs, not in this CPU's rcu_free sheaves.
	 */
	migrate_disable();
	if (!slabx_alloc_bulk(rcu_cache, GFP_KERNEL, HELPER_OBJS, objs)) {
		migrate_enable();
		return;
	}
	/*
	 * Three full sheaves, each waited for so that the next one is of
	 * the cache's capacity again (with a grace period pending it would
	 * be large), then a partial one queued by the barrier.
	 */
	for (i = 0; i < HELPER_OBJS - 1; i++) {
		slabx_free_rcu(rcu_cache, objs[i]);
		if (i % HELPER_SHEAF == HELPER_SHEAF - 1)
			slabx_rcu_barrier(rcu_cache);
	}
	slabx_free(rcu_cache, objs[HELPER_OBJS - 1]);
	migrate_enable();
	slabx_rcu_barrier(rcu_cache);
}

static void nolock_work(void)
{
	void *objs[HELPER_OBJS];
	unsigned int i;

	for (i = 0; i < HELPER_OBJS; i++)
		objs[i] = slabx_alloc_nolock(nolock_cache, 0);
	for (i = 0; i < HELPER_OBJS; i++)
		slabx_free_nolock(nolock_cache, objs[i]);
}

static void pool_work(void)
{
	void *objs[HELPER_OBJS + 1];
	unsigned int i;

	/* One more than the pool holds: the last one misses. */
	for (i = 0; i <= HELPER_OBJS; i++)
		objs[i] = slabx_alloc(pool_cache, GFP_KERNEL);
	for (i = 0; i <= HELPER_OBJS; i++)
		slabx_free(pool_cache, objs[i]);
}

static int __init helper_init(void)
{
	struct slabx_cache_args rcu_args = { .sheaf_capacity = HELPER_SHEAF };
	struct slabx_cache_args pool_args = { .pool_objects = HELPER_OBJS };

	rcu_cache = slabx_cache_create("trace_rcu", 64, &rcu_args);
	nolock_cache = slabx_cache_create("trace_nolock", 64, NULL);
	pool_cache = slabx_cache_create("trace_pool", 64, &pool_args);
	if (!rcu_cache || !nolock_cache || !pool_cache) {
		/* slabx_cache_destroy(NULL) does nothing. */
		slabx_cache_destroy(rcu_cache);
		slabx_cache_destroy(nolock_cache);
		slabx_cache_destroy(pool_cache);
		return -ENOMEM;
	}
	rcu_work();
	nolock_work();
	pool_work();
	return 0;
}

static void __exit helper_exit(void)
{
	slabx_cache_destroy(pool_cache);
	slabx_cache_destroy(nolock_cache);
	slabx_cache_destroy(rcu_cache);
}

module_init(helper_init);
module_exit(helper_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("slabx tracepoint test workload");

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for slabx used the way other kernel code uses it: from a
 * reclaim workqueue, with leaked objects freed on other CPUs while the
 * cache is destroyed, with a barn at its empty-sheaf limit on PREEMPT_RT,
 * with large objects on the any-context free path, under failure of every
 * metadata allocation, and with a prefilled sheaf returned on another NUMA
 * node. Each case failed on the code before its fix (see the commit that
 * added it), and passes only with the fix in place.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "../slabx.h"
#include "slabx_kunit.h"
#include "slabx_test_hooks.h"

/* ---- destroy from a WQ_MEM_RECLAIM work item ------------------------------ */

struct reclaim_work {
	struct work_struct work;
	int rc;
	unsigned long rcu_done;
};

/*
 * What a block driver's or filesystem's reclaim-path work item may do:
 * create a cache, use it (slabx_free_rcu() included), shrink it, wait for
 * its RCU frees and destroy it. Each of these flushes work of slabx's on
 * every CPU; none may depend on a workqueue without a rescuer.
 */
static void reclaim_work_fn(struct work_struct *work)
{
	struct reclaim_work *rw = container_of(work, struct reclaim_work, work);
	struct slabx_cache *s;
	void *p[32];
	int i;

	s = slabx_cache_create("kunit-reclaim", 64, NULL);
	if (!s) {
		rw->rc = -ENOMEM;
		return;
	}
	for (i = 0; i < ARRAY_SIZE(p); i++)
		p[i] = slabx_alloc(s, GFP_NOIO);
	for (i = 0; i < ARRAY_SIZE(p) / 2; i++)
		slabx_free_rcu(s, p[i]);
	slabx_cache_shrink(s);
	slabx_rcu_barrier(s);
	rw->rcu_done = slabx_cache_stat(s, SLABX_FREE_RCU_DONE);
	for (; i < ARRAY_SIZE(p); i++)
		slabx_free(s, p[i]);
	rw->rc = slabx_cache_destroy(s);
}

/*
 * A flush of a !WQ_MEM_RECLAIM workqueue from here would print
 * "workqueue: WQ_MEM_RECLAIM ... is flushing !WQ_MEM_RECLAIM" and a
 * WARNING, which fails the run.
 */
static void destroy_from_reclaim_workqueue(struct kunit *test)
{
	struct reclaim_work rw = { .rc = -EINPROGRESS };
	struct workqueue_struct *wq;

	wq = alloc_workqueue("slabx_kunit_reclaim", WQ_MEM_RECLAIM, 0);
	KUNIT_ASSERT_NOT_NULL(test, wq);
	INIT_WORK_ONSTACK(&rw.work, reclaim_work_fn);
	queue_work(wq, &rw.work);
	flush_work(&rw.work);
	destroy_work_on_stack(&rw.work);
	destroy_workqueue(wq);
	KUNIT_EXPECT_EQ(test, rw.rc, 0);
	KUNIT_EXPECT_EQ(test, rw.rcu_done, 16UL);
}

/* ---- destroy racing with frees of leaked objects --------------------------- */

#define LATE_THREADS	3
#define LATE_OBJS	12000	/* per thread */
#define LATE_HELD	8	/* freed only after destroy returned */

struct late_free {
	struct slabx_cache *s;
	void **objs;
	struct completion *go;
	atomic_t *started;
	atomic_t *after_destroy;
	atomic_t *destroyed;
	struct completion done;
};

/*
 * What the threads share, not on the case's stack: a case that ends early
 * leaves its threads running until its end lets them go and waits.
 */
struct late_shared {
	struct completion go;
	atomic_t started;
	atomic_t after;
	atomic_t destroyed;
};

/* At the end of a case that ended before it let the threads go. */
static void late_free_go(void *go)
{
	complete_all(go);
}

/* Free every object, in singles and small bulks, as fast as possible. */
static int late_free_fn(void *arg)
{
	struct late_free *lf = arg;
	int i;

	wait_for_completion(lf->go);
	for (i = 0; i < LATE_OBJS; i += 8) {
		if (i == 64)
			atomic_inc(lf->started);
		if (i % 64 == 32) {
			slabx_free_bulk(lf->s, 8, lf->objs + i);
		} else {
			int j;

			for (j = i; j < i + 8; j++)
				slabx_free(lf->s, lf->objs[j]);
		}
		if (atomic_read(lf->destroyed))
			atomic_add(8, lf->after_destroy);
	}
	complete(&lf->done);
	return 0;
}

/*
 * Three online CPUs other than @self: two of its node (their frees go to
 * their sheaves), then one of another node (its frees go to the slabs),
 * then any, as far as the machine has them.
 */
static int late_free_cpus(int self, int *cpus)
{
	int cpu, nr = 0, pass, i;

	for (pass = 0; pass < 3; pass++)
		for_each_online_cpu(cpu) {
			bool same = cpu_to_node(cpu) == cpu_to_node(self);

			if (cpu == self || (pass == 0 && !same) ||
			    (pass == 1 && same) ||
			    nr == (pass ? LATE_THREADS : LATE_THREADS - 1))
				continue;
			for (i = 0; i < nr && cpus[i] != cpu; i++)
				;
			if (i == nr)
				cpus[nr++] = cpu;
		}
	return nr;
}

/*
 * The kernel-doc of slabx_cache_destroy() allows leaked objects to be
 * freed concurrently with it. Other CPUs free thousands of them, into
 * their sheaves (same node) and their slabs (other node), while destroy
 * flushes and frees the sheaves: no fault, nothing lost, and the zombie's
 * counters add up once the frees are done.
 */
static void destroy_races_late_frees(struct kunit *test)
{
	struct late_shared *sh;
	struct late_free *lf;
	struct slabx_info info;
	struct slabx_cache *s;
	int cpus[LATE_THREADS], nr, i, rc;
	void **held;

	nr = late_free_cpus(0, cpus);
	if (nr < LATE_THREADS)
		kunit_skip(test, "needs %d CPUs besides CPU 0", LATE_THREADS);
	pin(test, 0);
	lf = kunit_kcalloc(test, nr, sizeof(*lf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, lf);
	sh = kunit_kzalloc(test, sizeof(*sh), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sh);
	init_completion(&sh->go);
	s = cache(test, "kunit-late-free", 64, 0);
	for (i = 0; i < nr; i++) {
		struct task_struct *t;

		lf[i] = (struct late_free){ .s = s, .go = &sh->go,
			.started = &sh->started, .after_destroy = &sh->after,
			.destroyed = &sh->destroyed };
		init_completion(&lf[i].done);
		lf[i].objs = kunit_kmalloc_array(test, LATE_OBJS, sizeof(void *),
						 GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, lf[i].objs);
		KUNIT_ASSERT_EQ(test, slabx_alloc_bulk(s, GFP_KERNEL, LATE_OBJS,
						       lf[i].objs), LATE_OBJS);
		t = kthread_create_on_cpu(late_free_fn, &lf[i], cpus[i],
					  "slabx_late/%u");
		KUNIT_ASSERT_FALSE(test, IS_ERR(t));
		KUNIT_ASSERT_EQ(test, start_kthread(test, t, late_free_go,
						    &sh->go), 0);
	}
	/* A few objects stay out until destroy returned: it must say so. */
	held = kunit_kmalloc_array(test, LATE_HELD, sizeof(void *), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, held);
	KUNIT_ASSERT_EQ(test, slabx_alloc_bulk(s, GFP_KERNEL, LATE_HELD, held),
			LATE_HELD);
	complete_all(&sh->go);
	while (atomic_read(&sh->started) < nr)
		cpu_relax();
	atomic_set(&sh->destroyed, 1);
	rc = cache_destroy(test, s);
	slabx_free_bulk(s, LATE_HELD, held);
	for (i = 0; i < nr; i++)
		wait_for_completion(&lf[i].done);
	kunit_info(test, "%d of %d objects freed after destroy began\n",
		   atomic_read(&sh->after), nr * LATE_OBJS);
	KUNIT_EXPECT_EQ(test, rc, -EBUSY);
	/* Test only: a zombie stays valid until slabx is unloaded. */
	slabx_cache_info(s, &info);
	KUNIT_EXPECT_EQ(test, info.objects_inuse, 0UL);
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_FREE),
			slabx_cache_stat(s, SLABX_ALLOC));
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_FREE_INVALID), 0UL);
}

/* ---- no allocator call with the per-CPU sheaves held ------------------------ */

/* SLABX_BARN_MAX_EMPTY: the barn's soft limit of empty sheaves. */
#define BARN_EMPTY_LIMIT	10

/*
 * A CPU with a spare sheaf whose node's barn already holds its limit of
 * empty sheaves: slabx_cache_shrink() must free that spare only after it
 * let go of the per-CPU sheaves (preemption off). On PREEMPT_RT kfree()
 * takes a sleeping lock, so doing it inside printed "BUG: sleeping
 * function called from invalid context".
 */
static void shrink_with_barn_at_empty_limit(struct kunit *test)
{
	const unsigned int cap = 8, nr = cap * 24;
	struct slabx_info info;
	struct slabx_cache *s;
	void **p;

	require_sheaves(test);

	p = kunit_kmalloc_array(test, nr, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	pin(test, 0);
	s = cache(test, "kunit-barn-limit", 64, cap);
	/* Fill the barn with full sheaves, then trade them all for empties. */
	alloc_n(test, s, p, nr);
	free_n(s, p, nr);
	alloc_n(test, s, p, nr);
	slabx_cache_info(s, &info);
	KUNIT_ASSERT_GE(test, info.sheaves_barn_empty,
			(unsigned long)BARN_EMPTY_LIMIT);
	slabx_cache_shrink(s);
	slabx_cache_info(s, &info);
	KUNIT_EXPECT_EQ(test, info.sheaves_barn_empty, 0UL);
	free_n(s, p, nr);
	KUNIT_EXPECT_EQ(test, objects_held(s), 0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

/* ---- any-context free of objects in large slabs ---------------------------- */

static bool nolock_drained(long deferred)
{
	int i;

	for (i = 0; i < 250; i++) {
		if (slabx_nolock_pages_stat(SLABX_NOLOCK_PAGES_DRAINED) >= deferred)
			return true;
		msleep(20);
	}
	return false;
}

/*
 * 8 KiB objects live in slabs above the any-context reserve's largest
 * order. slabx_free_nolock() that empties such a slab beyond the node's
 * keep limit gives it back through slabx_free_pages_nolock(), which used
 * to refuse the order with a WARNING and leak the block.
 */
static void nolock_free_large_objects(struct kunit *test)
{
	struct slabx_cache_args args = { .flags = SLABX_NO_SHEAVES };
	long deferred;
	struct slabx_info info;
	struct slabx_cache *s;
	unsigned int nr;
	void **p;

	pin(test, 0);
	s = cache_create(test, "kunit-nolock-large", 8192, &args);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	slabx_cache_info(s, &info);
	KUNIT_ASSERT_GT(test, info.order, 3U);
	nr = info.objs_per_slab * 5;
	p = kunit_kmalloc_array(test, nr, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	alloc_n(test, s, p, nr);
	deferred = slabx_nolock_pages_stat(SLABX_NOLOCK_PAGES_DEFERRED);
	while (nr)
		slabx_free_nolock(s, p[--nr]);
	slabx_cache_info(s, &info);
	/* Two free slabs are kept, the other three went back. */
	KUNIT_EXPECT_EQ(test, info.slabs, 2UL);
	KUNIT_EXPECT_EQ(test, info.objects_inuse, 0UL);
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_SLAB_DISCARD), 3UL);
	/* Orders above the reserve's go through the deferred list. */
	KUNIT_EXPECT_GE(test, slabx_nolock_pages_stat(SLABX_NOLOCK_PAGES_DEFERRED), deferred + 3);
	KUNIT_EXPECT_TRUE(test, nolock_drained(deferred + 3));
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

/* ---- cache creation under metadata allocation failure ---------------------- */

/*
 * Fail each metadata allocation of slabx_cache_create() in turn, the
 * first one to the last one: -ENOMEM every time, nothing registered (the
 * name is free again), and no fault while the half-made cache is freed.
 */
static void create_fails_cleanly(struct kunit *test,
				 const struct slabx_cache_args *args)
{
	struct slabx_cache *s;
	void *obj;
	int nth;

	for (nth = 1; nth < 256; nth++) {
		fault_inject(test, slabx_fault_inject_meta, nth);
		s = cache_create(test, "kunit-failmeta", 100, args);
		if (s)
			break;
	}
	fault_inject_end(test, slabx_fault_inject_meta);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	kunit_info(test, "%d failure points\n", nth - 1);
	/* The cache, its name, stats, node array and nodes at least. */
	KUNIT_EXPECT_GE(test, nth - 1, 5);
	obj = slabx_alloc(s, GFP_KERNEL);
	KUNIT_EXPECT_NOT_NULL(test, obj);
	slabx_free(s, obj);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

static void create_under_memory_failure(struct kunit *test)
{
	struct slabx_cache_args sheaves = { 0 };
	struct slabx_cache_args pool = { .pool_objects = 64 };

	create_fails_cleanly(test, &sheaves);
	create_fails_cleanly(test, &pool);
}

/* ---- node of objects from a returned prefilled sheaf ----------------------- */

/* An online CPU of another node than @cpu's that has memory, or -1. */
static int cpu_of_other_node(int cpu)
{
	int other;

	for_each_online_cpu(other)
		if (cpu_to_node(other) != cpu_to_node(cpu) &&
		    node_state(cpu_to_mem(other), N_MEMORY))
			return other;
	return -1;
}

/*
 * A sheaf prefilled on node A and returned on a CPU of node B must not
 * become B's spare (or go into B's barn): slabx_alloc_node(B) would then
 * hand out A's memory from the sheaves.
 */
static void alloc_node_after_foreign_sheaf_return(struct kunit *test)
{
	const unsigned int cap = 16;
	struct slabx_sheaf *sheaf;
	struct slabx_cache *s;
	int other, nid, i;
	void *p[4 * 16];

	other = cpu_of_other_node(0);
	if (other < 0)
		kunit_skip(test, "needs a CPU of a second node with memory");
	nid = cpu_to_mem(other);
	s = cache(test, "kunit-foreign-sheaf", 64, cap);
	pin(test, 0);
	sheaf = slabx_prefill_sheaf(s, GFP_KERNEL, cap);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sheaf);
	pin(test, other);
	slabx_return_sheaf(s, GFP_KERNEL, sheaf);
	for (i = 0; i < ARRAY_SIZE(p); i++) {
		p[i] = slabx_alloc_node(s, GFP_KERNEL, nid);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
		KUNIT_EXPECT_EQ_MSG(test, page_to_nid(virt_to_page(p[i])), nid,
				    "object %d of node %d's allocation", i, nid);
	}
	free_n(s, p, ARRAY_SIZE(p));
	KUNIT_EXPECT_EQ(test, objects_held(s), 0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

static struct kunit_case slabx_reliability_cases[] = {
	KUNIT_CASE(destroy_from_reclaim_workqueue),
	KUNIT_CASE_SLOW(destroy_races_late_frees),
	KUNIT_CASE(shrink_with_barn_at_empty_limit),
	KUNIT_CASE(nolock_free_large_objects),
	KUNIT_CASE(create_under_memory_failure),
	KUNIT_CASE(alloc_node_after_foreign_sheaf_return),
	{}
};

static struct kunit_suite slabx_reliability_suite = {
	.name = "slabx_reliability",
	.test_cases = slabx_reliability_cases,
};

kunit_test_suites(&slabx_reliability_suite);

MODULE_DESCRIPTION("KUnit tests of slabx used from outside: races, misuse, memory failure");

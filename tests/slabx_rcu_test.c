// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for slabx_free_rcu(): objects stay intact while RCU readers
 * may hold them, come back after the grace period (through the barn as
 * whole sheaves), and are never lost: not on destroy right after the free,
 * not in hard-IRQ context, not when no sheaf can be had, not when their
 * CPU dies.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/irqflags.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/prandom.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/workqueue.h>

#include "../slabx.h"
#include "slabx_kunit.h"
#include "slabx_test_hooks.h"

#define PATTERN		0xa5

static unsigned long rcu_waiting(struct slabx_cache *s)
{
	struct slabx_info info;

	slabx_cache_info(s, &info);
	return info.objects_rcu_waiting;
}

static void fill(struct slabx_cache *s, void **p, int n)
{
	struct slabx_info info;
	int i;

	slabx_cache_info(s, &info);
	for (i = 0; i < n; i++)
		memset(p[i], PATTERN, info.object_size);
}

/* Every byte of @n objects still holds the pattern. */
static bool intact(struct slabx_cache *s, void **p, int n)
{
	struct slabx_info info;
	int i;

	slabx_cache_info(s, &info);
	for (i = 0; i < n; i++)
		if (memchr_inv(p[i], PATTERN, info.object_size))
			return false;
	return true;
}

static void free_rcu_n(struct slabx_cache *s, void **p, int n)
{
	int i;

	for (i = 0; i < n; i++)
		slabx_free_rcu(s, p[i]);
}

static bool contains(void **set, int n, void *obj)
{
	int i;

	for (i = 0; i < n; i++)
		if (set[i] == obj)
			return true;
	return false;
}

/*
 * Inside a read-side section: allocate and scribble over @nr objects with
 * GFP_ATOMIC, wait a while, and count the violations: objects handed out
 * that are among the @n freed ones, and freed ones no longer intact. No
 * KUnit expectation in here: a failing one allocates with GFP_KERNEL.
 * Return: the number of violations; *@got: objects allocated into @tmp.
 */
static int churn_in_reader(struct slabx_cache *s, void **freed, int n,
			   void **tmp, int nr, int *got)
{
	struct slabx_info info;
	int i, bad = 0;

	slabx_cache_info(s, &info);
	for (i = 0; i < nr; i++) {
		tmp[i] = slabx_alloc(s, GFP_ATOMIC);
		if (!tmp[i])
			break;
		bad += contains(freed, n, tmp[i]);
		memset(tmp[i], 0x5a, info.object_size);
	}
	*got = i;
	mdelay(20);	/* time for a grace period, were we not a reader */
	return bad + !intact(s, freed, n);
}

/*
 * A cache in use has empty sheaves in its barn, left by allocations that
 * took full ones; readers and hard IRQs cannot allocate sheaves, so give
 * the cache some. The @n objects stay allocated.
 */
static void make_empty_sheaves(struct kunit *test, struct slabx_cache *s,
			       void **p, int n)
{
	alloc_n(test, s, p, n);
	free_n(s, p, n);
	alloc_n(test, s, p, n);
}

/*
 * A reader that found the objects before slabx_free_rcu() sees them
 * unchanged until it leaves, even when their sheaf was queued at once;
 * after the grace period the same objects are handed out again.
 */
static void reader_keeps_objects(struct kunit *test)
{
	struct slabx_cache *s = cache(test, "kunit-rcu-reader", 64, 8);
	void **o = kunit_kcalloc(test, 8, sizeof(*o), GFP_KERNEL);
	void **tmp = kunit_kcalloc(test, 192, sizeof(*tmp), GFP_KERNEL);
	unsigned long submitted, done;
	int bad, got, i, found = 0;
	struct snap sn;

	require_sheaves(test);

	KUNIT_ASSERT_NOT_NULL(test, o);
	KUNIT_ASSERT_NOT_NULL(test, tmp);
	pin(test, 0);
	alloc_n(test, s, o, 8);
	make_empty_sheaves(test, s, tmp + 64, 64);
	fill(s, o, 8);
	snap_take(s, &sn);

	rcu_read_lock();
	free_rcu_n(s, o, 8);		/* one full sheaf: queued at once */
	submitted = delta(s, &sn, SLABX_RCU_SHEAF_SUBMITTED);
	bad = churn_in_reader(s, o, 8, tmp, 64, &got);
	done = delta(s, &sn, SLABX_FREE_RCU_DONE);
	rcu_read_unlock();
	KUNIT_EXPECT_EQ(test, submitted, 1UL);
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_EXPECT_EQ(test, done, 0UL);
	KUNIT_EXPECT_EQ(test, got, 64);
	free_n(s, tmp, got);

	slabx_rcu_barrier(s);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_FREE_RCU_DONE), 8UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_RCU_SHEAF_TO_BARN), 1UL);
	KUNIT_EXPECT_EQ(test, rcu_waiting(s), 0UL);

	/*
	 * Reused: the main and spare sheaves first, then the barn's, newest
	 * first. The churn's 8 sheaves may have landed after the rcu sheaf
	 * (the grace period can end once the reader left, before they are
	 * freed), and the 8 freed here do: at most 2 + 8 + 8 sheaves of 8
	 * come before it (the barn keeps 32).
	 */
	free_n(s, tmp + 64, 64);
	alloc_n(test, s, tmp, 192);
	for (i = 0; i < 8; i++)
		found += contains(tmp, 192, o[i]);
	KUNIT_EXPECT_EQ(test, found, 8);
	free_n(s, tmp, 192);
	KUNIT_EXPECT_EQ(test, objects_held(s), 0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

/*
 * On CPU @cpu, allocate 8 objects of @s: one full sheaf of the barn, no
 * new slab (expected here). Freed again. Return: whether they are the 8
 * of @o (sorted meanwhile).
 */
static bool barn_serves(struct kunit *test, struct slabx_cache *s, int cpu,
			void **o)
{
	struct snap sn;
	void *p[8];

	pin(test, cpu);
	snap_take(s, &sn);
	alloc_n(test, s, p, 8);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_BARN_GET), 1UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_SLAB_NEW), 0UL);
	free_n(s, p, 8);
	sort(o, 8, sizeof(*o), cmp_ptr, NULL);
	sort(p, 8, sizeof(*p), cmp_ptr, NULL);
	return !memcmp(o, p, sizeof(p));
}

/*
 * A full rcu_free sheaf lands in the barn as a full sheaf, and another CPU
 * of the node allocates exactly those objects from it, without a new slab.
 */
static void full_sheaf_to_barn_for_other_cpu(struct kunit *test)
{
	struct slabx_cache *s = cache(test, "kunit-rcu-barn", 128, 8);
	void *o[8];
	struct slabx_info info;
	struct snap sn;
	int a, b;

	require_sheaves(test);

	a = same_node_pair(&b);
	if (a < 0) {		/* one CPU (UML): the same path, on it */
		a = 0;
		b = 0;
	}
	pin(test, a);
	alloc_n(test, s, o, 8);
	slabx_cache_shrink(s);	/* empty sheaves: allocations go to the barn */
	snap_take(s, &sn);
	free_rcu_n(s, o, 8);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_FREE_RCU_SHEAF), 8UL);
	slabx_rcu_barrier(s);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_RCU_SHEAF_TO_BARN), 1UL);
	slabx_cache_info(s, &info);
	KUNIT_EXPECT_EQ(test, info.objects_barn, 8UL);

	KUNIT_EXPECT_TRUE(test, barn_serves(test, s, b, o));
	KUNIT_EXPECT_EQ(test, objects_held(s), 0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

/* Two online CPUs of node @nid (the same one twice if it has one), or -1. */
static int node_cpu_pair(int nid, int *b)
{
	int a = -1, cpu;

	for_each_online_cpu(cpu) {
		if (cpu_to_node(cpu) != nid)
			continue;
		*b = cpu;
		if (a < 0)
			a = cpu;
		else
			break;
	}
	return a;
}

/* Sleep until @s has put @nr more rcu_free sheaves into a barn; the us. */
static u64 wait_sheaves_to_barn(struct kunit *test, struct slabx_cache *s,
				struct snap *sn, unsigned long nr)
{
	u64 start = ktime_get_ns();

	while (delta(s, sn, SLABX_RCU_SHEAF_TO_BARN) < nr) {
		KUNIT_ASSERT_LT_MSG(test, ktime_get_ns() - start, 30 * NSEC_PER_SEC,
				    "rcu_free sheaves not in a barn after 30 s");
		usleep_range(100, 200);
	}
	return div_u64(ktime_get_ns() - start, NSEC_PER_USEC);
}

#define HOME_ROUNDS	4

/*
 * Wherever the RCU callbacks run (with rcu_nocbs= in rcuo kthreads, on any
 * CPU, and never on the offloaded ones), a full rcu_free sheaf lands in the
 * barn of the node it was filled on and serves that node's CPUs. For every
 * node, a few rounds: one CPU of the node frees a full sheaf, and once it
 * is in a barn another CPU of the node allocates exactly those objects from
 * its barn. Prints how long the sheaves waited, from their last free to the
 * barn.
 */
static void full_sheaves_go_home(struct kunit *test)
{
	struct slabx_cache *s = cache(test, "kunit-rcu-home", 128, 8);
	u64 us, min_us = U64_MAX, max_us = 0, sum_us = 0;
	int nid, a, b, round, sheaves = 0;
	void *o[8];
	struct snap sn;

	require_sheaves(test);

	for_each_online_node(nid) {
		a = node_cpu_pair(nid, &b);
		if (a < 0)
			continue;
		for (round = 0; round < HOME_ROUNDS; round++) {
			pin(test, a);
			alloc_n(test, s, o, 8);
			slabx_cache_shrink(s);	/* allocations go to the barn */
			snap_take(s, &sn);
			free_rcu_n(s, o, 8);
			KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_RCU_SHEAF_SUBMITTED), 1UL);
			us = wait_sheaves_to_barn(test, s, &sn, 1);
			min_us = min(min_us, us);
			max_us = max(max_us, us);
			sum_us += us;
			sheaves++;

			KUNIT_EXPECT_TRUE_MSG(test, barn_serves(test, s, b, o),
					      "node %d round %d: not the sheaf's objects",
					      nid, round);
		}
	}
	kunit_info(test, "%d full sheaves of 8: in their node's barn %llu us (min) %llu us (mean) %llu us (max) after the last free\n",
		   sheaves, min_us, div_u64(sum_us, sheaves ?: 1), max_us);
	KUNIT_EXPECT_EQ(test, objects_held(s), 0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

#define PROFILE_SHEAVES	128

/*
 * How many objects wait for their grace period, and for how long, while
 * one CPU frees a stream of objects: the peak of objects_rcu_waiting and
 * the time from the last free until every object is free again. Printed
 * to compare boots (rcu_nocbs= or not); checked only for losing nothing.
 * With grace periods pending the stream's sheaves may be large, and the
 * last one is then partial: a shrink queues it at once, as the age
 * monitor (stopped in this suite) would a second later.
 */
static void rcu_wait_profile(struct kunit *test)
{
	struct slabx_cache *s = cache(test, "kunit-rcu-profile", 64, 16);
	unsigned long waiting, peak = 0;
	u64 start, us;
	void *o[16];
	struct snap sn;
	int i;

	require_sheaves(test);

	pin(test, 0);
	snap_take(s, &sn);
	for (i = 0; i < PROFILE_SHEAVES; i++) {
		alloc_n(test, s, o, 16);
		free_rcu_n(s, o, 16);
		peak = max(peak, rcu_waiting(s));
	}
	start = ktime_get_ns();
	slabx_cache_shrink(s);
	while ((waiting = rcu_waiting(s))) {
		KUNIT_ASSERT_LT_MSG(test, ktime_get_ns() - start, 30 * NSEC_PER_SEC,
				    "%lu objects still wait after 30 s", waiting);
		usleep_range(100, 200);
	}
	us = div_u64(ktime_get_ns() - start, NSEC_PER_USEC);
	kunit_info(test, "%d objects freed in %lu sheaves: at most %lu waiting; all free %llu us after the last free; %lu sheaves to the barn, %lu filled from large ones\n",
		   PROFILE_SHEAVES * 16,
		   delta(s, &sn, SLABX_RCU_SHEAF_SUBMITTED), peak, us,
		   delta(s, &sn, SLABX_RCU_SHEAF_TO_BARN),
		   delta(s, &sn, SLABX_RCU_SHEAF_SPLIT));
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_FREE_RCU_DONE),
			PROFILE_SHEAVES * 16UL);
	KUNIT_EXPECT_EQ(test, objects_held(s), 0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

/*
 * Beyond the barn's limit of full sheaves, and for partial ones: flushed.
 * Each sheaf is waited for, so that the next one is of the cache's
 * capacity (with a grace period pending it would be large).
 */
static void rcu_sheaves_flushed_when_barn_full(struct kunit *test)
{
	struct slabx_cache *s = cache(test, "kunit-rcu-flush", 64, 4);
	struct slabx_info info;
	unsigned long max, n, i;
	struct snap sn;
	void **o;

	require_sheaves(test);
	slabx_cache_info(s, &info);
	max = info.barn_max_full;
	/* A sheaf of 4 objects of 64 bytes: the barn keeps the most. */
	KUNIT_EXPECT_EQ(test, max, 32UL);
	n = (max + 1) * 4 + 2;		/* max + 1 full sheaves and 2 objects */
	o = kunit_kcalloc(test, n, sizeof(*o), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, o);
	pin(test, 0);
	alloc_n(test, s, o, n);
	snap_take(s, &sn);
	for (i = 0; i < n; i += 4) {
		free_rcu_n(s, o + i, min(4UL, n - i));
		slabx_rcu_barrier(s);
	}
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_RCU_SHEAF_SUBMITTED), max + 2);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_RCU_SHEAF_LARGE), 0UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_RCU_SHEAF_TO_BARN), max);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_RCU_SHEAF_FLUSHED), 2UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_FREE_RCU_DONE), n);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_FREE), n);
	KUNIT_EXPECT_EQ(test, objects_held(s), 0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

#define LARGE_OBJS	14	/* 3 sheaves of 4 and 2 more */
#define LARGE_EMPTIES	3

/*
 * Park @nr empty sheaves: this CPU's spare (which a shrink took), then the
 * barn's. Their objects, 4 each, are left in @p.
 */
static void park_empty_sheaves(struct kunit *test, struct slabx_cache *s,
			       void **p, int nr)
{
	struct slabx_sheaf *sheaf;
	int i, j;

	for (i = 0; i < nr; i++) {
		sheaf = slabx_prefill_sheaf(s, GFP_KERNEL, 4);
		KUNIT_ASSERT_NOT_NULL(test, sheaf);
		for (j = 0; j < 4; j++)
			*p++ = slabx_alloc_from_sheaf(s, GFP_KERNEL, sheaf);
		slabx_return_sheaf(s, GFP_KERNEL, sheaf);
	}
}

/*
 * slabx_free_rcu() of a full sheaf of 4 objects of @o, then of the rest:
 * each of the two sheaves is a new one, not a parked empty sheaf (the
 * fault injection skips those), and the first one's grace period cannot
 * end before the second opens. Where RCU readers may be preempted, a
 * reader holds the grace period back (and this CPU may allocate in it);
 * elsewhere this CPU must schedule for it to end, which nothing here does
 * (a reader would disable preemption, and with it the allocation).
 */
static void free_rcu_full_then_more(struct slabx_cache *s, void **o, int n)
{
	bool reader = IS_ENABLED(CONFIG_PREEMPT_RCU);

	if (reader)
		rcu_read_lock();
	slabx_fault_inject_rcu_sheaf(1);
	free_rcu_n(s, o, 4);
	slabx_fault_inject_rcu_sheaf(1);
	free_rcu_n(s, o + 4, n - 4);
	if (reader)
		rcu_read_unlock();
}

/*
 * While the last full rcu_free sheaf of this CPU waits for its grace
 * period, slabx_free_rcu() with no empty sheaf at hand allocates a large
 * rcu_free sheaf, which does not fill at the cache's capacity. After its
 * grace period the large sheaf fills the barn's empty sheaves (stored as
 * full: the next allocations get exactly its last objects from the barn),
 * the rest of its objects go back to their slabs, and the large sheaf is
 * freed, never stored.
 */
static void large_sheaf_while_grace_period_pends(struct kunit *test)
{
	struct slabx_cache *s = cache(test, "kunit-rcu-large", 64, 4);
	void *o[4 + LARGE_OBJS], *e[(LARGE_EMPTIES + 1) * 4], *got[16];
	struct slabx_info info;
	struct snap sn;
	int i;

	require_sheaves(test);
	pin(test, 0);
	alloc_n(test, s, o, ARRAY_SIZE(o));
	slabx_cache_shrink(s);	/* no empty sheaf: no spare, none in a barn */
	park_empty_sheaves(test, s, e, LARGE_EMPTIES + 1);
	snap_take(s, &sn);
	/* Reset when the case ends, however it ends. */
	fault_inject(test, slabx_fault_inject_rcu_sheaf, 0);
	free_rcu_full_then_more(s, o, ARRAY_SIZE(o));
	fault_inject_end(test, slabx_fault_inject_rcu_sheaf);
	/* A sheaf of 4, queued full; then a large one, left partial. */
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_RCU_SHEAF_SUBMITTED), 1UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_RCU_SHEAF_LARGE), 1UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_FREE_RCU_SHEAF),
			(unsigned long)ARRAY_SIZE(o));

	slabx_rcu_barrier(s);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_RCU_SHEAF_SUBMITTED), 2UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_RCU_SHEAF_TO_BARN), 1UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_RCU_SHEAF_SPLIT),
			(unsigned long)LARGE_EMPTIES);
	/* What the barn's sheaves left of the large one, then it is freed. */
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_RCU_SHEAF_FLUSHED), 1UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_SHEAF_FREE), 1UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_FREE_RCU_DONE),
			(unsigned long)ARRAY_SIZE(o));
	slabx_cache_info(s, &info);
	KUNIT_EXPECT_EQ(test, info.objects_barn, 4UL * (1 + LARGE_EMPTIES));
	KUNIT_EXPECT_EQ(test, info.sheaves_barn_empty, 0UL);
	KUNIT_EXPECT_EQ(test, rcu_waiting(s), 0UL);

	/*
	 * The barn's 4 full sheaves, in any order: the small sheaf's o[0..3]
	 * and the large sheaf's last 12, o[6..17].
	 */
	snap_take(s, &sn);
	alloc_n(test, s, got, 16);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_BARN_GET), 4UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_SLAB_NEW), 0UL);
	for (i = 0; i < (int)ARRAY_SIZE(o); i++)
		KUNIT_EXPECT_EQ_MSG(test, contains(got, 16, o[i]), i < 4 || i >= 6,
				    "o[%d]", i);

	free_n(s, got, 16);
	free_n(s, e, ARRAY_SIZE(e));
	KUNIT_EXPECT_EQ(test, objects_held(s), 0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

/* Create, allocate, free_rcu, destroy at once: no error, no leak. */
static int free_rcu_then_destroy(const char *name, unsigned int flags,
				 struct rnd_state *rnd)
{
	struct slabx_cache_args args = {
		.flags = flags,
		.sheaf_capacity = 1 + prandom_u32_state(rnd) % 32,
	};
	int i, want = 1 + prandom_u32_state(rnd) % 100, n;
	struct slabx_cache *s;
	void **o;

	o = kcalloc(want, sizeof(*o), GFP_KERNEL);
	if (!o)
		return -ENOMEM;
	s = slabx_cache_create(name, 8 + prandom_u32_state(rnd) % 500, &args);
	if (!s) {
		kfree(o);
		return -ENOMEM;
	}
	for (n = 0; n < want; n++) {
		o[n] = slabx_alloc(s, GFP_KERNEL);
		if (!o[n])
			break;
	}
	for (i = 0; i < n; i++) {
		slabx_free_rcu(s, o[i]);
		if (prandom_u32_state(rnd) % 16 == 0)
			udelay(prandom_u32_state(rnd) % 200);
	}
	kfree(o);
	return slabx_cache_destroy(s) ?: (n == want ? 0 : -ENOMEM);
}

static void destroy_right_after_free_rcu(struct kunit *test)
{
	struct rnd_state rnd;
	int i;

	prandom_seed_state(&rnd, 42);
	for (i = 0; i < 20; i++) {
		KUNIT_EXPECT_EQ(test, free_rcu_then_destroy("kunit-rcu-destroy",
							    0, &rnd), 0);
		KUNIT_EXPECT_EQ(test, free_rcu_then_destroy("kunit-rcu-destroy",
							    SLABX_NO_SHEAVES,
							    &rnd), 0);
	}
}

struct destroy_work {
	struct work_struct work;
	char name[24];
	int errors;
};

static void destroy_work_fn(struct work_struct *work)
{
	struct destroy_work *dw = container_of(work, struct destroy_work, work);
	struct rnd_state rnd;
	int i;

	prandom_seed_state(&rnd, (unsigned long)dw);
	for (i = 0; i < 10; i++) {
		if (free_rcu_then_destroy(dw->name, 0, &rnd))
			dw->errors++;
		udelay(prandom_u32_state(&rnd) % 1000);
	}
}

/* The same from four work items at once, with random delays. */
static void destroy_after_free_rcu_from_workqueue(struct kunit *test)
{
	struct destroy_work *dw;
	int i;

	dw = kunit_kcalloc(test, 4, sizeof(*dw), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dw);
	for (i = 0; i < 4; i++) {
		INIT_WORK(&dw[i].work, destroy_work_fn);
		snprintf(dw[i].name, sizeof(dw[i].name), "kunit-rcu-wq%d", i);
		queue_work(system_unbound_wq, &dw[i].work);
	}
	for (i = 0; i < 4; i++) {
		flush_work(&dw[i].work);
		KUNIT_EXPECT_EQ(test, dw[i].errors, 0);
	}
}

#define HARDIRQ_OBJS	256

struct irq_free {
	struct hrtimer timer;
	struct slabx_cache *s;
	void **o;
	int next;
	int not_hardirq;
	struct completion done;
};

static enum hrtimer_restart irq_free_fn(struct hrtimer *timer)
{
	struct irq_free *f = container_of(timer, struct irq_free, timer);
	int i;

	if (!in_hardirq())
		f->not_hardirq++;
	for (i = 0; i < 8 && f->next < HARDIRQ_OBJS; i++)
		slabx_free_rcu(f->s, f->o[f->next++]);
	if (f->next == HARDIRQ_OBJS) {
		complete(&f->done);
		return HRTIMER_NORESTART;
	}
	hrtimer_forward_now(timer, ns_to_ktime(100 * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

/* slabx_free_rcu() from an hrtimer in hard-IRQ context, and IRQs off. */
static void free_rcu_from_hardirq(struct kunit *test)
{
	struct irq_free *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	unsigned long flags;
	struct snap sn;

	require_sheaves(test);

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->o = kunit_kcalloc(test, HARDIRQ_OBJS, sizeof(*f->o), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->o);
	f->s = cache(test, "kunit-rcu-irq", 96, 16);
	init_completion(&f->done);
	pin(test, 0);
	make_empty_sheaves(test, f->s, f->o, HARDIRQ_OBJS);
	snap_take(f->s, &sn);

	hrtimer_init(&f->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	f->timer.function = irq_free_fn;
	hrtimer_start(&f->timer, ns_to_ktime(100 * NSEC_PER_USEC), HRTIMER_MODE_REL_HARD);
	KUNIT_EXPECT_GT(test, wait_for_completion_timeout(&f->done, 10 * HZ),
			0UL);
	hrtimer_cancel(&f->timer);
	KUNIT_EXPECT_EQ(test, f->not_hardirq, 0);
	KUNIT_EXPECT_EQ(test, delta(f->s, &sn, SLABX_FREE_RCU),
			(unsigned long)HARDIRQ_OBJS);
	KUNIT_EXPECT_GT(test, delta(f->s, &sn, SLABX_FREE_RCU_SHEAF), 0UL);

	alloc_n(test, f->s, f->o, HARDIRQ_OBJS);
	local_irq_save(flags);
	free_rcu_n(f->s, f->o, HARDIRQ_OBJS);
	local_irq_restore(flags);

	slabx_rcu_barrier(f->s);
	KUNIT_EXPECT_EQ(test, delta(f->s, &sn, SLABX_FREE_RCU_DONE),
			2UL * HARDIRQ_OBJS);
	KUNIT_EXPECT_EQ(test, rcu_waiting(f->s), 0UL);
	KUNIT_EXPECT_EQ(test, objects_held(f->s), 0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, f->s), 0);
}

/*
 * With no rcu_free sheaf to be had (or no sheaves at all), objects wait in
 * their slabs: still intact for readers, none handed out early, none lost.
 */
static void fallback_in_slab(struct kunit *test, unsigned int flags)
{
	struct slabx_cache_args args = { .flags = flags, .sheaf_capacity = 8 };
	void **o = kunit_kcalloc(test, 100, sizeof(*o), GFP_KERNEL);
	void **tmp = kunit_kcalloc(test, 100, sizeof(*tmp), GFP_KERNEL);
	struct slabx_cache *s;
	unsigned long done;
	struct snap sn;
	int bad, got;

	KUNIT_ASSERT_NOT_NULL(test, o);
	KUNIT_ASSERT_NOT_NULL(test, tmp);
	s = cache_create(test, "kunit-rcu-fallback", 200, &args);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	pin(test, 0);
	alloc_n(test, s, o, 100);
	fill(s, o, 100);
	snap_take(s, &sn);

	fault_inject(test, slabx_fault_inject_rcu_sheaf, -1);
	rcu_read_lock();
	free_rcu_n(s, o, 100);
	bad = churn_in_reader(s, o, 100, tmp, 100, &got);
	done = delta(s, &sn, SLABX_FREE_RCU_DONE);
	rcu_read_unlock();
	fault_inject_end(test, slabx_fault_inject_rcu_sheaf);
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_EXPECT_EQ(test, done, 0UL);
	KUNIT_EXPECT_EQ(test, got, 100);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_FREE_RCU_FALLBACK), 100UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_FREE_RCU_SHEAF), 0UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_RCU_SHEAF_SUBMITTED), 0UL);

	slabx_rcu_barrier(s);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_FREE_RCU_DONE), 100UL);
	KUNIT_EXPECT_EQ(test, rcu_waiting(s), 0UL);
	KUNIT_EXPECT_EQ(test, objects_held(s), (unsigned long)got);
	free_n(s, tmp, got);
	KUNIT_EXPECT_EQ(test, objects_held(s), 0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

static void fallback_without_sheaf(struct kunit *test)
{
	fallback_in_slab(test, 0);
}

static void fallback_without_sheaves(struct kunit *test)
{
	fallback_in_slab(test, SLABX_NO_SHEAVES);
}

/* A dead CPU's partial rcu_free sheaf is queued, not dropped. */
static void cpu_dead_submits_rcu_sheaf(struct kunit *test)
{
	struct slabx_cache *s;
	int victim;
	struct snap sn;
	void *o[5];

	victim = hotplug_victim();
	if (victim < 0)
		kunit_skip(test, "needs a second CPU");
	s = cache(test, "kunit-rcu-dead", 64, 16);
	pin(test, victim);
	alloc_n(test, s, o, 5);
	snap_take(s, &sn);
	free_rcu_n(s, o, 5);
	pin(test, 0);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_RCU_SHEAF_SUBMITTED), 0UL);

	KUNIT_ASSERT_EQ(test, take_cpu_offline(test, victim), 0);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_RCU_SHEAF_SUBMITTED), 1UL);
	KUNIT_ASSERT_EQ(test, bring_cpu_online(test, victim), 0);
	slabx_rcu_barrier(s);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_FREE_RCU_DONE), 5UL);
	KUNIT_EXPECT_EQ(test, objects_held(s), 0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

/*
 * Destroying one cache (its barrier) neither queues nor waits for another
 * cache's partial rcu_free sheaf.
 */
static void barrier_is_per_cache(struct kunit *test)
{
	struct slabx_cache *a, *b;
	void *o[3], *p[3];
	struct snap sn;

	require_sheaves(test);

	a = cache(test, "kunit-rcu-a", 64, 16);
	b = cache(test, "kunit-rcu-b", 64, 16);
	pin(test, 0);
	alloc_n(test, b, o, 3);
	alloc_n(test, a, p, 3);
	snap_take(b, &sn);
	free_rcu_n(b, o, 3);
	free_rcu_n(a, p, 3);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, a), 0);
	KUNIT_EXPECT_EQ(test, delta(b, &sn, SLABX_RCU_SHEAF_SUBMITTED), 0UL);
	KUNIT_EXPECT_EQ(test, rcu_waiting(b), 3UL);
	slabx_rcu_barrier(b);
	KUNIT_EXPECT_EQ(test, delta(b, &sn, SLABX_RCU_SHEAF_SUBMITTED), 1UL);
	KUNIT_EXPECT_EQ(test, rcu_waiting(b), 0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, b), 0);
}

static void monitor_pause(void *unused)
{
	slabx_rcu_free_monitor_pause();
}

/*
 * Wait until @n objects of @s given to slabx_free_rcu() since @sn are
 * free again, for 30 times the age limit at most (a slow host).
 * Return: the ms waited since @start.
 */
static unsigned long wait_rcu_done(struct slabx_cache *s, struct snap *sn,
				   unsigned long n, unsigned long start)
{
	unsigned long limit = start +
			      msecs_to_jiffies(30 * SLABX_RCU_FREE_MAX_AGE_MS);

	while (delta(s, sn, SLABX_FREE_RCU_DONE) < n &&
	       time_before(jiffies, limit))
		msleep(20);
	return jiffies_to_msecs(jiffies - start);
}

/*
 * A partial rcu_free sheaf of a CPU that stops freeing is queued by the
 * age monitor, once SLABX_RCU_FREE_MAX_AGE_MS old and not before; its
 * objects are then free again with no barrier (about twice the age at
 * most, plus a grace period). The other cases of the suite run with the
 * monitor stopped, so that their partial sheaves stay partial however
 * slow a step is. First the monitor is restarted right after the frees,
 * so that it runs at once on a young sheaf and must arm itself again;
 * then, with the monitor idle, a new sheaf opens and must arm it.
 */
static void partial_sheaf_queued_by_age(struct kunit *test)
{
	unsigned long max_age = msecs_to_jiffies(SLABX_RCU_FREE_MAX_AGE_MS);
	unsigned long start, waited_ms;
	struct slabx_cache *s;
	void *o[5], *tmp[16];
	struct snap sn;
	bool young;
	int ret;

	require_sheaves(test);
	s = cache(test, "kunit-rcu-age", 64, 16);
	pin(test, 0);
	make_empty_sheaves(test, s, tmp, 16);
	alloc_n(test, s, o, 5);
	snap_take(s, &sn);
	start = jiffies;
	free_rcu_n(s, o, 5);
	KUNIT_ASSERT_EQ(test, delta(s, &sn, SLABX_FREE_RCU_SHEAF), 5UL);
	/* Lift the suite's pause for this case; the action puts it back. */
	slabx_rcu_free_monitor_resume();
	ret = kunit_add_action_or_reset(test, monitor_pause, NULL);
	KUNIT_ASSERT_EQ(test, ret, 0);
	young = time_before(jiffies, start + max_age);
	if (young)
		KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_RCU_SHEAF_SUBMITTED),
				0UL);
	waited_ms = wait_rcu_done(s, &sn, 5, start);
	kunit_info(test, "young sheaf: free again after %lu ms%s\n", waited_ms,
		   young ? "" : " (host too slow to see it kept)");
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_FREE_RCU_DONE), 5UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_RCU_SHEAF_AGED), 1UL);
	KUNIT_EXPECT_GE(test, waited_ms,
			(unsigned long)SLABX_RCU_FREE_MAX_AGE_MS);

	/* The monitor saw nothing young since: idle until a sheaf opens. */
	alloc_n(test, s, o, 5);
	snap_take(s, &sn);
	start = jiffies;
	free_rcu_n(s, o, 5);
	KUNIT_ASSERT_EQ(test, delta(s, &sn, SLABX_FREE_RCU_SHEAF), 5UL);
	waited_ms = wait_rcu_done(s, &sn, 5, start);
	kunit_info(test, "sheaf opened while idle: free again after %lu ms\n",
		   waited_ms);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_FREE_RCU_DONE), 5UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_RCU_SHEAF_AGED), 1UL);
	KUNIT_EXPECT_GE(test, waited_ms,
			(unsigned long)SLABX_RCU_FREE_MAX_AGE_MS);
	free_n(s, tmp, 16);
	KUNIT_EXPECT_EQ(test, objects_held(s), 0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

struct rcu_load {
	struct slabx_cache *s;
	bool stop;
	atomic_t running;
	struct work_struct barrier;
	struct completion barrier_done;
};

/* Keep calling slabx_free_rcu() until told to stop. */
static int rcu_load_fn(void *arg)
{
	struct rcu_load *l = arg;
	void *obj;

	/* Paced, so that the objects waiting stay bounded (debug objects). */
	while (!READ_ONCE(l->stop)) {
		obj = slabx_alloc(l->s, GFP_KERNEL);
		if (obj)
			slabx_free_rcu(l->s, obj);
		usleep_range(20, 50);
	}
	atomic_dec(&l->running);
	return 0;
}

/* At the end of a case that did not stop the load itself. */
static void rcu_load_stop(void *arg)
{
	struct rcu_load *l = arg;

	WRITE_ONCE(l->stop, true);
}

static void rcu_load_barrier(struct work_struct *work)
{
	struct rcu_load *l = container_of(work, struct rcu_load, barrier);

	slabx_rcu_barrier(l->s);
	complete(&l->barrier_done);
}

/*
 * slabx_rcu_barrier() returns while other threads keep freeing with
 * slabx_free_rcu(): it waits for the work that opened before it only.
 */
static void barrier_returns_under_load(struct kunit *test, bool fallback)
{
	int i, nr = max(1U, num_online_cpus() - 1);
	struct rcu_load *l;
	bool returned;

	l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, l);
	l->s = cache(test, "kunit-rcu-load", 64, 8);
	INIT_WORK(&l->barrier, rcu_load_barrier);
	init_completion(&l->barrier_done);
	if (fallback)
		fault_inject(test, slabx_fault_inject_rcu_sheaf, -1);
	atomic_set(&l->running, nr);
	for (i = 0; i < nr; i++) {
		struct task_struct *t = kthread_create(rcu_load_fn, l,
						       "rcu_load/%d", i);

		KUNIT_ASSERT_FALSE(test, IS_ERR(t));
		KUNIT_ASSERT_EQ(test, start_kthread(test, t, rcu_load_stop, l),
				0);
	}
	msleep(50);
	queue_work(system_unbound_wq, &l->barrier);
	returned = wait_for_completion_timeout(&l->barrier_done, 10 * HZ);
	WRITE_ONCE(l->stop, true);
	while (atomic_read(&l->running))
		msleep(20);
	/* Queue the partial sheaves, so that even a stuck barrier ends. */
	slabx_cache_shrink(l->s);
	flush_work(&l->barrier);
	fault_inject_end(test, slabx_fault_inject_rcu_sheaf);
	KUNIT_EXPECT_TRUE(test, returned);
	if (fallback)
		KUNIT_EXPECT_GT(test, slabx_cache_stat(l->s,
						       SLABX_FREE_RCU_FALLBACK),
				0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, l->s), 0);
}

static void barrier_returns_under_sheaf_load(struct kunit *test)
{
	barrier_returns_under_load(test, false);
}

static void barrier_returns_under_fallback_load(struct kunit *test)
{
	barrier_returns_under_load(test, true);
}

/* ---- destroy while CPUs come and go, and what destroy waits for -------------- */

/*
 * Takes the CPUs but 0 offline and online in turn while @active, until
 * told to stop; each cycle holds @lock, which a case takes to keep CPUs as
 * they are. Only while @active: every offlining is a chance for a race of
 * the 6.12 scheduler that fails a run (see scripts/splats.sh).
 */
struct hotplug_churn {
	bool stop;
	bool active;
	unsigned int cycles;
	int err;
	struct mutex lock;	/* held for each offline/online cycle */
	struct completion done;
};

/* add_cpu(), tried again for a while: the CPU must come back. */
static int add_cpu_retry(unsigned int cpu)
{
	int tries, ret;

	for (tries = 0; (ret = add_cpu(cpu)) && tries < 50; tries++)
		msleep(100);
	return ret;
}

/* Take @cpu offline and online again. Return: 0, 1 if refused, or error. */
static int hotplug_cycle(struct hotplug_churn *h, unsigned int cpu)
{
	int ret;

	mutex_lock(&h->lock);
	ret = remove_cpu(cpu) ? 1 : add_cpu_retry(cpu);
	mutex_unlock(&h->lock);
	return ret;
}

static int hotplug_churn_fn(void *arg)
{
	struct hotplug_churn *h = arg;
	unsigned int cpu = 0;
	int ret;

	while (!READ_ONCE(h->stop)) {
		if (!READ_ONCE(h->active)) {
			msleep(20);
			continue;
		}
		cpu = cpumask_next(cpu, cpu_present_mask);
		if (cpu >= nr_cpu_ids) {
			cpu = 0;
			continue;
		}
		ret = hotplug_cycle(h, cpu);
		if (ret < 0) {
			h->err = ret;
			break;
		}
		if (ret)
			msleep(20);
		else
			WRITE_ONCE(h->cycles, h->cycles + 1);
	}
	complete_all(&h->done);
	return 0;
}

/* Whether a cycle ended since @h->cycles was @start, or the churn failed. */
static bool churned(struct hotplug_churn *h, unsigned int start)
{
	return READ_ONCE(h->cycles) != start || READ_ONCE(h->err);
}

static void hotplug_churn_stop(void *arg)
{
	struct hotplug_churn *h = arg;

	WRITE_ONCE(h->stop, true);
}

/* Threads that allocate and free by RCU, @per objects each. */
struct rcu_freers {
	struct slabx_cache *s;
	unsigned int per;
	atomic_t running;
	atomic_t failed;
	struct completion done;
};

/* One of them, on @cpu while that CPU stays online. */
struct rcu_freer {
	struct rcu_freers *f;
	int cpu;
};

static int rcu_freer_fn(void *arg)
{
	struct rcu_freer *me = arg;
	struct rcu_freers *f = me->f;
	void *held[16] = {};
	unsigned int i;

	set_cpus_allowed_ptr(current, cpumask_of(me->cpu));
	for (i = 0; i < f->per; i++) {
		void *obj = slabx_alloc(f->s, GFP_KERNEL);

		if (!obj) {
			atomic_inc(&f->failed);
			break;
		}
		memset(obj, PATTERN, 128);
		/* Some wait a while allocated, so sheaves stay partial. */
		if (i >= 16)
			slabx_free_rcu(f->s, held[i % 16]);
		held[i % 16] = obj;
		if (!(i % 64))
			cond_resched();
	}
	for (i = 0; i < min(f->per, 16U); i++)
		slabx_free_rcu(f->s, held[i]);
	if (atomic_dec_and_test(&f->running))
		complete_all(&f->done);
	return 0;
}

/* Start @nr freers of @s, the last one on @victim; wait for them. */
static void free_rcu_on_cpus(struct kunit *test, struct slabx_cache *s,
			     unsigned int nr, int victim)
{
	struct rcu_freers *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct rcu_freer *me = kunit_kcalloc(test, nr, sizeof(*me),
					     GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_ASSERT_NOT_NULL(test, me);
	f->s = s;
	f->per = 2000;
	atomic_set(&f->running, nr);
	init_completion(&f->done);
	for (i = 0; i < nr; i++) {
		struct task_struct *t;

		me[i].f = f;
		me[i].cpu = i == nr - 1 ? victim :
			    cpumask_nth(i, cpu_online_mask);
		t = kthread_create(rcu_freer_fn, &me[i], "rcu_freer/%u", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t));
		KUNIT_ASSERT_EQ(test, start_kthread(test, t, NULL, NULL), 0);
	}
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&f->done, 120 * HZ),
			0UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->failed), 0);
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_FREE_RCU),
			(unsigned long)nr * f->per);
}

/*
 * One round: objects of @s freed by RCU on several CPUs wait for their
 * grace period, then @s is destroyed: with @held, while @victim, one of
 * those CPUs, is offline (no other hotplug meanwhile: the churn is held
 * off); else after the churn has taken some CPU offline, while it goes
 * on. No KUnit assertion while the churn is held off.
 */
static void destroy_round(struct kunit *test, struct hotplug_churn *h,
			  bool held)
{
	unsigned int zombies = slabx_zombie_count(), start, i;
	struct slabx_cache *s = cache(test, "kunit-rcu-hotplug", 128, 0);
	int victim = hotplug_victim();

	start = READ_ONCE(h->cycles);
	WRITE_ONCE(h->active, !held);
	free_rcu_on_cpus(test, s, min(num_online_cpus(), 4U), victim);
	if (held) {
		mutex_lock(&h->lock);
		KUNIT_EXPECT_EQ(test, take_cpu_offline(test, victim), 0);
		KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
		KUNIT_EXPECT_EQ(test, bring_cpu_online(test, victim), 0);
		mutex_unlock(&h->lock);
	} else {
		/* Up to 30 s for a cycle to end. */
		for (i = 0; i < 300 && !churned(h, start); i++)
			msleep(100);
		KUNIT_EXPECT_GT_MSG(test, READ_ONCE(h->cycles), start,
				    "no CPU went offline");
		KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
		WRITE_ONCE(h->active, false);
	}
	KUNIT_EXPECT_EQ(test, slabx_zombie_count(), zombies);
}

/*
 * slabx_cache_destroy() of a cache whose objects still wait for their
 * grace period, in rcu_free sheaves of several CPUs and sheaves already
 * queued, while CPUs go offline and online (mainline's SLUB needed
 * cpus_read_lock() around its flush of every CPU's sheaves), and while
 * one of those CPUs is offline: destroy finds every object free (it
 * returns 0: none leaked, no zombie), and with KASAN no callback touches
 * an object or slab after the destroy freed it. slabx puts no object
 * into KASAN's quarantine (its checks poison the shadow themselves), so
 * destroy needs no rcu_barrier() for the quarantine, as SLUB did.
 */
static void destroy_with_rcu_pending_under_hotplug(struct kunit *test)
{
	struct hotplug_churn *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	struct task_struct *t;
	unsigned int round;

	KUNIT_ASSERT_NOT_NULL(test, h);
	if (hotplug_victim() < 0)
		kunit_skip(test, "needs a second CPU");
	mutex_init(&h->lock);
	init_completion(&h->done);
	t = kthread_create(hotplug_churn_fn, h, "rcu_hotplug");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	KUNIT_ASSERT_EQ(test, start_kthread(test, t, hotplug_churn_stop, h),
			0);
	for (round = 0; round < 4 && !READ_ONCE(h->err); round++)
		destroy_round(test, h, round & 1);
	WRITE_ONCE(h->stop, true);
	wait_for_completion(&h->done);
	KUNIT_EXPECT_EQ(test, h->err, 0);
	kunit_info(test, "%u CPU offline/online cycles over %u destroys\n",
		   h->cycles, round);
}

/* RCU callbacks of another kernel user, slow ones, queued on one CPU. */
struct rcu_flood_item {
	struct rcu_head rcu;
	struct rcu_flood *flood;
};

struct rcu_flood {
	unsigned int nr;
	atomic_t done;
	struct work_struct queue;
	struct rcu_flood_item items[];
};

/*
 * What one callback of the flood costs: slow ones, so that queueing them
 * is quick next to running them, but not so slow that their CPU seldom
 * passes a quiescent state between two (on PREEMPT_RT they run in a
 * bh-disabled section, a read-side critical section there).
 */
#define FLOOD_CB_US	250

static void rcu_flood_cb(struct rcu_head *head)
{
	struct rcu_flood_item *it = container_of(head, struct rcu_flood_item,
						 rcu);

	udelay(FLOOD_CB_US);
	atomic_inc(&it->flood->done);
}

/*
 * Queue the whole flood on this CPU with interrupts off, so that none of
 * it runs before all of it is queued.
 */
static void rcu_flood_queue(struct work_struct *work)
{
	struct rcu_flood *flood = container_of(work, struct rcu_flood, queue);
	unsigned long flags;
	unsigned int i;

	local_irq_save(flags);
	for (i = 0; i < flood->nr; i++) {
		flood->items[i].flood = flood;
		call_rcu(&flood->items[i].rcu, rcu_flood_cb);
	}
	local_irq_restore(flags);
}

/* The callbacks must be done before their memory goes. */
static void rcu_flood_free(void *flood)
{
	rcu_barrier();
	kvfree(flood);
}

/* A destroy on a CPU of its own, so that a hung one can be waited for. */
struct timed_destroy {
	struct work_struct work;
	struct slabx_cache *s;
	struct rcu_flood *flood;
	int ret;
	u64 ns;
	int flood_before;
	int flood_after;
	struct completion done;
};

static void timed_destroy_fn(struct work_struct *work)
{
	struct timed_destroy *d = container_of(work, struct timed_destroy,
					       work);
	u64 start = ktime_get_ns();

	if (d->flood)
		d->flood_before = atomic_read(&d->flood->done);
	d->ret = slabx_cache_destroy(d->s);
	d->ns = ktime_get_ns() - start;
	if (d->flood)
		d->flood_after = atomic_read(&d->flood->done);
	complete_all(&d->done);
}

/*
 * Destroy @s, whose 64 objects slabx_free_rcu() gave on @cpu, from a work
 * item on @cpu. Return: whether it returned within 60 s (else @stuck is
 * shrunk, which queues its partial sheaves, and the destroy waited for).
 */
static bool timed_destroy(struct kunit *test, struct timed_destroy *d,
			  int cpu, struct slabx_cache *stuck)
{
	bool returned;

	kunit_remove_action(test, cache_destroy_action, d->s);
	INIT_WORK(&d->work, timed_destroy_fn);
	init_completion(&d->done);
	queue_work_on(cpu, system_wq, &d->work);
	returned = wait_for_completion_timeout(&d->done, 60 * HZ);
	if (!returned)
		slabx_cache_shrink(stuck);
	flush_work(&d->work);
	return returned;
}

/* A cache with 64 objects given to slabx_free_rcu() on this CPU. */
static struct slabx_cache *cache_rcu_pending(struct kunit *test,
					     const char *name)
{
	struct slabx_cache *s = cache(test, name, 64, 16);
	void *o[64];

	alloc_n(test, s, o, 64);
	free_rcu_n(s, o, 64);
	return s;
}

/*
 * The flood of a case: other RCU callbacks, ten times as long as a destroy
 * took alone here (at least 1 s), queued on CPU @x; NULL on failure.
 */
static struct rcu_flood *rcu_flood_start(struct kunit *test, int x,
					 u64 alone_ns)
{
	unsigned int flood_ms;
	struct rcu_flood *flood;

	flood_ms = max_t(u64, 10 * div_u64(alone_ns, NSEC_PER_MSEC), 1000);
	flood_ms = min(flood_ms, 4000U);
	flood = kvzalloc(struct_size(flood, items,
				     flood_ms * 1000 / FLOOD_CB_US),
			 GFP_KERNEL);
	if (!flood || kunit_add_action_or_reset(test, rcu_flood_free, flood))
		return NULL;
	flood->nr = flood_ms * 1000 / FLOOD_CB_US;
	INIT_WORK(&flood->queue, rcu_flood_queue);
	queue_work_on(x, system_highpri_wq, &flood->queue);
	flush_work(&flood->queue);
	return flood;
}

/*
 * slabx_cache_destroy() waits for its own cache's frees only: not for
 * another cache's partial rcu_free sheaf (kept open: the age monitor is
 * paused in this suite, so a destroy that waited for it would never
 * return), and not for the RCU callbacks of other kernel users, as
 * kmem_cache_destroy()'s rcu_barrier() and kvfree_rcu_barrier() do: a
 * flood of slow callbacks queued on another CPU is still running when
 * the destroy returns. Not the flood on PREEMPT_RT: there callbacks run
 * in the rcuc kthread with bottom halves off, which is a read-side
 * critical section on RT, so the flood holds up grace periods themselves
 * (a destroy under it waited 1.4 s, the flood's whole length), and its
 * SCHED_FIFO kthread would meet RT throttling.
 */
static void destroy_waits_for_its_own_frees_only(struct kunit *test)
{
	struct timed_destroy *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	struct slabx_cache *other;
	void *p[3];
	int x, y;

	KUNIT_ASSERT_NOT_NULL(test, d);
	require_sheaves(test);
	x = same_node_pair(&y);
	if (x < 0)
		kunit_skip(test, "needs a second CPU");
	pin(test, y);
	other = cache(test, "kunit-rcu-other", 64, 16);
	alloc_n(test, other, p, 3);
	free_rcu_n(other, p, 3);

	d->s = cache_rcu_pending(test, "kunit-rcu-alone");
	KUNIT_ASSERT_TRUE_MSG(test, timed_destroy(test, d, y, other),
			      "the destroy waited for another cache's sheaf");
	KUNIT_EXPECT_EQ(test, d->ret, 0);
	kunit_info(test, "destroy alone: %llu us\n", div_u64(d->ns, 1000));

	if (!IS_ENABLED(CONFIG_PREEMPT_RT)) {
		d->s = cache_rcu_pending(test, "kunit-rcu-flooded");
		d->flood = rcu_flood_start(test, x, d->ns);
		KUNIT_ASSERT_NOT_NULL(test, d->flood);
		KUNIT_EXPECT_TRUE(test, timed_destroy(test, d, y, other));
		KUNIT_EXPECT_EQ(test, d->ret, 0);
		KUNIT_EXPECT_LT_MSG(test, d->flood_after, (int)d->flood->nr,
				    "the destroy waited for other RCU callbacks");
		kunit_info(test, "destroy under the flood: %llu us; of %u callbacks %d done before, %d after\n",
			   div_u64(d->ns, 1000), d->flood->nr,
			   d->flood_before, d->flood_after);
	}
	KUNIT_EXPECT_EQ(test, rcu_waiting(other), 3UL);
	slabx_rcu_barrier(other);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, other), 0);
}

static struct kunit_case slabx_rcu_cases[] = {
	KUNIT_CASE(reader_keeps_objects),
	KUNIT_CASE(full_sheaf_to_barn_for_other_cpu),
	KUNIT_CASE(full_sheaves_go_home),
	KUNIT_CASE(rcu_wait_profile),
	KUNIT_CASE(rcu_sheaves_flushed_when_barn_full),
	KUNIT_CASE(large_sheaf_while_grace_period_pends),
	KUNIT_CASE_SLOW(destroy_right_after_free_rcu),
	KUNIT_CASE(destroy_after_free_rcu_from_workqueue),
	KUNIT_CASE(free_rcu_from_hardirq),
	KUNIT_CASE(fallback_without_sheaf),
	KUNIT_CASE(fallback_without_sheaves),
	KUNIT_CASE(cpu_dead_submits_rcu_sheaf),
	KUNIT_CASE(barrier_is_per_cache),
	KUNIT_CASE_SLOW(partial_sheaf_queued_by_age),
	KUNIT_CASE_SLOW(barrier_returns_under_sheaf_load),
	KUNIT_CASE_SLOW(barrier_returns_under_fallback_load),
	KUNIT_CASE_SLOW(destroy_with_rcu_pending_under_hotplug),
	KUNIT_CASE_SLOW(destroy_waits_for_its_own_frees_only),
	{}
};

static int rcu_suite_init(struct kunit_suite *suite)
{
	slabx_rcu_free_monitor_pause();
	return 0;
}

static void rcu_suite_exit(struct kunit_suite *suite)
{
	slabx_rcu_free_monitor_resume();
}

static struct kunit_suite slabx_rcu_suite = {
	.name = "slabx_rcu",
	.suite_init = rcu_suite_init,
	.suite_exit = rcu_suite_exit,
	.test_cases = slabx_rcu_cases,
};

kunit_test_suites(&slabx_rcu_suite);

MODULE_DESCRIPTION("KUnit tests of slabx_free_rcu()");

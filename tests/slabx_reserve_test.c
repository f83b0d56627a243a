// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for reservations (slabx_reserve() and friends): the reserve
 * holds what was reserved and gives it back; a plain allocation does not
 * touch it; with every page allocation failing, each reservation still
 * gets its share and no more; an allocation that waits wakes on a free
 * through the reservation; producers and consumers that hand objects over
 * keep going with the page allocator failing; failures leave nothing set
 * aside; and the mempool adapter works under mempool_alloc().
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/mempool.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "../slabx.h"
#include "slabx_kunit.h"
#include "slabx_test_hooks.h"

static void unreserve_action(void *res)
{
	slabx_unreserve(res);
}

/* slabx_reserve() for a case: undone when the case ends. */
static struct slabx_reservation *reserve(struct kunit *test,
					 struct slabx_cache *s,
					 unsigned int nr)
{
	struct slabx_reservation *res = slabx_reserve(s, nr, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, unreserve_action, res),
			0);
	return res;
}

static void unreserve(struct kunit *test, struct slabx_reservation *res)
{
	kunit_remove_action(test, unreserve_action, res);
	slabx_unreserve(res);
}

/* The reserve holds what was reserved; unreserve gives it all back. */
static void reserve_and_unreserve(struct kunit *test)
{
	struct slabx_cache *s = cache(test, "kunit-res-basic", 64, 0);
	struct slabx_reservation *a, *b;
	unsigned long base = objects_held(s);
	struct slabx_info info;

	a = reserve(test, s, 100);
	b = reserve(test, s, 7);
	info = info_of(s);
	KUNIT_EXPECT_EQ(test, info.objects_reserve, 107UL);
	KUNIT_EXPECT_EQ(test, info.reserve_target, 107UL);
	KUNIT_EXPECT_EQ(test, objects_held(s), base + 107);

	unreserve(test, a);
	info = info_of(s);
	KUNIT_EXPECT_EQ(test, info.objects_reserve, 7UL);
	KUNIT_EXPECT_EQ(test, info.reserve_target, 7UL);
	/* The shrink leaves the reserve alone. */
	KUNIT_EXPECT_EQ(test, objects_held(s), base + 7);
	slabx_shrink_all();
	KUNIT_EXPECT_EQ(test, info_of(s).objects_reserve, 7UL);

	unreserve(test, b);
	info = info_of(s);
	KUNIT_EXPECT_EQ(test, info.objects_reserve, 0UL);
	KUNIT_EXPECT_EQ(test, info.reserve_target, 0UL);
	KUNIT_EXPECT_EQ(test, objects_held(s), base);
}

/* With memory plentiful, allocations through a reservation skip the reserve. */
static void plentiful_skips_reserve(struct kunit *test)
{
	struct slabx_cache *s = cache(test, "kunit-res-plenty", 64, 0);
	struct slabx_reservation *res = reserve(test, s, 16);
	static void *p[1000];
	struct snap sn;
	int i;

	snap_take(s, &sn);
	for (i = 0; i < ARRAY_SIZE(p); i++) {
		p[i] = slabx_alloc_reserved(res, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
	}
	for (i = 0; i < ARRAY_SIZE(p); i++)
		slabx_free_reserved(res, p[i]);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_RESERVE_ALLOC), 0UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_RESERVE_REFILL), 0UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_ALLOC), 1000UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_FREE), 1000UL);
	KUNIT_EXPECT_EQ(test, info_of(s).objects_reserve, 16UL);
}

#define USERS	4
#define SHARE	8

/*
 * The page allocator failing and the cache drained: each of 4
 * reservations gets its 8 objects, from any context its gfp allows, and
 * a ninth is refused without taking another user's share.
 */
static void each_user_gets_its_share(struct kunit *test)
{
	struct slabx_cache *s = flat_cache(test, "kunit-res-share");
	struct slabx_reservation *res[USERS];
	void *p[USERS][SHARE];
	struct snap sn;
	int u, i;

	for (u = 0; u < USERS; u++)
		res[u] = reserve(test, s, SHARE);
	starve(test, s);
	snap_take(s, &sn);
	for (u = 0; u < USERS; u++) {
		for (i = 0; i < SHARE; i++) {
			/* Atomic for some: the reserve needs no sleep. */
			gfp_t gfp = u & 1 ? GFP_ATOMIC : GFP_KERNEL;

			p[u][i] = slabx_alloc_reserved(res[u], gfp);
			KUNIT_ASSERT_NOT_NULL(test, p[u][i]);
		}
		/* The share is used up: no more, even with others' left. */
		KUNIT_EXPECT_NULL(test, slabx_alloc_reserved(res[u], GFP_NOWAIT));
	}
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_RESERVE_ALLOC),
			(unsigned long)USERS * SHARE);
	KUNIT_EXPECT_EQ(test, info_of(s).objects_reserve, 0UL);
	/* Every object once: distinct pointers. */
	for (u = 0; u < USERS * SHARE; u++)
		for (i = u + 1; i < USERS * SHARE; i++)
			KUNIT_ASSERT_PTR_NE(test, p[u / SHARE][u % SHARE],
					    p[i / SHARE][i % SHARE]);

	for (u = 0; u < USERS; u++)
		for (i = 0; i < SHARE; i++)
			slabx_free_reserved(res[u], p[u][i]);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_RESERVE_REFILL),
			(unsigned long)USERS * SHARE);
	KUNIT_EXPECT_EQ(test, info_of(s).objects_reserve,
			(unsigned long)USERS * SHARE);
	/* And the shares are whole again. */
	for (i = 0; i < SHARE; i++) {
		p[0][i] = slabx_alloc_reserved(res[0], GFP_ATOMIC);
		KUNIT_ASSERT_NOT_NULL(test, p[0][i]);
	}
	for (i = 0; i < SHARE; i++)
		slabx_free_reserved(res[0], p[0][i]);
}

struct waiter {
	struct slabx_cache *s;
	struct slabx_reservation *res;
	void *got;
	unsigned long woke;	/* jiffies */
	struct completion done;
	void *spare;		/* freed to release the waiter, if need be */
};

static int waiter_fn(void *data)
{
	struct waiter *w = data;

	w->got = slabx_alloc_reserved(w->res, GFP_KERNEL);
	w->woke = jiffies;
	complete_all(&w->done);
	return 0;
}

/*
 * When the case ends: a free through the reservation releases a waiter
 * still waiting (a failed case); then its object goes back.
 */
static void waiter_release(void *data)
{
	struct waiter *w = data;

	if (w->spare)
		slabx_free_reserved(w->res, w->spare);
	w->spare = NULL;
	/* Still waiting (a failed case): its 5 s retry then gets memory. */
	if (!completion_done(&w->done))
		slabx_fault_inject_pages(0);
	wait_for_completion(&w->done);
	slabx_free(w->s, w->got);
	w->got = NULL;
}

/*
 * An allocation that may sleep, with its share used up and the page
 * allocator failing, waits; a plain free does not wake it, a free
 * through its reservation does, at once (not at the 5 s retry).
 */
static void blocked_alloc_wakes_on_free(struct kunit *test)
{
	struct slabx_cache *s = flat_cache(test, "kunit-res-wait");
	struct waiter *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct task_struct *task;
	unsigned long freed_at;
	void *p[SHARE];
	struct snap sn;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, w);
	w->s = s;
	init_completion(&w->done);
	w->res = reserve(test, s, SHARE);
	starve(test, s);
	for (i = 0; i < SHARE; i++) {
		p[i] = slabx_alloc_reserved(w->res, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
	}
	w->spare = p[SHARE - 1];
	snap_take(s, &sn);
	task = kthread_create(waiter_fn, w, "kunit-res-waiter");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	KUNIT_ASSERT_EQ(test, start_kthread(test, task, waiter_release, w), 0);

	/* It waits: counted, and still without an object a while later. */
	for (i = 0; i < 100 && !delta(s, &sn, SLABX_RESERVE_WAIT); i++)
		msleep(20);
	KUNIT_ASSERT_EQ(test, delta(s, &sn, SLABX_RESERVE_WAIT), 1UL);
	KUNIT_ASSERT_FALSE(test, wait_for_completion_timeout(&w->done,
							     HZ / 5));

	/* A plain slabx_free() refills nothing: it goes on waiting. */
	slabx_free(s, p[0]);
	KUNIT_ASSERT_FALSE(test, wait_for_completion_timeout(&w->done,
							     HZ / 5));

	w->spare = NULL;
	freed_at = jiffies;
	slabx_free_reserved(w->res, p[SHARE - 1]);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&w->done, 2 * HZ));
	/* From the slab p[0] went to, or the reserve: both are right. */
	KUNIT_EXPECT_TRUE(test, w->got == p[0] || w->got == p[SHARE - 1]);
	KUNIT_EXPECT_LT(test, jiffies_to_msecs(w->woke - freed_at), 2000U);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_RESERVE_REFILL), 1UL);
	kunit_info(test, "woken %u ms after the free\n",
		   jiffies_to_msecs(w->woke - freed_at));
	for (i = 1; i < SHARE - 1; i++)
		slabx_free_reserved(w->res, p[i]);
}

#define WAITERS	3

/*
 * Three allocations wait on one reservation whose share is used up; three
 * frees through it wake them all, one each (a wakeup is passed on by a
 * waiter that did not need it).
 */
static void every_waiter_wakes(struct kunit *test)
{
	struct slabx_cache *s = flat_cache(test, "kunit-res-waiters");
	struct waiter *w = kunit_kcalloc(test, WAITERS, sizeof(*w), GFP_KERNEL);
	struct slabx_reservation *res;
	struct task_struct *task;
	void *p[SHARE];
	struct snap sn;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, w);
	res = reserve(test, s, SHARE);
	starve(test, s);
	for (i = 0; i < SHARE; i++) {
		p[i] = slabx_alloc_reserved(res, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
	}
	snap_take(s, &sn);
	for (i = 0; i < WAITERS; i++) {
		w[i].s = s;
		w[i].res = res;
		w[i].spare = p[i];
		init_completion(&w[i].done);
		task = kthread_create(waiter_fn, &w[i], "kunit-res-w%d", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(task));
		KUNIT_ASSERT_EQ(test, start_kthread(test, task, waiter_release,
						    &w[i]), 0);
	}
	for (i = 0; i < 100 && delta(s, &sn, SLABX_RESERVE_WAIT) < WAITERS; i++)
		msleep(20);
	KUNIT_ASSERT_EQ(test, delta(s, &sn, SLABX_RESERVE_WAIT),
			(unsigned long)WAITERS);
	for (i = 0; i < WAITERS; i++) {
		w[i].spare = NULL;
		slabx_free_reserved(res, p[i]);
	}
	for (i = 0; i < WAITERS; i++)
		KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&w[i].done,
								    2 * HZ));
	for (i = 0; i < WAITERS; i++)
		KUNIT_EXPECT_NOT_NULL(test, w[i].got);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_RESERVE_ALLOC),
			(unsigned long)WAITERS);
	for (i = WAITERS; i < SHARE; i++)
		slabx_free_reserved(res, p[i]);
}

/*
 * A reservation released while its objects are out shrinks the reserve
 * (its sheaves compacted), and another reservation still gets all of its
 * share, without waiting.
 */
static void unreserve_keeps_others_share(struct kunit *test)
{
	struct slabx_cache *s = flat_cache(test, "kunit-res-others");
	struct slabx_reservation *a, *b;
	static void *pa[300], *pb[300];
	int i;

	a = reserve(test, s, 300);
	b = reserve(test, s, 300);
	starve(test, s);
	for (i = 0; i < 300; i++) {
		pa[i] = slabx_alloc_reserved(a, GFP_ATOMIC);
		KUNIT_ASSERT_NOT_NULL(test, pa[i]);
	}
	for (i = 0; i < 150; i++) {
		pb[i] = slabx_alloc_reserved(b, GFP_ATOMIC);
		KUNIT_ASSERT_NOT_NULL(test, pb[i]);
	}
	for (i = 140; i < 150; i++)
		slabx_free_reserved(b, pb[i]);
	unreserve(test, a);
	KUNIT_EXPECT_EQ(test, info_of(s).reserve_target, 300UL);
	for (i = 140; i < 300; i++) {
		pb[i] = slabx_alloc_reserved(b, GFP_ATOMIC);
		KUNIT_ASSERT_NOT_NULL(test, pb[i]);
	}
	KUNIT_EXPECT_NULL(test, slabx_alloc_reserved(b, GFP_ATOMIC));
	for (i = 0; i < 300; i++) {
		slabx_free(s, pa[i]);
		slabx_free_reserved(b, pb[i]);
	}
	KUNIT_EXPECT_EQ(test, info_of(s).objects_reserve, 300UL);
}

#define PAIRS		2
#define HANDOFFS	2000
#define RING		8

/*
 * A producer allocates through a reservation of 4 and hands each object
 * to its consumer through a ring of 8; the consumer frees it through the
 * same reservation. With the page allocator failing and the cache
 * drained, the producer waits whenever its 4 are in flight: the mempool
 * pattern of the block layer.
 */
struct pair {
	struct slabx_cache *s;
	struct slabx_reservation *res;
	spinlock_t lock;	/* protects the ring */
	void *ring[RING];
	unsigned int head, tail;
	unsigned int produced, consumed, failed;
	bool stop;
};

static bool ring_put(struct pair *pr, void *obj)
{
	bool ok;

	spin_lock(&pr->lock);
	ok = pr->head - pr->tail < RING;
	if (ok)
		pr->ring[pr->head++ % RING] = obj;
	spin_unlock(&pr->lock);
	return ok;
}

static void *ring_get(struct pair *pr)
{
	void *obj = NULL;

	spin_lock(&pr->lock);
	if (pr->head != pr->tail)
		obj = pr->ring[pr->tail++ % RING];
	spin_unlock(&pr->lock);
	return obj;
}

static int producer_fn(void *data)
{
	struct pair *pr = data;
	void *obj;

	while (pr->produced < HANDOFFS && !READ_ONCE(pr->stop)) {
		obj = slabx_alloc_reserved(pr->res, GFP_KERNEL);
		if (!obj) {
			WRITE_ONCE(pr->failed, pr->failed + 1);
			break;
		}
		*(unsigned long *)obj = pr->produced;
		while (!ring_put(pr, obj))
			cond_resched();
		WRITE_ONCE(pr->produced, pr->produced + 1);
	}
	return 0;
}

static int consumer_fn(void *data)
{
	struct pair *pr = data;
	void *obj;

	while (pr->consumed < HANDOFFS && !READ_ONCE(pr->stop)) {
		obj = ring_get(pr);
		if (!obj) {
			usleep_range(50, 100);
			continue;
		}
		if (*(unsigned long *)obj != pr->consumed)
			WRITE_ONCE(pr->failed, pr->failed + 1);
		slabx_free_reserved(pr->res, obj);
		WRITE_ONCE(pr->consumed, pr->consumed + 1);
	}
	return 0;
}

static void pair_stop(void *data)
{
	struct pair *pr = data;
	void *obj;

	WRITE_ONCE(pr->stop, true);
	while ((obj = ring_get(pr)))
		slabx_free_reserved(pr->res, obj);
}

static void handoff_under_page_failure(struct kunit *test)
{
	struct slabx_cache *s = flat_cache(test, "kunit-res-handoff");
	struct pair *pairs = kunit_kcalloc(test, PAIRS, sizeof(*pairs),
					   GFP_KERNEL);
	struct slabx_reservation *extra;
	struct task_struct *task;
	unsigned int trims = 0;
	struct snap sn;
	int i, k, left;

	KUNIT_ASSERT_NOT_NULL(test, pairs);
	for (i = 0; i < PAIRS; i++) {
		pairs[i].s = s;
		pairs[i].res = reserve(test, s, 4);
		spin_lock_init(&pairs[i].lock);
	}
	starve(test, s);
	snap_take(s, &sn);
	for (i = 0; i < PAIRS; i++) {
		for (k = 0; k < 2; k++) {
			task = kthread_create(k ? consumer_fn : producer_fn,
					      &pairs[i], "kunit-res-%s%d",
					      k ? "cons" : "prod", i);
			KUNIT_ASSERT_FALSE(test, IS_ERR(task));
			KUNIT_ASSERT_EQ(test, start_kthread(test, task,
							    pair_stop,
							    &pairs[i]), 0);
		}
	}
	/*
	 * Sized by operations: up to 10 minutes of a slow guest. Meanwhile
	 * a third reservation, too large for what is left, fails again and
	 * again: each time it adds a sheaf to the reserve, which the frees
	 * may fill, and its failure trims the reserve back while the pairs
	 * take and put.
	 */
	for (left = 6000; left; left--) {
		for (i = 0; i < PAIRS; i++)
			if (READ_ONCE(pairs[i].consumed) < HANDOFFS &&
			    !READ_ONCE(pairs[i].failed))
				break;
		if (i == PAIRS)
			break;
		extra = slabx_reserve(s, 300, GFP_KERNEL);
		if (extra)
			slabx_unreserve(extra);
		trims += !extra;
		msleep(20);
	}
	for (i = 0; i < PAIRS; i++) {
		KUNIT_EXPECT_EQ(test, READ_ONCE(pairs[i].failed), 0U);
		KUNIT_EXPECT_EQ(test, READ_ONCE(pairs[i].consumed), HANDOFFS);
	}
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_ALLOC_SLOWPATH), 0UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_RESERVE_ALLOC),
			(unsigned long)PAIRS * HANDOFFS);
	kunit_info(test, "%lu waits for %u hand-offs, %u failed reservations\n",
		   delta(s, &sn, SLABX_RESERVE_WAIT), PAIRS * HANDOFFS, trims);
	KUNIT_EXPECT_GT(test, trims, 0U);
	KUNIT_EXPECT_EQ(test, info_of(s).objects_reserve, (unsigned long)PAIRS * 4);
}

/*
 * Memory failure at each allocation slabx_reserve() makes: -ENOMEM, and
 * nothing set aside or lost.
 */
static void failure_leaves_nothing(struct kunit *test)
{
	struct slabx_cache *s = cache(test, "kunit-res-fail", 64, 8);
	struct slabx_reservation *res;
	unsigned long base = objects_held(s);
	struct slabx_info info;
	int nth;

	/*
	 * The handle, then each sheaf (at least 2 for 20 objects in sheaves
	 * of about 8): every one of them fails in turn, until a first call
	 * that makes fewer allocations than the one to fail succeeds.
	 */
	for (nth = 1; nth <= 16; nth++) {
		slabx_fault_inject_meta(nth);
		res = slabx_reserve(s, 20, GFP_KERNEL);
		slabx_fault_inject_meta(0);
		if (res)
			break;
		info = info_of(s);
		KUNIT_EXPECT_EQ(test, info.objects_reserve, 0UL);
		KUNIT_EXPECT_EQ(test, info.reserve_target, 0UL);
		KUNIT_EXPECT_EQ(test, objects_held(s), base);
	}
	KUNIT_ASSERT_NOT_NULL(test, res);
	KUNIT_EXPECT_GE(test, nth, 4);
	KUNIT_EXPECT_EQ(test, info_of(s).objects_reserve, 20UL);
	slabx_unreserve(res);
	KUNIT_EXPECT_EQ(test, objects_held(s), base);

	/* Pages: a reservation larger than what the cache holds free. */
	res = reserve(test, s, 4);
	starve(test, s);
	KUNIT_EXPECT_NULL(test, slabx_reserve(s, 20, GFP_KERNEL));
	info = info_of(s);
	KUNIT_EXPECT_EQ(test, info.objects_reserve, 4UL);
	KUNIT_EXPECT_EQ(test, info.reserve_target, 4UL);
}

/*
 * Bad arguments are refused: NULL, as mempool_create() returns; NULL is
 * nothing to unreserve.
 */
static void bad_arguments(struct kunit *test)
{
	struct slabx_cache_args pool = { .pool_objects = 16 };
	struct slabx_cache *s = cache(test, "kunit-res-args", 64, 0);
	struct slabx_cache *p = cache_create(test, "kunit-res-pool", 64, &pool);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	KUNIT_EXPECT_NULL(test, slabx_reserve(s, 0, GFP_KERNEL));
	KUNIT_EXPECT_NULL(test, slabx_reserve(s, (1U << 20) + 1, GFP_KERNEL));
	KUNIT_EXPECT_NULL(test, slabx_reserve(p, 1, GFP_KERNEL));
	slabx_unreserve(NULL);
	slabx_free_reserved(reserve(test, s, 1), NULL);
	KUNIT_EXPECT_EQ(test, info_of(s).reserve_target, 1UL);
}

/*
 * A destroy with a reservation held flushes the reserve and keeps the
 * cache (-EBUSY); the reservation can still be released afterwards, and
 * an object allocated through it freed.
 */
static void destroy_with_reservation(struct kunit *test)
{
	struct slabx_cache *s = slabx_cache_create("kunit-res-destroy", 64, NULL);
	struct slabx_reservation *res;
	void *obj;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	res = slabx_reserve(s, 10, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	obj = slabx_alloc_reserved(res, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	KUNIT_EXPECT_EQ(test, slabx_cache_destroy(s), -EBUSY);
	KUNIT_EXPECT_EQ(test, info_of(s).objects_reserve, 0UL);
	slabx_free_reserved(res, obj);
	KUNIT_EXPECT_EQ(test, info_of(s).objects_reserve, 0UL);
	KUNIT_EXPECT_EQ(test, info_of(s).objects_inuse, 0UL);
	/* The last unreserve frees the cache: @s is gone after it. */
	slabx_unreserve(res);
}

/*
 * A cache destroyed with a reservation held is kept for it, and freed by
 * its unreserve, with no object of it allocated; with one still
 * allocated, it stays until that is freed and slabx unloads.
 */
static void unreserve_frees_destroyed_cache(struct kunit *test)
{
	unsigned int zombies = slabx_zombie_count();
	struct slabx_reservation *res;
	struct slabx_cache *s;
	void *obj;

	s = slabx_cache_create("kunit-res-reap", 64, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	res = slabx_reserve(s, 10, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	KUNIT_EXPECT_EQ(test, slabx_cache_destroy(s), -EBUSY);
	KUNIT_EXPECT_EQ(test, slabx_zombie_count(), zombies + 1);
	slabx_unreserve(res);
	KUNIT_EXPECT_EQ(test, slabx_zombie_count(), zombies);

	/* An object still allocated keeps it, after the unreserve too. */
	s = slabx_cache_create("kunit-res-reap", 64, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	res = slabx_reserve(s, 10, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	obj = slabx_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	KUNIT_EXPECT_EQ(test, slabx_cache_destroy(s), -EBUSY);
	slabx_unreserve(res);
	KUNIT_EXPECT_EQ(test, slabx_zombie_count(), zombies + 1);
	KUNIT_EXPECT_EQ(test, info_of(s).objects_inuse, 1UL);
	/* A late free is still allowed; the zombie goes at unload. */
	slabx_free(s, obj);
	KUNIT_EXPECT_EQ(test, info_of(s).objects_inuse, 0UL);
}

/* ---- races between reservations ---------------------------------------- */

#define RACE_OPS	20000
#define PLAIN		8

/*
 * One kthread of a race: @fn runs @ops rounds on @res, counting in @null
 * the allocations within its share that got no object.
 */
struct racer {
	struct slabx_cache *s;
	struct slabx_reservation *res;
	unsigned int ops, null, nr;
	void *plain[PLAIN];
	bool stop;
	struct completion done;
};

static void racer_stop(void *data)
{
	struct racer *r = data;

	WRITE_ONCE(r->stop, true);
	wait_for_completion(&r->done);
}

/*
 * Free plain objects (not from the reserve) through the reservation and
 * allocate them again: frees that give nothing back, as the issue's
 * interleaving needs.
 */
static int plain_free_fn(void *data)
{
	struct racer *r = data;
	unsigned int i, k;

	for (i = 0; i < r->ops && !READ_ONCE(r->stop); i++) {
		k = i % PLAIN;
		if (r->plain[k]) {
			slabx_free_reserved(r->res, r->plain[k]);
			r->plain[k] = NULL;
		}
		r->plain[k] = slabx_alloc(r->s, GFP_NOWAIT | __GFP_NOWARN);
	}
	for (k = 0; k < PLAIN; k++)
		slabx_free(r->s, r->plain[k]);
	complete_all(&r->done);
	return 0;
}

/* Take up to @nr objects through the reservation, then free them through it. */
static int take_free_fn(void *data)
{
	struct racer *r = data;
	void *p[SHARE];
	unsigned int i, j, n;

	for (i = 0; i < r->ops && !READ_ONCE(r->stop); i++) {
		for (n = 0; n < r->nr; n++) {
			p[n] = slabx_alloc_reserved(r->res, GFP_ATOMIC);
			if (!p[n])
				break;
		}
		/* Within the share, always: each frees all it took. */
		if (n < r->nr)
			WRITE_ONCE(r->null, r->null + 1);
		for (j = 0; j < n; j++)
			slabx_free_reserved(r->res, p[j]);
	}
	complete_all(&r->done);
	return 0;
}

static void racer_start(struct kunit *test, struct racer *r,
			int (*fn)(void *), unsigned int cpu)
{
	struct task_struct *task;

	init_completion(&r->done);
	task = kthread_create(fn, r, "kunit-res-racer");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	kthread_bind(task, cpu);
	KUNIT_ASSERT_EQ(test, start_kthread(test, task, racer_stop, r), 0);
}

/* The online CPU @n places after this one, wrapping around. */
static unsigned int other_cpu(unsigned int n)
{
	unsigned int cpu = raw_smp_processor_id();

	while (n--) {
		cpu = cpumask_next(cpu, cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_online_mask);
	}
	return cpu;
}

/*
 * Reservations R and Q of one object each, a reserve of two, the page
 * allocator failing and the cache drained. On two CPUs, one thread takes
 * R's object and frees it through R, another frees plain objects through
 * R; meanwhile Q takes its object and gives it back, again and again,
 * and must find it every time: nothing R does may take Q's share. At
 * the end the reserve holds its two objects, no more, no fewer.
 */
static void racing_frees_keep_other_shares(struct kunit *test)
{
	struct slabx_cache *s = flat_cache(test, "kunit-res-race");
	struct racer *taker = kunit_kzalloc(test, sizeof(*taker), GFP_KERNEL);
	struct racer *freer = kunit_kzalloc(test, sizeof(*freer), GFP_KERNEL);
	struct slabx_reservation *r, *q;
	unsigned int i, null = 0;
	void *obj;

	KUNIT_ASSERT_NOT_NULL(test, taker);
	KUNIT_ASSERT_NOT_NULL(test, freer);
	if (num_online_cpus() < 3)
		kunit_skip(test, "needs 3 CPUs");
	r = reserve(test, s, 1);
	q = reserve(test, s, 1);
	for (i = 0; i < PLAIN; i++) {
		freer->plain[i] = slabx_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, freer->plain[i]);
	}
	starve(test, s);
	taker->s = s;
	taker->res = r;
	taker->ops = RACE_OPS;
	taker->nr = 1;
	freer->s = s;
	freer->res = r;
	freer->ops = RACE_OPS;
	racer_start(test, freer, plain_free_fn, other_cpu(1));
	racer_start(test, taker, take_free_fn, other_cpu(2));
	while (!completion_done(&freer->done) ||
	       !completion_done(&taker->done)) {
		obj = slabx_alloc_reserved(q, GFP_NOWAIT);
		if (!obj)
			null++;
		slabx_free_reserved(q, obj);
		cond_resched();
	}
	KUNIT_EXPECT_EQ_MSG(test, null, 0U, "Q found no object within its share");
	KUNIT_EXPECT_EQ_MSG(test, taker->null, 0U, "nor R");
	KUNIT_EXPECT_EQ(test, info_of(s).objects_reserve, 2UL);
	KUNIT_EXPECT_EQ(test, info_of(s).reserve_target, 2UL);
}

#define TAKERS	8

/*
 * One reservation of 4 per CPU, both nodes, the page allocator failing:
 * every CPU takes its 4 and frees them, again and again; not one take
 * within a share may come back empty, however the objects move.
 */
static void takes_within_share_never_fail(struct kunit *test)
{
	struct slabx_cache *s = flat_cache(test, "kunit-res-takers");
	struct racer *rc = kunit_kcalloc(test, TAKERS, sizeof(*rc), GFP_KERNEL);
	unsigned int i, n, null = 0;

	KUNIT_ASSERT_NOT_NULL(test, rc);
	n = min_t(unsigned int, TAKERS, num_online_cpus());
	for (i = 0; i < n; i++) {
		rc[i].s = s;
		rc[i].res = reserve(test, s, 4);
		rc[i].ops = RACE_OPS / 20;
		rc[i].nr = 4;
	}
	starve(test, s);
	for (i = 0; i < n; i++)
		racer_start(test, &rc[i], take_free_fn, other_cpu(i));
	for (i = 0; i < n; i++) {
		wait_for_completion(&rc[i].done);
		null += rc[i].null;
	}
	KUNIT_EXPECT_EQ(test, null, 0U);
	KUNIT_EXPECT_EQ(test, info_of(s).objects_reserve, 4UL * n);
}

/*
 * Reservations come and go while frees through another one refill the
 * reserve: once all is quiet, the reserve holds its target exactly, no
 * object stuck above it.
 */
static void unreserve_racing_refills(struct kunit *test)
{
	struct slabx_cache *s = flat_cache(test, "kunit-res-unres");
	struct racer *rc = kunit_kzalloc(test, sizeof(*rc), GFP_KERNEL);
	struct slabx_reservation *extra;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, rc);
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs 2 CPUs");
	rc->s = s;
	rc->res = reserve(test, s, SHARE);
	rc->ops = RACE_OPS / 4;
	rc->nr = SHARE;
	racer_start(test, rc, take_free_fn, other_cpu(1));
	for (i = 0; !completion_done(&rc->done); i++) {
		extra = slabx_reserve(s, 1 + i % 64, GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, extra);
		slabx_unreserve(extra);
	}
	kunit_info(test, "%u reservations made and released\n", i);
	KUNIT_EXPECT_EQ(test, rc->null, 0U);
	KUNIT_EXPECT_EQ(test, info_of(s).reserve_target, (unsigned long)SHARE);
	KUNIT_EXPECT_EQ(test, info_of(s).objects_reserve, (unsigned long)SHARE);
}

/* A %SLABX_DEBUG cache: frees through the reservation are checked. */
static void debug_cache_refills(struct kunit *test)
{
	struct slabx_cache_args args = { .flags = SLABX_DEBUG };
	struct slabx_cache *s = cache_create(test, "kunit-res-debug", 64, &args);
	struct slabx_reservation *res;
	void *p[SHARE];
	struct snap sn;
	int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	res = reserve(test, s, SHARE);
	starve(test, s);
	snap_take(s, &sn);
	for (i = 0; i < SHARE; i++) {
		p[i] = slabx_alloc_reserved(res, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
	}
	for (i = 0; i < SHARE; i++)
		slabx_free_reserved(res, p[i]);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_RESERVE_ALLOC),
			(unsigned long)SHARE);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_RESERVE_REFILL),
			(unsigned long)SHARE);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_FREE_INVALID), 0UL);
	KUNIT_EXPECT_EQ(test, info_of(s).objects_reserve, (unsigned long)SHARE);
}

/* mempool_alloc() over a slabx cache, through the adapter. */
static void mempool_adapter(struct kunit *test)
{
	struct slabx_cache *s = cache(test, "kunit-res-mempool", 64, 0);
	mempool_t *pool;
	void *p[32];
	int i;

	pool = mempool_create(8, slabx_mempool_alloc, slabx_mempool_free, s);
	KUNIT_ASSERT_NOT_NULL(test, pool);
	for (i = 0; i < ARRAY_SIZE(p); i++) {
		p[i] = mempool_alloc(pool, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
	}
	for (i = 0; i < ARRAY_SIZE(p); i++)
		mempool_free(p[i], pool);
	/* Its 8 elements are objects of the cache. */
	KUNIT_EXPECT_EQ(test, objects_held(s), 8UL);
	mempool_destroy(pool);
	KUNIT_EXPECT_EQ(test, objects_held(s), 0UL);
}

static struct kunit_case slabx_reserve_cases[] = {
	KUNIT_CASE(reserve_and_unreserve),
	KUNIT_CASE(plentiful_skips_reserve),
	KUNIT_CASE(each_user_gets_its_share),
	KUNIT_CASE(blocked_alloc_wakes_on_free),
	KUNIT_CASE(every_waiter_wakes),
	KUNIT_CASE(unreserve_keeps_others_share),
	KUNIT_CASE(handoff_under_page_failure),
	KUNIT_CASE(failure_leaves_nothing),
	KUNIT_CASE(bad_arguments),
	KUNIT_CASE(destroy_with_reservation),
	KUNIT_CASE(unreserve_frees_destroyed_cache),
	KUNIT_CASE(racing_frees_keep_other_shares),
	KUNIT_CASE(takes_within_share_never_fail),
	KUNIT_CASE(unreserve_racing_refills),
	KUNIT_CASE(debug_cache_refills),
	KUNIT_CASE(mempool_adapter),
	{}
};

static struct kunit_suite slabx_reserve_suite = {
	.name = "slabx_reserve",
	.test_cases = slabx_reserve_cases,
};

kunit_test_suites(&slabx_reserve_suite);

MODULE_DESCRIPTION("KUnit tests of slabx reservations and the mempool adapter");

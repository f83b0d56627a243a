// SPDX-License-Identifier: GPL-2.0
/*
 * Adversarial review cases for the reserve rewrite (35653b5), the
 * rcu_free KASAN mark (e4d5d55..2f7c331) and compound slabs with a page
 * reference of their own (17282be), through the public API and the
 * kernel's own page calls.
 *
 * The last case, unreserve_during_destroy, races slabx_unreserve() of a
 * cache's last reservation with its slabx_cache_destroy(), which slabx.h
 * allows ("slabx_unreserve() of reservations still held ... allowed
 * during and after the destroy"); it is last because what it finds takes
 * the guest down.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "../slabx.h"
#include "slabx_kunit.h"
#include "slabx_test_hooks.h"

/* The cache's free_invalid counter: frees refused as misuse. */
static unsigned long invalid_of(struct slabx_cache *s)
{
	return slabx_cache_stat(s, SLABX_FREE_INVALID);
}

/* ---- frees through a reservation from hard IRQ context ------------------ */

struct irq_free {
	struct hrtimer timer;
	struct slabx_reservation *res;
	void *slot;
	bool stop;
	unsigned long fired;
	unsigned long freed;	/* frees done, published after each */
};

static enum hrtimer_restart irq_free_fn(struct hrtimer *t)
{
	struct irq_free *f = container_of(t, struct irq_free, timer);
	void *obj = xchg(&f->slot, NULL);

	if (obj) {
		slabx_free_reserved(f->res, obj);
		/* Pairs with irq_free(): the free is done, its share back. */
		smp_store_release(&f->freed, f->freed + 1);
	}
	f->fired++;
	if (READ_ONCE(f->stop))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(200 * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static void irq_free_start(struct irq_free *f, struct slabx_reservation *res)
{
	f->res = res;
	f->slot = NULL;
	f->stop = false;
	hrtimer_init(&f->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	f->timer.function = irq_free_fn;
	hrtimer_start(&f->timer, ns_to_ktime(200 * NSEC_PER_USEC), HRTIMER_MODE_REL_HARD);
}

static void irq_free_stop(struct irq_free *f)
{
	WRITE_ONCE(f->stop, true);
	hrtimer_cancel(&f->timer);
}

/*
 * Hand @obj to the timer and wait until its hard IRQ returned from
 * slabx_free_reserved(), so that the share is back before the caller's
 * next take. Return: false when the timer did not take it within 2 s
 * (taken back: the caller frees it).
 */
static bool irq_free(struct irq_free *f, void *obj)
{
	unsigned long end = jiffies + 2 * HZ, before = READ_ONCE(f->freed);

	WRITE_ONCE(f->slot, obj);
	/* Pairs with irq_free_fn(): after it, the share is back. */
	while (smp_load_acquire(&f->freed) == before) {
		if (time_after(jiffies, end) && cmpxchg(&f->slot, obj, NULL) == obj)
			return false;
		usleep_range(50, 100);
	}
	return true;
}

/*
 * A GFP_KERNEL allocation with its share used up and the page allocator
 * failing sleeps (one SLABX_RESERVE_WAIT, not thousands over a second),
 * and a free through its reservation from a hard IRQ wakes it at once.
 */
struct waiter {
	struct slabx_reservation *res;
	void *got;
	struct completion done;
};

static int waiter_fn(void *data)
{
	struct waiter *w = data;

	w->got = slabx_alloc_reserved(w->res, GFP_KERNEL);
	complete_all(&w->done);
	return 0;
}

#define SHARE	4

static void irq_free_wakes_sleeper(struct kunit *test)
{
	struct slabx_cache *s = flat_cache(test, "review-irq-wake");
	struct irq_free *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct waiter *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct slabx_reservation *res;
	struct task_struct *task;
	void *p[SHARE];
	unsigned long w0, waits;
	bool woke;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_ASSERT_NOT_NULL(test, w);
	res = slabx_reserve(s, SHARE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	starve(test, s);
	for (i = 0; i < SHARE; i++) {
		p[i] = slabx_alloc_reserved(res, GFP_NOWAIT);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
	}
	KUNIT_EXPECT_NULL(test, slabx_alloc_reserved(res, GFP_NOWAIT));
	w->res = res;
	init_completion(&w->done);
	w0 = slabx_cache_stat(s, SLABX_RESERVE_WAIT);
	task = kthread_run(waiter_fn, w, "review-waiter");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	msleep(1000);
	waits = slabx_cache_stat(s, SLABX_RESERVE_WAIT) - w0;
	KUNIT_EXPECT_LE(test, waits, 2UL);
	KUNIT_EXPECT_FALSE(test, completion_done(&w->done));

	irq_free_start(f, res);
	KUNIT_EXPECT_TRUE(test, irq_free(f, p[0]));
	woke = wait_for_completion_timeout(&w->done, HZ);
	KUNIT_EXPECT_TRUE(test, woke);
	if (!woke) {
		slabx_fault_inject_pages(0);
		wait_for_completion(&w->done);
	}
	KUNIT_EXPECT_NOT_NULL(test, w->got);
	p[0] = w->got;
	for (i = 0; i < SHARE; i++)
		KUNIT_EXPECT_TRUE(test, irq_free(f, p[i]));
	irq_free_stop(f);
	slabx_unreserve(res);
	KUNIT_EXPECT_EQ(test, info_of(s).objects_reserve, 0UL);
	kunit_info(test, "%lu waits in 1 s, timer fired %lu times\n", waits,
		   f->fired);
}

/* ---- many reservations on every CPU, pages failing ---------------------- */

#define STRESS_SHARE	8
#define STRESS_MS	3000

struct taker {
	struct slabx_cache *s;
	struct slabx_reservation *res;
	struct irq_free *irq;
	unsigned long rounds, nulls;
	struct completion done;
	bool stop;
};

static int taker_fn(void *data)
{
	struct taker *t = data;
	void *p[STRESS_SHARE];
	int i;

	while (!READ_ONCE(t->stop)) {
		for (i = 0; i < STRESS_SHARE; i++) {
			p[i] = slabx_alloc_reserved(t->res, GFP_ATOMIC);
			if (!p[i])
				t->nulls++;
		}
		for (i = 0; i < STRESS_SHARE; i++) {
			if (i == 0 && t->irq && p[i] && irq_free(t->irq, p[i]))
				continue;
			slabx_free_reserved(t->res, p[i]);
		}
		t->rounds++;
		cond_resched();
	}
	complete(&t->done);
	return 0;
}

struct churner {
	struct slabx_cache *s;
	unsigned long ok, fail;
	struct completion done;
	bool stop;
};

/* Reservations come and go; plain allocations steal what reaches the slabs. */
static int churn_fn(void *data)
{
	struct churner *c = data;
	struct slabx_reservation *res;
	void *obj;

	unsigned long n = 0;

	while (!READ_ONCE(c->stop)) {
		/* Pages fail most of the time; now and then they do not. */
		slabx_fault_inject_pages((++n % 8) ? -1 : 0);
		res = slabx_reserve(c->s, 1 + (n % 37), GFP_KERNEL);
		if (!res) {
			c->fail++;
		} else {
			c->ok++;
			obj = slabx_alloc_reserved(res, GFP_NOWAIT);
			if (obj)
				slabx_free_reserved(res, obj);
			slabx_unreserve(res);
		}
		obj = slabx_alloc(c->s, GFP_NOWAIT | __GFP_NOWARN);
		if (obj)
			slabx_free(c->s, obj);
		cond_resched();
	}
	slabx_fault_inject_pages(-1);
	complete(&c->done);
	return 0;
}

static void shares_hold_under_churn(struct kunit *test)
{
	struct slabx_cache *s = flat_cache(test, "review-churn");
	unsigned int n = min(num_online_cpus(), 4U), i;
	struct taker *t = kunit_kcalloc(test, n, sizeof(*t), GFP_KERNEL);
	struct churner *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct irq_free *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct task_struct *task;
	unsigned long nulls = 0;

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NOT_NULL(test, f);
	for (i = 0; i < n; i++) {
		t[i].s = s;
		t[i].res = slabx_reserve(s, STRESS_SHARE, GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t[i].res);
		init_completion(&t[i].done);
	}
	starve(test, s);
	irq_free_start(f, t[0].res);
	t[0].irq = f;
	for (i = 0; i < n; i++) {
		task = kthread_create(taker_fn, &t[i], "review-taker/%u", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(task));
		kthread_bind(task, cpumask_nth(i % num_online_cpus(),
					       cpu_online_mask));
		wake_up_process(task);
	}
	c->s = s;
	init_completion(&c->done);
	task = kthread_run(churn_fn, c, "review-churn");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	msleep(STRESS_MS);
	WRITE_ONCE(c->stop, true);
	wait_for_completion(&c->done);
	for (i = 0; i < n; i++) {
		WRITE_ONCE(t[i].stop, true);
		wait_for_completion(&t[i].done);
		nulls += t[i].nulls;
		kunit_info(test, "taker %u: %lu rounds, %lu NULL\n", i,
			   t[i].rounds, t[i].nulls);
	}
	irq_free_stop(f);
	kunit_info(test, "churn: %lu reserved, %lu failed; irq fired %lu\n",
		   c->ok, c->fail, f->fired);
	KUNIT_EXPECT_EQ(test, nulls, 0UL);
	KUNIT_EXPECT_EQ(test, info_of(s).reserve_target,
			(unsigned long)n * STRESS_SHARE);
	KUNIT_EXPECT_EQ(test, info_of(s).objects_reserve,
			(unsigned long)n * STRESS_SHARE);
	for (i = 0; i < n; i++)
		slabx_unreserve(t[i].res);
	KUNIT_EXPECT_EQ(test, info_of(s).objects_reserve, 0UL);
	KUNIT_EXPECT_EQ(test, info_of(s).reserve_target, 0UL);
	/* Only the drained objects are in use. */
	kunit_info(test, "in use %lu\n", info_of(s).objects_inuse);
}

/* A reservation of 2^20 objects, and its share taken and given back. */
static void huge_reservation(struct kunit *test)
{
	struct slabx_cache *s = flat_cache(test, "review-huge");
	struct slabx_reservation *res;
	unsigned long t0;
	void *obj;

	t0 = jiffies;
	res = slabx_reserve(s, 1U << 20, GFP_KERNEL);
	if (!res)
		kunit_skip(test, "no memory for 2^20 objects");
	kunit_info(test, "reserve 2^20: %u ms\n", jiffies_to_msecs(jiffies - t0));
	KUNIT_EXPECT_EQ(test, info_of(s).objects_reserve, 1UL << 20);
	KUNIT_EXPECT_NULL(test, slabx_reserve(s, (1U << 20) + 1, GFP_KERNEL));
	starve(test, s);
	obj = slabx_alloc_reserved(res, GFP_NOWAIT);
	KUNIT_EXPECT_NOT_NULL(test, obj);
	slabx_free_reserved(res, obj);
	KUNIT_EXPECT_EQ(test, info_of(s).objects_reserve, 1UL << 20);
	t0 = jiffies;
	slabx_unreserve(res);
	kunit_info(test, "unreserve 2^20: %u ms\n",
		   jiffies_to_msecs(jiffies - t0));
	KUNIT_EXPECT_EQ(test, info_of(s).objects_reserve, 0UL);
}

/* ---- rcu_free: no false positive once the grace period ended ------------ */

static const unsigned int rcu_sizes[] = { 8, 16, 24, 64, 120, 128, 4096 };
static const unsigned int rcu_flags[] = { 0, SLABX_NO_SHEAVES,
					  SLABX_TYPESAFE_BY_RCU,
					  SLABX_HWCACHE_ALIGN, SLABX_DEBUG,
					  SLABX_DEBUG | SLABX_TYPESAFE_BY_RCU,
					  0x80000000U /* a ctor */ };

static void review_ctor(void *obj)
{
	memset(obj, 0x5a, 8);
}

#define RCU_OBJS	64

/*
 * Objects of every size given to slabx_free_rcu(); once their grace
 * period ended they come back and every free path accepts them (an
 * object still marked would be refused with a WARN: a splat).
 */
static void free_after_grace_period(struct kunit *test)
{
	void **p = kunit_kcalloc(test, RCU_OBJS, sizeof(*p), GFP_KERNEL);
	unsigned int si, fi, i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	for (si = 0; si < ARRAY_SIZE(rcu_sizes); si++)
		for (fi = 0; fi < ARRAY_SIZE(rcu_flags); fi++) {
			struct slabx_cache_args args = {
				.flags = rcu_flags[fi] & SLABX_VALID_FLAGS,
				.ctor = (rcu_flags[fi] & 0x80000000U) ?
					review_ctor : NULL };
			struct slabx_reservation *res;
			struct slabx_cache *s;
			unsigned long inv;

			s = cache_create(test, "review-rcu", rcu_sizes[si],
					 &args);
			KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
			res = slabx_reserve(s, 4, GFP_KERNEL);
			KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
			for (i = 0; i < RCU_OBJS; i++) {
				p[i] = slabx_alloc(s, GFP_KERNEL);
				KUNIT_ASSERT_NOT_NULL(test, p[i]);
			}
			for (i = 0; i < RCU_OBJS; i++)
				slabx_free_rcu(s, p[i]);
			slabx_rcu_barrier(s);
			inv = invalid_of(s);
			/* Again, then every free path. */
			for (i = 0; i < RCU_OBJS; i++) {
				p[i] = slabx_alloc(s, GFP_KERNEL);
				KUNIT_ASSERT_NOT_NULL(test, p[i]);
			}
			for (i = 0; i < RCU_OBJS / 4; i++)
				slabx_free(s, p[i]);
			slabx_free_bulk(s, RCU_OBJS / 4, p + RCU_OBJS / 4);
			for (i = RCU_OBJS / 2; i < 3 * RCU_OBJS / 4; i++)
				slabx_free_reserved(res, p[i]);
			for (; i < RCU_OBJS; i++)
				slabx_free_nolock(s, p[i]);
			KUNIT_EXPECT_EQ_MSG(test, invalid_of(s), inv,
					    "size %u flags %#x", rcu_sizes[si],
					    rcu_flags[fi]);
			/* free_rcu right after a grace period, again. */
			for (i = 0; i < RCU_OBJS; i++) {
				p[i] = slabx_alloc(s, GFP_KERNEL);
				KUNIT_ASSERT_NOT_NULL(test, p[i]);
				slabx_free_rcu(s, p[i]);
			}
			slabx_rcu_barrier(s);
			for (i = 0; i < RCU_OBJS; i++) {
				p[i] = slabx_alloc(s, GFP_KERNEL);
				KUNIT_ASSERT_NOT_NULL(test, p[i]);
				slabx_free_rcu(s, p[i]);
			}
			slabx_unreserve(res);
			KUNIT_EXPECT_EQ_MSG(test, invalid_of(s), inv,
					    "size %u flags %#x", rcu_sizes[si],
					    rcu_flags[fi]);
			/* Destroyed with objects waiting. */
			KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
		}
}

/*
 * slabx_free_rcu(), then slabx_free_reserved() within the grace period
 * through a reservation that holds objects (its locked path): refused
 * under KASAN, with the report of any other free path.
 */
static void free_reserved_after_free_rcu(struct kunit *test)
{
	struct slabx_cache *s = flat_cache(test, "review-rcu-res");
	struct slabx_reservation *res;
	unsigned long inv;
	void *a, *b;

	if (!IS_ENABLED(CONFIG_KASAN_GENERIC))
		kunit_skip(test, "needs KASAN");
	res = slabx_reserve(s, 2, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	starve(test, s);
	a = slabx_alloc_reserved(res, GFP_NOWAIT);
	b = slabx_alloc_reserved(res, GFP_NOWAIT);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	inv = slabx_cache_stat(s, SLABX_FREE_INVALID);
	slabx_free_rcu(s, a);
	pr_info("slabx-expect: BEGIN %s: warning: waiting for its grace period\n",
		test->name);
	slabx_free_reserved(res, a);
	pr_info("slabx-expect: END %s\n", test->name);
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_FREE_INVALID), inv + 1);
	/* Not in the reserve: b goes back into it, a after its grace period. */
	KUNIT_EXPECT_EQ(test, info_of(s).objects_reserve, 0UL);
	slabx_free_reserved(res, b);
	KUNIT_EXPECT_EQ(test, info_of(s).objects_reserve, 1UL);
	slabx_rcu_barrier(s);
	KUNIT_EXPECT_EQ(test, info_of(s).objects_reserve, 1UL);
	slabx_unreserve(res);
}

/* slabx_kmalloc() sizes: every class, freed and reallocated. */
static void kmalloc_classes_free(struct kunit *test)
{
	size_t size;
	void *p;

	for (size = 1; size <= 8192; size = size * 2 - (size > 4 ? 3 : 0)) {
		p = slabx_kmalloc(size, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p);
		slabx_kfree(p);
	}
}

/* ---- reserve + destroy + unreserve ------------------------------------- */

/*
 * destroy, a late slabx_free_reserved() of an object taken from the
 * reserve, then unreserve: objects accounted, cache reaped.
 */
static void destroy_then_late_free_reserved(struct kunit *test)
{
	unsigned int zombies = slabx_zombie_count();
	struct slabx_reservation *a, *b;
	struct slabx_cache *s;
	void *pa, *pb;

	s = slabx_cache_create("review-late", 64, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	a = slabx_reserve(s, 3, GFP_KERNEL);
	b = slabx_reserve(s, 2, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, a);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b);
	slabx_fault_inject_pages(-1);
	pa = slabx_alloc_reserved(a, GFP_NOWAIT);
	pb = slabx_alloc_reserved(b, GFP_NOWAIT);
	slabx_fault_inject_pages(0);
	KUNIT_ASSERT_NOT_NULL(test, pa);
	KUNIT_ASSERT_NOT_NULL(test, pb);
	KUNIT_EXPECT_EQ(test, slabx_cache_destroy(s), -EBUSY);
	KUNIT_EXPECT_EQ(test, info_of(s).objects_reserve, 0UL);
	KUNIT_EXPECT_EQ(test, info_of(s).objects_inuse, 2UL);
	slabx_unreserve(a);
	slabx_free_reserved(b, pb);
	KUNIT_EXPECT_EQ(test, info_of(s).objects_inuse, 1UL);
	slabx_unreserve(b);
	/* pa still allocated: kept. */
	KUNIT_EXPECT_EQ(test, slabx_zombie_count(), zombies + 1);
	slabx_free(s, pa);
	KUNIT_EXPECT_EQ(test, info_of(s).objects_inuse, 0UL);
}

struct unres {
	struct slabx_reservation *res;
	struct completion go, done;
	unsigned int delay_us;
};

static int unres_fn(void *data)
{
	struct unres *u = data;

	wait_for_completion(&u->go);
	if (u->delay_us)
		udelay(u->delay_us);
	slabx_unreserve(u->res);
	complete(&u->done);
	return 0;
}

/*
 * slabx_unreserve() of the last reservation while slabx_cache_destroy()
 * runs (allowed by slabx.h). An object waits for its grace period so that
 * the destroy spends a while in slabx_rcu_wait() after marking the cache
 * dead: an unreserve then sees dead and no reservation left and reaps the
 * cache (list_del() and cache_free()) under the running destroy, which
 * goes on with a freed cache, or list_del()s it again.
 */
static void unreserve_during_destroy(struct kunit *test)
{
	struct unres *u = kunit_kzalloc(test, sizeof(*u), GFP_KERNEL);
	unsigned int i, here, there;
	int busy = 0, ok = 0;

	KUNIT_ASSERT_NOT_NULL(test, u);
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs 2 CPUs");
	here = raw_smp_processor_id();
	pin(test, here);
	there = cpumask_any_but(cpu_online_mask, here);
	for (i = 0; i < 400; i++) {
		struct slabx_cache_args args = {
			.flags = (i & 1) ? SLABX_NO_SHEAVES : 0 };
		struct task_struct *task;
		struct slabx_cache *s;
		void *obj;
		int ret;

		s = slabx_cache_create("review-unres-destroy", 64, &args);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
		u->res = slabx_reserve(s, 4, GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, u->res);
		/* One round in four with an object waiting for RCU. */
		if (!(i & 3)) {
			obj = slabx_alloc(s, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, obj);
			slabx_free_rcu(s, obj);
		}
		u->delay_us = get_random_u32_below(i < 200 ? 400 : 3000);
		init_completion(&u->go);
		init_completion(&u->done);
		task = kthread_create(unres_fn, u, "review-unres");
		KUNIT_ASSERT_FALSE(test, IS_ERR(task));
		kthread_bind(task, there);
		wake_up_process(task);
		complete(&u->go);
		ret = slabx_cache_destroy(s);
		wait_for_completion(&u->done);
		if (ret == -EBUSY)
			busy++;
		else if (!ret)
			ok++;
	}
	kunit_info(test, "destroy: %d freed at once, %d kept for the reservation\n",
		   ok, busy);
}

/* ---- slab pages held by other code (review of 17282be) ------------------ */

/* ---- correct use: a get_page() holder outlives the slab ---------------- */

#define HELD	8

/*
 * A zero-copy style holder: get_page() on an object's page, the object
 * freed, the cache destroyed (its slabs go back). The block must stay
 * until the holder's put: exactly our reference left, contents readable.
 * @size picks order 0 (64) or above (2048); @flags typesafe or not.
 */
/*
 * HELD slabs' worth of objects of @s, filled, into @p (returned, @n of
 * them); the page of the last object of each slab (a tail page where
 * there is one) held by a get_page() into @pages.
 */
static void **held_setup(struct kunit *test, struct slabx_cache *s,
			 unsigned int size, struct page **pages,
			 unsigned int *n)
{
	unsigned int i, per = info_of(s).objs_per_slab;
	void **p;

	*n = HELD * per;
	p = kunit_kcalloc(test, *n, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < *n; i++) {
		p[i] = slabx_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
		memset(p[i], 0x6b, size);
	}
	for (i = 0; i < HELD; i++) {
		void *obj = p[i * per + per - 1];

		pages[i] = virt_to_page(obj);
		get_page(pages[i]);
		KUNIT_EXPECT_GE(test, slab_page_refs(obj), 3);
	}
	return p;
}

/*
 * @s, whose objects were all freed, destroyed: each held block must be
 * ours alone then (its slab gone back, not freed under us), until our put.
 */
static void held_release(struct kunit *test, struct slabx_cache *s,
			 struct page **pages)
{
	unsigned int i;

	KUNIT_EXPECT_EQ(test, invalid_of(s), 0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
	rcu_barrier();
	nolock_pages_drained();
	for (i = 0; i < HELD; i++) {
		int refs = page_ref_count(compound_head(pages[i]));

		KUNIT_EXPECT_EQ_MSG(test, refs, 1, "held block %u", i);
		put_page(pages[i]);
	}
}

static void held_pages_outlive_destroy_in(struct kunit *test,
					  unsigned int size, unsigned int flags)
{
	struct slabx_cache_args args = { .flags = flags };
	struct slabx_cache *s = cache_create(test, "review-held", size, &args);
	struct page *pages[HELD];
	void **p;
	unsigned int i, n;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	p = held_setup(test, s, size, pages, &n);
	for (i = 0; i < n; i++)
		slabx_free(s, p[i]);
	held_release(test, s, pages);
}

static void held_pages_outlive_destroy(struct kunit *test)
{
	held_pages_outlive_destroy_in(test, 64, 0);
	held_pages_outlive_destroy_in(test, 2048, 0);
	held_pages_outlive_destroy_in(test, 64, SLABX_TYPESAFE_BY_RCU);
	held_pages_outlive_destroy_in(test, 2048, SLABX_TYPESAFE_BY_RCU);
	held_pages_outlive_destroy_in(test, 2048, SLABX_NO_SHEAVES);
}

/*
 * The same holder, the slabs going back from any context: objects freed
 * with slabx_free_nolock() IRQs off, so that the slabs beyond the keep
 * limit go through slab_discard_nolock() and slabx_free_pages_nolock()
 * (stash, reserve or the deferred llist) with our reference on them.
 */
static void held_pages_outlive_nolock_discard_in(struct kunit *test,
						 unsigned int size)
{
	struct slabx_cache_args args = { .flags = SLABX_NO_SHEAVES };
	struct slabx_cache *s = cache_create(test, "review-held-nl", size,
					     &args);
	struct slabx_info info;
	struct page *pages[HELD];
	unsigned long flags, discards;
	void **p;
	unsigned int i, n;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	slabx_cache_info(s, &info);
	p = held_setup(test, s, size, pages, &n);
	discards = slabx_cache_stat(s, SLABX_SLAB_DISCARD);
	for (i = 0; i < n; i++) {
		local_irq_save(flags);
		slabx_free_nolock(s, p[i]);
		local_irq_restore(flags);
	}
	discards = slabx_cache_stat(s, SLABX_SLAB_DISCARD) - discards;
	kunit_info(test, "size %u order %u: %lu slabs discarded by nolock frees\n",
		   size, info.order, discards);
	nolock_pages_drained();
	/* The discarded ones: ours alone now; the kept ones: still slabs. */
	for (i = 0; i < HELD; i++) {
		int refs = page_ref_count(compound_head(pages[i]));

		KUNIT_EXPECT_TRUE_MSG(test, refs == 1 || refs == 3,
				      "held %u: %d refs", i, refs);
	}
	held_release(test, s, pages);
}

static void held_pages_outlive_nolock_discard(struct kunit *test)
{
	held_pages_outlive_nolock_discard_in(test, 64);
	held_pages_outlive_nolock_discard_in(test, 2048);
}

/* ---- the any-context page path with foreign blocks --------------------- */

/*
 * Blocks from the page allocator given to slabx_free_pages_nolock():
 * compound and not, held by someone else or not. A held one must not be
 * handed out again by slabx_try_alloc_pages() while held.
 */
static void foreign_blocks_to_free_pages_nolock(struct kunit *test)
{
	static const struct { unsigned int order; gfp_t extra; bool hold; } b[] = {
		{ 0, 0, false }, { 0, 0, true },
		{ 1, 0, false }, { 2, __GFP_COMP, false }, { 2, __GFP_COMP, true },
		{ 3, 0, false }, { 5, __GFP_COMP, false }, { 5, __GFP_COMP, true },
	};
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(b); i++) {
		struct page *page = alloc_pages(GFP_KERNEL | b[i].extra,
						b[i].order);
		unsigned long flags;

		KUNIT_ASSERT_NOT_NULL(test, page);
		memset(page_address(page), 0x3c, PAGE_SIZE << b[i].order);
		if (b[i].hold)
			get_page(page);
		local_irq_save(flags);
		slabx_free_pages_nolock(page, b[i].order);
		local_irq_restore(flags);
		if (!b[i].hold)
			continue;
		/* Take all the path gives at this order: never our block. */
		for (j = 0; j < 300; j++) {
			struct page *got = slabx_try_alloc_pages(NUMA_NO_NODE,
								 b[i].order);

			if (!got)
				break;
			KUNIT_EXPECT_PTR_NE(test, got, page);
			__free_pages(got, b[i].order);
		}
		nolock_pages_drained();
		KUNIT_EXPECT_EQ_MSG(test, page_ref_count(page), 1,
				    "order %u", b[i].order);
		put_page(page);
	}
}

static struct kunit_case review_cases[] = {
	KUNIT_CASE(irq_free_wakes_sleeper),
	KUNIT_CASE(shares_hold_under_churn),
	KUNIT_CASE(huge_reservation),
	KUNIT_CASE(free_after_grace_period),
	KUNIT_CASE(free_reserved_after_free_rcu),
	KUNIT_CASE(kmalloc_classes_free),
	KUNIT_CASE(destroy_then_late_free_reserved),
	KUNIT_CASE(held_pages_outlive_destroy),
	KUNIT_CASE(held_pages_outlive_nolock_discard),
	KUNIT_CASE(foreign_blocks_to_free_pages_nolock),
	KUNIT_CASE(unreserve_during_destroy),
	{}
};

static struct kunit_suite review_suite = {
	.name = "slabx_review",
	.test_cases = review_cases,
};

kunit_test_suites(&review_suite);

MODULE_DESCRIPTION("slabx: adversarial review cases");

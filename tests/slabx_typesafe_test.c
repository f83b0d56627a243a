// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for %SLABX_TYPESAFE_BY_RCU caches: a freed object keeps its
 * contents (the free pointer is stored after it), and memory that held
 * objects stays an object of the cache until a grace period has passed,
 * however the slab left the cache (a free, a shrink, a destroy). Readers
 * under rcu_read_lock() that still hold a pointer read an object of the
 * type, never freed memory: KASAN (debug flavours) reports any read of a
 * page given back too early, and the run fails on the report.
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "../slabx.h"
#include "slabx_kunit.h"

#define PATTERN		0x5a
#define TOBJ_TYPE	0x7970657361666531UL	/* "typesafe1" */
#define NR_SLOTS	64

/*
 * The object of the reader test: @type is what a typesafe reader checks
 * (set by the writer before every publication, never cleared), at offset
 * 0, where a free pointer inside the object would go.
 */
struct tobj {
	unsigned long type;
	unsigned long key;
	char pad[48];
};

static struct slabx_cache *typesafe_cache(struct kunit *test, const char *name,
					  unsigned int size, unsigned int flags)
{
	struct slabx_cache_args args = {
		.flags = SLABX_TYPESAFE_BY_RCU | flags,
	};
	struct slabx_cache *s = cache_create(test, name, size, &args);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	return s;
}

/* The 2^order block of pages (the slab) holding @obj. */
static unsigned long slab_of(const void *obj, unsigned int order)
{
	return (unsigned long)obj & ~((PAGE_SIZE << order) - 1);
}

/*
 * Free objects keep every byte: nothing of slabx (free pointer,
 * init_on_free, KASAN poison) touches them, in a sheaf or in a slab, and
 * the object handed out again is as it was freed (no init_on_alloc).
 */
static void free_keeps_contents_in(struct kunit *test, unsigned int size,
				   unsigned int flags)
{
	struct slabx_cache *s = typesafe_cache(test, "kunit-ts-keep", size,
					       flags);
	struct slabx_info info;
	void **p, *again;
	int i, n;

	/* One slab's worth: no slab becomes free, none leaves the cache. */
	slabx_cache_info(s, &info);
	n = min(48U, info.objs_per_slab - 1);
	p = kunit_kcalloc(test, n, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	pin(test, 0);
	alloc_n(test, s, p, n);
	for (i = 0; i < n; i++)
		memset(p[i], PATTERN, size);
	/* Under rcu_read_lock() a typesafe reader may read them, freed. */
	rcu_read_lock();
	for (i = 0; i < n; i++)
		slabx_free(s, p[i]);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_NULL_MSG(test, memchr_inv(p[i], PATTERN, size),
				      "free object %d of %u bytes changed", i,
				      size);
	rcu_read_unlock();
	/* The last freed object comes back first, as it was. */
	again = slabx_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, again);
	KUNIT_EXPECT_PTR_EQ(test, again, p[n - 1]);
	KUNIT_EXPECT_NULL(test, memchr_inv(again, PATTERN, size));
	slabx_free(s, again);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
	/* The destroyed cache's slabs are freed after a grace period. */
	rcu_barrier();
}

static void free_keeps_contents(struct kunit *test)
{
	free_keeps_contents_in(test, 8, 0);
	free_keeps_contents_in(test, 64, 0);
	free_keeps_contents_in(test, 8, SLABX_NO_SHEAVES);
	free_keeps_contents_in(test, 200, SLABX_NO_SHEAVES);
}

/*
 * A slab emptied by a free inside a read-side critical section, past the
 * node's keep limit, leaves the cache at once (counted as discarded) but
 * its pages stay until the grace period ends: an object of it, freed in
 * the same section, still reads as it was (and KASAN sees no page freed).
 */
static void slab_pages_outlive_readers(struct kunit *test)
{
	struct slabx_cache *s = typesafe_cache(test, "kunit-ts-gp", 64,
					       SLABX_NO_SHEAVES);
	enum { SLABS = 6 };
	struct slabx_info info;
	unsigned int per, j, k, discarded_in_reader = 0;
	void **p;

	slabx_cache_info(s, &info);
	per = info.objs_per_slab;
	p = kunit_kcalloc(test, SLABS * per, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	pin(test, 0);
	alloc_n(test, s, p, SLABS * per);
	/* A new cache fills one slab after the other. */
	for (j = 0; j < SLABS; j++)
		for (k = 0; k < per; k++) {
			KUNIT_ASSERT_EQ(test, slab_of(p[j * per + k], info.order),
					slab_of(p[j * per], info.order));
			memset(p[j * per + k], PATTERN, 64);
		}

	for (j = 0; j < SLABS; j++) {
		unsigned long before = slabx_cache_stat(s, SLABX_SLAB_DISCARD);
		void *held = p[j * per];

		rcu_read_lock();
		for (k = 0; k < per; k++)
			slabx_free(s, p[j * per + k]);
		if (slabx_cache_stat(s, SLABX_SLAB_DISCARD) != before) {
			discarded_in_reader++;
			/* Still a page of ours: not given back yet. */
			KUNIT_EXPECT_GT(test,
					page_ref_count(virt_to_page(held)), 0);
			KUNIT_EXPECT_NULL(test, memchr_inv(held, PATTERN, 64));
		}
		rcu_read_unlock();
	}
	/* Past the keep limit (2 empty slabs per node), slabs went. */
	KUNIT_EXPECT_GE(test, discarded_in_reader, 1U);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
	/* The pages of the slabs destroy freed go back after this. */
	rcu_barrier();
}

/*
 * slabx_free_nolock() may run where call_rcu() may not: a slab it empties
 * stays in the cache, past the node's keep limit, until a later free
 * (which trims the surplus) or a shrink gives it back.
 */
static void nolock_free_keeps_slabs(struct kunit *test)
{
	struct slabx_cache *s = typesafe_cache(test, "kunit-ts-nolock", 64,
					       SLABX_NO_SHEAVES);
	enum { SLABS = 5 };
	struct slabx_info info;
	unsigned long before;
	unsigned int nr;
	void **p, *one;
	int i;

	slabx_cache_info(s, &info);
	nr = SLABS * info.objs_per_slab;
	p = kunit_kcalloc(test, nr, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	pin(test, 0);
	alloc_n(test, s, p, nr);
	before = slabx_cache_stat(s, SLABX_SLAB_DISCARD);
	for (i = 0; i < nr; i++)
		slabx_free_nolock(s, p[i]);
	slabx_cache_info(s, &info);
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_SLAB_DISCARD), before);
	KUNIT_EXPECT_EQ(test, info.slabs, (unsigned long)SLABS);
	KUNIT_EXPECT_EQ(test, info.objects_inuse, 0UL);

	/* A plain free that empties a slab trims the node's surplus. */
	one = slabx_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, one);
	slabx_free(s, one);
	slabx_cache_info(s, &info);
	KUNIT_EXPECT_LT(test, info.slabs, (unsigned long)SLABS);
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_SLAB_DISCARD) - before,
			SLABS - info.slabs);

	slabx_cache_shrink(s);
	slabx_cache_info(s, &info);
	KUNIT_EXPECT_EQ(test, info.slabs, 0UL);
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_SLAB_DISCARD) - before,
			(unsigned long)SLABS);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
	rcu_barrier();
}

/* ---- readers across free, reuse, shrink and destroy ------------------- */

struct ts_readers {
	struct tobj __rcu *slot[NR_SLOTS];
	bool stop;
	atomic_t done;
	atomic_long_t reads;
	atomic_long_t bad;
};

static int ts_reader(void *data)
{
	struct ts_readers *r = data;
	unsigned long reads = 0;
	int i;

	while (!READ_ONCE(r->stop)) {
		rcu_read_lock();
		for (i = 0; i < NR_SLOTS; i++) {
			struct tobj *o = rcu_dereference(r->slot[i]);

			if (!o)
				continue;
			/* Read twice, across whatever the writer does. */
			if (READ_ONCE(o->type) != TOBJ_TYPE)
				atomic_long_inc(&r->bad);
			cpu_relax();
			if (READ_ONCE(o->type) != TOBJ_TYPE)
				atomic_long_inc(&r->bad);
			reads++;
		}
		rcu_read_unlock();
		cond_resched();
	}
	atomic_long_add(reads, &r->reads);
	atomic_inc(&r->done);
	return 0;
}

static void ts_readers_stop(void *data)
{
	struct ts_readers *r = data;

	WRITE_ONCE(r->stop, true);
}

/*
 * Empty slot @i, freeing at once what it held (no grace period).
 * Return: whether it held an object.
 */
static bool ts_unpublish(struct slabx_cache *s, struct ts_readers *r, int i)
{
	struct tobj *o = rcu_dereference_protected(r->slot[i], true);

	if (!o)
		return false;
	RCU_INIT_POINTER(r->slot[i], NULL);
	slabx_free(s, o);
	return true;
}

static void ts_clear_slots(struct slabx_cache *s, struct ts_readers *r)
{
	int i;

	for (i = 0; i < NR_SLOTS; i++)
		ts_unpublish(s, r, i);
}

/*
 * Two readers read whatever the slots hold while the writer frees
 * objects right after unpublishing them, reuses them, shrinks the cache
 * every few rounds and finally destroys it with the readers still
 * running: every read finds the type, and KASAN reports nothing.
 */
static void readers_across_free_reuse_shrink_destroy(struct kunit *test)
{
	struct slabx_cache *s = typesafe_cache(test, "kunit-ts-readers",
					       sizeof(struct tobj), 0);
	struct ts_readers *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	unsigned long discards;
	int round, i, nr_readers = 0;

	KUNIT_ASSERT_NOT_NULL(test, r);
	pin(test, 0);
	for (i = 0; i < 2; i++) {
		int cpu = num_online_cpus() > 1 ?
			  cpumask_next(i, cpu_online_mask) : 0;
		struct task_struct *t;

		if (cpu >= nr_cpu_ids)
			cpu = 0;
		t = kthread_create_on_cpu(ts_reader, r, cpu, "kunit-ts-reader/%u");
		KUNIT_ASSERT_FALSE(test, IS_ERR(t));
		KUNIT_ASSERT_EQ(test, start_kthread(test, t, ts_readers_stop, r),
				0);
		nr_readers++;
	}

	for (round = 0; round < 1500; round++) {
		for (i = round & 1; i < NR_SLOTS; i += 2) {
			struct tobj *o;

			if (ts_unpublish(s, r, i))
				continue;
			o = slabx_alloc(s, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, o);
			o->type = TOBJ_TYPE;
			o->key = round;
			rcu_assign_pointer(r->slot[i], o);
		}
		if (round % 50 == 49) {
			ts_clear_slots(s, r);
			slabx_cache_shrink(s);
		}
		cond_resched();
	}
	discards = slabx_cache_stat(s, SLABX_SLAB_DISCARD);
	ts_clear_slots(s, r);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
	/* The readers go on a little over the destroyed cache's memory. */
	for (i = 0; i < 1000; i++)
		cond_resched();
	ts_readers_stop(r);
	while (atomic_read(&r->done) < nr_readers)
		schedule_timeout_uninterruptible(1);
	rcu_barrier();

	KUNIT_EXPECT_EQ(test, atomic_long_read(&r->bad), 0L);
	KUNIT_EXPECT_GT(test, discards, 0UL);
	kunit_info(test, "%d readers, %ld reads, %lu slabs discarded before destroy",
		   nr_readers, atomic_long_read(&r->reads), discards);
}

static struct kunit_case slabx_typesafe_cases[] = {
	KUNIT_CASE(free_keeps_contents),
	KUNIT_CASE(slab_pages_outlive_readers),
	KUNIT_CASE(nolock_free_keeps_slabs),
	KUNIT_CASE_SLOW(readers_across_free_reuse_shrink_destroy),
	{}
};

static struct kunit_suite slabx_typesafe_suite = {
	.name = "slabx_typesafe",
	.test_cases = slabx_typesafe_cases,
};

kunit_test_suites(&slabx_typesafe_suite);

MODULE_DESCRIPTION("KUnit tests of typesafe-by-RCU slabx caches");

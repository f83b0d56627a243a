// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for slabx's per-CPU sheaves, barns and prefilled sheaves.
 * Each path is forced in turn and proven taken by the deltas of the cache's
 * counters; the test thread is pinned to one CPU so that "this CPU's
 * sheaves" means the same sheaves from one call to the next.
 */
#include <kunit/test.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>

#include "../slabx.h"
#include "slabx_kunit.h"
#include "slabx_test_hooks.h"

/* ---- suite slabx_sheaf: the per-CPU paths ---------------------------- */

/*
 * A new cache: the first allocation finds no sheaf, barn or partial slab
 * and makes a slab; the next refills main from that slab; frees fill main;
 * the one after a full main gets a new empty sheaf (the full one becomes
 * the spare); an allocation after emptying main swaps in the spare.
 */
static void alloc_free_paths(struct kunit *test)
{
	struct slabx_cache *s = cache(test, "kunit-paths", 64, 8);
	struct snap sn;
	void *o[9];

	require_sheaves(test);

	pin(test, 0);
	snap_take(s, &sn);
	o[0] = slabx_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, o[0]);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_ALLOC_SLOWPATH), 1UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_BARN_GET_FAIL), 1UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_SLAB_NEW), 1UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_ALLOC_FASTPATH), 0UL);

	snap_take(s, &sn);
	alloc_n(test, s, o + 1, 8);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_SHEAF_REFILL), 1UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_ALLOC_FASTPATH), 8UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_ALLOC_SLOWPATH), 0UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_SLAB_NEW), 0UL);

	snap_take(s, &sn);
	free_n(s, o + 1, 8);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_FREE_FASTPATH), 8UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_SHEAF_ALLOC), 0UL);
	slabx_free(s, o[0]);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_FREE_FASTPATH), 9UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_SHEAF_ALLOC), 1UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_FREE_SLOWPATH), 0UL);

	/* Main holds 1, the spare 8: the second allocation swaps. */
	snap_take(s, &sn);
	alloc_n(test, s, o, 2);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_ALLOC_FASTPATH), 2UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_BARN_GET), 0UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_BARN_GET_FAIL), 0UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_SHEAF_REFILL), 0UL);
	free_n(s, o, 2);
	KUNIT_EXPECT_EQ(test, objects_held(s), 0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

/*
 * With main and spare full, a free puts main into the barn (after getting
 * a new empty sheaf, since the barn has none to trade); with main and spare
 * empty, an allocation trades main for that full barn sheaf, and no slab is
 * touched.
 */
static void barn_put_and_get(struct kunit *test)
{
	struct slabx_cache *s = cache(test, "kunit-barn", 64, 8);
	struct slabx_info info;
	struct snap sn;
	void *o[40];

	require_sheaves(test);

	pin(test, 0);
	alloc_n(test, s, o, 40);
	slabx_cache_shrink(s);		/* main empty, no spare, barn empty */
	free_n(s, o, 8);		/* main full */
	free_n(s, o + 8, 1);		/* new main, the full one is spare */
	free_n(s, o + 9, 7);		/* main full again */

	snap_take(s, &sn);
	free_n(s, o + 16, 1);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_BARN_PUT), 1UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_SHEAF_ALLOC), 1UL);
	KUNIT_EXPECT_GE(test, delta(s, &sn, SLABX_BARN_PUT_FAIL), 1UL);
	slabx_cache_info(s, &info);
	KUNIT_EXPECT_EQ(test, info.objects_barn, 8UL);

	/* Main 1, spare 8, barn 8: the tenth allocation needs the barn. */
	snap_take(s, &sn);
	alloc_n(test, s, o, 9);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_BARN_GET), 0UL);
	alloc_n(test, s, o + 9, 1);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_BARN_GET), 1UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_ALLOC_FASTPATH), 10UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_SLAB_NEW), 0UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_SHEAF_REFILL), 0UL);
	slabx_cache_info(s, &info);
	KUNIT_EXPECT_EQ(test, info.objects_barn, 0UL);

	free_n(s, o, 10);
	free_n(s, o + 17, 23);
	KUNIT_EXPECT_EQ(test, objects_held(s), 0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

/*
 * Frees beyond what the barn may hold flush whole sheaves into the slabs;
 * the shrinker then empties the barn and returns the free slabs.
 */
static void barn_limit_and_shrinker(struct kunit *test)
{
	struct slabx_cache *s = cache(test, "kunit-shrink", 1024, 4);
	struct slabx_info before, after;
	struct snap sn;
	unsigned int n;
	void **o;

	require_sheaves(test);

	/* Main, spare, a full barn and 5 sheaves more. */
	slabx_cache_info(s, &before);
	n = (2 + before.barn_max_full + 5) * 4;
	o = kunit_kcalloc(test, n, sizeof(*o), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, o);
	pin(test, 0);
	alloc_n(test, s, o, n);
	slabx_cache_shrink(s);
	snap_take(s, &sn);
	free_n(s, o, n);
	KUNIT_EXPECT_GE(test, delta(s, &sn, SLABX_SHEAF_FLUSH), 1UL);
	KUNIT_EXPECT_GE(test, delta(s, &sn, SLABX_BARN_PUT_FAIL), 1UL);
	KUNIT_EXPECT_GE(test, delta(s, &sn, SLABX_BARN_PUT), 1UL);
	slabx_cache_info(s, &before);
	KUNIT_EXPECT_EQ(test, before.objects_barn, before.barn_max_full * 4UL);

	snap_take(s, &sn);
	KUNIT_EXPECT_GE(test, slabx_shrink_all(), before.objects_barn);
	slabx_cache_info(s, &after);
	KUNIT_EXPECT_EQ(test, after.objects_barn, 0UL);
	KUNIT_EXPECT_LT(test, after.slabs, before.slabs);
	KUNIT_EXPECT_GE(test, delta(s, &sn, SLABX_SLAB_DISCARD), 1UL);
	KUNIT_EXPECT_EQ(test, objects_held(s), 0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

/*
 * A barn keeps as many full sheaves as hold 256 KiB of objects, between 10
 * and 32: the ceiling (small objects), one in between and the floor.
 */
static void barn_limit_by_bytes(struct kunit *test)
{
	static const struct {
		unsigned int size, capacity;
	} c[] = { { 64, 0 }, { 4096, 4 }, { 8192, 8 } };
	unsigned long got[ARRAY_SIZE(c)];
	struct slabx_info info;
	int i;

	require_sheaves(test);
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		struct slabx_cache *s = cache(test, "kunit-barn-bytes",
					      c[i].size, c[i].capacity);
		unsigned long bytes;

		slabx_cache_info(s, &info);
		bytes = (unsigned long)info.sheaf_capacity * info.stride;
		got[i] = info.barn_max_full;
		KUNIT_EXPECT_EQ(test, got[i], clamp(SZ_256K / bytes, 10UL, 32UL));
		KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
	}
	KUNIT_EXPECT_EQ(test, got[0], 32UL);
	KUNIT_EXPECT_GT(test, got[1], 10UL);
	KUNIT_EXPECT_LT(test, got[1], 32UL);
	KUNIT_EXPECT_EQ(test, got[2], 10UL);
}

/*
 * A burst larger than the barn overflows into the slabs. Up to as many
 * emptied slabs as hold 10 full sheaves stay, so the next such
 * burst makes no new slab and frees none; a shrink gives them back. The
 * burst: main, spare and a full barn (barn_max_full sheaves of 64, 16
 * here), and 5 sheaves' worth more, which takes about 22 slabs of 15
 * objects.
 */
static void burst_keeps_its_slabs(struct kunit *test)
{
	struct slabx_cache *s = cache(test, "kunit-burst", 256, 0);
	struct slabx_info info;
	unsigned int burst;
	struct snap sn;
	void **o;

	require_sheaves(test);

	slabx_cache_info(s, &info);
	burst = (2 + info.barn_max_full + 5) * info.sheaf_capacity;
	o = kunit_kcalloc(test, burst, sizeof(*o), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, o);
	pin(test, 0);
	alloc_n(test, s, o, burst);
	free_n(s, o, burst);
	snap_take(s, &sn);
	alloc_n(test, s, o, burst);
	free_n(s, o, burst);
	/* The burst did overflow the barn, and found its slabs again. */
	KUNIT_EXPECT_GT(test, delta(s, &sn, SLABX_BARN_PUT_FAIL), 0UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_SLAB_NEW), 0UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_SLAB_DISCARD), 0UL);
	slabx_cache_info(s, &info);
	KUNIT_EXPECT_GT(test, info.slabs, 2UL);
	slabx_cache_shrink(s);
	slabx_cache_info(s, &info);
	KUNIT_EXPECT_EQ(test, info.slabs, 0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

/* An allocation for, or a free of an object of, another node skips them. */
static void remote_node_bypasses_sheaves(struct kunit *test)
{
	struct slabx_cache *s;
	struct snap sn;
	int nid, other = NUMA_NO_NODE;
	void *obj;

	pin(test, 0);
	for_each_node_state(nid, N_MEMORY)
		if (nid != numa_mem_id())
			other = nid;
	if (other == NUMA_NO_NODE)
		kunit_skip(test, "needs a second node with memory");
	s = cache(test, "kunit-remote", 128, 8);
	snap_take(s, &sn);
	obj = slabx_alloc_node(s, GFP_KERNEL, other);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	KUNIT_EXPECT_EQ(test, page_to_nid(virt_to_page(obj)), other);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_ALLOC_SLOWPATH), 1UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_ALLOC_FASTPATH), 0UL);
	slabx_free(s, obj);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_FREE_SLOWPATH), 1UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_FREE_FASTPATH), 0UL);
	KUNIT_EXPECT_EQ(test, objects_held(s), 0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

/*
 * A gfp that may spin but not reclaim directly still refills main from the
 * partial slabs; one that may not even spin does not.
 */
static void refill_with_nowait_gfp(struct kunit *test)
{
	const gfp_t mempool_try = (GFP_KERNEL & ~(__GFP_DIRECT_RECLAIM |
						  __GFP_IO)) |
				  __GFP_NORETRY | __GFP_NOMEMALLOC |
				  __GFP_NOWARN;
	struct slabx_cache *s = cache(test, "kunit-nowait", 64, 8);
	struct snap sn;
	void *keep, *o[3];

	require_sheaves(test);

	pin(test, 0);
	keep = slabx_alloc(s, GFP_KERNEL);	/* a partial slab stays */
	KUNIT_ASSERT_NOT_NULL(test, keep);

	slabx_cache_shrink(s);
	snap_take(s, &sn);
	o[0] = slabx_alloc(s, GFP_NOWAIT);
	KUNIT_ASSERT_NOT_NULL(test, o[0]);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_SHEAF_REFILL), 1UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_ALLOC_FASTPATH), 1UL);

	slabx_cache_shrink(s);
	snap_take(s, &sn);
	o[1] = slabx_alloc(s, mempool_try);
	KUNIT_ASSERT_NOT_NULL(test, o[1]);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_SHEAF_REFILL), 1UL);

	slabx_cache_shrink(s);
	snap_take(s, &sn);
	o[2] = slabx_alloc(s, 0);
	KUNIT_ASSERT_NOT_NULL(test, o[2]);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_SHEAF_REFILL), 0UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_ALLOC_SLOWPATH), 1UL);

	free_n(s, o, 3);
	slabx_free(s, keep);
	KUNIT_EXPECT_EQ(test, objects_held(s), 0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

/* Bulk allocation and free go through the sheaves first. */
static void bulk_through_sheaves(struct kunit *test)
{
	struct slabx_cache *s = cache(test, "kunit-sbulk", 64, 16);
	struct snap sn;
	void *o[40];

	require_sheaves(test);

	pin(test, 0);
	alloc_n(test, s, o, 40);
	slabx_cache_shrink(s);
	snap_take(s, &sn);
	slabx_free_bulk(s, 40, o);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_FREE_FASTPATH), 40UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_FREE), 40UL);
	snap_take(s, &sn);
	KUNIT_ASSERT_EQ(test, slabx_alloc_bulk(s, GFP_KERNEL, 40, o), 40);
	KUNIT_EXPECT_GE(test, delta(s, &sn, SLABX_ALLOC_FASTPATH), 16UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_ALLOC), 40UL);
	slabx_free_bulk(s, 40, o);
	KUNIT_EXPECT_EQ(test, objects_held(s), 0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

/* Objects allocated on one CPU and freed on another come back by barn. */
static void cross_cpu_through_barn(struct kunit *test)
{
	struct slabx_cache *s;
	struct snap sn;
	int a, b;
	void **o;

	a = same_node_pair(&b);
	if (a < 0)
		kunit_skip(test, "needs two CPUs on one node");
	o = kunit_kcalloc(test, 80, sizeof(*o), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, o);
	s = cache(test, "kunit-cross", 64, 8);

	pin(test, a);
	alloc_n(test, s, o, 80);
	pin(test, b);
	snap_take(s, &sn);
	free_n(s, o, 80);
	KUNIT_EXPECT_GE(test, delta(s, &sn, SLABX_BARN_PUT), 1UL);
	pin(test, a);
	snap_take(s, &sn);
	alloc_n(test, s, o, 80);
	KUNIT_EXPECT_GE(test, delta(s, &sn, SLABX_BARN_GET), 1UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_SLAB_NEW), 0UL);
	free_n(s, o, 80);
	KUNIT_EXPECT_EQ(test, objects_held(s), 0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

/* A CPU going offline gives its sheaves' objects back. */
static void cpu_dead_flushes_sheaves(struct kunit *test)
{
	struct slabx_cache *s;
	struct slabx_info info;
	int victim;
	void *o[40];

	victim = hotplug_victim();
	if (victim < 0)
		kunit_skip(test, "needs a second CPU");
	s = cache(test, "kunit-dead", 64, 16);

	pin(test, victim);
	alloc_n(test, s, o, 40);
	free_n(s, o, 40);
	pin(test, 0);
	slabx_cache_info(s, &info);
	KUNIT_EXPECT_GT(test, info.objects_inuse, 0UL);	/* in victim's sheaves */

	KUNIT_ASSERT_EQ(test, take_cpu_offline(test, victim), 0);
	/* The shrink reaches online CPUs only: the rest was flushed at death. */
	KUNIT_EXPECT_EQ(test, objects_held(s), 0UL);
	KUNIT_ASSERT_EQ(test, bring_cpu_online(test, victim), 0);

	pin(test, victim);
	alloc_n(test, s, o, 40);
	free_n(s, o, 40);
	pin(test, 0);
	KUNIT_EXPECT_EQ(test, objects_held(s), 0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

static struct kunit_case slabx_sheaf_cases[] = {
	KUNIT_CASE(alloc_free_paths),
	KUNIT_CASE(barn_put_and_get),
	KUNIT_CASE(barn_limit_and_shrinker),
	KUNIT_CASE(barn_limit_by_bytes),
	KUNIT_CASE(burst_keeps_its_slabs),
	KUNIT_CASE(remote_node_bypasses_sheaves),
	KUNIT_CASE(refill_with_nowait_gfp),
	KUNIT_CASE(bulk_through_sheaves),
	KUNIT_CASE(cross_cpu_through_barn),
	KUNIT_CASE(cpu_dead_flushes_sheaves),
	{}
};

static struct kunit_suite slabx_sheaf_suite = {
	.name = "slabx_sheaf",
	.test_cases = slabx_sheaf_cases,
};

/* ---- suite slabx_prefill: prefilled sheaves -------------------------- */

static DEFINE_RAW_SPINLOCK(critical_lock);

/* Take @n objects from @sheaf with IRQs off inside a raw spinlock. */
static int take_in_critical_section(struct slabx_cache *s,
				    struct slabx_sheaf *sheaf, void **p, int n)
{
	unsigned long flags;
	int i, missing = 0;

	raw_spin_lock_irqsave(&critical_lock, flags);
	for (i = 0; i < n; i++) {
		p[i] = slabx_alloc_from_sheaf(s, __GFP_ZERO, sheaf);
		if (!p[i] || memchr_inv(p[i], 0, 96))
			missing++;
	}
	raw_spin_unlock_irqrestore(&critical_lock, flags);
	return missing;
}

/*
 * Prefill, then allocate every object with IRQs off inside a raw spinlock
 * while every page allocation fails: not one failure. Oversize too.
 */
static void prefill_critical_section(struct kunit *test)
{
	struct slabx_cache *s = cache(test, "kunit-prefill", 96, 8);
	struct slabx_sheaf *small, *big;
	struct slabx_cache *starved;
	struct snap sn;
	void **o;
	int i;

	require_sheaves(test);

	o = kunit_kcalloc(test, 58, sizeof(*o), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, o);
	snap_take(s, &sn);
	small = slabx_prefill_sheaf(s, GFP_KERNEL, 8);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, small);
	big = slabx_prefill_sheaf(s, GFP_KERNEL, 50);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, big);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_SHEAF_PREFILL_OVERSIZE), 1UL);
	KUNIT_EXPECT_GE(test, slabx_sheaf_size(small), 8U);
	KUNIT_EXPECT_GE(test, slabx_sheaf_size(big), 50U);

	fault_inject(test, slabx_fault_inject_pages, -1);
	/* The knob works: a cache without slabs cannot allocate now. */
	starved = cache(test, "kunit-starved", 96, 8);
	KUNIT_EXPECT_NULL(test, slabx_alloc(starved, GFP_KERNEL));
	KUNIT_EXPECT_EQ(test, take_in_critical_section(s, small, o, 8), 0);
	KUNIT_EXPECT_EQ(test, take_in_critical_section(s, big, o + 8, 50), 0);
	fault_inject_end(test, slabx_fault_inject_pages);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, starved), 0);

	sort(o, 58, sizeof(*o), cmp_ptr, NULL);
	for (i = 1; i < 58; i++)
		KUNIT_EXPECT_PTR_NE(test, o[i], o[i - 1]);
	slabx_return_sheaf(s, GFP_KERNEL, small);
	slabx_return_sheaf(s, GFP_KERNEL, big);
	free_n(s, o, 58);
	KUNIT_EXPECT_EQ(test, objects_held(s), 0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

/* A returned sheaf becomes the spare, and the next prefill takes it. */
static void prefill_fast_and_return(struct kunit *test)
{
	struct slabx_cache *s = cache(test, "kunit-return", 64, 8);
	struct slabx_sheaf *sheaf, *other;
	struct snap sn;
	void *o[2];

	require_sheaves(test);

	pin(test, 0);
	snap_take(s, &sn);
	sheaf = slabx_prefill_sheaf(s, GFP_KERNEL, 8);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sheaf);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_SHEAF_PREFILL_SLOW), 1UL);
	slabx_return_sheaf(s, GFP_KERNEL, sheaf);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_SHEAF_RETURN_FAST), 1UL);

	sheaf = slabx_prefill_sheaf(s, GFP_KERNEL, 5);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sheaf);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_SHEAF_PREFILL_FAST), 1UL);
	o[0] = slabx_alloc_from_sheaf(s, 0, sheaf);
	o[1] = slabx_alloc_from_sheaf(s, 0, sheaf);
	KUNIT_EXPECT_EQ(test, slabx_sheaf_size(sheaf), 6U);

	/* The spare slot is free again, but 6 < 8: a new sheaf is filled. */
	other = slabx_prefill_sheaf(s, GFP_KERNEL, 8);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, other);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_SHEAF_PREFILL_SLOW), 2UL);
	slabx_return_sheaf(s, GFP_KERNEL, sheaf);	/* spare */
	slabx_return_sheaf(s, GFP_KERNEL, other);	/* full: barn */
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_SHEAF_RETURN_FAST), 3UL);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_BARN_PUT), 1UL);

	sheaf = slabx_prefill_sheaf(s, GFP_KERNEL, 20);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sheaf);
	slabx_return_sheaf(s, GFP_KERNEL, sheaf);
	KUNIT_EXPECT_EQ(test, delta(s, &sn, SLABX_SHEAF_RETURN_SLOW), 1UL);
	free_n(s, o, 2);
	KUNIT_EXPECT_EQ(test, objects_held(s), 0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

/*
 * A refill that gets some objects and then no page leaves the sheaf as it
 * was, and loses no object: the cache balances when destroyed.
 */
static void refill_failure_keeps_sheaf(struct kunit *test)
{
	struct slabx_cache *s = cache(test, "kunit-refill", 1024, 64);
	struct slabx_sheaf *sheaf, *before;
	struct slabx_info info;

	sheaf = slabx_prefill_sheaf(s, GFP_KERNEL, 1);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sheaf);
	slabx_cache_info(s, &info);
	KUNIT_ASSERT_GT(test, info.objects_total, info.objects_inuse);

	before = sheaf;
	fault_inject(test, slabx_fault_inject_pages, -1);
	KUNIT_EXPECT_EQ(test, slabx_refill_sheaf(s, GFP_KERNEL, &sheaf, 20),
			-ENOMEM);
	KUNIT_EXPECT_PTR_EQ(test, sheaf, before);
	KUNIT_EXPECT_EQ(test, slabx_sheaf_size(sheaf), 1U);
	KUNIT_EXPECT_EQ(test, slabx_refill_sheaf(s, GFP_KERNEL, &sheaf, 100),
			-ENOMEM);
	KUNIT_EXPECT_PTR_EQ(test, sheaf, before);
	KUNIT_EXPECT_EQ(test, slabx_sheaf_size(sheaf), 1U);
	fault_inject_end(test, slabx_fault_inject_pages);
	KUNIT_EXPECT_EQ(test, objects_held(s), 1UL);

	KUNIT_EXPECT_EQ(test, slabx_refill_sheaf(s, GFP_KERNEL, &sheaf, 20), 0);
	KUNIT_EXPECT_GE(test, slabx_sheaf_size(sheaf), 20U);
	KUNIT_EXPECT_EQ(test, slabx_refill_sheaf(s, GFP_KERNEL, &sheaf, 100),
			0);
	KUNIT_EXPECT_GE(test, slabx_sheaf_size(sheaf), 100U);
	slabx_return_sheaf(s, GFP_KERNEL, sheaf);
	KUNIT_EXPECT_EQ(test, objects_held(s), 0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

static void prefill_bad_counts(struct kunit *test)
{
	struct slabx_cache *s = cache(test, "kunit-badcount", 64, 8);
	struct slabx_sheaf *sheaf;

	/* NULL, as kmem_cache_prefill_sheaf() returns. */
	KUNIT_EXPECT_NULL(test, slabx_prefill_sheaf(s, GFP_KERNEL, 0));
	KUNIT_EXPECT_NULL(test, slabx_prefill_sheaf(s, GFP_KERNEL,
						    SLABX_PREFILL_MAX + 1));
	sheaf = slabx_prefill_sheaf(s, GFP_KERNEL, 2);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sheaf);
	KUNIT_EXPECT_EQ(test, slabx_refill_sheaf(s, GFP_KERNEL, &sheaf, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, slabx_refill_sheaf(s, GFP_KERNEL, &sheaf,
						 UINT_MAX), -EINVAL);
	slabx_return_sheaf(s, GFP_KERNEL, sheaf);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

static struct kunit_case slabx_prefill_cases[] = {
	KUNIT_CASE(prefill_critical_section),
	KUNIT_CASE(prefill_fast_and_return),
	KUNIT_CASE(refill_failure_keeps_sheaf),
	KUNIT_CASE(prefill_bad_counts),
	{}
};

static struct kunit_suite slabx_prefill_suite = {
	.name = "slabx_prefill",
	.test_cases = slabx_prefill_cases,
};

kunit_test_suites(&slabx_sheaf_suite, &slabx_prefill_suite);

MODULE_DESCRIPTION("KUnit tests for slabx sheaves, barns and prefilled sheaves");

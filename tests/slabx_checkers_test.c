// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for what the kernel's memory checkers and hardening see of
 * slabx's objects, where no report is expected: correct use is silent
 * under KASAN, init_on_alloc/init_on_free clear objects as SLUB's, the
 * free pointers are hardened and new slabs' free lists shuffled, and slab
 * pages count in /proc/meminfo's Slab:. The reports of misuse are in
 * slabx_reports_test.c, kmemleak's view in the kselftest
 * slabx_kmemleak.sh.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/kasan.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/vmstat.h>

#include "../slabx.h"
#include "slabx_kunit.h"
#include "slabx_test_hooks.h"

/* Every byte of an object, a partial last granule included, and reuse. */
static void correct_use_is_silent(struct kunit *test)
{
	struct slabx_cache *s = cache(test, "kunit-chk-silent", 61, 0);
	u8 *p, *q;

	p = slabx_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	memset(p, 0x11, 61);
	KUNIT_EXPECT_EQ(test, READ_ONCE(p[60]), 0x11);
	slabx_free(s, p);
	q = slabx_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, q);
	memset(q, 0x22, 61);
	KUNIT_EXPECT_EQ(test, READ_ONCE(q[60]), 0x22);
	slabx_free(s, q);
	/* Any KASAN report here fails this case (and the run). */
}

/* Read a byte of a free object, where KASAN would object. */
static u8 peek(const void *p)
{
	u8 v;

	kasan_disable_current();
	v = READ_ONCE(*(const u8 *)p);
	kasan_enable_current();
	return v;
}

static unsigned long peek_long(const void *p)
{
	unsigned long v;

	kasan_disable_current();
	v = READ_ONCE(*(const unsigned long *)p);
	kasan_enable_current();
	return v;
}

static bool all_zero(const u8 *p, size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++)
		if (peek(p + i))
			return false;
	return true;
}

static void ctor_5a(void *obj)
{
	memset(obj, 0x5a, 128);
}

/* init_on_alloc=1 init_on_free=1 on the kernel command line. */
static void init_on_alloc_and_free(struct kunit *test)
{
	struct slabx_cache_args slab_only = { .flags = SLABX_NO_SHEAVES };
	struct slabx_cache_args ctor = { .ctor = ctor_5a };
	struct slabx_cache *s, *c;
	u8 *p;

	if (!want_init_on_alloc(0) || !want_init_on_free())
		kunit_skip(test, "needs init_on_alloc=1 init_on_free=1");
	s = cache_create(test, "kunit-chk-init", 128, &slab_only);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	p = slabx_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_TRUE(test, all_zero(p, 0, 128));
	memset(p, 0xaa, 128);
	slabx_free(s, p);
	/* Cleared on free; the free pointer word holds the next object. */
	KUNIT_EXPECT_TRUE(test, all_zero(p, sizeof(void *), 128));
	p = slabx_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_TRUE(test, all_zero(p, 0, 128));
	slabx_free(s, p);

	/* As SLUB: a constructed object keeps its state. */
	c = cache_create(test, "kunit-chk-init-ctor", 128, &ctor);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c);
	p = slabx_alloc(c, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, p[0], 0x5a);
	KUNIT_EXPECT_EQ(test, p[127], 0x5a);
	slabx_free(c, p);
}

/* The objects of a new slab of a cache without sheaves, in alloc order. */
static bool new_slab_in_address_order(struct kunit *test, const char *name)
{
	struct slabx_cache_args args = { .flags = SLABX_NO_SHEAVES };
	struct slabx_cache *s = cache_create(test, name, 64, &args);
	struct slabx_info info;
	bool sorted = true;
	void **p, **q;
	int i, n;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	slabx_cache_info(s, &info);
	n = info.objs_per_slab;
	p = kunit_kcalloc(test, n, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	alloc_n(test, s, p, n);
	slabx_cache_info(s, &info);
	KUNIT_EXPECT_EQ(test, info.slabs, 1);
	for (i = 1; i < n; i++)
		if (p[i] < p[i - 1])
			sorted = false;
	/* Whatever the order, each object once. */
	q = kunit_kmalloc_array(test, n, sizeof(*q), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, q);
	memcpy(q, p, n * sizeof(*q));
	sort(q, n, sizeof(*q), cmp_ptr, NULL);
	for (i = 1; i < n; i++)
		KUNIT_EXPECT_EQ(test, q[i] - q[i - 1], info.stride);
	free_n(s, p, n);
	return sorted;
}

/* CONFIG_SLAB_FREELIST_RANDOM: new slabs hand objects out shuffled. */
static void freelist_order(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, new_slab_in_address_order(test, "kunit-chk-order"),
			!IS_ENABLED(CONFIG_SLAB_FREELIST_RANDOM));
}

/* CONFIG_SLAB_FREELIST_HARDENED: a free object does not hold a pointer. */
static void free_pointer_stored(struct kunit *test)
{
	struct slabx_cache_args args = { .flags = SLABX_NO_SHEAVES };
	struct slabx_cache *s;
	void *a, *b;

	if (want_init_on_free())
		kunit_skip(test, "init_on_free clears objects: nothing to see");
	s = cache_create(test, "kunit-chk-fp", 64, &args);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	a = slabx_alloc(s, GFP_KERNEL);
	b = slabx_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	slabx_free(s, a);
	slabx_free(s, b);	/* b is its slab's first free object: b -> a */
	KUNIT_EXPECT_EQ(test, peek_long(b) != (unsigned long)a,
			IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED));
	/* And the list still works. */
	KUNIT_EXPECT_PTR_EQ(test, slabx_alloc(s, GFP_KERNEL), b);
	KUNIT_EXPECT_PTR_EQ(test, slabx_alloc(s, GFP_KERNEL), a);
	slabx_free(s, a);
	slabx_free(s, b);
}

/* ---- /proc/meminfo Slab: ------------------------------------------------- */

static long slab_unreclaimable_pages(void)
{
	return global_node_page_state_pages(NR_SLAB_UNRECLAIMABLE_B);
}

/*
 * The counter is per-CPU batched (tens of pages per CPU and node), and the
 * rest of the kernel allocates too (under KASAN and kmemleak, every slabx
 * object tracked costs SLUB memory of theirs, freed late, from KASAN's
 * quarantine): compare with a margin of a quarter of what was at stake.
 */
static void expect_pages_near(struct kunit *test, long got, long want,
			      long stake)
{
	long margin = 128 + stake / 4;

	KUNIT_EXPECT_GE_MSG(test, got, want - margin, "want %ld pages", want);
	KUNIT_EXPECT_LE_MSG(test, got, want + margin, "want %ld pages", want);
}

#define MEMINFO_OBJS	2048

static void meminfo_counts_slab_pages(struct kunit *test)
{
	struct slabx_cache *s = cache(test, "kunit-chk-meminfo", 2000, 0);
	struct slabx_info info;
	long before, slab_pages;
	unsigned long slabs;
	void **p;

	p = kunit_kcalloc(test, MEMINFO_OBJS, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	slabx_cache_info(s, &info);
	slab_pages = 1L << info.order;
	before = slab_unreclaimable_pages();
	alloc_n(test, s, p, MEMINFO_OBJS);
	slabx_cache_info(s, &info);
	slabs = info.slabs;
	KUNIT_EXPECT_GE(test, slabs * slab_pages, 1024UL);
	expect_pages_near(test, slab_unreclaimable_pages() - before,
			  slabs * slab_pages, slabs * slab_pages);
	free_n(s, p, MEMINFO_OBJS);
	slabx_cache_shrink(s);
	slabx_cache_info(s, &info);
	KUNIT_EXPECT_EQ(test, info.slabs, 0);
	expect_pages_near(test, slab_unreclaimable_pages() - before, 0,
			  slabs * slab_pages);
}

/* Slabs made and freed on the any-context paths count the same. */
static void meminfo_counts_nolock_slab_pages(struct kunit *test)
{
	struct slabx_cache_args args = { .flags = SLABX_NO_SHEAVES };
	struct slabx_cache *s;
	struct slabx_info info;
	long before, slab_pages;
	unsigned long slabs;
	int i, n = 0;
	void **p;

	s = cache_create(test, "kunit-chk-meminfo-nolock", 2000, &args);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	p = kunit_kcalloc(test, MEMINFO_OBJS, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	slabx_cache_info(s, &info);
	slab_pages = 1L << info.order;
	before = slab_unreclaimable_pages();
	for (i = 0; i < MEMINFO_OBJS; i++) {
		p[n] = slabx_alloc_nolock(s, 0);
		if (p[n])
			n++;
		else
			usleep_range(1000, 2000);	/* the reserve refills */
	}
	slabx_cache_info(s, &info);
	KUNIT_EXPECT_GE(test, info.slabs * slab_pages, 512UL);
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_SLAB_NEW), info.slabs);
	slabs = info.slabs;
	expect_pages_near(test, slab_unreclaimable_pages() - before,
			  slabs * slab_pages, slabs * slab_pages);
	for (i = 0; i < n; i++)
		slabx_free_nolock(s, p[i]);
	slabx_cache_shrink(s);
	expect_pages_near(test, slab_unreclaimable_pages() - before, 0,
			  slabs * slab_pages);
}

/*
 * slabx_check_copy() allows every copy inside an object's usercopy part,
 * in a cache with slabs and in a pool-mode one; slabx_kmalloc_check_copy()
 * the whole object of the size class. Refusals are in slabx_reports_test.c.
 */
static void usercopy_inside_part_allowed(struct kunit *test)
{
	static const unsigned int pools[] = { 0, 8 };
	unsigned int i;
	u8 *k;

	for (i = 0; i < ARRAY_SIZE(pools); i++) {
		struct slabx_cache_args args = {
			.useroffset = 16, .usersize = 32,
			.pool_objects = pools[i],
		};
		struct slabx_cache *s;
		u8 *p;

		s = cache_create(test, pools[i] ? "kunit-chk-ucopy-pool" :
				 "kunit-chk-ucopy", 64, &args);
		KUNIT_ASSERT_NOT_NULL(test, s);
		p = slabx_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p);
		KUNIT_EXPECT_EQ(test, slabx_check_copy(s, p + 16, 32, true), 0);
		KUNIT_EXPECT_EQ(test, slabx_check_copy(s, p + 16, 1, false), 0);
		KUNIT_EXPECT_EQ(test, slabx_check_copy(s, p + 47, 1, true), 0);
		KUNIT_EXPECT_EQ(test, slabx_check_copy(s, p + 20, 28, false), 0);
		KUNIT_EXPECT_EQ(test, slabx_check_copy(s, p, 0, true), 0);
		slabx_free(s, p);
	}
	k = slabx_kmalloc(100, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, k);
	KUNIT_EXPECT_EQ(test, slabx_kmalloc_check_copy(k, 128, true), 0);
	KUNIT_EXPECT_EQ(test, slabx_kmalloc_check_copy(k + 127, 1, false), 0);
	slabx_kfree(k);
}

static struct kunit_case checkers_cases[] = {
	KUNIT_CASE(correct_use_is_silent),
	KUNIT_CASE(usercopy_inside_part_allowed),
	KUNIT_CASE(init_on_alloc_and_free),
	KUNIT_CASE(freelist_order),
	KUNIT_CASE(free_pointer_stored),
	KUNIT_CASE(meminfo_counts_slab_pages),
	KUNIT_CASE(meminfo_counts_nolock_slab_pages),
	{}
};

static struct kunit_suite checkers_suite = {
	.name = "slabx_checkers",
	.test_cases = checkers_cases,
};

kunit_test_suites(&checkers_suite);

MODULE_DESCRIPTION("slabx: what KASAN and the hardening see");

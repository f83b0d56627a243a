// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for the slabx cache core. They use only slabx's exported API
 * and ordinary kernel interfaces, as any client of slabx would.
 */
#include <kunit/test.h>
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "../slabx.h"
#include "slabx_kunit.h"

/* Fills a whole object with a byte derived from its address. */
static u8 addr_byte(const void *obj)
{
	return (unsigned long)obj >> 3;
}

static void fill_object(void *obj, unsigned int size)
{
	memset(obj, addr_byte(obj), size);
}

static bool object_intact(const void *obj, unsigned int size)
{
	return !memchr_inv(obj, addr_byte(obj), size);
}

/* ---- suite slabx_cache: lifecycle and arguments ------------------------- */

static void create_destroy(struct kunit *test)
{
	struct slabx_cache *s;
	struct slabx_info info;

	s = cache_create(test, "kunit-create", 64, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	slabx_cache_info(s, &info);
	KUNIT_EXPECT_EQ(test, info.object_size, 64U);
	KUNIT_EXPECT_EQ(test, info.slabs, 0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);

	/* The name is free again once the cache is gone. */
	s = cache_create(test, "kunit-create", 64, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
	KUNIT_EXPECT_EQ(test, slabx_cache_destroy(NULL), 0);
}

struct bad_create {
	const char *desc;
	const char *name;
	unsigned int size;
	struct slabx_cache_args args;
};

static const struct bad_create bad_creates[] = {
	{ "size 0", "kunit-bad", 0, {} },
	{ "size above max", "kunit-bad", SLABX_MAX_SIZE + 1, {} },
	{ "size 4G-1", "kunit-bad", UINT_MAX, {} },
	{ "align 3", "kunit-bad", 64, { .align = 3 } },
	{ "align 24", "kunit-bad", 64, { .align = 24 } },
	{ "align above max", "kunit-bad", 64, { .align = SLABX_MAX_ALIGN * 2 } },
	{ "unknown flag", "kunit-bad", 64, { .flags = 0x80000000 } },
	{ "typesafe pool", "kunit-bad", 64,
	  { .flags = SLABX_TYPESAFE_BY_RCU, .pool_objects = 16 } },
	{ "NULL name", NULL, 64, {} },
	{ "empty name", "", 64, {} },
	{ "name with slash", "kunit/bad", 64, {} },
	{ "name too long",
	  "kunit-0123456789012345678901234567890123456789012345678901234567",
	  64, {} },
};

static void bad_create_desc(const struct bad_create *b, char *desc)
{
	strscpy(desc, b->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(bad_create, bad_creates, bad_create_desc);

static void create_rejects_bad_argument(struct kunit *test)
{
	const struct bad_create *b = test->param_value;
	struct slabx_cache *s;

	/* NULL, as kmem_cache_create() returns: a port's if (!s) holds. */
	s = cache_create(test, b->name, b->size, &b->args);
	KUNIT_EXPECT_NULL(test, s);
}

static void create_rejects_duplicate_name(struct kunit *test)
{
	struct slabx_cache *s, *dup;

	s = cache_create(test, "kunit-dup", 32, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	dup = cache_create(test, "kunit-dup", 128, NULL);
	KUNIT_EXPECT_NULL(test, dup);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

#define MANY_CACHES	64
#define MANY_OBJS	16

static void many_caches(struct kunit *test)
{
	struct slabx_cache **caches;
	void **objs;
	int i, j;

	caches = kunit_kcalloc(test, MANY_CACHES, sizeof(*caches), GFP_KERNEL);
	objs = kunit_kcalloc(test, MANY_CACHES * MANY_OBJS, sizeof(*objs),
			     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, caches);
	KUNIT_ASSERT_NOT_NULL(test, objs);

	for (i = 0; i < MANY_CACHES; i++) {
		char name[32];

		snprintf(name, sizeof(name), "kunit-many-%d", i);
		caches[i] = cache_create(test, name, 16 + 40 * i, NULL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, caches[i]);
	}
	for (i = 0; i < MANY_CACHES; i++)
		for (j = 0; j < MANY_OBJS; j++) {
			void *obj = slabx_alloc(caches[i], GFP_KERNEL);

			KUNIT_ASSERT_NOT_NULL(test, obj);
			fill_object(obj, 16 + 40 * i);
			objs[i * MANY_OBJS + j] = obj;
		}
	for (i = 0; i < MANY_CACHES; i++)
		for (j = 0; j < MANY_OBJS; j++) {
			void *obj = objs[i * MANY_OBJS + j];

			KUNIT_EXPECT_TRUE(test, object_intact(obj, 16 + 40 * i));
			slabx_free(caches[i], obj);
		}
	for (i = 0; i < MANY_CACHES; i++)
		KUNIT_EXPECT_EQ(test, cache_destroy(test, caches[i]), 0);
}

/*
 * Destroying a cache with objects out reports the leak and keeps the
 * objects' memory valid: writing to them afterwards must not trip KASAN.
 */
static void destroy_reports_leak(struct kunit *test)
{
	struct slabx_cache *s, *s2;
	void *objs[3];
	int i;

	s = cache_create(test, "kunit-leak", 200, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	for (i = 0; i < ARRAY_SIZE(objs); i++) {
		objs[i] = slabx_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
	}
	slabx_free(s, objs[1]);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), -EBUSY);

	fill_object(objs[0], 200);
	fill_object(objs[2], 200);
	KUNIT_EXPECT_TRUE(test, object_intact(objs[0], 200));
	KUNIT_EXPECT_TRUE(test, object_intact(objs[2], 200));
	/* The name is usable again even though the old cache lingers. */
	s2 = cache_create(test, "kunit-leak", 200, NULL);
	KUNIT_EXPECT_NOT_NULL(test, s2);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s2), 0);
	/* Late frees of leaked objects are allowed and end the leak. */
	slabx_free(s, objs[0]);
	slabx_free(s, objs[2]);
}

static struct kunit_case slabx_cache_cases[] = {
	KUNIT_CASE(create_destroy),
	KUNIT_CASE_PARAM(create_rejects_bad_argument, bad_create_gen_params),
	KUNIT_CASE(create_rejects_duplicate_name),
	KUNIT_CASE(many_caches),
	KUNIT_CASE(destroy_reports_leak),
	{}
};

static struct kunit_suite slabx_cache_suite = {
	.name = "slabx_cache",
	.test_cases = slabx_cache_cases,
};

/* ---- suite slabx_alloc: objects ---------------------------------------- */

static const unsigned int sizes[] = {
	1, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 1000, 1024,
	2048, 3000, 4096, 8192, 16384, 32768,
};

static const unsigned int aligns[] = { 0, 8, 16, 64, 256, 4096 };

static void size_desc(const unsigned int *size, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "size %u", *size);
}

KUNIT_ARRAY_PARAM(size, sizes, size_desc);

/*
 * Allocate a few slabs' worth of objects of one size and alignment; every
 * object is aligned, distinct and fully writable without touching another.
 */
static void check_geometry(struct kunit *test, unsigned int size,
			   unsigned int align)
{
	struct slabx_cache_args args = { .align = align };
	struct slabx_cache *s;
	struct slabx_info info;
	unsigned int i, nr;
	void **objs;

	s = cache_create(test, "kunit-geometry", size, &args);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	slabx_cache_info(s, &info);
	KUNIT_EXPECT_GE(test, info.objs_per_slab, 1U);
	KUNIT_EXPECT_GE(test, info.stride, size);
	KUNIT_EXPECT_EQ(test, info.align % max(align, 1U), 0U);

	nr = min(2 * info.objs_per_slab + 1, 1024U);
	objs = kunit_kcalloc(test, nr, sizeof(*objs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, objs);
	for (i = 0; i < nr; i++) {
		objs[i] = slabx_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
		KUNIT_EXPECT_EQ(test, (unsigned long)objs[i] % info.align, 0UL);
		fill_object(objs[i], size);
	}
	KUNIT_EXPECT_EQ(test, objects_held(s), (unsigned long)nr);
	slabx_cache_info(s, &info);
	KUNIT_EXPECT_GE(test, info.slabs, 3UL);
	for (i = 0; i < nr; i++) {
		KUNIT_EXPECT_TRUE(test, object_intact(objs[i], size));
		slabx_free(s, objs[i]);
	}
	KUNIT_EXPECT_EQ(test, objects_held(s), 0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
	kunit_kfree(test, objs);
}

static void size_and_alignment(struct kunit *test)
{
	const unsigned int *size = test->param_value;
	int i;

	for (i = 0; i < ARRAY_SIZE(aligns); i++)
		check_geometry(test, *size, aligns[i]);
}

#define CTOR_SIZE	120
#define CTOR_BYTE	0xc7

static atomic_t ctor_calls;

static void test_ctor(void *obj)
{
	atomic_inc(&ctor_calls);
	memset(obj, CTOR_BYTE, CTOR_SIZE);
}

static void constructor_once_per_object(struct kunit *test)
{
	struct slabx_cache_args args = { .ctor = test_ctor };
	struct slabx_cache *s;
	struct slabx_info info;
	int i, round, nr = 300;
	void **objs;

	objs = kunit_kcalloc(test, nr, sizeof(*objs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, objs);
	atomic_set(&ctor_calls, 0);
	s = cache_create(test, "kunit-ctor", CTOR_SIZE, &args);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	for (round = 0; round < 3; round++) {
		for (i = 0; i < nr; i++) {
			objs[i] = slabx_alloc(s, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, objs[i]);
			/* Constructed, and intact after earlier frees. */
			KUNIT_EXPECT_FALSE(test, memchr_inv(objs[i], CTOR_BYTE,
							    CTOR_SIZE));
		}
		slabx_cache_info(s, &info);
		/* Exactly once per object ever carved, none on reuse. */
		KUNIT_EXPECT_EQ(test, (unsigned long)atomic_read(&ctor_calls),
				slabx_cache_stat(s, SLABX_SLAB_NEW) *
				info.objs_per_slab);
		for (i = nr - 1; i >= 0; i--)
			slabx_free(s, objs[i]);
	}
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

static void gfp_zero(struct kunit *test)
{
	struct slabx_cache *s;
	void *objs[64];
	int i;

	s = cache_create(test, "kunit-zero", 136, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	for (i = 0; i < ARRAY_SIZE(objs); i++) {
		objs[i] = slabx_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
		memset(objs[i], 0xff, 136);
	}
	for (i = 0; i < ARRAY_SIZE(objs); i++)
		slabx_free(s, objs[i]);
	for (i = 0; i < ARRAY_SIZE(objs); i++) {
		objs[i] = slabx_alloc(s, GFP_KERNEL | __GFP_ZERO);
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
		KUNIT_EXPECT_FALSE(test, memchr_inv(objs[i], 0, 136));
	}
	for (i = 0; i < ARRAY_SIZE(objs); i++)
		slabx_free(s, objs[i]);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

#define BULK_NR	1000

static void bulk_alloc_free(struct kunit *test)
{
	struct slabx_cache *s;
	unsigned long allocs;
	void **objs, **sorted;
	int i;

	objs = kunit_kcalloc(test, BULK_NR, sizeof(*objs), GFP_KERNEL);
	sorted = kunit_kcalloc(test, BULK_NR, sizeof(*objs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, objs);
	KUNIT_ASSERT_NOT_NULL(test, sorted);
	s = cache_create(test, "kunit-bulk", 72, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);

	KUNIT_EXPECT_EQ(test, slabx_alloc_bulk(s, GFP_KERNEL, 0, objs), 0);
	allocs = slabx_cache_stat(s, SLABX_ALLOC);
	KUNIT_ASSERT_EQ(test, slabx_alloc_bulk(s, GFP_KERNEL | __GFP_ZERO,
					       BULK_NR, objs), BULK_NR);
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_ALLOC) - allocs,
			(unsigned long)BULK_NR);
	memcpy(sorted, objs, BULK_NR * sizeof(*objs));
	sort(sorted, BULK_NR, sizeof(*sorted), cmp_ptr, NULL);
	for (i = 0; i < BULK_NR; i++) {
		KUNIT_EXPECT_FALSE(test, memchr_inv(objs[i], 0, 72));
		if (i)
			KUNIT_EXPECT_PTR_NE(test, sorted[i], sorted[i - 1]);
	}
	KUNIT_EXPECT_EQ(test, objects_held(s), (unsigned long)BULK_NR);

	/* Free half one by one, then everything else in one bulk call. */
	for (i = 0; i < BULK_NR; i += 2) {
		slabx_free(s, objs[i]);
		objs[i] = NULL;
	}
	slabx_free_bulk(s, BULK_NR, objs);
	KUNIT_EXPECT_EQ(test, objects_held(s), 0UL);
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_FREE),
			(unsigned long)BULK_NR);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

/* Objects asked for on a node come from that node's memory. */
static void node_placement(struct kunit *test)
{
	struct slabx_cache *s;
	void *objs[100];
	int nid, i, nodes = 0;

	if (num_node_state(N_MEMORY) < 2)
		kunit_skip(test, "needs two nodes with memory");
	s = cache_create(test, "kunit-node", 256, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	for_each_node_state(nid, N_MEMORY) {
		for (i = 0; i < ARRAY_SIZE(objs); i++) {
			objs[i] = slabx_alloc_node(s, GFP_KERNEL, nid);
			KUNIT_ASSERT_NOT_NULL(test, objs[i]);
			KUNIT_EXPECT_EQ(test, page_to_nid(virt_to_page(objs[i])),
					nid);
		}
		for (i = 0; i < ARRAY_SIZE(objs); i++)
			slabx_free(s, objs[i]);
		nodes++;
	}
	KUNIT_EXPECT_GE(test, nodes, 2);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

static void invalid_node_rejected(struct kunit *test)
{
	struct slabx_cache *s;

	s = cache_create(test, "kunit-badnode", 64, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	KUNIT_EXPECT_NULL(test, slabx_alloc_node(s, GFP_KERNEL, MAX_NUMNODES));
	KUNIT_EXPECT_NULL(test, slabx_alloc_node(s, GFP_KERNEL, -5));
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_ALLOC_FAIL), 2UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

/* Fully free slabs beyond the keep limit go back to the page allocator. */
static void empty_slabs_returned(struct kunit *test)
{
	struct slabx_cache_args args = { .flags = SLABX_NO_SHEAVES };
	struct slabx_cache *s;
	struct slabx_info info;
	void **objs;
	unsigned int i, nr;

	s = cache_create(test, "kunit-empty", 512, &args);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	slabx_cache_info(s, &info);
	nr = 10 * info.objs_per_slab;
	objs = kunit_kcalloc(test, nr, sizeof(*objs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, objs);
	for (i = 0; i < nr; i++) {
		objs[i] = slabx_alloc_node(s, GFP_KERNEL, numa_mem_id());
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
	}
	slabx_free_bulk(s, nr, objs);
	slabx_cache_info(s, &info);
	KUNIT_EXPECT_EQ(test, info.objects_inuse, 0UL);
	KUNIT_EXPECT_LE(test, info.slabs, 2UL);
	KUNIT_EXPECT_GE(test, slabx_cache_stat(s, SLABX_SLAB_DISCARD), 8UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

static struct kunit_case slabx_alloc_cases[] = {
	KUNIT_CASE_PARAM(size_and_alignment, size_gen_params),
	KUNIT_CASE(constructor_once_per_object),
	KUNIT_CASE(gfp_zero),
	KUNIT_CASE(bulk_alloc_free),
	KUNIT_CASE(node_placement),
	KUNIT_CASE(invalid_node_rejected),
	KUNIT_CASE(empty_slabs_returned),
	{}
};

static struct kunit_suite slabx_alloc_suite = {
	.name = "slabx_alloc",
	.test_cases = slabx_alloc_cases,
};

kunit_test_suites(&slabx_cache_suite, &slabx_alloc_suite);

MODULE_DESCRIPTION("KUnit tests for the slabx cache core");

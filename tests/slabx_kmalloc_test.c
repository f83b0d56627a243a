// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for slabx_kmalloc() and slabx_kfree() and their any-context
 * variants: every size lands in the smallest class that holds it, aligned
 * as kmalloc() aligns; a free finds the class with no size given; the
 * nolock calls work from hard IRQ and NMI, on the node asked for, and
 * refuse what they must.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kasan.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#ifdef CONFIG_X86_LOCAL_APIC
#include <asm/apic.h>
#include <asm/nmi.h>
#endif

#include "../slabx.h"
#include "slabx_kunit.h"
#include "slabx_test_hooks.h"

/*
 * On PREEMPT_RT the any-context paths give nothing in NMI and hard IRQ
 * (they return NULL at once): what those contexts must get.
 */
#define RT_ATOMIC	IS_ENABLED(CONFIG_PREEMPT_RT)

static unsigned int class_size(size_t size)
{
	struct slabx_info info;

	slabx_cache_info(slabx_kmalloc_cache(size), &info);
	return info.object_size;
}

/* The classes, as documented at slabx_kmalloc(). */
static const unsigned int classes[SLABX_KMALLOC_CLASSES] = {
	8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192,
};

/* The smallest class that holds @size. */
static unsigned int smallest_class(size_t size)
{
	int i;

	for (i = 0; classes[i] < size; i++)
		;
	return classes[i];
}

#ifdef CONFIG_KASAN_GENERIC
/*
 * Whether KASAN sees exactly @size bytes of @p accessible and the rest of
 * its class's @cls bytes as redzone (0xfc), granule by granule.
 */
static bool kasan_sees_size(const u8 *p, unsigned int size, unsigned int cls)
{
	const u8 *shadow = kasan_mem_to_shadow(p);
	unsigned int g, n = DIV_ROUND_UP(cls, 8);

	for (g = 0; g < n; g++) {
		u8 want = (g + 1) * 8 <= size ? 0 : g * 8 < size ? size % 8 : 0xfc;

		if (shadow[g] != want)
			return false;
	}
	return true;
}
#else
static bool kasan_sees_size(const u8 *p, unsigned int size, unsigned int cls)
{
	return true;
}
#endif

/*
 * Every size from 1 to the largest: its class is the smallest that holds
 * it, the memory is that class's (its free is counted there), KASAN sees
 * exactly the size accessible, and a power-of-two class aligns to its
 * size, the others to 8 bytes.
 */
static void every_size_in_smallest_class(struct kunit *test)
{
	unsigned int size, cls, bad = 0;
	unsigned long frees;
	struct slabx_cache *s;
	u8 *p;

	for (size = 1; size <= SLABX_KMALLOC_MAX_SIZE; size++) {
		s = slabx_kmalloc_cache(size);
		KUNIT_ASSERT_NOT_NULL(test, s);
		cls = class_size(size);
		KUNIT_ASSERT_EQ_MSG(test, cls, smallest_class(size),
				    "size %u", size);
		p = slabx_kmalloc(size, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p);
		memset(p, 0x5a, size);
		if (!kasan_sees_size(p, size, cls))
			bad++;
		if (!IS_ALIGNED((unsigned long)p,
				is_power_of_2(cls) ? cls : 8))
			bad++;
		frees = slabx_cache_stat(s, SLABX_FREE);
		slabx_kfree(p);
		if (slabx_cache_stat(s, SLABX_FREE) != frees + 1)
			bad++;
	}
	KUNIT_EXPECT_EQ(test, bad, 0U);
}

/* 0 bytes: ZERO_SIZE_PTR, freed as nothing; above the largest: NULL. */
static void zero_size_and_too_large(struct kunit *test)
{
	KUNIT_EXPECT_PTR_EQ(test, slabx_kmalloc(0, GFP_KERNEL), ZERO_SIZE_PTR);
	KUNIT_EXPECT_PTR_EQ(test, slabx_kmalloc_nolock(0, 0, NUMA_NO_NODE),
			    ZERO_SIZE_PTR);
	slabx_kfree(ZERO_SIZE_PTR);
	slabx_kfree(NULL);
	slabx_kfree_nolock(ZERO_SIZE_PTR);
	slabx_kfree_nolock(NULL);
	KUNIT_EXPECT_NULL(test, slabx_kmalloc(SLABX_KMALLOC_MAX_SIZE + 1,
					      GFP_KERNEL | __GFP_NOWARN));
	KUNIT_EXPECT_NULL(test, slabx_kmalloc_nolock(SLABX_KMALLOC_MAX_SIZE + 1,
						     0, NUMA_NO_NODE));
	KUNIT_EXPECT_NULL(test, slabx_kmalloc_cache(0));
	KUNIT_EXPECT_NULL(test, slabx_kmalloc_cache(SLABX_KMALLOC_MAX_SIZE + 1));
}

/* __GFP_ZERO zeroes memory a previous user scribbled over. */
static void zeroed_on_request(struct kunit *test)
{
	u8 *p;
	int i;

	pin(test, 0);
	for (i = 0; i < 2; i++) {
		p = slabx_kmalloc(100, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p);
		memset(p, 0xa5, 100);
		slabx_kfree(p);		/* the next allocation gets it back */
		p = i ? slabx_kmalloc_nolock(100, __GFP_ZERO, NUMA_NO_NODE) :
			slabx_kmalloc(100, GFP_KERNEL | __GFP_ZERO);
		KUNIT_ASSERT_NOT_NULL(test, p);
		KUNIT_EXPECT_NULL(test, memchr_inv(p, 0, 100));
		if (i)
			slabx_kfree_nolock(p);
		else
			slabx_kfree(p);
	}
}

#define MIXED_NR	1000

/*
 * Objects of random sizes, freed in another order, half through each free
 * call: every class gets back all it gave, found from the pointer alone.
 */
static void free_needs_no_size(struct kunit *test)
{
	void **p = kunit_kcalloc(test, MIXED_NR, sizeof(*p), GFP_KERNEL);
	unsigned long before[SLABX_KMALLOC_CLASSES], after;
	unsigned int i;
	struct rnd_state rnd;
	size_t size;

	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < SLABX_KMALLOC_CLASSES; i++)
		before[i] = slabx_cache_stat(slabx_kmalloc_cache(classes[i]),
					     SLABX_FREE);

	prandom_seed_state(&rnd, 17);
	for (i = 0; i < MIXED_NR; i++) {
		size = 1 + prandom_u32_state(&rnd) % SLABX_KMALLOC_MAX_SIZE;
		p[i] = slabx_kmalloc(size, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
	}
	for (i = 0; i < MIXED_NR; i++) {
		unsigned int j = prandom_u32_state(&rnd) % (MIXED_NR - i);

		swap(p[j], p[MIXED_NR - 1 - i]);
		if (i % 2)
			slabx_kfree(p[MIXED_NR - 1 - i]);
		else
			slabx_kfree_nolock(p[MIXED_NR - 1 - i]);
	}
	for (i = 0, after = 0; i < SLABX_KMALLOC_CLASSES; i++) {
		struct slabx_cache *s = slabx_kmalloc_cache(classes[i]);

		after += slabx_cache_stat(s, SLABX_FREE) - before[i];
		KUNIT_EXPECT_EQ_MSG(test, objects_held(s), 0UL,
				    "class %u", classes[i]);
	}
	KUNIT_EXPECT_EQ(test, after, (unsigned long)MIXED_NR);
}

/* slabx_kmalloc_nolock(64) on @nid, retried while the reserve refills. */
static void *nolock_on(int nid)
{
	void *p = NULL;
	int i;

	for (i = 0; i < 100 && !p; i++) {
		p = slabx_kmalloc_nolock(64, 0, nid);
		if (!p)
			msleep(20);
	}
	return p;
}

/*
 * From CPU 0, on every node with memory, the nolock allocation gives
 * memory of that node: from this CPU's sheaves or the node's slabs (an
 * object freed there first), then, all free slabs given back, from a new
 * slab of the any-context page path on that node.
 */
static void nolock_on_each_node(struct kunit *test)
{
	struct slabx_cache *s = slabx_kmalloc_cache(64);
	void *p, *q;
	int nid;

	pin(test, 0);
	for_each_node_state(nid, N_MEMORY) {
		q = slabx_alloc_node(s, GFP_KERNEL, nid);
		KUNIT_ASSERT_NOT_NULL(test, q);
		slabx_kfree(q);		/* a free object on @nid */
		p = slabx_kmalloc_nolock(64, 0, nid);
		KUNIT_ASSERT_NOT_NULL_MSG(test, p, "node %d", nid);
		KUNIT_EXPECT_EQ_MSG(test, page_to_nid(virt_to_page(p)), nid,
				    "node %d", nid);
		slabx_kfree_nolock(p);

		KUNIT_ASSERT_EQ(test, objects_held(s), 0UL);
		p = nolock_on(nid);
		KUNIT_ASSERT_NOT_NULL_MSG(test, p, "node %d, new slab", nid);
		KUNIT_EXPECT_EQ_MSG(test, page_to_nid(virt_to_page(p)), nid,
				    "node %d, new slab", nid);
		slabx_kfree_nolock(p);
	}
	KUNIT_EXPECT_EQ(test, objects_held(s), 0UL);
}

/* Flags other than __GFP_ZERO and impossible nodes: NULL, counted. */
static void nolock_refuses_bad_args(struct kunit *test)
{
	struct slabx_cache *s = slabx_kmalloc_cache(32);
	unsigned long fails = slabx_cache_stat(s, SLABX_ALLOC_NOLOCK_FAIL);

	KUNIT_EXPECT_NULL(test, slabx_kmalloc_nolock(32, GFP_KERNEL,
						     NUMA_NO_NODE));
	KUNIT_EXPECT_NULL(test, slabx_kmalloc_nolock(32, 0, nr_node_ids));
	KUNIT_EXPECT_NULL(test, slabx_kmalloc_nolock(32, 0, -2));
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_ALLOC_NOLOCK_FAIL),
			fails + 3);
}

/* Allocate @size zeroed from any context, check, free: 1 done, 0 NULL. */
static int any_context_round(size_t size, atomic_t *bad)
{
	u8 *p = slabx_kmalloc_nolock(size, __GFP_ZERO, NUMA_NO_NODE);

	if (!p)
		return 0;
	if (memchr_inv(p, 0, size))
		atomic_inc(bad);
	memset(p, 0x5a, size);
	slabx_kfree_nolock(p);
	return 1;
}

/* Warm this CPU's sheaves of the classes the rounds use. */
static void warm_classes(struct kunit *test)
{
	static const size_t sizes[] = { 24, 200, 3000 };
	void *p[ARRAY_SIZE(sizes)];
	int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		p[i] = slabx_kmalloc(sizes[i], GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
	}
	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		slabx_kfree(p[i]);
}

struct irq_rounds {
	struct hrtimer timer;
	atomic_t rounds, done, bad;
};

static enum hrtimer_restart hardirq_fn(struct hrtimer *timer)
{
	struct irq_rounds *c = container_of(timer, struct irq_rounds, timer);
	static const size_t sizes[] = { 24, 200, 3000 };
	int r = atomic_inc_return(&c->rounds);

	if (!in_hardirq())
		atomic_inc(&c->bad);
	atomic_add(any_context_round(sizes[r % 3], &c->bad), &c->done);
	if (r >= 60)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(timer, ns_to_ktime(100 * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

/* From a hard IRQ, interrupting no slabx code: every round gets memory. */
static void nolock_from_hardirq(struct kunit *test)
{
	struct irq_rounds *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, c);
	pin(test, 0);
	warm_classes(test);
	hrtimer_init(&c->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	c->timer.function = hardirq_fn;
	hrtimer_start(&c->timer, ns_to_ktime(100 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
	for (i = 0; i < 10000 && atomic_read(&c->rounds) < 60; i++)
		usleep_range(500, 1000);
	hrtimer_cancel(&c->timer);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->rounds), 60);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->bad), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->done), RT_ATOMIC ? 0 : 60);
}

#ifdef CONFIG_X86_LOCAL_APIC

static const char kmalloc_nmi_name[] = "slabx_kmalloc_test";
static atomic_t nmi_expected, nmi_done, nmi_bad;

static int kmalloc_nmi(unsigned int cmd, struct pt_regs *regs)
{
	static const size_t sizes[] = { 24, 200, 3000 };

	if (atomic_add_unless(&nmi_expected, -1, 0) == 0)
		return NMI_DONE;
	if (!in_nmi())
		atomic_inc(&nmi_bad);
	atomic_add(any_context_round(sizes[atomic_read(&nmi_done) % 3],
				     &nmi_bad), &nmi_done);
	return NMI_HANDLED;
}

static void nmi_unregister_action(void *name)
{
	unregister_nmi_handler(NMI_LOCAL, name);
}

/*
 * From NMIs raised on this CPU while it runs no slabx code: every one gets
 * memory (with kmemleak, frees in NMI are deferred; that changes nothing
 * here).
 */
static void nolock_from_nmi(struct kunit *test)
{
	int i, j, ret;

	pin(test, 0);
	warm_classes(test);
	atomic_set(&nmi_done, 0);
	atomic_set(&nmi_bad, 0);
	atomic_set(&nmi_expected, 0);
	ret = register_nmi_handler(NMI_LOCAL, kmalloc_nmi, 0, kmalloc_nmi_name);
	KUNIT_ASSERT_EQ(test, ret, 0);
	ret = kunit_add_action_or_reset(test, nmi_unregister_action,
					(void *)kmalloc_nmi_name);
	KUNIT_ASSERT_EQ(test, ret, 0);
	for (i = 0; i < 30; i++) {
		atomic_inc(&nmi_expected);
		apic->send_IPI_self(NMI_VECTOR);
		for (j = 0; j < 10000000 && atomic_read(&nmi_expected); j++)
			cpu_relax();
		KUNIT_ASSERT_EQ(test, atomic_read(&nmi_expected), 0);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&nmi_bad), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&nmi_done), RT_ATOMIC ? 0 : 30);
}

#else

static void nolock_from_nmi(struct kunit *test)
{
	kunit_skip(test, "needs local APIC NMIs (x86)");
}

#endif

static struct kunit_case slabx_kmalloc_cases[] = {
	KUNIT_CASE(every_size_in_smallest_class),
	KUNIT_CASE(zero_size_and_too_large),
	KUNIT_CASE(zeroed_on_request),
	KUNIT_CASE(free_needs_no_size),
	KUNIT_CASE(nolock_on_each_node),
	KUNIT_CASE(nolock_refuses_bad_args),
	KUNIT_CASE(nolock_from_hardirq),
	KUNIT_CASE(nolock_from_nmi),
	{}
};

static struct kunit_suite slabx_kmalloc_suite = {
	.name = "slabx_kmalloc",
	.test_cases = slabx_kmalloc_cases,
};

kunit_test_suites(&slabx_kmalloc_suite);

MODULE_DESCRIPTION("KUnit tests of slabx_kmalloc() and slabx_kfree()");

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites that provoke reports on purpose: KASAN reports of bad
 * accesses to slabx objects (the debug and rt kernels have generic KASAN),
 * and the warnings of a %SLABX_DEBUG cache for a misused API.
 *
 * Each bad access runs between two marker lines in the kernel log:
 *	slabx-expect: BEGIN NAME: KIND: TEXT
 *	slabx-expect: END NAME
 * and scripts/run-tests.sh fails the run unless a line with TEXT came in
 * between (any splat in between but the KIND expected still fails it). The access runs in
 * a kthread of its own: KASAN fails a KUnit test that reports in its own
 * thread, as it should fail every other suite.
 *
 * The module is loaded after every other test module: a KASAN report
 * turns lockdep off for the rest of the boot.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/debug_locks.h>
#include <linux/delay.h>
#include <linux/spinlock.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>

#include "../slabx.h"
#include "slabx_kunit.h"
#include "slabx_test_hooks.h"

struct bad_access {
	void (*fn)(struct bad_access *b);
	struct slabx_cache *s;
	struct slabx_reservation *res;
	void *obj;
	void *bulk[2];
	size_t offset;
	struct completion done;
};

static int bad_access_thread(void *data)
{
	struct bad_access *b = data;

	b->fn(b);
	kthread_complete_and_exit(&b->done, 0);
}

/*
 * Run @b->fn between the markers of a report with @text, in a kthread on
 * this CPU (a case that depends on it pins itself first).
 */
static void expect_report(struct kunit *test, struct bad_access *b,
			  const char *text)
{
	struct task_struct *task;

	init_completion(&b->done);
	task = kthread_create(bad_access_thread, b, "slabx-bad-access");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	kthread_bind(task, raw_smp_processor_id());
	pr_info("slabx-expect: BEGIN %s: %s\n", test->name, text);
	wake_up_process(task);
	wait_for_completion(&b->done);
	pr_info("slabx-expect: END %s\n", test->name);
}

static void read_byte(struct bad_access *b)
{
	u8 *p = b->obj;

	OPTIMIZER_HIDE_VAR(p);
	(void)READ_ONCE(p[b->offset]);
}

static void write_byte(struct bad_access *b)
{
	u8 *p = b->obj;

	OPTIMIZER_HIDE_VAR(p);
	WRITE_ONCE(p[b->offset], 0x5a);
}

static void free_obj(struct bad_access *b)
{
	slabx_free(b->s, b->obj);
}

static void require_kasan(struct kunit *test)
{
	if (!IS_ENABLED(CONFIG_KASAN_GENERIC))
		kunit_skip(test, "needs generic KASAN (the debug and rt kernels)");
}

#define UAF	"kasan: BUG: KASAN: " SLABX_KASAN_SLAB_UAF " in read_byte"
#define OOB	"kasan: BUG: KASAN: slab-out-of-bounds in write_byte"

/* An object freed into its slab (a cache without sheaves). */
static void read_after_free_in_slab(struct kunit *test)
{
	struct slabx_cache_args args = { .flags = SLABX_NO_SHEAVES };
	struct slabx_cache *s;
	struct bad_access b = { .fn = read_byte };

	require_kasan(test);
	s = cache_create(test, "kasan_slab", 100, &args);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	b.obj = slabx_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b.obj);
	slabx_free(s, b.obj);
	b.offset = 40;
	expect_report(test, &b, UAF);
}

/* An object still in this CPU's main sheaf. */
static void read_of_object_in_sheaf(struct kunit *test)
{
	struct slabx_cache *s = cache(test, "kasan_sheaf", 64, 0);
	struct bad_access b = { .fn = read_byte };
	unsigned long fast;

	require_kasan(test);
	b.obj = slabx_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b.obj);
	fast = slabx_cache_stat(s, SLABX_FREE_FASTPATH);
	slabx_free(s, b.obj);
	KUNIT_ASSERT_EQ(test, slabx_cache_stat(s, SLABX_FREE_FASTPATH), fast + 1);
	expect_report(test, &b, UAF);
}

/* After slabx_free_rcu()'s grace period, not before. */
static void read_after_free_rcu_grace_period(struct kunit *test)
{
	struct slabx_cache *s = cache(test, "kasan_rcu", 64, 0);
	struct bad_access b = { .fn = read_byte };
	u8 *p;

	require_kasan(test);
	p = slabx_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	p[0] = 7;
	rcu_read_lock();
	slabx_free_rcu(s, p);
	/* A reader that found it before may read it until it unlocks. */
	KUNIT_EXPECT_EQ(test, READ_ONCE(p[0]), 7);
	rcu_read_unlock();
	slabx_rcu_barrier(s);
	b.obj = p;
	expect_report(test, &b, UAF);
}

/* The same for an object that waited in its slab (no rcu_free sheaf). */
static void read_after_free_rcu_in_slab(struct kunit *test)
{
	struct slabx_cache *s = cache(test, "kasan_rcu_slab", 64, 0);
	struct bad_access b = { .fn = read_byte };

	require_kasan(test);
	b.obj = slabx_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b.obj);
	fault_inject(test, slabx_fault_inject_rcu_sheaf, -1);
	slabx_free_rcu(s, b.obj);
	fault_inject_end(test, slabx_fault_inject_rcu_sheaf);
	KUNIT_ASSERT_EQ(test, slabx_cache_stat(s, SLABX_FREE_RCU_FALLBACK), 1);
	slabx_rcu_barrier(s);
	expect_report(test, &b, UAF);
}

/* One byte past the object, in a partial last granule and a whole one. */
static void write_one_byte_past(struct kunit *test)
{
	static const unsigned int sizes[] = { 61, 64 };
	struct bad_access b = { .fn = write_byte };
	unsigned int i;

	require_kasan(test);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		char name[16];
		struct slabx_cache *s;

		snprintf(name, sizeof(name), "kasan_oob%u", sizes[i]);
		s = cache(test, name, sizes[i], 0);
		b.obj = slabx_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, b.obj);
		b.offset = sizes[i];
		expect_report(test, &b, OOB);
		slabx_free(s, b.obj);
	}
}

/*
 * Past the size slabx_kmalloc() was asked for, inside its class's object:
 * in a partial last granule and a whole one, both of the 64-byte class.
 */
static void kmalloc_write_past_size(struct kunit *test)
{
	static const unsigned int sizes[] = { 50, 56 };
	struct bad_access b = { .fn = write_byte };
	unsigned int i;

	require_kasan(test);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		b.obj = slabx_kmalloc(sizes[i], GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, b.obj);
		b.offset = sizes[i];
		expect_report(test, &b, OOB);
		slabx_kfree(b.obj);
	}
}

/* An object waiting on the deferred list of slabx_free_nolock(). */
static void read_of_deferred_nolock_free(struct kunit *test)
{
	struct slabx_cache *s = cache(test, "kasan_nolock", 64, 0);
	struct bad_access b = { .fn = read_byte };
	unsigned long flags;

	require_kasan(test);
	b.obj = slabx_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b.obj);
	local_irq_save(flags);
	slabx_nolock_test_block_cache(s);
	slabx_free_nolock(s, b.obj);
	slabx_nolock_test_unblock_cache(s);
	local_irq_restore(flags);
	KUNIT_ASSERT_EQ(test, slabx_cache_stat(s, SLABX_FREE_NOLOCK_DEFERRED), 1);
	/* Drained by now or not, it is free either way. */
	expect_report(test, &b, UAF);
}

/* An object back in a pool-mode cache's pool. */
static void read_after_free_pool_mode(struct kunit *test)
{
	struct slabx_cache_args args = { .pool_objects = 16 };
	struct bad_access b = { .fn = read_byte };
	struct slabx_cache *s;

	require_kasan(test);
	s = cache_create(test, "kasan_pool", 64, &args);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	b.obj = slabx_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b.obj);
	slabx_free(s, b.obj);
	expect_report(test, &b, UAF);
}

/* A double free into the sheaves: KASAN names it, slabx refuses it. */
static void double_free_into_sheaf(struct kunit *test)
{
	struct slabx_cache *s = cache(test, "kasan_double", 64, 0);
	struct bad_access b = { .fn = free_obj, .s = s };
	unsigned long freed;

	require_kasan(test);
	b.obj = slabx_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b.obj);
	slabx_free(s, b.obj);
	freed = slabx_cache_stat(s, SLABX_FREE);
	expect_report(test, &b, "kasan: BUG: KASAN: " SLABX_KASAN_SLAB_UAF " in");
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_FREE), freed);
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_FREE_INVALID), 1);
	KUNIT_EXPECT_EQ(test, objects_held(s), 0);
}

/* ---- misuse of a debug cache: reported every time, nothing corrupted ---- */

static struct slabx_cache *debug_cache(struct kunit *test, const char *name)
{
	struct slabx_cache_args args = { .flags = SLABX_DEBUG };
	struct slabx_cache *s = cache_create(test, name, 64, &args);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	return s;
}

/* Twice, to show a debug cache reports every time, not once. */
static void free_of_foreign_pointer(struct kunit *test)
{
	struct slabx_cache *s = debug_cache(test, "misuse_foreign");
	struct bad_access b = { .fn = free_obj, .s = s };
	void *obj = slabx_alloc(s, GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, obj);
	b.obj = kunit_kmalloc(test, 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b.obj);
	for (i = 0; i < 2; i++)
		expect_report(test, &b,
			      "warning: not an object of this cache");
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_FREE_INVALID), 2);
	slabx_free(s, obj);
	KUNIT_EXPECT_EQ(test, objects_held(s), 0);
}

static void kfree_obj(struct bad_access *b)
{
	slabx_kfree(b->obj);
}

/*
 * slabx_kfree() of memory slabx_kmalloc() did not return: kmalloc()'s,
 * and a pointer into a slabx_kmalloc() object. Refused, reported, and the
 * object is still there to free.
 */
static void kfree_of_foreign_pointer(struct kunit *test)
{
	struct slabx_cache *s = slabx_kmalloc_cache(64);
	struct bad_access b = { .fn = kfree_obj };
	unsigned long frees = slabx_cache_stat(s, SLABX_FREE);
	unsigned long invalid = slabx_cache_stat(s, SLABX_FREE_INVALID);
	u8 *obj = slabx_kmalloc(64, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, obj);
	b.obj = kunit_kmalloc(test, 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b.obj);
	expect_report(test, &b, "warning: slabx_kfree() of");
	b.obj = obj + 8;
	expect_report(test, &b, "warning: not an object of this cache");
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_FREE_INVALID),
			invalid + 1);
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_FREE), frees);
	slabx_kfree(obj);
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_FREE), frees + 1);
}

static u8 module_byte;

/*
 * Pointers no slab can be at: reported and refused without reading
 * anything at them. Among them unmapped addresses, where a read would
 * oops: a user address, the guard page after a vmalloc() area and, on
 * x86-64, the last page of the direct map's range (far past this guest's
 * memory: pfn_valid() looks its section up and finds none).
 */
static void free_outside_the_direct_map(struct kunit *test)
{
	struct slabx_cache *s = debug_cache(test, "misuse_nonlinear");
	struct bad_access b = { .fn = free_obj, .s = s };
	void *buf = vmalloc(PAGE_SIZE);
	void *ptrs[] = {
		buf, buf + PAGE_SIZE, &module_byte, (void *)0x1000UL,
#if defined(CONFIG_X86_64) && !defined(CONFIG_UML)
		(void *)(PAGE_OFFSET + (1UL << MAX_PHYSMEM_BITS) - PAGE_SIZE),
#endif
	};
	int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(ptrs); i++) {
		b.obj = ptrs[i];
		expect_report(test, &b,
			      "warning: not an object of this cache");
	}
	vfree(buf);
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_FREE_INVALID),
			ARRAY_SIZE(ptrs));
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_FREE), 0);
}

#if defined(CONFIG_X86_64) && !defined(CONFIG_UML)
/*
 * The first hole of the direct map above the ISA range (mapped whole) and
 * below high_memory, or NULL: x86-64 maps only RAM there. The x86-64
 * check boots reserve one (memmap= in scripts/run-tests.sh).
 */
static void *direct_map_hole(void)
{
	unsigned long pfn, end = PFN_DOWN(__pa(high_memory));

	for (pfn = PFN_DOWN(SZ_1M); pfn < end; pfn += PFN_DOWN(SZ_2M))
		if (!page_is_ram(pfn))
			return __va(PFN_PHYS(pfn));
	return NULL;
}

/*
 * A pointer into a hole of the direct map: nothing is mapped there, yet
 * the memory model may call its pages valid (a boot-time section is valid
 * whole, whatever holes it has). slabx_free() refuses and reports it, and
 * does not oops reading its slab header (slabx_kfree() finds a header the
 * same way; its report comes once per boot, which
 * kfree_of_foreign_pointer() takes).
 */
static void free_into_a_direct_map_hole(struct kunit *test)
{
	struct slabx_cache *s = debug_cache(test, "misuse_hole");
	struct bad_access b = { .fn = free_obj, .s = s };
	void *hole = direct_map_hole();

	if (!hole)
		kunit_skip(test, "no hole in the direct map below high_memory");
	kunit_info(test, "hole at %pa, pfn_valid() says %d\n",
		   &(phys_addr_t){ __pa(hole) }, pfn_valid(PHYS_PFN(__pa(hole))));
	b.obj = hole + 64;
	expect_report(test, &b, "warning: not an object of this cache");
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_FREE_INVALID), 1);
}
#else
static void free_into_a_direct_map_hole(struct kunit *test)
{
	kunit_skip(test, "x86-64 only");
}
#endif

/*
 * A double free: KASAN's report where KASAN is on (it comes first), the
 * cache's own check everywhere else. Either way the object is refused.
 */
static void double_free_in_debug_cache(struct kunit *test)
{
	struct slabx_cache *s = debug_cache(test, "misuse_double");
	struct bad_access b = { .fn = free_obj, .s = s };
	void *other;
	int i;

	b.obj = slabx_alloc(s, GFP_KERNEL);
	other = slabx_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b.obj);
	KUNIT_ASSERT_NOT_NULL(test, other);
	slabx_free(s, b.obj);
	for (i = 0; i < 2; i++)
		expect_report(test, &b, IS_ENABLED(CONFIG_KASAN_GENERIC) ?
			      "kasan: BUG: KASAN: " SLABX_KASAN_SLAB_UAF " in" :
			      "warning: double free of");
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_FREE_INVALID), 2);
	/* The freelist is intact: both objects come back, then go. */
	KUNIT_EXPECT_EQ(test, objects_held(s), 1);
	slabx_free(s, other);
	KUNIT_EXPECT_EQ(test, objects_held(s), 0);
}

/*
 * Frees off the grid of objects of a debug cache of @size: into an
 * object, into the slab header, at the slab's last byte, and at the grid
 * points just outside the objects, before the first one (when the header
 * is that large) and after the last one (when there is space after it).
 * One whole slab of objects is allocated, on one node, to find the first
 * and the last. Each free is refused and reported, and the objects are
 * still there to free.
 * Return: whether the stride is a power of two.
 */
static bool free_off_grid(struct kunit *test, unsigned int size)
{
	struct slabx_cache_args args = { .flags = SLABX_DEBUG };
	struct bad_access b = { .fn = free_obj };
	void *base, *first, *last, *end, *bad[6];
	unsigned int i, nr = 0, in_slab = 0;
	int nid = numa_mem_id();
	struct slabx_info info;
	unsigned long bytes;
	void **o;

	b.s = cache_create(test, "misuse_grid", size, &args);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b.s);
	slabx_cache_info(b.s, &info);
	bytes = PAGE_SIZE << info.order;
	o = kunit_kcalloc(test, info.objs_per_slab, sizeof(*o), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, o);
	for (i = 0; i < info.objs_per_slab; i++)
		o[i] = slabx_alloc_node(b.s, GFP_KERNEL, nid);
	/* A fresh cache: the objects fill one slab before another is made. */
	base = (void *)ALIGN_DOWN((unsigned long)o[0], bytes);
	end = base + bytes;
	first = o[0];
	last = o[0];
	for (i = 0; i < info.objs_per_slab; i++) {
		KUNIT_ASSERT_NOT_NULL(test, o[i]);
		if (o[i] < base || o[i] >= end)
			continue;
		in_slab++;
		first = min(first, o[i]);
		last = max(last, o[i]);
	}
	KUNIT_ASSERT_EQ(test, in_slab, info.objs_per_slab);
	bad[nr++] = first + 1;
	bad[nr++] = first + info.stride / 2;
	bad[nr++] = base;
	bad[nr++] = end - 1;
	if (first - info.stride >= base)
		bad[nr++] = first - info.stride;
	if (last + info.stride < end)
		bad[nr++] = last + info.stride;
	for (i = 0; i < nr; i++) {
		b.obj = bad[i];
		expect_report(test, &b, "warning: not an object of this cache");
	}
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(b.s, SLABX_FREE_INVALID),
			(unsigned long)nr);
	KUNIT_EXPECT_EQ(test, objects_held(b.s),
			(unsigned long)info.objs_per_slab);
	for (i = 0; i < info.objs_per_slab; i++)
		slabx_free(b.s, o[i]);
	KUNIT_EXPECT_EQ(test, objects_held(b.s), 0);
	cache_destroy(test, b.s);
	return is_power_of_2(info.stride);
}

/*
 * A free checks a power-of-two stride with a mask, any other with a
 * division: these sizes give both, with KASAN's redzones and without.
 */
static void free_off_the_object_grid(struct kunit *test)
{
	static const unsigned int sizes[] = { 48, 64, 96, 128 };
	unsigned int i, pow2 = 0;

	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		pow2 += free_off_grid(test, sizes[i]);
	KUNIT_EXPECT_GT(test, pow2, 0U);
	KUNIT_EXPECT_LT(test, pow2, (unsigned int)ARRAY_SIZE(sizes));
}

static void free_reserved_obj(struct bad_access *b)
{
	slabx_free_reserved(b->res, b->obj);
}

/*
 * A double free through a reservation, of an object that went into the
 * reserve (the slab does not see it free): KASAN's report, or the debug
 * cache's own check of the reserve. The reserve holds it once.
 */
static void double_free_through_reservation(struct kunit *test)
{
	struct slabx_cache *s = debug_cache(test, "misuse_reserved");
	struct bad_access b = { .fn = free_reserved_obj, .s = s };
	void **drained = kunit_kcalloc(test, 512, sizeof(void *), GFP_KERNEL);
	struct slabx_info info;
	unsigned int n = 0;

	KUNIT_ASSERT_NOT_NULL(test, drained);
	b.res = slabx_reserve(s, 2, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b.res);
	/* Only the reserve left: the page allocator fails, the slabs drained. */
	fault_inject(test, slabx_fault_inject_pages, -1);
	while (n < 512 && (drained[n] = slabx_alloc(s, GFP_KERNEL | __GFP_NOWARN)))
		n++;
	b.obj = slabx_alloc_reserved(b.res, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b.obj);
	slabx_free_reserved(b.res, b.obj);
	expect_report(test, &b, IS_ENABLED(CONFIG_KASAN_GENERIC) ?
		      "kasan: BUG: KASAN: " SLABX_KASAN_SLAB_UAF " in" :
		      "warning: double free of");
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_FREE_INVALID), 1);
	slabx_cache_info(s, &info);
	KUNIT_EXPECT_EQ(test, info.objects_reserve, 2);
	fault_inject_end(test, slabx_fault_inject_pages);
	while (n)
		slabx_free(s, drained[--n]);
	slabx_unreserve(b.res);
	KUNIT_EXPECT_EQ(test, objects_held(s), 0);
}

static void alloc_from_destroyed_cache(struct bad_access *b)
{
	b->obj = slabx_alloc(b->s, GFP_KERNEL);
}

/*
 * Destroy with an object leaked names it; an allocation afterwards is
 * refused with a warning; the leaked object may still be freed.
 */
static void destroy_names_leaks_and_refuses_alloc(struct kunit *test)
{
	struct slabx_cache *s = debug_cache(test, "misuse_leaky");
	struct bad_access b = { .fn = read_byte, .s = s };
	void *leaked = slabx_alloc(s, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, leaked);
	pr_info("slabx-expect: BEGIN %s: log: misuse_leaky: object\n",
		test->name);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), -EBUSY);
	pr_info("slabx-expect: END %s\n", test->name);
	b.fn = alloc_from_destroyed_cache;
	b.obj = leaked;
	expect_report(test, &b, "warning: allocation on a cache being destroyed");
	KUNIT_EXPECT_NULL(test, b.obj);
	slabx_free(s, leaked);
}

/*
 * A late free after a leaky destroy (its sheaves retired), twice: the
 * second is refused by the slab, where the first put the object at the
 * head of the free list, and must leave the object as it was. Under
 * init_on_free (the um "init" boot) the checkers' hook clears an object:
 * run before the slab's check, it cleared the free-list link, and a later
 * allocation from that slab followed a garbage pointer. The warning of
 * this call site was printed by naive_double_free_hardened() already.
 */
static void late_double_free_left_alone(struct kunit *test)
{
	struct slabx_cache *s = slabx_cache_create("misuse_naive_late", 64, NULL);
	unsigned long link, after;
	struct slabx_info info;
	void *obj, *other;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	slabx_cache_info(s, &info);
	obj = slabx_alloc(s, GFP_KERNEL);
	other = slabx_alloc(s, GFP_KERNEL);
	if (!info.sheaf_capacity || !obj || !other) {
		/* debug=1: no sheaves, and every double free warns. */
		slabx_free(s, obj);
		slabx_free(s, other);
		KUNIT_EXPECT_EQ(test, slabx_cache_destroy(s), 0);
		return;
	}
	pr_info("slabx-expect: BEGIN %s: log: misuse_naive_late: object\n",
		test->name);
	KUNIT_EXPECT_EQ(test, slabx_cache_destroy(s), -EBUSY);
	pr_info("slabx-expect: END %s\n", test->name);
	slabx_free(s, obj);
	link = READ_ONCE(*(unsigned long *)obj);
	slabx_free(s, obj);
	after = READ_ONCE(*(unsigned long *)obj);
	KUNIT_EXPECT_EQ_MSG(test, after, link,
			    "a refused double free changed the free object");
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_FREE_INVALID), 1);
	/* The last object: the destroyed cache is freed now. */
	slabx_free(s, other);
}

/*
 * CONFIG_SLAB_FREELIST_HARDENED, where KASAN does not catch it first: the
 * naive double free (of the object freed last) of a cache without debug,
 * into a sheaf and into a slab, and after a destroy, is refused. A plain
 * cache warns once per boot and call site: this case runs once per boot.
 */
static void naive_double_free_hardened(struct kunit *test)
{
	struct slabx_cache_args slab_only = { .flags = SLABX_NO_SHEAVES };
	struct bad_access b = { .fn = free_obj };
	struct slabx_cache *s, *t;
	void *first, *second;

	if (!IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED) ||
	    IS_ENABLED(CONFIG_KASAN_GENERIC))
		kunit_skip(test, "needs SLAB_FREELIST_HARDENED without KASAN");
	/* The second free must meet this CPU's sheaves, as the first did. */
	pin(test, raw_smp_processor_id());
	s = cache(test, "misuse_naive", 64, 0);
	t = cache_create(test, "misuse_naive_slab", 64, &slab_only);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	b.s = s;
	b.obj = slabx_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b.obj);
	slabx_free(s, b.obj);
	expect_report(test, &b, "warning: double free of");
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_FREE_INVALID), 1);
	/* Refused: the object is free once, handed out once. */
	first = slabx_alloc(s, GFP_KERNEL);
	second = slabx_alloc(s, GFP_KERNEL);
	KUNIT_EXPECT_PTR_EQ(test, first, b.obj);
	KUNIT_EXPECT_PTR_NE(test, second, b.obj);
	slabx_free(s, first);
	slabx_free(s, second);

	b.s = t;
	b.obj = slabx_alloc(t, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b.obj);
	slabx_free(t, b.obj);
	expect_report(test, &b, "warning: double free of");
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(t, SLABX_FREE_INVALID), 1);
	KUNIT_EXPECT_EQ(test, objects_held(t), 0);

	late_double_free_left_alone(test);
}

/* ---- a free of an object that waits for its grace period ----------------- */

static void free_rcu_obj(struct bad_access *b)
{
	slabx_free_rcu(b->s, b->obj);
}

static void free_bulk_objs(struct bad_access *b)
{
	slabx_free_bulk(b->s, ARRAY_SIZE(b->bulk), b->bulk);
}

static void monitor_resume(void *unused)
{
	slabx_rcu_free_monitor_resume();
}

/*
 * For the case: this CPU's partial rcu_free sheaf stays, however slow a
 * step is (the age monitor would queue it after a second).
 */
static void monitor_pause(struct kunit *test)
{
	slabx_rcu_free_monitor_pause();
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, monitor_resume,
							NULL), 0);
}

/*
 * Allocate @nr objects of @s, count those handed out twice, and free
 * every one once. Return: the count.
 */
static unsigned int alloc_twice_count(struct kunit *test,
				      struct slabx_cache *s, unsigned int nr)
{
	void **p = kunit_kcalloc(test, nr, sizeof(*p), GFP_KERNEL);
	unsigned int i, twice = 0;

	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < nr; i++) {
		p[i] = slabx_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
	}
	sort(p, nr, sizeof(*p), cmp_ptr, NULL);
	for (i = 0; i < nr; i++) {
		if (i && p[i] == p[i - 1])
			twice++;
		else
			slabx_free(s, p[i]);
	}
	return twice;
}

/* A cache with sheaves (but with slabx's debug=1), for the cases below. */
static struct slabx_cache *rcu_cache(struct kunit *test, const char *name,
				     struct slabx_info *info)
{
	struct slabx_cache *s = cache(test, name, 64, 8);

	slabx_cache_info(s, info);
	return s;
}

/*
 * What refuses a free of an object given to slabx_free_rcu() before: the
 * mark KASAN builds keep on it until its grace period ends, or where the
 * cache has no sheaves (debug=1) its slab's pending bit.
 */
#define RCU_WAITING	"warning: waiting for its grace period"

/*
 * slabx_free_rcu() twice on the sheaf path (issue 29): refused, reported
 * and counted, and the object is not handed out twice. The second call
 * follows the first at once, on the same CPU: under KASAN any free of an
 * object that waits is refused, elsewhere SLAB_FREELIST_HARDENED's naive
 * case (the object the last one freed by RCU on this CPU) is. The rest
 * fill the rcu_free sheaf, so that it goes to the barn whole, where the
 * duplicate was handed out twice. With debug=1 (no sheaves) the object
 * waits in its slab, or its grace period may have ended already (UML's
 * is short): either way the debug cache refuses it.
 */
static void double_free_rcu_into_sheaf(struct kunit *test)
{
	struct bad_access b = { .fn = free_rcu_obj };
	struct slabx_info info;
	unsigned int cap, i;
	void **o;

	pin(test, raw_smp_processor_id());
	monitor_pause(test);
	b.s = rcu_cache(test, "misuse_rcu_twice", &info);
	if (info.sheaf_capacity && !IS_ENABLED(CONFIG_KASAN_GENERIC) &&
	    !IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED))
		kunit_skip(test, "needs KASAN or SLAB_FREELIST_HARDENED");
	cap = info.sheaf_capacity ?: 8;
	o = kunit_kcalloc(test, cap, sizeof(*o), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, o);
	alloc_n(test, b.s, o, cap);
	b.obj = o[0];
	slabx_free_rcu(b.s, b.obj);
	expect_report(test, &b, IS_ENABLED(CONFIG_KASAN_GENERIC) ?
		      RCU_WAITING : "warning: misuse_rcu_twice: double");
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(b.s, SLABX_FREE_INVALID), 1);
	for (i = 1; i < cap; i++)
		slabx_free_rcu(b.s, o[i]);
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(b.s, SLABX_FREE_RCU),
			(unsigned long)cap);
	slabx_rcu_barrier(b.s);
	KUNIT_EXPECT_EQ(test, alloc_twice_count(test, b.s, 8 * cap), 0U);
	KUNIT_EXPECT_EQ(test, objects_held(b.s), 0);
}

/*
 * slabx_free_rcu(), then slabx_free() within the grace period: refused
 * and reported, not reused at once (nor poisoned later under its next
 * owner). Caught under KASAN, or by a debug cache (with debug=1, where
 * the grace period may also have ended before the second free, which is
 * then an ordinary double free); skipped elsewhere.
 */
static void free_after_free_rcu(struct kunit *test)
{
	struct bad_access b = { .fn = free_obj };
	struct slabx_info info;
	void *next;

	pin(test, raw_smp_processor_id());
	monitor_pause(test);
	b.s = rcu_cache(test, "misuse_rcu_free", &info);
	if (info.sheaf_capacity && !IS_ENABLED(CONFIG_KASAN_GENERIC))
		kunit_skip(test, "needs KASAN or slabx's debug=1");
	b.obj = slabx_alloc(b.s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b.obj);
	slabx_free_rcu(b.s, b.obj);
	expect_report(test, &b, IS_ENABLED(CONFIG_KASAN_GENERIC) ?
		      RCU_WAITING : "warning: double free of");
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(b.s, SLABX_FREE_INVALID), 1);
	/* Still in the rcu_free sheaf; in a debug cache it may be free now. */
	next = slabx_alloc(b.s, GFP_KERNEL);
	if (info.sheaf_capacity)
		KUNIT_EXPECT_PTR_NE(test, next, b.obj);
	slabx_free(b.s, next);
	slabx_rcu_barrier(b.s);
	KUNIT_EXPECT_EQ(test, alloc_twice_count(test, b.s, 64), 0U);
	KUNIT_EXPECT_EQ(test, objects_held(b.s), 0);
}

/* The same through slabx_free_bulk(): the other object is freed. */
static void free_bulk_after_free_rcu(struct kunit *test)
{
	struct bad_access b = { .fn = free_bulk_objs };
	unsigned long freed, done;
	struct slabx_info info;
	void *obj, *next;

	pin(test, raw_smp_processor_id());
	monitor_pause(test);
	b.s = rcu_cache(test, "misuse_rcu_bulk", &info);
	if (info.sheaf_capacity && !IS_ENABLED(CONFIG_KASAN_GENERIC))
		kunit_skip(test, "needs KASAN or slabx's debug=1");
	obj = slabx_alloc(b.s, GFP_KERNEL);
	b.bulk[0] = slabx_alloc(b.s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	KUNIT_ASSERT_NOT_NULL(test, b.bulk[0]);
	b.bulk[1] = obj;
	slabx_free_rcu(b.s, obj);
	freed = slabx_cache_stat(b.s, SLABX_FREE);
	done = slabx_cache_stat(b.s, SLABX_FREE_RCU_DONE);
	expect_report(test, &b, IS_ENABLED(CONFIG_KASAN_GENERIC) ?
		      RCU_WAITING : "warning: double free of");
	/* The other one; and @obj if its grace period ended meanwhile. */
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(b.s, SLABX_FREE) - freed,
			1 + slabx_cache_stat(b.s, SLABX_FREE_RCU_DONE) - done);
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(b.s, SLABX_FREE_INVALID), 1);
	next = slabx_alloc(b.s, GFP_KERNEL);
	if (info.sheaf_capacity)
		KUNIT_EXPECT_PTR_NE(test, next, obj);
	slabx_free(b.s, next);
	slabx_rcu_barrier(b.s);
	KUNIT_EXPECT_EQ(test, alloc_twice_count(test, b.s, 64), 0U);
	KUNIT_EXPECT_EQ(test, objects_held(b.s), 0);
}

/* ---- the kernel's kfree(), kfree_rcu() and ksize() of a slabx object ---- */

struct rcu_victim {
	struct rcu_head rcu;
	u8 data[2048 - sizeof(struct rcu_head)];
};

static void kernel_kfree(struct bad_access *b)
{
	kfree(b->obj);
}

static void kernel_ksize(struct bad_access *b)
{
	b->offset = ksize(b->obj);
}

/*
 * A debug cache (each report every time) of @size objects, whose slabs
 * have an order above 0 or not, as @order_above_0 says.
 */
static struct slabx_cache *kfree_cache(struct kunit *test, const char *name,
				       unsigned int size, bool order_above_0)
{
	struct slabx_cache_args args = { .flags = SLABX_DEBUG };
	struct slabx_cache *s = cache_create(test, name, size, &args);
	struct slabx_info info;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	slabx_cache_info(s, &info);
	KUNIT_ASSERT_EQ(test, info.order > 0, order_above_0);
	return s;
}

/*
 * What the kernel reports when kfree() meets an object of a slab of order
 * above 0 or not (@order_above_0): KASAN's invalid free (no object starts
 * its block); at order 0 also the warning of a large kmalloc block of
 * order 0, once per boot (this suite runs once per boot, and no other
 * case frees an order-0 object so). NULL where it reports nothing.
 */
static const char *kfree_report(bool order_above_0)
{
	if (IS_ENABLED(CONFIG_KASAN_GENERIC))
		return order_above_0 ? "kasan: invalid-free" :
				       "kasan+warning: invalid-free";
	return order_above_0 ? NULL : "warning: object pointer";
}

#define REFS_LOST	"warning: lost 1 of its 2 page references"

/* The kernel's kfree() of @b->obj, a slabx object, in its report's window. */
static void kfree_reported(struct kunit *test, struct bad_access *b,
			   bool order_above_0)
{
	const char *report = kfree_report(order_above_0);

	if (report)
		expect_report(test, b, report);
	else
		kernel_kfree(b);
}

/*
 * kfree() of @b->obj, an object of @b->s, which the slab survives; the
 * object given back then, and the cache shrunk: its slab goes back, and
 * the lost reference is reported in its window.
 */
static void kfree_then_slab_back(struct kunit *test, struct bad_access *b,
				 bool order_above_0)
{
	kfree_reported(test, b, order_above_0);
	KUNIT_ASSERT_EQ(test, slab_page_refs(b->obj), 1);
	pr_info("slabx-expect: BEGIN %s: " REFS_LOST "\n", test->name);
	slabx_free(b->s, b->obj);
	slabx_cache_shrink(b->s);
	pr_info("slabx-expect: END %s\n", test->name);
}

/* Objects of every slab of @s allocated, written, checked and freed. */
static void cache_still_sound(struct kunit *test, struct slabx_cache *s,
			      unsigned int size)
{
	enum { NR = 32 };
	u8 *p[NR];
	int i;

	for (i = 0; i < NR; i++) {
		p[i] = slabx_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
		KUNIT_EXPECT_EQ(test, slab_page_refs(p[i]), 2);
		memset(p[i], i, size);
	}
	for (i = 0; i < NR; i++) {
		KUNIT_EXPECT_EQ(test, p[i][0], i);
		KUNIT_EXPECT_EQ(test, p[i][size - 1], i);
		slabx_free(s, p[i]);
	}
	KUNIT_EXPECT_EQ(test, objects_held(s), 0);
}

/*
 * kfree() of a slabx object, at order 0 and above: the kernel takes the
 * slab for a large kmalloc block and puts its page, which the slab's own
 * reference survives. The object given back the right way too, the slab
 * goes back when the cache shrinks, where the lost reference is reported
 * and counted; the cache works on.
 */
static void kfree_of_object_survived(struct kunit *test)
{
	static const unsigned int sizes[] = { 64, 2048 };
	static const char *const names[] = { "misuse_kfree", "misuse_kfree2" };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct slabx_cache *s = kfree_cache(test, names[i], sizes[i], i);
		struct bad_access b = { .fn = kernel_kfree, .s = s };
		unsigned long invalid = slabx_cache_stat(s, SLABX_FREE_INVALID);

		b.obj = slabx_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, b.obj);
		KUNIT_ASSERT_EQ(test, slab_page_refs(b.obj), 2);
		kfree_then_slab_back(test, &b, i);
		KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_FREE_INVALID),
				invalid + 1);
		cache_still_sound(test, s, sizes[i]);
	}
}

/*
 * An object lost to kfree(), as a port that freed it so: the destroy that
 * finds it leaked says that its slab lost a page reference, and mends it.
 * Given back late (a destroyed cache takes its leaked objects), the slab
 * goes back at unload without a second report (helper review of
 * 17282be: it was reported again there, outside any window).
 */
static void kfree_of_object_named_at_destroy(struct kunit *test)
{
	struct slabx_cache *s = kfree_cache(test, "misuse_kfree_leak", 2048,
					    true);
	struct bad_access b = { .fn = kernel_kfree, .s = s };

	b.obj = slabx_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b.obj);
	kfree_reported(test, &b, true);
	pr_info("slabx-expect: BEGIN %s: " REFS_LOST "\n", test->name);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), -EBUSY);
	pr_info("slabx-expect: END %s\n", test->name);
	KUNIT_EXPECT_EQ(test, slab_page_refs(b.obj), 2);
	slabx_free(s, b.obj);
}

/*
 * kfree_rcu() of a slabx object: the same put, a grace period later, in
 * the kernel's kfree_rcu() worker.
 */
static void kfree_rcu_of_object_survived(struct kunit *test)
{
	struct slabx_cache *s = kfree_cache(test, "misuse_kfree_rcu",
					    sizeof(struct rcu_victim), true);
	const char *report = kfree_report(true);
	struct rcu_victim *v = slabx_alloc(s, GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, v);
	KUNIT_ASSERT_EQ(test, slab_page_refs(v), 2);
	if (report)
		pr_info("slabx-expect: BEGIN %s: %s\n", test->name, report);
	kfree_rcu(v, rcu);
	/* Bounded: a grace period and the batch's delay, under TCG. */
	for (i = 0; i < 3000 && slab_page_refs(v) == 2; i++)
		msleep(20);
	if (report)
		pr_info("slabx-expect: END %s\n", test->name);
	KUNIT_ASSERT_EQ(test, slab_page_refs(v), 1);
	pr_info("slabx-expect: BEGIN %s: " REFS_LOST "\n", test->name);
	slabx_free(s, v);
	slabx_cache_shrink(s);
	pr_info("slabx-expect: END %s\n", test->name);
	cache_still_sound(test, s, sizeof(*v));
}

/*
 * kfree() of an object of a typesafe-by-RCU cache, whose slab goes back
 * a grace period after it retired; and of one whose slab goes back from
 * any context (slabx_free_nolock() past the keep limit, through
 * slab_discard_nolock() and the any-context reserve). Both are mended as
 * they retire (helper review of 17282be).
 */
static void kfree_of_object_other_slab_paths(struct kunit *test)
{
	struct slabx_cache_args ts = {
		.flags = SLABX_DEBUG | SLABX_TYPESAFE_BY_RCU,
	};
	struct slabx_cache_args nl = { .flags = SLABX_DEBUG | SLABX_NO_SHEAVES };
	struct slabx_cache *s = cache_create(test, "misuse_kfree_ts", 2048, &ts);
	struct slabx_cache *t = cache_create(test, "misuse_kfree_nl", 2048, &nl);
	struct bad_access b = { .fn = kernel_kfree };
	unsigned long flags, invalid;
	unsigned int i, n;
	void **p;

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_GT(test, info_of(s).order, 0U);
	KUNIT_ASSERT_GT(test, info_of(t).order, 0U);

	invalid = slabx_cache_stat(s, SLABX_FREE_INVALID);
	b.obj = slabx_alloc(s, GFP_KERNEL);
	b.s = s;
	KUNIT_ASSERT_NOT_NULL(test, b.obj);
	kfree_then_slab_back(test, &b, true);
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_FREE_INVALID),
			invalid + 1);

	n = 6 * info_of(t).objs_per_slab;
	p = kunit_kcalloc(test, n, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < n; i++) {
		p[i] = slabx_alloc(t, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
	}
	invalid = slabx_cache_stat(t, SLABX_FREE_INVALID);
	b.obj = p[n - 1];
	kfree_reported(test, &b, true);
	KUNIT_EXPECT_EQ(test, slab_page_refs(b.obj), 1);
	pr_info("slabx-expect: BEGIN %s: " REFS_LOST "\n", test->name);
	for (i = 0; i < n; i++) {
		local_irq_save(flags);
		slabx_free_nolock(t, p[i]);
		local_irq_restore(flags);
	}
	slabx_cache_shrink(t);
	pr_info("slabx-expect: END %s\n", test->name);
	nolock_pages_drained();
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(t, SLABX_FREE_INVALID),
			invalid + 1);
	cache_still_sound(test, t, 2048);
}

/*
 * kfree() of an object of a pool-mode cache, whose pool of 16 objects of
 * 1 KiB is a large kmalloc() block: the pool's own reference takes the
 * put (helper review of 17282be: kfree() freed the whole pool), the other
 * objects serve on, and the destroy that finds the object out reports the
 * lost reference with the cache's name.
 */
static void kfree_of_pool_object_survived(struct kunit *test)
{
	struct slabx_cache_args args = { .pool_objects = 16 };
	struct slabx_cache *s = cache_create(test, "misuse_kfree_pool", 1024,
					     &args);
	struct bad_access b = { .fn = kernel_kfree };
	u8 *p[16];
	int i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	for (i = 0; i < 2; i++) {
		p[i] = slabx_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
	}
	/* One that does not start the block (KASAN reports its kfree()). */
	b.obj = folio_address(virt_to_folio(p[0])) == p[0] ? p[1] : p[0];
	KUNIT_ASSERT_EQ(test, slab_page_refs(b.obj), 2);
	kfree_reported(test, &b, true);
	KUNIT_EXPECT_EQ(test, slab_page_refs(b.obj), 1);
	slabx_free(s, b.obj == p[0] ? p[1] : p[0]);
	/* The other 15 serve on, whole; the one kfree() took is lost. */
	for (i = 0; i < 15; i++) {
		p[i] = slabx_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
		memset(p[i], i, 1024);
	}
	KUNIT_EXPECT_NULL(test, slabx_alloc(s, GFP_KERNEL | __GFP_NOWARN));
	for (i = 0; i < 15; i++) {
		KUNIT_EXPECT_EQ(test, p[i][1023], i);
		slabx_free(s, p[i]);
	}
	pr_info("slabx-expect: BEGIN %s: warning: lost its page reference\n",
		test->name);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), -EBUSY);
	pr_info("slabx-expect: END %s\n", test->name);
	KUNIT_EXPECT_EQ(test, slab_page_refs(b.obj), 2);
}

/*
 * ksize() of a slabx object, and of a slabx_kmalloc() one: the kernel
 * takes neither for a block it knows, warns and returns 0 (no size that
 * would let a caller write past the object).
 */
static void ksize_of_object_is_0(struct kunit *test)
{
	struct slabx_cache *s = kfree_cache(test, "misuse_ksize", 64, false);
	struct bad_access b = { .fn = kernel_ksize };
	void *obj = slabx_alloc(s, GFP_KERNEL);
	void *kobj = slabx_kmalloc(100, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, obj);
	KUNIT_ASSERT_NOT_NULL(test, kobj);
	b.obj = obj;
	b.offset = 1;
	expect_report(test, &b, "warning: ksize");
	KUNIT_EXPECT_EQ(test, b.offset, 0);
	b.obj = kobj;
	b.offset = 1;
	expect_report(test, &b, "warning: ksize");
	KUNIT_EXPECT_EQ(test, b.offset, 0);
	KUNIT_EXPECT_EQ(test, slab_page_refs(obj), 2);
	slabx_free(s, obj);
	slabx_kfree(kobj);
}

/* ---- copies to and from user space -------------------------------------- */

static void check_copy(struct bad_access *b)
{
	b->offset = b->s ? -slabx_check_copy(b->s, b->obj, b->offset, true) :
			   -slabx_kmalloc_check_copy(b->obj, b->offset, false);
}

#define COPY_REFUSED	"warning: usercopy"

/* slabx_check_copy() of @n bytes at @p of @s: refused with a warning. */
static void copy_refused(struct kunit *test, struct slabx_cache *s, void *p,
			 size_t n)
{
	struct bad_access b = { .fn = check_copy, .s = s, .obj = p,
				.offset = n };

	expect_report(test, &b, COPY_REFUSED);
	KUNIT_EXPECT_EQ(test, b.offset, EFAULT);
}

/*
 * Copies that leave an object's usercopy part, or of a cache without one,
 * or of a pointer into no object, are refused with a warning each (debug
 * caches), as the kernel's hardened usercopy refuses them for a kmem_cache
 * object; and past a slabx_kmalloc() object's class size, or of memory
 * not from slabx_kmalloc() (once per boot each: this suite runs once).
 */
static void usercopy_outside_part_refused(struct kunit *test)
{
	struct slabx_cache_args part = {
		.flags = SLABX_DEBUG, .useroffset = 16, .usersize = 32,
	};
	struct slabx_cache_args none = { .flags = SLABX_DEBUG };
	struct slabx_cache *s = cache_create(test, "misuse_ucopy", 64, &part);
	struct slabx_cache *t = cache_create(test, "misuse_ucopy0", 64, &none);
	u8 *p, *q, *k;

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_NOT_NULL(test, t);
	p = slabx_alloc(s, GFP_KERNEL);
	q = slabx_alloc(t, GFP_KERNEL);
	k = slabx_kmalloc(100, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_ASSERT_NOT_NULL(test, k);
	/*
	 * A class cache is no debug cache (but under debug=1):
	 * slabx_check_copy() warns once per boot for all such caches, and a
	 * debug cache's warning before does not use up that once.
	 */
	copy_refused(test, s, p + 16, 33);	/* one byte past the part */
	copy_refused(test, NULL, k + 64, 65);	/* past the class of 128 */
	copy_refused(test, s, p + 15, 1);	/* one byte before it */
	copy_refused(test, s, p + 48, 1);
	copy_refused(test, s, p + 40, 64);	/* into the next object */
	copy_refused(test, s, p, (unsigned long)-1);
	copy_refused(test, t, q, 1);		/* no part at all */
	copy_refused(test, s, q, 1);		/* another cache's object */
	copy_refused(test, NULL, q, 1);		/* not slabx_kmalloc() memory */
	slabx_free(s, p);
	slabx_free(t, q);
	slabx_kfree(k);
}

/* A usercopy part that does not lie in the object is refused at create. */
static void usercopy_part_outside_object(struct kunit *test)
{
	static const struct { unsigned int off, size; } bad[] = {
		{ 0, 65 }, { 60, 8 }, { 65, 0 }, { 8, 0 }, { 1, UINT_MAX },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct slabx_cache_args args = {
			.useroffset = bad[i].off, .usersize = bad[i].size,
		};

		KUNIT_EXPECT_NULL(test, cache_create(test, "misuse_ucopy_bad",
						     64, &args));
	}
}

static struct kunit_case misuse_cases[] = {
	KUNIT_CASE(naive_double_free_hardened),
	KUNIT_CASE(free_of_foreign_pointer),
	KUNIT_CASE(kfree_of_foreign_pointer),
	KUNIT_CASE(free_outside_the_direct_map),
	KUNIT_CASE(free_into_a_direct_map_hole),
	KUNIT_CASE(free_off_the_object_grid),
	KUNIT_CASE(double_free_in_debug_cache),
	KUNIT_CASE(double_free_through_reservation),
	KUNIT_CASE(destroy_names_leaks_and_refuses_alloc),
	KUNIT_CASE(double_free_rcu_into_sheaf),
	KUNIT_CASE(free_after_free_rcu),
	KUNIT_CASE(free_bulk_after_free_rcu),
	KUNIT_CASE(kfree_of_object_survived),
	KUNIT_CASE(kfree_of_object_named_at_destroy),
	KUNIT_CASE(kfree_rcu_of_object_survived),
	KUNIT_CASE(kfree_of_object_other_slab_paths),
	KUNIT_CASE(kfree_of_pool_object_survived),
	KUNIT_CASE(ksize_of_object_is_0),
	KUNIT_CASE(usercopy_outside_part_refused),
	KUNIT_CASE(usercopy_part_outside_object),
	{}
};

static struct kunit_suite misuse_suite = {
	.name = "slabx_misuse",
	.test_cases = misuse_cases,
};

static struct kunit_case kasan_cases[] = {
	KUNIT_CASE(read_after_free_in_slab),
	KUNIT_CASE(read_of_object_in_sheaf),
	KUNIT_CASE(read_after_free_rcu_grace_period),
	KUNIT_CASE(read_after_free_rcu_in_slab),
	KUNIT_CASE(write_one_byte_past),
	KUNIT_CASE(kmalloc_write_past_size),
	KUNIT_CASE(read_of_deferred_nolock_free),
	KUNIT_CASE(read_after_free_pool_mode),
	KUNIT_CASE(double_free_into_sheaf),
	{}
};

static struct kunit_suite kasan_suite = {
	.name = "slabx_kasan",
	.test_cases = kasan_cases,
};

/* ---- lockdep sees the per-CPU sheaves held --------------------------------- */

static DEFINE_SPINLOCK(nest_lock);

static void lock_in_sheaves(struct bad_access *b)
{
	b->offset = slabx_test_lock_in_sheaves(b->s, &nest_lock);
}

/*
 * A spinlock_t taken with a CPU's sheaves held, which sheaf.c forbids (on
 * PREEMPT_RT it is a sleeping lock, and the sheaves are held with
 * preemption off), is reported by lockdep as an invalid wait context:
 * pcs_lock() is a lock to lockdep (struct slabx_cpu_sheaves, @dep_map),
 * so CONFIG_PROVE_RAW_LOCK_NESTING checks the rule on kernels where the
 * nesting would otherwise go unnoticed. Lockdep reports once per boot,
 * and a KASAN report turns it off: this suite runs first in the module,
 * which runs last.
 */
static void spinlock_in_sheaves_is_reported(struct kunit *test)
{
	struct bad_access b = { .fn = lock_in_sheaves };

	if (!IS_ENABLED(CONFIG_PROVE_RAW_LOCK_NESTING) ||
	    IS_ENABLED(CONFIG_PREEMPT_RT))
		kunit_skip(test, "needs lockdep's raw lock nesting check, without PREEMPT_RT");
	if (!debug_locks)
		kunit_skip(test, "lockdep was turned off earlier in this boot");
	require_sheaves(test);
	b.s = cache(test, "kunit-lockdep-nest", 64, 0);
	expect_report(test, &b, "lockdep: Invalid wait context");
	KUNIT_EXPECT_EQ(test, b.offset, 1);
}

static struct kunit_case lockdep_cases[] = {
	KUNIT_CASE(spinlock_in_sheaves_is_reported),
	{}
};

static struct kunit_suite lockdep_suite = {
	.name = "slabx_lockdep",
	.test_cases = lockdep_cases,
};

kunit_test_suites(&lockdep_suite, &misuse_suite, &kasan_suite);

MODULE_DESCRIPTION("slabx: KASAN reports and misuse warnings, expected");

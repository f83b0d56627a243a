// SPDX-License-Identifier: GPL-2.0
/*
 * In-guest microbenchmark: slabx against the kernel's own allocator (a
 * kmem_cache of the same object size), measured in the same boot, on the
 * same CPU, in alternating rounds. It prints the cost per object of each
 * pattern and the ratio slabx/kernel (below 1.00 means slabx is faster).
 *
 * Patterns, for each object size:
 *   pair      a hot alloc + free pair, repeated
 *   batchN    N allocations, then the N frees, for N in 1, 32, 1024
 *   allcpus   the hot pair on every online CPU at once, in pairs per
 *             second over all CPUs (the ratio is of the times, as above)
 *   kmalloc   slabx_kmalloc() + slabx_kfree() against kmalloc() + kfree()
 *             of the same size: the hot pair, and 32 then 32 (kmalloc32)
 *   reserve   slabx_alloc_reserved() + slabx_free_reserved() through a
 *             reservation of 16 against mempool_alloc() + mempool_free()
 *             of a mempool of 16 over a kmem_cache, memory plentiful: the
 *             hot pair, and 32 then 32 (reserve32); then the bytes held
 *             by 100 reservations of 16 against 100 such mempools
 *
 * The patterns on one CPU are timed a third time on the floor: a per-CPU array popped
 * and pushed with preemption off, what no allocator can beat; slabx and
 * the kernel are also printed as multiples of it.
 *
 * Each figure is the best of @rounds rounds, which filters out rounds hit
 * by interrupts or by the host; timing uses ktime_get_ns() around whole
 * loops of about @ops objects, never around a single call.
 *
 * Then slabx_free_rcu() against kfree_rcu() of kmem_cache objects (which
 * carry an rcu_head, as kfree_rcu() needs): ns per free (only the frees are
 * timed, the allocations between batches of 1024 are not), slab pages held
 * at the peak above what was held before the round (the slabx cache's; for
 * the kernel all unreclaimable slab pages, a wider count), the time until every object is
 * free again after the last free (slabx_rcu_barrier() against
 * kvfree_rcu_barrier()), and slabx's call_rcu() invocations per 1000 frees;
 * over all of slabx's rounds, the sheaves it allocated (how many large)
 * and what became of its rcu_free sheaves after their grace period (kept
 * full in a barn, split into barn sheaves, or flushed to the slabs); and
 * the same frees with a plain slabx_free(), for what the grace period adds
 * to a free (rcu/plain).
 *
 * Then the destroy of a cache right after 256 of its objects were freed
 * by RCU (slabx_cache_destroy() against kmem_cache_destroy(), best of 5
 * rounds each), alone and with 1024 objects of another cache of the same
 * allocator in flight too (destroy+backlog): slabx waits for its own
 * cache's frees, the kernel for every kfree_rcu() of the system.
 *
 * Then GFP_NOWAIT under memory pressure, every page a GFP_NOWAIT caller
 * could get pinned (to the min watermark), on fresh caches warmed before:
 *   nowait      the hot pair, slabx_alloc() against kmem_cache_alloc(),
 *               both GFP_NOWAIT | __GFP_NOWARN (GFP_NOWAIT without it, as
 *               before 6.18, makes SLUB warn when it cannot get a slab)
 *   nowaitfill  allocations until the first NULL, then the free of all,
 *               per object
 *   nowaitnull  the calls that get NULL after it, per call: what a refill
 *               that cannot succeed costs (mainline lost two thirds of a
 *               GFP_NOWAIT user's throughput to such refills)
 * with the pages pinned and the objects each fill got.
 *
 * Last, the any-context paths: an order-0 page allocated and freed with
 * alloc_pages(GFP_ATOMIC) + __free_pages() against slabx_try_alloc_pages()
 * + slabx_free_pages_nolock() (printed as size 0, pattern "page"), and the
 * share of slabx_alloc_nolock() calls that succeed from an NMI raised on
 * this CPU every 50 to 60 us.
 *
 * Load it with "insmod slabx_bench.ko [rounds=R] [ops=N]"; it does its work
 * in module init and stays loaded, doing nothing, until removed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/mempool.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmstat.h>
#ifdef CONFIG_X86_LOCAL_APIC
#include <asm/apic.h>
#include <asm/nmi.h>
#endif

#include "../slabx.h"
#include "slabx_test_hooks.h"

#define BENCH_MAX_BATCH	1024

static unsigned int rounds = 15;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "rounds per figure; the best one counts (1..1000)");

static unsigned int ops = 200000;
module_param(ops, uint, 0444);
MODULE_PARM_DESC(ops, "objects allocated and freed per round (1024..100000000)");

static void **bench_objs;

/*
 * Each timed loop in a section of its own that starts a 4 KiB page, so
 * that none crosses a page: under QEMU TCG a loop that does runs up to
 * twice as slow, and which loops did changed with every edit of this
 * file.
 */
#define __bench_page(name)	__section(".text.bench_loop." #name)

/*
 * Allocate and free @total objects, @batch at a time; returns the time
 * taken in ns, or -ENOMEM. A batch of 0 means the hot pair: each object is
 * freed right after its allocation. Always inlined into one wrapper per
 * allocator, so that both are timed with direct calls.
 */
static __always_inline s64 bench_round(void *(*alloc)(void *cache),
				       void (*free)(void *cache, void *obj),
				       void *cache, unsigned int batch,
				       unsigned int total)
{
	unsigned int done, i, n = batch ? batch : 1;
	u64 start = ktime_get_ns();
	s64 ret;

	for (done = 0; done < total; done += n) {
		for (i = 0; i < n; i++) {
			bench_objs[i] = alloc(cache);
			if (unlikely(!bench_objs[i]))
				goto fail;
		}
		for (i = 0; i < n; i++)
			free(cache, bench_objs[i]);
	}
	ret = ktime_get_ns() - start;
	cond_resched();
	return ret;
fail:
	while (i--)
		free(cache, bench_objs[i]);
	return -ENOMEM;
}

static __always_inline void *kmem_alloc_one(void *cache)
{
	return kmem_cache_alloc(cache, GFP_KERNEL);
}

static __always_inline void kmem_free_one(void *cache, void *obj)
{
	kmem_cache_free(cache, obj);
}

static __always_inline void *slabx_alloc_one(void *cache)
{
	return slabx_alloc(cache, GFP_KERNEL);
}

static __always_inline void slabx_free_one(void *cache, void *obj)
{
	slabx_free(cache, obj);
}

/*
 * The floor, the cost no allocator can beat: a per-CPU array of free
 * objects, popped and pushed with preemption off. The objects are never
 * touched (an allocator's fast path does not touch them either); a pop
 * from an empty array (after a migration) hands out a spare, a push into
 * a full one drops the object, so a round never fails.
 */
struct bench_floor {
	unsigned int nr;
	void *objs[BENCH_MAX_BATCH];
};

/* Allocated: a module's static per-CPU area is too small for 8 KiB. */
static struct bench_floor __percpu *bench_floor;
static u8 bench_floor_objs[BENCH_MAX_BATCH][64];

static __always_inline void *floor_alloc_one(void *cache)
{
	struct bench_floor *f;
	void *obj = bench_floor_objs[0];

	preempt_disable();
	f = this_cpu_ptr(bench_floor);
	if (likely(f->nr))
		obj = f->objs[--f->nr];
	preempt_enable();
	return obj;
}

static __always_inline void floor_free_one(void *cache, void *obj)
{
	struct bench_floor *f;

	preempt_disable();
	f = this_cpu_ptr(bench_floor);
	if (likely(f->nr < BENCH_MAX_BATCH))
		f->objs[f->nr++] = obj;
	preempt_enable();
}

static int bench_floor_fill(void)
{
	unsigned int cpu, i;

	bench_floor = alloc_percpu(struct bench_floor);
	if (!bench_floor)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct bench_floor *f = per_cpu_ptr(bench_floor, cpu);

		for (i = 0; i < BENCH_MAX_BATCH; i++)
			f->objs[i] = bench_floor_objs[i];
		f->nr = BENCH_MAX_BATCH;
	}
	return 0;
}

static noinline __bench_page(kmem) __aligned(PAGE_SIZE) s64
bench_round_kmem(void *cache, unsigned int batch, unsigned int total)
{
	return bench_round(kmem_alloc_one, kmem_free_one, cache, batch, total);
}

static noinline __bench_page(slabx) __aligned(PAGE_SIZE) s64
bench_round_slabx(void *cache, unsigned int batch, unsigned int total)
{
	return bench_round(slabx_alloc_one, slabx_free_one, cache, batch,
			   total);
}

static noinline __bench_page(floor) __aligned(PAGE_SIZE) s64
bench_round_floor(void *cache, unsigned int batch, unsigned int total)
{
	return bench_round(floor_alloc_one, floor_free_one, cache, batch,
			   total);
}

/*
 * kmalloc() against slabx_kmalloc(), of the size passed as the "cache"
 * (each frees without a size).
 */
static __always_inline void *kmalloc_one(void *size)
{
	return kmalloc((unsigned long)size, GFP_KERNEL);
}

static __always_inline void kfree_one(void *size, void *obj)
{
	kfree(obj);
}

static __always_inline void *slabx_kmalloc_one(void *size)
{
	return slabx_kmalloc((unsigned long)size, GFP_KERNEL);
}

static __always_inline void slabx_kfree_one(void *size, void *obj)
{
	slabx_kfree(obj);
}

static noinline __bench_page(kmalloc) __aligned(PAGE_SIZE) s64
bench_round_kmalloc(void *size, unsigned int batch, unsigned int total)
{
	return bench_round(kmalloc_one, kfree_one, size, batch, total);
}

static noinline __bench_page(slabx_kmalloc) __aligned(PAGE_SIZE) s64
bench_round_slabx_kmalloc(void *size, unsigned int batch, unsigned int total)
{
	return bench_round(slabx_kmalloc_one, slabx_kfree_one, size, batch,
			   total);
}

/* What is timed, kernel first: index 0, 1 and 2 below. */
enum { BENCH_KMEM, BENCH_SLABX, BENCH_FLOOR, BENCH_NR };

/*
 * mempool_alloc() of a kmem_cache mempool against slabx_alloc_reserved()
 * through a reservation, the "cache" being the pool or the reservation.
 */
static __always_inline void *mempool_alloc_one(void *pool)
{
	return mempool_alloc(pool, GFP_KERNEL);
}

static __always_inline void mempool_free_one(void *pool, void *obj)
{
	mempool_free(obj, pool);
}

static __always_inline void *reserved_alloc_one(void *res)
{
	return slabx_alloc_reserved(res, GFP_KERNEL);
}

static __always_inline void reserved_free_one(void *res, void *obj)
{
	slabx_free_reserved(res, obj);
}

static noinline __bench_page(mempool) __aligned(PAGE_SIZE) s64
bench_round_mempool(void *pool, unsigned int batch, unsigned int total)
{
	return bench_round(mempool_alloc_one, mempool_free_one, pool, batch,
			   total);
}

static noinline __bench_page(reserved) __aligned(PAGE_SIZE) s64
bench_round_reserved(void *res, unsigned int batch, unsigned int total)
{
	return bench_round(reserved_alloc_one, reserved_free_one, res, batch,
			   total);
}

typedef s64 (*bench_round_t)(void *, unsigned int, unsigned int);

static const bench_round_t bench_rounds[BENCH_NR] = {
	bench_round_kmem, bench_round_slabx, bench_round_floor,
};

static const bench_round_t bench_kmalloc_rounds[BENCH_NR] = {
	bench_round_kmalloc, bench_round_slabx_kmalloc, bench_round_floor,
};

static const bench_round_t bench_reserve_rounds[BENCH_NR] = {
	bench_round_mempool, bench_round_reserved, bench_round_floor,
};

/* Best ns per object, in thousandths of a ns, of each of @fn. */
static int bench_pattern(const bench_round_t fn[BENCH_NR], void *caches[2],
			 unsigned int batch, u64 best[BENCH_NR])
{
	unsigned int r, k, total = rounddown(ops, batch ? batch : 1);
	s64 t;

	/* Warm up: slabs, sheaves and per-CPU caches of all. */
	for (k = 0; k < BENCH_NR; k++)
		if (fn[k](k < 2 ? caches[k] : NULL, batch, total) < 0)
			return -ENOMEM;
	for (k = 0; k < BENCH_NR; k++)
		best[k] = U64_MAX;
	for (r = 0; r < rounds; r++) {
		for (k = 0; k < BENCH_NR; k++) {
			t = fn[k](k < 2 ? caches[k] : NULL, batch, total);
			if (t < 0)
				return -ENOMEM;
			best[k] = min_t(u64, best[k], div_u64(t * 1000ULL, total));
		}
	}
	return 0;
}

/* @a / @b, in thousandths. */
static u64 bench_ratio(u64 a, u64 b)
{
	return div64_u64(a * 1000, max_t(u64, b, 1));
}

/*
 * Two figures and their ratio, then against the floor when there is one;
 * @peer names the kernel's allocator.
 */
static void bench_print_peer(unsigned int size, const char *pattern,
			     const char *peer, const u64 *best, bool floor)
{
	u64 ratio = bench_ratio(best[BENCH_SLABX], best[BENCH_KMEM]);
	u64 sf, kf;
	char tail[128] = "";

	if (floor) {
		sf = bench_ratio(best[BENCH_SLABX], best[BENCH_FLOOR]);
		kf = bench_ratio(best[BENCH_KMEM], best[BENCH_FLOOR]);
		snprintf(tail, sizeof(tail),
			 "  floor %llu.%02llu ns  slabx/floor %llu.%02llu  %s/floor %llu.%02llu",
			 best[2] / 1000, best[2] % 1000 / 10, sf / 1000,
			 sf % 1000 / 10, peer, kf / 1000, kf % 1000 / 10);
	}
	pr_info("size %4u %-9s %s %4llu.%02llu ns  slabx %4llu.%02llu ns  ratio %llu.%03llu%s\n",
		size, pattern, peer, best[0] / 1000, best[0] % 1000 / 10,
		best[1] / 1000, best[1] % 1000 / 10, ratio / 1000, ratio % 1000,
		tail);
}

static void bench_print(unsigned int size, const char *pattern,
			const u64 *best, bool floor)
{
	bench_print_peer(size, pattern, "kmem_cache", best, floor);
}

/* A kmem_cache object that kfree_rcu() can free. */
struct bench_rcu_obj {
	struct rcu_head rcu;
};

#ifdef SLABX_HAVE_KVFREE_RCU_BARRIER
/* One allocator's results of the free_rcu pattern. */
struct rcu_result {
	u64 ns;			/* best ns per free, in thousandths */
	u64 reuse_us;		/* best time until all is free again */
	unsigned long peak;	/* most pages held above the start */
};

static noinline u64 free_rcu_kmem(void *cache, unsigned int n)
{
	u64 start = ktime_get_ns();
	unsigned int i;

	for (i = 0; i < n; i++)
		kfree_rcu((struct bench_rcu_obj *)bench_objs[i], rcu);
	return ktime_get_ns() - start;
}

static noinline u64 free_rcu_slabx(void *cache, unsigned int n)
{
	u64 start = ktime_get_ns();
	unsigned int i;

	for (i = 0; i < n; i++)
		slabx_free_rcu(cache, bench_objs[i]);
	return ktime_get_ns() - start;
}

/* The same loop with slabx_free(): what slabx_free_rcu() adds to a free. */
static noinline u64 free_plain_slabx(void *cache, unsigned int n)
{
	u64 start = ktime_get_ns();
	unsigned int i;

	for (i = 0; i < n; i++)
		slabx_free(cache, bench_objs[i]);
	return ktime_get_ns() - start;
}

static unsigned long kmem_pages(void *cache)
{
	return global_node_page_state_pages(NR_SLAB_UNRECLAIMABLE_B);
}

static unsigned long slabx_pages(void *cache)
{
	struct slabx_info info;

	slabx_cache_info(cache, &info);
	return info.slabs << info.order;
}

static void kmem_barrier(void *cache)
{
	kvfree_rcu_barrier();
}

static void slabx_barrier(void *cache)
{
	slabx_rcu_barrier(cache);
}

static void no_barrier(void *cache)
{
}

static void *kmem_alloc_any(void *cache)
{
	return kmem_cache_alloc(cache, GFP_KERNEL);
}

static void *slabx_alloc_any(void *cache)
{
	return slabx_alloc(cache, GFP_KERNEL);
}

struct rcu_ops {
	void *(*alloc)(void *cache);
	u64 (*free_rcu)(void *cache, unsigned int n);
	unsigned long (*pages)(void *cache);
	void (*wait_all)(void *cache);
};

/* kfree_rcu(), slabx_free_rcu(), and slabx_free() of the same objects. */
static const struct rcu_ops bench_rcu_ops[3] = {
	{ kmem_alloc_any, free_rcu_kmem, kmem_pages, kmem_barrier },
	{ slabx_alloc_any, free_rcu_slabx, slabx_pages, slabx_barrier },
	{ slabx_alloc_any, free_plain_slabx, slabx_pages, no_barrier },
};

/* One round: @total objects allocated and freed by RCU, 1024 at a time. */
static int rcu_round(const struct rcu_ops *o, void *cache, unsigned int total,
		     struct rcu_result *res)
{
	unsigned long base = o->pages(cache), pages;
	unsigned int done, i;
	u64 ns = 0, start;

	for (done = 0; done < total; done += BENCH_MAX_BATCH) {
		for (i = 0; i < BENCH_MAX_BATCH; i++) {
			bench_objs[i] = o->alloc(cache);
			if (!bench_objs[i])
				goto fail;
		}
		ns += o->free_rcu(cache, BENCH_MAX_BATCH);
		pages = o->pages(cache);
		if (pages > base)
			res->peak = max(res->peak, pages - base);
		cond_resched();
	}
	start = ktime_get_ns();
	o->wait_all(cache);
	res->reuse_us = min(res->reuse_us, (ktime_get_ns() - start) / 1000);
	res->ns = min(res->ns, div_u64(ns * 1000ULL, total));
	return 0;
fail:
	/* Not a pattern failure to hide: give back what we hold, report. */
	o->free_rcu(cache, i);
	o->wait_all(cache);
	return -ENOMEM;
}

/*
 * The slabx cache's counters that the free_rcu rounds report, in this
 * order: frees, call_rcu()s, sheaves allocated, of those large rcu_free
 * sheaves, rcu_free sheaves kept in a barn after their grace period, barn
 * sheaves filled from large ones, and rcu_free sheaves flushed.
 */
static const enum slabx_stat_item rcu_counted[] = {
	SLABX_FREE_RCU, SLABX_RCU_CALL, SLABX_SHEAF_ALLOC,
	SLABX_RCU_SHEAF_LARGE, SLABX_RCU_SHEAF_TO_BARN, SLABX_RCU_SHEAF_SPLIT,
	SLABX_RCU_SHEAF_FLUSHED,
};

static void rcu_count(void *cache, unsigned long *c, bool end)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rcu_counted); i++) {
		unsigned long v = slabx_cache_stat(cache, rcu_counted[i]);

		c[i] = end ? v - c[i] : v;
	}
}

static void rcu_print(unsigned int size, const struct rcu_result r[3],
		      const unsigned long *c)
{
	u64 ratio = div64_u64(r[1].ns * 1000, max_t(u64, r[0].ns, 1));
	u64 plain = div64_u64(r[1].ns * 1000, max_t(u64, r[2].ns, 1));

	pr_info("size %4u free_rcu  kfree_rcu %4llu.%02llu ns  slabx %4llu.%02llu ns  ratio %llu.%03llu\n",
		size, r[0].ns / 1000, r[0].ns % 1000 / 10, r[1].ns / 1000,
		r[1].ns % 1000 / 10, ratio / 1000, ratio % 1000);
	pr_info("size %4u free_rcu  peak pages kfree_rcu %lu slabx %lu; reusable after kfree_rcu %llu us slabx %llu us; slabx call_rcu per 1000 frees %lu\n",
		size, r[0].peak, r[1].peak, r[0].reuse_us, r[1].reuse_us,
		c[0] ? c[1] * 1000 / c[0] : 0);
	pr_info("size %4u free_rcu  slabx over %lu frees: %lu sheaves allocated, %lu of them large; after the grace period %lu kept in a barn, %lu barn sheaves filled from large ones, %lu flushed to the slabs\n",
		size, c[0], c[2], c[3], c[4], c[5], c[6]);
	pr_info("size %4u free_rcu  slabx_free %4llu.%02llu ns  slabx_free_rcu %4llu.%02llu ns  rcu/plain %llu.%03llu\n",
		size, r[2].ns / 1000, r[2].ns % 1000 / 10, r[1].ns / 1000,
		r[1].ns % 1000 / 10, plain / 1000, plain % 1000);
}

/* slabx_free_rcu() against kfree_rcu(), alternating rounds. */
static int bench_rcu(void *caches[2], unsigned int size)
{
	unsigned int total = max_t(unsigned int,
				   rounddown(ops, BENCH_MAX_BATCH),
				   BENCH_MAX_BATCH);
	unsigned long c[ARRAY_SIZE(rcu_counted)];
	struct rcu_result r[ARRAY_SIZE(bench_rcu_ops)];
	unsigned int round, k;
	int ret;

	for (k = 0; k < ARRAY_SIZE(r); k++)
		r[k] = (struct rcu_result){ .ns = U64_MAX, .reuse_us = U64_MAX };
	rcu_count(caches[1], c, false);
	for (round = 0; round < rounds * 2; round++) {
		ret = rcu_round(&bench_rcu_ops[round & 1], caches[round & 1],
				total, &r[round & 1]);
		if (ret)
			return ret;
	}
	rcu_count(caches[1], c, true);
	/*
	 * The plain frees last: between the others they would leave the
	 * barn full where slabx_free_rcu() finds the empty sheaves it needs.
	 */
	for (round = 0; round < rounds; round++) {
		ret = rcu_round(&bench_rcu_ops[2], caches[1], total, &r[2]);
		if (ret)
			return ret;
	}
	rcu_print(size, r, c);
	return 0;
}
#else
/*
 * Without kvfree_rcu_barrier() (6.12+) nothing waits for the objects of
 * kfree_rcu() in flight, and their cache could not be destroyed after.
 */
static int bench_rcu(void *caches[2], unsigned int size)
{
	pr_info("size %4u free_rcu  skipped: no kvfree_rcu_barrier() in this kernel (6.12+)\n",
		size);
	return 0;
}
#endif

/* ---- destroy with frees in flight ------------------------------------------ */

#ifdef SLABX_HAVE_KVFREE_RCU_BARRIER
/* Objects of the destroyed cache still waiting for their grace period. */
#define DESTROY_PENDING		256

/* Rounds per destroy figure: each destroy waits for grace periods. */
#define DESTROY_ROUNDS		5

/* One allocator's destroy: its cache type, calls and barrier. */
struct destroy_ops {
	void *(*create)(unsigned int size);
	void *(*alloc)(void *cache);
	void (*free_rcu)(void *cache, void *obj);
	void (*destroy)(void *cache);
	void (*wait_all)(void *cache);
};

static void *destroy_create_kmem(unsigned int size)
{
	return kmem_cache_create("slabx_bench_destroy", size, 0, 0, NULL);
}

static void *destroy_create_slabx(unsigned int size)
{
	return slabx_cache_create("bench-destroy", size, NULL);
}

static void kmem_free_rcu_one(void *cache, void *obj)
{
	kfree_rcu((struct bench_rcu_obj *)obj, rcu);
}

static void slabx_free_rcu_one(void *cache, void *obj)
{
	slabx_free_rcu(cache, obj);
}

static void destroy_kmem(void *cache)
{
	kmem_cache_destroy(cache);
}

static void destroy_slabx(void *cache)
{
	slabx_cache_destroy(cache);
}

static const struct destroy_ops bench_destroy_ops[2] = {
	{ destroy_create_kmem, kmem_alloc_any, kmem_free_rcu_one,
	  destroy_kmem, kmem_barrier },
	{ destroy_create_slabx, slabx_alloc_any, slabx_free_rcu_one,
	  destroy_slabx, slabx_barrier },
};

/* Allocate @n objects of @cache and free them by RCU; 0 or -ENOMEM. */
static int destroy_free_rcu_n(const struct destroy_ops *o, void *cache,
			      unsigned int n)
{
	unsigned int i, got;

	for (got = 0; got < n; got++) {
		bench_objs[got] = o->alloc(cache);
		if (!bench_objs[got])
			break;
	}
	for (i = 0; i < got; i++)
		o->free_rcu(cache, bench_objs[i]);
	return got == n ? 0 : -ENOMEM;
}

/*
 * One round: a new cache with DESTROY_PENDING objects freed by RCU just
 * before its destroy, which is timed; with @backlog, @other (a cache of
 * the same allocator) has BENCH_MAX_BATCH objects of its own in flight.
 */
static int destroy_round(const struct destroy_ops *o, void *other,
			 unsigned int size, bool backlog, u64 *best)
{
	void *cache = o->create(size);
	int ret;
	u64 start;

	if (!cache)
		return -ENOMEM;
	ret = backlog ? destroy_free_rcu_n(o, other, BENCH_MAX_BATCH) : 0;
	if (!ret)
		ret = destroy_free_rcu_n(o, cache, DESTROY_PENDING);
	start = ktime_get_ns();
	o->destroy(cache);
	*best = min(*best, ktime_get_ns() - start);
	o->wait_all(other);
	return ret;
}

/*
 * How long a destroy waits for its cache's objects freed by RCU:
 * kmem_cache_destroy() waits for every kfree_rcu() of the system
 * (kvfree_rcu_barrier()), slabx_cache_destroy() for its own cache's only.
 */
static int bench_destroy(void *caches[2], unsigned int size)
{
	unsigned int round, backlog;
	int ret;

	for (backlog = 0; backlog < 2; backlog++) {
		u64 best[2] = { U64_MAX, U64_MAX }, ratio;

		for (round = 0; round < DESTROY_ROUNDS * 2; round++) {
			ret = destroy_round(&bench_destroy_ops[round & 1],
					    caches[round & 1], size, backlog,
					    &best[round & 1]);
			if (ret)
				return ret;
		}
		ratio = div64_u64(best[1] * 1000, max_t(u64, best[0], 1));
		pr_info("size %4u %-15s kmem_cache %llu us  slabx %llu us  ratio %llu.%03llu\n",
			size, backlog ? "destroy+backlog" : "destroy",
			div_u64(best[0], 1000), div_u64(best[1], 1000),
			ratio / 1000, ratio % 1000);
	}
	return 0;
}
#else
static int bench_destroy(void *caches[2], unsigned int size)
{
	pr_info("size %4u destroy skipped: no kvfree_rcu_barrier() in this kernel (6.12+)\n",
		size);
	return 0;
}
#endif

/* ---- every CPU at once ---------------------------------------------------- */

/* One thread of an all-CPUs round, bound to its CPU. */
struct mt_thread {
	s64 (*round)(void *cache, unsigned int total);
	void *cache;
	unsigned int total;
	struct completion *go;
	struct completion done;
	s64 ns;
};

static __always_inline s64 mt_pairs(void *(*alloc)(void *cache),
				    void (*free)(void *cache, void *obj),
				    void *cache, unsigned int total)
{
	u64 start = ktime_get_ns();
	unsigned int i;
	void *obj;

	for (i = 0; i < total; i++) {
		obj = alloc(cache);
		if (unlikely(!obj))
			return -ENOMEM;
		free(cache, obj);
	}
	return ktime_get_ns() - start;
}

static noinline s64 mt_pairs_kmem(void *cache, unsigned int total)
{
	return mt_pairs(kmem_alloc_one, kmem_free_one, cache, total);
}

static noinline s64 mt_pairs_slabx(void *cache, unsigned int total)
{
	return mt_pairs(slabx_alloc_one, slabx_free_one, cache, total);
}

static int mt_thread_fn(void *arg)
{
	struct mt_thread *t = arg;

	wait_for_completion(t->go);
	t->ns = t->round(t->cache, t->total);
	complete(&t->done);
	return 0;
}

/*
 * Hot pairs on every online CPU at once, started together: the time of
 * the round is the slowest CPU's. Return: ns, or a negative error.
 */
static s64 mt_round(struct mt_thread *threads, unsigned int nr,
		    s64 (*round)(void *, unsigned int), void *cache)
{
	DECLARE_COMPLETION_ONSTACK(go);
	struct task_struct *task;
	unsigned int i = 0, cpu, started;
	s64 worst = 0;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		if (i == nr)
			break;
		threads[i] = (struct mt_thread){ .round = round, .cache = cache,
						 .total = ops, .go = &go };
		init_completion(&threads[i].done);
		task = kthread_create_on_cpu(mt_thread_fn, &threads[i], cpu,
					     "slabx_bench/%u");
		if (IS_ERR(task)) {
			worst = PTR_ERR(task);
			break;
		}
		wake_up_process(task);
		i++;
	}
	cpus_read_unlock();
	started = i;
	complete_all(&go);
	for (i = 0; i < started; i++) {
		wait_for_completion(&threads[i].done);
		if (worst >= 0)
			worst = threads[i].ns < 0 ? threads[i].ns :
				max(worst, threads[i].ns);
	}
	return worst;
}

/* The hot pair on all CPUs: slabx against the kernel, in Mpairs/s. */
static int bench_all_cpus(void *caches[2], unsigned int size)
{
	static s64 (* const mt_rounds[2])(void *, unsigned int) = {
		mt_pairs_kmem, mt_pairs_slabx,
	};
	unsigned int nr = num_online_cpus(), r, k;
	struct mt_thread *threads;
	u64 best[2] = { U64_MAX, U64_MAX }, rate[2], ratio;
	s64 ns;

	threads = kcalloc(nr, sizeof(*threads), GFP_KERNEL);
	if (!threads)
		return -ENOMEM;
	for (r = 0; r <= rounds; r++) {	/* round 0 warms up */
		for (k = 0; k < 2; k++) {
			ns = mt_round(threads, nr, mt_rounds[k], caches[k]);
			if (ns < 0) {
				kfree(threads);
				return ns;
			}
			if (r)
				best[k] = min_t(u64, best[k], ns);
		}
	}
	kfree(threads);
	/* Pairs per us: millions per second, in hundredths. */
	for (k = 0; k < 2; k++)
		rate[k] = div64_u64((u64)ops * nr * 100000, max_t(u64, best[k], 1));
	ratio = bench_ratio(best[BENCH_SLABX], best[BENCH_KMEM]);
	pr_info("size %4u allcpus   %u CPUs kmem_cache %llu.%02llu Mpairs/s  slabx %llu.%02llu Mpairs/s  ratio %llu.%03llu\n",
		size, nr, rate[0] / 100, rate[0] % 100, rate[1] / 100,
		rate[1] % 100, ratio / 1000, ratio % 1000);
	return 0;
}

static const unsigned int bench_batches[] = { 0, 1, 32, BENCH_MAX_BATCH };

/* kmalloc() against slabx_kmalloc() of @size: the hot pair and 32-then-32. */
static int bench_kmalloc(unsigned int size)
{
	void *sizes[2] = { (void *)(unsigned long)size,
			   (void *)(unsigned long)size };
	static const unsigned int batches[] = { 0, 32 };
	static const char * const names[] = { "kmalloc", "kmalloc32" };
	u64 best[BENCH_NR];
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(batches); i++) {
		ret = bench_pattern(bench_kmalloc_rounds, sizes, batches[i],
				    best);
		if (ret)
			return ret;
		bench_print_peer(size, names[i], "kmalloc", best, true);
	}
	return 0;
}

#define BENCH_POOLS		100
#define BENCH_POOL_MIN		16

/*
 * Bytes a mempool of objects of @cache holds: itself, its array, its
 * elements (by their size in the cache: they are poisoned for KASAN while
 * in the pool, so ksize() may not look at them).
 */
static size_t mempool_bytes(mempool_t *pool, struct kmem_cache *cache)
{
	return ksize(pool) + ksize(pool->elements) +
	       (size_t)pool->curr_nr * kmem_cache_size(cache);
}

/*
 * Memory held by 100 mempools of 16 objects of a kmem_cache against 100
 * reservations of 16 of a slabx cache: the objects (by their size in the
 * cache) and what holds them.
 */
static int bench_reserve_memory(void *caches[2], unsigned int size)
{
	struct slabx_reservation **res;
	mempool_t **pools;
	struct slabx_info before, after;
	size_t kbytes = 0, sbytes;
	int i, ret = -ENOMEM;

	pools = kcalloc(BENCH_POOLS, sizeof(*pools), GFP_KERNEL);
	res = kcalloc(BENCH_POOLS, sizeof(*res), GFP_KERNEL);
	if (!pools || !res)
		goto out;
	slabx_cache_info(caches[1], &before);
	for (i = 0; i < BENCH_POOLS; i++) {
		pools[i] = mempool_create_slab_pool(BENCH_POOL_MIN, caches[0]);
		res[i] = slabx_reserve(caches[1], BENCH_POOL_MIN, GFP_KERNEL);
		if (!pools[i] || !res[i])
			goto out;
		kbytes += mempool_bytes(pools[i], caches[0]);
	}
	slabx_cache_info(caches[1], &after);
	sbytes = after.reserve_bytes - before.reserve_bytes;
	pr_info("size %4u reserve memory: %u x %u objects: mempool %zu B  slabx %zu B  ratio %llu.%03llu\n",
		size, BENCH_POOLS, BENCH_POOL_MIN, kbytes, sbytes,
		bench_ratio(sbytes, kbytes) / 1000,
		bench_ratio(sbytes, kbytes) % 1000);
	ret = 0;
out:
	for (i = 0; pools && res && i < BENCH_POOLS; i++) {
		mempool_destroy(pools[i]);
		slabx_unreserve(res[i]);
	}
	kfree(res);
	kfree(pools);
	return ret;
}

/* Reserved allocations against mempool_alloc(), memory plentiful. */
static int bench_reserve(void *caches[2], unsigned int size)
{
	static const unsigned int batches[] = { 0, 32 };
	static const char * const names[] = { "reserve", "reserve32" };
	void *pools[2];
	u64 best[BENCH_NR];
	unsigned int i;
	int ret = -ENOMEM;

	pools[0] = mempool_create_slab_pool(BENCH_POOL_MIN, caches[0]);
	pools[1] = slabx_reserve(caches[1], BENCH_POOL_MIN, GFP_KERNEL);
	if (!pools[0] || !pools[1])
		goto out;
	for (i = 0; i < ARRAY_SIZE(batches); i++) {
		ret = bench_pattern(bench_reserve_rounds, pools, batches[i],
				    best);
		if (ret)
			goto out;
		bench_print_peer(size, names[i], "mempool", best, true);
	}
	ret = bench_reserve_memory(caches, size);
out:
	mempool_destroy(pools[0]);
	slabx_unreserve(pools[1]);
	return ret;
}

/* Reserve sizes of the scaling rows: from a mempool's to the limit. */
static const unsigned int bench_reserve_sizes[] = { 16, 1024, 65536, 1048576 };
#define BENCH_RESERVE_PAIRS	4096

/* Take every free object @s has, linked through themselves; Return: the list. */
static void **bench_drain(struct slabx_cache *s)
{
	void **list = NULL, **obj;

	while ((obj = slabx_alloc(s, GFP_NOWAIT | __GFP_NOWARN))) {
		*obj = list;
		list = obj;
	}
	return list;
}

static void bench_undrain(struct slabx_cache *s, void **list)
{
	void **next;

	for (; list; list = next) {
		next = *list;
		slabx_free(s, list);
	}
}

/*
 * Best of @rounds: ns per take from the reserve and put back, with the
 * page allocator failing and the cache drained, so that every
 * slabx_alloc_reserved() takes from the reserve and every
 * slabx_free_reserved() gives its share back into it.
 */
static s64 bench_reserve_take_put(struct slabx_reservation *res)
{
	s64 best = S64_MAX, t;
	unsigned int r, i;
	void *obj;

	for (r = 0; r < rounds; r++) {
		t = ktime_get_ns();
		for (i = 0; i < BENCH_RESERVE_PAIRS; i++) {
			obj = slabx_alloc_reserved(res, GFP_NOWAIT);
			if (!obj)
				return -ENOMEM;
			slabx_free_reserved(res, obj);
		}
		best = min(best, ktime_get_ns() - t);
	}
	return best / BENCH_RESERVE_PAIRS;
}

/* One row: reserve and release @nr objects, and the take/put cost between. */
static int bench_reserve_one(struct slabx_cache *s, unsigned int nr,
			     s64 *fill, s64 *pair)
{
	struct slabx_reservation *res;
	void **drained;
	s64 t;

	t = ktime_get_ns();
	res = slabx_reserve(s, nr, GFP_KERNEL);
	if (!res)
		return -ENOMEM;
	slabx_unreserve(res);
	*fill = (ktime_get_ns() - t) / nr;

	res = slabx_reserve(s, nr, GFP_KERNEL);
	if (!res)
		return -ENOMEM;
	slabx_fault_inject_pages(-1);
	drained = bench_drain(s);
	*pair = bench_reserve_take_put(res);
	slabx_fault_inject_pages(0);
	bench_undrain(s, drained);
	slabx_unreserve(res);
	return *pair < 0 ? (int)*pair : 0;
}

/*
 * The reserve's cost against its size, 64 B objects: a reservation made
 * and released, per object, and a take from the reserve and a put back,
 * per pair, from 16 to 2^20 reserved objects. O(1) operations give the
 * same figures at every size; the last line has the largest over the
 * smallest.
 */
static int bench_reserve_scaling(void)
{
	s64 fill[ARRAY_SIZE(bench_reserve_sizes)];
	s64 pair[ARRAY_SIZE(bench_reserve_sizes)];
	unsigned int i, last = ARRAY_SIZE(bench_reserve_sizes) - 1;
	struct slabx_cache *s;
	int ret = 0;

	s = slabx_cache_create("bench-reserve", 64, NULL);
	if (!s)
		return -ENOMEM;
	for (i = 0; i <= last && !ret; i++) {
		ret = bench_reserve_one(s, bench_reserve_sizes[i], &fill[i],
					&pair[i]);
		if (!ret)
			pr_info("reserve scaling %7u objects: reserve+unreserve %lld ns/object  take+put %lld ns\n",
				bench_reserve_sizes[i], fill[i], pair[i]);
	}
	if (!ret)
		pr_info("reserve scaling: %u/%u objects: take+put ratio %llu.%03llu  reserve+unreserve ratio %llu.%03llu\n",
			bench_reserve_sizes[last], bench_reserve_sizes[0],
			bench_ratio(pair[last], pair[0]) / 1000,
			bench_ratio(pair[last], pair[0]) % 1000,
			bench_ratio(fill[last], fill[0]) / 1000,
			bench_ratio(fill[last], fill[0]) % 1000);
	slabx_cache_destroy(s);
	return ret;
}

/* ---- GFP_NOWAIT under memory pressure --------------------------------------- */

/*
 * GFP_NOWAIT as callers pass it: with __GFP_NOWARN, which it implies
 * since 6.18 (and in Debian's 6.12). Before, SLUB warns when a new slab
 * cannot be had (allocate_slab() retries the minimum order with the
 * caller's flags as they came), as on 6.1: __GFP_NOWARN for both.
 */
#define NOWAIT_GFP		(GFP_NOWAIT | __GFP_NOWARN)
/* Pages pinned as a GFP_NOWAIT caller takes them, down to the min watermark. */
#define NOWAIT_PIN_GFP		(GFP_NOWAIT | __GFP_NOWARN | __GFP_NORETRY)
#define NOWAIT_PIN_MAX_ORDER	9
/* Objects allocated (and freed) into each cache before the pages are pinned. */
#define NOWAIT_WARM		4096
/* Most objects a fill takes; the calls timed after its first NULL. */
#define NOWAIT_FILL_MAX		16384
#define NOWAIT_NULLS		64

static __always_inline void *kmem_nowait_one(void *cache)
{
	return kmem_cache_alloc(cache, NOWAIT_GFP);
}

static __always_inline void *slabx_nowait_one(void *cache)
{
	return slabx_alloc(cache, NOWAIT_GFP);
}

static noinline __bench_page(kmem_nowait) __aligned(PAGE_SIZE) s64
bench_round_kmem_nowait(void *cache, unsigned int batch, unsigned int total)
{
	return bench_round(kmem_nowait_one, kmem_free_one, cache, batch, total);
}

static noinline __bench_page(slabx_nowait) __aligned(PAGE_SIZE) s64
bench_round_slabx_nowait(void *cache, unsigned int batch, unsigned int total)
{
	return bench_round(slabx_nowait_one, slabx_free_one, cache, batch,
			   total);
}

static const bench_round_t bench_nowait_rounds[BENCH_NR] = {
	bench_round_kmem_nowait, bench_round_slabx_nowait, bench_round_floor,
};

/* Every page a GFP_NOWAIT caller could get, on a list; order in ->private. */
static unsigned long nowait_pin(struct list_head *pages)
{
	unsigned long nr = 0;
	struct page *page;
	int order;

	for (order = NOWAIT_PIN_MAX_ORDER; order >= 0; order--)
		while ((page = alloc_pages(NOWAIT_PIN_GFP, order))) {
			set_page_private(page, order);
			list_add(&page->lru, pages);
			nr += 1UL << order;
		}
	return nr;
}

static void nowait_unpin(struct list_head *pages)
{
	struct page *page, *tmp;

	list_for_each_entry_safe(page, tmp, pages, lru) {
		unsigned int order = page_private(page);

		list_del(&page->lru);
		set_page_private(page, 0);
		__free_pages(page, order);
	}
}

struct fill_result {
	u64 ns;			/* per object got, the free of all included */
	u64 null_ns;		/* per call that got NULL after the first */
	unsigned int got;	/* objects, in the last round */
};

/*
 * Allocate until the first NULL (no refill can succeed: the pages are
 * pinned), time NOWAIT_NULLS calls more, then free everything; keep the
 * best times in @r. Return: 0, or -ENOMEM when not one object came.
 */
static __always_inline int fill_round(void *(*alloc)(void *cache),
				      void (*free)(void *cache, void *obj),
				      void *cache, void **objs,
				      struct fill_result *r)
{
	unsigned int n = 0, i, nulls = 0;
	u64 start, mid, nulls_end, end;
	void *obj;

	start = ktime_get_ns();
	while (n < NOWAIT_FILL_MAX && (objs[n] = alloc(cache)))
		n++;
	mid = ktime_get_ns();
	for (i = 0; i < NOWAIT_NULLS; i++) {
		obj = alloc(cache);
		if (!obj)
			nulls++;
		else if (n < NOWAIT_FILL_MAX)
			objs[n++] = obj;	/* memory came back meanwhile */
		else
			free(cache, obj);
	}
	nulls_end = ktime_get_ns();
	for (i = 0; i < n; i++)
		free(cache, objs[i]);
	end = ktime_get_ns();
	cond_resched();
	if (!n)
		return -ENOMEM;
	r->ns = min(r->ns, div_u64((mid - start + end - nulls_end) * 1000, n));
	if (nulls == NOWAIT_NULLS)
		r->null_ns = min(r->null_ns, div_u64((nulls_end - mid) * 1000,
						     NOWAIT_NULLS));
	r->got = n;
	return 0;
}

static noinline int fill_round_kmem(void *cache, void **objs,
				    struct fill_result *r)
{
	return fill_round(kmem_nowait_one, kmem_free_one, cache, objs, r);
}

static noinline int fill_round_slabx(void *cache, void **objs,
				     struct fill_result *r)
{
	return fill_round(slabx_nowait_one, slabx_free_one, cache, objs, r);
}

/*
 * Slabs for the fills to take from: what each keeps of objects freed;
 * then a hot pair of each (GFP_KERNEL), which leaves objects in this
 * CPU's caches. slabx's shrinker, which the pinning wakes, releases empty
 * slabs and flushes the barns, not the per-CPU sheaves: without the
 * pair, the hot pair under pressure may find nothing at hand (it did on
 * the rt kernel), and no slab to refill from.
 */
static int nowait_warm(void *caches[2], void **objs)
{
	unsigned int i;

	for (i = 0; i < NOWAIT_WARM; i++) {
		objs[i] = kmem_cache_alloc(caches[0], GFP_KERNEL);
		if (!objs[i])
			goto fail;
	}
	kmem_cache_free_bulk(caches[0], NOWAIT_WARM, objs);
	if (slabx_alloc_bulk(caches[1], GFP_KERNEL, NOWAIT_WARM, objs) !=
	    NOWAIT_WARM)
		return -ENOMEM;
	slabx_free_bulk(caches[1], NOWAIT_WARM, objs);
	if (bench_round_kmem(caches[0], 0, BENCH_MAX_BATCH) < 0 ||
	    bench_round_slabx(caches[1], 0, BENCH_MAX_BATCH) < 0)
		return -ENOMEM;
	return 0;
fail:
	kmem_cache_free_bulk(caches[0], i, objs);
	return -ENOMEM;
}

/*
 * Alternate rounds of both, as the other patterns, under pressure.
 * Return: NULL, or why a figure could not be had.
 */
static const char *nowait_measure(void *caches[2], void **objs,
				  struct list_head *pages, u64 pair[BENCH_NR],
				  struct fill_result fill[2])
{
	unsigned int r;
	int ret = 0;

	if (bench_pattern(bench_nowait_rounds, caches, 0, pair))
		return "a hot pair got NULL";
	/*
	 * Pages come back while the pages are pinned (kswapd, slabs emptied,
	 * per-CPU counters brought up to date): each fill pins them first,
	 * so that it ends where the cache's own memory ends.
	 */
	for (r = 0; r < rounds && !ret; r++) {
		nowait_pin(pages);
		ret = fill_round_kmem(caches[0], objs, &fill[0]);
		nowait_pin(pages);
		ret = ret ?: fill_round_slabx(caches[1], objs, &fill[1]);
	}
	return ret ? "a fill got no object" : NULL;
}

static void nowait_print(unsigned int size, unsigned long pinned,
			 const u64 pair[BENCH_NR],
			 const struct fill_result fill[2])
{
	u64 best[2];

	pr_info("size %4u nowait    %lu pages pinned; objects per fill kmem_cache %u slabx %u\n",
		size, pinned, fill[0].got, fill[1].got);
	bench_print(size, "nowait", pair, false);
	best[0] = fill[0].ns;
	best[1] = fill[1].ns;
	bench_print(size, "nowaitfill", best, false);
	if (fill[0].null_ns == U64_MAX || fill[1].null_ns == U64_MAX) {
		pr_info("size %4u nowaitnull not measured: pages came back in every round\n",
			size);
		return;
	}
	best[0] = fill[0].null_ns;
	best[1] = fill[1].null_ns;
	bench_print(size, "nowaitnull", best, false);
}

/*
 * GFP_NOWAIT under memory pressure: every page a GFP_NOWAIT caller could
 * get pinned, the hot pair; a fill until the first NULL, then the free of
 * all (per object); and the calls that get NULL after it (per call), what
 * a refill that cannot succeed costs. Fresh caches, warmed before.
 */
static int bench_nowait(unsigned int size)
{
	struct fill_result fill[2] = {
		{ U64_MAX, U64_MAX, 0 }, { U64_MAX, U64_MAX, 0 },
	};
	static struct cpumask allowed;
	u64 pair[BENCH_NR];
	unsigned long pinned;
	const char *failed;
	void *caches[2];
	LIST_HEAD(pages);
	void **objs;
	int ret = -ENOMEM;

	/*
	 * Generic KASAN holds SLUB's freed objects in its quarantine: no
	 * pair reuses one, each allocation needs memory the pinning took.
	 */
	if (IS_ENABLED(CONFIG_KASAN_GENERIC)) {
		pr_info("size %4u nowait    skipped: KASAN quarantines the kernel's freed objects\n",
			size);
		return 0;
	}
	objs = kvmalloc_array(NOWAIT_FILL_MAX, sizeof(*objs), GFP_KERNEL);
	if (!objs)
		return -ENOMEM;
	caches[0] = kmem_cache_create("slabx_bench_nowait", size, 0, 0, NULL);
	if (!caches[0])
		goto out;
	caches[1] = slabx_cache_create("bench_nowait", size, NULL);
	if (!caches[1]) {
		ret = -ENOMEM;
		goto out_kmem;
	}
	/*
	 * On one CPU, warmed and measured: no slab can be had once the pages
	 * are pinned, so what each cache holds must be at hand, in this
	 * CPU's caches and on its node.
	 */
	cpumask_copy(&allowed, current->cpus_ptr);
	set_cpus_allowed_ptr(current, cpumask_of(raw_smp_processor_id()));
	ret = nowait_warm(caches, objs);
	if (ret)
		goto out_cpu;
	pinned = nowait_pin(&pages);
	failed = nowait_measure(caches, objs, &pages, pair, fill);
	nowait_unpin(&pages);
	/* Not the whole benchmark's failure: a finding, and no figure. */
	if (failed)
		pr_info("size %4u nowait    skipped: %s under pressure\n", size,
			failed);
	else
		nowait_print(size, pinned, pair, fill);
out_cpu:
	set_cpus_allowed_ptr(current, &allowed);
	slabx_cache_destroy(caches[1]);
out_kmem:
	kmem_cache_destroy(caches[0]);
out:
	kvfree(objs);
	return ret;
}

static int bench_size(unsigned int size)
{
	void *caches[2];
	char pattern[16];
	unsigned int i;
	u64 best[BENCH_NR];
	int ret = 0;

	BUILD_BUG_ON(sizeof(struct bench_rcu_obj) > 64);
	caches[0] = kmem_cache_create("slabx_bench", size, 0, 0, NULL);
	if (!caches[0])
		return -ENOMEM;
	caches[1] = slabx_cache_create("bench", size, NULL);
	if (!caches[1]) {
		kmem_cache_destroy(caches[0]);
		return -ENOMEM;
	}
	for (i = 0; i < ARRAY_SIZE(bench_batches) && !ret; i++) {
		ret = bench_pattern(bench_rounds, caches, bench_batches[i],
				    best);
		if (bench_batches[i])
			snprintf(pattern, sizeof(pattern), "batch%u",
				 bench_batches[i]);
		else
			strscpy(pattern, "pair", sizeof(pattern));
		if (!ret)
			bench_print(size, pattern, best, true);
	}
	if (!ret)
		ret = bench_kmalloc(size);
	if (!ret)
		ret = bench_reserve(caches, size);
	if (!ret)
		ret = bench_all_cpus(caches, size);
	if (!ret)
		ret = bench_rcu(caches, size);
	if (!ret)
		ret = bench_destroy(caches, size);
	if (!ret)
		ret = bench_nowait(size);
	slabx_cache_destroy(caches[1]);
	kmem_cache_destroy(caches[0]);
	return ret;
}

/* ---- any-context paths ---------------------------------------------------- */

static noinline u64 pages_round_kernel(unsigned int n)
{
	u64 start = ktime_get_ns();
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct page *page = alloc_pages(GFP_ATOMIC, 0);

		if (unlikely(!page))
			return 0;
		__free_pages(page, 0);
	}
	return ktime_get_ns() - start;
}

static noinline u64 pages_round_slabx(unsigned int n)
{
	u64 start = ktime_get_ns();
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct page *page = slabx_try_alloc_pages(NUMA_NO_NODE, 0);

		if (unlikely(!page))
			return 0;
		slabx_free_pages_nolock(page, 0);
	}
	return ktime_get_ns() - start;
}

/*
 * An order-0 page allocated and freed: alloc_pages(GFP_ATOMIC) +
 * __free_pages() against slabx_try_alloc_pages() +
 * slabx_free_pages_nolock() (which zeroes every page it hands out).
 */
static int bench_pages(void)
{
	unsigned int r, n = min(ops, 100000U);
	u64 best[2] = { U64_MAX, U64_MAX }, t;

	for (r = 0; r <= rounds; r++) {	/* round 0 warms up */
		t = pages_round_kernel(n);
		if (!t)
			return -ENOMEM;
		if (r)
			best[0] = min(best[0], div_u64(t * 1000, n));
		t = pages_round_slabx(n);
		if (!t)
			return -ENOMEM;
		if (r)
			best[1] = min(best[1], div_u64(t * 1000, n));
		cond_resched();
	}
	bench_print(0, "page", best, false);
	return 0;
}

#ifdef CONFIG_X86_LOCAL_APIC

#define NMI_BENCH_NR	2000

static struct slabx_cache *nmi_bench_cache;
static atomic_t nmi_bench_pending, nmi_bench_ok, nmi_bench_null;

static int bench_nmi(unsigned int cmd, struct pt_regs *regs)
{
	void *obj;

	if (atomic_add_unless(&nmi_bench_pending, -1, 0) == 0)
		return NMI_DONE;
	obj = slabx_alloc_nolock(nmi_bench_cache, 0);
	if (obj) {
		atomic_inc(&nmi_bench_ok);
		slabx_free_nolock(nmi_bench_cache, obj);
	} else {
		atomic_inc(&nmi_bench_null);
	}
	return NMI_HANDLED;
}

/* slabx_alloc_nolock() from an NMI every 50 to 60 us. */
static int bench_nmi_rate(void)
{
	unsigned int i;
	int ret;

	nmi_bench_cache = slabx_cache_create("bench_nmi", 64, NULL);
	if (!nmi_bench_cache)
		return -ENOMEM;
	ret = register_nmi_handler(NMI_LOCAL, bench_nmi, 0, "slabx_bench");
	if (ret)
		goto out;
	for (i = 0; i < NMI_BENCH_NR; i++) {
		atomic_inc(&nmi_bench_pending);
		apic->send_IPI_self(NMI_VECTOR);
		usleep_range(50, 60);
		if (!(i % 64))
			cond_resched();
	}
	unregister_nmi_handler(NMI_LOCAL, "slabx_bench");
	pr_info("alloc_nolock from NMI: %d of %d succeeded (%d%%)\n",
		atomic_read(&nmi_bench_ok), NMI_BENCH_NR,
		atomic_read(&nmi_bench_ok) * 100 / NMI_BENCH_NR);
out:
	slabx_cache_destroy(nmi_bench_cache);
	return ret;
}

#else

static int bench_nmi_rate(void)
{
	pr_info("alloc_nolock from NMI: not measured, no local APIC NMIs here\n");
	return 0;
}

#endif

static const unsigned int bench_sizes[] = { 64, 256 };

static int __init bench_init(void)
{
	unsigned int i;
	int ret = 0;

	if (!rounds || rounds > 1000 || ops < BENCH_MAX_BATCH ||
	    ops > 100000000) {
		pr_warn("rounds must be 1..1000 and ops 1024..100000000\n");
		return -EINVAL;
	}
	bench_objs = kcalloc(BENCH_MAX_BATCH, sizeof(*bench_objs), GFP_KERNEL);
	if (!bench_objs)
		return -ENOMEM;
	ret = bench_floor_fill();
	if (ret) {
		kfree(bench_objs);
		return ret;
	}
	pr_info("%u rounds of %u objects, best round per figure, CPU %d of %u online\n",
		rounds, ops, raw_smp_processor_id(), num_online_cpus());
	for (i = 0; i < ARRAY_SIZE(bench_sizes) && !ret; i++)
		ret = bench_size(bench_sizes[i]);
	if (!ret)
		ret = bench_reserve_scaling() ?: bench_pages() ?:
		      bench_nmi_rate();
	free_percpu(bench_floor);
	kfree(bench_objs);
	if (ret)
		pr_warn("failed: %d\n", ret);
	else
		pr_info("done\n");
	return ret;
}

static void __exit bench_exit(void)
{
}

module_init(bench_init);
module_exit(bench_exit);
MODULE_IMPORT_NS(SLABX_TEST);
MODULE_DESCRIPTION("slabx microbenchmark against kmem_cache, same boot");
MODULE_LICENSE("GPL");

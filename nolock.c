// SPDX-License-Identifier: GPL-2.0
/*
 * slabx any-context objects: slabx_alloc_nolock() and slabx_free_nolock().
 *
 * Callable from any context, NMI included: they never spin on a lock and
 * never sleep. An allocation tries this CPU's sheaves under their
 * re-entrancy flag (main, a non-empty spare, a trylocked barn exchange),
 * then a trylocked take from the node's slabs, then a new slab from the
 * any-context page path (slabx_try_alloc_pages()) added under a trylocked
 * node lock; on any busy lock it fails fast with NULL. A free never fails:
 * the sheaves, or a trylocked put into the slab; else the object goes onto
 * the cache's lock-free list (linked through its free-pointer word) and an
 * irq_work frees it with slabx_free() soon after. Pool-mode caches pop and
 * push their objpool, which is NMI-safe by itself.
 *
 * On PREEMPT_RT, in NMI or hard IRQ, allocation returns NULL at once and
 * frees are always deferred: there even raw locks are not to be touched
 * by code that may have interrupted their holder on RT's terms.
 *
 * Lock order: per-CPU sheaves (flag) -> barn->lock or node->lock; here
 * only ever taken with trylock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irq_work.h>
#include <linux/llist.h>
#include <linux/module.h>
#include <linux/preempt.h>

#include "slabx_internal.h"
/* The SLABX_TEST hooks defined or used here. */
#include "tests/slabx_test_hooks.h"

static bool nolock_context_ok(void)
{
	return !IS_ENABLED(CONFIG_PREEMPT_RT) || !(in_nmi() || in_hardirq());
}

/*
 * An object of this CPU's sheaves, without taking any lock but trylocks;
 * with @nid not %NUMA_NO_NODE, only one of that node (sheaves may hold
 * another node's objects when the local node was short of memory).
 */
static void *sheaves_alloc_nolock(struct slabx_cache *s, int nid)
{
	struct slabx_cpu_sheaves *pcs = pcs_lock(s);
	struct slabx_sheaf *full;
	void *obj = NULL;

	if (!pcs)
		return NULL;
	/* Checked with the sheaves held: the task cannot migrate now. */
	if (nid != NUMA_NO_NODE && nid != numa_mem_id())
		goto out;
	if (!pcs->main->size && pcs->spare && pcs->spare->size)
		swap(pcs->main, pcs->spare);
	if (!pcs->main->size) {
		full = slabx_barn_try_exchange(slabx_local_barn(s), pcs->main);
		trace_slabx_barn_get(s, NUMA_NO_NODE, full);
		if (full)
			pcs->main = full;
	}
	if (pcs->main->size) {
		obj = pcs->main->objects[pcs->main->size - 1];
		if (nid != NUMA_NO_NODE && slabx_obj_nid(s, obj) != nid)
			obj = NULL;
		else
			slabx_sheaf_forget(pcs->main, pcs->main->size - 1);
	}
out:
	pcs_unlock(pcs);
	return obj;
}

/* Free into this CPU's sheaves with trylocks only. Return: done. */
static bool sheaves_free_nolock(struct slabx_cache *s,
				struct slabx_slab *slab, void *obj)
{
	struct slabx_cpu_sheaves *pcs = pcs_lock(s);
	struct slabx_sheaf *empty;
	bool done = false;

	if (!pcs)
		return false;
	if (slab->nid != numa_mem_id())
		goto out;
	if (pcs_suspect(pcs, obj)) {
		slabx_double_free(s, obj, true);
		done = true;
		goto out;
	}
	if (pcs->main->size == pcs->main->capacity && pcs->spare &&
	    !pcs->spare->size)
		swap(pcs->main, pcs->spare);
	if (pcs->main->size == pcs->main->capacity) {
		empty = slabx_barn_try_exchange(slabx_local_barn(s), pcs->main);
		trace_slabx_barn_put(s, NUMA_NO_NODE, empty);
		if (empty)
			pcs->main = empty;
	}
	if (pcs->main->size < pcs->main->capacity) {
		slabx_free_hook(s, obj, !in_nmi());
		pcs_push(pcs, obj);
		slabx_stat_inc(s, SLABX_FREE);
		trace_slabx_free(s, obj, slab->nid, SLABX_TRACE_NOLOCK);
		done = true;
	}
out:
	pcs_unlock(pcs);
	return done;
}

/*
 * This CPU's sheaves serve its own node: another node's objects come from
 * that node's slabs.
 */
static void *cache_alloc_nolock(struct slabx_cache *s, int nid)
{
	void *obj = NULL;

	if (slabx_cache_dead(s, "slabx_alloc_nolock()"))
		return NULL;
	if (s->pool)
		return slabx_objpool_pop(s->pool);
	if (s->sheaf_capacity)
		obj = sheaves_alloc_nolock(s, nid);
	if (nid == NUMA_NO_NODE)
		nid = numa_mem_id();
	if (!obj)
		obj = slabx_slab_trytake(s, nid);
	if (!obj)
		obj = slabx_slab_trynew(s, nid);
	return obj;
}

/**
 * slabx_alloc_nolock_node() - allocate an object from any context, on a
 *	given NUMA node
 * @s: the cache.
 * @gfp: 0 or %__GFP_ZERO; anything else is refused (pr_warn, NULL).
 * @nid: node id, or %NUMA_NO_NODE for the local node; an impossible node
 *	is refused (pr_warn, NULL).
 *
 * As slabx_alloc_nolock(), but the object is of @nid: from this CPU's
 * sheaves when @nid is the local node and they hold an object of it, else
 * from @nid's slabs with a trylock, else from a new slab of the
 * any-context page path on @nid (on kernels with alloc_pages_nolock(),
 * 6.15+, the page allocator may fall back to a nearby node there). A node
 * without memory has no slabs: NULL. A pool-mode cache takes the object
 * from its pool, wherever it lives.
 *
 * Context: any context, NMI included (on PREEMPT_RT not in NMI or hard
 * IRQ, where it returns NULL).
 * Return: the object, or NULL (counted in alloc_nolock_fail).
 */
void *slabx_alloc_nolock_node(struct slabx_cache *s, gfp_t gfp, int nid)
{
	void *obj = NULL;

	if (unlikely(gfp & ~__GFP_ZERO))
		pr_warn_ratelimited("%s: %s() with gfp %#x refused: only __GFP_ZERO\n",
				    s->name, __func__, (__force unsigned int)gfp);
	else if (unlikely(!slabx_node_valid(nid)))
		pr_warn_ratelimited("%s: %s() on invalid node %d refused\n",
				    s->name, __func__, nid);
	else if (nolock_context_ok())
		obj = cache_alloc_nolock(s, nid);
	if (!obj) {
		slabx_stat_inc(s, SLABX_ALLOC_NOLOCK_FAIL);
		return NULL;
	}
	if (s->pool) {
		slabx_pool_hand_out(s, obj, gfp);
		trace_slabx_alloc(s, obj, gfp, SLABX_TRACE_POOL);
	} else {
		slabx_alloc_hook(s, obj, gfp, false);
		trace_slabx_alloc(s, obj, gfp, SLABX_TRACE_NOLOCK);
	}
	slabx_stat_inc(s, SLABX_ALLOC_NOLOCK);
	slabx_stat_inc(s, SLABX_ALLOC);
	return obj;
}
EXPORT_SYMBOL_GPL(slabx_alloc_nolock_node);

/**
 * slabx_alloc_nolock() - allocate an object from any context
 * @s: the cache.
 * @gfp: 0 or %__GFP_ZERO; anything else is refused (pr_warn, NULL).
 *
 * Best effort: never spins on a lock and never sleeps, so it fails fast
 * with NULL when the paths it may take are busy or empty. A cache with a
 * constructor gets no new slab here (the constructor might not be
 * NMI-safe).
 *
 * Not to be called on a cache whose destroy has started (reported, NULL).
 *
 * Context: any context, NMI included (on PREEMPT_RT not in NMI or hard
 * IRQ, where it returns NULL).
 * Return: the object, or NULL (counted in alloc_nolock_fail).
 */
void *slabx_alloc_nolock(struct slabx_cache *s, gfp_t gfp)
{
	return slabx_alloc_nolock_node(s, gfp, NUMA_NO_NODE);
}
EXPORT_SYMBOL_GPL(slabx_alloc_nolock);

/*
 * Free without waiting (counted in free, or refused as a double free);
 * false when every path was busy.
 */
static bool cache_free_nolock(struct slabx_cache *s, struct slabx_slab *slab,
			      void *obj)
{
	if (!nolock_context_ok())
		return false;
	/*
	 * kmemleak cannot be told in an NMI: the object waits until the drain
	 * tells it, or it could be reallocated while kmemleak still knows it.
	 */
	if (IS_ENABLED(CONFIG_DEBUG_KMEMLEAK) && in_nmi())
		return false;
	if (s->sheaf_capacity && sheaves_free_nolock(s, slab, obj))
		return true;
	return slabx_slab_tryput(s, slab, obj);
}

/*
 * Push @obj onto the cache's deferred objects, a lock-free stack linked
 * through the objects' free-pointer words: the object is free for the
 * checkers from now on (KASAN-poisoned while it waits), and the link is
 * written without KASAN checks.
 */
static void nolock_defer(struct slabx_cache *s, void *obj)
{
	void *first = READ_ONCE(s->nolock_deferred);

	slabx_free_hook(s, obj, !in_nmi());
	do {
		slabx_fp_set(s, obj, first);
	} while (!try_cmpxchg(&s->nolock_deferred, &first, obj));
}

/**
 * slabx_free_nolock() - free an object from any context
 * @s: the cache it was allocated from.
 * @obj: the object, or NULL (nothing is done).
 *
 * Never fails and never spins: when neither this CPU's sheaves nor the
 * object's slab can be had at once, the object is deferred and freed soon
 * after by an irq_work. Refuses foreign pointers as slabx_free() does.
 * Not to be called concurrently with or after slabx_cache_destroy() of
 * @s: leaked objects go to slabx_free() then; here the object is refused
 * with a warning and stays allocated.
 *
 * Context: any context, NMI included.
 */
void slabx_free_nolock(struct slabx_cache *s, void *obj)
{
	struct slabx_slab *slab;

	if (!obj || slabx_cache_dead(s, __func__))
		return;
	slabx_stat_inc(s, SLABX_FREE_NOLOCK);
	if (s->pool) {
		slabx_pool_cache_free(s, obj);
		return;
	}
	slab = slabx_obj_slab(s, obj);
	if (!slab || !slabx_kasan_free_ok(s, obj))
		return;
	if (cache_free_nolock(s, slab, obj))
		return;
	nolock_defer(s, obj);
	slabx_stat_inc(s, SLABX_FREE_NOLOCK_DEFERRED);
	irq_work_queue(&s->nolock_work);
}
EXPORT_SYMBOL_GPL(slabx_free_nolock);

/*
 * Free the deferred objects, in a context where slabx_free() may run. Each
 * is made a live object again for an instant, so that slabx_free() takes
 * it as any other (and tells kmemleak, which an NMI could not).
 */
static void nolock_drain(struct slabx_cache *s)
{
	void *obj = xchg(&s->nolock_deferred, NULL), *next;

	for (; obj; obj = next) {
		next = slabx_fp_get(s, obj);
		slabx_kasan_unpoison(s, obj);
		slabx_free(s, obj);
		slabx_stat_inc(s, SLABX_FREE_NOLOCK_DRAINED);
	}
}

static void nolock_work_fn(struct irq_work *work)
{
	nolock_drain(container_of(work, struct slabx_cache, nolock_work));
}

/**
 * slabx_nolock_cache_init() - set up a new cache's deferred frees
 * @s: the cache.
 */
void slabx_nolock_cache_init(struct slabx_cache *s)
{
	s->nolock_deferred = NULL;
	/*
	 * Hard even on PREEMPT_RT: a lazy irq_work would wait for a per-CPU
	 * thread that is parked while its CPU is offline, holding up every
	 * deferred free of the cache and destroy's irq_work_sync(). The drain
	 * may run in hard IRQ: slabx_free() neither allocates nor frees
	 * memory there on RT (see slab_may_free_pages() in slab.c).
	 */
	s->nolock_work = IRQ_WORK_INIT_HARD(nolock_work_fn);
}

/**
 * slabx_nolock_cache_destroy() - free what is still deferred
 * @s: a cache being destroyed.
 *
 * Context: process context.
 */
void slabx_nolock_cache_destroy(struct slabx_cache *s)
{
	irq_work_sync(&s->nolock_work);
	nolock_drain(s);
}

/**
 * slabx_nolock_test_block_cache() - hold the locks of a cache's any-context
 *	paths on this CPU, for tests
 * @s: the cache, with sheaves.
 *
 * Takes this CPU's sheaves of @s, the local node's slab lock of @s and the
 * page path's locks (slabx_nolock_test_block()), as interrupted users of
 * them would hold them; slabx_nolock_test_unblock_cache() releases all.
 *
 * Context: IRQs off until slabx_nolock_test_unblock_cache().
 */
void slabx_nolock_test_block_cache(struct slabx_cache *s)
	__acquires(slabx_nolock_test_locks)
{
	pcs_lock(s);
	raw_spin_lock(&s->node[numa_mem_id()]->lock);
	slabx_nolock_test_block();
}
EXPORT_SYMBOL_NS_GPL(slabx_nolock_test_block_cache, SLABX_TEST);

/**
 * slabx_nolock_test_unblock_cache() - undo slabx_nolock_test_block_cache()
 * @s: the cache.
 */
void slabx_nolock_test_unblock_cache(struct slabx_cache *s)
	__releases(slabx_nolock_test_locks)
{
	slabx_nolock_test_unblock();
	raw_spin_unlock(&s->node[numa_mem_id()]->lock);
	pcs_unlock(this_cpu_ptr(s->cpu_sheaves));
}
EXPORT_SYMBOL_NS_GPL(slabx_nolock_test_unblock_cache, SLABX_TEST);

// SPDX-License-Identifier: GPL-2.0
/*
 * slabx: the allocation and free entry points of a cache.
 *
 * slabx_alloc() and slabx_free() serve the common case from this CPU's
 * main sheaf with the inline sheaves_alloc() and sheaves_free()
 * (slabx_internal.h), which make no call; everything else leaves the fast
 * path by a tail call: the checkers' hooks, which run here, once, outside
 * the per-CPU section, the full sheaf paths (sheaf.c) and the slab layer
 * (slab.c). The bulk calls are here too. See "One allocation" and "One
 * free" in Documentation/design.md.
 *
 * Every free that takes the slab path runs inside rcu_read_lock(): see
 * "Destroy and late frees" at the top of cache.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/export.h>
#include <linux/numa.h>
#include <linux/rcupdate.h>

#include "slabx_internal.h"

/* Objects a user gives back through the slab layer directly. */
static size_t slab_free_objects(struct slabx_cache *s, void **p, size_t nr)
{
	size_t freed = slabx_slab_free_user(s, p, nr);

	slabx_stat_add(s, SLABX_FREE_SLOWPATH, freed);
	return freed;
}

/* Objects handed to a user: see slabx_alloc_hook(). */
static void objects_hand_out(struct slabx_cache *s, gfp_t gfp, void **p,
			     size_t nr, size_t fast)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		slabx_alloc_hook(s, p[i], gfp, true);
		trace_slabx_alloc(s, p[i], gfp, i < fast ? SLABX_TRACE_SHEAF :
				  SLABX_TRACE_SLAB);
	}
}

/*
 * An object straight from the slabs, when the sheaves had none: out of
 * line, so that the fast path keeps no local in memory (nor a stack
 * canary). A failure is counted in alloc_fail when @count_fail.
 */
static noinline void *cache_alloc_slab(struct slabx_cache *s, gfp_t gfp,
				       int nid, bool count_fail)
{
	void *obj;

	if (!slabx_slab_fill(s, gfp, nid, &obj, 1)) {
		if (count_fail)
			slabx_stat_inc(s, SLABX_ALLOC_FAIL);
		return NULL;
	}
	slabx_stat_inc(s, SLABX_ALLOC_SLOWPATH);
	slabx_stat_inc(s, SLABX_ALLOC);
	return obj;
}

/*
 * Every allocation but the fast path's, complete (see cache_alloc()). A
 * failure is counted in alloc_fail when @count_fail.
 */
static noinline void *cache_alloc_full(struct slabx_cache *s, gfp_t gfp,
				       int nid, bool count_fail)
{
	enum slabx_trace_path path = SLABX_TRACE_SHEAF;
	void *obj = NULL;

	if (unlikely(!slabx_node_valid(nid))) {
		pr_warn_ratelimited("%s: allocation on invalid node %d\n",
				    s->name, nid);
		slabx_stat_inc(s, SLABX_ALLOC_FAIL);
		return NULL;
	}
	if (unlikely(s->pool))
		return slabx_cache_dead(s, "allocation") ? NULL :
		       slabx_pool_cache_alloc(s, gfp);
	if (s->sheaf_capacity)
		obj = sheaves_alloc(s, gfp, nid, true);
	if (!obj) {
		obj = cache_alloc_slab(s, gfp, nid, count_fail);
		if (!obj)
			return NULL;
		path = SLABX_TRACE_SLAB;
	}
	slabx_alloc_hook(s, obj, gfp, true);
	trace_slabx_alloc(s, obj, gfp, path);
	return obj;
}

/* An object from main for an allocation that is not plain: the hooks. */
static noinline void *cache_alloc_hooked(struct slabx_cache *s, void *obj,
					 gfp_t gfp)
{
	slabx_alloc_hook(s, obj, gfp, true);
	trace_slabx_alloc(s, obj, gfp, SLABX_TRACE_SHEAF);
	return obj;
}

/*
 * slabx_alloc(), slabx_alloc_node() and slabx_alloc_try(), inlined into
 * each: an object from main, zeroed by a tail call where init_on_alloc or
 * %__GFP_ZERO asks and given to the checkers' hook by another where one
 * runs (sheaves_alloc_plain()); else cache_alloc_full().
 */
static __always_inline void *cache_alloc(struct slabx_cache *s, gfp_t gfp,
					 int nid, bool count_fail)
{
	void *obj;

	if (likely(slabx_node_valid(nid) && !s->pool && s->sheaf_capacity)) {
		obj = sheaves_alloc(s, gfp, nid, false);
		if (likely(obj)) {
			if (unlikely(!sheaves_alloc_plain(s)))
				return cache_alloc_hooked(s, obj, gfp);
			if (unlikely(slabx_init_on_alloc(s, gfp)))
				return memset(obj, 0, s->object_size);
			return obj;
		}
	}
	return cache_alloc_full(s, gfp, nid, count_fail);
}

/**
 * slabx_alloc_node() - allocate an object on a given NUMA node
 * @s: the cache.
 * @gfp: allocation context; %__GFP_ZERO zeroes the object.
 * @nid: node id, or %NUMA_NO_NODE for the local node.
 *
 * The object comes from this CPU's sheaves when @nid is the local node (or
 * %NUMA_NO_NODE), else from a slab on @nid when that node has memory, else
 * from the nearest node the page allocator finds. A pool-mode cache takes
 * it from its pool, wherever the object lives.
 *
 * Context: any context that @gfp allows.
 * Return: the object, or NULL when out of memory or @nid is not a possible
 * node (reported with pr_warn).
 */
void *slabx_alloc_node(struct slabx_cache *s, gfp_t gfp, int nid)
{
	return cache_alloc(s, gfp, nid, true);
}
EXPORT_SYMBOL_GPL(slabx_alloc_node);

/**
 * slabx_alloc() - allocate an object
 * @s: the cache.
 * @gfp: allocation context; %__GFP_ZERO zeroes the object.
 *
 * Context: any context that @gfp allows.
 * Return: the object, preferably from the local node, or NULL.
 */
void *slabx_alloc(struct slabx_cache *s, gfp_t gfp)
{
	return cache_alloc(s, gfp, NUMA_NO_NODE, true);
}
EXPORT_SYMBOL_GPL(slabx_alloc);

/**
 * slabx_alloc_try() - slabx_alloc(), for a caller with a fallback
 * @s: the cache.
 * @gfp: allocation context.
 *
 * A failure is not counted in alloc_fail: the caller (a reserved
 * allocation) goes on to its reserve.
 *
 * Return: the object, or NULL.
 */
void *slabx_alloc_try(struct slabx_cache *s, gfp_t gfp)
{
	return cache_alloc(s, gfp, NUMA_NO_NODE, false);
}

/*
 * A free the sheaves did not take: out of line, so that slabx_free()
 * keeps no local in memory. See "Destroy and late frees" at the top of
 * cache.c for the RCU section.
 */
static noinline void cache_free_slab(struct slabx_cache *s, void *obj)
{
	rcu_read_lock();
	if (unlikely(s->pool))
		slabx_pool_cache_free(s, obj);
	else if (!slabx_reserve_double_free(s, obj))
		slabx_stat_add(s, SLABX_FREE, slab_free_objects(s, &obj, 1));
	rcu_read_unlock();
}

/*
 * An object the sheaves did not take after the checkers' hook ran: busy
 * sheaves (a re-entrant call, or a destroy), or a task that moved to
 * another node. The slab layer still checks it, without the hook. @nid is
 * its slab's, read before: the free may discard the slab.
 */
static noinline void cache_free_slab_hooked(struct slabx_cache *s, int nid,
					    void *obj)
{
	size_t freed;

	rcu_read_lock();
	freed = slabx_slab_flush(s, &obj, 1);
	slabx_stat_add(s, SLABX_FREE, freed);
	slabx_stat_add(s, SLABX_FREE_SLOWPATH, freed);
	if (freed)
		trace_slabx_free(s, obj, nid, SLABX_TRACE_SLAB);
	rcu_read_unlock();
}

/*
 * A free of a checked object that the fast path did not take. One of
 * another node goes to its slab, whose checks run before the hook (they
 * read what the hook may clear). Any other gets the checkers' hook here,
 * once, outside the per-CPU section, then goes to the sheaves.
 */
static noinline void cache_free_sheaves(struct slabx_cache *s,
					struct slabx_slab *slab, void *obj)
{
	/*
	 * The head of its slab's free list is free already: a double free,
	 * which the slab layer refuses, but only after the hook had cleared
	 * its free pointer (init_on_free) if it came back there (busy
	 * sheaves, a destroy, a migration). Check first, as the slab path
	 * does.
	 */
	if (slab->nid != numa_mem_id() ||
	    (IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED) &&
	     /* Unlocked: a hint; the slab path checks under its lock. */
	     unlikely(data_race(slab->freelist) == obj))) {
		cache_free_slab(s, obj);
		return;
	}
	slabx_free_hook(s, obj, true);
	if (!slabx_sheaves_free(s, slab, obj))
		cache_free_slab_hooked(s, slab->nid, obj);
}

/**
 * slabx_free() - free an object
 * @s: the cache it was allocated from.
 * @obj: the object, or NULL (nothing is done).
 *
 * An object of the local node goes to this CPU's sheaves, any other to its
 * slab. A pointer that is not an object of @s is refused with a warning and
 * left alone, so a bad free leaks memory instead of corrupting the cache.
 *
 * Objects leaked past slabx_cache_destroy() may be freed concurrently with
 * the destroy and after it; they go straight to their slabs.
 *
 * Context: any context in which slabx_alloc() with %GFP_ATOMIC is allowed,
 * hard IRQ and IRQs disabled included; not NMI (see slabx_free_nolock()).
 */
void slabx_free(struct slabx_cache *s, void *obj)
{
	struct slabx_slab *slab;

	if (!obj)
		return;
	/* Sheaves retired by a destroy make sheaves_free() fail: see above. */
	if (likely(s->sheaf_capacity)) {
		slab = slabx_obj_slab(s, obj);
		if (!slab || !slabx_kasan_free_ok(s, obj) ||
		    (sheaves_free_plain(s) && sheaves_free(s, slab, obj)))
			return;
		cache_free_sheaves(s, slab, obj);
		return;
	}
	cache_free_slab(s, obj);
}
EXPORT_SYMBOL_GPL(slabx_free);

/* All or nothing from a pool-mode cache. */
static int pool_alloc_bulk(struct slabx_cache *s, gfp_t gfp, size_t nr,
			   void **p)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		p[i] = slabx_objpool_pop(s->pool);
		if (p[i])
			continue;
		while (i--)
			slabx_objpool_push(p[i], s->pool);
		slabx_stat_inc(s, SLABX_ALLOC_FAIL);
		return 0;
	}
	for (i = 0; i < nr; i++) {
		slabx_pool_hand_out(s, p[i], gfp);
		trace_slabx_alloc(s, p[i], gfp, SLABX_TRACE_POOL);
	}
	slabx_stat_add(s, SLABX_ALLOC, nr);
	return nr;
}

/**
 * slabx_alloc_bulk() - allocate several objects at once
 * @s: the cache.
 * @gfp: allocation context; %__GFP_ZERO zeroes every object.
 * @nr: number of objects wanted.
 * @p: array of at least @nr pointers, filled with the objects.
 *
 * Takes what this CPU's sheaves can give, then the rest from the slabs in
 * one lock hold per slab. All or nothing: on failure the objects obtained
 * so far go back.
 *
 * Context: any context that @gfp allows.
 * Return: @nr on success, 0 on failure (or for a request above %INT_MAX,
 * reported with pr_warn).
 */
int slabx_alloc_bulk(struct slabx_cache *s, gfp_t gfp, size_t nr, void **p)
{
	unsigned int fast = 0, slow;

	if (!nr)
		return 0;
	if (unlikely(nr > INT_MAX)) {
		pr_warn_ratelimited("%s: bulk allocation of %zu objects refused\n",
				    s->name, nr);
		return 0;
	}
	if (unlikely(s->pool))
		return slabx_cache_dead(s, "allocation") ? 0 :
		       pool_alloc_bulk(s, gfp, nr, p);
	if (s->sheaf_capacity)
		fast = slabx_sheaves_alloc_bulk(s, gfp, p, nr);
	slow = fast < nr ? slabx_slab_fill(s, gfp, NUMA_NO_NODE, p + fast,
					   nr - fast) : 0;
	if (fast + slow < nr) {
		/* Never handed out, so neither an alloc nor a free. */
		slabx_slab_flush(s, p, fast + slow);
		slabx_stat_inc(s, SLABX_ALLOC_FAIL);
		return 0;
	}
	objects_hand_out(s, gfp, p, nr, fast);
	slabx_stat_add(s, SLABX_ALLOC_FASTPATH, fast);
	slabx_stat_add(s, SLABX_ALLOC_SLOWPATH, slow);
	slabx_stat_add(s, SLABX_ALLOC, nr);
	return nr;
}
EXPORT_SYMBOL_GPL(slabx_alloc_bulk);

/**
 * slabx_free_bulk() - free several objects at once
 * @s: the cache they were allocated from.
 * @nr: number of pointers in @p.
 * @p: the objects; NULL entries are skipped. The array's content is
 *	undefined afterwards.
 *
 * Context: as slabx_free().
 */
void slabx_free_bulk(struct slabx_cache *s, size_t nr, void **p)
{
	size_t i, freed = 0;

	if (unlikely(s->pool)) {
		for (i = 0; i < nr; i++)
			slabx_free(s, p[i]);
		return;
	}
	/* See "Destroy and late frees" at the top of cache.c. */
	rcu_read_lock();
	if (s->sheaf_capacity)
		freed = slabx_sheaves_free_bulk(s, p, nr);
	else
		freed = slab_free_objects(s, p, nr);
	slabx_stat_add(s, SLABX_FREE, freed);
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(slabx_free_bulk);

/**
 * slabx_check_copy() - check a copy between an object and user space
 * @s: the object's cache.
 * @ptr: where the copy starts, inside an object of @s.
 * @n: bytes to copy.
 * @to_user: true for a copy to user space, false for one from it (only
 *	the report says which).
 *
 * The check %CONFIG_HARDENED_USERCOPY makes of a kmem_cache object, which
 * the kernel cannot make of a slabx one (it checks a copy only against the
 * whole block of a slab of order above 0): the copy must lie in the part
 * of the object that the cache's @useroffset and @usersize allow (see
 * &struct slabx_cache_args; slabx_kmalloc()'s caches allow their whole
 * object). Call it before copy_to_user() or copy_from_user(), with the
 * cache, as the kernel's check is made. Whether the object is allocated is
 * not checked (KASAN checks the copy itself).
 *
 * Context: any context.
 * Return: 0 when the copy is allowed (@n of 0 always is), -EFAULT when it
 * is not: the copy is refused with a warning (each time for a
 * %SLABX_DEBUG cache, once per boot otherwise).
 */
int slabx_check_copy(struct slabx_cache *s, const void *ptr,
		     unsigned long n, bool to_user)
{
	long off;

	if (!n)
		return 0;
	off = s->pool ? slabx_pool_cache_obj_offset(s, ptr) :
			slabx_slab_obj_offset(s, ptr);
	if (off >= s->useroffset && off - s->useroffset < s->usersize &&
	    n <= s->usersize - (off - s->useroffset))
		return 0;
	slabx_report(s,
		     "slabx: %s: usercopy %s user space refused: %lu bytes at %p (offset %ld in its object), outside bytes %u to %u\n",
		     s->name, to_user ? "to" : "from", n, ptr, off,
		     s->useroffset, s->useroffset + s->usersize);
	return -EFAULT;
}
EXPORT_SYMBOL_GPL(slabx_check_copy);

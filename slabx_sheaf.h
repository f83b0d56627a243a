/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slabx: sheaves and each CPU's sheaves of a cache (sheaf.c), with the
 * per-CPU primitives and the inline fast paths built on them.
 */
#ifndef _SLABX_SHEAF_H
#define _SLABX_SHEAF_H

#include <linux/lockdep.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>

#include "slabx_barn.h"
#include "slabx_checkers.h"
/* The tracepoints, declared (cache.c defines them). */
#include "slabx_trace.h"

/**
 * struct slabx_sheaf - an array of free objects of one cache
 * @barn_list: on a barn's full or empty list while stored there.
 * @rcu: queued with call_rcu() while its objects wait for a grace period
 *	(never in a barn then).
 * @cache: owner.
 * @nid: node whose barn takes the sheaf (or, for a large rcu_free sheaf,
 *	its objects) back after its grace period.
 * @rcu_epoch: for an rcu_free sheaf, the cache's rcu epoch (0 or 1) when
 *	it took its first object, counted in that epoch's rcu_inflight.
 * @rcu_queued_ns: for an rcu_free sheaf queued while its trace event was
 *	enabled, when it was queued (ktime_get_mono_fast_ns()); else 0.
 * @size: objects held, at the end of @objects.
 * @capacity: room in @objects; the cache's sheaf capacity, or more for an
 *	oversize prefilled sheaf or a large rcu_free sheaf.
 * @objects: the objects.
 */
struct slabx_sheaf {
	union {
		struct list_head barn_list;
		struct rcu_head rcu;
	};
	struct slabx_cache *cache;
	int nid;
	unsigned int rcu_epoch;
	u64 rcu_queued_ns;
	unsigned int size;
	unsigned int capacity;
	void *objects[];
};

/**
 * struct slabx_cpu_sheaves - one CPU's sheaves of one cache
 * @in_use: set while a task of this CPU works on the sheaves, with
 *	preemption disabled; an interrupt (or NMI) that finds it set on its
 *	own CPU must not touch the sheaves and takes the slab path instead.
 * @main: the sheaf allocations pop from and frees push to; never NULL.
 * @spare: a second sheaf, or NULL.
 * @rcu_free: objects given to slabx_free_rcu() on this CPU, all of the
 *	CPU's node; NULL or not full (a full one is queued at once).
 * @rcu_free_opened: jiffies when @rcu_free took its first object; read by
 *	the age monitor on another CPU (rcu_monitor.c).
 * @rcu_full_gp: the grace period (get_state_synchronize_rcu()) that the
 *	last full rcu_free sheaf of this CPU waits for: until it ends, this
 *	CPU's frees outrun grace periods, and slabx_free_rcu() allocates
 *	large sheaves (rcu_free.c).
 * @dep_map: pcs_lock() as lockdep sees it: a trylock of a lock inside
 *	which only raw spinlocks may be taken (%LD_WAIT_SPIN), so that
 *	lockdep checks the rule of sheaf.c (nothing that may sleep, no
 *	non-raw lock, with the sheaves held) with
 *	%CONFIG_PROVE_RAW_LOCK_NESTING, and pcs_assert_held() can be asserted.
 */
struct slabx_cpu_sheaves {
	bool in_use;
	struct slabx_sheaf *main;
	struct slabx_sheaf *spare;
	struct slabx_sheaf *rcu_free;
	unsigned long rcu_free_opened;
	unsigned long rcu_full_gp;
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	struct lockdep_map dep_map;
#endif
};

/* sheaf.c */
struct slabx_sheaf *slabx_sheaf_new(struct slabx_cache *s, unsigned int capacity,
				    gfp_t gfp);
void slabx_sheaf_flush(struct slabx_cache *s, struct slabx_sheaf *sheaf);
void slabx_sheaf_free(struct slabx_cache *s, struct slabx_sheaf *sheaf);
void slabx_sheaf_stash_empty(struct slabx_cache *s, struct slabx_barn *barn,
			     struct slabx_sheaf *sheaf);
/*
 * What a free path allocates a sheaf with, where slabx_may_alloc_sheaf():
 * it never sleeps, and never wakes kswapd either, since the caller may
 * hold the scheduler's locks (slabx_free_rcu() from a sched_switch probe).
 */
#define SLABX_FREE_SHEAF_GFP	((GFP_NOWAIT & ~__GFP_KSWAPD_RECLAIM) | __GFP_NOWARN)

bool slabx_may_alloc_sheaf(void);
unsigned int slabx_sheaf_default_capacity(unsigned int stride);
int slabx_sheaves_init(struct slabx_cache *s);
void slabx_sheaves_destroy(struct slabx_cache *s);
bool slabx_sheaves_main_refill(struct slabx_cache *s,
			       struct slabx_cpu_sheaves *pcs, gfp_t gfp);
bool slabx_sheaves_free(struct slabx_cache *s, struct slabx_slab *slab,
			void *obj);
unsigned int slabx_sheaves_alloc_bulk(struct slabx_cache *s, gfp_t gfp, void **p,
				      unsigned int nr);
size_t slabx_sheaves_free_bulk(struct slabx_cache *s, void **p, size_t nr);
void slabx_sheaves_flush_cpu(struct slabx_cache *s, unsigned int cpu);
unsigned long slabx_sheaves_flush_barns(struct slabx_cache *s);
void slabx_sheaves_flush_all(struct slabx_cache *s);

/*
 * The per-CPU sheaves are guarded by preemption off plus their in_use flag
 * (see sheaf.c). These helpers and the two entry points below are inline,
 * so that slabx_alloc() and slabx_free() make no further call when this
 * CPU's main sheaf can serve them.
 *
 * Take this CPU's sheaves, or NULL when a task of this CPU that we
 * interrupted holds them, or when the cache is being destroyed. On success,
 * preemption stays off until pcs_unlock(): cache destroy waits for such
 * sections with synchronize_rcu() before it frees the sheaves.
 */
static __always_inline struct slabx_cpu_sheaves *pcs_lock(struct slabx_cache *s)
{
	struct slabx_cpu_sheaves __percpu *cpu_sheaves;
	struct slabx_cpu_sheaves *pcs;

	preempt_disable();
	/* NULL once destroy began: see slabx_sheaves_destroy(). */
	cpu_sheaves = READ_ONCE(s->cpu_sheaves);
	if (unlikely(!cpu_sheaves))
		goto busy;
	pcs = this_cpu_ptr(cpu_sheaves);
	if (unlikely(READ_ONCE(pcs->in_use)))
		goto busy;
	WRITE_ONCE(pcs->in_use, true);
	barrier();
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	lock_map_acquire_try(&pcs->dep_map);
#endif
	return pcs;
busy:
	preempt_enable();
	return NULL;
}

static __always_inline void pcs_unlock(struct slabx_cpu_sheaves *pcs)
{
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	lock_map_release(&pcs->dep_map);
#endif
	barrier();
	WRITE_ONCE(pcs->in_use, false);
	preempt_enable();
}

/* For functions that run with this CPU's sheaves held (pcs_lock()). */
#define pcs_assert_held(pcs)	lockdep_assert_held(pcs)

/*
 * Shrink @sheaf to @size objects. kmemleak scans a sheaf whole, the slots
 * past its size too: with kmemleak built in, the slots left are cleared,
 * or a stale pointer there would hide a leaked object.
 */
static __always_inline void slabx_sheaf_forget(struct slabx_sheaf *sheaf,
					       unsigned int size)
{
	if (IS_ENABLED(CONFIG_DEBUG_KMEMLEAK))
		memset(sheaf->objects + size, 0,
		       (sheaf->size - size) * sizeof(void *));
	sheaf->size = size;
}

/*
 * The per-CPU sheaves' primitives. Each exists once and makes no call, so
 * that the fast paths built on them (sheaves_alloc(), sheaves_free()) make
 * none either: slabx_alloc() and slabx_free() then save no register on
 * entry. The checkers' hooks run outside the held section, in the entry
 * points (see slabx_free()), and the full paths trace from inside it
 * (slabx_sheaves_free()); scripts/fastpath-check.sh (part of make lint)
 * checks the rule on slabx.ko built for Debian's 6.12.
 */

/*
 * With %CONFIG_SLAB_FREELIST_HARDENED, whether @obj is the object last
 * freed into the held sheaves: freeing it again is a double free, refused
 * and reported (slabx_sheaves_free()), as SLUB catches the same on its
 * freelist.
 */
static __always_inline bool pcs_suspect(struct slabx_cpu_sheaves *pcs,
					void *obj)
{
	struct slabx_sheaf *main = pcs->main;

	pcs_assert_held(pcs);
	return IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED) && main->size &&
	       unlikely(main->objects[main->size - 1] == obj);
}

/* Put a free object into held main. Return: false when main is full. */
static __always_inline bool pcs_push(struct slabx_cpu_sheaves *pcs, void *obj)
{
	struct slabx_sheaf *main = pcs->main;

	pcs_assert_held(pcs);
	if (unlikely(main->size == main->capacity))
		return false;
	main->objects[main->size++] = obj;
	return true;
}

/* Take an object from held main. Return: NULL when main is empty. */
static __always_inline void *pcs_pop(struct slabx_cpu_sheaves *pcs)
{
	struct slabx_sheaf *main = pcs->main;
	void *obj;

	pcs_assert_held(pcs);
	if (unlikely(!main->size))
		return NULL;
	obj = main->objects[main->size - 1];
	slabx_sheaf_forget(main, main->size - 1);
	return obj;
}

/**
 * sheaves_alloc() - allocate from this CPU's sheaves
 * @s: a cache with sheaves.
 * @gfp: allocation context.
 * @nid: node asked for, or NUMA_NO_NODE.
 * @refill: refill an empty main (slabx_sheaves_main_refill(), a call);
 *	false on the fast path, which makes none.
 *
 * The object is counted as allocated (alloc and alloc_fastpath); the
 * caller runs the checkers' hook (slabx_alloc_hook()).
 *
 * Return: an object, or NULL when the caller must take another path: the
 * sheaves are busy (re-entrant call), @nid is not this CPU's node, or main
 * is empty (and could not be refilled without allocating pages).
 */
static __always_inline void *sheaves_alloc(struct slabx_cache *s, gfp_t gfp,
					   int nid, bool refill)
{
	struct slabx_cpu_sheaves *pcs;
	void *obj = NULL;

	pcs = pcs_lock(s);
	if (!pcs)
		return NULL;
	if (nid == NUMA_NO_NODE || nid == numa_mem_id()) {
		obj = pcs_pop(pcs);
		if (refill && !obj && slabx_sheaves_main_refill(s, pcs, gfp))
			obj = pcs_pop(pcs);
		/* An alloc and an alloc_fastpath: see struct slabx_stats. */
		if (likely(obj))
			__this_cpu_inc(s->stats->pcs_alloc);
	}
	pcs_unlock(pcs);
	return obj;
}

/**
 * sheaves_free() - free into this CPU's main sheaf
 * @s: a cache with sheaves.
 * @slab: the slab of @obj.
 * @obj: the object, through the checkers' hook already where one runs.
 *
 * The object is counted as freed (free and free_fastpath) when done.
 *
 * Return: true when done, false when the caller must take the full path
 * (slabx_sheaves_free()): the sheaves are busy (re-entrant call, or the
 * cache is being destroyed), @obj is of another node, main is full, or
 * @obj is a suspect of pcs_suspect().
 */
static __always_inline bool sheaves_free(struct slabx_cache *s,
					 struct slabx_slab *slab, void *obj)
{
	struct slabx_cpu_sheaves *pcs;
	bool done;

	pcs = pcs_lock(s);
	if (!pcs)
		return false;
	done = slab->nid == numa_mem_id() && !pcs_suspect(pcs, obj) &&
	       pcs_push(pcs, obj);
	/*
	 * A free and a free_fastpath, counted with the sheaves held: destroy
	 * waits for this. See struct slabx_stats.
	 */
	if (likely(done))
		__this_cpu_inc(s->stats->pcs_free);
	pcs_unlock(pcs);
	return done;
}

/* Whether an allocation runs no hook but the zeroing, and no tracepoint. */
static __always_inline bool sheaves_alloc_plain(struct slabx_cache *s)
{
	return !IS_ENABLED(CONFIG_KASAN_GENERIC) &&
	       !IS_ENABLED(CONFIG_DEBUG_KMEMLEAK) && !slabx_init_on_free(s) &&
	       !trace_slabx_alloc_enabled();
}

/* Whether a free runs no hook (slabx_free_hook()) and no tracepoint. */
static __always_inline bool sheaves_free_plain(struct slabx_cache *s)
{
	return !IS_ENABLED(CONFIG_KASAN_GENERIC) &&
	       !IS_ENABLED(CONFIG_DEBUG_KMEMLEAK) && !slabx_init_on_free(s) &&
	       !trace_slabx_free_enabled();
}

#endif /* _SLABX_SHEAF_H */

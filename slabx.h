/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slabx: an out-of-tree object cache allocator on top of the page allocator.
 *
 * This is the public API. Every function declared here is exported with
 * EXPORT_SYMBOL_GPL by slabx.ko and documented where it is defined.
 *
 * A cache's life: no call on a cache may run concurrently with its
 * slabx_cache_destroy() or follow it, except slabx_free(),
 * slabx_free_bulk() and slabx_free_reserved() of objects that were leaked
 * (still allocated when destroy began), slabx_alloc_from_sheaf() and
 * slabx_return_sheaf() of sheaves prefilled before, and slabx_unreserve()
 * of reservations still held, which are allowed during and after the
 * destroy until slabx is unloaded. Other calls on a cache being destroyed
 * are refused with a warning where slabx can tell cheaply: allocations
 * that reach the slabs or refill the per-CPU sheaves return NULL,
 * slabx_prefill_sheaf() fails, slabx_cache_shrink() and
 * slabx_rcu_barrier() do nothing, slabx_free_rcu() and slabx_free_nolock()
 * leave the object allocated.
 */
#ifndef _SLABX_H
#define _SLABX_H

#include <linux/bits.h>
#include <linux/gfp_types.h>
#include <linux/types.h>

#include "slabx_objpool.h"

struct page;
struct slabx_cache;
struct slabx_reservation;
struct slabx_sheaf;

/* Longest cache name accepted, without the terminating NUL. */
#define SLABX_NAME_MAX		47
/* Object sizes accepted by slabx_cache_create(), in bytes. */
#define SLABX_MIN_SIZE		1
#define SLABX_MAX_SIZE		(32 * 1024)
/* Largest alignment accepted by slabx_cache_create(), in bytes. */
#define SLABX_MAX_ALIGN		4096
/*
 * A partial rcu_free sheaf is queued for its grace period once it has been
 * open this long (see slabx_free_rcu()).
 */
#define SLABX_RCU_FREE_MAX_AGE_MS	1000
/* Align objects to the L1 cache line (at least). */
#define SLABX_HWCACHE_ALIGN	0x1U
/*
 * Check every free for double frees and foreign pointers (slow). Such a
 * cache has no sheaves: every object goes through the checked slab layer.
 */
#define SLABX_DEBUG		0x2U
/* No per-CPU sheaves: every allocation and free goes to the slabs. */
#define SLABX_NO_SHEAVES	0x4U
/*
 * Typesafe by RCU, as %SLAB_TYPESAFE_BY_RCU: a freed object may be handed
 * out again at once, but its memory stays an object of this cache until a
 * grace period has passed, so that a reader under rcu_read_lock() that
 * still holds a pointer to it reads an object of this type (which it must
 * then check, e.g. a key or reference count). Slabs go back to the page
 * allocator only a grace period after they left the cache. A free object
 * keeps its contents: the free pointer is stored after it, and
 * init_on_alloc and init_on_free leave it alone (%__GFP_ZERO still
 * zeroes), as KASAN does (no use-after-free report within the grace
 * period). Not for pool mode.
 */
#define SLABX_TYPESAFE_BY_RCU	0x8U
#define SLABX_VALID_FLAGS	(SLABX_HWCACHE_ALIGN | SLABX_DEBUG | \
				 SLABX_NO_SHEAVES | SLABX_TYPESAFE_BY_RCU)

/* Size classes of slabx_kmalloc(): 8 bytes to this many. */
#define SLABX_KMALLOC_CLASSES	13
#define SLABX_KMALLOC_MAX_SIZE	8192

/* Largest sheaf capacity a cache may ask for. */
#define SLABX_SHEAF_MAX_CAPACITY	1024
/* Most objects one prefilled sheaf may hold. */
#define SLABX_PREFILL_MAX		4096

/**
 * struct slabx_cache_args - optional parameters of a new cache
 * @align: minimum object alignment in bytes, a power of two no larger than
 *	%SLABX_MAX_ALIGN, or 0 for the natural alignment of a pointer.
 * @flags: any of %SLABX_VALID_FLAGS.
 * @ctor: called once for every object when the slab holding it is created,
 *	never when an object is reused. Objects must be returned to the cache
 *	in their constructed state. May be NULL.
 * @sheaf_capacity: objects per per-CPU sheaf, up to
 *	%SLABX_SHEAF_MAX_CAPACITY; 0 picks a default from the object size.
 *	%SLABX_NO_SHEAVES in @flags turns sheaves off.
 * @pool_objects: 0 for a normal cache; else the cache is in pool mode: it
 *	preallocates this many objects (up to %SLABX_OBJPOOL_NR_OBJECT_MAX)
 *	in an objpool at creation and never allocates memory afterwards;
 *	slabx_alloc() returns NULL when all of them are out. Such a cache has
 *	no slabs and no sheaves.
 * @useroffset: where the part of each object that may be copied to or
 *	from user space starts, as kmem_cache_create_usercopy()'s: the part
 *	slabx_check_copy() allows.
 * @usersize: that part's size; 0 (the default) allows no copy, as for a
 *	kmem_cache without one under %CONFIG_HARDENED_USERCOPY. The part
 *	must lie in the object.
 */
struct slabx_cache_args {
	unsigned int align;
	unsigned int flags;
	void (*ctor)(void *obj);
	unsigned int sheaf_capacity;
	unsigned int pool_objects;
	unsigned int useroffset;
	unsigned int usersize;
};

/**
 * enum slabx_stat_item - event counters kept per CPU for every cache
 * @SLABX_ALLOC: objects handed out.
 * @SLABX_FREE: objects given back.
 * @SLABX_ALLOC_FASTPATH: objects handed out from this CPU's sheaves.
 * @SLABX_ALLOC_SLOWPATH: objects handed out by the slab layer directly.
 * @SLABX_FREE_FASTPATH: objects given back to this CPU's sheaves.
 * @SLABX_FREE_SLOWPATH: objects given back to the slab layer directly.
 * @SLABX_ALLOC_FAIL: allocations that returned NULL (or a failed bulk).
 * @SLABX_SLAB_NEW: slabs created from the page allocator.
 * @SLABX_SLAB_DISCARD: slabs given back to the page allocator.
 * @SLABX_FREE_INVALID: frees refused as foreign, misaligned or double.
 * @SLABX_NODE_LOCK: lock holds on a node's slab lists (one per batch, or
 *	per run of at most 64 objects put back).
 * @SLABX_SHEAF_REFILL: sheaves refilled from the slabs.
 * @SLABX_SHEAF_FLUSH: sheaves flushed to the slabs.
 * @SLABX_SHEAF_ALLOC: sheaves allocated.
 * @SLABX_SHEAF_FREE: sheaves freed.
 * @SLABX_BARN_GET: full sheaves taken from a barn.
 * @SLABX_BARN_GET_FAIL: times a barn had no full sheaf to give.
 * @SLABX_BARN_PUT: full sheaves stored in a barn.
 * @SLABX_BARN_PUT_FAIL: times a barn could not take a full sheaf.
 * @SLABX_SHEAF_PREFILL_FAST: prefills served by a ready sheaf.
 * @SLABX_SHEAF_PREFILL_SLOW: prefills that filled a sheaf from the slabs.
 * @SLABX_SHEAF_PREFILL_OVERSIZE: prefills above the sheaf capacity.
 * @SLABX_SHEAF_RETURN_FAST: returned sheaves kept as spare or in a barn.
 * @SLABX_SHEAF_RETURN_SLOW: returned sheaves flushed and freed.
 * @SLABX_FREE_RCU: objects given to slabx_free_rcu().
 * @SLABX_FREE_RCU_DONE: of those, objects freed after their grace period.
 * @SLABX_FREE_RCU_SHEAF: objects put into this CPU's rcu_free sheaf.
 * @SLABX_FREE_RCU_SHEAF_FAIL: times no rcu_free sheaf could take an object
 *	(none to be had, sheaves busy, or a remote object).
 * @SLABX_FREE_RCU_FALLBACK: objects left waiting in their slab instead.
 * @SLABX_RCU_SHEAF_SUBMITTED: rcu_free sheaves queued for a grace period.
 * @SLABX_RCU_SHEAF_TO_BARN: of those, stored in a barn as full afterwards.
 * @SLABX_RCU_SHEAF_FLUSHED: of those, flushed to the slabs afterwards (a
 *	large one, see %SLABX_RCU_SHEAF_LARGE: the objects no barn sheaf took).
 * @SLABX_RCU_CALL: call_rcu() invocations.
 * @SLABX_ALLOC_NOLOCK: objects handed out by slabx_alloc_nolock().
 * @SLABX_ALLOC_NOLOCK_FAIL: slabx_alloc_nolock() calls that returned NULL.
 * @SLABX_FREE_NOLOCK: objects given to slabx_free_nolock().
 * @SLABX_FREE_NOLOCK_DEFERRED: of those, deferred (no path could be taken).
 * @SLABX_FREE_NOLOCK_DRAINED: deferred objects freed since.
 * @SLABX_NOLOCK_TRYLOCK_FAIL: busy locks met by the any-context paths.
 * @SLABX_RESERVE_ALLOC: objects slabx_alloc_reserved() took from the
 *	reserve (counted in %SLABX_ALLOC too).
 * @SLABX_RESERVE_REFILL: objects slabx_free_reserved() put into the
 *	reserve (counted in %SLABX_FREE too).
 * @SLABX_RESERVE_WAIT: times slabx_alloc_reserved() slept for an object.
 * @SLABX_RCU_SHEAF_AGED: partial rcu_free sheaves queued by the age
 *	monitor, open for %SLABX_RCU_FREE_MAX_AGE_MS or more (last, so that
 *	the items before keep their values).
 * @SLABX_RCU_SHEAF_LARGE: large rcu_free sheaves allocated (up to 506
 *	objects, and up to 64 KiB of them), when slabx_free_rcu() found no empty
 *	sheaf while the last full rcu_free sheaf of its CPU waited for its
 *	grace period.
 * @SLABX_RCU_SHEAF_SPLIT: barn sheaves filled with the objects of large
 *	rcu_free sheaves after their grace period, and stored as full.
 * @SLABX_NR_STATS: number of counters.
 */
enum slabx_stat_item {
	SLABX_ALLOC,
	SLABX_FREE,
	SLABX_ALLOC_FASTPATH,
	SLABX_ALLOC_SLOWPATH,
	SLABX_FREE_FASTPATH,
	SLABX_FREE_SLOWPATH,
	SLABX_ALLOC_FAIL,
	SLABX_SLAB_NEW,
	SLABX_SLAB_DISCARD,
	SLABX_FREE_INVALID,
	SLABX_NODE_LOCK,
	SLABX_SHEAF_REFILL,
	SLABX_SHEAF_FLUSH,
	SLABX_SHEAF_ALLOC,
	SLABX_SHEAF_FREE,
	SLABX_BARN_GET,
	SLABX_BARN_GET_FAIL,
	SLABX_BARN_PUT,
	SLABX_BARN_PUT_FAIL,
	SLABX_SHEAF_PREFILL_FAST,
	SLABX_SHEAF_PREFILL_SLOW,
	SLABX_SHEAF_PREFILL_OVERSIZE,
	SLABX_SHEAF_RETURN_FAST,
	SLABX_SHEAF_RETURN_SLOW,
	SLABX_FREE_RCU,
	SLABX_FREE_RCU_DONE,
	SLABX_FREE_RCU_SHEAF,
	SLABX_FREE_RCU_SHEAF_FAIL,
	SLABX_FREE_RCU_FALLBACK,
	SLABX_RCU_SHEAF_SUBMITTED,
	SLABX_RCU_SHEAF_TO_BARN,
	SLABX_RCU_SHEAF_FLUSHED,
	SLABX_RCU_CALL,
	SLABX_ALLOC_NOLOCK,
	SLABX_ALLOC_NOLOCK_FAIL,
	SLABX_FREE_NOLOCK,
	SLABX_FREE_NOLOCK_DEFERRED,
	SLABX_FREE_NOLOCK_DRAINED,
	SLABX_NOLOCK_TRYLOCK_FAIL,
	SLABX_RESERVE_ALLOC,
	SLABX_RESERVE_REFILL,
	SLABX_RESERVE_WAIT,
	SLABX_RCU_SHEAF_AGED,
	SLABX_RCU_SHEAF_LARGE,
	SLABX_RCU_SHEAF_SPLIT,
	SLABX_NR_STATS
};

/**
 * struct slabx_info - a snapshot of a cache's geometry and occupancy
 * @object_size: size asked for at creation.
 * @stride: distance between two objects in a slab.
 * @align: effective alignment of every object.
 * @order: every slab is 2^@order pages.
 * @objs_per_slab: objects carved from one slab.
 * @sheaf_capacity: objects per sheaf, 0 without sheaves.
 * @barn_max_full: the most full sheaves one node's barn keeps: as many as
 *	hold 256 KiB of objects, between 10 and 32.
 * @slabs: slabs held, all nodes.
 * @objects_total: objects in those slabs.
 * @objects_inuse: objects not free in a slab: with users, or cached in
 *	sheaves.
 * @objects_barn: objects in full sheaves in the barns.
 * @sheaves_barn_empty: empty sheaves in the barns.
 * @objects_rcu_waiting: objects given to slabx_free_rcu() whose grace
 *	period has not ended yet (counted in @objects_inuse too).
 * @objects_reserve: objects in the cache's reserve (slabx_reserve();
 *	counted in @objects_inuse too).
 * @reserve_target: objects the cache's reservations add up to.
 * @reserve_bytes: memory the reserve holds: its objects (by their stride)
 *	and its sheaves, and the handles of the reservations.
 */
struct slabx_info {
	unsigned int object_size;
	unsigned int stride;
	unsigned int align;
	unsigned int order;
	unsigned int objs_per_slab;
	unsigned int sheaf_capacity;
	unsigned int barn_max_full;
	unsigned long slabs;
	unsigned long objects_total;
	unsigned long objects_inuse;
	unsigned long objects_barn;
	unsigned long sheaves_barn_empty;
	unsigned long objects_rcu_waiting;
	unsigned long objects_reserve;
	unsigned long reserve_target;
	unsigned long reserve_bytes;
};

/**
 * enum slabx_nolock_pages_item - figures of the any-context page path
 * @SLABX_NOLOCK_PAGES_STASH_HIT: blocks taken from a CPU's stash.
 * @SLABX_NOLOCK_PAGES_RESERVE_HIT: blocks taken from a node's reserve.
 * @SLABX_NOLOCK_PAGES_TRYLOCK_FAIL: busy reserve locks met.
 * @SLABX_NOLOCK_PAGES_ALLOC_FAIL: slabx_try_alloc_pages() calls that
 *	returned NULL.
 * @SLABX_NOLOCK_PAGES_REFILLED: blocks added to the reserves by the worker.
 * @SLABX_NOLOCK_PAGES_DEFERRED: frees deferred to the worker.
 * @SLABX_NOLOCK_PAGES_DRAINED: deferred frees done since.
 * @SLABX_NOLOCK_PAGES_COUNTERS: number of event counters above.
 * @SLABX_NOLOCK_PAGES_RESERVE: blocks held in all reserves now.
 * @SLABX_NOLOCK_PAGES_DEFERRED_PENDING: deferred frees not yet done.
 * @SLABX_NOLOCK_PAGES_NR_ITEMS: number of items.
 */
enum slabx_nolock_pages_item {
	SLABX_NOLOCK_PAGES_STASH_HIT,
	SLABX_NOLOCK_PAGES_RESERVE_HIT,
	SLABX_NOLOCK_PAGES_TRYLOCK_FAIL,
	SLABX_NOLOCK_PAGES_ALLOC_FAIL,
	SLABX_NOLOCK_PAGES_REFILLED,
	SLABX_NOLOCK_PAGES_DEFERRED,
	SLABX_NOLOCK_PAGES_DRAINED,
	SLABX_NOLOCK_PAGES_COUNTERS,
	SLABX_NOLOCK_PAGES_RESERVE = SLABX_NOLOCK_PAGES_COUNTERS,
	SLABX_NOLOCK_PAGES_DEFERRED_PENDING,
	SLABX_NOLOCK_PAGES_NR_ITEMS
};

/* ---- caches ------------------------------------------------------------------ */

struct slabx_cache *slabx_cache_create(const char *name, unsigned int size,
				       const struct slabx_cache_args *args);
int slabx_cache_destroy(struct slabx_cache *s);

void *slabx_alloc(struct slabx_cache *s, gfp_t gfp);
void *slabx_alloc_node(struct slabx_cache *s, gfp_t gfp, int nid);
void slabx_free(struct slabx_cache *s, void *obj);
int slabx_alloc_bulk(struct slabx_cache *s, gfp_t gfp, size_t nr, void **p);
void slabx_free_bulk(struct slabx_cache *s, size_t nr, void **p);
void slabx_free_rcu(struct slabx_cache *s, void *obj);
void slabx_rcu_barrier(struct slabx_cache *s);

void slabx_cache_shrink(struct slabx_cache *s);

int slabx_check_copy(struct slabx_cache *s, const void *ptr,
		     unsigned long n, bool to_user);
struct slabx_sheaf *slabx_prefill_sheaf(struct slabx_cache *s, gfp_t gfp,
					unsigned int count);
void *slabx_alloc_from_sheaf(struct slabx_cache *s, gfp_t gfp,
			     struct slabx_sheaf *sheaf);
int slabx_refill_sheaf(struct slabx_cache *s, gfp_t gfp,
		       struct slabx_sheaf **sheafp, unsigned int count);
void slabx_return_sheaf(struct slabx_cache *s, gfp_t gfp,
			struct slabx_sheaf *sheaf);
unsigned int slabx_sheaf_size(struct slabx_sheaf *sheaf);

void *slabx_alloc_nolock(struct slabx_cache *s, gfp_t gfp);
void *slabx_alloc_nolock_node(struct slabx_cache *s, gfp_t gfp, int nid);
void slabx_free_nolock(struct slabx_cache *s, void *obj);
void *slabx_kmalloc(size_t size, gfp_t gfp);
void slabx_kfree(const void *ptr);
int slabx_kmalloc_check_copy(const void *ptr, unsigned long n, bool to_user);
void *slabx_kmalloc_nolock(size_t size, gfp_t gfp, int node);
void slabx_kfree_nolock(const void *ptr);

struct page *slabx_try_alloc_pages(int nid, unsigned int order);
void slabx_free_pages_nolock(struct page *page, unsigned int order);
int slabx_nolock_set_watermarks(unsigned int low, unsigned int high);
long slabx_nolock_pages_stat(enum slabx_nolock_pages_item item);

struct slabx_reservation *slabx_reserve(struct slabx_cache *s,
					unsigned int nr, gfp_t gfp);
void slabx_unreserve(struct slabx_reservation *res);
void *slabx_alloc_reserved(struct slabx_reservation *res, gfp_t gfp);
void slabx_free_reserved(struct slabx_reservation *res, void *obj);
void *slabx_mempool_alloc(gfp_t gfp, void *pool_data);
void slabx_mempool_free(void *element, void *pool_data);

void slabx_cache_info(struct slabx_cache *s, struct slabx_info *info);
unsigned long slabx_cache_stat(struct slabx_cache *s,
			       enum slabx_stat_item item);

#endif /* _SLABX_H */

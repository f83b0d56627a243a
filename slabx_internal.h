/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slabx internals shared between the module's source files.
 */
#ifndef _SLABX_INTERNAL_H
#define _SLABX_INTERNAL_H

#include <linux/atomic.h>
#include <linux/irq_work.h>
#include <linux/llist.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/reciprocal_div.h>
#include <linux/spinlock.h>
#include <linux/topology.h>

#include "slabx.h"
/* Test hooks, exported in SLABX_TEST only; debugfs uses some too. */
#include "tests/slabx_test_hooks.h"

/* Fully free slabs a node keeps before returning them to the page allocator. */
#define SLABX_NODE_KEEP_EMPTY	2
/* Largest slab order; slabs of big objects use it to bound the waste. */
#define SLABX_MAX_ORDER		5

#define SLABX_SLAB_MAGIC	0x5ab1ab5a

/* Soft limits on the sheaves one barn holds. */
#define SLABX_BARN_MAX_FULL	10
#define SLABX_BARN_MAX_EMPTY	10

/**
 * struct slabx_sheaf - an array of free objects of one cache
 * @barn_list: on a barn's full or empty list while stored there.
 * @rcu: queued with call_rcu() while its objects wait for a grace period
 *	(never in a barn then).
 * @cache: owner.
 * @nid: node whose barn takes the sheaf back after its grace period.
 * @rcu_epoch: for an rcu_free sheaf, the cache's rcu epoch (0 or 1) when
 *	it took its first object, counted in that epoch's rcu_inflight.
 * @size: objects held, at the end of @objects.
 * @capacity: room in @objects; the cache's sheaf capacity, or more for an
 *	oversize prefilled sheaf.
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
	unsigned int size;
	unsigned int capacity;
	void *objects[];
};

/**
 * struct slabx_barn - one node's store of full and empty sheaves
 * @lock: protects the lists and counts.
 * @full: sheaves with size == capacity.
 * @empty: sheaves with size == 0.
 * @nr_full: length of @full.
 * @nr_empty: length of @empty.
 */
struct slabx_barn {
	raw_spinlock_t lock;
	struct list_head full;
	struct list_head empty;
	unsigned int nr_full;
	unsigned int nr_empty;
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
 */
struct slabx_cpu_sheaves {
	bool in_use;
	struct slabx_sheaf *main;
	struct slabx_sheaf *spare;
	struct slabx_sheaf *rcu_free;
};

/**
 * struct slabx_slab - header at the start of every slab
 * @list: on its node's partial or empty list, or self-linked when full.
 * @cache: owner.
 * @freelist: first free object; each free object holds the next one.
 * @inuse: objects handed out from this slab.
 * @nid: node of the slab's pages.
 * @magic: %SLABX_SLAB_MAGIC, checked on every free.
 * @rcu_nr: per batch of its node (see struct slabx_rcu_batch), the
 *	objects of this slab in the batch.
 * @rcu_list: per batch, on the batch's list of slabs while @rcu_nr is not 0.
 * @rcu_pending: two bitmaps of one bit per object, one per batch: objects
 *	freed by slabx_free_rcu() through the slab layer, waiting for a grace
 *	period; still counted in @inuse. Bitmap b starts at word
 *	b * cache->rcu_bitmap_longs.
 *
 * A slab is a 2^order block of pages from the page provider. Its first page
 * frame number is aligned to 2^order, so the header of the slab holding an
 * object is found from the object's address alone, without any struct page
 * field. The header, with its bitmap, comes before the first object.
 */
struct slabx_slab {
	struct list_head list;
	struct slabx_cache *cache;
	void *freelist;
	unsigned int inuse;
	unsigned int nid;
	unsigned int magic;
	unsigned int rcu_nr[2];
	struct list_head rcu_list[2];
	unsigned long rcu_pending[];
};

/**
 * struct slabx_rcu_batch - objects of a node waiting in their slabs
 * @slabs: slabs with objects in the batch.
 * @nr: objects in the batch; 0 when it is not open.
 * @epoch: the cache's rcu epoch when the batch opened (took its first
 *	object); the batch is counted in that epoch's rcu_inflight until its
 *	objects are freed.
 */
struct slabx_rcu_batch {
	struct list_head slabs;
	unsigned long nr;
	unsigned int epoch;
};

/**
 * struct slabx_node - one NUMA node's slabs of one cache
 * @lock: protects everything below.
 * @partial: slabs with both free and allocated objects.
 * @empty: fully free slabs, at most %SLABX_NODE_KEEP_EMPTY.
 * @nr_partial: length of @partial.
 * @nr_empty: length of @empty.
 * @nr_slabs: all slabs of the node, full ones included.
 * @free_objs: free objects in the node's slabs.
 * @rcu_batch: two batches of objects waiting for a grace period: one
 *	takes new objects (@rcu_open), the other may be waiting in @rcu.
 * @rcu_open: index of the batch that takes new objects.
 * @rcu_queued: @rcu is queued, for batch !@rcu_open, closed when it was
 *	queued.
 * @rcu: frees a closed batch after a grace period.
 * @cache: owner, for the @rcu callback.
 * @barn: the node's sheaves, for every CPU of the node.
 */
struct slabx_node {
	raw_spinlock_t lock;
	struct list_head partial;
	struct list_head empty;
	unsigned long nr_partial;
	unsigned long nr_empty;
	unsigned long nr_slabs;
	unsigned long free_objs;
	struct slabx_rcu_batch rcu_batch[2];
	unsigned int rcu_open;
	bool rcu_queued;
	struct rcu_head rcu;
	struct slabx_cache *cache;
	struct slabx_barn barn;
};

/**
 * struct slabx_stats - one CPU's event counters of one cache
 * @count: indexed by &enum slabx_stat_item.
 */
struct slabx_stats {
	unsigned long count[SLABX_NR_STATS];
};

/**
 * struct slabx_cache - an object cache
 * @name: unique name, also the debugfs directory name.
 * @object_size: size asked for by the creator.
 * @stride: distance between objects in a slab.
 * @stride_recip: @stride as a reciprocal, to divide by it on every free
 *	without a division instruction.
 * @align: effective object alignment.
 * @first_offset: offset of the first object from the slab start.
 * @fp_offset: where a free object stores the next free one.
 * @order: page order of every slab.
 * @objs_per_slab: objects in one slab.
 * @flags: SLABX_* flags.
 * @dead: set when slabx_cache_destroy() starts; from then on only
 *	slabx_free() and slabx_free_bulk() of leaked objects, and the use and
 *	return of sheaves prefilled before, are allowed.
 * @ctor: constructor, or NULL.
 * @sheaf_capacity: objects per sheaf; 0 when the cache has no sheaves.
 * @cpu_sheaves: per-CPU sheaves, NULL when the cache has none.
 * @node: per possible node slab lists, indexed by node id.
 * @stats: per-CPU event counters.
 * @rcu_bitmap_longs: words of each pending bitmap of a slab.
 * @rcu_epoch: incremented by slabx_rcu_barrier(); its parity tags each
 *	rcu_free sheaf and fallback batch when it opens.
 * @rcu_inflight: per epoch parity, rcu_free sheaves and fallback batches
 *	opened and not yet freed.
 * @rcu_barrier_mutex: serialises slabx_rcu_barrier() calls.
 * @pool: in pool mode, the objects' pool; NULL otherwise.
 * @nolock_deferred: objects slabx_free_nolock() could not free at once.
 * @nolock_work: frees @nolock_deferred from a safe context.
 * @list: on slabx_caches (or slabx_zombies after a leaky destroy).
 * @debugfs: the cache's debugfs directory.
 */
struct slabx_cache {
	const char *name;
	unsigned int object_size;
	unsigned int stride;
	struct reciprocal_value stride_recip;
	unsigned int align;
	unsigned int first_offset;
	unsigned int fp_offset;
	unsigned int order;
	unsigned int objs_per_slab;
	unsigned int flags;
	bool dead;
	void (*ctor)(void *obj);
	unsigned int sheaf_capacity;
	struct slabx_cpu_sheaves __percpu *cpu_sheaves;
	struct slabx_node **node;
	struct slabx_stats __percpu *stats;
	unsigned int rcu_bitmap_longs;
	unsigned int rcu_epoch;
	atomic_t rcu_inflight[2];
	struct mutex rcu_barrier_mutex;	/* serialises slabx_rcu_barrier() */
	struct slabx_objpool_head *pool;
	struct llist_head nolock_deferred;
	struct irq_work nolock_work;
	struct list_head list;
	struct dentry *debugfs;
};

static inline void slabx_stat_inc(struct slabx_cache *s,
				  enum slabx_stat_item item)
{
	this_cpu_inc(s->stats->count[item]);
}

static inline void slabx_stat_add(struct slabx_cache *s,
				  enum slabx_stat_item item, unsigned long nr)
{
	this_cpu_add(s->stats->count[item], nr);
}

/*
 * Fault injection for tests: @left failures to come, 0 none, negative
 * fail every time. Return: whether this attempt fails.
 */
static inline bool slabx_fault_hit(atomic_t *left)
{
	int nr = atomic_read(left);

	if (likely(!nr))
		return false;
	return nr < 0 || atomic_add_unless(left, -1, 0);
}

/* Whether this metadata allocation is to fail (slabx_fault_inject_meta()). */
bool slabx_meta_fail(void);

bool slabx_cache_misuse(struct slabx_cache *s, const char *what);

/*
 * Whether @s is being destroyed, on paths that must not run then: the use
 * (by the function @what) is reported and the caller refuses it.
 */
static inline bool slabx_cache_dead(struct slabx_cache *s, const char *what)
{
	return unlikely(READ_ONCE(s->dead)) && slabx_cache_misuse(s, what);
}

static inline struct slabx_barn *slabx_local_barn(struct slabx_cache *s)
{
	return &s->node[numa_mem_id()]->barn;
}

/* ---- slab geometry: inline, for the hot paths (the slab layer is slab.c) ---- */

/* Where a free object stores the next free object of its slab. */
static inline void **slabx_fp(struct slabx_cache *s, void *obj)
{
	return obj + s->fp_offset;
}

static inline void *slabx_slab_base(struct slabx_slab *slab)
{
	return slab;
}

static inline void *slabx_slab_end(struct slabx_cache *s,
				   struct slabx_slab *slab)
{
	return slabx_slab_base(slab) + (PAGE_SIZE << s->order);
}

/*
 * The slab an address of the direct map would belong to: slabs are
 * naturally aligned blocks of physical memory, so rounding the physical
 * address down finds the header, with no struct page lookup.
 */
static inline struct slabx_slab *slabx_addr_to_slab(struct slabx_cache *s,
						    const void *obj)
{
	return __va(ALIGN_DOWN(__pa(obj), PAGE_SIZE << s->order));
}

/* Index of an object in its slab (from 0). */
static inline unsigned int slabx_obj_index(struct slabx_cache *s,
					   struct slabx_slab *slab,
					   const void *obj)
{
	return reciprocal_divide(obj - slabx_slab_base(slab) - s->first_offset,
				 s->stride_recip);
}

/**
 * slabx_obj_slab() - the slab of an object being freed
 * @s: the cache the object should belong to.
 * @obj: the object.
 *
 * The cheap checks always run; double frees are only caught later, under
 * the node lock, for %SLABX_DEBUG caches.
 *
 * Return: the slab, or NULL (with a warning, counted in free_invalid) when
 * @obj is not an object of @s.
 */
static __always_inline struct slabx_slab *
slabx_obj_slab(struct slabx_cache *s, void *obj)
{
	struct slabx_slab *slab;
	unsigned long off;

	if (!virt_addr_valid(obj))
		goto bad;
	slab = slabx_addr_to_slab(s, obj);
	if (slab->magic != SLABX_SLAB_MAGIC || slab->cache != s)
		goto bad;
	off = obj - slabx_slab_base(slab);
	if (off < s->first_offset || obj >= slabx_slab_end(s, slab))
		goto bad;
	off -= s->first_offset;
	if (reciprocal_divide(off, s->stride_recip) * s->stride != off)
		goto bad;
	return slab;
bad:
	slabx_stat_inc(s, SLABX_FREE_INVALID);
	WARN_ONCE(1, "slabx: %s: free of %p, not an object of this cache\n",
		  s->name, obj);
	return NULL;
}

/* slabx.c: the module and the caches */
extern struct mutex slabx_caches_mutex;
extern struct list_head slabx_caches;
extern const char * const slabx_stat_names[SLABX_NR_STATS];

/* slab.c: the slab layer, for the layers above it */
void slabx_cache_set_geometry(struct slabx_cache *s, unsigned int size,
			      unsigned int align);
int slabx_nodes_alloc(struct slabx_cache *s);
void slabx_nodes_free(struct slabx_cache *s);
unsigned long slabx_slabs_release_empty(struct slabx_cache *s,
					unsigned long *released);
void slabx_node_put(struct slabx_cache *s, struct slabx_node *n,
		    struct slabx_slab *slab, void *obj,
		    struct list_head *discard);
int slabx_obj_nid(struct slabx_cache *s, const void *obj);
unsigned int slabx_slab_take(struct slabx_cache *s, int nid, void **p,
			     unsigned int max);
unsigned int slabx_slab_fill(struct slabx_cache *s, gfp_t gfp, int nid,
			     void **p, unsigned int nr);
size_t slabx_slab_release(struct slabx_cache *s, void **p, size_t nr,
			  struct list_head *discard);
void slabx_slab_discard_list(struct slabx_cache *s, struct list_head *list);
size_t slabx_slab_flush(struct slabx_cache *s, void **p, size_t nr);
void *slabx_slab_trytake(struct slabx_cache *s, int nid);
void *slabx_slab_trynew(struct slabx_cache *s, int nid);
bool slabx_slab_tryput(struct slabx_cache *s, struct slabx_slab *slab,
		       void *obj);

/* barn.c */
void slabx_barn_init(struct slabx_barn *barn);
struct slabx_sheaf *slabx_barn_get_full(struct slabx_barn *barn);
struct slabx_sheaf *slabx_barn_get_empty(struct slabx_barn *barn);
bool slabx_barn_put_full(struct slabx_barn *barn, struct slabx_sheaf *sheaf);
bool slabx_barn_put_empty(struct slabx_barn *barn, struct slabx_sheaf *sheaf);
struct slabx_sheaf *slabx_barn_exchange_empty(struct slabx_barn *barn,
					      struct slabx_sheaf *empty);
struct slabx_sheaf *slabx_barn_exchange_full(struct slabx_barn *barn,
					     struct slabx_sheaf *full);
struct slabx_sheaf *slabx_barn_try_exchange(struct slabx_barn *barn,
					    struct slabx_sheaf *sheaf);
bool slabx_barn_has_room_for_full(struct slabx_barn *barn);
void slabx_barn_take_all(struct slabx_barn *barn, struct list_head *full,
			 struct list_head *empty);
void slabx_barn_occupancy(struct slabx_barn *barn, unsigned int *nr_full,
			  unsigned int *nr_empty);

/* sheaf.c */
struct slabx_sheaf *slabx_sheaf_new(struct slabx_cache *s, unsigned int capacity,
				    gfp_t gfp);
void slabx_sheaf_flush(struct slabx_cache *s, struct slabx_sheaf *sheaf);
void slabx_sheaf_stash_empty(struct slabx_cache *s, struct slabx_barn *barn,
			     struct slabx_sheaf *sheaf);
bool slabx_may_alloc_sheaf(void);
bool slabx_may_free_pages(void);
unsigned int slabx_sheaf_default_capacity(unsigned int stride);
int slabx_sheaves_init(struct slabx_cache *s);
void slabx_sheaves_destroy(struct slabx_cache *s);
bool slabx_sheaves_main_refill(struct slabx_cache *s, struct slabx_cpu_sheaves *pcs,
			       gfp_t gfp);
bool slabx_sheaves_main_make_room(struct slabx_cache *s,
				  struct slabx_cpu_sheaves *pcs);
bool slabx_sheaves_free_slow(struct slabx_cache *s, int nid, void *obj);
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
	return pcs;
busy:
	preempt_enable();
	return NULL;
}

static __always_inline void pcs_unlock(struct slabx_cpu_sheaves *pcs)
{
	barrier();
	WRITE_ONCE(pcs->in_use, false);
	preempt_enable();
}

/* Free into held sheaves. Return: false when main is full and stays so. */
static __always_inline bool pcs_push(struct slabx_cache *s,
				     struct slabx_cpu_sheaves *pcs, void *obj)
{
	if (unlikely(pcs->main->size == pcs->main->capacity) &&
	    !slabx_sheaves_main_make_room(s, pcs))
		return false;
	pcs->main->objects[pcs->main->size++] = obj;
	return true;
}

/**
 * sheaves_alloc() - allocate from this CPU's sheaves
 * @s: a cache with sheaves.
 * @gfp: allocation context.
 * @nid: node asked for, or NUMA_NO_NODE.
 *
 * Return: an object, or NULL when the caller must take the slab path: the
 * sheaves are busy (re-entrant call), @nid is not this CPU's node, or
 * neither the sheaves, the barn nor the partial slabs had an object.
 */
static __always_inline void *sheaves_alloc(struct slabx_cache *s, gfp_t gfp,
					   int nid)
{
	struct slabx_cpu_sheaves *pcs;
	void *obj = NULL;

	pcs = pcs_lock(s);
	if (!pcs)
		return NULL;
	if ((nid == NUMA_NO_NODE || nid == numa_mem_id()) &&
	    (likely(pcs->main->size) || slabx_sheaves_main_refill(s, pcs, gfp)))
		obj = pcs->main->objects[--pcs->main->size];
	pcs_unlock(pcs);
	if (obj)
		slabx_stat_inc(s, SLABX_ALLOC_FASTPATH);
	return obj;
}

/**
 * sheaves_free() - free into this CPU's sheaves
 * @s: a cache with sheaves.
 * @slab: the slab of @obj.
 * @obj: the object.
 *
 * The object is counted as freed (free and free_fastpath) when done.
 *
 * Return: true when done, false when the caller must take the slab path:
 * the sheaves are busy (re-entrant call, or the cache is being destroyed)
 * or @obj is of another node.
 */
static __always_inline bool sheaves_free(struct slabx_cache *s,
					 struct slabx_slab *slab, void *obj)
{
	struct slabx_cpu_sheaves *pcs;
	bool done;

	pcs = pcs_lock(s);
	if (!pcs)
		return false;
	if (slab->nid != numa_mem_id()) {
		pcs_unlock(pcs);
		return false;
	}
	done = pcs_push(s, pcs, obj);
	if (likely(done)) {
		/* Counted with the sheaves held: destroy waits for this. */
		slabx_stat_inc(s, SLABX_FREE_FASTPATH);
		slabx_stat_inc(s, SLABX_FREE);
	}
	pcs_unlock(pcs);
	return done || slabx_sheaves_free_slow(s, slab->nid, obj);
}

/* slabx.c: work on one CPU in slabx's reclaim-safe workqueue */
void slabx_run_on_cpu(unsigned int cpu, void (*fn)(struct slabx_cache *s),
		      struct slabx_cache *s);

/* nolock.c */
void slabx_nolock_cache_init(struct slabx_cache *s);
void slabx_nolock_cache_destroy(struct slabx_cache *s);

/* rcu_free.c */
bool slabx_slab_defer_rcu(struct slabx_cache *s, struct slabx_slab *slab,
			  void *obj);
void slabx_rcu_wait(struct slabx_cache *s);
bool slabx_slab_rcu_pending(struct slabx_cache *s, struct slabx_slab *slab,
			    void *obj);
unsigned int slabx_rcu_open(struct slabx_cache *s);
void slabx_rcu_put(struct slabx_cache *s, unsigned int epoch);
void slabx_rcu_done(struct slabx_cache *s, unsigned long nr);
void slabx_rcu_free_submit_pcs(struct slabx_cache *s,
			       struct slabx_cpu_sheaves *pcs, int nid);
void slabx_rcu_free_flush_cpu(struct slabx_cache *s, unsigned int cpu);
int slabx_fault_injected_rcu_sheaf(void);

/* objpool.c */
struct seq_file;
typedef void (*slabx_objpool_show_cb)(struct seq_file *m, const void *id,
				      const struct slabx_objpool_stats *st);
void slabx_objpools_show(struct seq_file *m, slabx_objpool_show_cb show);
void slabx_objpools_exit(void);
int slabx_pool_cache_init(struct slabx_cache *s, unsigned int nr);
void slabx_pool_cache_destroy(struct slabx_cache *s);
void *slabx_pool_cache_alloc(struct slabx_cache *s, gfp_t gfp);
void slabx_pool_cache_free(struct slabx_cache *s, void *obj);

/* trylock_pages.c: the page provider */
struct page *slabx_pages_alloc(int nid, gfp_t gfp, unsigned int order);
void slabx_pages_free(struct page *page, unsigned int order);
unsigned long slabx_pages_held(void);
int slabx_fault_injected_pages(void);
void slabx_pages_account(unsigned int order, long nr);
int slabx_nolock_pages_init(void);
void slabx_nolock_pages_exit(void);
void slabx_nolock_pages_show(struct seq_file *m);

/* debugfs.c */
void slabx_debugfs_init(void);
void slabx_debugfs_exit(void);
void slabx_debugfs_add_cache(struct slabx_cache *s);
void slabx_debugfs_remove_cache(struct slabx_cache *s);

#endif /* _SLABX_INTERNAL_H */

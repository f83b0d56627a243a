/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slabx: a cache, its statistics and the module's services to every
 * layer (cache.c); the entry points' declarations (alloc.c).
 */
#ifndef _SLABX_CACHE_H
#define _SLABX_CACHE_H

#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/percpu.h>
#include <linux/reciprocal_div.h>
#include <linux/workqueue.h>

#include "slabx.h"
#include "slabx_reserve.h"

struct dentry;
struct slabx_cpu_sheaves;
struct slabx_node;

/*
 * Each hot entry point has a section of its own that starts a 4 KiB page
 * (its own name, so that the compiler's order of functions puts no
 * padding in it), and each is smaller than a page, so none crosses one.
 * Under QEMU TCG, where two of the benchmark's views run, code that
 * crosses a page runs much slower (its translated blocks are not
 * chained), so which entry point crossed one, changing with every
 * unrelated edit, moved the figures by a third. Declared here, so that
 * the definitions stay plain for kernel-doc.
 */
#define __slabx_hot(name)	__section(".text.slabx_hot." #name)

void *slabx_alloc(struct slabx_cache *s, gfp_t gfp) __slabx_hot(alloc)
	__aligned(PAGE_SIZE);
void slabx_free(struct slabx_cache *s, void *obj) __slabx_hot(free)
	__aligned(PAGE_SIZE);
void *slabx_kmalloc(size_t size, gfp_t gfp) __slabx_hot(kmalloc)
	__aligned(PAGE_SIZE);
void slabx_kfree(const void *ptr) __slabx_hot(kfree) __aligned(PAGE_SIZE);
int slabx_alloc_bulk(struct slabx_cache *s, gfp_t gfp, size_t nr, void **p)
	__slabx_hot(alloc_bulk) __aligned(PAGE_SIZE);
/* The first try of a reserved allocation (reserve.c), as hot. */
void *slabx_alloc_try(struct slabx_cache *s, gfp_t gfp) __slabx_hot(alloc_try)
	__aligned(PAGE_SIZE);

/*
 * An internal cache flag, outside %SLABX_VALID_FLAGS: a size class of
 * slabx_kmalloc(). Its slabs are all of %SLABX_KMALLOC_ORDER, so that a
 * pointer alone finds its slab header, and from it its class.
 */
#define SLABX_KMALLOC_CLASS	0x80000000U
#define SLABX_KMALLOC_ORDER	3

/**
 * struct slabx_stats - one CPU's event counters of one cache
 * @count: indexed by &enum slabx_stat_item.
 * @pcs_alloc: objects slabx_alloc() took from this CPU's sheaves; read as
 *	part of %SLABX_ALLOC and %SLABX_ALLOC_FASTPATH.
 * @pcs_free: objects slabx_free() put into this CPU's sheaves; read as part
 *	of %SLABX_FREE and %SLABX_FREE_FASTPATH.
 * @pcs_free_rcu: objects slabx_free_rcu() put into this CPU's rcu_free
 *	sheaf; read as part of %SLABX_FREE_RCU and %SLABX_FREE_RCU_SHEAF.
 *
 * The hot paths count one event each, in @pcs_alloc, @pcs_free or
 * @pcs_free_rcu, with a plain per-CPU increment: only a holder of this
 * CPU's sheaves of the cache (pcs_lock()) writes them, and an interrupt or
 * NMI that finds the sheaves held takes the slab path, which counts in
 * @count. Always on, at the cost of one increment of a hot line.
 */
struct slabx_stats {
	unsigned long count[SLABX_NR_STATS];
	unsigned long pcs_alloc;
	unsigned long pcs_free;
	unsigned long pcs_free_rcu;
};

/**
 * struct slabx_cache - an object cache
 * @name: unique name, also the debugfs directory name.
 * @object_size: size asked for by the creator.
 * @stride: distance between objects in a slab.
 * @stride_recip: @stride as a reciprocal, to divide by it on every free
 *	without a division instruction.
 * @stride_mask: @stride - 1 when @stride is a power of two (a free checks
 *	the object's offset with it instead of dividing), else 0.
 * @align: effective object alignment.
 * @first_offset: offset of the first object from the slab start.
 * @objs_span: bytes from the first object to the end of the last one.
 * @fp_offset: where a free object stores the next free one.
 * @fp_random: with %CONFIG_SLAB_FREELIST_HARDENED, the secret mixed into
 *	every stored free pointer.
 * @random_seq: with %CONFIG_SLAB_FREELIST_RANDOM, a random permutation of
 *	the object indexes of a slab: new slabs link their free objects in
 *	this order, from a per-slab start; NULL without the option.
 * @random_salt: with @random_seq, the secret mixed into each slab's
 *	start.
 * @order: page order of every slab.
 * @objs_per_slab: objects in one slab.
 * @flags: SLABX_* flags.
 * @dead: set when slabx_cache_destroy() starts; from then on only
 *	slabx_free() and slabx_free_bulk() of leaked objects, and the use and
 *	return of sheaves prefilled before, are allowed.
 * @ctor: constructor, or NULL.
 * @keeps_contents: a free object keeps its contents (a constructor or
 *	%SLABX_TYPESAFE_BY_RCU): its free pointer is stored after it, and
 *	init_on_alloc and init_on_free leave it alone.
 * @sheaf_capacity: objects per sheaf; 0 when the cache has no sheaves.
 * @keep_empty: fully free slabs each node keeps: %SLABX_NODE_KEEP_EMPTY,
 *	or with sheaves as many as hold %SLABX_BARN_FULL_MIN full sheaves,
 *	so that the objects of a burst that overflowed the barn into the
 *	slabs find their slabs again, not the page allocator; within
 *	%SLABX_NODE_KEEP_BYTES.
 *	The shrinker and slabx_cache_shrink() free them all.
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
 * @reserve: objects set aside for the cache's reservations (reserve.c).
 * @nolock_deferred: objects slabx_free_nolock() could not free at once,
 *	linked through their free pointers (see nolock.c).
 * @nolock_work: frees @nolock_deferred from a safe context.
 * @list: on slabx_caches (or slabx_zombies after a leaky destroy).
 * @debugfs: the cache's debugfs directory.
 * @useroffset: start of the part of an object that may be copied to or
 *	from user space (slabx_check_copy()).
 * @usersize: that part's size.
 */
struct slabx_cache {
	const char *name;
	unsigned int object_size;
	unsigned int stride;
	struct reciprocal_value stride_recip;
	unsigned int stride_mask;
	unsigned int align;
	unsigned int first_offset;
	unsigned int objs_span;
	unsigned int fp_offset;
#ifdef CONFIG_SLAB_FREELIST_HARDENED
	unsigned long fp_random;
#endif
	unsigned int *random_seq;
	unsigned long random_salt;
	unsigned int order;
	unsigned int objs_per_slab;
	unsigned int flags;
	bool dead;
	void (*ctor)(void *obj);
	bool keeps_contents;
	unsigned int sheaf_capacity;
	unsigned int keep_empty;
	struct slabx_cpu_sheaves __percpu *cpu_sheaves;
	struct slabx_node **node;
	struct slabx_stats __percpu *stats;
	unsigned int rcu_bitmap_longs;
	unsigned int rcu_epoch;
	atomic_t rcu_inflight[2];
	struct mutex rcu_barrier_mutex;	/* serialises slabx_rcu_barrier() */
	struct slabx_objpool_head *pool;
	struct slabx_reserve reserve;
	void *nolock_deferred;
	struct irq_work nolock_work;
	struct list_head list;
	struct dentry *debugfs;
	unsigned int useroffset;
	unsigned int usersize;
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

unsigned long slabx_stats_read(const struct slabx_stats *st,
			       enum slabx_stat_item item);

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

/*
 * Report a misuse of @s: with a warning every time in a %SLABX_DEBUG cache
 * (where tests expect each one), once per call site for all other caches
 * (a debug cache's warnings there do not count).
 */
#define slabx_report(s, fmt, ...)					\
	do {								\
		static bool __section(".data..once") __reported;	\
		bool __debug = (s)->flags & SLABX_DEBUG;		\
									\
		if (__debug || !__reported) {				\
			if (!__debug)					\
				__reported = true;			\
			WARN(1, fmt, ##__VA_ARGS__);			\
		}							\
	} while (0)

bool slabx_cache_misuse(struct slabx_cache *s, const char *what);

/*
 * Whether @s is being destroyed, on paths that must not run then: the use
 * (by the function @what) is reported and the caller refuses it.
 */
static inline bool slabx_cache_dead(struct slabx_cache *s, const char *what)
{
	return unlikely(READ_ONCE(s->dead)) && slabx_cache_misuse(s, what);
}

/* A node id an allocation may name: %NUMA_NO_NODE or a possible node. */
static inline bool slabx_node_valid(int nid)
{
	return nid == NUMA_NO_NODE ||
	       (nid >= 0 && nid < nr_node_ids && node_possible(nid));
}

/* cache.c: the module and the caches */
extern struct mutex slabx_caches_mutex;
extern struct list_head slabx_caches;
extern const char * const slabx_stat_names[SLABX_NR_STATS];

/* cache.c: a size class of slabx_kmalloc(), listed like any cache */
struct slabx_cache *slabx_cache_create_kmalloc(const char *name,
					       unsigned int size);
int slabx_cache_destroy_kmalloc(struct slabx_cache *s);

/* cache.c: work on one CPU in slabx's reclaim-safe workqueue */
void slabx_run_on_cpu(unsigned int cpu, void (*fn)(struct slabx_cache *s),
		      struct slabx_cache *s);
void slabx_queue_on_cpu(unsigned int cpu, struct work_struct *work);

/* cache.c: free a destroyed cache once its last reservation is gone */
void slabx_cache_reap(struct slabx_cache *s);

/*
 * reserve.c: a %SLABX_DEBUG cache's free of an object that sits in its reserve, where
 * the slab layer's check cannot see it: reported and refused (out of
 * line, off slabx_free()'s path).
 */
static inline bool slabx_reserve_double_free(struct slabx_cache *s, void *obj)
{
	return unlikely(s->flags & SLABX_DEBUG) &&
	       READ_ONCE(s->reserve.book.objects) &&
	       slabx_reserve_refuses(s, obj);
}

#endif /* _SLABX_CACHE_H */

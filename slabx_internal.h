/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slabx internals shared between the module's source files.
 */
#ifndef _SLABX_INTERNAL_H
#define _SLABX_INTERNAL_H

#include <linux/atomic.h>
#include <linux/irq_work.h>
#include <linux/kasan-checks.h>
#include <linux/kasan.h>
#include <linux/kmemleak.h>
#include <linux/llist.h>
#include <linux/lockdep.h>
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
#include <linux/uaccess.h>

#include "slabx.h"
#include "slabx_reserve_book.h"

/*
 * Fully free slabs a node keeps before returning them to the page
 * allocator, at least (see &slabx_cache.keep_empty).
 */
#define SLABX_NODE_KEEP_EMPTY	2
/* And never more than this many bytes of them, whatever the barn holds. */
#define SLABX_NODE_KEEP_BYTES	(256 * 1024)
/* Largest slab order; slabs of big objects use it to bound the waste. */
#define SLABX_MAX_ORDER		5

#define SLABX_SLAB_MAGIC	0x5ab1ab5a

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

/*
 * An internal cache flag, outside %SLABX_VALID_FLAGS: a size class of
 * slabx_kmalloc(). Its slabs are all of %SLABX_KMALLOC_ORDER, so that a
 * pointer alone finds its slab header, and from it its class.
 */
#define SLABX_KMALLOC_CLASS	0x80000000U
#define SLABX_KMALLOC_ORDER	3

/*
 * Soft limits on the sheaves one barn holds: full ones as many as hold
 * %SLABX_BARN_FULL_BYTES of objects, within [%SLABX_BARN_FULL_MIN,
 * %SLABX_BARN_FULL_MAX] (slabx_barn_max_full()); empty ones
 * %SLABX_BARN_MAX_EMPTY.
 */
#define SLABX_BARN_FULL_BYTES	(256 * 1024)
#define SLABX_BARN_FULL_MIN	10
#define SLABX_BARN_FULL_MAX	32
#define SLABX_BARN_MAX_EMPTY	10

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
 * struct slabx_barn - one node's store of full and empty sheaves
 * @lock: protects the lists and counts; the counts are also read without
 *	it, to leave an empty barn unlocked (see barn.c).
 * @full: sheaves with size == capacity.
 * @empty: sheaves with size == 0.
 * @nr_full: length of @full.
 * @nr_empty: length of @empty.
 * @max_full: the most full sheaves it keeps (slabx_barn_max_full()).
 */
struct slabx_barn {
	raw_spinlock_t lock;
	struct list_head full;
	struct list_head empty;
	unsigned int nr_full;
	unsigned int nr_empty;
	unsigned int max_full;
};

/**
 * struct slabx_reserve - a cache's reserve, shared by its reservations
 * @mutex: serialises slabx_reserve(), slabx_unreserve() and the destroy
 *	of the reserve, which alone change @sheaves and @reservations and
 *	add or free sheaves.
 * @lock: protects @book, @stack, @empty and every reservation's held
 *	count; a leaf, taken with IRQs saved.
 * @book: the counts of the guarantee (slabx_reserve_book.h); objects and
 *	target are also read without @lock.
 * @stack: the sheaves holding objects, the first one the top of the
 *	stack, the others full.
 * @empty: the reserve's empty sheaves.
 * @sheaves: sheaves of the reserve: room for the target at least.
 * @capacity: room in each of them.
 * @reservations: live reservations.
 * @handles: live reservations, plus one for the cache until its destroy
 *	is done; slabx_unreserve() counts its own down after it released
 *	@mutex: the last one out frees a destroyed cache.
 * @meta_bytes: bytes of the sheaves and of the reservations' handles.
 */
struct slabx_reserve {
	struct mutex mutex;	/* serialises changes of the reserve's size */
	raw_spinlock_t lock;
	struct slabx_reserve_book book;
	struct list_head stack;
	struct list_head empty;
	unsigned long sheaves;
	unsigned int capacity;
	unsigned int reservations;
	atomic_t handles;
	size_t meta_bytes;
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
 *	the age monitor on another CPU (rcu_free.c).
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

/**
 * struct slabx_slab - header at the start of every slab
 * @list: on its node's partial, full or empty list.
 * @rcu: once the slab has left its %SLABX_TYPESAFE_BY_RCU cache, queued
 *	for the grace period after which its pages go back.
 * @cache: owner.
 * @freelist: first free object; each free object holds the next one.
 * @inuse: objects handed out from this slab.
 * @nid: node of the slab's pages.
 * @magic: %SLABX_SLAB_MAGIC, checked on every free.
 * @order: with @rcu, the page order of the slab (its cache may be gone
 *	when the grace period ends).
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
	union {
		struct list_head list;
		struct rcu_head rcu;
	};
	struct slabx_cache *cache;
	void *freelist;
	unsigned int inuse;
	unsigned int nid;
	unsigned int magic;
	unsigned int order;
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
 * @full: slabs with every object allocated (or waiting for RCU).
 * @empty: fully free slabs, at most the cache's keep_empty.
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
	struct list_head full;
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
 * (where tests expect each one), once per call site otherwise.
 */
#define slabx_report(s, fmt, ...)					\
	do {								\
		static bool __section(".data..once") __reported;	\
									\
		if (((s)->flags & SLABX_DEBUG) || !__reported) {	\
			__reported = true;				\
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

static inline struct slabx_barn *slabx_local_barn(struct slabx_cache *s)
{
	return &s->node[numa_mem_id()]->barn;
}

/* ---- slab geometry: inline, for the hot paths (the slab layer is slab.c) ---- */

/*
 * The free pointer: where a free object stores the next free object of its
 * slab. It lives in free (KASAN-poisoned) memory, so it is read and written
 * without KASAN checks, and with %CONFIG_SLAB_FREELIST_HARDENED it is
 * stored mixed with a per-cache secret and its own address, so that a
 * stray write or a leaked value does not give a usable pointer.
 */
static inline unsigned long slabx_fp_mix(const struct slabx_cache *s,
					 unsigned long val, void *where)
{
#ifdef CONFIG_SLAB_FREELIST_HARDENED
	return val ^ s->fp_random ^ swab((unsigned long)where);
#else
	return val;
#endif
}

static __no_kasan_or_inline void *slabx_fp_get(const struct slabx_cache *s,
					       void *obj)
{
	unsigned long *where = obj + s->fp_offset;

	return (void *)slabx_fp_mix(s, *where, where);
}

static __no_kasan_or_inline void slabx_fp_set(const struct slabx_cache *s,
					      void *obj, void *next)
{
	unsigned long *where = obj + s->fp_offset;

	*where = slabx_fp_mix(s, (unsigned long)next, where);
}

static inline void *slabx_slab_base(struct slabx_slab *slab)
{
	return slab;
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

/* The object of index @idx in its slab. */
static inline void *slabx_slab_obj(struct slabx_cache *s,
				   struct slabx_slab *slab, unsigned int idx)
{
	return slabx_slab_base(slab) + s->first_offset + idx * s->stride;
}

/* Index of an object in its slab (from 0). */
static inline unsigned int slabx_obj_index(struct slabx_cache *s,
					   struct slabx_slab *slab,
					   const void *obj)
{
	return reciprocal_divide(obj - slabx_slab_base(slab) - s->first_offset,
				 s->stride_recip);
}

/*
 * The header of the slab of @order a pointer a user gave would be in, when
 * that memory is mapped and holds a slab header (its magic), else NULL.
 * The memory may be anyone's (KASAN may have poisoned it): it is read
 * without KASAN checks.
 *
 * Slabs live in the direct map. On x86-64 that is [PAGE_OFFSET,
 * high_memory), where holes are left unmapped, as are pages taken out of
 * it (secretmem's, KFENCE's guard pages): the magic is read with
 * __get_kernel_nofault(), a plain load whose exception-table entry turns
 * a fault into a return of NULL. A fault on a kernel address never
 * sleeps, in any context, so no pagefault_disable() is needed. It
 * replaces asking pfn_valid(), whose two-level lookup in a
 * preemption-off section was the largest part of the free path's
 * pointer check. Addresses above high_memory (vmalloc, ioremap, the
 * kernel image) are never read. Elsewhere virt_addr_valid() bounds the
 * address (User-mode Linux's is inline).
 */
#if defined(CONFIG_X86_64) && !defined(CONFIG_UML)
static __always_inline struct slabx_slab *
slabx_ptr_to_slab(const void *obj, unsigned int order)
{
	unsigned long addr = (unsigned long)obj;
	struct slabx_slab *slab;
	unsigned int magic;

	if (addr < PAGE_OFFSET || addr >= (unsigned long)high_memory)
		return NULL;
	slab = __va(ALIGN_DOWN(addr - PAGE_OFFSET, PAGE_SIZE << order));
	__get_kernel_nofault(&magic, &slab->magic, unsigned int, unmapped);
	return magic == SLABX_SLAB_MAGIC ? slab : NULL;
unmapped:
	return NULL;
}
#else
static __no_kasan_or_inline unsigned int
slabx_slab_magic(const struct slabx_slab *slab)
{
	return slab->magic;
}

static __always_inline struct slabx_slab *
slabx_ptr_to_slab(const void *obj, unsigned int order)
{
	struct slabx_slab *slab;

	if (!virt_addr_valid(obj))
		return NULL;
	slab = __va(ALIGN_DOWN(__pa(obj), PAGE_SIZE << order));
	return slabx_slab_magic(slab) == SLABX_SLAB_MAGIC ? slab : NULL;
}
#endif

/*
 * Whether @slab, a slab header slabx_ptr_to_slab() found from a pointer a
 * user gave, is a header of @s. It may be memory a foreign pointer's
 * block begins with (KASAN may have poisoned it): read without KASAN
 * checks.
 */
static __no_kasan_or_inline bool slabx_slab_header_ok(struct slabx_cache *s,
						      struct slabx_slab *slab)
{
	return slab->cache == s;
}

/* The slab header of a pointer a user gave back to @s (see above). */
static __always_inline struct slabx_slab *
slabx_user_addr_to_slab(struct slabx_cache *s, const void *obj)
{
	return slabx_ptr_to_slab(obj, s->order);
}

/**
 * slabx_slab_holds() - whether an object being freed is an object of a slab
 * @s: the cache the object should belong to.
 * @slab: its slab, whose header was checked, or NULL for none.
 * @obj: the object.
 *
 * Return: true, or false (with a warning, counted in free_invalid) when
 * @obj is not the start of an object of @slab.
 */
static __always_inline bool slabx_slab_holds(struct slabx_cache *s,
					     struct slabx_slab *slab,
					     void *obj)
{
	unsigned long off;

	if (!slab)
		goto bad;
	/* Wraps to a huge offset below the first object. */
	off = (unsigned long)(obj - slabx_slab_base(slab)) - s->first_offset;
	/* In the header, in the space after the last object, or beyond. */
	if (off >= s->objs_span)
		goto bad;
	/* Inside an object. */
	if (s->stride_mask ? off & s->stride_mask :
	    reciprocal_divide(off, s->stride_recip) * s->stride != off)
		goto bad;
	return true;
bad:
	slabx_stat_inc(s, SLABX_FREE_INVALID);
	slabx_report(s, "slabx: %s: free of %p, not an object of this cache\n",
		     s->name, obj);
	return false;
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

	slab = slabx_user_addr_to_slab(s, obj);
	if (!slab || !slabx_slab_header_ok(s, slab))
		slab = NULL;
	return slabx_slab_holds(s, slab, obj) ? slab : NULL;
}

/*
 * After init_on_free cleared an object, its free pointer is all that is
 * left; it may reach past a tiny object, into poisoned bytes.
 */
static __no_kasan_or_inline void slabx_fp_wipe(const struct slabx_cache *s,
					       void *obj)
{
	*(unsigned long *)(obj + s->fp_offset) = 0;
}

/* ---- what the kernel's memory checkers see (inline: hot paths) ---------- */

/*
 * KASAN (generic): a free object is poisoned wherever it waits, the bytes
 * between the end of an object and the next one are a redzone, and an
 * allocation unpoisons exactly the object's size. The shadow is written
 * directly (kasan_mem_to_shadow() is inline; KASAN's own poisoning helpers
 * are not exported to modules), with the values KASAN's reports decode
 * (mm/kasan/kasan.h): a free object reads as slab-use-after-free, the
 * redzone as slab-out-of-bounds. Shadow writes are plain stores, safe in
 * any context, NMI included.
 */
#ifdef CONFIG_KASAN_GENERIC
#define SLABX_KASAN_GRANULE	BIT(KASAN_SHADOW_SCALE_SHIFT)
#define SLABX_KASAN_FREE	0xfb
#define SLABX_KASAN_REDZONE	0xfc
/* Redzone bytes at least, after every object (KASAN builds only). */
#define SLABX_KASAN_MIN_REDZONE	16

static inline void slabx_kasan_shadow(const void *addr, size_t size, u8 value)
{
	__memset(kasan_mem_to_shadow(addr), value,
		 size >> KASAN_SHADOW_SCALE_SHIFT);
}

/* Accessible: the object's bytes, a partial last granule included. */
static inline void slabx_kasan_unpoison(struct slabx_cache *s, void *obj)
{
	size_t whole = round_down(s->object_size, SLABX_KASAN_GRANULE);
	u8 part = s->object_size & (SLABX_KASAN_GRANULE - 1);

	slabx_kasan_shadow(obj, whole, 0);
	if (part)
		__memset(kasan_mem_to_shadow(obj + whole), part, 1);
}

static inline void slabx_kasan_poison(struct slabx_cache *s, void *obj)
{
	slabx_kasan_shadow(obj, round_up(s->object_size, SLABX_KASAN_GRANULE),
			   SLABX_KASAN_FREE);
}

/*
 * An object of a slabx_kmalloc() size class: only the @size bytes asked
 * for are accessible, the rest of the class's object is redzone (as
 * kmalloc()'s objects are for KASAN).
 */
static inline void slabx_kasan_kmalloc(struct slabx_cache *s, void *obj,
				       size_t size)
{
	size_t used = round_up(size, SLABX_KASAN_GRANULE);
	u8 part = size & (SLABX_KASAN_GRANULE - 1);

	if (part)
		__memset(kasan_mem_to_shadow(obj + size - part), part, 1);
	slabx_kasan_shadow(obj + used,
			   round_up(s->object_size, SLABX_KASAN_GRANULE) - used,
			   SLABX_KASAN_REDZONE);
}

/* A new slab's object: free, followed by its redzone. */
static inline void slabx_kasan_poison_new(struct slabx_cache *s, void *obj)
{
	size_t used = round_up(s->object_size, SLABX_KASAN_GRANULE);

	slabx_kasan_poison(s, obj);
	slabx_kasan_shadow(obj + used, s->stride - used, SLABX_KASAN_REDZONE);
}

/*
 * An object given to slabx_free_rcu() stays accessible until its grace
 * period ends, since readers may still use it: KASAN cannot tell it from
 * a live object, and would let a second free through. So it is marked
 * meanwhile, in the shadow of the first granule of its redzone (there are
 * two at least): %SLABX_KASAN_RCU_WAIT instead of %SLABX_KASAN_REDZONE,
 * from slabx_free_rcu() until its grace period ended (rcu_free.c). KASAN
 * decodes both as slab-out-of-bounds (the value is its
 * KASAN_PAGE_REDZONE), so a reader's overflow still reads as one.
 */
#define SLABX_KASAN_RCU_WAIT	0xfe

static inline u8 *slabx_kasan_rcu_mark(struct slabx_cache *s, const void *obj)
{
	return kasan_mem_to_shadow(obj + round_up(s->object_size,
						  SLABX_KASAN_GRANULE));
}

/* Mark @obj as waiting for its grace period, or unmark it. */
static inline void slabx_kasan_rcu_wait(struct slabx_cache *s, void *obj,
					bool wait)
{
	__memset(slabx_kasan_rcu_mark(s, obj),
		 wait ? SLABX_KASAN_RCU_WAIT : SLABX_KASAN_REDZONE, 1);
}

/* Whether @obj is marked (the shadow is read without KASAN checks). */
static __no_kasan_or_inline bool slabx_kasan_rcu_waits(struct slabx_cache *s,
						       const void *obj)
{
	return READ_ONCE(*slabx_kasan_rcu_mark(s, obj)) == SLABX_KASAN_RCU_WAIT;
}
#else
#define SLABX_KASAN_MIN_REDZONE	0
static inline void slabx_kasan_shadow(const void *addr, size_t size, u8 value) { }
static inline void slabx_kasan_unpoison(struct slabx_cache *s, void *obj) { }
static inline void slabx_kasan_poison(struct slabx_cache *s, void *obj) { }
static inline void slabx_kasan_poison_new(struct slabx_cache *s, void *obj) { }
static inline void slabx_kasan_kmalloc(struct slabx_cache *s, void *obj,
				       size_t size) { }
static inline void slabx_kasan_rcu_wait(struct slabx_cache *s, void *obj,
					bool wait) { }
static inline bool slabx_kasan_rcu_waits(struct slabx_cache *s,
					 const void *obj)
{
	return false;
}
#endif

void slabx_free_rcu_pending_report(struct slabx_cache *s, void *obj);

/**
 * slabx_free_rcu_pending() - refuse a free of an object that waits for
 *	its grace period after slabx_free_rcu()
 * @s: the cache.
 * @obj: an object of @s that a user frees (slabx_obj_slab() said so), by
 *	any free path: slabx_free(), slabx_free_rcu(), the bulk, kfree and
 *	nolock frees, a free through a reservation.
 *
 * Under KASAN such an object is marked until its grace period ends (see
 * %SLABX_KASAN_RCU_WAIT), and a free of it meanwhile is a double free
 * that KASAN cannot see (the object is not poisoned yet): it is reported
 * with a warning every time, as KASAN reports every double free, and
 * counted in free_invalid. slabx_kasan_free_ok() checks it, so the free
 * paths that call that need not call this too. Without KASAN nothing is
 * marked and this is always false, at no cost: a %SLABX_DEBUG cache finds
 * such an object pending in its slab instead (it has no rcu_free sheaf),
 * and %CONFIG_SLAB_FREELIST_HARDENED catches the naive double
 * slabx_free_rcu() in rcu_free.c.
 *
 * Context: any.
 * Return: true when the free must be refused and @obj left alone.
 */
static __always_inline bool slabx_free_rcu_pending(struct slabx_cache *s,
						   void *obj)
{
	if (likely(!slabx_kasan_rcu_waits(s, obj)))
		return false;
	slabx_free_rcu_pending_report(s, obj);
	return true;
}

#ifdef CONFIG_KASAN_GENERIC
/*
 * Whether @obj may be freed: an object KASAN sees free (a double free, or
 * a free of an object that never left the cache) gets a KASAN report
 * naming the caller, and is refused; so is one that waits for its grace
 * period after slabx_free_rcu() (slabx_free_rcu_pending()).
 */
static __always_inline bool slabx_kasan_free_ok(struct slabx_cache *s,
						void *obj)
{
	if (unlikely(!kasan_check_read(obj, 1))) {
		slabx_stat_inc(s, SLABX_FREE_INVALID);
		return false;
	}
	return !slabx_free_rcu_pending(s, obj);
}
#else
static inline bool slabx_kasan_free_ok(struct slabx_cache *s, void *obj)
{
	return true;
}
#endif

/*
 * init_on_alloc and init_on_free, as SLUB applies them to kmem_cache
 * objects: not to objects whose state must survive a free, constructed or
 * typesafe by RCU (%__GFP_ZERO still zeroes, as documented).
 */
static __always_inline bool slabx_init_on_alloc(struct slabx_cache *s,
						gfp_t gfp)
{
	if (static_branch_maybe(CONFIG_INIT_ON_ALLOC_DEFAULT_ON, &init_on_alloc))
		return !s->keeps_contents || (gfp & __GFP_ZERO);
	return gfp & __GFP_ZERO;
}

static __always_inline bool slabx_init_on_free(struct slabx_cache *s)
{
	return static_branch_maybe(CONFIG_INIT_ON_FREE_DEFAULT_ON,
				   &init_on_free) && !s->keeps_contents;
}

/*
 * Whether KASAN sees a free object as free: not in a typesafe-by-RCU
 * cache, whose readers may read it until a grace period has passed.
 */
static __always_inline bool slabx_kasan_free_poisons(struct slabx_cache *s)
{
	return IS_ENABLED(CONFIG_KASAN_GENERIC) &&
	       !(s->flags & SLABX_TYPESAFE_BY_RCU);
}

/**
 * slabx_alloc_hook() - an object is handed to a user
 * @s: its cache.
 * @obj: the object.
 * @gfp: the allocation's flags (%__GFP_ZERO, and kmemleak's context).
 * @track: register the object with kmemleak (false where kmemleak may not
 *	be called, and for pool-mode objects, which live inside a block
 *	kmemleak already knows).
 */
static __always_inline void slabx_alloc_hook(struct slabx_cache *s, void *obj,
					     gfp_t gfp, bool track)
{
	slabx_kasan_unpoison(s, obj);
	if (unlikely(slabx_init_on_alloc(s, gfp)))
		memset(obj, 0, s->object_size);
	else if (unlikely(slabx_init_on_free(s)))
		slabx_fp_wipe(s, obj);
	if (track)
		kmemleak_alloc(obj, s->object_size, 1, gfp);
}

/**
 * slabx_free_hook() - an object a user gave back becomes free
 * @s: its cache.
 * @obj: the object, accepted (slabx_kasan_free_ok() and the cache's own
 *	checks said so).
 * @untrack: tell kmemleak (not in NMI; freeing an object kmemleak does not
 *	know is harmless).
 *
 * Context: any; the free pointer and what slabx keeps in a free object
 * are written afterwards, without KASAN checks.
 */
static __always_inline void slabx_free_hook(struct slabx_cache *s, void *obj,
					    bool untrack)
{
	if (untrack)
		kmemleak_free(obj);
	if (unlikely(slabx_init_on_free(s)))
		memset(obj, 0, s->object_size);
	if (slabx_kasan_free_poisons(s))
		slabx_kasan_poison(s, obj);
}

/* slabx.c: the module and the caches */
extern struct mutex slabx_caches_mutex;
extern struct list_head slabx_caches;
extern const char * const slabx_stat_names[SLABX_NR_STATS];

/* slab.c: the slab layer, for the layers above it */
void slabx_cache_set_geometry(struct slabx_cache *s, unsigned int size,
			      unsigned int align);
int slabx_cache_init_freelist(struct slabx_cache *s);
void slabx_cache_free_freelist(struct slabx_cache *s);
int slabx_nodes_alloc(struct slabx_cache *s);
void slabx_nodes_free(struct slabx_cache *s);
unsigned long slabx_slabs_release_empty(struct slabx_cache *s,
					unsigned long *released);
void slabx_slabs_report_leaks(struct slabx_cache *s, unsigned int max);
void slabx_slab_account_exit(void);
void slabx_node_put(struct slabx_cache *s, struct slabx_node *n,
		    struct slabx_slab *slab, void *obj,
		    struct list_head *discard);
int slabx_obj_nid(struct slabx_cache *s, const void *obj);
bool slabx_slab_obj_free(struct slabx_cache *s, void *obj);
bool slabx_slab_has_free(struct slabx_cache *s, struct slabx_slab *slab,
			 void *obj);
unsigned int slabx_slab_take(struct slabx_cache *s, int nid, void **p,
			     unsigned int max);
unsigned int slabx_slab_fill(struct slabx_cache *s, gfp_t gfp, int nid,
			     void **p, unsigned int nr);
size_t slabx_slab_release(struct slabx_cache *s, void **p, size_t nr,
			  struct list_head *discard, bool fresh);
void slabx_slab_discard_list(struct slabx_cache *s, struct list_head *list);
size_t slabx_slab_flush(struct slabx_cache *s, void **p, size_t nr);
size_t slabx_slab_free_user(struct slabx_cache *s, void **p, size_t nr);
void *slabx_slab_trytake(struct slabx_cache *s, int nid);
void *slabx_slab_trynew(struct slabx_cache *s, int nid);
bool slabx_slab_tryput(struct slabx_cache *s, struct slabx_slab *slab,
		       void *obj);
void slabx_double_free(struct slabx_cache *s, void *obj, bool in_sheaf);

/* The tracepoints, declared (slabx.c defines them). */
#include "slabx_trace.h"

/* barn.c */
unsigned int slabx_barn_max_full(unsigned int capacity, unsigned int stride);
void slabx_barn_init(struct slabx_barn *barn, unsigned int max_full);
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
unsigned int slabx_barn_fill_empty(struct slabx_barn *barn, void **objects,
				   unsigned int nr, unsigned int capacity);
void slabx_barn_take_all(struct slabx_barn *barn, struct list_head *full,
			 struct list_head *empty);
void slabx_barn_occupancy(struct slabx_barn *barn, unsigned int *nr_full,
			  unsigned int *nr_empty);

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
 * entry. The checkers' hooks and tracepoints run outside the held section,
 * in the entry points (see slabx_free()); scripts/fastpath-check.sh (part
 * of make lint) checks the rule on slabx.ko built for Debian's 6.12.
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

/* alloc.c: an allocation whose failure the caller handles */
void *slabx_alloc_try(struct slabx_cache *s, gfp_t gfp);

/* slabx.c: a size class of slabx_kmalloc(), listed like any cache */
struct slabx_cache *slabx_cache_create_kmalloc(const char *name,
					       unsigned int size);
int slabx_cache_destroy_kmalloc(struct slabx_cache *s);

/* kmalloc.c */
int slabx_kmalloc_init(void);
void slabx_kmalloc_exit(void);

/* slabx.c: work on one CPU in slabx's reclaim-safe workqueue */
void slabx_run_on_cpu(unsigned int cpu, void (*fn)(struct slabx_cache *s),
		      struct slabx_cache *s);
void slabx_queue_on_cpu(unsigned int cpu, struct work_struct *work);

/* nolock.c */
void slabx_nolock_cache_init(struct slabx_cache *s);
void slabx_nolock_cache_destroy(struct slabx_cache *s);

/* reserve.c */
void slabx_reserve_init(struct slabx_cache *s, unsigned int sheaf_capacity);
unsigned int slabx_reserve_destroy(struct slabx_cache *s);
void slabx_reserve_info(struct slabx_cache *s, struct slabx_info *info);
bool slabx_reserve_refuses(struct slabx_cache *s, void *obj);

/* slabx.c: free a destroyed cache once its last reservation is gone */
void slabx_cache_reap(struct slabx_cache *s);

/*
 * A %SLABX_DEBUG cache's free of an object that sits in its reserve, where
 * the slab layer's check cannot see it: reported and refused (out of
 * line, off slabx_free()'s path).
 */
static inline bool slabx_reserve_double_free(struct slabx_cache *s, void *obj)
{
	return unlikely(s->flags & SLABX_DEBUG) &&
	       READ_ONCE(s->reserve.book.objects) &&
	       slabx_reserve_refuses(s, obj);
}

/* slab_rcu.c */
unsigned int slabx_rcu_open(struct slabx_cache *s);
void slabx_rcu_put(struct slabx_cache *s, unsigned int epoch);
void slabx_rcu_done(struct slabx_cache *s, unsigned long nr);
unsigned int slabx_rcu_epoch_next(struct slabx_cache *s);
void slabx_rcu_epoch_wait(struct slabx_cache *s, unsigned int old);
bool slabx_slab_defer_rcu(struct slabx_cache *s, struct slabx_slab *slab,
			  void *obj);
bool slabx_slab_rcu_pending(struct slabx_cache *s, struct slabx_slab *slab,
			    void *obj);

/* rcu_free.c */
void slabx_rcu_wait(struct slabx_cache *s);
void slabx_rcu_free_submit_pcs(struct slabx_cache *s,
			       struct slabx_cpu_sheaves *pcs, int nid);
void slabx_rcu_free_flush_cpu(struct slabx_cache *s, unsigned int cpu);
int slabx_fault_injected_rcu_sheaf(void);

/* rcu_monitor.c */
void slabx_rcu_monitor_arm(void);
void slabx_rcu_free_monitor_exit(void);

/* objpool.c */
struct seq_file;
typedef void (*slabx_objpool_show_cb)(struct seq_file *m, const void *id,
				      const struct slabx_objpool_stats *st);
void slabx_objpools_show(struct seq_file *m, slabx_objpool_show_cb show);
void slabx_objpools_exit(void);
int slabx_pool_cache_init(struct slabx_cache *s, unsigned int nr);
void slabx_pool_cache_destroy(struct slabx_cache *s);
void *slabx_pool_cache_alloc(struct slabx_cache *s, gfp_t gfp);
void slabx_pool_hand_out(struct slabx_cache *s, void *obj, gfp_t gfp);
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

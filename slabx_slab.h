/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slabx: the slab layer (slab.c, slab_rcu.c): slabs, their geometry,
 * inline for the hot paths, and each node's slab lists.
 */
#ifndef _SLABX_SLAB_H
#define _SLABX_SLAB_H

#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mm_types.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/topology.h>
#include <linux/uaccess.h>

#include "slabx_barn.h"
#include "slabx_cache.h"

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

/**
 * slabx_slab_obj_offset() - where in its object a pointer into a slab points
 * @s: a cache with slabs.
 * @ptr: any pointer.
 *
 * Return: the offset of @ptr from the start of the object whose stride it
 * is in (at or past the object size: in what follows the object), or -1
 * when @ptr is in no object's stride of a slab of @s.
 */
static inline long slabx_slab_obj_offset(struct slabx_cache *s,
					 const void *ptr)
{
	struct slabx_slab *slab = slabx_user_addr_to_slab(s, ptr);
	unsigned long off;

	if (!slab || !slabx_slab_header_ok(s, slab))
		return -1;
	off = (unsigned long)(ptr - slabx_slab_base(slab)) - s->first_offset;
	if (off >= s->objs_span)
		return -1;
	return off - reciprocal_divide(off, s->stride_recip) * s->stride;
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
/* What debugfs shows of a node's slabs. */
struct slabx_node_counts {
	unsigned long slabs;
	unsigned long partial;
	unsigned long empty;
	unsigned long free;
};

void slabx_node_counts(struct slabx_cache *s, int nid,
		       struct slabx_node_counts *c);
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

#endif /* _SLABX_SLAB_H */

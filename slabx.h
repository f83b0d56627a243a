/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slabx: an out-of-tree object cache allocator on top of the page allocator.
 *
 * This is the public API. Every function declared here is exported with
 * EXPORT_SYMBOL_GPL by slabx.ko and documented where it is defined.
 */
#ifndef _SLABX_H
#define _SLABX_H

#include <linux/gfp_types.h>
#include <linux/types.h>

struct slabx_cache;

/* Longest cache name accepted, without the terminating NUL. */
#define SLABX_NAME_MAX		47
/* Object sizes accepted by slabx_cache_create(), in bytes. */
#define SLABX_MIN_SIZE		1
#define SLABX_MAX_SIZE		(32 * 1024)
/* Largest alignment accepted by slabx_cache_create(), in bytes. */
#define SLABX_MAX_ALIGN		4096

/* Align objects to the L1 cache line (at least). */
#define SLABX_HWCACHE_ALIGN	0x1U
/* Check every free for double frees and foreign pointers (slow). */
#define SLABX_DEBUG		0x2U
#define SLABX_VALID_FLAGS	(SLABX_HWCACHE_ALIGN | SLABX_DEBUG)

/**
 * struct slabx_cache_args - optional parameters of a new cache
 * @align: minimum object alignment in bytes, a power of two no larger than
 *	%SLABX_MAX_ALIGN, or 0 for the natural alignment of a pointer.
 * @flags: any of %SLABX_VALID_FLAGS.
 * @ctor: called once for every object when the slab holding it is created,
 *	never when an object is reused. Objects must be returned to the cache
 *	in their constructed state. May be NULL.
 */
struct slabx_cache_args {
	unsigned int align;
	unsigned int flags;
	void (*ctor)(void *obj);
};

/**
 * enum slabx_stat_item - event counters kept per CPU for every cache
 * @SLABX_ALLOC: objects handed out.
 * @SLABX_FREE: objects given back.
 * @SLABX_ALLOC_SLOWPATH: lock holds on a node's slab lists to allocate.
 * @SLABX_FREE_SLOWPATH: lock holds on a node's slab lists to free.
 * @SLABX_ALLOC_FAIL: allocations that returned NULL (or a failed bulk).
 * @SLABX_SLAB_NEW: slabs created from the page allocator.
 * @SLABX_SLAB_DISCARD: slabs given back to the page allocator.
 * @SLABX_FREE_INVALID: frees refused as foreign, misaligned or double.
 * @SLABX_NR_STATS: number of counters.
 */
enum slabx_stat_item {
	SLABX_ALLOC,
	SLABX_FREE,
	SLABX_ALLOC_SLOWPATH,
	SLABX_FREE_SLOWPATH,
	SLABX_ALLOC_FAIL,
	SLABX_SLAB_NEW,
	SLABX_SLAB_DISCARD,
	SLABX_FREE_INVALID,
	SLABX_NR_STATS
};

/**
 * struct slabx_info - a snapshot of a cache's geometry and occupancy
 * @object_size: size asked for at creation.
 * @stride: distance between two objects in a slab.
 * @align: effective alignment of every object.
 * @order: every slab is 2^@order pages.
 * @objs_per_slab: objects carved from one slab.
 * @slabs: slabs held, all nodes.
 * @objects_total: objects in those slabs.
 * @objects_inuse: objects not free in a slab.
 */
struct slabx_info {
	unsigned int object_size;
	unsigned int stride;
	unsigned int align;
	unsigned int order;
	unsigned int objs_per_slab;
	unsigned long slabs;
	unsigned long objects_total;
	unsigned long objects_inuse;
};

struct slabx_cache *slabx_cache_create(const char *name, unsigned int size,
				       const struct slabx_cache_args *args);
int slabx_cache_destroy(struct slabx_cache *s);

void *slabx_alloc(struct slabx_cache *s, gfp_t gfp);
void *slabx_alloc_node(struct slabx_cache *s, gfp_t gfp, int nid);
void slabx_free(struct slabx_cache *s, void *obj);
int slabx_alloc_bulk(struct slabx_cache *s, gfp_t gfp, size_t nr, void **p);
void slabx_free_bulk(struct slabx_cache *s, size_t nr, void **p);

void slabx_cache_info(struct slabx_cache *s, struct slabx_info *info);
unsigned long slabx_cache_stat(struct slabx_cache *s,
			       enum slabx_stat_item item);

#endif /* _SLABX_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slabx internals shared between the module's source files.
 */
#ifndef _SLABX_INTERNAL_H
#define _SLABX_INTERNAL_H

#include <linux/list.h>
#include <linux/mm_types.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>

#include "slabx.h"

/* Fully free slabs a node keeps before returning them to the page allocator. */
#define SLABX_NODE_KEEP_EMPTY	2
/* Largest slab order; slabs of big objects use it to bound the waste. */
#define SLABX_MAX_ORDER		5

#define SLABX_SLAB_MAGIC	0x5ab1ab5a

/**
 * struct slabx_slab - header at the start of every slab
 * @list: on its node's partial or empty list, or self-linked when full.
 * @cache: owner.
 * @freelist: first free object; each free object holds the next one.
 * @inuse: objects handed out from this slab.
 * @nid: node of the slab's pages.
 * @magic: %SLABX_SLAB_MAGIC, checked on every free.
 *
 * A slab is a 2^order block of pages from the page provider. Its first page
 * frame number is aligned to 2^order, so the header of the slab holding an
 * object is found from the object's address alone, without any struct page
 * field.
 */
struct slabx_slab {
	struct list_head list;
	struct slabx_cache *cache;
	void *freelist;
	unsigned int inuse;
	unsigned int nid;
	unsigned int magic;
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
 */
struct slabx_node {
	raw_spinlock_t lock;
	struct list_head partial;
	struct list_head empty;
	unsigned long nr_partial;
	unsigned long nr_empty;
	unsigned long nr_slabs;
	unsigned long free_objs;
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
 * @align: effective object alignment.
 * @first_offset: offset of the first object from the slab start.
 * @fp_offset: where a free object stores the next free one.
 * @order: page order of every slab.
 * @objs_per_slab: objects in one slab.
 * @flags: SLABX_* flags.
 * @ctor: constructor, or NULL.
 * @node: per possible node slab lists, indexed by node id.
 * @stats: per-CPU event counters.
 * @list: on slabx_caches (or slabx_zombies after a leaky destroy).
 * @debugfs: the cache's debugfs directory.
 */
struct slabx_cache {
	const char *name;
	unsigned int object_size;
	unsigned int stride;
	unsigned int align;
	unsigned int first_offset;
	unsigned int fp_offset;
	unsigned int order;
	unsigned int objs_per_slab;
	unsigned int flags;
	void (*ctor)(void *obj);
	struct slabx_node **node;
	struct slabx_stats __percpu *stats;
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

/* slabx.c */
extern struct mutex slabx_caches_mutex;
extern struct list_head slabx_caches;
extern const char * const slabx_stat_names[SLABX_NR_STATS];

/* trylock_pages.c: the page provider */
struct page *slabx_pages_alloc(int nid, gfp_t gfp, unsigned int order);
void slabx_pages_free(struct page *page, unsigned int order);
unsigned long slabx_pages_held(void);

/* debugfs.c */
void slabx_debugfs_init(void);
void slabx_debugfs_exit(void);
void slabx_debugfs_add_cache(struct slabx_cache *s);
void slabx_debugfs_remove_cache(struct slabx_cache *s);

#endif /* _SLABX_INTERNAL_H */

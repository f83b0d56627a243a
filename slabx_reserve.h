/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slabx: a cache's reserve, for its reservations (reserve.c).
 */
#ifndef _SLABX_RESERVE_H
#define _SLABX_RESERVE_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>

#include "slabx_reserve_book.h"

struct slabx_cache;
struct slabx_info;

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

/* reserve.c */
void slabx_reserve_init(struct slabx_cache *s, unsigned int sheaf_capacity);
unsigned int slabx_reserve_destroy(struct slabx_cache *s);
void slabx_reserve_info(struct slabx_cache *s, struct slabx_info *info);
bool slabx_reserve_refuses(struct slabx_cache *s, void *obj);

#endif /* _SLABX_RESERVE_H */

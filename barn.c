// SPDX-License-Identifier: GPL-2.0
/*
 * slabx barns: a per-NUMA-node store of full and empty sheaves, shared by
 * every CPU of the node. A CPU whose sheaves run dry trades an empty sheaf
 * for a full one here, and one whose sheaves overflow trades a full one for
 * an empty one, each in one lock hold; only when the barn cannot help does
 * the CPU go to the slabs.
 *
 * Only full (size == capacity) and empty sheaves of the cache's capacity
 * are ever stored. The limits are soft: the exchange of an empty sheaf for
 * a full one may leave one empty sheaf above the limit, since it does not
 * change the number of sheaves the barn holds.
 *
 * Lock order: barn->lock is a leaf (raw, IRQs saved); it is taken with the
 * per-CPU sheaves held, never together with a node's slab lock.
 */
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "slabx_internal.h"

/**
 * slabx_barn_max_full() - the most full sheaves a barn of a cache keeps
 * @capacity: the cache's sheaf capacity, 0 for none.
 * @stride: the cache's object stride.
 *
 * As many as hold %SLABX_BARN_FULL_BYTES of objects, so that a burst of
 * small objects goes back to the slabs no sooner than one of large
 * objects, within [%SLABX_BARN_FULL_MIN, %SLABX_BARN_FULL_MAX].
 *
 * Return: the limit.
 */
unsigned int slabx_barn_max_full(unsigned int capacity, unsigned int stride)
{
	unsigned long bytes = (unsigned long)capacity * stride;

	if (!bytes)
		return SLABX_BARN_FULL_MIN;
	return clamp_t(unsigned long, SLABX_BARN_FULL_BYTES / bytes,
		       SLABX_BARN_FULL_MIN, SLABX_BARN_FULL_MAX);
}

/**
 * slabx_barn_init() - set up an empty barn
 * @barn: the barn.
 * @max_full: the most full sheaves it is to keep.
 */
void slabx_barn_init(struct slabx_barn *barn, unsigned int max_full)
{
	raw_spin_lock_init(&barn->lock);
	INIT_LIST_HEAD(&barn->full);
	INIT_LIST_HEAD(&barn->empty);
	barn->nr_full = 0;
	barn->nr_empty = 0;
	barn->max_full = max_full;
}

static struct slabx_sheaf *take(struct list_head *list, unsigned int *nr)
{
	struct slabx_sheaf *sheaf;

	sheaf = list_first_entry_or_null(list, struct slabx_sheaf, barn_list);
	if (sheaf) {
		list_del(&sheaf->barn_list);
		/* Peeked at without the lock: see slabx_barn_get_full(). */
		WRITE_ONCE(*nr, *nr - 1);
	}
	return sheaf;
}

static void put(struct slabx_sheaf *sheaf, struct list_head *list,
		unsigned int *nr)
{
	list_add(&sheaf->barn_list, list);
	WRITE_ONCE(*nr, *nr + 1);
}

/**
 * slabx_barn_get_full() - take a full sheaf
 * @barn: the barn.
 *
 * Return: a full sheaf, or NULL when the barn has none.
 */
struct slabx_sheaf *slabx_barn_get_full(struct slabx_barn *barn)
{
	struct slabx_sheaf *sheaf;
	unsigned long flags;

	/*
	 * An empty barn is not locked: a sheaf stored meanwhile is missed,
	 * as it would be had it come just after this call. A caller that
	 * must see a sheaf stored before some event orders its reads after
	 * that event with an acquire (slabx_rcu_wait()).
	 */
	if (!READ_ONCE(barn->nr_full))
		return NULL;
	raw_spin_lock_irqsave(&barn->lock, flags);
	sheaf = take(&barn->full, &barn->nr_full);
	raw_spin_unlock_irqrestore(&barn->lock, flags);
	return sheaf;
}

/**
 * slabx_barn_get_empty() - take an empty sheaf
 * @barn: the barn.
 *
 * Return: an empty sheaf, or NULL when the barn has none.
 */
struct slabx_sheaf *slabx_barn_get_empty(struct slabx_barn *barn)
{
	struct slabx_sheaf *sheaf;
	unsigned long flags;

	/* As in slabx_barn_get_full(). */
	if (!READ_ONCE(barn->nr_empty))
		return NULL;
	raw_spin_lock_irqsave(&barn->lock, flags);
	sheaf = take(&barn->empty, &barn->nr_empty);
	raw_spin_unlock_irqrestore(&barn->lock, flags);
	return sheaf;
}

/**
 * slabx_barn_put_full() - store a full sheaf
 * @barn: the barn.
 * @sheaf: a full sheaf.
 *
 * Return: true if stored, false when the barn holds its limit of full
 * sheaves (the caller keeps @sheaf).
 */
bool slabx_barn_put_full(struct slabx_barn *barn, struct slabx_sheaf *sheaf)
{
	unsigned long flags;
	bool ok;

	raw_spin_lock_irqsave(&barn->lock, flags);
	ok = barn->nr_full < barn->max_full;
	if (ok)
		put(sheaf, &barn->full, &barn->nr_full);
	raw_spin_unlock_irqrestore(&barn->lock, flags);
	return ok;
}

/**
 * slabx_barn_put_empty() - store an empty sheaf
 * @barn: the barn.
 * @sheaf: an empty sheaf.
 *
 * Return: true if stored, false when the barn holds its limit of empty
 * sheaves (the caller keeps @sheaf).
 */
bool slabx_barn_put_empty(struct slabx_barn *barn, struct slabx_sheaf *sheaf)
{
	unsigned long flags;
	bool ok;

	raw_spin_lock_irqsave(&barn->lock, flags);
	ok = barn->nr_empty < SLABX_BARN_MAX_EMPTY;
	if (ok)
		put(sheaf, &barn->empty, &barn->nr_empty);
	raw_spin_unlock_irqrestore(&barn->lock, flags);
	return ok;
}

/**
 * slabx_barn_exchange_empty() - trade an empty sheaf for a full one
 * @barn: the barn.
 * @empty: an empty sheaf, stored only if a full one is handed out.
 *
 * Return: a full sheaf, or NULL (and @empty stays the caller's).
 */
struct slabx_sheaf *slabx_barn_exchange_empty(struct slabx_barn *barn,
					      struct slabx_sheaf *empty)
{
	struct slabx_sheaf *full;
	unsigned long flags;

	/* As in slabx_barn_get_full(). */
	if (!READ_ONCE(barn->nr_full))
		return NULL;
	raw_spin_lock_irqsave(&barn->lock, flags);
	full = take(&barn->full, &barn->nr_full);
	if (full)
		put(empty, &barn->empty, &barn->nr_empty);
	raw_spin_unlock_irqrestore(&barn->lock, flags);
	return full;
}

/**
 * slabx_barn_exchange_full() - trade a full sheaf for an empty one
 * @barn: the barn.
 * @full: a full sheaf, stored only if an empty one is handed out.
 *
 * Return: an empty sheaf, or NULL when the barn has no empty sheaf or holds
 * its limit of full ones (and @full stays the caller's).
 */
struct slabx_sheaf *slabx_barn_exchange_full(struct slabx_barn *barn,
					     struct slabx_sheaf *full)
{
	struct slabx_sheaf *empty = NULL;
	unsigned long flags;

	raw_spin_lock_irqsave(&barn->lock, flags);
	if (barn->nr_full < barn->max_full) {
		empty = take(&barn->empty, &barn->nr_empty);
		if (empty)
			put(full, &barn->full, &barn->nr_full);
	}
	raw_spin_unlock_irqrestore(&barn->lock, flags);
	return empty;
}

/**
 * slabx_barn_fill_empty() - fill the barn's empty sheaves from an array
 * @barn: the barn.
 * @objects: free objects of the barn's node.
 * @nr: how many.
 * @capacity: the cache's sheaf capacity.
 *
 * In one lock hold, while the barn has an empty sheaf, room for a full one
 * and @capacity objects are left: fill the empty sheaf with the last
 * @capacity objects of @objects and store it as full. The copy under the
 * lock is bounded by @nr pointers, a large rcu_free sheaf's at most
 * (SLABX_RCU_SHEAF_LARGE_BYTES in rcu_free.c).
 *
 * Return: the sheaves filled; their objects were the last of @objects.
 */
unsigned int slabx_barn_fill_empty(struct slabx_barn *barn, void **objects,
				   unsigned int nr, unsigned int capacity)
{
	struct slabx_sheaf *sheaf;
	unsigned int filled = 0;
	unsigned long flags;

	if (!READ_ONCE(barn->nr_empty) || nr < capacity)
		return 0;
	raw_spin_lock_irqsave(&barn->lock, flags);
	while (nr >= capacity && barn->nr_full < barn->max_full) {
		sheaf = take(&barn->empty, &barn->nr_empty);
		if (!sheaf)
			break;
		nr -= capacity;
		memcpy(sheaf->objects, objects + nr, capacity * sizeof(void *));
		sheaf->size = capacity;
		put(sheaf, &barn->full, &barn->nr_full);
		filled++;
	}
	raw_spin_unlock_irqrestore(&barn->lock, flags);
	return filled;
}

/**
 * slabx_barn_has_room_for_full() - whether slabx_barn_put_full() would succeed now
 * @barn: the barn.
 *
 * Return: true while the barn holds fewer full sheaves than its limit.
 */
bool slabx_barn_has_room_for_full(struct slabx_barn *barn)
{
	return READ_ONCE(barn->nr_full) < barn->max_full;
}

/**
 * slabx_barn_take_all() - empty the barn
 * @barn: the barn.
 * @full: receives every full sheaf.
 * @empty: receives every empty sheaf.
 */
void slabx_barn_take_all(struct slabx_barn *barn, struct list_head *full,
			 struct list_head *empty)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&barn->lock, flags);
	list_splice_init(&barn->full, full);
	list_splice_init(&barn->empty, empty);
	WRITE_ONCE(barn->nr_full, 0);
	WRITE_ONCE(barn->nr_empty, 0);
	raw_spin_unlock_irqrestore(&barn->lock, flags);
}

/**
 * slabx_barn_occupancy() - how many sheaves the barn holds
 * @barn: the barn.
 * @nr_full: receives the number of full sheaves.
 * @nr_empty: receives the number of empty sheaves.
 */
void slabx_barn_occupancy(struct slabx_barn *barn, unsigned int *nr_full,
			  unsigned int *nr_empty)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&barn->lock, flags);
	*nr_full = barn->nr_full;
	*nr_empty = barn->nr_empty;
	raw_spin_unlock_irqrestore(&barn->lock, flags);
}

/**
 * slabx_barn_try_exchange() - trade a sheaf with the barn, trylock only
 * @barn: the barn.
 * @sheaf: an empty sheaf to trade for a full one, or a full one to trade
 *	for an empty one.
 *
 * For the any-context paths: never spins on the lock.
 *
 * Return: the sheaf obtained, or NULL (the lock was busy, or the barn had
 * none to give or no room) and @sheaf stays the caller's.
 */
struct slabx_sheaf *slabx_barn_try_exchange(struct slabx_barn *barn,
					    struct slabx_sheaf *sheaf)
{
	struct slabx_sheaf *got = NULL;
	unsigned long flags;

	if (!raw_spin_trylock_irqsave(&barn->lock, flags))
		return NULL;
	if (!sheaf->size) {
		got = take(&barn->full, &barn->nr_full);
		if (got)
			put(sheaf, &barn->empty, &barn->nr_empty);
	} else if (barn->nr_full < barn->max_full) {
		got = take(&barn->empty, &barn->nr_empty);
		if (got)
			put(sheaf, &barn->full, &barn->nr_full);
	}
	raw_spin_unlock_irqrestore(&barn->lock, flags);
	return got;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slabx: a node's barn of full and empty sheaves (barn.c).
 */
#ifndef _SLABX_BARN_H
#define _SLABX_BARN_H

#include <linux/list.h>
#include <linux/spinlock.h>

struct slabx_sheaf;

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

#endif /* _SLABX_BARN_H */

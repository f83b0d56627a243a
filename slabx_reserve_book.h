/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The book of a cache's reserve: the counts that make a reservation's
 * guarantee, and every change of them, as pure functions. reserve.c calls
 * them with the reserve's lock held, and tests/userspace/reserve_model.c
 * runs the very same functions on threads under a mutex.
 *
 * The counts, all changed only under the reserve's lock:
 *
 *	objects	objects in the reserve's sheaves
 *	owed	sum over the reservations of (nr - held), plus what a
 *		slabx_reserve() still filling has added for itself
 *	target	sum over the reservations of nr, plus what a slabx_reserve()
 *		still filling asked for
 *	room	objects the reserve's sheaves have room for
 *
 * The invariants, true whenever the lock is free (and the cache not dead):
 *
 *	owed <= target <= room,  owed <= objects <= room.
 *
 * owed <= objects is the guarantee: a reservation with held < nr has an
 * object waiting in the reserve, whatever the others do. Each change keeps
 * them: a take lowers objects and owed by one; a free through a
 * reservation that gives back one of its held objects raises owed by one,
 * and either puts the object into the reserve (objects up by one too) or,
 * where objects > owed already, lets it go to its slab; a free that gives
 * nothing back fills the reserve up to target; a trim lowers objects to
 * target, never below it.
 */
#ifndef _SLABX_RESERVE_BOOK_H
#define _SLABX_RESERVE_BOOK_H

/**
 * struct slabx_reserve_book - the counts of a cache's reserve
 * @objects: objects in the reserve (also read without the lock).
 * @owed: objects the reserve owes its reservations.
 * @target: objects the reservations add up to (also read without the lock).
 * @room: objects the reserve's sheaves have room for.
 */
struct slabx_reserve_book {
	unsigned long objects;
	unsigned long owed;
	unsigned long target;
	unsigned long room;
};

/**
 * enum slabx_reserve_dest - where a free through a reservation goes
 * @SLABX_RESERVE_TO_SLAB: to its slab.
 * @SLABX_RESERVE_TO_RESERVE: into the reserve.
 */
enum slabx_reserve_dest {
	SLABX_RESERVE_TO_SLAB,
	SLABX_RESERVE_TO_RESERVE,
};

static inline void slabx_book_set_objects(struct slabx_reserve_book *b,
					  unsigned long objects)
{
	WRITE_ONCE(b->objects, objects);
}

/*
 * A take through a reservation holding @held of its @nr: claims one of its
 * share. Return: whether the caller pops an object (there is one).
 */
static inline bool slabx_book_take(struct slabx_reserve_book *b,
				   unsigned int *held, unsigned int nr)
{
	if (*held >= nr || !b->objects || !b->owed)
		return false;
	WRITE_ONCE(*held, *held + 1);
	b->owed--;
	slabx_book_set_objects(b, b->objects - 1);
	return true;
}

/*
 * A free through a reservation holding @held objects of the reserve: it
 * gives one back if it holds any. Return: where the object goes; the
 * caller pushes it for %SLABX_RESERVE_TO_RESERVE.
 */
static inline enum slabx_reserve_dest
slabx_book_free(struct slabx_reserve_book *b, unsigned int *held)
{
	bool give = *held > 0;

	if (give) {
		WRITE_ONCE(*held, *held - 1);
		b->owed++;
		/* The reserve had more than it owed: the object is not needed. */
		if (b->objects >= b->owed)
			return SLABX_RESERVE_TO_SLAB;
	} else if (b->objects >= b->target) {
		return SLABX_RESERVE_TO_SLAB;
	}
	/* Owed (objects < owed <= target <= room) or short of the target. */
	if (b->objects >= b->room)
		return SLABX_RESERVE_TO_SLAB;
	slabx_book_set_objects(b, b->objects + 1);
	return SLABX_RESERVE_TO_RESERVE;
}

/* A slabx_reserve() of @nr more objects begins: the target rises first. */
static inline void slabx_book_reserve(struct slabx_reserve_book *b,
				      unsigned long nr)
{
	WRITE_ONCE(b->target, b->target + nr);
}

/*
 * A filling slabx_reserve() owes itself up to @nr objects that are in the
 * reserve already and owed to no one. Return: how many it took.
 */
static inline unsigned long slabx_book_claim_spare(struct slabx_reserve_book *b,
						   unsigned long nr)
{
	unsigned long spare = b->objects - b->owed;

	if (spare > nr)
		spare = nr;
	b->owed += spare;
	return spare;
}

/*
 * A filling slabx_reserve() brings an object from the slabs. Where the
 * reserve holds an object owed to no one (a free through another
 * reservation filled it up to the target meanwhile), that one is owed
 * instead and the object goes back; else the object is pushed (there is
 * room: objects == owed < target <= room while a fill is short).
 * Return: where the object goes.
 */
static inline enum slabx_reserve_dest
slabx_book_fill(struct slabx_reserve_book *b)
{
	b->owed++;
	if (b->objects >= b->owed || b->objects >= b->room)
		return SLABX_RESERVE_TO_SLAB;
	slabx_book_set_objects(b, b->objects + 1);
	return SLABX_RESERVE_TO_RESERVE;
}

/*
 * A reservation of @nr objects that holds @held of them goes. A failed
 * slabx_reserve() undoes itself the same way, as a reservation holding
 * all it did not fill.
 */
static inline void slabx_book_unreserve(struct slabx_reserve_book *b,
					unsigned long nr, unsigned long held)
{
	WRITE_ONCE(b->target, b->target - nr);
	b->owed -= nr - held;
}

/* Return: whether the caller pops an object above the target (a trim). */
static inline bool slabx_book_trim(struct slabx_reserve_book *b)
{
	if (b->objects <= b->target)
		return false;
	slabx_book_set_objects(b, b->objects - 1);
	return true;
}

/* Whether the invariants above hold. */
static inline bool slabx_book_ok(const struct slabx_reserve_book *b)
{
	return b->owed <= b->target && b->target <= b->room &&
	       b->owed <= b->objects && b->objects <= b->room;
}

#endif /* _SLABX_RESERVE_BOOK_H */

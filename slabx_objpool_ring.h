/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slabx objpool: the rings, push and pop (see objpool.c for the design and
 * the argument that they are correct).
 *
 * Kept apart, and built only on READ_ONCE(), WRITE_ONCE(), smp_rmb(),
 * smp_store_release(), smp_load_acquire(), try_cmpxchg(), local_t with
 * local_read() and local_cmpxchg(), and __always_inline, so that the
 * userspace checks in tests/userspace/ run this very code: outside the
 * kernel, whoever includes this header first defines those
 * (tests/userspace/objpool_shim.h, objpool_own_ring_check.c).
 */
#ifndef _SLABX_OBJPOOL_RING_H
#define _SLABX_OBJPOOL_RING_H

#ifdef __KERNEL__
#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/types.h>
#include <asm/barrier.h>
#include <asm/local.h>
#endif

/**
 * struct slabx_objpool_cell - one entry of a ring
 * @seq: the position of the cell's last published object plus one; a pop
 *	at position p takes the cell only when it reads p + 1.
 * @obj: the object.
 */
struct slabx_objpool_cell {
	unsigned long seq;
	void *obj;
};

/*
 * Whether a push may claim position @pos of a ring: 1 when the ring has
 * room, 0 when it held @mask + 1 entries (claimed ones included) at the
 * moment head was read, -1 when @pos is stale (others pushed and popped
 * past it since it was read, interleaving (b) in objpool.c: the ring is
 * not full, and tail must be read again).
 */
static __always_inline int
__slabx_objpool_room(unsigned long *headp, unsigned long pos,
		     unsigned long mask)
{
	long used;

	/* head is read after pos (a failed claim rereads pos too)... */
	smp_rmb();
	/*
	 * ... and before the cell or slot is written (acquire): the pop that
	 * moved head past pos - mask - 1 read its last object before its
	 * cmpxchg. The push of a CPU's own ring needs this: its claim is no
	 * barrier.
	 */
	used = (long)(pos - smp_load_acquire(headp));
	if (used < 0)
		return -1;
	return (unsigned long)used <= mask;
}

/* Write @obj into the claimed cell of @pos and publish it. */
static __always_inline void
__slabx_objpool_publish(struct slabx_objpool_cell *cells, unsigned long mask,
			unsigned long pos, void *obj)
{
	WRITE_ONCE(cells[pos & mask].obj, obj);
	/* Publish: a pop sees the seq only after obj. */
	smp_store_release(&cells[pos & mask].seq, pos + 1);
}

/**
 * __slabx_objpool_cells_push() - put an object into a ring any CPU pushes to
 * @headp: the ring's next position to pop.
 * @tailp: the ring's next position to push.
 * @cells: the ring's @mask + 1 cells.
 * @mask: cells - 1, cells a power of two.
 * @obj: the object.
 *
 * Inline, like lib/objpool's push, so that the common case makes no call.
 *
 * Return: false when the ring held @mask + 1 entries (claimed ones
 * included) at the moment head was read.
 */
static __always_inline bool
__slabx_objpool_cells_push(unsigned long *headp, unsigned long *tailp,
			   struct slabx_objpool_cell *cells,
			   unsigned long mask, void *obj)
{
	unsigned long pos = READ_ONCE(*tailp);

	for (;;) {
		int room = __slabx_objpool_room(headp, pos, mask);

		if (room < 0) {
			pos = READ_ONCE(*tailp);
			continue;
		}
		if (!room)
			return false;
		if (try_cmpxchg(tailp, &pos, pos + 1))
			break;
	}
	__slabx_objpool_publish(cells, mask, pos, obj);
	return true;
}

/* Objects a CPU's own ring holds, a power of two. */
#define SLABX_OBJPOOL_OWN_SLOTS	16

/**
 * struct slabx_objpool_own_ring - a ring that only one CPU pushes to
 * @head: the next position to pop; every CPU pops.
 * @last: the positions below it are published.
 * @tail: the next position to push, written by its CPU only.
 * @slots: the objects, at their position modulo %SLABX_OBJPOOL_OWN_SLOTS.
 *
 * lib/objpool's ring: bare pointers, and a @last index that says how far
 * they are written. Zeroed, it is empty. Only the owner CPU moves @last,
 * and only to the position after the one it just wrote, so positions
 * are published in order; the claim window is what lies between @last
 * and @tail, one position at most (see __slabx_objpool_own_push()).
 */
struct slabx_objpool_own_ring {
	unsigned long head;
	unsigned long last;
	local_t tail;
	void *slots[SLABX_OBJPOOL_OWN_SLOTS];
};

/* Write @obj into the claimed slot of @pos and publish it, in order. */
static __always_inline void
__slabx_objpool_own_publish(struct slabx_objpool_own_ring *r,
			    unsigned long pos, void *obj)
{
	WRITE_ONCE(r->slots[pos & (SLABX_OBJPOOL_OWN_SLOTS - 1)], obj);
	/* Publish: a pop reads the slot only after last. */
	smp_store_release(&r->last, pos + 1);
}

/**
 * __slabx_objpool_own_push() - put an object into a CPU's own ring
 * @r: the ring, whose CPU this runs on with preemption off, in any
 *	context; other CPUs only pop from it.
 * @obj: the object.
 *
 * Nested pushes on that CPU are all the claim races with, so it is a
 * local_t cmpxchg, atomic against this CPU's interrupts and NMIs
 * (local_ops.rst): on x86 a cmpxchg without the lock prefix, so that the
 * push makes no locked operation.
 *
 * A push nested in another push's claim window (tail is one past last:
 * only the interrupted context can have claimed that position) refuses:
 * it could not publish its object without publishing the unwritten slot
 * below, and an object it left behind that slot would be out of every
 * pop's reach until the interrupted push resumes. So at most one
 * position is claimed and unpublished, the last, with nothing behind it.
 *
 * Return: false when the ring held %SLABX_OBJPOOL_OWN_SLOTS entries at
 * the moment head was read, or when this push interrupted another one's
 * claim window.
 */
static __always_inline bool
__slabx_objpool_own_push(struct slabx_objpool_own_ring *r, void *obj)
{
	unsigned long pos = local_read(&r->tail);

	for (;;) {
		unsigned long last = READ_ONCE(r->last), old;
		int room;

		if (last != pos) {
			/*
			 * Either pushes nested in this one ran since tail
			 * was read (they are over, and left tail at last),
			 * or the context this one interrupted has a claim
			 * window open: then tail stays one past last, and
			 * last does not move, until this push returns.
			 */
			pos = local_read(&r->tail);
			if (pos != last && READ_ONCE(r->last) == last)
				return false;
			continue;
		}
		room = __slabx_objpool_room(&r->head, pos,
					    SLABX_OBJPOOL_OWN_SLOTS - 1);
		if (room < 0) {
			pos = local_read(&r->tail);
			continue;
		}
		if (!room)
			return false;
		old = local_cmpxchg(&r->tail, pos, pos + 1);
		if (old == pos)
			break;
		pos = old;
	}
	__slabx_objpool_own_publish(r, pos, obj);
	return true;
}

/**
 * __slabx_objpool_own_pop() - take an object from a CPU's own ring
 * @r: the ring; any CPU, any context.
 *
 * Return: the object at head, or NULL when none is published there.
 */
static __always_inline void *
__slabx_objpool_own_pop(struct slabx_objpool_own_ring *r)
{
	for (;;) {
		/*
		 * head before last (acquire): the pop that moved head to
		 * pos had read last > pos - 1 before its cmpxchg, so last
		 * reads at least pos here. Not the head a failed cmpxchg
		 * returns: that read is unordered, and last could then be
		 * read before it.
		 */
		unsigned long pos = smp_load_acquire(&r->head);
		void *obj;

		/* Pairs with the publication: the slot at pos is written. */
		if (pos == smp_load_acquire(&r->last))
			return NULL;	/* empty, or pos claimed and unpublished */
		obj = READ_ONCE(r->slots[pos & (SLABX_OBJPOOL_OWN_SLOTS - 1)]);
		/*
		 * The slot is written again only after head passed pos, and
		 * then the cmpxchg fails: obj is the object of position pos.
		 */
		if (try_cmpxchg(&r->head, &pos, pos + 1))
			return obj;
	}
}

/**
 * __slabx_objpool_cells_pop() - take an object from a ring
 * @headp: the ring's next position to pop.
 * @cells: the ring's @mask + 1 cells.
 * @mask: cells - 1, cells a power of two.
 *
 * Return: the object at head, or NULL when none is published there.
 */
static __always_inline void *
__slabx_objpool_cells_pop(unsigned long *headp,
			  struct slabx_objpool_cell *cells, unsigned long mask)
{
	unsigned long pos = READ_ONCE(*headp);

	for (;;) {
		struct slabx_objpool_cell *cell = &cells[pos & mask];
		/* Pairs with the push's publication: obj is written. */
		long dif = (long)(smp_load_acquire(&cell->seq) - (pos + 1));
		void *obj;

		if (dif < 0)		/* empty, or claimed and unpublished */
			return NULL;
		if (dif > 0) {		/* pos is stale: someone popped */
			pos = READ_ONCE(*headp);
			continue;
		}
		obj = READ_ONCE(cell->obj);
		/*
		 * Taking the position frees the cell. The cmpxchg fails if
		 * anyone took it meanwhile, and only then could the cell
		 * have been reused: obj is the cell's object of this lap.
		 */
		if (try_cmpxchg(headp, &pos, pos + 1))
			return obj;
	}
}

#endif /* _SLABX_OBJPOOL_RING_H */

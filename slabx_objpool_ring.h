/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slabx objpool: one ring, push and pop (see objpool.c for the design and
 * the argument that they are correct).
 *
 * Kept apart, and built only on READ_ONCE(), WRITE_ONCE(), smp_rmb(),
 * smp_store_release(), smp_load_acquire(), try_cmpxchg() and
 * __always_inline, so that the userspace model in tests/userspace/ runs
 * this very code: outside the kernel, whoever includes this header first
 * defines those (tests/userspace/objpool_shim.h).
 */
#ifndef _SLABX_OBJPOOL_RING_H
#define _SLABX_OBJPOOL_RING_H

#ifdef __KERNEL__
#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/types.h>
#include <asm/barrier.h>
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

/**
 * __slabx_objpool_cells_push() - put an object into a ring
 * @headp: the ring's next position to pop.
 * @tailp: the ring's next position to push.
 * @cells: the ring's @mask + 1 cells.
 * @mask: cells - 1, cells a power of two.
 * @obj: the object.
 *
 * Inline, like lib/objpool's push, so that the common case (this CPU's
 * small ring) makes no call.
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
	long used;

	for (;;) {
		/* head is read after pos (a failed cmpxchg reads pos too). */
		smp_rmb();
		used = (long)(pos - READ_ONCE(*headp));
		/*
		 * Others pushed and popped past pos since we read it
		 * (interleaving (b) in objpool.c): pos is stale, the ring is
		 * not full. Read tail again.
		 */
		if (used < 0) {
			pos = READ_ONCE(*tailp);
			continue;
		}
		if ((unsigned long)used > mask)
			return false;
		if (try_cmpxchg(tailp, &pos, pos + 1))
			break;
	}
	/*
	 * The cell's last object was taken: the pop that advanced head past
	 * pos - mask - 1 had read it before its cmpxchg.
	 */
	WRITE_ONCE(cells[pos & mask].obj, obj);
	/* Publish: a pop sees the seq only after obj. */
	smp_store_release(&cells[pos & mask].seq, pos + 1);
	return true;
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

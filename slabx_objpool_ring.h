/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slabx objpool: one ring, push and pop (see objpool.c for the design and
 * the argument that they are correct).
 *
 * Kept apart, and built only on READ_ONCE(), WRITE_ONCE(), smp_rmb(),
 * smp_store_release(), smp_load_acquire(), try_cmpxchg(), local_t with
 * local_read(), local_set() and local_cmpxchg(), and __always_inline, so that the
 * userspace model in tests/userspace/ runs this very code: outside the
 * kernel, whoever includes this header first defines those
 * (tests/userspace/objpool_shim.h).
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
	 * ... and before the cell is written (acquire): the pop that moved
	 * head past pos - mask - 1 read the cell's last object before its
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

/**
 * __slabx_objpool_own_ring_init() - start a CPU's own ring, empty
 * @headp: the ring's next position to pop.
 * @tailp: the ring's next position to push.
 * @cells: the ring's @mask + 1 cells.
 * @mask: cells - 1, cells a power of two.
 *
 * At position @mask + 1, as if lap 0 had been published and taken: then
 * the cell before tail always says whether the last claim was published
 * (see __slabx_objpool_cells_push_own()).
 */
static __always_inline void
__slabx_objpool_own_ring_init(unsigned long *headp, local_t *tailp,
			      struct slabx_objpool_cell *cells,
			      unsigned long mask)
{
	unsigned long i;

	for (i = 0; i <= mask; i++)
		cells[i].seq = i + 1;
	*headp = mask + 1;
	local_set(tailp, mask + 1);
}

/**
 * __slabx_objpool_cells_push_own() - put an object into a CPU's own ring
 * @headp: the ring's next position to pop.
 * @tailp: the ring's next position to push, written by its CPU only.
 * @cells: the ring's @mask + 1 cells.
 * @mask: cells - 1, cells a power of two.
 * @obj: the object.
 *
 * As __slabx_objpool_cells_push(), for a ring that only one CPU pushes
 * to, with preemption off, in any context (a CPU's small ring, started by
 * __slabx_objpool_own_ring_init(); other CPUs only pop from it, and never
 * read its tail). Nested pushes on that CPU are all the claim races with,
 * so it is a local_t cmpxchg, atomic against this CPU's interrupts and
 * NMIs (local_ops.rst): on x86 a cmpxchg without the lock prefix, so that
 * the push makes no locked operation.
 *
 * A push nested in another push's claim window (the cell before tail is
 * claimed and not yet published: only the interrupted context can have
 * claimed it) refuses: an object behind that cell would be out of every
 * pop's reach until the interrupted push resumes. So at most one claimed
 * cell is unpublished, the last, with nothing behind it.
 *
 * Return: false when the ring held @mask + 1 entries at the moment head
 * was read, or when this push interrupted another one's claim window.
 */
static __always_inline bool
__slabx_objpool_cells_push_own(unsigned long *headp, local_t *tailp,
			       struct slabx_objpool_cell *cells,
			       unsigned long mask, void *obj)
{
	unsigned long pos = local_read(tailp);

	for (;;) {
		unsigned long old;
		int room;

		/* Published, the cell says pos: see the comment above. */
		if (READ_ONCE(cells[(pos - 1) & mask].seq) != pos)
			return false;
		room = __slabx_objpool_room(headp, pos, mask);
		if (room < 0) {
			pos = local_read(tailp);
			continue;
		}
		if (!room)
			return false;
		old = local_cmpxchg(tailp, pos, pos + 1);
		if (old == pos)
			break;
		pos = old;
	}
	__slabx_objpool_publish(cells, mask, pos, obj);
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

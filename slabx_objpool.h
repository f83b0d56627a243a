/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slabx objpool: the API of lib/objpool (6.12), prefixed slabx_objpool_.
 * Included by slabx.h; see objpool.c for the design.
 */
#ifndef _SLABX_OBJPOOL_H
#define _SLABX_OBJPOOL_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/cache.h>
#include <linux/compiler.h>
#include <linux/gfp_types.h>
#include <linux/preempt.h>
#include <linux/percpu.h>
#include <linux/refcount.h>
#include <linux/types.h>
#include <asm/barrier.h>
#include <asm/local.h>

#include "slabx_objpool_ring.h"

/* Most objects in one pool, and largest object size, as lib/objpool. */
#define SLABX_OBJPOOL_NR_OBJECT_MAX	BIT(24)
#define SLABX_OBJPOOL_OBJECT_SIZE_MAX	BIT(16)

struct slabx_objpool_head;
struct slabx_objpool_ring;

/**
 * enum slabx_objpool_counter - per-CPU event counters of a pool
 * @SLABX_OBJPOOL_POP: objects taken.
 * @SLABX_OBJPOOL_PUSH: objects given back.
 * @SLABX_OBJPOOL_MISS: pops that found nothing.
 * @SLABX_OBJPOOL_REMOTE: objects taken from another CPU's small ring.
 * @SLABX_OBJPOOL_DROP: objects dropped for good.
 * @SLABX_OBJPOOL_NR_COUNTERS: number of counters.
 */
enum slabx_objpool_counter {
	SLABX_OBJPOOL_POP,
	SLABX_OBJPOOL_PUSH,
	SLABX_OBJPOOL_MISS,
	SLABX_OBJPOOL_REMOTE,
	SLABX_OBJPOOL_DROP,
	SLABX_OBJPOOL_NR_COUNTERS
};

/**
 * struct slabx_objpool_local - one CPU's small ring and counters
 * @ring: the small ring; only this CPU pushes to it, other CPUs pop.
 * @count: event counters of this CPU, indexed by
 *	&enum slabx_objpool_counter; local_t, whose increment an NMI cannot
 *	tear. On a line of their own, away from the ring's head that other
 *	CPUs' pops take: in a userspace copy of the rings, two threads
 *	stealing from each other ran a third slower with the counters on
 *	that line.
 */
struct slabx_objpool_local {
	struct slabx_objpool_own_ring ring;
	local_t count[SLABX_OBJPOOL_NR_COUNTERS] ____cacheline_aligned_in_smp;
};

/* Called once for every object, zeroed, at init; non-zero fails init. */
typedef int (*slabx_objpool_init_obj_cb)(void *obj, void *context);
/* Called once when the pool is freed. */
typedef int (*slabx_objpool_fini_cb)(struct slabx_objpool_head *head,
				     void *context);

/**
 * struct slabx_objpool_head - a pool of preallocated objects
 * @obj_size: object size, rounded up to a multiple of sizeof(long).
 * @nr_objs: objects in the pool.
 * @nr_possible_cpus: possible CPUs when the pool was made.
 * @capacity: entries of the shared ring, a power of two >= @nr_objs.
 * @gfp: allocation flags of the pool's memory.
 * @ref: one reference per object not dropped, plus one for the pool.
 * @flags: SLABX_OBJPOOL_F_* flags.
 * @objs: the objects, @nr_objs * @obj_size bytes.
 * @ring: the shared ring, for every CPU, and what slabx keeps of the pool
 *	for itself (its list of pools, debugfs, the debug mode's count).
 * @local: each CPU's small ring, tried first by push and pop, and its
 *	event counters.
 * @in_pool: with %SLABX_OBJPOOL_F_DEBUG, a bit per object that is in the
 *	pool, to catch double pushes.
 * @release: called by slabx_objpool_free(), or NULL.
 * @context: passed to the callbacks.
 *
 * Embed it like lib/objpool's struct objpool_head; only the functions
 * below touch the fields. As with lib/objpool, slabx touches the head
 * only in those calls: slabx keeps no pointer to it, so once
 * slabx_objpool_fini() returned with objects still out, the head may be
 * freed or copied, and those objects dropped through the copy.
 */
struct slabx_objpool_head {
	int obj_size;
	int nr_objs;
	int nr_possible_cpus;
	int capacity;
	gfp_t gfp;
	refcount_t ref;
	unsigned long flags;
	void *objs;
	struct slabx_objpool_ring *ring;
	struct slabx_objpool_local __percpu *local;
	unsigned long *in_pool;
	slabx_objpool_fini_cb release;
	void *context;
};

/* The pool checks every push for double pushes and foreign pointers. */
#define SLABX_OBJPOOL_F_DEBUG	0x1UL

/**
 * struct slabx_objpool_stats - a snapshot of a pool's counters
 * @nr_objs: objects in the pool.
 * @obj_size: object size, as the head's.
 * @pops: objects taken.
 * @pushes: objects given back.
 * @pop_misses: pops that found no object.
 * @remote_pops: objects taken from another CPU's ring.
 * @drops: objects dropped for good (slabx_objpool_drop()).
 * @outstanding: objects taken and neither given back nor dropped.
 * @ring_bytes: memory of the rings (not of the objects).
 * @debug_errors: double pushes and foreign pointers caught in debug mode.
 */
struct slabx_objpool_stats {
	int nr_objs;
	int obj_size;
	unsigned long pops;
	unsigned long pushes;
	unsigned long pop_misses;
	unsigned long remote_pops;
	unsigned long drops;
	long outstanding;
	size_t ring_bytes;
	unsigned int debug_errors;
};

int slabx_objpool_init(struct slabx_objpool_head *pool, int nr_objs,
		       int object_size, gfp_t gfp, void *context,
		       slabx_objpool_init_obj_cb objinit,
		       slabx_objpool_fini_cb release);
void *__slabx_objpool_pop_slow(struct slabx_objpool_head *pool,
			       struct slabx_objpool_local *l, void *obj);
int __slabx_objpool_push_slow(void *obj, struct slabx_objpool_head *pool);
int slabx_objpool_drop(void *obj, struct slabx_objpool_head *pool);
void slabx_objpool_free(struct slabx_objpool_head *pool);
void slabx_objpool_fini(struct slabx_objpool_head *pool);
void slabx_objpool_get_stats(struct slabx_objpool_head *pool,
			     struct slabx_objpool_stats *st);
void slabx_objpool_set_debug(bool on);

/**
 * slabx_objpool_pop() - take an object from a pool
 * @pool: the pool.
 *
 * Tries this CPU's small ring inline, then (out of line) the shared ring
 * and the other CPUs' small rings. Lockless, and never waits for another
 * CPU or for the context it interrupted.
 *
 * Context: any context, NMI included.
 * Return: an object, or NULL when none could be had (counted as a miss).
 */
static inline void *slabx_objpool_pop(struct slabx_objpool_head *pool)
{
	struct slabx_objpool_local *l;
	void *obj;

	/* A pop is one cmpxchg: only the local_t counters need the CPU. */
	preempt_disable_notrace();
	l = this_cpu_ptr(pool->local);
	obj = __slabx_objpool_own_pop(&l->ring);
	if (likely(obj && !(pool->flags & SLABX_OBJPOOL_F_DEBUG)))
		local_inc(&l->count[SLABX_OBJPOOL_POP]);
	else
		obj = __slabx_objpool_pop_slow(pool, l, obj);
	preempt_enable_notrace();
	return obj;
}

/**
 * slabx_objpool_push() - give an object back to its pool
 * @obj: an object taken from @pool.
 * @pool: the pool.
 *
 * Goes to this CPU's small ring inline, else (out of line) to the shared
 * ring. Never fails for an object of the pool that is not in it. With
 * %SLABX_OBJPOOL_F_DEBUG (module parameter objpool_debug), a double push
 * or a foreign pointer is refused and reported once per pool.
 *
 * Context: any context, NMI included.
 * Return: 0, or -EINVAL for a push refused in debug mode, or -ENOSPC when
 * no ring had room, which only a bad push can cause (reported).
 */
static inline int slabx_objpool_push(void *obj,
				     struct slabx_objpool_head *pool)
{
	struct slabx_objpool_local *l;
	bool done;

	if (unlikely(pool->flags & SLABX_OBJPOOL_F_DEBUG))
		return __slabx_objpool_push_slow(obj, pool);
	/* Pinned to this CPU, the owner of the small ring: see objpool.c. */
	preempt_disable_notrace();
	l = this_cpu_ptr(pool->local);
	done = __slabx_objpool_own_push(&l->ring, obj);
	if (likely(done))
		local_inc(&l->count[SLABX_OBJPOOL_PUSH]);
	preempt_enable_notrace();
	return likely(done) ? 0 : __slabx_objpool_push_slow(obj, pool);
}

#endif /* _SLABX_OBJPOOL_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel primitives that slabx_objpool_ring.h uses, on GCC's __atomic
 * builtins, for the userspace model. Each is at least as strong as the
 * kernel's: READ_ONCE()/WRITE_ONCE() are relaxed atomics, smp_rmb() an
 * acquire fence, try_cmpxchg() fully ordered on success and relaxed on
 * failure, as atomic_t.txt says of the kernel's.
 *
 * local_t is atomic against its owner CPU's own interrupts and NMIs only,
 * and the model gives it just that: local_cmpxchg() is a relaxed load, a
 * compare and a relaxed store, with the model's "interrupt" (a signal)
 * kept from nesting a pool operation inside it, as ppc64 masks interrupts
 * around its own. Two threads pushing to one "CPU"'s small ring would lose
 * or duplicate claims; a push nested in another on the same thread, in
 * the signal handler, must not.
 */
#ifndef OBJPOOL_SHIM_H
#define OBJPOOL_SHIM_H

#include <signal.h>
#include <stdbool.h>

/* glibc's <sys/cdefs.h> has one. */
#ifndef __always_inline
#define __always_inline	inline __attribute__((__always_inline__))
#endif

#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define smp_rmb()		__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define try_cmpxchg(p, oldp, new)					\
	__atomic_compare_exchange_n((p), (oldp), (new), false,		\
				    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)

typedef struct {
	unsigned long v;
} local_t;

static inline long local_read(local_t *l)
{
	return (long)__atomic_load_n(&l->v, __ATOMIC_RELAXED);
}

static inline void local_set(local_t *l, long v)
{
	__atomic_store_n(&l->v, (unsigned long)v, __ATOMIC_RELAXED);
}

/* Set while this thread is in local_cmpxchg(): no nested pool operation. */
static __thread volatile sig_atomic_t shim_in_local_op;

static inline long local_cmpxchg(local_t *l, long old, long new)
{
	unsigned long cur;

	shim_in_local_op = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	cur = __atomic_load_n(&l->v, __ATOMIC_RELAXED);
	if (cur == (unsigned long)old)
		__atomic_store_n(&l->v, (unsigned long)new, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	shim_in_local_op = 0;
	return (long)cur;
}

#endif /* OBJPOOL_SHIM_H */

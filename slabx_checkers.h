/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slabx: what the kernel's memory checkers (KASAN, kmemleak,
 * init_on_alloc and init_on_free) see of slabx's objects, inline for the
 * hot paths.
 */
#ifndef _SLABX_CHECKERS_H
#define _SLABX_CHECKERS_H

#include <linux/kasan-checks.h>
#include <linux/kasan.h>
#include <linux/kmemleak.h>

#include "slabx_slab.h"

/* ---- what the kernel's memory checkers see (inline: hot paths) ---------- */

/*
 * KASAN (generic): a free object is poisoned wherever it waits, the bytes
 * between the end of an object and the next one are a redzone, and an
 * allocation unpoisons exactly the object's size. The shadow is written
 * directly (kasan_mem_to_shadow() is inline; KASAN's own poisoning helpers
 * are not exported to modules), with the values KASAN's reports decode
 * (mm/kasan/kasan.h): a free object reads as slab-use-after-free, the
 * redzone as slab-out-of-bounds. Shadow writes are plain stores, safe in
 * any context, NMI included.
 */
#ifdef CONFIG_KASAN_GENERIC
/* Read from the target kernel's mm/kasan/kasan.h by Kbuild. */
#if !defined(SLABX_KASAN_SLAB_FREE) || !defined(SLABX_KASAN_SLAB_REDZONE) || \
	!defined(SLABX_KASAN_PAGE_REDZONE)
#error "KASAN kernel: KDIR must be a kernel tree with mm/kasan/kasan.h (see Kbuild)"
#endif
#define SLABX_KASAN_GRANULE	BIT(KASAN_SHADOW_SCALE_SHIFT)
#define SLABX_KASAN_FREE	SLABX_KASAN_SLAB_FREE
#define SLABX_KASAN_REDZONE	SLABX_KASAN_SLAB_REDZONE
/* Redzone bytes at least, after every object (KASAN builds only). */
#define SLABX_KASAN_MIN_REDZONE	16

static inline void slabx_kasan_shadow(const void *addr, size_t size, u8 value)
{
	__memset(kasan_mem_to_shadow(addr), value,
		 size >> KASAN_SHADOW_SCALE_SHIFT);
}

/* Accessible: the object's bytes, a partial last granule included. */
static inline void slabx_kasan_unpoison(struct slabx_cache *s, void *obj)
{
	size_t whole = round_down(s->object_size, SLABX_KASAN_GRANULE);
	u8 part = s->object_size & (SLABX_KASAN_GRANULE - 1);

	slabx_kasan_shadow(obj, whole, 0);
	if (part)
		__memset(kasan_mem_to_shadow(obj + whole), part, 1);
}

static inline void slabx_kasan_poison(struct slabx_cache *s, void *obj)
{
	slabx_kasan_shadow(obj, round_up(s->object_size, SLABX_KASAN_GRANULE),
			   SLABX_KASAN_FREE);
}

/*
 * An object of a slabx_kmalloc() size class: only the @size bytes asked
 * for are accessible, the rest of the class's object is redzone (as
 * kmalloc()'s objects are for KASAN).
 */
static inline void slabx_kasan_kmalloc(struct slabx_cache *s, void *obj,
				       size_t size)
{
	size_t used = round_up(size, SLABX_KASAN_GRANULE);
	u8 part = size & (SLABX_KASAN_GRANULE - 1);

	if (part)
		__memset(kasan_mem_to_shadow(obj + size - part), part, 1);
	slabx_kasan_shadow(obj + used,
			   round_up(s->object_size, SLABX_KASAN_GRANULE) - used,
			   SLABX_KASAN_REDZONE);
}

/* A new slab's object: free, followed by its redzone. */
static inline void slabx_kasan_poison_new(struct slabx_cache *s, void *obj)
{
	size_t used = round_up(s->object_size, SLABX_KASAN_GRANULE);

	slabx_kasan_poison(s, obj);
	slabx_kasan_shadow(obj + used, s->stride - used, SLABX_KASAN_REDZONE);
}

/*
 * An object given to slabx_free_rcu() stays accessible until its grace
 * period ends, since readers may still use it: KASAN cannot tell it from
 * a live object, and would let a second free through. So it is marked
 * meanwhile, in the shadow of the first granule of its redzone (there are
 * two at least): %SLABX_KASAN_RCU_WAIT instead of %SLABX_KASAN_REDZONE,
 * from slabx_free_rcu() until its grace period ended (rcu_free.c). KASAN
 * decodes both as slab-out-of-bounds (the value is its
 * KASAN_PAGE_REDZONE), so a reader's overflow still reads as one.
 */
#define SLABX_KASAN_RCU_WAIT	SLABX_KASAN_PAGE_REDZONE

static inline u8 *slabx_kasan_rcu_mark(struct slabx_cache *s, const void *obj)
{
	return kasan_mem_to_shadow(obj + round_up(s->object_size,
						  SLABX_KASAN_GRANULE));
}

/* Mark @obj as waiting for its grace period, or unmark it. */
static inline void slabx_kasan_rcu_wait(struct slabx_cache *s, void *obj,
					bool wait)
{
	__memset(slabx_kasan_rcu_mark(s, obj),
		 wait ? SLABX_KASAN_RCU_WAIT : SLABX_KASAN_REDZONE, 1);
}

/* Whether @obj is marked (the shadow is read without KASAN checks). */
static __no_kasan_or_inline bool slabx_kasan_rcu_waits(struct slabx_cache *s,
						       const void *obj)
{
	return READ_ONCE(*slabx_kasan_rcu_mark(s, obj)) == SLABX_KASAN_RCU_WAIT;
}
#else
#define SLABX_KASAN_MIN_REDZONE	0
static inline void slabx_kasan_shadow(const void *addr, size_t size, u8 value) { }
static inline void slabx_kasan_unpoison(struct slabx_cache *s, void *obj) { }
static inline void slabx_kasan_poison(struct slabx_cache *s, void *obj) { }
static inline void slabx_kasan_poison_new(struct slabx_cache *s, void *obj) { }
static inline void slabx_kasan_kmalloc(struct slabx_cache *s, void *obj,
				       size_t size) { }
static inline void slabx_kasan_rcu_wait(struct slabx_cache *s, void *obj,
					bool wait) { }
static inline bool slabx_kasan_rcu_waits(struct slabx_cache *s,
					 const void *obj)
{
	return false;
}
#endif

void slabx_free_rcu_pending_report(struct slabx_cache *s, void *obj);

/**
 * slabx_free_rcu_pending() - refuse a free of an object that waits for
 *	its grace period after slabx_free_rcu()
 * @s: the cache.
 * @obj: an object of @s that a user frees (slabx_obj_slab() said so), by
 *	any free path: slabx_free(), slabx_free_rcu(), the bulk, kfree and
 *	nolock frees, a free through a reservation.
 *
 * Under KASAN such an object is marked until its grace period ends (see
 * %SLABX_KASAN_RCU_WAIT), and a free of it meanwhile is a double free
 * that KASAN cannot see (the object is not poisoned yet): it is reported
 * with a warning every time, as KASAN reports every double free, and
 * counted in free_invalid. slabx_kasan_free_ok() checks it, so the free
 * paths that call that need not call this too. Without KASAN nothing is
 * marked and this is always false, at no cost: a %SLABX_DEBUG cache finds
 * such an object pending in its slab instead (it has no rcu_free sheaf),
 * and %CONFIG_SLAB_FREELIST_HARDENED catches the naive double
 * slabx_free_rcu() in rcu_free.c.
 *
 * Context: any.
 * Return: true when the free must be refused and @obj left alone.
 */
static __always_inline bool slabx_free_rcu_pending(struct slabx_cache *s,
						   void *obj)
{
	if (likely(!slabx_kasan_rcu_waits(s, obj)))
		return false;
	slabx_free_rcu_pending_report(s, obj);
	return true;
}

#ifdef CONFIG_KASAN_GENERIC
/*
 * Whether @obj may be freed: an object KASAN sees free (a double free, or
 * a free of an object that never left the cache) gets a KASAN report
 * naming the caller, and is refused; so is one that waits for its grace
 * period after slabx_free_rcu() (slabx_free_rcu_pending()).
 */
static __always_inline bool slabx_kasan_free_ok(struct slabx_cache *s,
						void *obj)
{
	if (unlikely(!kasan_check_read(obj, 1))) {
		slabx_stat_inc(s, SLABX_FREE_INVALID);
		return false;
	}
	return !slabx_free_rcu_pending(s, obj);
}
#else
static inline bool slabx_kasan_free_ok(struct slabx_cache *s, void *obj)
{
	return true;
}
#endif

/*
 * init_on_alloc and init_on_free, as SLUB applies them to kmem_cache
 * objects: not to objects whose state must survive a free, constructed or
 * typesafe by RCU (%__GFP_ZERO still zeroes, as documented).
 */
static __always_inline bool slabx_init_on_alloc(struct slabx_cache *s,
						gfp_t gfp)
{
	if (static_branch_maybe(CONFIG_INIT_ON_ALLOC_DEFAULT_ON, &init_on_alloc))
		return !s->keeps_contents || (gfp & __GFP_ZERO);
	return gfp & __GFP_ZERO;
}

static __always_inline bool slabx_init_on_free(struct slabx_cache *s)
{
	return static_branch_maybe(CONFIG_INIT_ON_FREE_DEFAULT_ON,
				   &init_on_free) && !s->keeps_contents;
}

/*
 * Whether KASAN sees a free object as free: not in a typesafe-by-RCU
 * cache, whose readers may read it until a grace period has passed.
 */
static __always_inline bool slabx_kasan_free_poisons(struct slabx_cache *s)
{
	return IS_ENABLED(CONFIG_KASAN_GENERIC) &&
	       !(s->flags & SLABX_TYPESAFE_BY_RCU);
}

/**
 * slabx_alloc_hook() - an object is handed to a user
 * @s: its cache.
 * @obj: the object.
 * @gfp: the allocation's flags (%__GFP_ZERO, and kmemleak's context).
 * @track: register the object with kmemleak (false where kmemleak may not
 *	be called, and for pool-mode objects, which live inside a block
 *	kmemleak already knows).
 */
static __always_inline void slabx_alloc_hook(struct slabx_cache *s, void *obj,
					     gfp_t gfp, bool track)
{
	slabx_kasan_unpoison(s, obj);
	if (unlikely(slabx_init_on_alloc(s, gfp)))
		memset(obj, 0, s->object_size);
	else if (unlikely(slabx_init_on_free(s)))
		slabx_fp_wipe(s, obj);
	if (track)
		kmemleak_alloc(obj, s->object_size, 1, gfp);
}

/**
 * slabx_free_hook() - an object a user gave back becomes free
 * @s: its cache.
 * @obj: the object, accepted (slabx_kasan_free_ok() and the cache's own
 *	checks said so).
 * @untrack: tell kmemleak (not in NMI; freeing an object kmemleak does not
 *	know is harmless).
 *
 * Context: any; the free pointer and what slabx keeps in a free object
 * are written afterwards, without KASAN checks.
 */
static __always_inline void slabx_free_hook(struct slabx_cache *s, void *obj,
					    bool untrack)
{
	if (untrack)
		kmemleak_free(obj);
	if (unlikely(slabx_init_on_free(s)))
		memset(obj, 0, s->object_size);
	if (slabx_kasan_free_poisons(s))
		slabx_kasan_poison(s, obj);
}

#endif /* _SLABX_CHECKERS_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * slabx reservations: mempool's guarantee without a mempool in front of
 * the allocator.
 *
 * A user reserves N objects of a cache (slabx_reserve()). Every
 * reservation of a cache adds to one reserve, the cache's, kept as a
 * stack of sheaves under a lock of its own, and an allocation through a
 * reservation (slabx_alloc_reserved()) first tries a plain allocation,
 * which does not look at the reserve, and takes an object from the
 * reserve only when that fails. A free through a reservation
 * (slabx_free_reserved()) gives back one of the objects the reservation
 * took, or refills the reserve up to its target, the sum of the
 * reservations, and wakes an allocation that waits for it.
 *
 * The guarantee. Each reservation counts in @held the objects it took
 * from the reserve and has not given back; it may take one only while
 * @held < @nr. The reserve's book (slabx_reserve_book.h) counts the
 * objects the reserve holds and those it owes, the sum over the
 * reservations of (nr - held), and keeps owed <= objects: every count
 * and every @held change under the reserve's lock, together, so no
 * interleaving of takes, frees, reservations and releases on any CPUs
 * can see one changed without the other. A take lowers both; a free
 * that gives a share back raises owed, and puts its object into the
 * reserve unless the reserve held one to spare; a trim never goes below
 * the target. So a reservation with @held < @nr always finds an object
 * (a failure would be a bug: it warns), its allocation waits only while
 * it holds all its share, and only a free through it ends that. Each
 * reservation has its own wait queue, woken one waiter per free through
 * it; a waiter woken for nothing (another thread took the object) waits
 * again, and one that got its object some other way passes the wakeup
 * on. As mempool_alloc(), a waiter also tries the allocator again after
 * a timeout. tests/userspace/reserve_model.c runs the book on threads.
 *
 * Every operation is O(1) in the reserve's size: a push and a pop touch
 * the top of the stack only (the other sheaves with objects are full,
 * the empty ones on a list of their own). Only the double-free check of
 * %SLABX_DEBUG caches looks at every object.
 *
 * The reserve always has sheaves with room for its target, allocated
 * when a reservation is made, so a free never allocates to refill it.
 *
 * Lock order: reserve->mutex (slabx_reserve(), slabx_unreserve(), the
 * destroy) is taken before the reserve's lock, a leaf (raw, IRQs saved),
 * which is never held while memory is allocated or freed, nor with the
 * per-CPU sheaves held here. A reservation's wait queue's raw lock is
 * taken alone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/slab.h>
#include <linux/swait.h>

#include "slabx_internal.h"

/* How long a waiting allocation sleeps before it tries the allocator again. */
#define RESERVE_RETRY_JIFFIES	(5 * HZ)
/* Objects one reservation may ask for. */
#define RESERVE_MAX		1048576U
/* Objects moved between the slabs and the reserve per batch. */
#define RESERVE_BATCH		16

/**
 * struct slabx_reservation - one user's share of a cache's reserve
 * @cache: the cache.
 * @nr: objects reserved.
 * @held: objects taken from the reserve through this reservation and not
 *	given back through it; changed under the reserve's lock, read
 *	without it by a waiter.
 * @wait: allocations through this reservation that wait for a free
 *	through it.
 */
struct slabx_reservation {
	struct slabx_cache *cache;
	unsigned int nr;
	unsigned int held;
	struct swait_queue_head wait;
};

/**
 * slabx_reserve_init() - give a new cache an empty reserve
 * @s: the cache.
 * @sheaf_capacity: the sheaf capacity its creator asked for, 0 for none.
 *
 * The reserve's sheaves follow the capacity asked for even where the
 * cache goes without sheaves of its own (debug caches), so a reserve is
 * laid out the same with and without slabx.debug.
 */
void slabx_reserve_init(struct slabx_cache *s, unsigned int sheaf_capacity)
{
	struct slabx_reserve *r = &s->reserve;
	unsigned int cap = sheaf_capacity ?:
			   slabx_sheaf_default_capacity(s->stride);
	size_t bytes = kmalloc_size_roundup(struct_size_t(struct slabx_sheaf,
							  objects, cap));

	mutex_init(&r->mutex);
	atomic_set(&r->handles, 1);	/* the cache's own, until destroyed */
	raw_spin_lock_init(&r->lock);
	INIT_LIST_HEAD(&r->stack);
	INIT_LIST_HEAD(&r->empty);
	memset(&r->book, 0, sizeof(r->book));
	/* As many as the sheaf's kmalloc() size has room for. */
	r->capacity = (bytes - sizeof(struct slabx_sheaf)) / sizeof(void *);
}

/* Whether the reserve is below its target (a hint, read without the lock). */
static bool reserve_short(struct slabx_cache *s)
{
	return READ_ONCE(s->reserve.book.objects) <
	       READ_ONCE(s->reserve.book.target);
}

/* ---- the stack of sheaves (reserve->lock held) ------------------------------ */

/*
 * The reserve's objects are a stack: @stack holds its sheaves with
 * objects, the first one the top, the others full; @empty the rest. A
 * push and a pop touch the top only, so each is O(1) however large the
 * reserve is.
 */

/* Push @obj; the book has checked that there is room. */
static void stack_push(struct slabx_reserve *r, void *obj)
{
	struct slabx_sheaf *top;

	lockdep_assert_held(&r->lock);
	top = list_first_entry_or_null(&r->stack, struct slabx_sheaf,
				       barn_list);
	if (!top || top->size == top->capacity) {
		top = list_first_entry(&r->empty, struct slabx_sheaf,
				       barn_list);
		list_move(&top->barn_list, &r->stack);
	}
	top->objects[top->size++] = obj;
}

/* Pop an object; the book has checked that there is one. */
static void *stack_pop(struct slabx_reserve *r)
{
	struct slabx_sheaf *top;
	void *obj;

	lockdep_assert_held(&r->lock);
	top = list_first_entry(&r->stack, struct slabx_sheaf, barn_list);
	obj = top->objects[top->size - 1];
	slabx_sheaf_forget(top, top->size - 1);
	if (!top->size)
		list_move(&top->barn_list, &r->empty);
	return obj;
}

/*
 * Whether @obj is in the cache's reserve, for the double-free check of
 * %SLABX_DEBUG caches: the slab does not see an object of the reserve as
 * free. Looks at every object of the reserve, under its lock.
 */
static bool reserve_holds(struct slabx_cache *s, void *obj)
{
	struct slabx_reserve *r = &s->reserve;
	struct slabx_sheaf *sheaf;
	unsigned long flags;
	bool found = false;
	unsigned int i;

	raw_spin_lock_irqsave(&r->lock, flags);
	list_for_each_entry(sheaf, &r->stack, barn_list)
		for (i = 0; i < sheaf->size; i++)
			found |= sheaf->objects[i] == obj;
	raw_spin_unlock_irqrestore(&r->lock, flags);
	return found;
}

/**
 * slabx_reserve_refuses() - a debug cache's free of an object of its reserve
 * @s: a %SLABX_DEBUG cache with objects in its reserve.
 * @obj: the pointer a user frees.
 *
 * A pointer that is no object of the cache is left to the slab layer to
 * report; KASAN, where it is on, reports an object of the reserve first.
 *
 * Context: any but NMI; not with the reserve's lock held.
 * Return: true when @obj is refused (reported as a double free).
 */
bool slabx_reserve_refuses(struct slabx_cache *s, void *obj)
{
	struct slabx_slab *slab = slabx_user_addr_to_slab(s, obj);

	if (!slab || !slabx_slab_header_ok(s, slab))
		return false;
	if (!slabx_kasan_free_ok(s, obj))
		return true;
	if (!reserve_holds(s, obj))
		return false;
	slabx_stat_inc(s, SLABX_FREE_INVALID);
	slabx_report(s, "slabx: %s: double free of %p, in the reserve\n",
		     s->name, obj);
	return true;
}

/* ---- sizing the reserve (reserve->mutex held) ------------------------------ */

/* Objects above the target go back to their slabs, a batch per lock hold. */
static void reserve_trim_objects(struct slabx_cache *s)
{
	struct slabx_reserve *r = &s->reserve;
	void *batch[RESERVE_BATCH];
	unsigned long flags;
	unsigned int n;

	do {
		raw_spin_lock_irqsave(&r->lock, flags);
		for (n = 0; n < RESERVE_BATCH && slabx_book_trim(&r->book); n++)
			batch[n] = stack_pop(r);
		raw_spin_unlock_irqrestore(&r->lock, flags);
		slabx_slab_flush(s, batch, n);
	} while (n == RESERVE_BATCH);
}

/* An empty sheaf the target no longer needs, unlinked; or NULL. */
static struct slabx_sheaf *reserve_spare_sheaf(struct slabx_reserve *r)
{
	struct slabx_sheaf *sheaf = NULL;
	unsigned long flags;

	raw_spin_lock_irqsave(&r->lock, flags);
	if (r->book.room - r->capacity >= r->book.target)
		sheaf = list_first_entry_or_null(&r->empty, struct slabx_sheaf,
						 barn_list);
	if (sheaf) {
		list_del_init(&sheaf->barn_list);
		r->book.room -= r->capacity;
	}
	raw_spin_unlock_irqrestore(&r->lock, flags);
	return sheaf;
}

/* Free the sheaves the target no longer needs. */
static void reserve_trim_sheaves(struct slabx_cache *s)
{
	struct slabx_reserve *r = &s->reserve;
	struct slabx_sheaf *sheaf;

	while ((sheaf = reserve_spare_sheaf(r))) {
		r->sheaves--;
		WRITE_ONCE(r->meta_bytes, r->meta_bytes - ksize(sheaf));
		slabx_sheaf_free(s, sheaf);
	}
}

/* Shrink the reserve to its (lowered) target. */
static void reserve_trim(struct slabx_cache *s)
{
	lockdep_assert_held(&s->reserve.mutex);
	reserve_trim_objects(s);
	reserve_trim_sheaves(s);
}

/* Add empty sheaves until there is room for the target. */
static int reserve_add_sheaves(struct slabx_cache *s, gfp_t gfp)
{
	struct slabx_reserve *r = &s->reserve;
	struct slabx_sheaf *sheaf;
	unsigned long flags;

	while (r->sheaves < DIV_ROUND_UP(r->book.target, r->capacity)) {
		sheaf = slabx_meta_fail() ? NULL :
			slabx_sheaf_new(s, r->capacity, gfp);
		if (!sheaf)
			return -ENOMEM;
		raw_spin_lock_irqsave(&r->lock, flags);
		list_add(&sheaf->barn_list, &r->empty);
		r->book.room += r->capacity;
		raw_spin_unlock_irqrestore(&r->lock, flags);
		r->sheaves++;
		WRITE_ONCE(r->meta_bytes, r->meta_bytes + ksize(sheaf));
	}
	return 0;
}

/* Owe the new reservation objects of the reserve that no one is owed. */
static unsigned int reserve_claim_spare(struct slabx_reserve *r,
					unsigned int nr)
{
	unsigned long flags;
	unsigned int got;

	raw_spin_lock_irqsave(&r->lock, flags);
	got = slabx_book_claim_spare(&r->book, nr);
	raw_spin_unlock_irqrestore(&r->lock, flags);
	return got;
}

/*
 * Owe a new reservation @n objects from the slabs: each goes into the
 * reserve, or back to its slab where the reserve had one owed to no one.
 */
static void reserve_fill_batch(struct slabx_cache *s, void **batch,
			       unsigned int n)
{
	struct slabx_reserve *r = &s->reserve;
	void *back[RESERVE_BATCH];
	unsigned int i, nr_back = 0;
	unsigned long flags;

	raw_spin_lock_irqsave(&r->lock, flags);
	for (i = 0; i < n; i++) {
		if (slabx_book_fill(&r->book) == SLABX_RESERVE_TO_RESERVE)
			stack_push(r, batch[i]);
		else
			back[nr_back++] = batch[i];
	}
	raw_spin_unlock_irqrestore(&r->lock, flags);
	slabx_slab_flush(s, back, nr_back);
}

/*
 * Make the reserve owe @nr more objects: first those it holds for no one
 * (frees through other reservations fill it up to the target, which
 * rose already), then new ones from the slabs. Return: the objects it
 * now owes for them, @nr unless the slabs had no more.
 */
static unsigned int reserve_add_objects(struct slabx_cache *s, gfp_t gfp,
					unsigned int nr)
{
	void *batch[RESERVE_BATCH];
	unsigned int got, owed = 0;

	while (owed < nr) {
		owed += reserve_claim_spare(&s->reserve, nr - owed);
		if (owed == nr)
			break;
		got = slabx_slab_fill(s, gfp, NUMA_NO_NODE, batch,
				      min(nr - owed, RESERVE_BATCH));
		if (!got)
			break;
		reserve_fill_batch(s, batch, got);
		owed += got;
	}
	return owed;
}

/* Forget a reservation of @nr objects holding @held of them, and trim. */
static void reserve_drop(struct slabx_cache *s, unsigned int nr,
			 unsigned int held)
{
	struct slabx_reserve *r = &s->reserve;
	unsigned long flags;

	raw_spin_lock_irqsave(&r->lock, flags);
	slabx_book_unreserve(&r->book, nr, held);
	raw_spin_unlock_irqrestore(&r->lock, flags);
	reserve_trim(s);
}

/* ---- the API -------------------------------------------------------------------- */

static bool reserve_args_ok(struct slabx_cache *s, unsigned int nr)
{
	if (s->pool) {
		pr_warn("%s: a pool-mode cache has no reservations\n", s->name);
		return false;
	}
	if (!nr || nr > RESERVE_MAX) {
		pr_warn("%s: reservation of %u objects refused (1..%u)\n",
			s->name, nr, RESERVE_MAX);
		return false;
	}
	return true;
}

/**
 * slabx_reserve() - set objects of a cache aside for one user
 * @s: the cache; not a pool-mode cache.
 * @nr: objects to set aside, 1 to 1048576.
 * @gfp: how to allocate them and the reserve's sheaves (%GFP_KERNEL
 *	typically).
 *
 * Adds @nr objects of @s to the cache's reserve, one reserve shared by
 * all its reservations and kept as a stack of sheaves. An allocation
 * through the reservation (slabx_alloc_reserved()) then has
 * mempool_alloc()'s guarantee: it may take up to @nr objects from the
 * reserve when the allocator has none, whatever other reservations do,
 * and one that may sleep never fails. The reserve's objects count as in
 * use in the cache's statistics (objects_inuse) and as objects_reserve.
 * Objects of the reserve are of any node, as a mempool's are.
 *
 * Context: process context, may sleep.
 * Return: the reservation; or NULL, with nothing set aside, as
 * mempool_create() returns: for a bad @nr, a pool-mode cache or a cache
 * being destroyed (each reported with a warning), or without memory.
 */
struct slabx_reservation *slabx_reserve(struct slabx_cache *s,
					unsigned int nr, gfp_t gfp)
{
	struct slabx_reserve *r = &s->reserve;
	struct slabx_reservation *res;
	unsigned int owed = 0;
	unsigned long flags;
	int err;

	might_sleep();
	if (!reserve_args_ok(s, nr) || slabx_cache_dead(s, __func__))
		return NULL;
	/*
	 * Without a warning, as the sheaves and slabs below: a reservation
	 * that cannot be had is NULL to the caller, who was told so.
	 */
	res = slabx_meta_fail() ? NULL :
	      kmalloc(sizeof(*res), gfp | __GFP_NOWARN);
	if (!res)
		return NULL;
	res->cache = s;
	res->nr = nr;
	res->held = 0;
	init_swait_queue_head(&res->wait);

	mutex_lock(&r->mutex);
	raw_spin_lock_irqsave(&r->lock, flags);
	slabx_book_reserve(&r->book, nr);
	raw_spin_unlock_irqrestore(&r->lock, flags);
	err = reserve_add_sheaves(s, gfp);
	if (!err) {
		owed = reserve_add_objects(s, gfp, nr);
		if (owed < nr)
			err = -ENOMEM;
	}
	if (err) {
		/* Undone as a reservation that took what it did not get. */
		reserve_drop(s, nr, nr - owed);
	} else {
		r->reservations++;
		atomic_inc(&r->handles);
		WRITE_ONCE(r->meta_bytes, r->meta_bytes + ksize(res));
	}
	mutex_unlock(&r->mutex);
	if (err) {
		kfree(res);
		return NULL;
	}
	return res;
}
EXPORT_SYMBOL_GPL(slabx_reserve);

/**
 * slabx_unreserve() - give a reservation's objects back to the cache
 * @res: the reservation, or NULL (nothing is done).
 *
 * The reserve shrinks by the reservation's objects, which go back to
 * their slabs. Objects allocated through @res stay valid; free them with
 * slabx_free() afterwards. @res must not be used again, nor concurrently.
 * May be called during and after the cache's slabx_cache_destroy(),
 * which keeps a cache with live reservations as it keeps one with leaked
 * objects: the last reservation's slabx_unreserve() after the destroy
 * then frees the cache, unless objects of it are still allocated (the
 * cache must not be used after it).
 *
 * Context: process context, may sleep.
 */
void slabx_unreserve(struct slabx_reservation *res)
{
	struct slabx_cache *s;

	if (!res)
		return;
	might_sleep();
	s = res->cache;
	mutex_lock(&s->reserve.mutex);
	reserve_drop(s, res->nr, res->held);
	s->reserve.reservations--;
	WRITE_ONCE(s->reserve.meta_bytes, s->reserve.meta_bytes - ksize(res));
	mutex_unlock(&s->reserve.mutex);
	kfree(res);
	/*
	 * Counted down only once out of mutex_unlock(), which may still
	 * touch the mutex after another task took it. The cache holds a
	 * handle of its own until its destroy is done: the last one out
	 * frees a destroyed cache, with no one left inside it.
	 */
	if (atomic_dec_and_test(&s->reserve.handles))
		slabx_cache_reap(s);
}
EXPORT_SYMBOL_GPL(slabx_unreserve);

/* Whether @res may take an object from the reserve. */
static bool share_left(struct slabx_reservation *res)
{
	return READ_ONCE(res->held) < res->nr;
}

/* Sleep until a free through @res gives back a share, or the retry timeout. */
static void reserve_wait(struct slabx_reservation *res)
{
	slabx_stat_inc(res->cache, SLABX_RESERVE_WAIT);
	swait_event_idle_timeout_exclusive(res->wait, share_left(res),
					   RESERVE_RETRY_JIFFIES);
}

/* Wake one allocation waiting on @res, if its share has room. */
static void share_wake(struct slabx_reservation *res)
{
	/* swq_has_sleeper() orders the change of @held before its look. */
	if (share_left(res) && swq_has_sleeper(&res->wait))
		swake_up_one(&res->wait);
}

/*
 * An object from the reserve for @res, within its share; or NULL when
 * @res holds its share (or the cache is dead: its reserve is gone).
 */
static void *reserve_take_share(struct slabx_reservation *res)
{
	struct slabx_cache *s = res->cache;
	struct slabx_reserve *r = &s->reserve;
	unsigned long flags;
	bool share, took;
	void *obj = NULL;

	raw_spin_lock_irqsave(&r->lock, flags);
	share = res->held < res->nr && !READ_ONCE(s->dead);
	took = share && slabx_book_take(&r->book, &res->held, res->nr);
	if (took)
		obj = stack_pop(r);
	raw_spin_unlock_irqrestore(&r->lock, flags);
	/* The guarantee: a reservation within its share finds an object. */
	WARN_ON_ONCE(share && !took);
	if (!obj)
		return NULL;
	slabx_stat_inc(s, SLABX_RESERVE_ALLOC);
	slabx_stat_inc(s, SLABX_ALLOC);
	return obj;
}

/**
 * slabx_alloc_reserved() - allocate an object, from the reserve if need be
 * @res: a reservation of the cache.
 * @gfp: allocation context; %__GFP_ZERO zeroes the object.
 *
 * As mempool_alloc(): first a plain allocation without direct reclaim,
 * which costs what slabx_alloc() costs and does not look at the reserve;
 * when it fails, an object from the cache's reserve, as long as @res holds
 * fewer than its reserved objects from it; then, when @gfp allows direct
 * reclaim, an allocation with reclaim; and then it sleeps until a free
 * through @res (slabx_free_reserved()) gives back one of the objects it
 * took, trying the allocator again every 5 seconds. Every attempt of the
 * allocator is made with %__GFP_NORETRY, %__GFP_NOMEMALLOC and
 * %__GFP_NOWARN added, as mempool_alloc() makes them: it neither loops in
 * the page allocator nor uses its emergency reserves.
 *
 * Context: any context that @gfp allows, as slabx_alloc(); it sleeps only
 * when @gfp allows direct reclaim.
 * Return: the object; NULL only when @gfp does not allow direct reclaim
 * and neither the allocator nor @res's share of the reserve had one, or
 * when the cache is being destroyed.
 */
void *slabx_alloc_reserved(struct slabx_reservation *res, gfp_t gfp)
{
	struct slabx_cache *s = res->cache;
	/* As mempool_alloc(): never stuck in, nor draining, the page allocator. */
	gfp_t again = gfp | __GFP_NOWARN | __GFP_NORETRY | __GFP_NOMEMALLOC;
	gfp_t first = again & ~(__GFP_DIRECT_RECLAIM | __GFP_IO);
	bool reclaimed = false, waited = false;
	void *obj;

	for (obj = slabx_alloc_try(s, first); !obj;
	     obj = slabx_alloc_try(s, again)) {
		obj = reserve_take_share(res);
		if (obj) {
			slabx_alloc_hook(s, obj, gfp, true);
			trace_slabx_alloc(s, obj, gfp, SLABX_TRACE_RESERVE);
			break;
		}
		if (!gfpflags_allow_blocking(gfp) || READ_ONCE(s->dead)) {
			slabx_stat_inc(s, SLABX_ALLOC_FAIL);
			return NULL;
		}
		/* Reclaim once before the first wait, as mempool_alloc(). */
		if (reclaimed) {
			reserve_wait(res);
			waited = true;
		}
		reclaimed = true;
	}
	/* The wakeup may have been for a share this one did not use. */
	if (waited)
		share_wake(res);
	return obj;
}
EXPORT_SYMBOL_GPL(slabx_alloc_reserved);

/*
 * The checks of a free that may go into the reserve, as slabx_free()
 * makes them, and against the reserve for a %SLABX_DEBUG cache.
 * Return: whether it was accepted (a refusal is reported).
 */
static bool reserve_free_ok(struct slabx_cache *s, void *obj)
{
	if (!slabx_obj_slab(s, obj) || !slabx_kasan_free_ok(s, obj))
		return false;
	if ((s->flags & SLABX_DEBUG) && slabx_slab_obj_free(s, obj)) {
		slabx_double_free(s, obj, false);
		return false;
	}
	return !slabx_reserve_double_free(s, obj);
}

/*
 * Book a checked free through @res, which gives back one of the objects
 * @res holds if any, and put it into the reserve where the book says so.
 * Return: where it went.
 */
static enum slabx_reserve_dest reserve_give(struct slabx_reservation *res,
					    void *obj)
{
	struct slabx_reserve *r = &res->cache->reserve;
	enum slabx_reserve_dest dest;
	unsigned long flags;

	raw_spin_lock_irqsave(&r->lock, flags);
	/* A dead cache's reserve is flushed: nothing goes into it. */
	dest = READ_ONCE(res->cache->dead) ? SLABX_RESERVE_TO_SLAB :
		slabx_book_free(&r->book, &res->held);
	if (dest == SLABX_RESERVE_TO_RESERVE)
		stack_push(r, obj);
	raw_spin_unlock_irqrestore(&r->lock, flags);
	return dest;
}

/* A free through @res that gives back a share or refills the reserve. */
static void free_to_reserve(struct slabx_reservation *res, void *obj)
{
	struct slabx_cache *s = res->cache;

	rcu_read_lock();	/* as slabx_free(): a late free */
	if (reserve_free_ok(s, obj)) {
		slabx_free_hook(s, obj, true);
		if (reserve_give(res, obj) == SLABX_RESERVE_TO_RESERVE) {
			slabx_stat_inc(s, SLABX_RESERVE_REFILL);
		} else {
			slabx_slab_flush(s, &obj, 1);
			slabx_stat_inc(s, SLABX_FREE_SLOWPATH);
		}
		slabx_stat_inc(s, SLABX_FREE);
	}
	rcu_read_unlock();
}

/**
 * slabx_free_reserved() - free an object, refilling the reserve if need be
 * @res: the reservation the object was allocated through (as
 *	mempool_free() takes the pool it came from).
 * @obj: an object of the cache, or NULL (nothing is done).
 *
 * When @res holds objects it took from the reserve, this gives one of
 * them back: the object goes into the reserve unless the reserve has one
 * to spare already, and an allocation waiting in slabx_alloc_reserved()
 * wakes. Otherwise, while the cache's reserve is below the sum of its
 * reservations, the object refills it; else this is slabx_free(). An
 * object taken from the reserve and given to slabx_free() instead stays
 * counted against @res's share until @res frees another object.
 *
 * A %SLABX_DEBUG cache checks the free as slabx_free() does; otherwise a
 * double free of an object that went into the reserve is caught only by
 * KASAN. Leaked objects may be freed here during and after the cache's
 * destroy, as with slabx_free().
 *
 * Context: as slabx_free(): any context but NMI.
 */
void slabx_free_reserved(struct slabx_reservation *res, void *obj)
{
	struct slabx_cache *s = res->cache;

	if (!obj)
		return;
	/* Neither a share to give back nor a reserve to fill: no lock. */
	if ((!READ_ONCE(res->held) && !reserve_short(s)) ||
	    READ_ONCE(s->dead)) {
		slabx_free(s, obj);
		return;
	}
	free_to_reserve(res, obj);
	share_wake(res);
}
EXPORT_SYMBOL_GPL(slabx_free_reserved);

/**
 * slabx_reserve_destroy() - flush a dying cache's reserve
 * @s: the cache, dead.
 *
 * Context: process context, may sleep.
 * Return: the number of reservations still live (each is reported by the
 * caller as a leak: the cache is kept for them).
 */
unsigned int slabx_reserve_destroy(struct slabx_cache *s)
{
	struct slabx_reserve *r = &s->reserve;
	unsigned long flags, target;
	unsigned int live;

	mutex_lock(&r->mutex);
	live = r->reservations;
	/*
	 * Empty it: no take comes any more (the cache is dead). The
	 * reservations left keep their count for unreserve.
	 */
	raw_spin_lock_irqsave(&r->lock, flags);
	target = r->book.target;
	WRITE_ONCE(r->book.target, 0);
	raw_spin_unlock_irqrestore(&r->lock, flags);
	reserve_trim(s);
	raw_spin_lock_irqsave(&r->lock, flags);
	WRITE_ONCE(r->book.target, target);
	raw_spin_unlock_irqrestore(&r->lock, flags);
	mutex_unlock(&r->mutex);
	return live;
}

/**
 * slabx_reserve_info() - the reserve's figures for slabx_cache_info()
 * @s: the cache.
 * @info: receives objects_reserve, reserve_target and reserve_bytes.
 */
void slabx_reserve_info(struct slabx_cache *s, struct slabx_info *info)
{
	info->objects_reserve = READ_ONCE(s->reserve.book.objects);
	info->reserve_target = READ_ONCE(s->reserve.book.target);
	info->reserve_bytes = info->objects_reserve * s->stride +
			      READ_ONCE(s->reserve.meta_bytes);
}

/**
 * slabx_mempool_alloc() - mempool_alloc_t for a slabx cache
 * @gfp: allocation context, from mempool_alloc().
 * @pool_data: the cache (struct slabx_cache *).
 *
 * For a mempool of slabx objects, as mempool_alloc_slab() is for a
 * kmem_cache: mempool_create(min_nr, slabx_mempool_alloc,
 * slabx_mempool_free, cache). A reservation (slabx_reserve()) gives the
 * same guarantee without the mempool.
 *
 * Context: as slabx_alloc().
 * Return: an object, or NULL.
 */
void *slabx_mempool_alloc(gfp_t gfp, void *pool_data)
{
	return slabx_alloc(pool_data, gfp);
}
EXPORT_SYMBOL_GPL(slabx_mempool_alloc);

/**
 * slabx_mempool_free() - mempool_free_t for a slabx cache
 * @element: an object of the cache.
 * @pool_data: the cache (struct slabx_cache *).
 *
 * Context: as slabx_free().
 */
void slabx_mempool_free(void *element, void *pool_data)
{
	slabx_free(pool_data, element);
}
EXPORT_SYMBOL_GPL(slabx_mempool_free);

// SPDX-License-Identifier: GPL-2.0
/*
 * slabx reservations: mempool's guarantee without a mempool in front of
 * the allocator.
 *
 * A user reserves N objects of a cache (slabx_reserve()). Every
 * reservation of a cache adds to one reserve, the cache's, kept as
 * sheaves in the barns (each node's part in its barn), and an allocation
 * through a reservation (slabx_alloc_reserved()) first tries a plain
 * allocation, which does not look at the reserve, and takes an object
 * from the reserve only when that fails. A free through a reservation
 * (slabx_free_reserved()) refills the reserve up to its target, the sum
 * of the reservations, and wakes an allocation that waits for it.
 *
 * The guarantee. Each reservation counts in @held the objects it took
 * from the reserve and has not given back; it may take one only while
 * @held < @nr. Then, at every moment,
 *
 *	objects in the reserve >= sum over reservations of (nr - held),
 *
 * since a take lowers both sides by one, a free through a reservation
 * with @held > 0 either refills the reserve and lowers @held (both sides
 * up by one) or finds the reserve at its target, which is the sum of the
 * @nr, and a change of the target changes both sides alike. So a
 * reservation with @held < @nr always finds an object in the reserve
 * (a take first claims its place in @held, so concurrent takes each have
 * theirs): its allocation waits only while it holds all its share, and
 * only a free through it ends that. So each reservation has its own wait
 * queue, woken one waiter per free through it; a waiter woken for
 * nothing (another thread took the object) waits again, and one that got
 * its object some other way passes the wakeup on. As mempool_alloc(), a
 * waiter also tries the allocator again after a timeout.
 *
 * The reserve always has sheaves with room for its target, allocated
 * when a reservation is made, so a free never allocates to refill it.
 *
 * Lock order: reserve->mutex (slabx_reserve(), slabx_unreserve(), the
 * destroy) is taken before a barn's lock; the barn locks are leaves,
 * taken one at a time, and never with the per-CPU sheaves held here.
 * Frees and allocations take barn locks and node locks (raw, IRQs saved)
 * and a reservation's wait queue's raw lock, one at a time.
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
/* Passes over the nodes a put or a take makes while objects move. */
#define RESERVE_PASSES		4

/**
 * struct slabx_reservation - one user's share of a cache's reserve
 * @cache: the cache.
 * @nr: objects reserved.
 * @held: objects taken from the reserve through this reservation and not
 *	given back through it.
 * @wait: allocations through this reservation that wait for a free
 *	through it.
 */
struct slabx_reservation {
	struct slabx_cache *cache;
	unsigned int nr;
	atomic_t held;
	struct swait_queue_head wait;
};

static struct slabx_barn *node_barn(struct slabx_cache *s, int nid)
{
	return &s->node[nid]->barn;
}

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
	atomic_long_set(&r->objects, 0);
	/* As many as the sheaf's kmalloc() size has room for. */
	r->capacity = (bytes - sizeof(struct slabx_sheaf)) / sizeof(void *);
}

/* Whether the reserve is below its target. */
static bool reserve_short(struct slabx_cache *s)
{
	return atomic_long_read(&s->reserve.objects) <
	       (long)READ_ONCE(s->reserve.target);
}

/*
 * Put a free object into a sheaf of @nid's reserve with room for it,
 * unless @s is being destroyed (its reserve is flushed under these locks
 * once it is dead). Return: whether it was taken.
 */
static bool node_put(struct slabx_cache *s, int nid, void *obj)
{
	struct slabx_barn *barn = node_barn(s, nid);
	struct slabx_sheaf *sheaf;
	unsigned long flags;
	bool done = false;

	raw_spin_lock_irqsave(&barn->lock, flags);
	if (!READ_ONCE(s->dead))
		list_for_each_entry(sheaf, &barn->reserve, barn_list)
			if (sheaf->size < sheaf->capacity) {
				sheaf->objects[sheaf->size++] = obj;
				atomic_long_inc(&s->reserve.objects);
				done = true;
				break;
			}
	raw_spin_unlock_irqrestore(&barn->lock, flags);
	return done;
}

/*
 * Put @obj into the reserve, its own node's part first. There is room
 * while the reserve is short; takes on a node already looked at may make
 * it there, so look again while it is. Return: as above.
 */
static bool reserve_put(struct slabx_cache *s, void *obj)
{
	int home = slabx_obj_nid(s, obj), nid, pass;

	if (node_put(s, home, obj))
		return true;
	for (pass = 0; pass < RESERVE_PASSES; pass++) {
		for_each_node(nid)
			if (nid != home && node_put(s, nid, obj))
				return true;
		if (node_put(s, home, obj))
			return true;
		if (!reserve_short(s))
			break;
	}
	return false;
}

/*
 * Count one object out of the reserve, unless that leaves @floor or
 * fewer: a trim never takes the reserve below its target, whatever the
 * allocations do meanwhile.
 */
static bool objects_dec_above(struct slabx_cache *s, long floor)
{
	long v = atomic_long_read(&s->reserve.objects);

	do {
		if (v <= floor)
			return false;
	} while (!atomic_long_try_cmpxchg(&s->reserve.objects, &v, v - 1));
	return true;
}

/*
 * Take an object from @nid's part of the reserve, unless that leaves the
 * reserve with @floor objects or fewer. The count changes under the same
 * lock as the sheaf, so it never counts an object no one can find.
 */
static void *node_take(struct slabx_cache *s, int nid, long floor)
{
	struct slabx_barn *barn = node_barn(s, nid);
	struct slabx_sheaf *sheaf;
	unsigned long flags;
	void *obj = NULL;

	raw_spin_lock_irqsave(&barn->lock, flags);
	list_for_each_entry(sheaf, &barn->reserve, barn_list) {
		if (!sheaf->size)
			continue;
		if (objects_dec_above(s, floor)) {
			obj = sheaf->objects[sheaf->size - 1];
			slabx_sheaf_forget(sheaf, sheaf->size - 1);
		}
		break;
	}
	raw_spin_unlock_irqrestore(&barn->lock, flags);
	return obj;
}

/*
 * Take a free object from the reserve, the local node's part first. A
 * caller that claimed a place in its share has an object waiting for it
 * somewhere, which frees and other takes may move between the nodes
 * while it looks, so it looks again while the reserve counts objects.
 */
static void *reserve_take(struct slabx_cache *s)
{
	int nid, pass;
	void *obj;

	obj = node_take(s, numa_mem_id(), 0);
	for (pass = 0; !obj && pass < RESERVE_PASSES &&
	     atomic_long_read(&s->reserve.objects); pass++)
		for_each_node(nid)
			if (!obj)
				obj = node_take(s, nid, 0);
	return obj;
}

/*
 * Whether @obj is in the cache's reserve, for the double-free check of
 * %SLABX_DEBUG caches: the slab does not see an object of the reserve as
 * free. Looks at every object of the reserve, under each barn's lock in
 * turn.
 */
static bool reserve_holds(struct slabx_cache *s, void *obj)
{
	struct slabx_sheaf *sheaf;
	unsigned long flags;
	bool found = false;
	unsigned int i;
	int nid;

	for_each_node(nid) {
		struct slabx_barn *barn = node_barn(s, nid);

		raw_spin_lock_irqsave(&barn->lock, flags);
		list_for_each_entry(sheaf, &barn->reserve, barn_list)
			for (i = 0; i < sheaf->size; i++)
				found |= sheaf->objects[i] == obj;
		raw_spin_unlock_irqrestore(&barn->lock, flags);
	}
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
 * Context: any but NMI; not with a barn or node lock held.
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

/* Objects above the target go back to their slabs, node by node. */
static void reserve_trim_objects(struct slabx_cache *s)
{
	long target = s->reserve.target;
	void *batch[RESERVE_BATCH];
	unsigned int n;
	int nid;

	for_each_node(nid) {
		do {
			for (n = 0; n < RESERVE_BATCH; n++) {
				batch[n] = node_take(s, nid, target);
				if (!batch[n])
					break;
			}
			slabx_slab_flush(s, batch, n);
		} while (n == RESERVE_BATCH);
	}
}

/*
 * Of @nid's part, the sheaf with the fewest objects, once its objects
 * moved to the node's other sheaves, unlinked; NULL when they did not
 * fit. The move is made in one lock hold, so that no take misses them.
 */
static struct slabx_sheaf *node_spare_sheaf(struct slabx_cache *s, int nid)
{
	struct slabx_barn *barn = node_barn(s, nid);
	struct slabx_sheaf *victim = NULL, *sheaf;
	unsigned long flags;

	raw_spin_lock_irqsave(&barn->lock, flags);
	list_for_each_entry(sheaf, &barn->reserve, barn_list)
		if (!victim || sheaf->size < victim->size)
			victim = sheaf;
	list_for_each_entry(sheaf, &barn->reserve, barn_list) {
		while (victim && sheaf != victim && victim->size &&
		       sheaf->size < sheaf->capacity) {
			sheaf->objects[sheaf->size++] =
				victim->objects[victim->size - 1];
			slabx_sheaf_forget(victim, victim->size - 1);
		}
	}
	if (victim && !victim->size)
		list_del_init(&victim->barn_list);
	else
		victim = NULL;
	raw_spin_unlock_irqrestore(&barn->lock, flags);
	return victim;
}

/*
 * Free the sheaves the target no longer needs, once their node's other
 * sheaves have room for their objects (a reserve on several nodes may
 * keep a sheaf more than it needs until then).
 */
static void reserve_trim_sheaves(struct slabx_cache *s)
{
	struct slabx_reserve *r = &s->reserve;
	struct slabx_sheaf *sheaf;
	int nid;

	for_each_node(nid) {
		while (r->sheaves > DIV_ROUND_UP(r->target, r->capacity)) {
			sheaf = node_spare_sheaf(s, nid);
			if (!sheaf)
				break;
			r->sheaves--;
			WRITE_ONCE(r->meta_bytes, r->meta_bytes - ksize(sheaf));
			slabx_sheaf_free(s, sheaf);
		}
	}
}

/* Shrink the reserve to its (lowered) target. */
static void reserve_trim(struct slabx_cache *s)
{
	lockdep_assert_held(&s->reserve.mutex);
	reserve_trim_objects(s);
	reserve_trim_sheaves(s);
}

/* Add empty sheaves to the local node's part until there is room for the target. */
static int reserve_add_sheaves(struct slabx_cache *s, gfp_t gfp)
{
	struct slabx_reserve *r = &s->reserve;
	struct slabx_barn *barn = slabx_local_barn(s);
	struct slabx_sheaf *sheaf;
	unsigned long flags;

	while (r->sheaves < DIV_ROUND_UP(r->target, r->capacity)) {
		sheaf = slabx_meta_fail() ? NULL :
			slabx_sheaf_new(s, r->capacity, gfp);
		if (!sheaf)
			return -ENOMEM;
		raw_spin_lock_irqsave(&barn->lock, flags);
		list_add_tail(&sheaf->barn_list, &barn->reserve);
		raw_spin_unlock_irqrestore(&barn->lock, flags);
		r->sheaves++;
		WRITE_ONCE(r->meta_bytes, r->meta_bytes + ksize(sheaf));
	}
	return 0;
}

/* Fill the reserve with @nr new objects from the slabs. */
static int reserve_add_objects(struct slabx_cache *s, gfp_t gfp,
			       unsigned int nr)
{
	void *batch[RESERVE_BATCH];
	unsigned int got, i;

	while (nr) {
		got = slabx_slab_fill(s, gfp, NUMA_NO_NODE, batch,
				      min(nr, RESERVE_BATCH));
		for (i = 0; i < got; i++)
			if (!reserve_put(s, batch[i]))
				slabx_slab_flush(s, &batch[i], 1);
		if (!got)
			return -ENOMEM;
		nr -= got;
	}
	return 0;
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
 * all its reservations and kept as sheaves in the barns of the nodes. An
 * allocation through the reservation (slabx_alloc_reserved()) then has
 * mempool_alloc()'s guarantee: it may take up to @nr objects from the
 * reserve when the allocator has none, and one that may sleep never
 * fails. The reserve's objects count as in use in the cache's
 * statistics (objects_inuse) and as objects_reserve.
 *
 * Context: process context, may sleep.
 * Return: the reservation, or ERR_PTR(-EINVAL) (reported with pr_warn)
 * for a bad @nr, a pool-mode cache or a cache being destroyed, or
 * ERR_PTR(-ENOMEM), with nothing set aside.
 */
struct slabx_reservation *slabx_reserve(struct slabx_cache *s,
					unsigned int nr, gfp_t gfp)
{
	struct slabx_reservation *res;
	int err;

	might_sleep();
	if (!reserve_args_ok(s, nr) || slabx_cache_dead(s, __func__))
		return ERR_PTR(-EINVAL);
	res = slabx_meta_fail() ? NULL : kmalloc(sizeof(*res), gfp);
	if (!res)
		return ERR_PTR(-ENOMEM);
	res->cache = s;
	res->nr = nr;
	atomic_set(&res->held, 0);
	init_swait_queue_head(&res->wait);

	mutex_lock(&s->reserve.mutex);
	WRITE_ONCE(s->reserve.target, s->reserve.target + nr);
	err = reserve_add_sheaves(s, gfp) ?: reserve_add_objects(s, gfp, nr);
	if (err) {
		WRITE_ONCE(s->reserve.target, s->reserve.target - nr);
		reserve_trim(s);
	} else {
		s->reserve.reservations++;
		WRITE_ONCE(s->reserve.meta_bytes,
			   s->reserve.meta_bytes + ksize(res));
	}
	mutex_unlock(&s->reserve.mutex);
	if (err) {
		kfree(res);
		return ERR_PTR(err);
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
 * May be called after the cache's slabx_cache_destroy(), which keeps a
 * cache with live reservations as it keeps one with leaked objects.
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
	WRITE_ONCE(s->reserve.target, s->reserve.target - res->nr);
	s->reserve.reservations--;
	WRITE_ONCE(s->reserve.meta_bytes, s->reserve.meta_bytes - ksize(res));
	reserve_trim(s);
	mutex_unlock(&s->reserve.mutex);
	kfree(res);
}
EXPORT_SYMBOL_GPL(slabx_unreserve);

/* Whether @res may take an object from the reserve. */
static bool share_left(struct slabx_reservation *res)
{
	return atomic_read(&res->held) < res->nr;
}

/* Sleep until a free through @res, or the retry timeout. */
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

/* An object from the reserve for @res, within its share; or NULL. */
static void *reserve_take_share(struct slabx_reservation *res)
{
	struct slabx_cache *s = res->cache;
	void *obj;

	if (!atomic_add_unless(&res->held, 1, res->nr))
		return NULL;
	obj = reserve_take(s);
	if (!obj) {
		/* A waiter may have seen the share full: give it back. */
		atomic_dec(&res->held);
		share_wake(res);
		return NULL;
	}
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
 * reclaim, an allocation with reclaim; and then it waits for a free
 * through @res (slabx_free_reserved()), trying the allocator again every
 * 5 seconds. Every attempt of the allocator is made with %__GFP_NORETRY,
 * %__GFP_NOMEMALLOC and %__GFP_NOWARN added, as mempool_alloc() makes
 * them: it neither loops in the page allocator nor uses its emergency
 * reserves.
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
 * A free that may refill the reserve. A %SLABX_DEBUG cache checks it as
 * slabx_free() does, and also against the reserve. Return: whether it was
 * accepted.
 */
static bool free_to_reserve(struct slabx_cache *s, void *obj)
{
	if (!slabx_obj_slab(s, obj) || !slabx_kasan_free_ok(s, obj))
		return false;	/* refused and reported */
	if ((s->flags & SLABX_DEBUG) && slabx_slab_obj_free(s, obj)) {
		slabx_double_free(s, obj, false);
		return false;
	}
	if (slabx_reserve_double_free(s, obj))
		return false;
	slabx_free_hook(s, obj, true);
	if (reserve_put(s, obj)) {
		slabx_stat_inc(s, SLABX_RESERVE_REFILL);
	} else {
		slabx_slab_flush(s, &obj, 1);
		slabx_stat_inc(s, SLABX_FREE_SLOWPATH);
	}
	return true;
}

/**
 * slabx_free_reserved() - free an object, refilling the reserve if need be
 * @res: the reservation the object was allocated through (as
 *	mempool_free() takes the pool it came from).
 * @obj: an object of the cache, or NULL (nothing is done).
 *
 * While the cache's reserve is below the sum of its reservations, the
 * object refills it and wakes an allocation waiting in
 * slabx_alloc_reserved(); otherwise this is slabx_free(). Either way it
 * gives back one of the objects @res took from the reserve, if any: an
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
	bool ok;

	if (!obj)
		return;
	if (reserve_short(s) && !READ_ONCE(s->dead)) {
		rcu_read_lock();	/* as slabx_free(): a late free */
		ok = free_to_reserve(s, obj);
		rcu_read_unlock();
		if (!ok)
			return;
		slabx_stat_inc(s, SLABX_FREE);
	} else {
		slabx_free(s, obj);
	}
	if (atomic_add_unless(&res->held, -1, 0))
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
	unsigned long target;
	unsigned int live;

	mutex_lock(&s->reserve.mutex);
	live = s->reserve.reservations;
	/* Empty it; the reservations left keep their count for unreserve. */
	target = s->reserve.target;
	WRITE_ONCE(s->reserve.target, 0);
	reserve_trim(s);
	WRITE_ONCE(s->reserve.target, target);
	mutex_unlock(&s->reserve.mutex);
	return live;
}

/**
 * slabx_reserve_info() - the reserve's figures for slabx_cache_info()
 * @s: the cache.
 * @info: receives objects_reserve, reserve_target and reserve_bytes.
 */
void slabx_reserve_info(struct slabx_cache *s, struct slabx_info *info)
{
	info->objects_reserve = atomic_long_read(&s->reserve.objects);
	info->reserve_target = READ_ONCE(s->reserve.target);
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

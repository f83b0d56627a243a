// SPDX-License-Identifier: GPL-2.0
/*
 * slabx: a cache's waits for a grace period, at the slab layer.
 *
 * The epoch counts: every rcu_free sheaf (rcu_free.c) and every batch
 * below is counted in its cache's rcu_inflight of the epoch in which it
 * opened (slabx_rcu_open()) until its objects are free again
 * (slabx_rcu_put()); slabx_rcu_barrier() starts a new epoch and waits
 * until the old one has nothing in flight.
 *
 * Objects waiting for a grace period in their own slab:
 * The fallback of slabx_free_rcu() (rcu_free.c) when no rcu_free sheaf can
 * take an object (no sheaf to be had, busy sheaves, an object of another
 * node, a cache without sheaves): every slab has one pending bit per
 * object and batch, so it needs no memory, never sleeps and loses nothing.
 * Each node has two batches of waiting objects and one RCU callback (see
 * slabx_slab_defer_rcu()).
 *
 * Lock order: slabx_node->lock (raw, a leaf), taken alone; call_rcu() is
 * called with no lock held.
 */
#include <linux/bitmap.h>
#include <linux/lockdep.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "slabx_internal.h"

/* Woken whenever a cache's last RCU callback finishes. */
static DECLARE_WAIT_QUEUE_HEAD(slabx_rcu_wq);

/**
 * slabx_rcu_open() - count an rcu_free sheaf or fallback batch that opens
 * @s: the cache.
 *
 * Context: with preemption or IRQs off, so that slabx_rcu_barrier()'s
 * synchronize_rcu() waits for a caller that read the old epoch.
 * Return: the epoch parity it is counted in, for slabx_rcu_put().
 */
unsigned int slabx_rcu_open(struct slabx_cache *s)
{
	unsigned int epoch = READ_ONCE(s->rcu_epoch) & 1;

	atomic_inc(&s->rcu_inflight[epoch]);
	return epoch;
}

/**
 * slabx_rcu_put() - count a sheaf or batch whose objects are free again
 * @s: the cache; not touched afterwards, since a waiting destroy may free
 *	it at once.
 * @epoch: what slabx_rcu_open() returned for it.
 */
void slabx_rcu_put(struct slabx_cache *s, unsigned int epoch)
{
	if (atomic_dec_and_test(&s->rcu_inflight[epoch]))
		wake_up_all(&slabx_rcu_wq);
}

/**
 * slabx_rcu_done() - count objects freed after their grace period
 * @s: the cache.
 * @nr: the objects.
 */
void slabx_rcu_done(struct slabx_cache *s, unsigned long nr)
{
	slabx_stat_add(s, SLABX_FREE, nr);
	slabx_stat_add(s, SLABX_FREE_RCU_DONE, nr);
}

/**
 * slabx_rcu_epoch_next() - start a new rcu epoch of a cache
 * @s: the cache; its rcu_barrier_mutex held.
 *
 * Return: the parity of the epoch that ended, for slabx_rcu_epoch_wait().
 */
unsigned int slabx_rcu_epoch_next(struct slabx_cache *s)
{
	unsigned int old = s->rcu_epoch & 1;

	lockdep_assert_held(&s->rcu_barrier_mutex);
	WRITE_ONCE(s->rcu_epoch, s->rcu_epoch + 1);
	return old;
}

/**
 * slabx_rcu_epoch_wait() - wait until an ended epoch has nothing in flight
 * @s: the cache; its rcu_barrier_mutex held.
 * @old: what slabx_rcu_epoch_next() returned.
 *
 * Context: process context, may sleep.
 */
void slabx_rcu_epoch_wait(struct slabx_cache *s, unsigned int old)
{
	lockdep_assert_held(&s->rcu_barrier_mutex);
	/*
	 * Acquire, pairing with the callbacks' fully ordered decrement:
	 * the sheaves they stored are seen after, by a barn's lockless
	 * look at its counts too (slabx_barn_get_full()).
	 */
	wait_event(slabx_rcu_wq, !atomic_read_acquire(&s->rcu_inflight[old]));
}

/* The pending bitmap of batch @b of a slab. */
static unsigned long *slab_rcu_bitmap(struct slabx_cache *s,
				      struct slabx_slab *slab, unsigned int b)
{
	return slab->rcu_pending + b * s->rcu_bitmap_longs;
}

/**
 * slabx_slab_rcu_pending() - whether an object waits in its slab for a
 *	grace period
 * @s: the cache.
 * @slab: the slab of @obj; its node's lock is held.
 * @obj: the object.
 *
 * Return: true when @obj is in either batch of its node.
 */
bool slabx_slab_rcu_pending(struct slabx_cache *s, struct slabx_slab *slab,
			    void *obj)
{
	unsigned int idx = slabx_obj_index(s, slab, obj);

	return test_bit(idx, slab_rcu_bitmap(s, slab, 0)) ||
	       test_bit(idx, slab_rcu_bitmap(s, slab, 1));
}

/* Put a slab's objects of batch @b back (n->lock held). Return: how many. */
static unsigned int slab_rcu_release(struct slabx_cache *s,
				     struct slabx_node *n,
				     struct slabx_slab *slab, unsigned int b,
				     struct list_head *discard)
{
	unsigned long *pending = slab_rcu_bitmap(s, slab, b);
	unsigned int idx, nr = 0;

	lockdep_assert_held(&n->lock);
	list_del_init(&slab->rcu_list[b]);
	slab->rcu_nr[b] = 0;
	/* The last slabx_node_put() may move the slab to @discard: still mapped. */
	for_each_set_bit(idx, pending, s->objs_per_slab) {
		void *obj = slabx_slab_obj(s, slab, idx);

		__clear_bit(idx, pending);
		slabx_kasan_rcu_wait(s, obj, false);
		slabx_free_hook(s, obj, false);
		slabx_node_put(s, n, slab, obj, discard);
		nr++;
	}
	return nr;
}

/*
 * Close the open batch and make the other one open (n->lock held, a
 * callback about to be queued for the closed one). Return: its index.
 */
static unsigned int node_rcu_close_batch(struct slabx_node *n)
{
	unsigned int closed = n->rcu_open;

	lockdep_assert_held(&n->lock);
	n->rcu_open ^= 1;
	n->rcu_queued = true;
	return closed;
}

/*
 * RCU callback of a node: every object of the closed batch was deferred
 * before the callback was queued, so its grace period is over. If the open
 * batch took objects meanwhile, close it and queue the callback again.
 */
static void node_rcu_drain(struct rcu_head *head)
{
	struct slabx_node *n = container_of(head, struct slabx_node, rcu);
	struct slabx_cache *s = n->cache;
	struct slabx_rcu_batch *batch;
	struct slabx_slab *slab, *tmp;
	unsigned long flags, done = 0;
	unsigned int b, epoch;
	LIST_HEAD(discard);
	bool again;

	raw_spin_lock_irqsave(&n->lock, flags);
	b = n->rcu_open ^ 1;		/* the batch closed for us */
	batch = &n->rcu_batch[b];
	list_for_each_entry_safe(slab, tmp, &batch->slabs, rcu_list[b])
		done += slab_rcu_release(s, n, slab, b, &discard);
	epoch = batch->epoch;
	batch->nr = 0;
	again = n->rcu_batch[n->rcu_open].nr;
	if (again)
		node_rcu_close_batch(n);
	else
		n->rcu_queued = false;
	raw_spin_unlock_irqrestore(&n->lock, flags);
	slabx_stat_inc(s, SLABX_NODE_LOCK);
	slabx_slab_discard_list(s, &discard);
	slabx_rcu_done(s, done);
	if (again) {
		slabx_stat_inc(s, SLABX_RCU_CALL);
		call_rcu(&n->rcu, node_rcu_drain);
	}
	/* Last: a waiting destroy may free the cache once it is counted. */
	slabx_rcu_put(s, epoch);
}

/* Add @obj to the node's open batch (n->lock held). */
static void node_rcu_add(struct slabx_cache *s, struct slabx_node *n,
			 struct slabx_slab *slab, unsigned int idx)
{
	unsigned int b = n->rcu_open;
	struct slabx_rcu_batch *batch = &n->rcu_batch[b];

	lockdep_assert_held(&n->lock);
	if (!batch->nr++)
		batch->epoch = slabx_rcu_open(s);
	__set_bit(idx, slab_rcu_bitmap(s, slab, b));
	if (!slab->rcu_nr[b]++)
		list_add_tail(&slab->rcu_list[b], &batch->slabs);
	/* Counted before the drain can see it: waiting never < 0. */
	slabx_stat_inc(s, SLABX_FREE_RCU);
}

/**
 * slabx_slab_defer_rcu() - free an object after a grace period, in its slab
 * @s: the cache.
 * @slab: the slab of @obj.
 * @obj: the object, still in use by RCU readers.
 *
 * The object is marked in its slab's pending bitmap of the node's open
 * batch; every slab has the bitmaps, so this needs no memory: it is the
 * fallback of slabx_free_rcu() when no sheaf can take the object. Each
 * node has two batches and one RCU callback: a batch is closed when the
 * callback is queued for it and freed by it, so an object waits at most
 * about two grace periods, however busy the slab is.
 *
 * A %SLABX_DEBUG cache also refuses an object free in its slab already
 * (its grace period ended before this second free, or it was freed with
 * slabx_free()), as it refuses every double free.
 *
 * Context: any but NMI.
 * Return: false for an object already waiting or, in a %SLABX_DEBUG cache,
 * already free (a double free, reported). Under KASAN neither comes here:
 * slabx_kasan_free_ok() refused it first.
 */
bool slabx_slab_defer_rcu(struct slabx_cache *s, struct slabx_slab *slab,
			  void *obj)
{
	struct slabx_node *n = s->node[slab->nid];
	bool queue = false, twice, free = false;
	unsigned long flags;

	raw_spin_lock_irqsave(&n->lock, flags);
	twice = slabx_slab_rcu_pending(s, slab, obj);
	if (!twice && (s->flags & SLABX_DEBUG))
		free = slabx_slab_has_free(s, slab, obj);
	if (!twice && !free) {
		node_rcu_add(s, n, slab, slabx_obj_index(s, slab, obj));
		if (!n->rcu_queued) {
			node_rcu_close_batch(n);
			queue = true;
		}
	}
	raw_spin_unlock_irqrestore(&n->lock, flags);
	slabx_stat_inc(s, SLABX_NODE_LOCK);

	if (twice) {
		slabx_stat_inc(s, SLABX_FREE_INVALID);
		slabx_report(s, "slabx: %s: double slabx_free_rcu() of %p\n",
			     s->name, obj);
		return false;
	}
	if (free) {
		slabx_double_free(s, obj, false);
		return false;
	}
	if (queue) {
		slabx_stat_inc(s, SLABX_RCU_CALL);
		call_rcu(&n->rcu, node_rcu_drain);
	}
	return true;
}

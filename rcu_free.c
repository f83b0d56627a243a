// SPDX-License-Identifier: GPL-2.0
/*
 * slabx kfree_rcu batcher: slabx_free_rcu() and slabx_rcu_barrier().
 *
 * An object freed with slabx_free_rcu() goes into this CPU's rcu_free
 * sheaf. When that sheaf is full it is detached and queued with one
 * call_rcu() for all its objects. After the grace period the callback puts
 * the whole sheaf into the barn of the node it was filled on, as a full
 * sheaf that any CPU of the node can allocate from at once; if the barn
 * holds its limit (or the sheaf is partial, see below), the objects go back
 * to their slabs and the empty sheaf is kept in the barn or freed.
 *
 * The free path does not need memory. The next rcu_free sheaf is this
 * CPU's empty spare or an empty sheaf of the barn; else, where kmalloc()
 * with GFP_NOWAIT is allowed, a new one. Its capacity is the cache's,
 * unless the last rcu_free sheaf this CPU filled still waits for its
 * grace period (a polled grace-period state, pcs->rcu_full_gp): then this
 * CPU's frees outrun grace periods, every sheaf filled since waits too,
 * and empty sheaves have run out. The new sheaf is then a large one
 * (%SLABX_RCU_SHEAF_LARGE_BYTES: up to 506 objects, and up to
 * %SLABX_RCU_SHEAF_LARGE_HOLD bytes of them; a large sheaf is one with
 * more room than the cache's sheaves), so that one allocation, one
 * call_rcu() and one kfree() serve up to about 500 frees rather than a
 * sheaf's 4 to 64, while a CPU that frees by RCU now and then opens no
 * large sheaf. If the large sheaf cannot be had, one of the cache's
 * capacity is tried. No barn stores a large sheaf: after its
 * grace period its objects fill the barn's empty sheaves, as many as the
 * barn stores full (in one lock hold), the rest go back to their slabs,
 * and the large sheaf is freed.
 *
 * When no sheaf can be had (or the sheaves are busy, or the object is of
 * another node, or the cache has no sheaves), the object waits in its own
 * slab instead (slab_rcu.c, slabx_slab_defer_rcu()): that fallback needs
 * no memory either, never sleeps and loses nothing.
 *
 * A partial rcu_free sheaf is queued by slabx_rcu_barrier(), by
 * slabx_cache_shrink(), when its CPU dies, and by the age monitor
 * (rcu_monitor.c) once it has been open for %SLABX_RCU_FREE_MAX_AGE_MS;
 * opening a sheaf arms the monitor.
 *
 * Every rcu_free sheaf and fallback batch is counted in its cache's
 * rcu_inflight of the epoch in which it opened (slab_rcu.c), until its
 * objects are free: slabx_rcu_barrier() waits for that cache's work only, never for
 * the RCU work of other caches, and not for work that opened after it
 * started.
 *
 * Lock order: per-CPU sheaves -> barn->lock (see cache.c). call_rcu() is
 * called with the sheaves held or with no lock, and so is
 * slabx_rcu_monitor_arm().
 */
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "slabx_internal.h"
/* The SLABX_TEST hooks defined or used here. */
#include "tests/slabx_test_hooks.h"

/*
 * A large rcu_free sheaf, what slabx_free_rcu() allocates when it finds no
 * empty sheaf while the last full rcu_free sheaf of its CPU waits for its
 * grace period (see the top of this file): at most
 * SLABX_RCU_SHEAF_LARGE_BYTES, header included (506 pointers on 64-bit), and room for at most
 * SLABX_RCU_SHEAF_LARGE_HOLD bytes of objects, so that one allocation and
 * one call_rcu() serve up to about 500 frees.
 */
#define SLABX_RCU_SHEAF_LARGE_BYTES	4096
#define SLABX_RCU_SHEAF_LARGE_HOLD	(64 * 1024)

/* Attempts to get an empty rcu_free sheaf left to fail (fault injection). */
static atomic_t rcu_sheaf_fail = ATOMIC_INIT(0);

/**
 * slabx_fault_inject_rcu_sheaf() - make slabx_free_rcu() find no sheaf
 * @nr: fail the next @nr attempts to get an empty rcu_free sheaf; a
 *	negative @nr fails every one until the next call, 0 stops failing.
 *
 * For tests of the fallback: objects then wait in their slabs.
 */
void slabx_fault_inject_rcu_sheaf(int nr)
{
	atomic_set(&rcu_sheaf_fail, nr);
}
EXPORT_SYMBOL_NS_GPL(slabx_fault_inject_rcu_sheaf, SLABX_TEST);

/**
 * slabx_fault_injected_rcu_sheaf() - the fault injection setting
 *
 * Return: what slabx_fault_inject_rcu_sheaf() set, less the failures since.
 */
int slabx_fault_injected_rcu_sheaf(void)
{
	return atomic_read(&rcu_sheaf_fail);
}

/*
 * The capacity of the rcu_free sheaf slabx_free_rcu() allocates first:
 * large where this CPU's frees outrun grace periods (@outrun, see the
 * top), unless the cache's capacity is as large; else the cache's.
 */
static unsigned int rcu_sheaf_new_capacity(struct slabx_cache *s, bool outrun)
{
	unsigned int large = min_t(unsigned int,
				   (SLABX_RCU_SHEAF_LARGE_BYTES -
				    sizeof(struct slabx_sheaf)) / sizeof(void *),
				   SLABX_RCU_SHEAF_LARGE_HOLD / s->stride);

	return outrun ? max(s->sheaf_capacity, large) : s->sheaf_capacity;
}

/* Whether @sheaf is a large rcu_free sheaf, which no barn may store. */
static bool rcu_sheaf_large(struct slabx_cache *s, struct slabx_sheaf *sheaf)
{
	return sheaf->capacity != s->sheaf_capacity;
}

/* An empty sheaf rcu_free is done with: kept in @barn, or freed. */
static void rcu_sheaf_discard(struct slabx_cache *s, struct slabx_barn *barn,
			      struct slabx_sheaf *sheaf)
{
	if (rcu_sheaf_large(s, sheaf))
		slabx_sheaf_free(s, sheaf);
	else
		slabx_sheaf_stash_empty(s, barn, sheaf);
}

/*
 * After the grace period of a large sheaf: fill the barn's empty sheaves
 * with its objects, as many as the barn stores full; the rest stay.
 */
static void rcu_sheaf_split(struct slabx_cache *s, struct slabx_barn *barn,
			    struct slabx_sheaf *sheaf)
{
	unsigned int filled;

	filled = slabx_barn_fill_empty(barn, sheaf->objects, sheaf->size,
				       s->sheaf_capacity);
	if (!filled)
		return;
	slabx_sheaf_forget(sheaf, sheaf->size - filled * s->sheaf_capacity);
	slabx_stat_add(s, SLABX_RCU_SHEAF_SPLIT, filled);
}

/* After the grace period: the sheaf's objects are free for everybody. */
static void rcu_sheaf_done(struct rcu_head *head)
{
	struct slabx_sheaf *sheaf = container_of(head, struct slabx_sheaf, rcu);
	struct slabx_cache *s = sheaf->cache;
	struct slabx_barn *barn = &s->node[sheaf->nid]->barn;
	/* Read first: in a barn the sheaf is anybody's. */
	unsigned int nr = sheaf->size, epoch = sheaf->rcu_epoch, i;
	u64 queued = sheaf->rcu_queued_ns;
	int nid = sheaf->nid;
	bool large = rcu_sheaf_large(s, sheaf);
	bool full = !large && nr == sheaf->capacity, to_barn;

	if (IS_ENABLED(CONFIG_KASAN_GENERIC) || slabx_init_on_free(s))
		for (i = 0; i < nr; i++) {
			slabx_kasan_rcu_wait(s, sheaf->objects[i], false);
			slabx_free_hook(s, sheaf->objects[i], false);
		}

	if (large)
		rcu_sheaf_split(s, barn, sheaf);
	to_barn = full && slabx_barn_put_full(barn, sheaf);
	if (full)
		trace_slabx_barn_put(s, nid, to_barn);
	if (to_barn) {
		slabx_stat_inc(s, SLABX_RCU_SHEAF_TO_BARN);
	} else {
		if (sheaf->size) {
			slabx_sheaf_flush(s, sheaf);
			slabx_stat_inc(s, SLABX_RCU_SHEAF_FLUSHED);
		}
		rcu_sheaf_discard(s, barn, sheaf);
	}
	/* 0: queued while the event was off, no wait to report. */
	if (trace_slabx_rcu_sheaf_done_enabled() && queued)
		trace_slabx_rcu_sheaf_done(s, nid, nr,
					   ktime_get_mono_fast_ns() - queued,
					   to_barn);
	slabx_rcu_done(s, nr);
	slabx_rcu_put(s, epoch);
}

/* Queue a detached rcu_free sheaf, whose objects are all of node @nid. */
static void rcu_sheaf_submit(struct slabx_cache *s, struct slabx_sheaf *sheaf,
			     int nid)
{
	sheaf->nid = nid;
	/* Time stamped only for the trace: see rcu_sheaf_done(). */
	sheaf->rcu_queued_ns = 0;
	if (trace_slabx_rcu_sheaf_done_enabled())
		sheaf->rcu_queued_ns = ktime_get_mono_fast_ns() ?: 1;
	trace_slabx_rcu_sheaf_submit(s, nid, sheaf->size);
	slabx_stat_inc(s, SLABX_RCU_SHEAF_SUBMITTED);
	slabx_stat_inc(s, SLABX_RCU_CALL);
	call_rcu(&sheaf->rcu, rcu_sheaf_done);
}

/**
 * slabx_rcu_free_submit_pcs() - queue a CPU's partial rcu_free sheaf
 * @s: the cache.
 * @pcs: the CPU's sheaves, held, or of a dead CPU.
 * @nid: the CPU's node.
 */
void slabx_rcu_free_submit_pcs(struct slabx_cache *s, struct slabx_cpu_sheaves *pcs,
			       int nid)
{
	struct slabx_sheaf *sheaf = pcs->rcu_free;

	if (!sheaf || !sheaf->size)
		return;
	pcs->rcu_free = NULL;
	rcu_sheaf_submit(s, sheaf, nid);
}

/**
 * slabx_rcu_free_flush_cpu() - queue a dead CPU's partial rcu_free sheaf
 * @s: the cache.
 * @cpu: a CPU that is offline.
 */
void slabx_rcu_free_flush_cpu(struct slabx_cache *s, unsigned int cpu)
{
	if (s->cpu_sheaves)
		slabx_rcu_free_submit_pcs(s, per_cpu_ptr(s->cpu_sheaves, cpu),
					  cpu_to_mem(cpu));
}

/* Give rcu_free an empty sheaf that needs no allocation. */
static bool rcu_free_get_empty(struct slabx_cache *s,
			       struct slabx_cpu_sheaves *pcs)
{
	pcs_assert_held(pcs);
	if (slabx_fault_hit(&rcu_sheaf_fail))
		return false;
	if (pcs->spare && !pcs->spare->size) {
		pcs->rcu_free = pcs->spare;
		pcs->spare = NULL;
	} else {
		pcs->rcu_free = slabx_barn_get_empty(slabx_local_barn(s));
	}
	return pcs->rcu_free;
}

/**
 * slabx_free_rcu_pending_report() - report a free that
 *	slabx_free_rcu_pending() refused
 * @s: the cache.
 * @obj: the object, waiting for its grace period after slabx_free_rcu().
 *
 * Counted in free_invalid, and warned about every time, as KASAN reports
 * every double free it sees (this is a check of KASAN builds only). Out
 * of line: off the free paths.
 */
void slabx_free_rcu_pending_report(struct slabx_cache *s, void *obj)
{
	slabx_stat_inc(s, SLABX_FREE_INVALID);
	WARN(1, "slabx: %s: double free of %p, given to slabx_free_rcu() and waiting for its grace period\n",
	     s->name, obj);
}

/*
 * With %CONFIG_SLAB_FREELIST_HARDENED, whether @obj is the object last put
 * into this CPU's rcu_free sheaf (held): a second slabx_free_rcu() of it
 * is a double free, refused and reported by rcu_free_push(), as
 * slabx_sheaves_free() does for slabx_free() (KASAN, where it is on,
 * refused any free of it before).
 */
static __always_inline bool rcu_free_suspect(struct slabx_cpu_sheaves *pcs,
					     void *obj)
{
	struct slabx_sheaf *sheaf = pcs->rcu_free;

	pcs_assert_held(pcs);
	return IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED) && sheaf &&
	       sheaf->size && unlikely(sheaf->objects[sheaf->size - 1] == obj);
}

/* The suspect of rcu_free_suspect(), refused: counted and reported. */
static void rcu_free_double(struct slabx_cache *s, void *obj)
{
	slabx_stat_inc(s, SLABX_FREE_INVALID);
	slabx_report(s, "slabx: %s: double slabx_free_rcu() of %p, the last one on this CPU\n",
		     s->name, obj);
}

/*
 * Put @obj into this CPU's rcu_free sheaf (held, with room), counted: a
 * free_rcu and a free_rcu_sheaf (see struct slabx_stats), before the
 * callback can see it, so that waiting is never below 0.
 */
static __always_inline void rcu_free_add(struct slabx_cache *s,
					 struct slabx_cpu_sheaves *pcs,
					 void *obj)
{
	struct slabx_sheaf *sheaf = pcs->rcu_free;

	pcs_assert_held(pcs);
	sheaf->objects[sheaf->size++] = obj;
	__this_cpu_inc(s->stats->pcs_free_rcu);
}

/*
 * Put @obj into this CPU's rcu_free sheaf, installing *@new (an empty sheaf
 * the caller allocated) if it has none; *@new is cleared when used. A sheaf
 * that becomes full is queued. Return: false when no sheaf took @obj; if
 * for want of a sheaf, *@outrun tells whether the grace period of this
 * CPU's last full rcu_free sheaf is still pending. True when done, or
 * refused as a double free (rcu_free_suspect()).
 */
static bool rcu_free_push(struct slabx_cache *s, struct slabx_slab *slab,
			  void *obj, struct slabx_sheaf **new, bool *outrun)
{
	struct slabx_cpu_sheaves *pcs;
	struct slabx_sheaf *sheaf;
	bool done = false;

	pcs = pcs_lock(s);
	if (!pcs)
		return false;
	if (slab->nid != numa_mem_id())
		goto out;
	if (rcu_free_suspect(pcs, obj)) {
		rcu_free_double(s, obj);
		done = true;
		goto out;
	}
	if (!pcs->rcu_free && *new) {
		pcs->rcu_free = *new;
		*new = NULL;
	}
	if (!pcs->rcu_free && !rcu_free_get_empty(s, pcs)) {
		*outrun = !poll_state_synchronize_rcu(pcs->rcu_full_gp);
		goto out;
	}
	sheaf = pcs->rcu_free;
	if (!sheaf->size) {		/* rcu_free is never left empty */
		sheaf->rcu_epoch = slabx_rcu_open(s);
		/* Checked by this CPU again before the monitor queues it. */
		WRITE_ONCE(pcs->rcu_free_opened, jiffies);
		slabx_rcu_monitor_arm();
	}
	rcu_free_add(s, pcs, obj);
	if (sheaf->size == sheaf->capacity) {
		pcs->rcu_free = NULL;
		pcs->rcu_full_gp = get_state_synchronize_rcu();
		rcu_sheaf_submit(s, sheaf, numa_mem_id());
	}
	done = true;
out:
	pcs_unlock(pcs);
	return done;
}

/*
 * The fast path of slabx_free_rcu(), with no call at all (so that it saves
 * no register): this CPU's rcu_free sheaf holds an object already (its
 * epoch is open: it is never left empty) and has room for more than @obj
 * (it does not fill, which queues it). Everything else, the suspect of
 * rcu_free_suspect() included, is left to rcu_free_push(). Return: true
 * when done, counted.
 */
static __always_inline bool sheaves_free_rcu(struct slabx_cache *s,
					     struct slabx_slab *slab, void *obj)
{
	struct slabx_cpu_sheaves *pcs;
	struct slabx_sheaf *sheaf;
	bool done;

	pcs = pcs_lock(s);
	if (!pcs)
		return false;
	sheaf = pcs->rcu_free;
	done = slab->nid == numa_mem_id() && sheaf &&
	       likely(sheaf->size + 1 < sheaf->capacity) &&
	       !rcu_free_suspect(pcs, obj);
	if (likely(done))
		rcu_free_add(s, pcs, obj);
	pcs_unlock(pcs);
	return done;
}

/* Free @obj through a sheaf, allocating one if need be and allowed. */
static bool free_rcu_to_sheaf(struct slabx_cache *s, struct slabx_slab *slab,
			      void *obj)
{
	struct slabx_sheaf *new = NULL;
	bool done, outrun = false;
	unsigned int capacity;

	done = rcu_free_push(s, slab, obj, &new, &outrun);
	if (done || slab->nid != numa_mem_id() || !slabx_may_alloc_sheaf() ||
	    slabx_fault_injected_rcu_sheaf())
		return done;
	capacity = rcu_sheaf_new_capacity(s, outrun);
	new = slabx_sheaf_new(s, capacity, SLABX_FREE_SHEAF_GFP);
	if (!new && capacity != s->sheaf_capacity)
		new = slabx_sheaf_new(s, s->sheaf_capacity,
				      SLABX_FREE_SHEAF_GFP);
	if (!new)
		return false;
	if (rcu_sheaf_large(s, new))
		slabx_stat_inc(s, SLABX_RCU_SHEAF_LARGE);
	done = rcu_free_push(s, slab, obj, &new, &outrun);
	if (new)
		rcu_sheaf_discard(s, slabx_local_barn(s), new);
	return done;
}

/* The calls slabx_free_rcu() refuses, reported; the object leaks. */
static noinline void free_rcu_refuse(struct slabx_cache *s, void *obj)
{
	/* call_rcu() is not NMI-safe: leak rather than corrupt. */
	if (WARN_ON_ONCE(in_nmi()) || slabx_cache_dead(s, "slabx_free_rcu"))
		return;
	pr_warn_ratelimited("slabx: %s: slabx_free_rcu() is not supported in pool mode; object %p leaked\n",
			    s->name, obj);
	slabx_stat_inc(s, SLABX_FREE_INVALID);
}

/* Every slabx_free_rcu() of a checked object but the fast path's. */
static noinline void free_rcu_full(struct slabx_cache *s,
				   struct slabx_slab *slab, void *obj)
{
	if (s->sheaf_capacity) {
		if (free_rcu_to_sheaf(s, slab, obj))
			return;
		slabx_stat_inc(s, SLABX_FREE_RCU_SHEAF_FAIL);
	}
	if (slabx_slab_defer_rcu(s, slab, obj))
		slabx_stat_inc(s, SLABX_FREE_RCU_FALLBACK);
}

/**
 * slabx_free_rcu() - free an object after an RCU grace period
 * @s: the cache it was allocated from.
 * @obj: the object, or NULL (nothing is done). It needs no rcu_head.
 *
 * RCU readers that found @obj before this call may keep using it until
 * they leave their read-side critical section; its content is not touched
 * until then. The object goes into this CPU's rcu_free sheaf, which is
 * queued for a grace period as a whole when full, by slabx_rcu_barrier(),
 * or once it has been open for %SLABX_RCU_FREE_MAX_AGE_MS: the object is
 * free again about twice that long plus a grace period after the call at
 * the latest, as long as the kworkers of its CPU get to run (the monitor
 * queues the sheaf from one). When no sheaf can take it, it waits in its
 * slab (see the top of this file). Either way nothing is lost and nothing
 * is allocated that could not fail harmlessly. A pointer that is not an
 * object of @s is refused with a warning (as in slabx_free()). Pool-mode
 * caches do not support it: the object is refused with a warning and
 * stays allocated; so is an object of a cache whose destroy has started
 * (it may not run concurrently).
 *
 * A second free of @obj before its grace period ended, by this call or
 * any other free, is refused with a warning (counted in free_invalid)
 * where it is checked:
 *
 * - under KASAN, every such free: @obj is marked until its grace period
 *   ends (slabx_free_rcu_pending());
 * - in a %SLABX_DEBUG cache, every such free: @obj waits in its slab,
 *   whose pending bit the slab layer checks (and a slabx_free_rcu() of an
 *   object free in its slab already is refused too);
 * - in any cache, a second slabx_free_rcu() of an object that waits in
 *   its slab (no rcu_free sheaf took it);
 * - with %CONFIG_SLAB_FREELIST_HARDENED, a second slabx_free_rcu() of the
 *   object this CPU last put into its rcu_free sheaf.
 *
 * Any other double free within the grace period is not caught, and the
 * object may then be handed out twice.
 *
 * Context: process, softirq or hard-IRQ context, IRQs disabled included;
 * not NMI. Never sleeps.
 */
void slabx_free_rcu(struct slabx_cache *s, void *obj)
{
	struct slabx_slab *slab;

	if (!obj)
		return;
	if (unlikely(in_nmi() || READ_ONCE(s->dead) || s->pool)) {
		free_rcu_refuse(s, obj);
		return;
	}
	slab = slabx_obj_slab(s, obj);
	if (!slab || !slabx_kasan_free_ok(s, obj))
		return;
	/* Until its grace period ends: see slabx_free_rcu_pending(). */
	slabx_kasan_rcu_wait(s, obj, true);
	/*
	 * Gone for kmemleak now, as kfree_rcu() objects are; KASAN and
	 * init_on_free see it free only after the grace period.
	 */
	kmemleak_free(obj);
	if (s->sheaf_capacity && sheaves_free_rcu(s, slab, obj))
		return;
	free_rcu_full(s, slab, obj);
}
EXPORT_SYMBOL_GPL(slabx_free_rcu);

/*
 * Runs on each CPU with a partial rcu_free sheaf, in a bound kworker
 * (nothing else of the CPU holds its sheaves).
 */
static void rcu_free_flush_this_cpu(struct slabx_cache *s)
{
	struct slabx_cpu_sheaves *pcs = pcs_lock(s);

	if (WARN_ON_ONCE(!pcs))
		return;
	slabx_rcu_free_submit_pcs(s, pcs, numa_mem_id());
	pcs_unlock(pcs);
}

/* Queue the partial rcu_free sheaves of the online CPUs that have one. */
static void rcu_free_flush_all(struct slabx_cache *s)
{
	unsigned int cpu;

	if (!s->cpu_sheaves)
		return;
	cpus_read_lock();
	/*
	 * Skip CPUs with nothing to queue: rcu_free is never set without an
	 * object in it. A racy hint; frees racing with the barrier are not
	 * covered anyway.
	 */
	for_each_online_cpu(cpu)
		if (READ_ONCE(per_cpu_ptr(s->cpu_sheaves, cpu)->rcu_free))
			slabx_run_on_cpu(cpu, rcu_free_flush_this_cpu, s);
	cpus_read_unlock();
}

/**
 * slabx_rcu_barrier() - wait until every slabx_free_rcu() of a cache is done
 * @s: the cache.
 *
 * Afterwards every object given to slabx_free_rcu() before the call is free
 * again. Only @s's callbacks are waited for, not those of other caches or
 * other kernel users, and frees that go on meanwhile on other CPUs do not
 * make it wait longer than about two grace periods: each rcu_free sheaf and
 * fallback batch is counted in the epoch in which it opened; the barrier
 * starts a new epoch, queues the partial rcu_free sheaves, waits one grace
 * period for callers that read the old epoch (the queued sheaves' grace
 * period runs alongside), queues the sheaves such callers opened since,
 * and waits for the old epoch's sheaves and batches only: about one grace
 * period in all, two when a sheaf only the second queueing found holds
 * an object. A cache that never saw slabx_free_rcu() returns at once.
 * Needs no work from the system workqueues, so it may run in a work item
 * of a %WQ_MEM_RECLAIM workqueue.
 *
 * Context: process context, may sleep; not under cpus_read_lock().
 */
void slabx_rcu_barrier(struct slabx_cache *s)
{
	might_sleep();
	if (!slabx_cache_dead(s, __func__))
		slabx_rcu_wait(s);
}
EXPORT_SYMBOL_GPL(slabx_rcu_barrier);

/**
 * slabx_rcu_wait() - slabx_rcu_barrier() without the check for a dying
 *	cache, for destroy and module exit
 * @s: the cache.
 */
void slabx_rcu_wait(struct slabx_cache *s)
{
	unsigned int old;

	if (!slabx_cache_stat(s, SLABX_FREE_RCU))
		return;
	mutex_lock(&s->rcu_barrier_mutex);
	old = slabx_rcu_epoch_next(s);
	/* Their grace period runs alongside the one below. */
	rcu_free_flush_all(s);
	/*
	 * Openers read the epoch with preemption or IRQs off (pcs_lock()
	 * or a node lock), on RT too. The flush skips CPUs whose rcu_free
	 * looks empty, and neither side orders its store before its load,
	 * so one that read the old epoch may open a sheaf the flush did not
	 * see:
	 *
	 *   CPU1 slabx_free_rcu()         barrier
	 *   installs an empty rcu_free
	 *   (store not yet visible)
	 *                                 epoch++
	 *                                 flush: CPU1's rcu_free looks empty
	 *   reads epoch: old (the ++
	 *   not yet visible), opens
	 *                                 synchronize_rcu()
	 *
	 * That sheaf is counted in the old epoch and would stay partial:
	 * once the grace period has passed, every such opener is done, and
	 * the second flush queues what it opened.
	 */
	synchronize_rcu();
	rcu_free_flush_all(s);
	slabx_rcu_epoch_wait(s, old);
	mutex_unlock(&s->rcu_barrier_mutex);
}

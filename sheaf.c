// SPDX-License-Identifier: GPL-2.0
/*
 * slabx sheaves: per-CPU arrays of free objects in front of the slabs, and
 * the prefilled-sheaf API.
 *
 * Every CPU of a cache with sheaves has a main sheaf (never NULL) and an
 * optional spare. An allocation pops from main; when main is empty it swaps
 * with a non-empty spare, else trades main for a full sheaf of the local
 * node's barn, else refills main from the node's partial slabs in one lock
 * hold, else the caller takes the slab path, which makes a new slab. A free
 * mirrors it: push to main; when main is full swap with an empty spare,
 * else trade for an empty barn sheaf, else allocate a new empty sheaf, else
 * flush main into the slabs. Objects in a CPU's sheaves are all of the
 * CPU's node: a free of a remote object, or an allocation for another node,
 * bypasses the sheaves.
 *
 * Protection of the per-CPU state: preemption off plus the per-CPU in_use
 * flag (pcs_lock()). We do not disable IRQs: the fast path stays a few
 * instructions, and an interrupt that arrives while a task of its CPU holds
 * the sheaves sees in_use set and takes the slab path, which is IRQ-safe
 * (its locks are taken with IRQs saved). So a re-entrant call (IRQ, NMI,
 * probe) never touches a sheaf in the middle of an update. Interrupts nest,
 * so the flag's check-then-set needs no atomic operation.
 *
 * Nothing that may sleep or take a non-raw lock runs with the sheaves held,
 * and no memory is allocated or freed there (on PREEMPT_RT the page and
 * slab allocators take sleeping locks): new sheaves are allocated, and
 * sheaves and pages freed, after pcs_unlock(); the per-CPU state is looked
 * up again afterwards, since the task may have moved to another CPU.
 *
 * Destroy against late frees: slabx_free() of leaked objects may run
 * concurrently with slabx_cache_destroy(). Destroy first makes
 * s->cpu_sheaves NULL, which pcs_lock() reads with preemption off, then
 * waits for every such section with synchronize_rcu(); only then does it
 * flush and free the sheaves, which nobody can reach any more. Frees that
 * come later take the slab path. So nothing is stored into a sheaf or a
 * barn outside a pcs_lock() section on the free paths.
 *
 * Lock order: per-CPU sheaves -> barn->lock or node->lock (see cache.c).
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "slabx_internal.h"
/* The SLABX_TEST hooks defined or used here. */
#include "tests/slabx_test_hooks.h"

/* ---- sheaves -------------------------------------------------------------- */

/**
 * slabx_sheaf_new() - allocate an empty sheaf
 * @s: its cache.
 * @capacity: room for objects.
 * @gfp: allocation context (no warning on failure).
 *
 * Return: the sheaf, or NULL.
 */
struct slabx_sheaf *slabx_sheaf_new(struct slabx_cache *s, unsigned int capacity,
				    gfp_t gfp)
{
	struct slabx_sheaf *sheaf;

	/* Zeroed for kmemleak, which scans every slot: see slabx_sheaf_forget(). */
	if (IS_ENABLED(CONFIG_DEBUG_KMEMLEAK))
		gfp |= __GFP_ZERO;
	else
		gfp &= ~__GFP_ZERO;
	sheaf = kmalloc(struct_size(sheaf, objects, capacity),
			gfp | __GFP_NOWARN);
	if (!sheaf)
		return NULL;
	INIT_LIST_HEAD(&sheaf->barn_list);
	sheaf->cache = s;
	sheaf->nid = NUMA_NO_NODE;
	sheaf->size = 0;
	sheaf->capacity = capacity;
	slabx_stat_inc(s, SLABX_SHEAF_ALLOC);
	return sheaf;
}

/**
 * slabx_sheaf_flush() - put a sheaf's objects back into their slabs
 * @s: the cache.
 * @sheaf: the sheaf, empty afterwards.
 *
 * Context: not with the per-CPU sheaves held (it may free pages).
 */
void slabx_sheaf_flush(struct slabx_cache *s, struct slabx_sheaf *sheaf)
{
	if (!sheaf->size)
		return;
	trace_slabx_sheaf_flush(s, sheaf->size);
	slabx_slab_flush(s, sheaf->objects, sheaf->size);
	slabx_sheaf_forget(sheaf, 0);
	slabx_stat_inc(s, SLABX_SHEAF_FLUSH);
}

/* The same with the sheaves held: freed slabs are collected on @discard. */
static void sheaf_flush_locked(struct slabx_cache *s,
			       struct slabx_sheaf *sheaf,
			       struct list_head *discard)
{
	trace_slabx_sheaf_flush(s, sheaf->size);
	slabx_slab_release(s, sheaf->objects, sheaf->size, discard, false);
	slabx_sheaf_forget(sheaf, 0);
	slabx_stat_inc(s, SLABX_SHEAF_FLUSH);
}

/**
 * slabx_sheaf_free() - free a sheaf, flushing what it still holds first
 * @s: its cache.
 * @sheaf: the sheaf, or NULL.
 *
 * Every sheaf is freed here: on PREEMPT_RT kfree() may take a sleeping
 * lock, so never with preemption or IRQs off, which lockdep checks on
 * every call (SLUB's lockless paths would let a violation pass unseen
 * most of the time).
 */
void slabx_sheaf_free(struct slabx_cache *s, struct slabx_sheaf *sheaf)
{
	if (!sheaf)
		return;
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		lockdep_assert_preemption_enabled();
	slabx_sheaf_flush(s, sheaf);
	kfree(sheaf);
	slabx_stat_inc(s, SLABX_SHEAF_FREE);
}

/**
 * slabx_sheaf_stash_empty() - keep an empty sheaf in a barn, or free it
 * @s: the cache.
 * @barn: the barn.
 * @sheaf: an empty sheaf of the cache's capacity.
 */
void slabx_sheaf_stash_empty(struct slabx_cache *s, struct slabx_barn *barn,
			     struct slabx_sheaf *sheaf)
{
	if (!slabx_barn_put_empty(barn, sheaf))
		slabx_sheaf_free(s, sheaf);
}

/**
 * slabx_sheaf_default_capacity() - sheaf capacity for a cache without one given
 * @stride: the cache's object stride.
 *
 * About 16 KiB of objects per sheaf, between 4 and 64 objects. What is
 * paid once per sheaf (a barn exchange; for slabx_free_rcu() a call_rcu())
 * is spread over that many objects. While rcu_free sheaves wait for their
 * grace period, slabx_free_rcu() allocates larger ones (see rcu_free.c).
 *
 * Return: the capacity.
 */
unsigned int slabx_sheaf_default_capacity(unsigned int stride)
{
	return clamp(16384U / stride, 4U, 64U);
}

/* ---- the per-CPU sheaves ---------------------------------------------------- */

/* Whether @gfp lets us take the node lock and refill from the slabs. */
static bool gfp_allows_spinning(gfp_t gfp)
{
	return gfp & __GFP_RECLAIM;
}

/**
 * slabx_may_alloc_sheaf() - whether this context may allocate a sheaf
 *
 * The free paths may be called in hard-IRQ context or with IRQs disabled
 * (and slabx_free_nolock() under a raw spinlock or in NMI), where kmalloc()
 * (whose locks are sleeping locks on PREEMPT_RT, and for lockdep's
 * wait-context checks everywhere) must not be called, and that cannot be
 * told from outside except by preemptible(). Without CONFIG_PREEMPT_COUNT
 * (which PREEMPT_RT and lockdep select, where the architecture can
 * preempt) preemptible() is always false, but then neither of those two
 * rules is in force: a task may allocate with %SLABX_FREE_SHEAF_GFP even
 * with IRQs disabled or a spinlock held. Interrupts make do with the
 * sheaves at hand, as with a preempt count: one that finds this CPU's
 * sheaves held would allocate in vain.
 *
 * Return: true where kmalloc() with %SLABX_FREE_SHEAF_GFP is allowed for
 * sure.
 */
bool slabx_may_alloc_sheaf(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_COUNT))
		return preemptible();
	return !IS_ENABLED(CONFIG_PROVE_LOCKING) && !in_interrupt();
}

/**
 * slabx_sheaves_main_refill() - make this CPU's empty main sheaf non-empty
 * @s: a cache with sheaves.
 * @pcs: this CPU's sheaves, held (pcs_lock()).
 * @gfp: allocation context; the slabs are used only if it allows spinning.
 *
 * Return: false when nothing could be had without allocating pages (the
 * caller takes the slab path).
 */
bool slabx_sheaves_main_refill(struct slabx_cache *s,
			       struct slabx_cpu_sheaves *pcs, gfp_t gfp)
{
	struct slabx_barn *barn = slabx_local_barn(s);
	struct slabx_sheaf *full;

	pcs_assert_held(pcs);
	/* Where an allocation from a dying cache is cheaply caught. */
	if (slabx_cache_dead(s, "allocation"))
		return false;
	if (pcs->spare && pcs->spare->size) {
		swap(pcs->main, pcs->spare);
		return true;
	}
	if (!pcs->spare) {
		full = slabx_barn_get_full(barn);
		if (full)
			pcs->spare = pcs->main;
	} else {
		full = slabx_barn_exchange_empty(barn, pcs->main);
	}
	trace_slabx_barn_get(s, NUMA_NO_NODE, full);
	if (full) {
		pcs->main = full;
		slabx_stat_inc(s, SLABX_BARN_GET);
		return true;
	}
	slabx_stat_inc(s, SLABX_BARN_GET_FAIL);

	if (!gfp_allows_spinning(gfp))
		return false;
	pcs->main->size = slabx_slab_take(s, numa_mem_id(), pcs->main->objects,
					  pcs->main->capacity);
	if (!pcs->main->size)
		return false;
	slabx_stat_inc(s, SLABX_SHEAF_REFILL);
	trace_slabx_sheaf_refill(s, pcs->main->size);
	return true;
}

/**
 * main_make_room() - make room in this CPU's full main sheaf
 * @s: a cache with sheaves.
 * @pcs: this CPU's sheaves, held (pcs_lock()).
 *
 * Never allocates.
 *
 * Return: false when no empty sheaf could be had.
 */
static bool main_make_room(struct slabx_cache *s, struct slabx_cpu_sheaves *pcs)
{
	struct slabx_barn *barn = slabx_local_barn(s);
	struct slabx_sheaf *empty;

	pcs_assert_held(pcs);
	if (pcs->spare && !pcs->spare->size) {
		swap(pcs->main, pcs->spare);
		return true;
	}
	if (!pcs->spare) {
		empty = slabx_barn_get_empty(barn);
		if (empty) {
			pcs->spare = pcs->main;
			pcs->main = empty;
			return true;
		}
		return false;
	}
	if (pcs->spare->size != pcs->spare->capacity)
		return false;
	empty = slabx_barn_exchange_full(barn, pcs->main);
	trace_slabx_barn_put(s, NUMA_NO_NODE, empty);
	if (!empty) {
		slabx_stat_inc(s, SLABX_BARN_PUT_FAIL);
		return false;
	}
	pcs->main = empty;
	slabx_stat_inc(s, SLABX_BARN_PUT);
	return true;
}

/*
 * Main is full and @empty is a new empty sheaf: make it main, parking the
 * full one as spare or in the barn, or else flush the full one. @empty may
 * be NULL (its allocation failed). Return: a sheaf left over, to be freed by
 * the caller, or NULL.
 */
static struct slabx_sheaf *main_install_empty(struct slabx_cache *s,
					      struct slabx_cpu_sheaves *pcs,
					      struct slabx_sheaf *empty,
					      struct list_head *discard)
{
	pcs_assert_held(pcs);
	if (!empty) {
		sheaf_flush_locked(s, pcs->main, discard);
		return NULL;
	}
	if (!pcs->spare) {
		pcs->spare = pcs->main;
	} else if (slabx_barn_put_full(slabx_local_barn(s), pcs->main)) {
		slabx_stat_inc(s, SLABX_BARN_PUT);
		trace_slabx_barn_put(s, NUMA_NO_NODE, true);
	} else {
		slabx_stat_inc(s, SLABX_BARN_PUT_FAIL);
		trace_slabx_barn_put(s, NUMA_NO_NODE, false);
		sheaf_flush_locked(s, pcs->main, discard);
		return empty;
	}
	pcs->main = empty;
	return NULL;
}

/* A free object into held main, counted and traced. */
static void sheaves_took(struct slabx_cache *s, struct slabx_cpu_sheaves *pcs,
			 int nid, void *obj)
{
	pcs_assert_held(pcs);
	/* Counted with the sheaves held: see sheaves_free(). */
	__this_cpu_inc(s->stats->pcs_free);
	trace_slabx_free(s, obj, nid, SLABX_TRACE_SHEAF);
}

/*
 * Free into a full main sheaf with no empty one at hand: allocates an empty
 * sheaf with the sheaves released, then takes them again (perhaps on
 * another CPU) and installs it, or flushes main if there is none. A sheaf
 * left over goes to the barn while the sheaves are held, or is freed after.
 *
 * Runs inside rcu_read_lock(), so that a destroy that finds @obj free
 * waits for it to stop touching the cache.
 *
 * Return: true when done, false when the caller must take the slab path.
 */
static bool sheaves_free_new_sheaf(struct slabx_cache *s, int nid, void *obj)
{
	struct slabx_sheaf *empty = NULL, *left;
	struct slabx_cpu_sheaves *pcs;
	LIST_HEAD(discard);
	bool done = false;

	if (slabx_may_alloc_sheaf() && slabx_barn_has_room_for_full(slabx_local_barn(s)))
		empty = slabx_sheaf_new(s, s->sheaf_capacity,
					SLABX_FREE_SHEAF_GFP);
	left = empty;
	rcu_read_lock();
	pcs = pcs_lock(s);
	if (!pcs)
		goto out;
	/* We may be on another CPU now, even on another node. */
	if (nid == numa_mem_id()) {
		if (pcs->main->size == pcs->main->capacity &&
		    !main_make_room(s, pcs))
			left = main_install_empty(s, pcs, empty, &discard);
		pcs_push(pcs, obj);
		sheaves_took(s, pcs, nid, obj);
		done = true;
	}
	if (left && slabx_barn_put_empty(slabx_local_barn(s), left))
		left = NULL;
	pcs_unlock(pcs);
out:
	slabx_slab_discard_list(s, &discard);
	slabx_sheaf_free(s, left);
	rcu_read_unlock();
	return done;
}

/**
 * slabx_sheaves_free() - free into this CPU's sheaves, whatever main holds
 * @s: a cache with sheaves.
 * @slab: the slab of @obj.
 * @obj: the object, through the checkers' hook already (slabx_free_hook()).
 *
 * The full path of sheaves_free(): the suspect of pcs_suspect() is refused
 * and reported; a full main makes room from the spare or the barn, or else
 * gets a new empty sheaf (sheaves_free_new_sheaf()). The object is counted
 * as freed (free and free_fastpath) and traced when done.
 *
 * Return: true when done or refused, false when the caller must take the
 * slab path: the sheaves are busy (re-entrant call, or the cache is being
 * destroyed), or @obj is not of this CPU's node.
 */
bool slabx_sheaves_free(struct slabx_cache *s, struct slabx_slab *slab,
			void *obj)
{
	struct slabx_cpu_sheaves *pcs;
	bool done = false;

	pcs = pcs_lock(s);
	if (!pcs)
		return false;
	if (slab->nid != numa_mem_id()) {
		pcs_unlock(pcs);
		return false;
	}
	if (pcs_suspect(pcs, obj)) {
		slabx_double_free(s, obj, true);
		done = true;
	} else if (pcs_push(pcs, obj) ||
		   (main_make_room(s, pcs) && pcs_push(pcs, obj))) {
		sheaves_took(s, pcs, slab->nid, obj);
		done = true;
	}
	pcs_unlock(pcs);
	return done || sheaves_free_new_sheaf(s, slab->nid, obj);
}

/**
 * slabx_sheaves_alloc_bulk() - take objects from this CPU's sheaves
 * @s: a cache with sheaves.
 * @gfp: allocation context.
 * @p: receives the objects.
 * @nr: objects wanted.
 *
 * Return: the number of objects taken; the caller gets the rest from the
 * slabs.
 */
unsigned int slabx_sheaves_alloc_bulk(struct slabx_cache *s, gfp_t gfp, void **p,
				      unsigned int nr)
{
	struct slabx_cpu_sheaves *pcs;
	unsigned int got = 0;

	pcs = pcs_lock(s);
	if (!pcs)
		return 0;
	while (got < nr && (pcs->main->size || slabx_sheaves_main_refill(s, pcs, gfp))) {
		struct slabx_sheaf *main = pcs->main;
		unsigned int n = min(nr - got, main->size);

		memcpy(p + got, main->objects + main->size - n, n * sizeof(*p));
		slabx_sheaf_forget(main, main->size - n);
		got += n;
	}
	pcs_unlock(pcs);
	return got;
}

/**
 * slabx_sheaves_free_bulk() - free objects, into this CPU's sheaves where possible
 * @s: a cache with sheaves.
 * @p: the objects; NULL entries are skipped.
 * @nr: entries in @p.
 *
 * Objects of the local node go to the sheaves in one hold of them, flushing
 * main when it is full and no empty sheaf is at hand; the others go to their
 * slabs.
 *
 * Return: the number of objects freed.
 */
size_t slabx_sheaves_free_bulk(struct slabx_cache *s, void **p, size_t nr)
{
	size_t i, fast = 0, slow = 0, remote = 0;
	struct slabx_cpu_sheaves *pcs;
	LIST_HEAD(discard);
	int nid;

	pcs = pcs_lock(s);
	nid = numa_mem_id();
	for (i = 0; i < nr; i++) {
		struct slabx_slab *slab;

		if (!p[i])
			continue;
		slab = slabx_obj_slab(s, p[i]);
		if (!slab)
			continue;
		if (pcs && slab->nid == nid) {
			if (!slabx_kasan_free_ok(s, p[i]))
				continue;
			if (pcs_suspect(pcs, p[i])) {
				slabx_double_free(s, p[i], true);
				continue;
			}
			slabx_free_hook(s, p[i], true);
			if (!pcs_push(pcs, p[i])) {
				if (!main_make_room(s, pcs))
					sheaf_flush_locked(s, pcs->main, &discard);
				pcs_push(pcs, p[i]);
			}
			trace_slabx_free(s, p[i], nid, SLABX_TRACE_SHEAF);
			fast++;
		} else {
			/* Compact the rest at the front for the slab layer. */
			p[remote++] = p[i];
		}
	}
	if (pcs)
		pcs_unlock(pcs);
	slabx_slab_discard_list(s, &discard);
	if (remote)
		slow = slabx_slab_free_user(s, p, remote);
	slabx_stat_add(s, SLABX_FREE_FASTPATH, fast);
	slabx_stat_add(s, SLABX_FREE_SLOWPATH, slow);
	return fast + slow;
}

/* ---- lifecycle, flushing ------------------------------------------------------ */

/* The lockdep class of every cache's per-CPU sheaves (pcs_lock()). */
static struct lock_class_key slabx_pcs_key;

/**
 * slabx_sheaves_init() - give every possible CPU its main sheaf
 * @s: a new cache; nothing to do when its sheaf capacity is 0.
 *
 * Return: 0 or -ENOMEM (the caller then calls slabx_sheaves_destroy()).
 */
int slabx_sheaves_init(struct slabx_cache *s)
{
	int cpu;

	if (!s->sheaf_capacity)
		return 0;
	if (slabx_meta_fail())
		return -ENOMEM;
	s->cpu_sheaves = alloc_percpu(struct slabx_cpu_sheaves);
	if (!s->cpu_sheaves)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct slabx_cpu_sheaves *pcs = per_cpu_ptr(s->cpu_sheaves, cpu);

		lockdep_init_map_wait(&pcs->dep_map, "slabx_cpu_sheaves",
				      &slabx_pcs_key, 0, LD_WAIT_SPIN);
		if (!slabx_meta_fail())
			pcs->main = slabx_sheaf_new(s, s->sheaf_capacity, GFP_KERNEL);
		if (!pcs->main)
			return -ENOMEM;
		pcs->rcu_full_gp = get_completed_synchronize_rcu();
	}
	return 0;
}

/*
 * Flush one CPU's sheaves, keeping main (empty) and parking the spare in
 * the barn of @nid. The caller owns the CPU's state: the CPU is dead, or it
 * runs the caller with the sheaves held. Return: the spare when the barn
 * has no room for it, for the caller to free once the sheaves are released.
 */
static struct slabx_sheaf *pcs_flush(struct slabx_cache *s,
				     struct slabx_cpu_sheaves *pcs, int nid,
				     struct list_head *discard)
{
	struct slabx_sheaf *spare = pcs->spare;

	if (pcs->main->size)
		sheaf_flush_locked(s, pcs->main, discard);
	if (!spare)
		return NULL;
	if (spare->size)
		sheaf_flush_locked(s, spare, discard);
	pcs->spare = NULL;
	return slabx_barn_put_empty(&s->node[nid]->barn, spare) ? NULL : spare;
}

/**
 * slabx_sheaves_flush_cpu() - flush a dead CPU's sheaves
 * @s: the cache.
 * @cpu: a CPU that is offline, whose sheaves nobody can use.
 */
void slabx_sheaves_flush_cpu(struct slabx_cache *s, unsigned int cpu)
{
	struct slabx_sheaf *left;
	LIST_HEAD(discard);

	if (!s->cpu_sheaves)
		return;
	left = pcs_flush(s, per_cpu_ptr(s->cpu_sheaves, cpu), cpu_to_mem(cpu),
			 &discard);
	slabx_slab_discard_list(s, &discard);
	slabx_sheaf_free(s, left);
}

/**
 * slabx_sheaves_flush_barns() - flush every barn of a cache into the slabs
 * @s: the cache.
 *
 * Full sheaves are flushed and, like the empty ones, freed.
 *
 * Return: the number of objects that were in the barns.
 */
unsigned long slabx_sheaves_flush_barns(struct slabx_cache *s)
{
	struct slabx_sheaf *sheaf, *tmp;
	unsigned long objects = 0;
	int nid;

	if (!s->sheaf_capacity || !s->node)
		return 0;
	for_each_node(nid) {
		LIST_HEAD(full);
		LIST_HEAD(empty);

		/* A cache whose creation failed may lack nodes. */
		if (!s->node[nid])
			continue;
		slabx_barn_take_all(&s->node[nid]->barn, &full, &empty);
		list_splice(&empty, &full);
		list_for_each_entry_safe(sheaf, tmp, &full, barn_list) {
			list_del(&sheaf->barn_list);
			objects += sheaf->size;
			slabx_sheaf_free(s, sheaf);
		}
	}
	return objects;
}

/* Runs on each CPU in turn, in a kworker bound to it. */
static void flush_this_cpu(struct slabx_cache *s)
{
	struct slabx_cpu_sheaves *pcs;
	struct slabx_sheaf *left;
	LIST_HEAD(discard);

	/* A kworker bound to the CPU: nothing of this CPU holds the sheaves. */
	pcs = pcs_lock(s);
	if (WARN_ON_ONCE(!pcs))
		return;
	slabx_rcu_free_submit_pcs(s, pcs, numa_mem_id());
	left = pcs_flush(s, pcs, numa_mem_id(), &discard);
	pcs_unlock(pcs);
	slabx_slab_discard_list(s, &discard);
	slabx_sheaf_free(s, left);
}

/**
 * slabx_sheaves_flush_all() - flush every CPU's sheaves and every barn
 * @s: the cache.
 *
 * Each online CPU flushes its own sheaves, and queues its partial rcu_free
 * sheaf for its grace period; offline CPUs did both when they died. Needs
 * no memory, so it cannot fail, and uses slabx's own reclaim-safe
 * workqueue, so it may run in a work item of a %WQ_MEM_RECLAIM workqueue.
 *
 * Context: process context, may sleep; not under cpus_read_lock().
 */
void slabx_sheaves_flush_all(struct slabx_cache *s)
{
	unsigned int cpu;

	if (!s->cpu_sheaves)
		return;
	cpus_read_lock();
	for_each_online_cpu(cpu)
		slabx_run_on_cpu(cpu, flush_this_cpu, s);
	cpus_read_unlock();
	slabx_sheaves_flush_barns(s);
}

/*
 * Retire and free every CPU's sheaves. Frees of leaked objects may run
 * concurrently (see the top of this file).
 */
static void sheaves_retire(struct slabx_cache *s)
{
	struct slabx_cpu_sheaves __percpu *cpu_sheaves = s->cpu_sheaves;
	int cpu;

	if (!cpu_sheaves)
		return;
	WRITE_ONCE(s->cpu_sheaves, NULL);
	/* Wait for every pcs_lock() section that may have read the pointer. */
	synchronize_rcu();
	for_each_possible_cpu(cpu) {
		struct slabx_cpu_sheaves *pcs = per_cpu_ptr(cpu_sheaves, cpu);

		slabx_sheaf_free(s, pcs->main);
		slabx_sheaf_free(s, pcs->spare);
		/*
		 * slabx_rcu_barrier() queued what it held; a slabx_free_rcu()
		 * racing with destroy leaks its objects rather than free them
		 * before their grace period.
		 */
		if (WARN_ON_ONCE(pcs->rcu_free))
			kfree(pcs->rcu_free);
	}
	free_percpu(cpu_sheaves);
}

/**
 * slabx_sheaves_destroy() - flush and free all sheaves of a dying cache
 * @s: the cache; only slabx_free() of leaked objects and the return of
 *	sheaves prefilled before may run concurrently (see the top of this
 *	file). Safe on a cache whose slabx_sheaves_init() failed half-way,
 *	and to call again (at module exit, for a zombie's barns).
 *
 * Context: process context, may sleep.
 */
void slabx_sheaves_destroy(struct slabx_cache *s)
{
	might_sleep();
	sheaves_retire(s);
	slabx_sheaves_flush_barns(s);
}

/**
 * slabx_test_lock_in_sheaves() - take a lock with this CPU's sheaves held
 * @s: a cache with sheaves.
 * @lock: a spinlock_t, which the rule at the top of this file forbids
 *	there: lockdep reports an invalid wait context (with
 *	%CONFIG_PROVE_RAW_LOCK_NESTING), and on PREEMPT_RT it may sleep.
 *
 * For the test that shows the sheaves are a lock to lockdep.
 *
 * Return: false when the sheaves were busy (nothing taken).
 */
bool slabx_test_lock_in_sheaves(struct slabx_cache *s, spinlock_t *lock)
{
	struct slabx_cpu_sheaves *pcs = pcs_lock(s);

	if (!pcs)
		return false;
	spin_lock(lock);
	spin_unlock(lock);
	pcs_unlock(pcs);
	return true;
}
EXPORT_SYMBOL_NS_GPL(slabx_test_lock_in_sheaves, SLABX_TEST);

/* ---- prefilled sheaves ---------------------------------------------------------- */

static bool prefill_count_valid(struct slabx_cache *s, unsigned int count)
{
	if (count && count <= SLABX_PREFILL_MAX)
		return true;
	pr_warn_ratelimited("slabx: %s: prefill of %u objects refused (1..%u)\n",
			    s->name, count, SLABX_PREFILL_MAX);
	return false;
}

/*
 * Fill @sheaf up to @count objects from the slabs of @nid (NUMA_NO_NODE:
 * the local node), or of any node when that one has no memory. On failure
 * the objects taken go back and the sheaf is as it was.
 * Return: 0 or -ENOMEM.
 */
static int sheaf_fill(struct slabx_cache *s, gfp_t gfp,
		      struct slabx_sheaf *sheaf, unsigned int count, int nid)
{
	unsigned int need = count - sheaf->size, got;

	got = slabx_slab_fill(s, gfp, nid, sheaf->objects + sheaf->size, need);
	sheaf->size += got;
	if (got < need) {
		slabx_slab_flush(s, sheaf->objects + sheaf->size - got, got);
		slabx_sheaf_forget(sheaf, sheaf->size - got);
		return -ENOMEM;
	}
	return 0;
}

/*
 * kmemleak and prefilled sheaves: slabx_alloc_from_sheaf() may run where
 * kmemleak may not (under a raw spinlock, in NMI), so the objects of a
 * prefilled sheaf are registered when the sheaf is filled for the caller,
 * and those left are unregistered when it comes back. Held in the sheaf,
 * they are referenced from it, so they are not reported unless the sheaf
 * is leaked too.
 */
static void prefill_track(struct slabx_sheaf *sheaf, unsigned int from,
			  gfp_t gfp)
{
	unsigned int i;

	if (IS_ENABLED(CONFIG_DEBUG_KMEMLEAK))
		for (i = from; i < sheaf->size; i++)
			kmemleak_alloc(sheaf->objects[i],
				       sheaf->cache->object_size, 1, gfp);
}

static void prefill_untrack(struct slabx_sheaf *sheaf)
{
	unsigned int i;

	if (IS_ENABLED(CONFIG_DEBUG_KMEMLEAK))
		for (i = 0; i < sheaf->size; i++)
			kmemleak_free(sheaf->objects[i]);
}

/* A sheaf holding at least @count objects, ready at hand: spare or barn. */
static struct slabx_sheaf *prefill_take_ready(struct slabx_cache *s,
					      unsigned int count)
{
	struct slabx_cpu_sheaves *pcs;
	struct slabx_sheaf *sheaf = NULL;

	/* The barn too is only touched with the sheaves held: see the top. */
	pcs = pcs_lock(s);
	if (!pcs)
		return NULL;
	if (pcs->spare && pcs->spare->size >= count) {
		sheaf = pcs->spare;
		pcs->spare = NULL;
	} else {
		sheaf = slabx_barn_get_full(slabx_local_barn(s));
		trace_slabx_barn_get(s, NUMA_NO_NODE, sheaf);
		if (sheaf)
			slabx_stat_inc(s, SLABX_BARN_GET);
	}
	pcs_unlock(pcs);
	return sheaf;
}

/**
 * slabx_prefill_sheaf() - get a sheaf of objects for a critical section
 * @s: the cache.
 * @gfp: allocation context for filling the sheaf.
 * @count: objects the sheaf must hold, 1 to %SLABX_PREFILL_MAX.
 *
 * Up to the cache's sheaf capacity, a ready sheaf (this CPU's spare or a
 * full barn sheaf) is handed over when there is one, else a new sheaf is
 * filled from the slabs; above it an oversize sheaf of @count objects is
 * made. Objects are taken from slabx_alloc_from_sheaf(), and the sheaf goes
 * back with slabx_return_sheaf().
 *
 * Context: any context that @gfp allows.
 * Return: a sheaf with at least @count objects; or NULL, as
 * kmem_cache_prefill_sheaf() returns: for a bad @count, a pool-mode cache
 * or a cache being destroyed (each reported with a warning), or without
 * memory.
 */
struct slabx_sheaf *slabx_prefill_sheaf(struct slabx_cache *s, gfp_t gfp,
					unsigned int count)
{
	struct slabx_sheaf *sheaf;
	unsigned int capacity;

	if (!prefill_count_valid(s, count) || slabx_cache_dead(s, __func__))
		return NULL;
	if (s->pool) {
		pr_warn_ratelimited("slabx: %s: no prefilled sheaves in pool mode\n",
				    s->name);
		return NULL;
	}
	if (count <= s->sheaf_capacity) {
		sheaf = prefill_take_ready(s, count);
		if (sheaf) {
			prefill_track(sheaf, 0, gfp);
			slabx_stat_inc(s, SLABX_SHEAF_PREFILL_FAST);
			return sheaf;
		}
		capacity = s->sheaf_capacity;
		slabx_stat_inc(s, SLABX_SHEAF_PREFILL_SLOW);
	} else {
		capacity = count;
		slabx_stat_inc(s, SLABX_SHEAF_PREFILL_OVERSIZE);
	}
	sheaf = slabx_sheaf_new(s, capacity, gfp);
	if (!sheaf)
		return NULL;
	if (sheaf_fill(s, gfp, sheaf, count, NUMA_NO_NODE)) {
		slabx_sheaf_free(s, sheaf);
		return NULL;
	}
	prefill_track(sheaf, 0, gfp);
	return sheaf;
}
EXPORT_SYMBOL_GPL(slabx_prefill_sheaf);

/**
 * slabx_alloc_from_sheaf() - take an object from a prefilled sheaf
 * @s: the cache the sheaf was prefilled from.
 * @gfp: only %__GFP_ZERO is looked at: it zeroes the object.
 * @sheaf: the sheaf, owned by the caller.
 *
 * Takes no lock and allocates nothing, so it cannot fail while the sheaf
 * holds objects.
 *
 * Context: any context, IRQs disabled and raw spinlocks held included; the
 * caller serialises use of @sheaf.
 * Return: an object, or NULL when @sheaf is empty.
 */
void *slabx_alloc_from_sheaf(struct slabx_cache *s, gfp_t gfp,
			     struct slabx_sheaf *sheaf)
{
	void *obj;

	if (!sheaf->size)
		return NULL;
	obj = sheaf->objects[sheaf->size - 1];
	slabx_sheaf_forget(sheaf, sheaf->size - 1);
	/* kmemleak knows it since the prefill: see prefill_track(). */
	slabx_alloc_hook(s, obj, gfp, false);
	slabx_stat_inc(s, SLABX_ALLOC_FASTPATH);
	slabx_stat_inc(s, SLABX_ALLOC);
	trace_slabx_alloc(s, obj, gfp, SLABX_TRACE_SHEAF);
	return obj;
}
EXPORT_SYMBOL_GPL(slabx_alloc_from_sheaf);

/* Replace *@sheafp by an oversize sheaf of @count objects holding its own. */
static int sheaf_grow(struct slabx_cache *s, gfp_t gfp,
		      struct slabx_sheaf **sheafp, unsigned int count)
{
	struct slabx_sheaf *old = *sheafp, *sheaf;

	sheaf = slabx_sheaf_new(s, count, gfp);
	if (!sheaf)
		return -ENOMEM;
	if (sheaf_fill(s, gfp, sheaf, count - old->size, NUMA_NO_NODE)) {
		slabx_sheaf_free(s, sheaf);
		return -ENOMEM;
	}
	prefill_track(sheaf, 0, gfp);
	memcpy(sheaf->objects + sheaf->size, old->objects,
	       old->size * sizeof(*old->objects));
	sheaf->size += old->size;
	old->size = 0;
	slabx_sheaf_free(s, old);
	*sheafp = sheaf;
	slabx_stat_inc(s, SLABX_SHEAF_PREFILL_OVERSIZE);
	return 0;
}

/**
 * slabx_refill_sheaf() - top up a prefilled sheaf
 * @s: the cache the sheaf was prefilled from.
 * @gfp: allocation context for the new objects.
 * @sheafp: the sheaf; replaced by a larger one when @count exceeds its
 *	capacity.
 * @count: objects the sheaf must hold, 1 to %SLABX_PREFILL_MAX.
 *
 * On failure the sheaf is left exactly as it was.
 *
 * Context: any context that @gfp allows.
 * Return: 0, -EINVAL for a bad @count (reported with pr_warn), or -ENOMEM.
 */
int slabx_refill_sheaf(struct slabx_cache *s, gfp_t gfp,
		       struct slabx_sheaf **sheafp, unsigned int count)
{
	struct slabx_sheaf *sheaf = *sheafp;
	unsigned int had = sheaf->size;
	int err;

	if (!prefill_count_valid(s, count))
		return -EINVAL;
	if (sheaf->size >= count)
		return 0;
	if (count > sheaf->capacity)
		return sheaf_grow(s, gfp, sheafp, count);
	err = sheaf_fill(s, gfp, sheaf, count, NUMA_NO_NODE);
	if (!err)
		prefill_track(sheaf, had, gfp);
	return err;
}
EXPORT_SYMBOL_GPL(slabx_refill_sheaf);

/*
 * The node of every object in @sheaf, or NUMA_NO_NODE when they are of
 * several nodes (a prefill can fall back to another node's memory, and a
 * prefilled sheaf can be returned on another node than it was filled on).
 */
static int sheaf_node(struct slabx_cache *s, struct slabx_sheaf *sheaf)
{
	int nid = NUMA_NO_NODE;
	unsigned int i;

	for (i = 0; i < sheaf->size; i++) {
		int obj_nid = slabx_obj_nid(s, sheaf->objects[i]);

		if (i && obj_nid != nid)
			return NUMA_NO_NODE;
		nid = obj_nid;
	}
	return nid;
}

/*
 * Park a returned sheaf of the cache's capacity: as this CPU's spare when
 * its objects are of this CPU's node, else in the barn of their node.
 * Objects of several nodes are never parked: a CPU's sheaves and a node's
 * barn hold only objects of that node. Return: false if not parked.
 */
static bool sheaf_park(struct slabx_cache *s, gfp_t gfp,
		       struct slabx_sheaf *sheaf)
{
	struct slabx_cpu_sheaves *pcs;
	int nid = sheaf_node(s, sheaf);
	bool parked;

	if (sheaf->size && nid == NUMA_NO_NODE)
		return false;
	/* Sheaves and barns are only touched with the sheaves held. */
	pcs = pcs_lock(s);
	if (!pcs)
		return false;
	if (!pcs->spare && (!sheaf->size || nid == numa_mem_id())) {
		pcs->spare = sheaf;
		pcs_unlock(pcs);
		return true;
	}
	/* A barn only holds full or empty sheaves: fill a partial one. */
	if (sheaf->size && sheaf->size < sheaf->capacity) {
		pcs_unlock(pcs);
		if (!gfp_allows_spinning(gfp) ||
		    sheaf_fill(s, gfp, sheaf, sheaf->capacity, nid) ||
		    sheaf_node(s, sheaf) != nid)
			return false;
		pcs = pcs_lock(s);
		if (!pcs)
			return false;
	}
	if (!sheaf->size) {
		parked = slabx_barn_put_empty(slabx_local_barn(s), sheaf);
	} else {
		parked = slabx_barn_put_full(&s->node[nid]->barn, sheaf);
		slabx_stat_inc(s, parked ? SLABX_BARN_PUT : SLABX_BARN_PUT_FAIL);
		trace_slabx_barn_put(s, nid, parked);
	}
	pcs_unlock(pcs);
	return parked;
}

/**
 * slabx_return_sheaf() - give back a prefilled sheaf
 * @s: the cache the sheaf was prefilled from.
 * @gfp: allocation context, for topping the sheaf up to put it in a barn.
 * @sheaf: the sheaf, with any objects it still holds.
 *
 * A sheaf of the cache's capacity becomes this CPU's spare, or goes into
 * the barn of its objects' node (filled up first); anything else, oversize
 * sheaves and sheaves holding objects of several nodes included, is
 * flushed into the slabs and freed. So slabx_alloc_node() never gets an
 * object of another node from a returned sheaf.
 *
 * A sheaf prefilled before slabx_cache_destroy() began holds objects that
 * count as leaked: it may still be used, and it may be returned during or
 * after the destroy (its objects then go to their slabs), like a
 * slabx_free() of leaked objects.
 *
 * Context: any context that @gfp allows.
 */
void slabx_return_sheaf(struct slabx_cache *s, gfp_t gfp,
			struct slabx_sheaf *sheaf)
{
	prefill_untrack(sheaf);
	if (sheaf->capacity == s->sheaf_capacity && !READ_ONCE(s->dead) &&
	    sheaf_park(s, gfp, sheaf)) {
		slabx_stat_inc(s, SLABX_SHEAF_RETURN_FAST);
		return;
	}
	/* As a late slabx_free(): a destroy may be waiting for the objects. */
	rcu_read_lock();
	slabx_stat_inc(s, SLABX_SHEAF_RETURN_SLOW);
	slabx_sheaf_free(s, sheaf);
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(slabx_return_sheaf);

/**
 * slabx_sheaf_size() - objects left in a prefilled sheaf
 * @sheaf: the sheaf.
 *
 * Return: the number of objects slabx_alloc_from_sheaf() can still take.
 */
unsigned int slabx_sheaf_size(struct slabx_sheaf *sheaf)
{
	return sheaf->size;
}
EXPORT_SYMBOL_GPL(slabx_sheaf_size);

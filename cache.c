// SPDX-License-Identifier: GPL-2.0
/*
 * slabx: the module and the cache lifecycle.
 *
 * A cache is created and destroyed here (its objects are allocated and
 * freed in alloc.c), and the module sets up CPU hotplug, the shrinker, the
 * any-context page reserves and debugfs.
 *
 * Lock order:
 *   cpu_hotplug_lock (cpuhp callbacks, slabx_cache_shrink, the rcu_free
 *   age monitor)
 *     slabx_caches_mutex
 *       per-CPU sheaves (in_use flag, preemption off; see sheaf.c)
 *         slabx_node->lock or slabx_barn->lock (raw, IRQs saved; leaves,
 *         never two at once)
 * slabx_cache_destroy() takes slabx_caches_mutex without cpu_hotplug_lock
 * and waits for RCU and for slabx_wq work items with neither held. The
 * rcu_free age monitor (rcu_monitor.c) waits for slabx_wq work items with
 * both held; those take neither.
 *
 * No page is allocated or freed with a node lock or the per-CPU sheaves
 * held.
 *
 * Destroy and late frees: slabx_free() of leaked objects may run during
 * and after slabx_cache_destroy(). The per-CPU sheaves are retired first
 * (see sheaf.c); every free that takes the slab path runs inside
 * rcu_read_lock(), and destroy waits for a grace period after it found
 * every object free and before it frees the cache, so a free that put the
 * last object back has stopped touching the cache by then.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/rcupdate.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/topology.h>
#include <linux/workqueue.h>

#include "slabx_compat.h"
#include "slabx_internal.h"
/* The SLABX_TEST hooks defined or used here. */
#include "tests/slabx_test_hooks.h"

/* Defines the tracepoints; Kbuild gives this file -I$(src) for them. */
#define CREATE_TRACE_POINTS
#include "slabx_trace.h"

/* Objects named, at most, when a cache is destroyed with objects leaked. */
#define SLABX_LEAKS_NAMED	16

static bool debug;
module_param(debug, bool, 0444);
MODULE_PARM_DESC(debug, "check every free of every cache (SLABX_DEBUG)");

/* Serialises cache creation and destruction; protects slabx_caches. */
DEFINE_MUTEX(slabx_caches_mutex);
LIST_HEAD(slabx_caches);
/* Caches destroyed while objects were still allocated; kept until exit. */
static LIST_HEAD(slabx_zombies);
/*
 * Per-CPU work of slabx (flushing sheaves), usable from reclaim: its own
 * rescuer guarantees progress, and a %WQ_MEM_RECLAIM work item of another
 * workqueue may flush it.
 */
static struct workqueue_struct *slabx_wq;

/* Metadata allocations to go before one fails; 0: none fails. */
static atomic_t slabx_meta_fail_nth = ATOMIC_INIT(0);

/**
 * slabx_fault_inject_meta() - make one metadata allocation fail, for tests
 * @nth: the @nth metadata allocation from now on fails (1: the next one),
 *	once; 0 stops the injection.
 *
 * Metadata are the memory slabx allocates for itself when a cache or an
 * objpool is created: the cache, its name, node structures, statistics,
 * per-CPU sheaves, a pool's rings and objects.
 */
void slabx_fault_inject_meta(int nth)
{
	atomic_set(&slabx_meta_fail_nth, max(nth, 0));
}
EXPORT_SYMBOL_NS_GPL(slabx_fault_inject_meta, SLABX_TEST);

/**
 * slabx_meta_fail() - whether the metadata allocation about to be made fails
 *
 * Return: true once, for the allocation slabx_fault_inject_meta() chose.
 */
bool slabx_meta_fail(void)
{
	if (likely(!atomic_read(&slabx_meta_fail_nth)))
		return false;
	return atomic_dec_if_positive(&slabx_meta_fail_nth) == 0;
}

/**
 * slabx_cache_misuse() - report a call on a cache being destroyed
 * @s: the cache.
 * @what: what was called, for the report.
 *
 * Reported with a warning (see slabx_report()), counted in free_invalid.
 *
 * Return: true, for slabx_cache_dead().
 */
bool slabx_cache_misuse(struct slabx_cache *s, const char *what)
{
	slabx_stat_inc(s, SLABX_FREE_INVALID);
	slabx_report(s, "slabx: %s: %s on a cache being destroyed\n", s->name,
		     what);
	return true;
}

struct slabx_cpu_work {
	struct work_struct work;
	void (*fn)(struct slabx_cache *s);
	struct slabx_cache *s;
};

static void slabx_cpu_work_fn(struct work_struct *work)
{
	struct slabx_cpu_work *cw = container_of(work, struct slabx_cpu_work,
						 work);

	cw->fn(cw->s);
}

/**
 * slabx_run_on_cpu() - run a function on one CPU and wait for it
 * @cpu: an online CPU; the caller holds cpus_read_lock() (not asserted:
 *	lockdep_assert_cpus_held() is not exported to modules).
 * @fn: the function, run in a kworker bound to @cpu.
 * @s: its argument.
 *
 * Like work_on_cpu(), but in slabx_wq, so that it may be called from a
 * work item of a %WQ_MEM_RECLAIM workqueue without a flush dependency on a
 * workqueue that reclaim cannot count on.
 *
 * Context: process context, may sleep.
 */
void slabx_run_on_cpu(unsigned int cpu, void (*fn)(struct slabx_cache *s),
		      struct slabx_cache *s)
{
	struct slabx_cpu_work cw = { .fn = fn, .s = s };

	INIT_WORK_ONSTACK(&cw.work, slabx_cpu_work_fn);
	queue_work_on(cpu, slabx_wq, &cw.work);
	flush_work(&cw.work);
	destroy_work_on_stack(&cw.work);
}

/**
 * slabx_queue_on_cpu() - queue a work item on one CPU in slabx_wq
 * @cpu: an online CPU; the caller holds cpus_read_lock().
 * @work: the work item, not pending.
 *
 * For callers that queue work on several CPUs before waiting for any, as
 * slabx_run_on_cpu() waits for each.
 */
void slabx_queue_on_cpu(unsigned int cpu, struct work_struct *work)
{
	queue_work_on(cpu, slabx_wq, work);
}

const char * const slabx_stat_names[SLABX_NR_STATS] = {
	[SLABX_ALLOC]			= "alloc",
	[SLABX_FREE]			= "free",
	[SLABX_ALLOC_FASTPATH]		= "alloc_fastpath",
	[SLABX_ALLOC_SLOWPATH]		= "alloc_slowpath",
	[SLABX_FREE_FASTPATH]		= "free_fastpath",
	[SLABX_FREE_SLOWPATH]		= "free_slowpath",
	[SLABX_ALLOC_FAIL]		= "alloc_fail",
	[SLABX_SLAB_NEW]		= "slab_new",
	[SLABX_SLAB_DISCARD]		= "slab_discard",
	[SLABX_FREE_INVALID]		= "free_invalid",
	[SLABX_NODE_LOCK]		= "node_lock",
	[SLABX_SHEAF_REFILL]		= "sheaf_refill",
	[SLABX_SHEAF_FLUSH]		= "sheaf_flush",
	[SLABX_SHEAF_ALLOC]		= "sheaf_alloc",
	[SLABX_SHEAF_FREE]		= "sheaf_free",
	[SLABX_BARN_GET]		= "barn_get",
	[SLABX_BARN_GET_FAIL]		= "barn_get_fail",
	[SLABX_BARN_PUT]		= "barn_put",
	[SLABX_BARN_PUT_FAIL]		= "barn_put_fail",
	[SLABX_SHEAF_PREFILL_FAST]	= "sheaf_prefill_fast",
	[SLABX_SHEAF_PREFILL_SLOW]	= "sheaf_prefill_slow",
	[SLABX_SHEAF_PREFILL_OVERSIZE]	= "sheaf_prefill_oversize",
	[SLABX_SHEAF_RETURN_FAST]	= "sheaf_return_fast",
	[SLABX_SHEAF_RETURN_SLOW]	= "sheaf_return_slow",
	[SLABX_FREE_RCU]		= "free_rcu",
	[SLABX_FREE_RCU_DONE]		= "free_rcu_done",
	[SLABX_FREE_RCU_SHEAF]		= "free_rcu_sheaf",
	[SLABX_FREE_RCU_SHEAF_FAIL]	= "free_rcu_sheaf_fail",
	[SLABX_FREE_RCU_FALLBACK]	= "free_rcu_fallback",
	[SLABX_RCU_SHEAF_SUBMITTED]	= "rcu_sheaf_submitted",
	[SLABX_RCU_SHEAF_TO_BARN]	= "rcu_sheaf_to_barn",
	[SLABX_RCU_SHEAF_FLUSHED]	= "rcu_sheaf_flushed",
	[SLABX_RCU_CALL]		= "rcu_call",
	[SLABX_ALLOC_NOLOCK]		= "alloc_nolock",
	[SLABX_ALLOC_NOLOCK_FAIL]	= "alloc_nolock_fail",
	[SLABX_FREE_NOLOCK]		= "free_nolock",
	[SLABX_FREE_NOLOCK_DEFERRED]	= "free_nolock_deferred",
	[SLABX_FREE_NOLOCK_DRAINED]	= "free_nolock_drained",
	[SLABX_NOLOCK_TRYLOCK_FAIL]	= "nolock_trylock_fail",
	[SLABX_RESERVE_ALLOC]		= "reserve_alloc",
	[SLABX_RESERVE_REFILL]		= "reserve_refill",
	[SLABX_RESERVE_WAIT]		= "reserve_wait",
	[SLABX_RCU_SHEAF_AGED]		= "rcu_sheaf_aged",
	[SLABX_RCU_SHEAF_LARGE]		= "rcu_sheaf_large",
	[SLABX_RCU_SHEAF_SPLIT]		= "rcu_sheaf_split",
};

/* ---- statistics -------------------------------------------------------------- */

/**
 * slabx_stats_read() - one CPU's count of one event
 * @st: that CPU's counters of a cache.
 * @item: the event.
 *
 * The hot paths' counts are added to the events they are: see struct
 * slabx_stats.
 *
 * Return: the count; a racy read of a counter that may change meanwhile.
 */
unsigned long slabx_stats_read(const struct slabx_stats *st,
			       enum slabx_stat_item item)
{
	unsigned long nr = READ_ONCE(st->count[item]);

	if (item == SLABX_ALLOC || item == SLABX_ALLOC_FASTPATH)
		nr += READ_ONCE(st->pcs_alloc);
	else if (item == SLABX_FREE || item == SLABX_FREE_FASTPATH)
		nr += READ_ONCE(st->pcs_free);
	else if (item == SLABX_FREE_RCU || item == SLABX_FREE_RCU_SHEAF)
		nr += READ_ONCE(st->pcs_free_rcu);
	return nr;
}

/**
 * slabx_cache_stat() - read one event counter of a cache
 * @s: the cache.
 * @item: the counter.
 *
 * Return: the sum over all possible CPUs.
 */
unsigned long slabx_cache_stat(struct slabx_cache *s, enum slabx_stat_item item)
{
	unsigned long sum = 0;
	int cpu;

	if (WARN_ON_ONCE(item >= SLABX_NR_STATS))
		return 0;
	for_each_possible_cpu(cpu)
		sum += slabx_stats_read(per_cpu_ptr(s->stats, cpu), item);
	return sum;
}
EXPORT_SYMBOL_GPL(slabx_cache_stat);

/**
 * slabx_cache_info() - snapshot of a cache's geometry and occupancy
 * @s: the cache.
 * @info: filled in.
 *
 * Context: any context that may take a spinlock with IRQs saved.
 */
void slabx_cache_info(struct slabx_cache *s, struct slabx_info *info)
{
	unsigned long done;
	int nid;

	memset(info, 0, sizeof(*info));
	info->object_size = s->object_size;
	info->stride = s->stride;
	info->align = s->align;
	info->order = s->order;
	info->objs_per_slab = s->objs_per_slab;
	info->sheaf_capacity = s->sheaf_capacity;
	if (s->pool) {
		struct slabx_objpool_stats st;

		slabx_objpool_get_stats(s->pool, &st);
		info->objects_total = s->pool->nr_objs;
		/* Counters summed while they move: never below 0. */
		info->objects_inuse = max(st.outstanding, 0L);
	}
	for_each_node(nid) {
		struct slabx_node *n = s->node[nid];
		unsigned int full, empty;
		unsigned long flags, total;

		raw_spin_lock_irqsave(&n->lock, flags);
		total = n->nr_slabs * s->objs_per_slab;
		info->slabs += n->nr_slabs;
		info->objects_total += total;
		info->objects_inuse += total - n->free_objs;
		raw_spin_unlock_irqrestore(&n->lock, flags);
		slabx_barn_occupancy(&n->barn, &full, &empty);
		info->objects_barn += (unsigned long)full * s->sheaf_capacity;
		info->sheaves_barn_empty += empty;
		info->barn_max_full = n->barn.max_full;
	}
	/* Each object is counted done after it is counted freed: read done first. */
	done = slabx_cache_stat(s, SLABX_FREE_RCU_DONE);
	info->objects_rcu_waiting = slabx_cache_stat(s, SLABX_FREE_RCU) - done;
	slabx_reserve_info(s, info);
}
EXPORT_SYMBOL_GPL(slabx_cache_info);

/* ---- cache lifecycle ------------------------------------------------------- */

/* See &slabx_cache.keep_empty; after the geometry and the sheaf capacity. */
static unsigned int cache_keep_empty(const struct slabx_cache *s)
{
	unsigned int barn = DIV_ROUND_UP(SLABX_BARN_FULL_MIN *
					 s->sheaf_capacity, s->objs_per_slab);
	unsigned int most = SLABX_NODE_KEEP_BYTES / (PAGE_SIZE << s->order);

	return max_t(unsigned int, SLABX_NODE_KEEP_EMPTY, min(barn, most));
}

static void cache_free(struct slabx_cache *s)
{
	slabx_pool_cache_destroy(s);
	slabx_sheaves_destroy(s);
	slabx_nodes_free(s);
	slabx_cache_free_freelist(s);
	free_percpu(s->stats);
	kfree_const(s->name);
	kfree(s);
}

static struct slabx_cache *cache_find(const char *name)
{
	struct slabx_cache *s;

	lockdep_assert_held(&slabx_caches_mutex);
	list_for_each_entry(s, &slabx_caches, list)
		if (!strcmp(s->name, name))
			return s;
	return NULL;
}

/* Whether slabx_cache_create()'s arguments are valid; each bad one warned of. */
static bool create_args_ok(const char *name, unsigned int size,
			   const struct slabx_cache_args *args)
{
	if (!name || !*name || strnlen(name, SLABX_NAME_MAX + 1) >
	    SLABX_NAME_MAX || strchr(name, '/')) {
		pr_warn("cache name missing, too long or with '/'\n");
		return false;
	}
	if (size < SLABX_MIN_SIZE || size > SLABX_MAX_SIZE) {
		pr_warn("%s: object size %u outside %u..%u\n", name, size,
			SLABX_MIN_SIZE, SLABX_MAX_SIZE);
		return false;
	}
	if (args->align && (!is_power_of_2(args->align) ||
			    args->align > SLABX_MAX_ALIGN)) {
		pr_warn("%s: alignment %u is not a power of two up to %u\n",
			name, args->align, SLABX_MAX_ALIGN);
		return false;
	}
	if (args->flags & ~SLABX_VALID_FLAGS) {
		pr_warn("%s: unknown flags %#x\n", name,
			args->flags & ~SLABX_VALID_FLAGS);
		return false;
	}
	if (args->pool_objects && (args->flags & SLABX_TYPESAFE_BY_RCU)) {
		pr_warn("%s: a pool-mode cache cannot be typesafe by RCU\n",
			name);
		return false;
	}
	if (args->pool_objects > SLABX_OBJPOOL_NR_OBJECT_MAX) {
		pr_warn("%s: pool of %u objects above %lu\n", name,
			args->pool_objects, SLABX_OBJPOOL_NR_OBJECT_MAX);
		return false;
	}
	if (args->useroffset > size || args->usersize > size - args->useroffset ||
	    (args->useroffset && !args->usersize)) {
		pr_warn("%s: usercopy part %u+%u outside the object of %u bytes\n",
			name, args->useroffset, args->usersize, size);
		return false;
	}
	if (args->sheaf_capacity > SLABX_SHEAF_MAX_CAPACITY) {
		pr_warn("%s: sheaf capacity %u above %u\n", name,
			args->sheaf_capacity, SLABX_SHEAF_MAX_CAPACITY);
		return false;
	}
	return true;
}

static struct slabx_cache *cache_new(const char *name, unsigned int size,
				     const struct slabx_cache_args *args)
{
	struct slabx_cache *s;

	if (slabx_meta_fail())
		return NULL;
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	s->flags = args->flags | (debug ? SLABX_DEBUG : 0);
	s->ctor = args->ctor;
	s->useroffset = args->useroffset;
	s->usersize = args->usersize;
	mutex_init(&s->rcu_barrier_mutex);
	slabx_nolock_cache_init(s);
	slabx_cache_set_geometry(s, size, args->align);
	/*
	 * Frees into a sheaf cannot be checked: debug caches go without.
	 * Pool-mode caches have their pool's per-CPU rings instead.
	 */
	if (!(s->flags & (SLABX_NO_SHEAVES | SLABX_DEBUG)) &&
	    !args->pool_objects)
		s->sheaf_capacity = args->sheaf_capacity ?:
				    slabx_sheaf_default_capacity(s->stride);
	s->keep_empty = cache_keep_empty(s);
	slabx_reserve_init(s, args->sheaf_capacity);
	if (!slabx_meta_fail())
		s->name = kstrdup_const(name, GFP_KERNEL);
	if (!slabx_meta_fail())
		s->stats = alloc_percpu(struct slabx_stats);
	if (!s->name || !s->stats || slabx_cache_init_freelist(s) ||
	    slabx_nodes_alloc(s) || slabx_sheaves_init(s) ||
	    (args->pool_objects &&
	     slabx_pool_cache_init(s, args->pool_objects))) {
		cache_free(s);
		return NULL;
	}
	return s;
}

/*
 * List and show a new cache @s, unless its name is taken.
 * Return: @s, or NULL (@s freed) when it could not be.
 */
static struct slabx_cache *cache_register(struct slabx_cache *s)
{
	if (!s)
		return NULL;
	mutex_lock(&slabx_caches_mutex);
	if (cache_find(s->name)) {
		mutex_unlock(&slabx_caches_mutex);
		pr_warn("cache %s already exists\n", s->name);
		cache_free(s);
		return NULL;
	}
	list_add_tail(&s->list, &slabx_caches);
	slabx_debugfs_add_cache(s);
	mutex_unlock(&slabx_caches_mutex);
	return s;
}

/**
 * slabx_cache_create() - create an object cache
 * @name: unique name of 1 to %SLABX_NAME_MAX characters, without '/'; it
 *	names the cache's debugfs directory and is copied.
 * @size: object size, %SLABX_MIN_SIZE to %SLABX_MAX_SIZE bytes.
 * @args: alignment, flags, constructor and sheaf capacity, or NULL for
 *	the defaults.
 *
 * Every bad argument is reported with pr_warn.
 *
 * Context: process context, may sleep.
 * Return: the cache; or NULL, as kmem_cache_create() returns: for a bad
 * name, size, alignment or flag, a name already taken (each reported with
 * a warning), or without memory.
 */
struct slabx_cache *slabx_cache_create(const char *name, unsigned int size,
				       const struct slabx_cache_args *args)
{
	static const struct slabx_cache_args no_args;

	might_sleep();
	if (!args)
		args = &no_args;
	if (!create_args_ok(name, size, args))
		return NULL;
	return cache_register(cache_new(name, size, args));
}
EXPORT_SYMBOL_GPL(slabx_cache_create);

/**
 * slabx_cache_create_kmalloc() - create a size class of slabx_kmalloc()
 * @name: its name, unique.
 * @size: its object size, up to %SLABX_KMALLOC_MAX_SIZE; a power of two
 *	gives objects aligned to it.
 *
 * A cache with the internal flag %SLABX_KMALLOC_CLASS: its slabs are all
 * of %SLABX_KMALLOC_ORDER (see slabx_cache_set_geometry()).
 *
 * Context: process context, may sleep.
 * Return: the cache, or NULL as slabx_cache_create() returns.
 */
struct slabx_cache *slabx_cache_create_kmalloc(const char *name,
					       unsigned int size)
{
	struct slabx_cache_args args = {
		.align = is_power_of_2(size) ? size : 0,
		.flags = SLABX_KMALLOC_CLASS,
		.usersize = size,
	};

	return cache_register(cache_new(name, size, &args));
}

/* Objects of a pool-mode cache still allocated. */
static unsigned long pool_outstanding(struct slabx_cache *s)
{
	struct slabx_objpool_stats st;

	if (!s->pool)
		return 0;
	slabx_objpool_get_stats(s->pool, &st);
	return st.outstanding;
}

/**
 * slabx_cache_shrink() - give back all the memory a cache can spare
 * @s: the cache.
 *
 * Flushes every CPU's sheaves and every barn into the slabs, then returns
 * every free slab to the page allocator.
 *
 * Context: process context, may sleep; not under cpus_read_lock().
 */
void slabx_cache_shrink(struct slabx_cache *s)
{
	might_sleep();
	if (slabx_cache_dead(s, __func__))
		return;
	slabx_sheaves_flush_all(s);
	slabx_slabs_release_empty(s, NULL);
}
EXPORT_SYMBOL_GPL(slabx_cache_shrink);

/*
 * Mark @s dead if it is a live cache, and a slabx_kmalloc() class only if
 * @kmalloc_class (its owner, kmalloc.c, destroys it). Return: false
 * (reported) for a pointer that is not one: never created, or destroyed
 * already; and for a class otherwise.
 */
static bool cache_kill(struct slabx_cache *s, bool kmalloc_class)
{
	struct slabx_cache *c;
	bool live = false, refused = false;

	mutex_lock(&slabx_caches_mutex);
	/* Compare pointers only: a destroyed cache may be freed memory. */
	list_for_each_entry(c, &slabx_caches, list)
		if (c == s && !c->dead) {
			refused = !kmalloc_class &&
				  (c->flags & SLABX_KMALLOC_CLASS);
			if (!refused)
				WRITE_ONCE(s->dead, true);
			live = true;
			break;
		}
	mutex_unlock(&slabx_caches_mutex);
	WARN_ONCE(!live, "slabx: destroy of %p, not a live cache\n", s);
	WARN_ONCE(refused, "slabx: destroy of %s refused: slabx_kmalloc()'s\n",
		  s->name);
	return live && !refused;
}

/* slabx_cache_destroy(), of a slabx_kmalloc() class too if @kmalloc_class. */
static int cache_destroy(struct slabx_cache *s, bool kmalloc_class)
{
	unsigned long leaked;
	unsigned int reservations;

	if (!s)
		return 0;
	might_sleep();
	if (!cache_kill(s, kmalloc_class))
		return -EINVAL;
	slabx_nolock_cache_destroy(s);
	slabx_rcu_wait(s);
	/* Unlisted, it is no longer reached by CPU hotplug and the shrinker. */
	mutex_lock(&slabx_caches_mutex);
	list_del(&s->list);
	slabx_debugfs_remove_cache(s);
	mutex_unlock(&slabx_caches_mutex);
	slabx_sheaves_destroy(s);
	reservations = slabx_reserve_destroy(s);
	leaked = slabx_slabs_release_empty(s, NULL) + pool_outstanding(s);
	if (reservations)
		pr_err("cache %s destroyed with %u reservations still held; the cache is kept for them\n",
		       s->name, reservations);
	if (leaked) {
		pr_err("cache %s destroyed with %lu objects still allocated; their slabs are kept\n",
		       s->name, leaked);
		slabx_slabs_report_leaks(s, SLABX_LEAKS_NAMED);
		if (s->pool)
			slabx_pool_cache_report_leaks(s);
	}
	/*
	 * A zombie until the cache's own handle and every reservation's are
	 * gone: a slabx_unreserve() may run during the destroy, and the last
	 * handle out frees the cache (slabx_cache_reap()), unless objects
	 * of it are still allocated.
	 */
	mutex_lock(&slabx_caches_mutex);
	list_add(&s->list, &slabx_zombies);
	mutex_unlock(&slabx_caches_mutex);
	if (atomic_dec_and_test(&s->reserve.handles))
		slabx_cache_reap(s);
	return leaked || reservations ? -EBUSY : 0;
}

/**
 * slabx_cache_reap() - free a destroyed cache, the last handle on it gone
 * @s: a dead cache, a zombie, whose destroy and reservations are all done.
 *
 * The cache is freed unless objects of it are still allocated; then it
 * stays a zombie until slabx is unloaded.
 *
 * Context: process context, may sleep; not with @s's reserve mutex held.
 */
void slabx_cache_reap(struct slabx_cache *s)
{
	unsigned long leaked;

	mutex_lock(&slabx_caches_mutex);
	leaked = slabx_slabs_release_empty(s, NULL) + pool_outstanding(s);
	if (!leaked)
		list_del(&s->list);
	mutex_unlock(&slabx_caches_mutex);
	if (leaked)
		return;
	/* A free that returned the last object may still be counting it. */
	synchronize_rcu();
	cache_free(s);
}

/**
 * slabx_zombie_count() - the destroyed caches slabx keeps
 *
 * For tests: a cache destroyed with leaked objects or reservations is
 * kept until they are gone or slabx is unloaded.
 *
 * Return: how many there are.
 */
unsigned int slabx_zombie_count(void)
{
	struct slabx_cache *s;
	unsigned int n = 0;

	mutex_lock(&slabx_caches_mutex);
	list_for_each_entry(s, &slabx_zombies, list)
		n++;
	mutex_unlock(&slabx_caches_mutex);
	return n;
}
EXPORT_SYMBOL_NS_GPL(slabx_zombie_count, SLABX_TEST);

/**
 * slabx_cache_destroy() - destroy a cache
 * @s: the cache, or NULL (nothing is done).
 *
 * Objects given to slabx_free_rcu() are waited for first (only this
 * cache's, see slabx_rcu_barrier()), then every CPU's sheaves and every
 * barn are flushed, so that only objects really held by users count as
 * leaked. When objects of @s are still allocated, the leak is reported
 * with the cache's name and the number of objects, and the slabs holding
 * them are never freed (the memory stays valid for whoever holds the
 * objects); the cache's name can be reused at once.
 *
 * Leaked objects may be given to slabx_free() or slabx_free_bulk()
 * concurrently with the destroy (from any CPU) and after it, until the
 * slabx module is unloaded, and sheaves prefilled before may be used and
 * returned (slabx_return_sheaf()); nothing else may be called on @s once
 * destroy has started, nor concurrently with it (see slabx.h: a second
 * destroy, allocations, slabx_free_rcu() and nolock calls are refused with
 * a warning). Needs no work from the system workqueues, so it may run in a
 * work item of a %WQ_MEM_RECLAIM workqueue.
 *
 * A reservation still held (slabx_reserve()) is reported as a leak too:
 * the reserve is flushed, and the cache is kept for slabx_unreserve(),
 * whose last call frees it (unless objects are still allocated).
 *
 * Context: process context, may sleep; not under cpus_read_lock() (nor in
 * a CPU hotplug callback).
 * Return: 0, -EBUSY when objects or reservations were leaked, -EINVAL
 * (with a warning) when @s is not a live cache or is a size class of
 * slabx_kmalloc(), which only slabx itself destroys.
 */
int slabx_cache_destroy(struct slabx_cache *s)
{
	return cache_destroy(s, false);
}
EXPORT_SYMBOL_GPL(slabx_cache_destroy);

/**
 * slabx_cache_destroy_kmalloc() - destroy a size class of slabx_kmalloc()
 * @s: the class's cache.
 *
 * As slabx_cache_destroy(), which refuses classes: only their owner,
 * kmalloc.c, destroys them, at module exit.
 *
 * Context: process context, may sleep.
 * Return: as slabx_cache_destroy().
 */
int slabx_cache_destroy_kmalloc(struct slabx_cache *s)
{
	return cache_destroy(s, true);
}

/* ---- CPU hotplug and memory pressure ------------------------------------- */

static enum cpuhp_state slabx_cpuhp_state;
static struct shrinker *slabx_shrinker;

/*
 * A dead CPU's sheaves go back to the slabs and barns of every cache, and
 * its partial rcu_free sheaves are queued for their grace period.
 */
static int slabx_cpu_dead(unsigned int cpu)
{
	struct slabx_cache *s;

	mutex_lock(&slabx_caches_mutex);
	list_for_each_entry(s, &slabx_caches, list) {
		slabx_rcu_free_flush_cpu(s, cpu);
		slabx_sheaves_flush_cpu(s, cpu);
	}
	mutex_unlock(&slabx_caches_mutex);
	return 0;
}

/* What a shrink could free: objects in full barn sheaves and free slabs. */
static unsigned long slabx_shrink_count(struct shrinker *shrink,
					struct shrink_control *sc)
{
	unsigned long count = 0;
	struct slabx_cache *s;

	if (!mutex_trylock(&slabx_caches_mutex))
		return 0;
	list_for_each_entry(s, &slabx_caches, list) {
		struct slabx_info info;
		int nid;

		slabx_cache_info(s, &info);
		count += info.objects_barn;
		for_each_node(nid)
			count += READ_ONCE(s->node[nid]->nr_empty) *
				 s->objs_per_slab;
	}
	mutex_unlock(&slabx_caches_mutex);
	return count ?: SHRINK_EMPTY;
}

static unsigned long slabx_shrink_scan(struct shrinker *shrink,
				       struct shrink_control *sc)
{
	unsigned long freed = 0, released;
	struct slabx_cache *s;

	/* Reclaim may come from inside slabx, with the mutex held. */
	if (!mutex_trylock(&slabx_caches_mutex))
		return SHRINK_STOP;
	list_for_each_entry(s, &slabx_caches, list) {
		freed += slabx_sheaves_flush_barns(s);
		slabx_slabs_release_empty(s, &released);
		freed += released;
	}
	mutex_unlock(&slabx_caches_mutex);
	return freed;
}

/**
 * slabx_shrink_all() - what the shrinker does under memory pressure
 *
 * Flushes every barn of every cache into the slabs and returns every free
 * slab to the page allocator; per-CPU sheaves stay.
 *
 * Context: process context, may sleep.
 * Return: the number of objects whose memory was released or moved back to
 * the slabs.
 */
unsigned long slabx_shrink_all(void)
{
	struct shrink_control sc = { .gfp_mask = GFP_KERNEL };

	return slabx_shrink_scan(slabx_shrinker, &sc);
}
EXPORT_SYMBOL_NS_GPL(slabx_shrink_all, SLABX_TEST);

static int __init slabx_shrinker_init(void)
{
	slabx_shrinker = slabx_shrinker_create("slabx", slabx_shrink_count,
					       slabx_shrink_scan);
	return slabx_shrinker ? 0 : -ENOMEM;
}

/* ---- module ---------------------------------------------------------------- */

static int __init slabx_init(void)
{
	int ret;

	slabx_wq = alloc_workqueue("slabx", WQ_MEM_RECLAIM, 0);
	if (!slabx_wq)
		return -ENOMEM;
	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "slabx:dead",
					NULL, slabx_cpu_dead);
	if (ret < 0)
		goto fail_cpuhp;
	slabx_cpuhp_state = ret;
	ret = slabx_shrinker_init();
	if (ret)
		goto fail_shrinker;
	ret = slabx_nolock_pages_init();
	if (ret)
		goto fail_nolock;
	slabx_debugfs_init();
	ret = slabx_kmalloc_init();
	if (ret)
		goto fail_kmalloc;
	return 0;
fail_kmalloc:
	slabx_debugfs_exit();
	slabx_nolock_pages_exit();
fail_nolock:
	slabx_shrinker_destroy(slabx_shrinker);
fail_shrinker:
	cpuhp_remove_state_nocalls(slabx_cpuhp_state);
fail_cpuhp:
	destroy_workqueue(slabx_wq);
	return ret;
}

/*
 * A module that uses slabx pins it, so at exit every cache was destroyed.
 * What is left are zombies: their slabs that became free since are freed,
 * those still holding leaked objects stay, and the bookkeeping goes.
 */
static void __exit slabx_exit(void)
{
	struct slabx_cache *s, *tmp;

	/* No cache opens an rcu_free sheaf any more. */
	slabx_rcu_free_monitor_pause();
	slabx_kmalloc_exit();
	slabx_debugfs_exit();
	slabx_shrinker_destroy(slabx_shrinker);
	cpuhp_remove_state_nocalls(slabx_cpuhp_state);
	/*
	 * slabx_free_rcu() calls that raced with the start of a zombie's
	 * destroy: wait for their batches (whose callback may queue itself
	 * again), then for the callbacks to return.
	 */
	list_for_each_entry(s, &slabx_zombies, list)
		slabx_rcu_wait(s);
	rcu_barrier();
	list_for_each_entry_safe(s, tmp, &slabx_zombies, list) {
		unsigned long leaked = slabx_slabs_release_empty(s, NULL) +
				       pool_outstanding(s);

		if (leaked)
			pr_err("unloading with %lu objects of cache %s still allocated\n",
			       leaked, s->name);
		/* Like slabs with leaked objects, their pool stays. */
		if (leaked && s->pool)
			s->pool = NULL;
		list_del(&s->list);
		cache_free(s);
	}
	/* The slabs of typesafe-by-RCU zombies just freed wait for a GP. */
	rcu_barrier();
	slabx_objpools_exit();
	slabx_nolock_pages_exit();
	slabx_slab_account_exit();
	slabx_rcu_free_monitor_exit();
	destroy_workqueue(slabx_wq);
}

module_init(slabx_init);
module_exit(slabx_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("slabx: sheaves, barns and any-context object caches");

// SPDX-License-Identifier: GPL-2.0
/*
 * slabx: cache lifecycle, the slab layer and the public entry points.
 *
 * A cache keeps, for every possible NUMA node, the slabs whose pages came
 * from that node: partially used slabs on a partial list, a few fully free
 * slabs on an empty list, and full slabs on no list at all. Objects are
 * carved from 2^order page blocks; a free object stores the next free object
 * of its slab (after the object when the cache has a constructor, so that a
 * constructed object keeps its state across free and reuse).
 *
 * Lock order:
 *   cpu_hotplug_lock (cpuhp callbacks, slabx_cache_shrink)
 *     slabx_caches_mutex
 *       per-CPU sheaves (in_use flag, preemption off; see sheaf.c)
 *         slabx_node->lock or slabx_barn->lock (raw, IRQs saved; leaves,
 *         never two at once)
 * slabx_cache_destroy() takes slabx_caches_mutex without cpu_hotplug_lock
 * and waits for RCU and for slabx_wq work items with neither held.
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

#include <linux/bitmap.h>
#include <linux/cache.h>
#include <linux/cpuhotplug.h>
#include <linux/err.h>
#include <linux/log2.h>
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

#include "slabx_internal.h"

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
EXPORT_SYMBOL_GPL(slabx_fault_inject_meta);

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
 * Reported with a warning the first time, counted in free_invalid always.
 *
 * Return: true, for slabx_cache_dead().
 */
bool slabx_cache_misuse(struct slabx_cache *s, const char *what)
{
	slabx_stat_inc(s, SLABX_FREE_INVALID);
	WARN_ONCE(1, "slabx: %s: %s on a cache being destroyed\n", s->name,
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
};

/* ---- object and slab geometry ------------------------------------------ */

static inline void **free_pointer(struct slabx_cache *s, void *obj)
{
	return obj + s->fp_offset;
}

static inline void *slab_base(struct slabx_slab *slab)
{
	return slab;
}

static inline void *slab_end(struct slabx_cache *s, struct slabx_slab *slab)
{
	return slab_base(slab) + (PAGE_SIZE << s->order);
}

/*
 * The slab an address of the direct map would belong to: slabs are
 * naturally aligned blocks of physical memory, so rounding the physical
 * address down finds the header, with no struct page lookup.
 */
static struct slabx_slab *addr_to_slab(struct slabx_cache *s, const void *obj)
{
	return __va(ALIGN_DOWN(__pa(obj), PAGE_SIZE << s->order));
}

/*
 * Bytes before the first object of a slab of @bytes: the header and its two
 * pending bitmaps, sized for the objects the slab could hold without them.
 */
static unsigned int slab_first_offset(unsigned long bytes,
				      unsigned int stride, unsigned int align)
{
	unsigned long hdr = sizeof(struct slabx_slab);
	unsigned long nr = bytes > hdr ? (bytes - hdr) / stride : 0;

	return ALIGN(hdr + 2 * BITS_TO_LONGS(nr) * sizeof(long), align);
}

/* Index of an object in its slab (from 0). */
static unsigned int obj_index(struct slabx_cache *s, struct slabx_slab *slab,
			      const void *obj)
{
	return reciprocal_divide(obj - slab_base(slab) - s->first_offset,
				 s->stride_recip);
}

/* Order with the least waste, preferring small orders at equal waste. */
static unsigned int slab_order(unsigned int stride, unsigned int align)
{
	unsigned int order, best = SLABX_MAX_ORDER;
	unsigned long best_waste = ULONG_MAX;

	for (order = 0; order <= SLABX_MAX_ORDER; order++) {
		unsigned long bytes = PAGE_SIZE << order;
		unsigned int first = slab_first_offset(bytes, stride, align);
		unsigned long nr, waste;

		if (bytes < first + stride)
			continue;
		nr = (bytes - first) / stride;
		waste = bytes - nr * stride;
		/* A waste below 1/8 of the slab is good enough. */
		if (waste * 8 <= bytes)
			return order;
		/* Compare waste fractions: waste / bytes. */
		if (waste * (PAGE_SIZE << best) < best_waste * bytes) {
			best = order;
			best_waste = waste;
		}
	}
	return best;
}

static void cache_set_geometry(struct slabx_cache *s, unsigned int size,
			       unsigned int align)
{
	unsigned int payload = max_t(unsigned int, size, sizeof(void *));

	if (s->flags & SLABX_HWCACHE_ALIGN)
		align = max_t(unsigned int, align, cache_line_size());
	align = max_t(unsigned int, align, sizeof(void *));

	s->object_size = size;
	s->align = align;
	if (s->ctor) {
		/* Keep the constructed object intact: link after it. */
		s->fp_offset = ALIGN(size, sizeof(void *));
		payload = s->fp_offset + sizeof(void *);
	} else {
		s->fp_offset = 0;
	}
	s->stride = ALIGN(payload, align);
	s->stride_recip = reciprocal_value(s->stride);
	s->order = slab_order(s->stride, align);
	s->first_offset = slab_first_offset(PAGE_SIZE << s->order, s->stride,
					    align);
	s->objs_per_slab = ((PAGE_SIZE << s->order) - s->first_offset) /
			   s->stride;
	s->rcu_bitmap_longs = BITS_TO_LONGS(s->objs_per_slab);
}

/* ---- slabs ----------------------------------------------------------------- */

static void slab_build_freelist(struct slabx_cache *s, struct slabx_slab *slab)
{
	void *obj = slab_base(slab) + s->first_offset;
	void *next;
	unsigned int i;

	slab->freelist = obj;
	for (i = 0; i < s->objs_per_slab; i++, obj = next) {
		next = i + 1 < s->objs_per_slab ? obj + s->stride : NULL;
		if (s->ctor)
			s->ctor(obj);
		*free_pointer(s, obj) = next;
	}
}

/*
 * A new slab for @nid. When the caller named a node, its pages come from
 * that node if at all possible; the slab belongs to the node its pages are
 * really on.
 */
static struct slabx_slab *slab_init(struct slabx_cache *s, struct page *page);

static struct slabx_slab *slab_new(struct slabx_cache *s, gfp_t gfp, int nid,
				   bool exact_node)
{
	struct page *page = NULL;

	if (exact_node)
		page = slabx_pages_alloc(nid, gfp | __GFP_THISNODE, s->order);
	if (!page)
		page = slabx_pages_alloc(nid, gfp, s->order);
	if (!page)
		return NULL;
	return slab_init(s, page);
}

/* Make a block of pages a slab of @s, with every object free. */
static struct slabx_slab *slab_init(struct slabx_cache *s, struct page *page)
{
	struct slabx_slab *slab = page_address(page);

	INIT_LIST_HEAD(&slab->list);
	slab->cache = s;
	slab->inuse = 0;
	slab->nid = page_to_nid(page);
	slab->magic = SLABX_SLAB_MAGIC;
	slab->rcu_nr[0] = 0;
	slab->rcu_nr[1] = 0;
	INIT_LIST_HEAD(&slab->rcu_list[0]);
	INIT_LIST_HEAD(&slab->rcu_list[1]);
	bitmap_zero(slab->rcu_pending, 2 * s->rcu_bitmap_longs * BITS_PER_LONG);
	slab_build_freelist(s, slab);
	slabx_stat_inc(s, SLABX_SLAB_NEW);
	return slab;
}

/* From any context: the block goes back through the nolock path. */
static void slab_discard_nolock(struct slabx_cache *s, struct slabx_slab *slab)
{
	slab->magic = 0;
	slabx_pages_account(s->order, -1);
	slabx_free_pages_nolock(virt_to_page(slab_base(slab)), s->order);
	slabx_stat_inc(s, SLABX_SLAB_DISCARD);
}

/* Give a free slab back to the page allocator, now if this context may. */
static void slab_discard(struct slabx_cache *s, struct slabx_slab *slab)
{
	if (!slabx_may_free_pages()) {
		slab_discard_nolock(s, slab);
		return;
	}
	slab->magic = 0;
	slabx_pages_free(virt_to_page(slab_base(slab)), s->order);
	slabx_stat_inc(s, SLABX_SLAB_DISCARD);
}

/**
 * slabx_slab_discard_list() - give slabs back to the page allocator
 * @s: their cache.
 * @list: slabs collected by slabx_slab_release(); emptied.
 *
 * Context: not under any slabx lock, nor with the per-CPU sheaves held.
 */
void slabx_slab_discard_list(struct slabx_cache *s, struct list_head *list)
{
	struct slabx_slab *slab, *tmp;

	list_for_each_entry_safe(slab, tmp, list, list) {
		list_del(&slab->list);
		slab_discard(s, slab);
	}
}

/* ---- node lists (called with n->lock held) -------------------------------- */

static struct slabx_slab *node_first_free_slab(struct slabx_node *n)
{
	struct slabx_slab *slab;

	slab = list_first_entry_or_null(&n->partial, struct slabx_slab, list);
	if (slab)
		return slab;
	slab = list_first_entry_or_null(&n->empty, struct slabx_slab, list);
	if (slab) {
		/* Its first allocation turns it partial. */
		list_move(&slab->list, &n->partial);
		n->nr_empty--;
		n->nr_partial++;
	}
	return slab;
}

/* Pop up to @max objects from the node's slabs into @p. */
static unsigned int node_take(struct slabx_cache *s, struct slabx_node *n,
			      void **p, unsigned int max)
{
	unsigned int got = 0;

	while (got < max) {
		struct slabx_slab *slab = node_first_free_slab(n);

		if (!slab)
			break;
		while (got < max && slab->freelist) {
			void *obj = slab->freelist;

			slab->freelist = *free_pointer(s, obj);
			slab->inuse++;
			p[got++] = obj;
		}
		if (!slab->freelist) {
			/* Full slabs sit on no list. */
			list_del_init(&slab->list);
			n->nr_partial--;
		}
	}
	n->free_objs -= got;
	return got;
}

static void node_add_slab(struct slabx_cache *s, struct slabx_node *n,
			  struct slabx_slab *slab)
{
	list_add(&slab->list, &n->partial);
	n->nr_partial++;
	n->nr_slabs++;
	n->free_objs += s->objs_per_slab;
}

/*
 * Put @obj back into @slab. A slab that becomes free goes to the empty list,
 * or, past the keep limit, onto @discard for the caller to free unlocked.
 */
static void node_put(struct slabx_cache *s, struct slabx_node *n,
		     struct slabx_slab *slab, void *obj,
		     struct list_head *discard)
{
	bool was_full = !slab->freelist;

	*free_pointer(s, obj) = slab->freelist;
	slab->freelist = obj;
	slab->inuse--;
	n->free_objs++;

	if (slab->inuse) {
		if (was_full) {
			list_add(&slab->list, &n->partial);
			n->nr_partial++;
		}
		return;
	}
	if (!was_full)
		n->nr_partial--;
	if (n->nr_empty < SLABX_NODE_KEEP_EMPTY) {
		list_move(&slab->list, &n->empty);
		n->nr_empty++;
		return;
	}
	list_move(&slab->list, discard);
	n->nr_slabs--;
	n->free_objs -= s->objs_per_slab;
}

/* ---- checks on free ------------------------------------------------------------ */

static bool slab_has_free(struct slabx_cache *s, struct slabx_slab *slab,
			  void *obj)
{
	void *f;

	for (f = slab->freelist; f; f = *free_pointer(s, f))
		if (f == obj)
			return true;
	return false;
}

/*
 * The slab of @obj, or NULL when @obj cannot be an object of @s. The cheap
 * checks always run; the double-free search only with SLABX_DEBUG, under the
 * node lock, in node_free_checked().
 */
static __always_inline struct slabx_slab *
obj_slab_checked(struct slabx_cache *s, void *obj)
{
	struct slabx_slab *slab;
	unsigned long off;

	if (!virt_addr_valid(obj))
		goto bad;
	slab = addr_to_slab(s, obj);
	if (slab->magic != SLABX_SLAB_MAGIC || slab->cache != s)
		goto bad;
	off = obj - slab_base(slab);
	if (off < s->first_offset || obj >= slab_end(s, slab))
		goto bad;
	off -= s->first_offset;
	if (reciprocal_divide(off, s->stride_recip) * s->stride != off)
		goto bad;
	return slab;
bad:
	slabx_stat_inc(s, SLABX_FREE_INVALID);
	WARN_ONCE(1, "slabx: %s: free of %p, not an object of this cache\n",
		  s->name, obj);
	return NULL;
}

/* The pending bitmap of batch @b of a slab. */
static unsigned long *slab_rcu_bitmap(struct slabx_cache *s,
				      struct slabx_slab *slab, unsigned int b)
{
	return slab->rcu_pending + b * s->rcu_bitmap_longs;
}

/* Whether @obj waits in either batch (with the node lock held). */
static bool slab_rcu_pending(struct slabx_cache *s, struct slabx_slab *slab,
			     void *obj)
{
	unsigned int idx = obj_index(s, slab, obj);

	return test_bit(idx, slab_rcu_bitmap(s, slab, 0)) ||
	       test_bit(idx, slab_rcu_bitmap(s, slab, 1));
}

static bool node_double_free(struct slabx_cache *s, struct slabx_slab *slab,
			     void *obj)
{
	if (!(s->flags & SLABX_DEBUG))
		return false;
	if (!slab_rcu_pending(s, slab, obj) && !slab_has_free(s, slab, obj))
		return false;
	slabx_stat_inc(s, SLABX_FREE_INVALID);
	WARN_ONCE(1, "slabx: %s: double free of %p\n", s->name, obj);
	return true;
}

/* ---- allocation and free, slab layer ------------------------------------------ */

/**
 * slabx_obj_slab() - the slab of an object being freed
 * @s: the cache the object should belong to.
 * @obj: the object.
 *
 * Return: the slab, or NULL (with a warning) when @obj is not an object of
 * @s. Double frees are only caught later, under the node lock, for
 * %SLABX_DEBUG caches.
 */
struct slabx_slab *slabx_obj_slab(struct slabx_cache *s, void *obj)
{
	return obj_slab_checked(s, obj);
}

/**
 * slabx_obj_nid() - the node of an object's slab
 * @s: its cache.
 * @obj: an object of @s, held by the caller (not checked).
 *
 * Return: the node id.
 */
int slabx_obj_nid(struct slabx_cache *s, const void *obj)
{
	return addr_to_slab(s, obj)->nid;
}

/**
 * slabx_slab_take() - take objects from one node's slabs, in one lock hold
 * @s: the cache.
 * @nid: the node.
 * @p: receives the objects.
 * @max: room in @p.
 *
 * Never allocates pages, so it may run with the per-CPU sheaves held.
 *
 * Return: the number of objects taken, possibly 0.
 */
unsigned int slabx_slab_take(struct slabx_cache *s, int nid, void **p,
			     unsigned int max)
{
	struct slabx_node *n = s->node[nid];
	unsigned long flags;
	unsigned int got;

	raw_spin_lock_irqsave(&n->lock, flags);
	got = node_take(s, n, p, max);
	raw_spin_unlock_irqrestore(&n->lock, flags);
	slabx_stat_inc(s, SLABX_NODE_LOCK);
	return got;
}

/* Add a new slab to its node and take up to @max objects from that node. */
static unsigned int slab_take_new(struct slabx_cache *s,
				  struct slabx_slab *slab, void **p,
				  unsigned int max)
{
	struct slabx_node *n = s->node[slab->nid];
	unsigned long flags;
	unsigned int got;

	raw_spin_lock_irqsave(&n->lock, flags);
	node_add_slab(s, n, slab);
	got = node_take(s, n, p, max);
	raw_spin_unlock_irqrestore(&n->lock, flags);
	slabx_stat_inc(s, SLABX_NODE_LOCK);
	return got;
}

/**
 * slabx_slab_fill() - take objects from the slabs, creating slabs as needed
 * @s: the cache.
 * @gfp: allocation context for new slabs.
 * @nid: node, or NUMA_NO_NODE for the local node.
 * @p: receives the objects.
 * @nr: objects wanted.
 *
 * Every allocation that the sheaves cannot serve comes here, so this is
 * where an allocation from a cache being destroyed is caught (reported,
 * nothing handed out).
 *
 * Context: not with the per-CPU sheaves held: it may allocate pages.
 * Return: the number of objects obtained; less than @nr when out of memory
 * or when @s is being destroyed.
 */
unsigned int slabx_slab_fill(struct slabx_cache *s, gfp_t gfp, int nid,
			     void **p, unsigned int nr)
{
	bool exact = nid != NUMA_NO_NODE;
	int node = exact ? nid : numa_mem_id();
	unsigned int got;

	if (slabx_cache_dead(s, "allocation"))
		return 0;
	got = slabx_slab_take(s, node, p, nr);
	while (got < nr) {
		struct slabx_slab *slab = slab_new(s, gfp, node, exact);

		if (!slab)
			break;
		got += slab_take_new(s, slab, p + got, nr - got);
	}
	return got;
}

/* ---- the any-context slab path (trylock only) ------------------------------- */

/**
 * slabx_slab_trytake() - take one object from a node's slabs, trylock only
 * @s: the cache.
 * @nid: the node.
 *
 * Context: any, NMI included.
 * Return: an object, or NULL when the node lock is busy or no slab has one.
 */
void *slabx_slab_trytake(struct slabx_cache *s, int nid)
{
	struct slabx_node *n = s->node[nid];
	unsigned long flags;
	void *obj = NULL;

	if (!raw_spin_trylock_irqsave(&n->lock, flags)) {
		slabx_stat_inc(s, SLABX_NOLOCK_TRYLOCK_FAIL);
		return NULL;
	}
	node_take(s, n, &obj, 1);
	raw_spin_unlock_irqrestore(&n->lock, flags);
	return obj;
}

/**
 * slabx_slab_trynew() - make a slab from the any-context page path and take
 *	one object of it
 * @s: a cache without a constructor (which might not be NMI-safe) and with
 *	slabs of at most PAGE_ALLOC_COSTLY_ORDER.
 * @nid: the node.
 *
 * Context: any, NMI included.
 * Return: an object, or NULL.
 */
void *slabx_slab_trynew(struct slabx_cache *s, int nid)
{
	struct slabx_node *n;
	struct slabx_slab *slab;
	unsigned long flags;
	struct page *page;
	void *obj = NULL;

	if (s->ctor || s->order > PAGE_ALLOC_COSTLY_ORDER)
		return NULL;
	page = slabx_try_alloc_pages(nid, s->order);
	if (!page)
		return NULL;
	slabx_pages_account(s->order, 1);
	slab = slab_init(s, page);
	n = s->node[slab->nid];
	if (!raw_spin_trylock_irqsave(&n->lock, flags)) {
		slabx_stat_inc(s, SLABX_NOLOCK_TRYLOCK_FAIL);
		slab_discard_nolock(s, slab);
		return NULL;
	}
	node_add_slab(s, n, slab);
	node_take(s, n, &obj, 1);
	raw_spin_unlock_irqrestore(&n->lock, flags);
	return obj;
}

/**
 * slabx_slab_tryput() - put an object back into its slab, trylock only
 * @s: the cache.
 * @slab: the slab of @obj.
 * @obj: the object.
 *
 * A slab that becomes free beyond the node's keep limit goes back through
 * slabx_free_pages_nolock().
 *
 * Context: any, NMI included.
 * Return: false when the node lock is busy (nothing was done).
 */
bool slabx_slab_tryput(struct slabx_cache *s, struct slabx_slab *slab,
		       void *obj)
{
	struct slabx_node *n = s->node[slab->nid];
	struct slabx_slab *tmp;
	unsigned long flags;
	LIST_HEAD(discard);

	if (!raw_spin_trylock_irqsave(&n->lock, flags)) {
		slabx_stat_inc(s, SLABX_NOLOCK_TRYLOCK_FAIL);
		return false;
	}
	node_put(s, n, slab, obj, &discard);
	raw_spin_unlock_irqrestore(&n->lock, flags);
	list_for_each_entry_safe(slab, tmp, &discard, list) {
		list_del(&slab->list);
		slab_discard_nolock(s, slab);
	}
	return true;
}

/**
 * slabx_slab_release() - put objects back into their slabs
 * @s: the cache.
 * @p: the objects; NULL entries are skipped.
 * @nr: entries in @p.
 * @discard: receives slabs that became free beyond the node's keep limit,
 *	for slabx_slab_discard_list() once no lock is held.
 *
 * Holds each node's lock across runs of its objects. Never frees pages, so
 * it may run with the per-CPU sheaves held.
 *
 * Return: the number of objects put back (bad pointers are not).
 */
size_t slabx_slab_release(struct slabx_cache *s, void **p, size_t nr,
			  struct list_head *discard)
{
	struct slabx_node *locked = NULL;
	unsigned long flags = 0;
	size_t i, freed = 0;

	for (i = 0; i < nr; i++) {
		struct slabx_slab *slab;
		struct slabx_node *n;

		if (!p[i])
			continue;
		slab = obj_slab_checked(s, p[i]);
		if (!slab)
			continue;
		n = s->node[slab->nid];
		if (n != locked) {
			if (locked)
				raw_spin_unlock_irqrestore(&locked->lock,
							   flags);
			raw_spin_lock_irqsave(&n->lock, flags);
			slabx_stat_inc(s, SLABX_NODE_LOCK);
			locked = n;
		}
		if (node_double_free(s, slab, p[i]))
			continue;
		node_put(s, n, slab, p[i], discard);
		freed++;
	}
	if (locked)
		raw_spin_unlock_irqrestore(&locked->lock, flags);
	return freed;
}

/**
 * slabx_slab_flush() - put objects back into their slabs and free the
 *	slabs that became free beyond the keep limit
 * @s: the cache.
 * @p: the objects.
 * @nr: entries in @p.
 *
 * Context: not with the per-CPU sheaves held.
 * Return: the number of objects put back.
 */
size_t slabx_slab_flush(struct slabx_cache *s, void **p, size_t nr)
{
	LIST_HEAD(discard);
	size_t freed;

	freed = slabx_slab_release(s, p, nr, &discard);
	slabx_slab_discard_list(s, &discard);
	return freed;
}

/* ---- objects waiting for a grace period in their slab --------------------- */

/* Put a slab's objects of batch @b back (n->lock held). Return: how many. */
static unsigned int slab_rcu_release(struct slabx_cache *s,
				     struct slabx_node *n,
				     struct slabx_slab *slab, unsigned int b,
				     struct list_head *discard)
{
	unsigned long *pending = slab_rcu_bitmap(s, slab, b);
	void *first = slab_base(slab) + s->first_offset;
	unsigned int idx, nr = 0;

	list_del_init(&slab->rcu_list[b]);
	slab->rcu_nr[b] = 0;
	/* The last node_put() may move the slab to @discard: still mapped. */
	for_each_set_bit(idx, pending, s->objs_per_slab) {
		__clear_bit(idx, pending);
		node_put(s, n, slab, first + idx * s->stride, discard);
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
 * Context: any but NMI.
 * Return: false for an object already waiting (a double free, reported).
 */
bool slabx_slab_defer_rcu(struct slabx_cache *s, struct slabx_slab *slab,
			  void *obj)
{
	struct slabx_node *n = s->node[slab->nid];
	bool queue = false, twice;
	unsigned long flags;

	raw_spin_lock_irqsave(&n->lock, flags);
	twice = slab_rcu_pending(s, slab, obj);
	if (!twice) {
		node_rcu_add(s, n, slab, obj_index(s, slab, obj));
		if (!n->rcu_queued) {
			node_rcu_close_batch(n);
			queue = true;
		}
	}
	raw_spin_unlock_irqrestore(&n->lock, flags);
	slabx_stat_inc(s, SLABX_NODE_LOCK);

	if (twice) {
		slabx_stat_inc(s, SLABX_FREE_INVALID);
		WARN_ONCE(1, "slabx: %s: double slabx_free_rcu() of %p\n",
			  s->name, obj);
		return false;
	}
	if (queue) {
		slabx_stat_inc(s, SLABX_RCU_CALL);
		call_rcu(&n->rcu, node_rcu_drain);
	}
	return true;
}

/* Objects a user gives back through the slab layer directly. */
static size_t slab_free_objects(struct slabx_cache *s, void **p, size_t nr)
{
	size_t freed = slabx_slab_flush(s, p, nr);

	slabx_stat_add(s, SLABX_FREE_SLOWPATH, freed);
	return freed;
}

static void objects_zero(struct slabx_cache *s, gfp_t gfp, void **p,
			 size_t nr)
{
	size_t i;

	if (!(gfp & __GFP_ZERO))
		return;
	for (i = 0; i < nr; i++)
		memset(p[i], 0, s->object_size);
}

static bool node_valid(int nid)
{
	return nid == NUMA_NO_NODE ||
	       (nid >= 0 && nid < nr_node_ids && node_possible(nid));
}

/* Both slabx_alloc() and slabx_alloc_node(), inlined into each. */
static __always_inline void *cache_alloc(struct slabx_cache *s, gfp_t gfp,
					 int nid)
{
	void *obj = NULL;

	if (unlikely(!node_valid(nid))) {
		pr_warn_ratelimited("%s: allocation on invalid node %d\n",
				    s->name, nid);
		slabx_stat_inc(s, SLABX_ALLOC_FAIL);
		return NULL;
	}
	if (unlikely(s->pool))
		return slabx_cache_dead(s, "allocation") ? NULL :
		       slabx_pool_cache_alloc(s, gfp);
	if (s->cpu_sheaves)
		obj = sheaves_alloc(s, gfp, nid);
	if (!obj) {
		if (!slabx_slab_fill(s, gfp, nid, &obj, 1)) {
			slabx_stat_inc(s, SLABX_ALLOC_FAIL);
			return NULL;
		}
		slabx_stat_inc(s, SLABX_ALLOC_SLOWPATH);
	}
	objects_zero(s, gfp, &obj, 1);
	slabx_stat_inc(s, SLABX_ALLOC);
	return obj;
}

/**
 * slabx_alloc_node() - allocate an object on a given NUMA node
 * @s: the cache.
 * @gfp: allocation context; %__GFP_ZERO zeroes the object.
 * @nid: node id, or %NUMA_NO_NODE for the local node.
 *
 * The object comes from this CPU's sheaves when @nid is the local node (or
 * %NUMA_NO_NODE), else from a slab on @nid when that node has memory, else
 * from the nearest node the page allocator finds. A pool-mode cache takes
 * it from its pool, wherever the object lives.
 *
 * Context: any context that @gfp allows.
 * Return: the object, or NULL when out of memory or @nid is not a possible
 * node (reported with pr_warn).
 */
void *slabx_alloc_node(struct slabx_cache *s, gfp_t gfp, int nid)
{
	return cache_alloc(s, gfp, nid);
}
EXPORT_SYMBOL_GPL(slabx_alloc_node);

/**
 * slabx_alloc() - allocate an object
 * @s: the cache.
 * @gfp: allocation context; %__GFP_ZERO zeroes the object.
 *
 * Context: any context that @gfp allows.
 * Return: the object, preferably from the local node, or NULL.
 */
void *slabx_alloc(struct slabx_cache *s, gfp_t gfp)
{
	return cache_alloc(s, gfp, NUMA_NO_NODE);
}
EXPORT_SYMBOL_GPL(slabx_alloc);

/**
 * slabx_free() - free an object
 * @s: the cache it was allocated from.
 * @obj: the object, or NULL (nothing is done).
 *
 * An object of the local node goes to this CPU's sheaves, any other to its
 * slab. A pointer that is not an object of @s is refused with a warning and
 * left alone, so a bad free leaks memory instead of corrupting the cache.
 *
 * Objects leaked past slabx_cache_destroy() may be freed concurrently with
 * the destroy and after it; they go straight to their slabs.
 *
 * Context: any context in which slabx_alloc() with %GFP_ATOMIC is allowed,
 * hard IRQ and IRQs disabled included; not NMI (see slabx_free_nolock()).
 */
void slabx_free(struct slabx_cache *s, void *obj)
{
	struct slabx_slab *slab;

	if (!obj)
		return;
	if (likely(s->cpu_sheaves)) {
		slab = obj_slab_checked(s, obj);
		if (!slab || sheaves_free(s, slab, obj))
			return;
	}
	/* See "Destroy and late frees" at the top of this file. */
	rcu_read_lock();
	if (unlikely(s->pool))
		slabx_pool_cache_free(s, obj);
	else
		slabx_stat_add(s, SLABX_FREE, slab_free_objects(s, &obj, 1));
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(slabx_free);

/* All or nothing from a pool-mode cache. */
static int pool_alloc_bulk(struct slabx_cache *s, gfp_t gfp, size_t nr,
			   void **p)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		p[i] = slabx_objpool_pop(s->pool);
		if (p[i])
			continue;
		while (i--)
			slabx_objpool_push(p[i], s->pool);
		slabx_stat_inc(s, SLABX_ALLOC_FAIL);
		return 0;
	}
	objects_zero(s, gfp, p, nr);
	slabx_stat_add(s, SLABX_ALLOC, nr);
	return nr;
}

/**
 * slabx_alloc_bulk() - allocate several objects at once
 * @s: the cache.
 * @gfp: allocation context; %__GFP_ZERO zeroes every object.
 * @nr: number of objects wanted.
 * @p: array of at least @nr pointers, filled with the objects.
 *
 * Takes what this CPU's sheaves can give, then the rest from the slabs in
 * one lock hold per slab. All or nothing: on failure the objects obtained
 * so far go back.
 *
 * Context: any context that @gfp allows.
 * Return: @nr on success, 0 on failure (or for a request above %INT_MAX,
 * reported with pr_warn).
 */
int slabx_alloc_bulk(struct slabx_cache *s, gfp_t gfp, size_t nr, void **p)
{
	unsigned int fast = 0, slow;

	if (!nr)
		return 0;
	if (unlikely(nr > INT_MAX)) {
		pr_warn_ratelimited("%s: bulk allocation of %zu objects refused\n",
				    s->name, nr);
		return 0;
	}
	if (unlikely(s->pool))
		return slabx_cache_dead(s, "allocation") ? 0 :
		       pool_alloc_bulk(s, gfp, nr, p);
	if (s->cpu_sheaves)
		fast = sheaves_alloc_bulk(s, gfp, p, nr);
	slow = fast < nr ? slabx_slab_fill(s, gfp, NUMA_NO_NODE, p + fast,
					   nr - fast) : 0;
	if (fast + slow < nr) {
		/* Never handed out, so neither an alloc nor a free. */
		slabx_slab_flush(s, p, fast + slow);
		slabx_stat_inc(s, SLABX_ALLOC_FAIL);
		return 0;
	}
	objects_zero(s, gfp, p, nr);
	slabx_stat_add(s, SLABX_ALLOC_FASTPATH, fast);
	slabx_stat_add(s, SLABX_ALLOC_SLOWPATH, slow);
	slabx_stat_add(s, SLABX_ALLOC, nr);
	return nr;
}
EXPORT_SYMBOL_GPL(slabx_alloc_bulk);

/**
 * slabx_free_bulk() - free several objects at once
 * @s: the cache they were allocated from.
 * @nr: number of pointers in @p.
 * @p: the objects; NULL entries are skipped. The array's content is
 *	undefined afterwards.
 *
 * Context: as slabx_free().
 */
void slabx_free_bulk(struct slabx_cache *s, size_t nr, void **p)
{
	size_t i, freed = 0;

	if (unlikely(s->pool)) {
		for (i = 0; i < nr; i++)
			slabx_free(s, p[i]);
		return;
	}
	/* See "Destroy and late frees" at the top of this file. */
	rcu_read_lock();
	if (s->cpu_sheaves)
		freed = sheaves_free_bulk(s, p, nr);
	else
		freed = slab_free_objects(s, p, nr);
	slabx_stat_add(s, SLABX_FREE, freed);
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(slabx_free_bulk);

/* ---- statistics -------------------------------------------------------------- */

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
		sum += per_cpu_ptr(s->stats, cpu)->count[item];
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
		barn_occupancy(&n->barn, &full, &empty);
		info->objects_barn += (unsigned long)full * s->sheaf_capacity;
		info->sheaves_barn_empty += empty;
	}
	/* Each object is counted done after it is counted freed: read done first. */
	done = slabx_cache_stat(s, SLABX_FREE_RCU_DONE);
	info->objects_rcu_waiting = slabx_cache_stat(s, SLABX_FREE_RCU) - done;
}
EXPORT_SYMBOL_GPL(slabx_cache_info);

/* ---- cache lifecycle ------------------------------------------------------- */

static void cache_free_nodes(struct slabx_cache *s)
{
	int nid;

	if (!s->node)
		return;
	for_each_node(nid)
		kfree(s->node[nid]);
	kfree(s->node);
}

static void cache_free(struct slabx_cache *s)
{
	slabx_pool_cache_destroy(s);
	sheaves_destroy(s);
	cache_free_nodes(s);
	free_percpu(s->stats);
	kfree_const(s->name);
	kfree(s);
}

static int cache_alloc_nodes(struct slabx_cache *s)
{
	int nid;

	if (!slabx_meta_fail())
		s->node = kcalloc(nr_node_ids, sizeof(*s->node), GFP_KERNEL);
	if (!s->node)
		return -ENOMEM;
	for_each_node(nid) {
		struct slabx_node *n = NULL;

		if (!slabx_meta_fail())
			n = kzalloc_node(sizeof(*n), GFP_KERNEL,
					 node_state(nid, N_NORMAL_MEMORY) ?
					 nid : NUMA_NO_NODE);
		if (!n)
			return -ENOMEM;
		raw_spin_lock_init(&n->lock);
		INIT_LIST_HEAD(&n->partial);
		INIT_LIST_HEAD(&n->empty);
		INIT_LIST_HEAD(&n->rcu_batch[0].slabs);
		INIT_LIST_HEAD(&n->rcu_batch[1].slabs);
		n->cache = s;
		barn_init(&n->barn);
		s->node[nid] = n;
	}
	return 0;
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

static int check_create_args(const char *name, unsigned int size,
			     const struct slabx_cache_args *args)
{
	if (!name || !*name || strnlen(name, SLABX_NAME_MAX + 1) >
	    SLABX_NAME_MAX || strchr(name, '/')) {
		pr_warn("cache name missing, too long or with '/'\n");
		return -EINVAL;
	}
	if (size < SLABX_MIN_SIZE || size > SLABX_MAX_SIZE) {
		pr_warn("%s: object size %u outside %u..%u\n", name, size,
			SLABX_MIN_SIZE, SLABX_MAX_SIZE);
		return -EINVAL;
	}
	if (args->align && (!is_power_of_2(args->align) ||
			    args->align > SLABX_MAX_ALIGN)) {
		pr_warn("%s: alignment %u is not a power of two up to %u\n",
			name, args->align, SLABX_MAX_ALIGN);
		return -EINVAL;
	}
	if (args->flags & ~SLABX_VALID_FLAGS) {
		pr_warn("%s: unknown flags %#x\n", name,
			args->flags & ~SLABX_VALID_FLAGS);
		return -EINVAL;
	}
	if (args->pool_objects > SLABX_OBJPOOL_NR_OBJECT_MAX) {
		pr_warn("%s: pool of %u objects above %lu\n", name,
			args->pool_objects, SLABX_OBJPOOL_NR_OBJECT_MAX);
		return -EINVAL;
	}
	if (args->sheaf_capacity > SLABX_SHEAF_MAX_CAPACITY) {
		pr_warn("%s: sheaf capacity %u above %u\n", name,
			args->sheaf_capacity, SLABX_SHEAF_MAX_CAPACITY);
		return -EINVAL;
	}
	return 0;
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
	mutex_init(&s->rcu_barrier_mutex);
	slabx_nolock_cache_init(s);
	cache_set_geometry(s, size, args->align);
	/*
	 * Frees into a sheaf cannot be checked: debug caches go without.
	 * Pool-mode caches have their pool's per-CPU rings instead.
	 */
	if (!(s->flags & (SLABX_NO_SHEAVES | SLABX_DEBUG)) &&
	    !args->pool_objects)
		s->sheaf_capacity = args->sheaf_capacity ?:
				    sheaf_default_capacity(s->stride);
	if (!slabx_meta_fail())
		s->name = kstrdup_const(name, GFP_KERNEL);
	if (!slabx_meta_fail())
		s->stats = alloc_percpu(struct slabx_stats);
	if (!s->name || !s->stats || cache_alloc_nodes(s) || sheaves_init(s) ||
	    (args->pool_objects &&
	     slabx_pool_cache_init(s, args->pool_objects))) {
		cache_free(s);
		return NULL;
	}
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
 * Return: the cache, or ERR_PTR(-EINVAL) for a bad name, size, alignment or
 * flag, ERR_PTR(-EEXIST) when a cache of that name exists, ERR_PTR(-ENOMEM).
 */
struct slabx_cache *slabx_cache_create(const char *name, unsigned int size,
				       const struct slabx_cache_args *args)
{
	static const struct slabx_cache_args no_args;
	struct slabx_cache *s;
	int err;

	might_sleep();
	if (!args)
		args = &no_args;
	err = check_create_args(name, size, args);
	if (err)
		return ERR_PTR(err);

	s = cache_new(name, size, args);
	if (!s)
		return ERR_PTR(-ENOMEM);

	mutex_lock(&slabx_caches_mutex);
	if (cache_find(name)) {
		mutex_unlock(&slabx_caches_mutex);
		pr_warn("cache %s already exists\n", name);
		cache_free(s);
		return ERR_PTR(-EEXIST);
	}
	list_add_tail(&s->list, &slabx_caches);
	slabx_debugfs_add_cache(s);
	mutex_unlock(&slabx_caches_mutex);
	return s;
}
EXPORT_SYMBOL_GPL(slabx_cache_create);

/*
 * Free every empty slab of @s. Return: objects still allocated; with
 * @released, the objects of the slabs freed.
 */
static unsigned long cache_release_slabs(struct slabx_cache *s,
					 unsigned long *released)
{
	unsigned long inuse = 0, freed = 0;
	int nid;

	for_each_node(nid) {
		struct slabx_node *n = s->node[nid];
		unsigned long flags;
		LIST_HEAD(discard);

		raw_spin_lock_irqsave(&n->lock, flags);
		list_splice_init(&n->empty, &discard);
		freed += n->nr_empty * s->objs_per_slab;
		n->nr_slabs -= n->nr_empty;
		n->free_objs -= n->nr_empty * s->objs_per_slab;
		n->nr_empty = 0;
		inuse += n->nr_slabs * s->objs_per_slab - n->free_objs;
		raw_spin_unlock_irqrestore(&n->lock, flags);
		slabx_slab_discard_list(s, &discard);
	}
	if (released)
		*released = freed;
	return inuse;
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
	sheaves_flush_all(s);
	cache_release_slabs(s, NULL);
}
EXPORT_SYMBOL_GPL(slabx_cache_shrink);

/*
 * Mark @s dead if it is a live cache. Return: false (reported) for a
 * pointer that is not one: never created, or destroyed already.
 */
static bool cache_kill(struct slabx_cache *s)
{
	struct slabx_cache *c;
	bool live = false;

	mutex_lock(&slabx_caches_mutex);
	/* Compare pointers only: a destroyed cache may be freed memory. */
	list_for_each_entry(c, &slabx_caches, list)
		if (c == s && !c->dead) {
			WRITE_ONCE(s->dead, true);
			live = true;
			break;
		}
	mutex_unlock(&slabx_caches_mutex);
	WARN_ONCE(!live, "slabx: destroy of %p, not a live cache\n", s);
	return live;
}

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
 * slabx module is unloaded; nothing else may be called on @s once destroy
 * has started, nor concurrently with it: an allocation, slabx_free_rcu(),
 * a nolock call or a second destroy is refused with a warning. Needs no
 * work from the system workqueues, so it may run in a work item of a
 * %WQ_MEM_RECLAIM workqueue.
 *
 * Context: process context, may sleep.
 * Return: 0, -EBUSY when objects were leaked, -EINVAL (with a warning) when
 * @s is not a live cache.
 */
int slabx_cache_destroy(struct slabx_cache *s)
{
	unsigned long leaked;

	if (!s)
		return 0;
	might_sleep();
	if (!cache_kill(s))
		return -EINVAL;
	slabx_nolock_cache_destroy(s);
	slabx_rcu_barrier(s);
	/* Unlisted, it is no longer reached by CPU hotplug and the shrinker. */
	mutex_lock(&slabx_caches_mutex);
	list_del(&s->list);
	slabx_debugfs_remove_cache(s);
	mutex_unlock(&slabx_caches_mutex);
	sheaves_destroy(s);
	leaked = cache_release_slabs(s, NULL) + pool_outstanding(s);
	if (leaked) {
		mutex_lock(&slabx_caches_mutex);
		list_add(&s->list, &slabx_zombies);
		mutex_unlock(&slabx_caches_mutex);
		pr_err("cache %s destroyed with %lu objects still allocated; their slabs are kept\n",
		       s->name, leaked);
		return -EBUSY;
	}
	/* A free that returned the last object may still be counting it. */
	synchronize_rcu();
	cache_free(s);
	return 0;
}
EXPORT_SYMBOL_GPL(slabx_cache_destroy);

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
		rcu_free_flush_cpu(s, cpu);
		sheaves_flush_cpu(s, cpu);
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
		freed += sheaves_flush_barns(s);
		cache_release_slabs(s, &released);
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
EXPORT_SYMBOL_GPL(slabx_shrink_all);

static int __init slabx_shrinker_init(void)
{
	slabx_shrinker = shrinker_alloc(0, "slabx");
	if (!slabx_shrinker)
		return -ENOMEM;
	slabx_shrinker->count_objects = slabx_shrink_count;
	slabx_shrinker->scan_objects = slabx_shrink_scan;
	shrinker_register(slabx_shrinker);
	return 0;
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
	return 0;
fail_nolock:
	shrinker_free(slabx_shrinker);
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

	slabx_debugfs_exit();
	shrinker_free(slabx_shrinker);
	cpuhp_remove_state_nocalls(slabx_cpuhp_state);
	/*
	 * slabx_free_rcu() of leaked objects of zombies: wait for their
	 * batches (whose callback may queue itself again), then for the
	 * callbacks to return.
	 */
	list_for_each_entry(s, &slabx_zombies, list)
		slabx_rcu_barrier(s);
	rcu_barrier();
	list_for_each_entry_safe(s, tmp, &slabx_zombies, list) {
		unsigned long leaked = cache_release_slabs(s, NULL) +
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
	slabx_nolock_pages_exit();
	destroy_workqueue(slabx_wq);
}

module_init(slabx_init);
module_exit(slabx_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("slabx: sheaves, barns and any-context object caches");

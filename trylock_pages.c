// SPDX-License-Identifier: GPL-2.0
/*
 * slabx page provider.
 *
 * Every slab slabx builds comes from here. The normal path is the kernel's
 * page allocator with the caller's gfp; the any-context trylock path (a
 * per-CPU stash and a per-node reserve) is below.
 *
 * Locking: the normal path takes none (the page allocator does its own);
 * see the any-context path's comment for its lock.
 */
#include <linux/atomic.h>
#include <linux/gfp.h>
#include <linux/irq_work.h>
#include <linux/llist.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "slabx_internal.h"
/* The SLABX_TEST hooks defined or used here. */
#include "tests/slabx_test_hooks.h"

static atomic_long_t slabx_pages_in_use = ATOMIC_LONG_INIT(0);
/* Page allocations left to fail: 0 none, negative all (fault injection). */
static atomic_t slabx_pages_fail = ATOMIC_INIT(0);

/**
 * slabx_fault_inject_pages() - make slab page allocations fail, for tests
 * @nr: fail the next @nr allocations of slab pages; a negative @nr fails
 *	every one until the next call, 0 stops failing.
 */
void slabx_fault_inject_pages(int nr)
{
	atomic_set(&slabx_pages_fail, nr);
}
EXPORT_SYMBOL_NS_GPL(slabx_fault_inject_pages, SLABX_TEST);

/**
 * slabx_fault_injected_pages() - the fault injection setting
 *
 * Return: what slabx_fault_inject_pages() set, less the failures since.
 */
int slabx_fault_injected_pages(void)
{
	return atomic_read(&slabx_pages_fail);
}

/*
 * Allocation bits that the provider decides on itself: pages are never
 * handed out zeroed here (objects are zeroed one by one when asked), and
 * a block of order > 0 is always a compound page, as a large kmalloc()
 * block is: code that takes a slab for one (kfree() or ksize() of an
 * object, a hardened usercopy check) meets its head page and its order,
 * never a tail page taken for a page of its own. slabx uses no field of
 * the pages either way (a slab's header is in the block).
 */
#define SLABX_PAGE_GFP_MASK	(~__GFP_ZERO)

/**
 * slabx_pages_alloc() - get a 2^order block for a new slab
 * @nid: preferred node, or NUMA_NO_NODE for the local one.
 * @gfp: the allocation context of the caller.
 * @order: block order.
 *
 * Return: the first page of the block, or NULL.
 */
struct page *slabx_pages_alloc(int nid, gfp_t gfp, unsigned int order)
{
	struct page *page;

	if (slabx_fault_hit(&slabx_pages_fail))
		return NULL;
	page = alloc_pages_node(nid, (gfp & SLABX_PAGE_GFP_MASK) | __GFP_COMP |
				__GFP_NOWARN, order);
	if (page)
		atomic_long_add(1UL << order, &slabx_pages_in_use);
	return page;
}

/**
 * slabx_pages_free() - give a slab's block back to the page allocator
 * @page: first page, as returned by slabx_pages_alloc().
 * @order: the order it was allocated with.
 */
void slabx_pages_free(struct page *page, unsigned int order)
{
	atomic_long_sub(1UL << order, &slabx_pages_in_use);
	__free_pages(page, order);
}

/**
 * slabx_pages_account() - count slab pages that came from elsewhere
 * @order: block order.
 * @nr: blocks, 1 when a slab is made of a block of the any-context path,
 *	-1 when it goes back there.
 */
void slabx_pages_account(unsigned int order, long nr)
{
	atomic_long_add(nr * (1L << order), &slabx_pages_in_use);
}

/**
 * slabx_pages_held() - pages that slabx holds from the page allocator
 *
 * Return: the number of pages, over all caches and nodes.
 */
unsigned long slabx_pages_held(void)
{
	return atomic_long_read(&slabx_pages_in_use);
}

/* ---- the any-context page path ---------------------------------------------- */

/*
 * slabx_try_alloc_pages() and slabx_free_pages_nolock() never spin on a
 * lock and never sleep, so they may run anywhere: NMI, hard IRQ, under a
 * raw spinlock, re-entered from slabx itself. The 6.12 page allocator
 * cannot be entered that way (zone->lock is a spinning lock), so slabx
 * keeps its own pages:
 *
 *  - a per-CPU stash of order-0 pages, used with IRQs off under a per-CPU
 *    busy flag: an NMI that finds the flag set skips the stash;
 *  - a per-node reserve of blocks of each order up to
 *    PAGE_ALLOC_COSTLY_ORDER, under a raw spinlock that these paths only
 *    ever trylock: a busy lock fails the call (counted), it never waits.
 *
 * When a reserve falls below its low watermark, an irq_work (which may be
 * queued from any context, NMI included) queues a work item that refills
 * every reserve up to the high watermark with GFP_KERNEL. A free that can
 * take neither the stash nor the reserve lock goes onto a lock-free llist,
 * drained by the same work item. Pages are zeroed when handed out.
 *
 * Lock order: nolock_reserve.lock is a leaf; the refill worker takes it
 * normally (IRQs saved), the any-context paths only with trylock.
 */

#define NOLOCK_ORDERS		(PAGE_ALLOC_COSTLY_ORDER + 1)
#define NOLOCK_STASH		8
#define NOLOCK_WMARK_MAX	256

struct nolock_stash {
	bool busy;
	unsigned int nr;
	struct page *pages[NOLOCK_STASH];
};

struct nolock_reserve {
	raw_spinlock_t lock;
	struct list_head blocks[NOLOCK_ORDERS];
	unsigned int nr[NOLOCK_ORDERS];
};

/* A deferred free, written into the freed block itself. */
struct nolock_deferred {
	struct llist_node node;
	unsigned int order;
};

static const char * const nolock_stat_names[SLABX_NOLOCK_PAGES_COUNTERS] = {
	[SLABX_NOLOCK_PAGES_STASH_HIT]	= "stash_hit",
	[SLABX_NOLOCK_PAGES_RESERVE_HIT]	= "reserve_hit",
	[SLABX_NOLOCK_PAGES_TRYLOCK_FAIL]	= "trylock_fail",
	[SLABX_NOLOCK_PAGES_ALLOC_FAIL]	= "alloc_fail",
	[SLABX_NOLOCK_PAGES_REFILLED]	= "refilled",
	[SLABX_NOLOCK_PAGES_DEFERRED]	= "deferred",
	[SLABX_NOLOCK_PAGES_DRAINED]	= "drained",
};

static DEFINE_PER_CPU(struct nolock_stash, nolock_stash);
static struct nolock_reserve **nolock_reserve;
static atomic_long_t nolock_stats[SLABX_NOLOCK_PAGES_COUNTERS];
static LLIST_HEAD(nolock_deferred);
/* Watermarks, in blocks of order 0; order o keeps max(1, w >> o). */
static unsigned int nolock_low = 16, nolock_high = 64;

static void nolock_refill_fn(struct work_struct *work);
static DECLARE_WORK(nolock_refill_work, nolock_refill_fn);

static void nolock_kick_fn(struct irq_work *work)
{
	queue_work(system_unbound_wq, &nolock_refill_work);
}

static struct irq_work nolock_kick = IRQ_WORK_INIT_HARD(nolock_kick_fn);

static void nolock_count(enum slabx_nolock_pages_item item)
{
	atomic_long_inc(&nolock_stats[item]);
}

static unsigned int wmark(unsigned int w, unsigned int order)
{
	return max(1U, w >> order);
}

static void nolock_zero(struct page *page, unsigned int order)
{
	memset(page_address(page), 0, PAGE_SIZE << order);
}

/* Pop an order-0 page from this CPU's stash; IRQs are off. */
static struct page *stash_pop(void)
{
	struct nolock_stash *st = this_cpu_ptr(&nolock_stash);
	struct page *page = NULL;

	if (READ_ONCE(st->busy))
		return NULL;
	WRITE_ONCE(st->busy, true);
	barrier();
	if (st->nr)
		page = st->pages[--st->nr];
	barrier();
	WRITE_ONCE(st->busy, false);
	return page;
}

/* Push an order-0 page into this CPU's stash; IRQs are off. */
static bool stash_push(struct page *page)
{
	struct nolock_stash *st = this_cpu_ptr(&nolock_stash);
	bool done = false;

	if (READ_ONCE(st->busy))
		return false;
	WRITE_ONCE(st->busy, true);
	barrier();
	if (st->nr < NOLOCK_STASH) {
		st->pages[st->nr++] = page;
		done = true;
	}
	barrier();
	WRITE_ONCE(st->busy, false);
	return done;
}

/* Take a block from node @nid's reserve, with trylock only. */
static struct page *reserve_pop(int nid, unsigned int order)
{
	struct nolock_reserve *r = nolock_reserve[nid];
	struct page *page;
	unsigned long flags;
	bool low;

	if (!raw_spin_trylock_irqsave(&r->lock, flags)) {
		nolock_count(SLABX_NOLOCK_PAGES_TRYLOCK_FAIL);
		return NULL;
	}
	page = list_first_entry_or_null(&r->blocks[order], struct page, lru);
	if (page) {
		list_del(&page->lru);
		r->nr[order]--;
	}
	low = r->nr[order] < wmark(READ_ONCE(nolock_low), order);
	raw_spin_unlock_irqrestore(&r->lock, flags);
	if (low)
		irq_work_queue(&nolock_kick);
	return page;
}

/*
 * Whether a block given back may be handed out again: nobody else holds
 * it (a put of the slab that it was, say) and, of order > 0, it is a
 * compound page as the slabs' blocks are. Any other goes to the page
 * allocator (with the put of its last holder).
 */
static bool nolock_reusable(struct page *page, unsigned int order)
{
	return page_ref_count(page) == 1 && (!order || PageHead(page));
}

/* Keep a block in a reserve below its high watermark (r->lock held). */
static bool reserve_keep(struct nolock_reserve *r, struct page *page,
			 unsigned int order)
{
	if (r->nr[order] >= wmark(READ_ONCE(nolock_high), order) ||
	    !nolock_reusable(page, order))
		return false;
	list_add(&page->lru, &r->blocks[order]);
	r->nr[order]++;
	return true;
}

/* Give a block back to node @nid's reserve, with trylock only. */
static bool reserve_push(int nid, struct page *page, unsigned int order)
{
	struct nolock_reserve *r = nolock_reserve[nid];
	unsigned long flags;
	bool done;

	if (!raw_spin_trylock_irqsave(&r->lock, flags)) {
		nolock_count(SLABX_NOLOCK_PAGES_TRYLOCK_FAIL);
		return false;
	}
	done = reserve_keep(r, page, order);
	raw_spin_unlock_irqrestore(&r->lock, flags);
	return done;
}

static bool nolock_args_valid(int *nid, unsigned int order)
{
	if (*nid == NUMA_NO_NODE)
		*nid = numa_mem_id();
	return order < NOLOCK_ORDERS && *nid >= 0 && *nid < nr_node_ids &&
	       node_possible(*nid) && nolock_reserve;
}

/*
 * Kernels from 6.15 have a trylock-only page allocator of their own:
 * slabx uses it first there, and gives every block back through it. Kbuild
 * finds it in <linux/gfp.h> (SLABX_ALLOC_PAGES_NOLOCK: 2 for 6.15's
 * (nid, order), 3 for the later (gfp, nid, order)); the 6.12 build does not
 * have it. Not compiled here, where only 6.12 exists.
 */
#ifdef SLABX_ALLOC_PAGES_NOLOCK
#define SLABX_KERNEL_NOLOCK	1
static struct page *kernel_alloc_pages_nolock(int nid, unsigned int order)
{
#if SLABX_ALLOC_PAGES_NOLOCK == 3
	return alloc_pages_nolock(0, nid, order);
#else
	return alloc_pages_nolock(nid, order);
#endif
}
#else
#define SLABX_KERNEL_NOLOCK	0
static struct page *kernel_alloc_pages_nolock(int nid, unsigned int order)
{
	return NULL;
}

static void free_pages_nolock(struct page *page, unsigned int order)
{
}
#endif

/**
 * slabx_try_alloc_pages() - allocate pages from any context, best effort
 * @nid: node, or %NUMA_NO_NODE for the local one.
 * @order: block order, up to %PAGE_ALLOC_COSTLY_ORDER.
 *
 * Never spins on a lock and never sleeps: takes an order-0 page from this
 * CPU's stash, else a block from @nid's reserve if its lock is free. Fails
 * fast, without a warning, when neither can give one, and for a larger
 * order or an impossible node. A reserve below its low watermark is
 * refilled soon after from a safe context.
 *
 * Context: any context, NMI included (on PREEMPT_RT not in NMI or hard
 * IRQ, where it returns NULL).
 * Return: a zeroed block of 2^@order pages (a compound page when @order is
 * above 0), for slabx_free_pages_nolock() or __free_pages(); or NULL.
 */
struct page *slabx_try_alloc_pages(int nid, unsigned int order)
{
	struct page *page = NULL;
	unsigned long flags;

	if (IS_ENABLED(CONFIG_PREEMPT_RT) && (in_nmi() || in_hardirq()))
		return NULL;
	if (!nolock_args_valid(&nid, order))
		return NULL;
	if (SLABX_KERNEL_NOLOCK) {
		page = kernel_alloc_pages_nolock(nid, order);	/* zeroed */
		if (page)
			return page;
	}
	if (!order && nid == numa_mem_id()) {
		local_irq_save(flags);
		page = stash_pop();
		local_irq_restore(flags);
		if (page)
			nolock_count(SLABX_NOLOCK_PAGES_STASH_HIT);
	}
	if (!page) {
		page = reserve_pop(nid, order);
		if (page)
			nolock_count(SLABX_NOLOCK_PAGES_RESERVE_HIT);
	}
	if (!page) {
		nolock_count(SLABX_NOLOCK_PAGES_ALLOC_FAIL);
		return NULL;
	}
	nolock_zero(page, order);
	return page;
}
EXPORT_SYMBOL_GPL(slabx_try_alloc_pages);

/**
 * slabx_free_pages_nolock() - free pages from any context
 * @page: a block of 2^@order pages from slabx_try_alloc_pages() or the page
 *	allocator (compound or not: only compound ones are handed out again).
 * @order: its order, any order the page allocator gives.
 *
 * Never fails and never spins: a block of an order the reserves keep (up
 * to %PAGE_ALLOC_COSTLY_ORDER) goes to this CPU's stash or its node's
 * reserve when they are free and have room; any other block goes onto a
 * lock-free list that a work item drains soon after (into the reserve or
 * the page allocator).
 *
 * Context: any context, NMI included.
 */
void slabx_free_pages_nolock(struct page *page, unsigned int order)
{
	struct nolock_deferred *d;
	unsigned long flags;
	bool done = false;
	int nid;

	if (SLABX_KERNEL_NOLOCK) {
		free_pages_nolock(page, order);
		return;
	}
	nid = page_to_nid(page);
	if (!order && nid == numa_mem_id() && nolock_reusable(page, order)) {
		local_irq_save(flags);
		done = stash_push(page);
		local_irq_restore(flags);
	}
	if (!done && nolock_reserve && order < NOLOCK_ORDERS)
		done = reserve_push(nid, page, order);
	if (done)
		return;
	d = page_address(page);
	d->order = order;
	llist_add(&d->node, &nolock_deferred);
	nolock_count(SLABX_NOLOCK_PAGES_DEFERRED);
	irq_work_queue(&nolock_kick);
}
EXPORT_SYMBOL_GPL(slabx_free_pages_nolock);

/* Worker: take the deferred frees, into the reserves or the allocator. */
static void nolock_drain(void)
{
	struct llist_node *list = llist_del_all(&nolock_deferred);
	struct nolock_deferred *d, *tmp;

	llist_for_each_entry_safe(d, tmp, list, node) {
		struct page *page = virt_to_page(d);
		unsigned int order = d->order;
		struct nolock_reserve *r = nolock_reserve[page_to_nid(page)];
		unsigned long flags;
		bool kept = false;

		if (order < NOLOCK_ORDERS) {
			raw_spin_lock_irqsave(&r->lock, flags);
			kept = reserve_keep(r, page, order);
			raw_spin_unlock_irqrestore(&r->lock, flags);
		}
		if (!kept)
			__free_pages(page, order);
		nolock_count(SLABX_NOLOCK_PAGES_DRAINED);
	}
}

/* Worker: fill one reserve of one order up to the high watermark. */
static void nolock_refill(int nid, unsigned int order)
{
	struct nolock_reserve *r = nolock_reserve[nid];
	unsigned int high = wmark(READ_ONCE(nolock_high), order);
	unsigned int added = 0;
	unsigned long flags;

	while (READ_ONCE(r->nr[order]) < high) {
		struct page *page;

		page = alloc_pages_node(nid, GFP_KERNEL | __GFP_THISNODE |
					__GFP_COMP | __GFP_NOWARN, order);
		if (!page)
			break;
		raw_spin_lock_irqsave(&r->lock, flags);
		list_add(&page->lru, &r->blocks[order]);
		r->nr[order]++;
		raw_spin_unlock_irqrestore(&r->lock, flags);
		nolock_count(SLABX_NOLOCK_PAGES_REFILLED);
		added++;
	}
	if (added)
		trace_slabx_nolock_reserve_refill(nid, order, added);
}

static void nolock_refill_fn(struct work_struct *work)
{
	unsigned int order;
	int nid;

	nolock_drain();
	for_each_node_state(nid, N_MEMORY)
		for (order = 0; order < NOLOCK_ORDERS; order++)
			nolock_refill(nid, order);
}

/**
 * slabx_nolock_pages_init() - set up and fill the reserves
 *
 * Return: 0 or -ENOMEM.
 */
int slabx_nolock_pages_init(void)
{
	unsigned int order;
	int nid;

	nolock_reserve = kcalloc(nr_node_ids, sizeof(*nolock_reserve),
				 GFP_KERNEL);
	if (!nolock_reserve)
		return -ENOMEM;
	for_each_node(nid) {
		struct nolock_reserve *r = kzalloc(sizeof(*r), GFP_KERNEL);

		if (!r)
			goto fail;
		raw_spin_lock_init(&r->lock);
		for (order = 0; order < NOLOCK_ORDERS; order++)
			INIT_LIST_HEAD(&r->blocks[order]);
		nolock_reserve[nid] = r;
	}
	nolock_refill_fn(NULL);
	return 0;
fail:
	slabx_nolock_pages_exit();
	return -ENOMEM;
}

/**
 * slabx_nolock_pages_exit() - give every reserved and stashed page back
 *
 * Context: module exit; nothing uses the any-context paths any more.
 */
void slabx_nolock_pages_exit(void)
{
	struct page *page, *tmp;
	unsigned int order;
	int nid, cpu;

	if (!nolock_reserve)
		return;
	irq_work_sync(&nolock_kick);
	cancel_work_sync(&nolock_refill_work);
	WRITE_ONCE(nolock_high, 0);	/* the drain frees everything */
	nolock_drain();
	for_each_possible_cpu(cpu) {
		struct nolock_stash *st = per_cpu_ptr(&nolock_stash, cpu);

		while (st->nr)
			__free_page(st->pages[--st->nr]);
	}
	for_each_node(nid) {
		struct nolock_reserve *r = nolock_reserve[nid];

		if (!r)
			continue;
		for (order = 0; order < NOLOCK_ORDERS; order++)
			list_for_each_entry_safe(page, tmp, &r->blocks[order],
						 lru)
				__free_pages(page, order);
		kfree(r);
	}
	kfree(nolock_reserve);
	nolock_reserve = NULL;
}

/**
 * slabx_nolock_pages_show() - the any-context page path's figures
 * @m: debugfs file.
 */
void slabx_nolock_pages_show(struct seq_file *m)
{
	unsigned int order;
	int i, nid;

	for (i = 0; i < SLABX_NOLOCK_PAGES_COUNTERS; i++)
		seq_printf(m, "%s %ld\n", nolock_stat_names[i],
			   atomic_long_read(&nolock_stats[i]));
	seq_printf(m, "deferred_pending %ld\n",
		   atomic_long_read(&nolock_stats[SLABX_NOLOCK_PAGES_DEFERRED]) -
		   atomic_long_read(&nolock_stats[SLABX_NOLOCK_PAGES_DRAINED]));
	seq_printf(m, "low %u\nhigh %u\n", READ_ONCE(nolock_low),
		   READ_ONCE(nolock_high));
	for_each_node(nid) {
		seq_printf(m, "reserve%d", nid);
		for (order = 0; order < NOLOCK_ORDERS; order++)
			seq_printf(m, " order%u=%u", order,
				   READ_ONCE(nolock_reserve[nid]->nr[order]));
		seq_putc(m, '\n');
	}
}

/**
 * slabx_nolock_set_watermarks() - tune the reserves
 * @low: refill below this many order-0 blocks (order o: low >> o, >= 1).
 * @high: refill up to this many, at most %NOLOCK_WMARK_MAX.
 *
 * Return: 0, or -EINVAL (with a pr_warn) unless 1 <= @low <= @high <= 256.
 */
int slabx_nolock_set_watermarks(unsigned int low, unsigned int high)
{
	if (!low || low > high || high > NOLOCK_WMARK_MAX) {
		pr_warn("slabx: reserve watermarks %u/%u refused (1 <= low <= high <= %u)\n",
			low, high, NOLOCK_WMARK_MAX);
		return -EINVAL;
	}
	WRITE_ONCE(nolock_low, low);
	WRITE_ONCE(nolock_high, high);
	queue_work(system_unbound_wq, &nolock_refill_work);
	return 0;
}
EXPORT_SYMBOL_GPL(slabx_nolock_set_watermarks);

/**
 * slabx_nolock_pages_stat() - one figure of the any-context page path
 * @item: which; the counters are also shown in debugfs (nolock_pages).
 *
 * For tests and tools.
 *
 * Return: the value, or -1 (with a warning) for an unknown @item.
 */
long slabx_nolock_pages_stat(enum slabx_nolock_pages_item item)
{
	unsigned int order;
	long sum = 0;
	int nid;

	switch (item) {
	case SLABX_NOLOCK_PAGES_RESERVE:
		for_each_node(nid)
			for (order = 0; order < NOLOCK_ORDERS; order++)
				sum += READ_ONCE(nolock_reserve[nid]->nr[order]);
		return sum;
	case SLABX_NOLOCK_PAGES_DEFERRED_PENDING:
		return atomic_long_read(&nolock_stats[SLABX_NOLOCK_PAGES_DEFERRED]) -
		       atomic_long_read(&nolock_stats[SLABX_NOLOCK_PAGES_DRAINED]);
	default:
		if (WARN_ON_ONCE((unsigned int)item >= SLABX_NOLOCK_PAGES_COUNTERS))
			return -1;
		return atomic_long_read(&nolock_stats[item]);
	}
}
EXPORT_SYMBOL_GPL(slabx_nolock_pages_stat);

/**
 * slabx_nolock_test_block() - hold the any-context paths' locks, for tests
 *
 * Takes this CPU's stash flag and the local node's reserve lock, as an
 * interrupted user of the paths would hold them; slabx_nolock_test_unblock()
 * releases both.
 *
 * Context: the caller keeps IRQs off (and stays on this CPU) until
 * slabx_nolock_test_unblock().
 */
void slabx_nolock_test_block(void)
	__acquires(nolock_reserve_lock)
{
	WRITE_ONCE(this_cpu_ptr(&nolock_stash)->busy, true);
	raw_spin_lock(&nolock_reserve[numa_mem_id()]->lock);
}
EXPORT_SYMBOL_NS_GPL(slabx_nolock_test_block, SLABX_TEST);

/**
 * slabx_nolock_test_unblock() - release what slabx_nolock_test_block() took
 */
void slabx_nolock_test_unblock(void)
	__releases(nolock_reserve_lock)
{
	raw_spin_unlock(&nolock_reserve[numa_mem_id()]->lock);
	WRITE_ONCE(this_cpu_ptr(&nolock_stash)->busy, false);
}
EXPORT_SYMBOL_NS_GPL(slabx_nolock_test_unblock, SLABX_TEST);

// SPDX-License-Identifier: GPL-2.0
/*
 * slabx slab layer: slabs carved into objects, per-node slab lists.
 *
 * A cache keeps, for every possible NUMA node, the slabs whose pages came
 * from that node: partially used slabs on a partial list, a few fully free
 * slabs on an empty list, and full slabs on no list at all. Objects are
 * carved from 2^order page blocks; a free object stores the next free object
 * of its slab (after the object when the cache has a constructor, so that a
 * constructed object keeps its state across free and reuse). Every slab
 * starts with a header (struct slabx_slab) found from an object's address
 * alone (slabx_addr_to_slab()), so no struct page field is used.
 *
 * Takes and puts move many objects in one lock hold; the try variants are
 * for the any-context paths and only ever trylock. Objects freed by
 * slabx_free_rcu() may wait in their slab (pending bits in the header, see
 * rcu_free.c), still counted as in use.
 *
 * Lock order: slabx_node->lock is a leaf (raw, IRQs saved). No page is
 * allocated or freed with it held: slabs that become free are collected on
 * a discard list and freed after unlocking (slabx_slab_discard_list()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/cache.h>
#include <linux/gfp.h>
#include <linux/hash.h>
#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/topology.h>
#include <linux/vmstat.h>

#include "slabx_internal.h"

/* Objects put back into their slabs in one hold of a node lock, at most. */
#define SLABX_RELEASE_RUN	64

/* ---- object and slab geometry ------------------------------------------ */

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

/**
 * slabx_cache_set_geometry() - lay out a new cache's objects and slabs
 * @s: the cache, with its flags and constructor set.
 * @size: object size.
 * @align: alignment asked for, 0 for the natural one.
 */
void slabx_cache_set_geometry(struct slabx_cache *s, unsigned int size,
			      unsigned int align)
{
	unsigned int payload = max_t(unsigned int, size, sizeof(void *));

	if (s->flags & SLABX_HWCACHE_ALIGN)
		align = max_t(unsigned int, align, cache_line_size());
	align = max_t(unsigned int, align, sizeof(void *));

	s->object_size = size;
	s->align = align;
	s->keeps_contents = s->ctor || (s->flags & SLABX_TYPESAFE_BY_RCU);
	if (s->keeps_contents) {
		/* Keep the object's contents intact: link after it. */
		s->fp_offset = ALIGN(size, sizeof(void *));
		payload = s->fp_offset + sizeof(void *);
	} else {
		s->fp_offset = 0;
	}
	/* Under KASAN every object is followed by a poisoned redzone. */
	payload = max_t(unsigned int, payload,
			ALIGN(size, sizeof(void *)) + SLABX_KASAN_MIN_REDZONE);
	s->stride = ALIGN(payload, align);
	s->stride_recip = reciprocal_value(s->stride);
	s->stride_mask = is_power_of_2(s->stride) ? s->stride - 1 : 0;
	s->order = s->flags & SLABX_KMALLOC_CLASS ? SLABX_KMALLOC_ORDER :
		   slab_order(s->stride, align);
	s->first_offset = slab_first_offset(PAGE_SIZE << s->order, s->stride,
					    align);
	s->objs_per_slab = ((PAGE_SIZE << s->order) - s->first_offset) /
			   s->stride;
	s->objs_span = s->objs_per_slab * s->stride;
	s->rcu_bitmap_longs = BITS_TO_LONGS(s->objs_per_slab);
}

/**
 * slabx_cache_init_freelist() - draw a new cache's freelist secrets
 * @s: the cache, with its geometry set.
 *
 * With %CONFIG_SLAB_FREELIST_HARDENED, the value mixed into its free
 * pointers; with %CONFIG_SLAB_FREELIST_RANDOM, the order in which new slabs
 * link their objects (a random permutation, freed by
 * slabx_cache_free_freelist()).
 *
 * Return: 0 or -ENOMEM.
 */
int slabx_cache_init_freelist(struct slabx_cache *s)
{
	unsigned int i, n = s->objs_per_slab;

#ifdef CONFIG_SLAB_FREELIST_HARDENED
	s->fp_random = get_random_long();
#endif
	if (!IS_ENABLED(CONFIG_SLAB_FREELIST_RANDOM))
		return 0;
	s->random_salt = get_random_long();
	if (!slabx_meta_fail())
		s->random_seq = kcalloc(n, sizeof(*s->random_seq), GFP_KERNEL);
	if (!s->random_seq)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		s->random_seq[i] = i;
	for (i = n - 1; i > 0; i--) {
		unsigned int j = get_random_u32_below(i + 1);

		swap(s->random_seq[i], s->random_seq[j]);
	}
	return 0;
}

/**
 * slabx_cache_free_freelist() - free what slabx_cache_init_freelist() took
 * @s: the cache.
 */
void slabx_cache_free_freelist(struct slabx_cache *s)
{
	kfree(s->random_seq);
}

/* ---- slabs ----------------------------------------------------------------- */

/*
 * Construct and poison every object of a new slab, then link them: in
 * address order, or with %CONFIG_SLAB_FREELIST_RANDOM along the cache's
 * permutation from a start that differs per slab. The start is derived
 * from the slab's address and the cache's secret, not drawn from the RNG,
 * which is not NMI-safe.
 */
static void slab_build_freelist(struct slabx_cache *s, struct slabx_slab *slab)
{
	unsigned int i, n = s->objs_per_slab, start = 0;
	void *obj, *prev = NULL;

	for (i = 0; i < n; i++) {
		obj = slabx_slab_obj(s, slab, i);
		if (s->ctor)
			s->ctor(obj);
		slabx_kasan_poison_new(s, obj);
	}
	if (s->random_seq)
		start = hash_long((unsigned long)slab ^ s->random_salt, 32) % n;
	for (i = n; i-- > 0; prev = obj) {
		unsigned int idx = s->random_seq ?
				   s->random_seq[(start + i) % n] : i;

		obj = slabx_slab_obj(s, slab, idx);
		slabx_fp_set(s, obj, prev);
	}
	slab->freelist = prev;
}

/*
 * Slab pages count as the node's unreclaimable slab memory, as SLUB's do
 * (/proc/meminfo Slab: and SUnreclaim:). mod_node_page_state() is safe in
 * any context but NMI: there it could race with a non-atomic update
 * (__mod_node_page_state()) of the code it interrupted. An NMI's delta
 * waits in a per-node atomic, applied by an irq_work soon after.
 */
static atomic_long_t slab_account_pending[MAX_NUMNODES];

static void slab_account_apply(struct irq_work *work)
{
	int nid;

	for_each_node(nid) {
		long delta = atomic_long_xchg(&slab_account_pending[nid], 0);

		if (delta)
			mod_node_page_state(NODE_DATA(nid),
					    NR_SLAB_UNRECLAIMABLE_B, delta);
	}
}

static struct irq_work slab_account_work =
	IRQ_WORK_INIT_HARD(slab_account_apply);

static void slab_account(struct slabx_slab *slab, unsigned int order, int sign)
{
	long delta = sign * (long)(PAGE_SIZE << order);

	if (in_nmi()) {
		atomic_long_add(delta, &slab_account_pending[slab->nid]);
		irq_work_queue(&slab_account_work);
		return;
	}
	mod_node_page_state(NODE_DATA(slab->nid), NR_SLAB_UNRECLAIMABLE_B,
			    delta);
}

/**
 * slabx_slab_account_exit() - apply what NMIs left to account
 *
 * Context: module exit, after the last slab was freed.
 */
void slabx_slab_account_exit(void)
{
	irq_work_sync(&slab_account_work);
	slab_account_apply(NULL);
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

/*
 * A slab's block holds two references on its (head) page: the page
 * allocator's and the slab's own, taken in slab_init(). Code that does
 * not know slabx takes the block for a large kmalloc one: kfree() of an
 * object of it puts the page (and takes the block off the node's slab
 * memory). The slab's reference keeps that put from freeing a live slab;
 * slab_retire() finds it missing. A block of order > 0 is a compound page
 * (see slabx_pages_alloc()), so that the put meets the head page, and a
 * hardened usercopy check bounds a copy to the block.
 */
#define SLAB_PAGE_REFS	2

static struct page *slab_page(struct slabx_slab *slab)
{
	return virt_to_page(slabx_slab_base(slab));
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
	page_ref_inc(page);
	slab_account(slab, s->order, 1);
	slabx_stat_inc(s, SLABX_SLAB_NEW);
	return slab;
}

/*
 * Whether @slab's page still holds the slab's references. A reference
 * missing is reported, with the cache's name, and counted in free_invalid;
 * one that a kfree() put is taken again, and the slab memory that kfree()
 * took off the node's count is counted again, so that the slab is found
 * whole next time and its block goes back as any other. More references
 * are no misuse: code that took one (get_page() of a page it sends, say)
 * frees the block with its put.
 * Return: false when more than one is missing: the block was freed under
 * the slab, and it must be left alone.
 */
static bool slab_refs_mend(struct slabx_cache *s, struct slabx_slab *slab)
{
	struct page *page = slab_page(slab);
	int refs = page_ref_count(page);

	if (likely(refs >= SLAB_PAGE_REFS))
		return true;
	slabx_stat_inc(s, SLABX_FREE_INVALID);
	slabx_report(s,
		     "slabx: %s: slab %p lost %d of its %d page references: an object of it given to kfree()?\n",
		     s->name, slab, SLAB_PAGE_REFS - refs, SLAB_PAGE_REFS);
	if (refs != SLAB_PAGE_REFS - 1)
		return false;
	page_ref_inc(page);
	slab_account(slab, s->order, 1);
	return true;
}

/*
 * A free slab leaves its cache: no longer a slab of it.
 * Return: false when its block was freed under it (see slab_refs_mend()):
 * the block is left alone.
 */
static bool slab_retire(struct slabx_cache *s, struct slabx_slab *slab)
{
	slab->magic = 0;
	slabx_stat_inc(s, SLABX_SLAB_DISCARD);
	return slab_refs_mend(s, slab);
}

/**
 * slab_may_free_pages() - whether this context may free pages at once
 *
 * On PREEMPT_RT the page allocator's locks sleep: a slab that becomes free
 * where preemption or IRQs are off goes back through the any-context page
 * path instead (see slab_discard()). Elsewhere pages may be freed in any
 * context but NMI, which slabx_free() is not called from; lockdep's
 * raw-lock nesting checks hold !RT kernels to RT's rule, so with them the
 * same contexts defer too.
 *
 * Return: true where __free_pages() is allowed.
 */
static bool slab_may_free_pages(void)
{
	return preemptible() || (!IS_ENABLED(CONFIG_PREEMPT_RT) &&
				 !IS_ENABLED(CONFIG_PROVE_RAW_LOCK_NESTING));
}

/*
 * The pages of a retired slab stop counting as slab memory and go back:
 * to the page allocator, or from any context (@nolock) through the nolock
 * path, whose reserve hands pages out as they are: without the objects'
 * poison.
 */
static void slab_pages_free(struct slabx_slab *slab, unsigned int order,
			    bool nolock)
{
	struct page *page = slab_page(slab);

	page_ref_dec(page);
	slab_account(slab, order, -1);
	if (!nolock) {
		slabx_pages_free(page, order);
		return;
	}
	slabx_kasan_shadow(slabx_slab_base(slab), PAGE_SIZE << order, 0);
	slabx_pages_account(order, -1);
	slabx_free_pages_nolock(page, order);
}

/* A typesafe-by-RCU cache's slab, a grace period after it retired. */
static void slab_free_after_gp(struct rcu_head *head)
{
	struct slabx_slab *slab = container_of(head, struct slabx_slab, rcu);

	slab_pages_free(slab, slab->order, !slab_may_free_pages());
}

/*
 * Give a free slab back to the page allocator, now if this context may.
 * The slab of a typesafe-by-RCU cache waits for a grace period first: its
 * objects may still be read.
 */
static void slab_discard(struct slabx_cache *s, struct slabx_slab *slab)
{
	if (!slab_retire(s, slab))
		return;
	if (s->flags & SLABX_TYPESAFE_BY_RCU) {
		slab->order = s->order;
		call_rcu(&slab->rcu, slab_free_after_gp);
		return;
	}
	slab_pages_free(slab, s->order, !slab_may_free_pages());
}

/*
 * From any context: never the slab of a typesafe-by-RCU cache that handed
 * out objects (call_rcu() is not for any context: slabx_slab_tryput()
 * keeps such slabs).
 */
static void slab_discard_nolock(struct slabx_cache *s, struct slabx_slab *slab)
{
	if (slab_retire(s, slab))
		slab_pages_free(slab, s->order, true);
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

/* ---- node lists (called with n->lock held, asserted) ---------------------- */

static struct slabx_slab *node_first_free_slab(struct slabx_node *n)
{
	struct slabx_slab *slab;

	lockdep_assert_held(&n->lock);
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

	lockdep_assert_held(&n->lock);
	while (got < max) {
		struct slabx_slab *slab = node_first_free_slab(n);

		if (!slab)
			break;
		while (got < max && slab->freelist) {
			void *obj = slab->freelist;

			slab->freelist = slabx_fp_get(s, obj);
			slab->inuse++;
			p[got++] = obj;
		}
		if (!slab->freelist) {
			list_move(&slab->list, &n->full);
			n->nr_partial--;
		}
	}
	n->free_objs -= got;
	return got;
}

static void node_add_slab(struct slabx_cache *s, struct slabx_node *n,
			  struct slabx_slab *slab)
{
	lockdep_assert_held(&n->lock);
	list_add(&slab->list, &n->partial);
	n->nr_partial++;
	n->nr_slabs++;
	n->free_objs += s->objs_per_slab;
}

/*
 * Move the node's empty slabs beyond the keep limit onto @discard, the
 * most recently emptied first.
 */
static void node_trim_empty(struct slabx_cache *s, struct slabx_node *n,
			    struct list_head *discard)
{
	lockdep_assert_held(&n->lock);
	while (n->nr_empty > s->keep_empty) {
		list_move(n->empty.next, discard);
		n->nr_empty--;
		n->nr_slabs--;
		n->free_objs -= s->objs_per_slab;
	}
}

/**
 * slabx_node_put() - put an object back into its slab
 * @s: the cache.
 * @n: the slab's node, whose lock the caller holds.
 * @slab: the slab.
 * @obj: the object.
 * @discard: receives the slab if it became free beyond the node's keep
 *	limit, for the caller to free once unlocked; NULL keeps it on the
 *	empty list beyond the limit (the any-context free of a
 *	typesafe-by-RCU cache, which may not queue it for a grace period).
 *
 * A slab that becomes free goes to the node's empty list, or past the keep
 * limit onto @discard, with any empty slabs that an earlier NULL @discard
 * kept beyond the limit.
 */
void slabx_node_put(struct slabx_cache *s, struct slabx_node *n,
		    struct slabx_slab *slab, void *obj,
		    struct list_head *discard)
{
	bool was_full = !slab->freelist;

	lockdep_assert_held(&n->lock);
	slabx_fp_set(s, obj, slab->freelist);
	slab->freelist = obj;
	slab->inuse--;
	n->free_objs++;

	if (slab->inuse) {
		if (was_full) {
			list_move(&slab->list, &n->partial);
			n->nr_partial++;
		}
		return;
	}
	if (!was_full)
		n->nr_partial--;
	list_move(&slab->list, &n->empty);
	n->nr_empty++;
	if (discard)
		node_trim_empty(s, n, discard);
}

/* ---- checks on free ------------------------------------------------------------ */

/**
 * slabx_slab_has_free() - whether an object is on its slab's free list
 * @s: the cache.
 * @slab: the slab of @obj; its node's lock is held.
 * @obj: the object.
 *
 * Walks the whole free list: for the checks of %SLABX_DEBUG caches only.
 *
 * Return: true when @obj is free in @slab.
 */
bool slabx_slab_has_free(struct slabx_cache *s, struct slabx_slab *slab,
			 void *obj)
{
	void *f;

	for (f = slab->freelist; f; f = slabx_fp_get(s, f))
		if (f == obj)
			return true;
	return false;
}

/**
 * slabx_double_free() - report a double free, caught on a sheaf or a slab
 * @s: the cache.
 * @obj: the object, refused.
 * @in_sheaf: caught as the object last freed into this CPU's sheaves.
 *
 * Each of the two places reports its own first double free (slabx_report()).
 */
void slabx_double_free(struct slabx_cache *s, void *obj, bool in_sheaf)
{
	slabx_stat_inc(s, SLABX_FREE_INVALID);
	if (in_sheaf)
		slabx_report(s, "slabx: %s: double free of %p, the last object freed on this CPU\n",
			     s->name, obj);
	else
		slabx_report(s, "slabx: %s: double free of %p, already free in its slab\n",
			     s->name, obj);
}

/*
 * Whether putting @obj back would free it twice (n->lock held): every free
 * of a %SLABX_DEBUG cache is checked against the slab's free and pending
 * objects; with %CONFIG_SLAB_FREELIST_HARDENED, the naive case of every
 * cache (the object is its slab's first free one) is caught as SLUB does.
 */
static bool node_double_free(struct slabx_cache *s, struct slabx_slab *slab,
			     void *obj)
{
	if (s->flags & SLABX_DEBUG) {
		if (!slabx_slab_rcu_pending(s, slab, obj) &&
		    !slabx_slab_has_free(s, slab, obj))
			return false;
	} else if (!IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED) ||
		   obj != slab->freelist) {
		return false;
	}
	slabx_double_free(s, obj, false);
	return true;
}

/**
 * slabx_slab_obj_free() - whether an object is free in its slab
 * @s: the cache.
 * @obj: an object of @s (slabx_obj_slab() said so).
 *
 * For the checked frees of %SLABX_DEBUG caches that keep the object out of
 * its slab (into a reserve): the slab layer's double-free check.
 *
 * Return: true when @obj is on its slab's free list or waits there for a
 * grace period.
 */
bool slabx_slab_obj_free(struct slabx_cache *s, void *obj)
{
	struct slabx_slab *slab = slabx_addr_to_slab(s, obj);
	struct slabx_node *n = s->node[slab->nid];
	unsigned long flags;
	bool free;

	raw_spin_lock_irqsave(&n->lock, flags);
	free = slabx_slab_rcu_pending(s, slab, obj) ||
	       slabx_slab_has_free(s, slab, obj);
	raw_spin_unlock_irqrestore(&n->lock, flags);
	return free;
}

/*
 * Put one object back (n->lock held), unless that would free it twice. An
 * object straight from a user becomes free for the checkers only once
 * accepted: init_on_free must not clear an object that is free already.
 */
static bool node_release(struct slabx_cache *s, struct slabx_node *n,
			 struct slabx_slab *slab, void *obj, bool fresh,
			 struct list_head *discard)
{
	if (node_double_free(s, slab, obj))
		return false;
	if (fresh)
		slabx_free_hook(s, obj, !in_nmi());
	slabx_node_put(s, n, slab, obj, discard);
	return true;
}

/* ---- allocation and free, slab layer ------------------------------------------ */

/**
 * slabx_obj_nid() - the node of an object's slab
 * @s: its cache.
 * @obj: an object of @s, held by the caller (not checked).
 *
 * Return: the node id.
 */
int slabx_obj_nid(struct slabx_cache *s, const void *obj)
{
	return slabx_addr_to_slab(s, obj)->nid;
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
		/* No object of it was ever handed out: no grace period. */
		slab_discard_nolock(s, slab);
		return NULL;
	}
	node_add_slab(s, n, slab);
	node_take(s, n, &obj, 1);
	raw_spin_unlock_irqrestore(&n->lock, flags);
	return obj;
}

/**
 * slabx_slab_tryput() - free an object a user gives back into its slab,
 *	trylock only
 * @s: the cache.
 * @slab: the slab of @obj.
 * @obj: the object; a double free is refused (reported).
 *
 * A slab that becomes free beyond the node's keep limit goes back through
 * slabx_free_pages_nolock(); in a typesafe-by-RCU cache it stays on the
 * node's empty list (its pages must wait for a grace period, and
 * call_rcu() is not for any context) until a later free or a shrink.
 *
 * Context: any, NMI included.
 * Return: false when the node lock is busy (nothing was done); true when
 * freed (counted in free) or refused.
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
	/* A typesafe-by-RCU slab that becomes free stays, see above. */
	if (node_release(s, n, slab, obj, true,
			 (s->flags & SLABX_TYPESAFE_BY_RCU) ? NULL : &discard)) {
		slabx_stat_inc(s, SLABX_FREE);
		trace_slabx_free(s, obj, slab->nid, SLABX_TRACE_NOLOCK);
	}
	raw_spin_unlock_irqrestore(&n->lock, flags);
	list_for_each_entry_safe(slab, tmp, &discard, list) {
		list_del(&slab->list);
		slab_discard_nolock(s, slab);
	}
	return true;
}

/*
 * The slab of the first object in @p[*@i..@nr), moving *@i to it; NULL
 * entries, bad pointers and, for objects straight from a user (@fresh),
 * objects KASAN sees free are skipped (reported). Return: NULL at the end.
 */
static struct slabx_slab *release_next(struct slabx_cache *s, void **p,
				       size_t nr, size_t *i, bool fresh)
{
	for (; *i < nr; (*i)++) {
		struct slabx_slab *slab;

		if (!p[*i])
			continue;
		slab = slabx_obj_slab(s, p[*i]);
		if (slab && (!fresh || slabx_kasan_free_ok(s, p[*i])))
			return slab;
	}
	return NULL;
}

/**
 * slabx_slab_release() - put objects back into their slabs
 * @s: the cache.
 * @p: the objects; NULL entries are skipped.
 * @nr: entries in @p.
 * @discard: receives slabs that became free beyond the node's keep limit,
 *	for slabx_slab_discard_list() once no lock is held.
 * @fresh: the objects come straight from a user (slabx_free() and the
 *	like), not from a sheaf: they pass the checkers' free hook here.
 *
 * Holds each node's lock across runs of its objects, of
 * %SLABX_RELEASE_RUN objects at most: the lock is raw and IRQs are off
 * meanwhile, and @nr may be a large rcu_free sheaf's or a bulk free's.
 * Never frees pages, so it may run with the per-CPU sheaves held.
 *
 * Return: the number of objects put back (bad pointers are not).
 */
size_t slabx_slab_release(struct slabx_cache *s, void **p, size_t nr,
			  struct list_head *discard, bool fresh)
{
	struct slabx_slab *slab;
	unsigned long flags;
	size_t i = 0, freed = 0;

	slab = release_next(s, p, nr, &i, fresh);
	while (slab) {
		struct slabx_node *n = s->node[slab->nid];
		unsigned int run = 0;

		raw_spin_lock_irqsave(&n->lock, flags);
		slabx_stat_inc(s, SLABX_NODE_LOCK);
		do {
			if (node_release(s, n, slab, p[i], fresh, discard)) {
				freed++;
				/* Only objects straight from a user. */
				if (trace_slabx_free_enabled() && fresh)
					trace_slabx_free(s, p[i], slab->nid,
							 SLABX_TRACE_SLAB);
			}
			i++;
			slab = release_next(s, p, nr, &i, fresh);
		} while (slab && s->node[slab->nid] == n &&
			 ++run < SLABX_RELEASE_RUN);
		raw_spin_unlock_irqrestore(&n->lock, flags);
	}
	return freed;
}

static size_t slab_flush(struct slabx_cache *s, void **p, size_t nr,
			 bool fresh)
{
	LIST_HEAD(discard);
	size_t freed;

	freed = slabx_slab_release(s, p, nr, &discard, fresh);
	slabx_slab_discard_list(s, &discard);
	return freed;
}

/**
 * slabx_slab_flush() - put free objects back into their slabs and free the
 *	slabs that became free beyond the keep limit
 * @s: the cache.
 * @p: the objects, from sheaves or never handed out.
 * @nr: entries in @p.
 *
 * Context: not with the per-CPU sheaves held.
 * Return: the number of objects put back.
 */
size_t slabx_slab_flush(struct slabx_cache *s, void **p, size_t nr)
{
	return slab_flush(s, p, nr, false);
}

/**
 * slabx_slab_free_user() - free objects a user gives back, into their slabs
 * @s: the cache.
 * @p: the objects; NULL entries are skipped, bad pointers and double frees
 *	refused (reported).
 * @nr: entries in @p.
 *
 * Context: not with the per-CPU sheaves held.
 * Return: the number of objects freed.
 */
size_t slabx_slab_free_user(struct slabx_cache *s, void **p, size_t nr)
{
	return slab_flush(s, p, nr, true);
}

/* ---- node structures ------------------------------------------------------- */

/**
 * slabx_nodes_alloc() - give a new cache its per-node slab lists and barns
 * @s: the cache.
 *
 * Return: 0 or -ENOMEM (the caller then calls slabx_nodes_free()).
 */
int slabx_nodes_alloc(struct slabx_cache *s)
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
		INIT_LIST_HEAD(&n->full);
		INIT_LIST_HEAD(&n->empty);
		INIT_LIST_HEAD(&n->rcu_batch[0].slabs);
		INIT_LIST_HEAD(&n->rcu_batch[1].slabs);
		n->cache = s;
		slabx_barn_init(&n->barn, slabx_barn_max_full(s->sheaf_capacity,
							      s->stride));
		s->node[nid] = n;
	}
	return 0;
}

/**
 * slabx_nodes_free() - free a cache's node structures
 * @s: the cache; its slabs and sheaves are gone. Safe after a failed or
 *	partial slabx_nodes_alloc().
 */
void slabx_nodes_free(struct slabx_cache *s)
{
	int nid;

	if (!s->node)
		return;
	for_each_node(nid)
		kfree(s->node[nid]);
	kfree(s->node);
}

/**
 * slabx_slabs_release_empty() - free every empty slab of a cache
 * @s: the cache.
 * @released: if not NULL, receives the number of objects of the slabs
 *	freed.
 *
 * Return: the objects of @s still allocated (not free in a slab).
 */
unsigned long slabx_slabs_release_empty(struct slabx_cache *s,
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

/*
 * Report up to *@left objects of @slab still allocated (n->lock held),
 * with @free (a bitmap of objs_per_slab bits) as scratch: one walk of the
 * freelist, then one of the objects.
 */
static void slab_report_inuse(struct slabx_cache *s, struct slabx_slab *slab,
			      unsigned long *free, unsigned int *left)
{
	unsigned int i;
	void *f;

	if (!*left)
		return;
	bitmap_zero(free, s->objs_per_slab);
	for (f = slab->freelist; f; f = slabx_fp_get(s, f))
		__set_bit(slabx_obj_index(s, slab, f), free);
	for (i = 0; i < s->objs_per_slab && *left; i++) {
		void *obj = slabx_slab_obj(s, slab, i);

		if (test_bit(i, free) || slabx_slab_rcu_pending(s, slab, obj))
			continue;
		pr_err("%s: object %p (slab %p, index %u) still allocated\n",
		       s->name, obj, slab, i);
		(*left)--;
	}
}

/**
 * slabx_node_counts() - one node's slab counts, as one consistent look
 * @s: the cache.
 * @nid: a possible node.
 * @c: receives them.
 */
void slabx_node_counts(struct slabx_cache *s, int nid,
		       struct slabx_node_counts *c)
{
	struct slabx_node *n = s->node[nid];
	unsigned long flags;

	raw_spin_lock_irqsave(&n->lock, flags);
	c->slabs = n->nr_slabs;
	c->partial = n->nr_partial;
	c->empty = n->nr_empty;
	c->free = n->free_objs;
	raw_spin_unlock_irqrestore(&n->lock, flags);
}

/**
 * slabx_slabs_report_leaks() - name the first objects still allocated
 * @s: a cache being destroyed with objects leaked, its sheaves flushed.
 * @max: objects to name at most.
 *
 * As SLUB's "Objects remaining" report: one line per object, with its
 * slab and index, so that the leak can be found (kmemleak shows where it
 * was allocated). A slab that lost a page reference is reported too: an
 * object leaked that way went to kfree().
 *
 * Context: process context (it allocates a scratch bitmap; without one,
 * nothing is named).
 */
void slabx_slabs_report_leaks(struct slabx_cache *s, unsigned int max)
{
	unsigned long *free = bitmap_alloc(s->objs_per_slab, GFP_KERNEL);
	unsigned int left = max;
	int nid;

	if (!free)
		return;
	for_each_node(nid) {
		struct slabx_node *n = s->node[nid];
		struct slabx_slab *slab;
		unsigned long flags;

		raw_spin_lock_irqsave(&n->lock, flags);
		list_for_each_entry(slab, &n->partial, list) {
			slab_refs_mend(s, slab);
			slab_report_inuse(s, slab, free, &left);
		}
		list_for_each_entry(slab, &n->full, list) {
			slab_refs_mend(s, slab);
			slab_report_inuse(s, slab, free, &left);
		}
		raw_spin_unlock_irqrestore(&n->lock, flags);
	}
	bitmap_free(free);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * slabx page provider.
 *
 * Every slab slabx builds comes from here. The normal path is the kernel's
 * page allocator with the caller's gfp; the any-context trylock path (a
 * per-CPU stash and a per-node reserve) is not implemented yet.
 *
 * Locking: none; the page allocator does its own.
 */
#include <linux/atomic.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/module.h>

#include "slabx_internal.h"

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
EXPORT_SYMBOL_GPL(slabx_fault_inject_pages);

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
 * slabs are never compound, so that every struct page field stays the
 * page allocator's.
 */
#define SLABX_PAGE_GFP_MASK	(~(__GFP_ZERO | __GFP_COMP))

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
	page = alloc_pages_node(nid, (gfp & SLABX_PAGE_GFP_MASK) | __GFP_NOWARN,
				order);
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
 * slabx_pages_held() - pages that slabx holds from the page allocator
 *
 * Return: the number of pages, over all caches and nodes.
 */
unsigned long slabx_pages_held(void)
{
	return atomic_long_read(&slabx_pages_in_use);
}

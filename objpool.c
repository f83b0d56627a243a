// SPDX-License-Identifier: GPL-2.0
/*
 * slabx objpool: a lockless MPMC pool of preallocated objects, with the
 * API and semantics of lib/objpool (6.12) under the slabx_objpool_ prefix.
 *
 * Where lib/objpool gives every possible CPU a ring of
 * roundup_pow_of_two(nr_objs) entries (O(nr_cpus * nr_objs) pointers), a
 * slabx pool has one shared ring of roundup_pow_of_two(nr_objs) cells plus
 * a small ring of SLABX_OBJPOOL_OWN_SLOTS slots per CPU: O(nr_objs +
 * nr_cpus).
 * A push goes to this CPU's small ring, or when that is full to the shared
 * ring; a pop takes from this CPU's small ring, then the shared ring, then
 * the other CPUs' small rings (a remote pop).
 *
 * The shared ring is a bounded MPMC queue whose cells carry a sequence number:
 * the position of the cell's last published object plus one. A push reads
 * tail (its position, pos) and then head, checks that pos - head is below
 * the ring's size, claims pos by advancing tail with cmpxchg, writes the
 * object and only then publishes it by storing the cell's seq with release
 * semantics. A pop at position head reads the cell's seq (acquire): only
 * pos + 1 means "published for this lap"; it then reads the object and
 * takes the position by advancing head with cmpxchg, which also frees the
 * cell (see slabx_objpool_ring.h).
 *
 * head and tail only grow and never wrap (unsigned long), and at every
 * instant head <= tail (a pop takes position p only once the push that
 * claimed p published it) and tail - head <= size (a push claims p only
 * while tail == p, having read h <= head with p - h < size, so afterwards
 * tail - head <= p + 1 - h <= size). So:
 *
 *  - An entry is never exposed before it is written: a pop only takes a
 *    cell whose seq says "published", and a push only writes a cell whose
 *    last object was taken (head > p - size since p - h < size), which its
 *    pop had read before its cmpxchg.
 *  - A pop whose cmpxchg fails saw a cell someone else took; it retries
 *    from the new head. As nothing wraps, there is no ABA.
 *  - A push reads pos before head (smp_rmb(); a failed cmpxchg rereads
 *    pos). Let h be the head it read and t the tail at that instant; pos
 *    <= t and h <= t. Two interleavings:
 *
 *    (a) Nobody took position pos yet: h <= pos, and 0 <= pos - h <= t - h,
 *        the entries claimed or published and not yet taken at that
 *        instant.
 *    (b) Between the two reads, other CPUs pushed at pos and beyond, and
 *        pops took those positions, up to h > pos:
 *
 *          CPU0 push            CPU1 push            CPU2 pop
 *          pos = tail (p)
 *                               claims p, publishes
 *                                                    takes p: head = p + 1
 *          h = head (p + 1)
 *
 *        pos - h is negative: pos is stale, and CPU0's cmpxchg would fail
 *        anyway. (Compared unsigned, it once looked larger than the ring:
 *        the push reported the ring full, and on the shared ring lost the
 *        object with -ENOSPC.) The push rereads tail and starts again; it
 *        does so only because tail moved, i.e. another push made progress.
 *
 *    So a push compares pos - h with the size only in case (a).
 *  - A push of an object of the pool never finds the shared ring full: in
 *    case (a) the entries in [h, t) are distinct objects of the pool other
 *    than the one being pushed, so pos - h <= t - h < nr_objs <= size. A
 *    pop that stalls (interrupted, or its vCPU preempted) blocks nobody:
 *    its position is either still counted and still holds its object, or
 *    already taken.
 *  - A push that reports a ring full is right at the instant it read head:
 *    t - h >= pos - h >= size then. Only small rings fill; a push then
 *    goes to the shared ring.
 *  - Nesting is safe, NMI included: a context that interrupts a push
 *    between its claim and its publication finds tail already past the
 *    claimed position; a pop that meets the claimed, unpublished one reports
 *    the ring empty (a miss) rather than waiting. An NMI that interrupts a push
 *    between its reads of tail and head is case (b) if it pushes and pops
 *    past pos. An NMI that interrupts a pop between its read and its
 *    cmpxchg may take the same position first; the interrupted pop's
 *    cmpxchg then fails. Nobody ever waits for the context it interrupted,
 *    and the shared ring has no "last" index that a nested push could
 *    move backwards (a small ring has one: below).
 *  - Retries happen only when another CPU made progress (lock-free).
 *  - A CPU's small ring is pushed to by that CPU only, with preemption
 *    off, from any of its contexts (pops come from every CPU). Its tail
 *    is a local_t and the claim a local_cmpxchg(): atomic against the
 *    nested contexts of
 *    its CPU, the only pushes it races with (local_ops.rst). Nobody else
 *    reads that tail. Where local_t has its own implementation (x86,
 *    where it is a cmpxchg without the lock prefix, mips, loongarch,
 *    powerpc64) the push then makes no locked operation; elsewhere
 *    local_t is an atomic_long_t and nothing changes. powerpc64 masks
 *    interrupts around it, which its system-reset and machine-check NMIs
 *    ignore: local_t's usual limit. A pool used from such an NMI there
 *    could lose or duplicate an object of a small ring (a claim torn by
 *    the NMI's own), not only miscount.
 *    The ordering a pop's fully ordered cmpxchg gave a push for free
 *    (the slot's last object read before the push writes the slot) comes
 *    from reading head with acquire.
 *  - A small ring is lib/objpool's ring: bare pointers, half the lines
 *    of cells with a sequence number, and an index, last, below which
 *    every position is published. A push claims pos as above, also only
 *    while last == pos, writes the slot and stores last = pos + 1
 *    (release). A pop reads head (acquire), then last (acquire): the pop
 *    that moved head to h had read last >= h before its cmpxchg, so
 *    head <= last is seen too, and head == last means empty. Else the
 *    slot at head is published; the pop reads it and takes the position
 *    with cmpxchg, which fails if the slot could have been written again.
 *    Only the owner CPU moves last, each time to the position after the
 *    one it just wrote: a push nested in another's claim window (tail ==
 *    last + 1) refuses, below, so last never skips an unwritten slot and
 *    never moves backwards.
 *
 * tests/userspace/ runs this very ring code in a userspace model, where
 * interleaving (b) happens within seconds (make -C tests/userspace check).
 *
 * Interrupts stay on. A pop is one cmpxchg, and a push to this CPU's
 * small ring is safe against every context that nests on the CPU (above),
 * so both only pin the task to its CPU with preemption off: the small
 * ring's tail and the counters are that CPU's local_t. lib/objpool masks
 * interrupts instead, which costs more than the operation (a function
 * call on User-mode Linux). An interrupt may then land in a push's claim
 * window, and what it pushes must not go behind the claimed slot, out of
 * every pop's reach until the task resumes (a hard IRQ's handler and the
 * softirqs run on its exit, hard-IRQ handlers on PREEMPT_RT too):
 * interleaving (c).
 *
 *    CPU0 task, push                 CPU0 hard IRQ
 *    claims p of its small ring
 *                                    pops from head up to p - 1
 *                                    (published), then the shared ring
 *                                    pushes: last (p) is one below tail,
 *                                    p is unpublished: to the shared ring
 *                                    pops: p is unpublished, a miss on
 *                                    the small ring; the shared ring
 *                                    has what the IRQ pushed
 *    publishes p
 *
 *    A push to a CPU's own ring first compares last with tail: only a
 *    context it interrupted can have claimed the position between them,
 *    and then the push goes to the shared ring
 *    (__slabx_objpool_own_push()). So at most one position of a small
 *    ring is claimed and unpublished, the last, with nothing behind it,
 *    and only the object being pushed is out of reach: a pop misses only
 *    when every object of the pool is out or in flight. A push to the
 *    shared ring, which every CPU pushes to, keeps interrupts off in its
 *    window, as lib/objpool does; an NMI there may still put objects out
 *    of reach for as long as it runs.
 *
 * The userspace model's signal handler nests a pop and a push on the
 * interrupted pusher's own ring, interleaving (c) included, and the model
 * checks (c) step by step: no pop misses while an object is free.
 *
 * Memory: the head (struct slabx_objpool_head) is the owner's, and slabx
 * touches it only within the calls the owner makes with it, as
 * lib/objpool does: after a slabx_objpool_fini() with objects still out,
 * only the drops of those objects, through whatever copy of the head the
 * owner kept, touch a head again. Everything else is slabx's: the objects,
 * the per-CPU small rings, and the shared ring, whose struct also holds
 * what slabx keeps of the pool for itself: its entry on slabx_objpools
 * (for debugfs), its sizes, the per-CPU counters' address and the debug
 * mode's error count. A pool is on the list from a successful init until
 * it is freed; its memory goes only after it left the list. A pool never
 * freed (objects out at fini and never dropped, or no fini) stays on the
 * list, shown by debugfs, until slabx is unloaded, and its memory is left
 * allocated, like the slabs of leaked objects of a destroyed cache: slabx
 * never touches it again but to show its counters.
 *
 * Locking: the pop and push paths take no lock. slabx_objpools_lock (a
 * spinlock taken with IRQs saved, a leaf) protects slabx_objpools, the
 * list of pools shown in debugfs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/cache.h>
#include <linux/cpumask.h>
#include <linux/irqflags.h>
#include <linux/kmemleak.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <asm/local.h>

#include "slabx_internal.h"

static bool objpool_debug;
module_param(objpool_debug, bool, 0644);
MODULE_PARM_DESC(objpool_debug,
		 "new objpools check every push for double pushes and foreign pointers");

static DEFINE_SPINLOCK(slabx_objpools_lock);
static LIST_HEAD(slabx_objpools);

/*
 * The shared ring, and what slabx keeps of a pool for itself, so that its
 * list and debugfs need no head: the pool's entry on slabx_objpools, its
 * sizes, its per-CPU rings (for their counters) and the debug mode's
 * count of bad pushes. head and tail on lines of their own.
 */
struct slabx_objpool_ring {
	struct list_head list;
	struct slabx_objpool_local __percpu *local;
	int nr_objs;
	int obj_size;
	atomic_t debug_errors;
	unsigned long mask;
	unsigned long head ____cacheline_aligned_in_smp;
	unsigned long tail ____cacheline_aligned_in_smp;
	struct slabx_objpool_cell cells[] ____cacheline_aligned_in_smp;
};

/* ---- one ring ------------------------------------------------------------- */

static void cells_init(struct slabx_objpool_cell *cells, unsigned long nr)
{
	unsigned long i;

	for (i = 0; i < nr; i++)
		cells[i].seq = i;
}

static bool local_push(struct slabx_objpool_local *l, void *obj)
{
	return __slabx_objpool_own_push(&l->ring, obj);
}

static void *local_pop(struct slabx_objpool_local *l)
{
	return __slabx_objpool_own_pop(&l->ring);
}

static bool ring_push(struct slabx_objpool_ring *r, void *obj)
{
	return __slabx_objpool_cells_push(&r->head, &r->tail, r->cells, r->mask,
					  obj);
}

static void *ring_pop(struct slabx_objpool_ring *r)
{
	return __slabx_objpool_cells_pop(&r->head, r->cells, r->mask);
}

/* ---- debug checks ---------------------------------------------------------- */

/* Count an event of this CPU's; preemption is off (or we are in an NMI). */
static void count(struct slabx_objpool_local *l,
		  enum slabx_objpool_counter c)
{
	local_inc(&l->count[c]);
}

/* Count @nr events on whatever CPU this runs on, in any context. */
static void count_here(struct slabx_objpool_head *pool,
		       enum slabx_objpool_counter c, long nr)
{
	preempt_disable_notrace();
	local_add(nr, &this_cpu_ptr(pool->local)->count[c]);
	preempt_enable_notrace();
}

/* Index of @obj in the pool, or -1 when it is not one of its objects. */
static long obj_index(struct slabx_objpool_head *pool, void *obj)
{
	unsigned long off = obj - pool->objs;

	if (obj < pool->objs || off >= (unsigned long)pool->nr_objs *
				       pool->obj_size || off % pool->obj_size)
		return -1;
	return off / pool->obj_size;
}

static void debug_report(struct slabx_objpool_head *pool, const char *what,
			 void *obj)
{
	/* Once per pool: the counter says how many more there were. */
	if (atomic_inc_return(&pool->ring->debug_errors) == 1)
		pr_err("objpool %p: %s %p refused (reported once per pool)\n",
		       pool, what, obj);
}

/* In debug mode: whether @obj may be pushed now; marks it in the pool. */
static bool debug_push_ok(struct slabx_objpool_head *pool, void *obj)
{
	long idx = obj_index(pool, obj);

	if (idx < 0) {
		debug_report(pool, "push of foreign pointer", obj);
		return false;
	}
	if (test_and_set_bit(idx, pool->in_pool)) {
		debug_report(pool, "double push of", obj);
		return false;
	}
	return true;
}

static void debug_popped(struct slabx_objpool_head *pool, void *obj)
{
	clear_bit(obj_index(pool, obj), pool->in_pool);
}

/* ---- pop and push ------------------------------------------------------------ */

/* Take an object from another CPU's small ring. */
static void *pop_remote(struct slabx_objpool_head *pool,
			struct slabx_objpool_local *l, int this)
{
	unsigned int i;
	void *obj;

	for (i = 1; i < nr_cpu_ids; i++) {
		int cpu = (this + i) % nr_cpu_ids;

		if (!cpu_possible(cpu))
			continue;
		obj = local_pop(per_cpu_ptr(pool->local, cpu));
		if (obj) {
			count(l, SLABX_OBJPOOL_REMOTE);
			return obj;
		}
	}
	return NULL;
}

/**
 * __slabx_objpool_pop_slow() - the rest of slabx_objpool_pop()
 * @pool: the pool.
 * @l: this CPU's small ring; preemption is off (or we are in an NMI).
 * @obj: what the small ring gave, or NULL.
 *
 * Tries the shared ring and the other CPUs' small rings when @obj is NULL,
 * and does the counting and the debug mode's bookkeeping.
 *
 * Return: an object, or NULL.
 */
void *__slabx_objpool_pop_slow(struct slabx_objpool_head *pool,
			       struct slabx_objpool_local *l, void *obj)
{
	if (!obj)
		obj = ring_pop(pool->ring);
	if (!obj)
		obj = pop_remote(pool, l, smp_processor_id());
	if (!obj) {
		count(l, SLABX_OBJPOOL_MISS);
		/* The pool's id in debugfs: its shared ring. */
		trace_slabx_objpool_miss(pool->ring, smp_processor_id());
		return NULL;
	}
	count(l, SLABX_OBJPOOL_POP);
	if (pool->flags & SLABX_OBJPOOL_F_DEBUG)
		debug_popped(pool, obj);
	return obj;
}
EXPORT_SYMBOL_GPL(__slabx_objpool_pop_slow);

/**
 * __slabx_objpool_push_slow() - the rest of slabx_objpool_push()
 * @obj: the object.
 * @pool: the pool.
 *
 * In debug mode every push comes here to be checked; else only those
 * that found this CPU's small ring full.
 *
 * Return: as slabx_objpool_push().
 */
int __slabx_objpool_push_slow(void *obj, struct slabx_objpool_head *pool)
{
	struct slabx_objpool_local *l;
	unsigned long flags;
	bool done;

	if ((pool->flags & SLABX_OBJPOOL_F_DEBUG) && !debug_push_ok(pool, obj))
		return -EINVAL;
	/* No interrupt in the shared ring's claim window: (c) above. */
	raw_local_irq_save(flags);
	l = this_cpu_ptr(pool->local);
	done = local_push(l, obj) || ring_push(pool->ring, obj);
	if (done)
		count(l, SLABX_OBJPOOL_PUSH);
	raw_local_irq_restore(flags);
	if (done)
		return 0;
	if (pool->flags & SLABX_OBJPOOL_F_DEBUG)
		debug_popped(pool, obj);	/* it is not in the pool */
	debug_report(pool, "push into full rings (double push?) of", obj);
	return -ENOSPC;
}
EXPORT_SYMBOL_GPL(__slabx_objpool_push_slow);

/* ---- lifecycle ----------------------------------------------------------------- */

static size_t ring_bytes(const struct slabx_objpool_ring *r)
{
	return struct_size(r, cells, r->mask + 1) +
	       num_possible_cpus() * sizeof(struct slabx_objpool_local);
}

/* Add a new pool to slabx_objpools: its memory, never its head. */
static void pool_register(struct slabx_objpool_ring *r)
{
	unsigned long flags;

	spin_lock_irqsave(&slabx_objpools_lock, flags);
	list_add_tail(&r->list, &slabx_objpools);
	spin_unlock_irqrestore(&slabx_objpools_lock, flags);
}

static void pool_unregister(struct slabx_objpool_ring *r)
{
	unsigned long flags;

	spin_lock_irqsave(&slabx_objpools_lock, flags);
	list_del(&r->list);
	spin_unlock_irqrestore(&slabx_objpools_lock, flags);
}

static void objs_free(void *objs, size_t nr, size_t size);

static void pool_free_memory(struct slabx_objpool_head *pool)
{
	objs_free(pool->objs, pool->nr_objs, pool->obj_size);
	kvfree(pool->ring);
	free_percpu(pool->local);
	bitmap_free(pool->in_pool);
	pool->objs = NULL;
	pool->ring = NULL;
	pool->local = NULL;
	pool->in_pool = NULL;
}

/*
 * The objects' area is page aligned, so objects whose size is a multiple
 * of an alignment up to PAGE_SIZE are aligned: an area of up to two pages
 * is a block of the page allocator (compound above order 0), larger ones
 * come from kvmalloc(): a large kmalloc() block (compound pages too) or
 * vmalloc().
 *
 * Neither is an area that a kfree() of one of its objects frees, a port's
 * first mistake (kfree() takes such an object for a large kmalloc block):
 * a small area is no kmalloc() object (which kfree() would free, or
 * corrupt, the pointer being inside it), and every area of pages holds a
 * reference of the pool's own, which kfree()'s put leaves standing; the
 * loss is reported when the area goes back (objs_ref_mend()). A vmalloc()
 * area has no such guard: kfree() of a pointer into it is the kernel's to
 * catch.
 */
#define OBJS_PAGES_MAX	(2 * PAGE_SIZE)

static void *objs_alloc(size_t nr, size_t size, gfp_t gfp)
{
	size_t bytes = array_size(nr, size);
	struct page *page;
	void *objs;

	if (bytes > INT_MAX)		/* kvmalloc()'s limit */
		return NULL;
	if (bytes <= OBJS_PAGES_MAX) {
		page = alloc_pages(gfp | __GFP_COMP, get_order(bytes));
		if (!page)
			return NULL;
		objs = page_address(page);
		/* Scanned, as a kmalloc() area was: objects hold pointers. */
		kmemleak_alloc(objs, page_size(page), 1, gfp);
	} else {
		objs = kvmalloc(bytes, gfp);
		if (!objs || is_vmalloc_addr(objs))
			return objs;
	}
	folio_get(virt_to_folio(objs));
	return objs;
}

/*
 * An area of pages that lost the pool's reference to a kfree() of one of
 * its objects: reported, the reference taken again and the bytes kfree()
 * took off the node's slab memory counted again, so that the area is
 * found whole next time and goes back as any other.
 * Return: whether the reference was lost.
 */
static bool objs_ref_mend(void *objs)
{
	struct folio *folio;

	if (is_vmalloc_addr(objs))
		return false;
	folio = virt_to_folio(objs);
	if (likely(folio_ref_count(folio) >= 2))
		return false;
	WARN(1, "slabx: objpool area %p lost its page reference: an object of it given to kfree()?\n",
	     objs);
	folio_get(folio);
	mod_node_page_state(folio_pgdat(folio), NR_SLAB_UNRECLAIMABLE_B,
			    folio_size(folio));
	return true;
}

static void objs_free(void *objs, size_t nr, size_t size)
{
	struct folio *folio;

	if (!objs)
		return;
	if (is_vmalloc_addr(objs)) {
		vfree(objs);
		return;
	}
	objs_ref_mend(objs);
	folio = virt_to_folio(objs);
	folio_put(folio);
	if (array_size(nr, size) > OBJS_PAGES_MAX) {
		kvfree(objs);
		return;
	}
	kmemleak_free(objs);
	folio_put(folio);
}

/*
 * Empty rings, and what slabx keeps of the pool, from the head's sizes.
 * The small rings come zeroed, which is empty.
 */
static void pool_setup_rings(struct slabx_objpool_head *pool)
{
	struct slabx_objpool_ring *r = pool->ring;

	r->local = pool->local;
	r->nr_objs = pool->nr_objs;
	r->obj_size = pool->obj_size;
	atomic_set(&r->debug_errors, 0);
	r->mask = pool->capacity - 1;
	cells_init(r->cells, pool->capacity);
}

/*
 * Each allocation may be made to fail by slabx_fault_inject_meta(); the
 * first that fails ends it, and the caller frees what was allocated.
 */
static int pool_alloc_memory(struct slabx_objpool_head *pool)
{
	gfp_t gfp = pool->gfp | __GFP_ZERO;

	if (!slabx_meta_fail())
		pool->objs = objs_alloc(pool->nr_objs, pool->obj_size, gfp);
	if (!pool->objs)
		return -ENOMEM;
	if (!slabx_meta_fail())
		pool->ring = kvmalloc(struct_size(pool->ring, cells,
						  pool->capacity), gfp);
	if (!pool->ring)
		return -ENOMEM;
	if (!slabx_meta_fail())
		pool->local = alloc_percpu_gfp(struct slabx_objpool_local, gfp);
	if (!pool->local)
		return -ENOMEM;
	if (pool->flags & SLABX_OBJPOOL_F_DEBUG) {
		if (!slabx_meta_fail())
			pool->in_pool = bitmap_zalloc(pool->nr_objs, pool->gfp);
		if (!pool->in_pool)
			return -ENOMEM;
	}
	pool_setup_rings(pool);
	return 0;
}

/* Construct every object and put it into the shared ring. */
static int pool_fill(struct slabx_objpool_head *pool,
		     slabx_objpool_init_obj_cb objinit)
{
	int i, rc;

	for (i = 0; i < pool->nr_objs; i++) {
		void *obj = pool->objs + (size_t)i * pool->obj_size;

		if (objinit) {
			rc = objinit(obj, pool->context);
			if (rc)
				return rc;
		}
		ring_push(pool->ring, obj);
	}
	if (pool->in_pool)
		bitmap_fill(pool->in_pool, pool->nr_objs);
	return 0;
}

static bool init_args_valid(int nr_objs, int object_size)
{
	if (nr_objs > 0 && nr_objs <= SLABX_OBJPOOL_NR_OBJECT_MAX &&
	    object_size > 0 && object_size <= SLABX_OBJPOOL_OBJECT_SIZE_MAX)
		return true;
	pr_warn("objpool of %d objects of %d bytes refused (1..%lu objects, 1..%lu bytes)\n",
		nr_objs, object_size, SLABX_OBJPOOL_NR_OBJECT_MAX,
		SLABX_OBJPOOL_OBJECT_SIZE_MAX);
	return false;
}

/* slabx_objpool_init(), with debug mode chosen by the caller. */
static int pool_init(struct slabx_objpool_head *pool, int nr_objs,
		     int object_size, gfp_t gfp, void *context,
		     slabx_objpool_init_obj_cb objinit,
		     slabx_objpool_fini_cb release, bool debug)
{
	int rc;

	if (!init_args_valid(nr_objs, object_size))
		return -EINVAL;
	memset(pool, 0, sizeof(*pool));
	pool->obj_size = ALIGN(object_size, sizeof(long));
	pool->nr_objs = nr_objs;
	pool->nr_possible_cpus = num_possible_cpus();
	pool->capacity = roundup_pow_of_two(nr_objs);
	pool->gfp = gfp & ~__GFP_ZERO;
	pool->context = context;
	pool->release = release;
	if (debug)
		pool->flags |= SLABX_OBJPOOL_F_DEBUG;
	rc = pool_alloc_memory(pool);
	if (!rc)
		rc = pool_fill(pool, objinit);
	if (rc) {
		pool_free_memory(pool);
		return rc;
	}
	refcount_set(&pool->ref, nr_objs + 1);
	pool_register(pool->ring);
	return 0;
}

/**
 * slabx_objpool_init() - create a pool and preallocate its objects
 * @pool: the pool head, owned by the caller.
 * @nr_objs: objects, 1 to %SLABX_OBJPOOL_NR_OBJECT_MAX.
 * @object_size: bytes per object, 1 to %SLABX_OBJPOOL_OBJECT_SIZE_MAX;
 *	rounded up to a multiple of sizeof(long).
 * @gfp: flags for the pool's memory; with %GFP_KERNEL large areas may come
 *	from vmalloc, with %GFP_ATOMIC they come from kmalloc.
 * @context: passed to @objinit and @release.
 * @objinit: called once for every object, after zeroing it; may be NULL.
 *	A non-zero return fails the init with that value.
 * @release: called once, when the pool is freed; may be NULL.
 *
 * The pool holds a reference for each object and one for itself; see
 * slabx_objpool_drop() and slabx_objpool_fini().
 *
 * Context: as @gfp allows.
 * Return: 0, -EINVAL for bad sizes (reported with pr_warn), -ENOMEM, or
 * the error of @objinit; on error nothing stays allocated or registered,
 * and @release is not called.
 */
int slabx_objpool_init(struct slabx_objpool_head *pool, int nr_objs,
		       int object_size, gfp_t gfp, void *context,
		       slabx_objpool_init_obj_cb objinit,
		       slabx_objpool_fini_cb release)
{
	return pool_init(pool, nr_objs, object_size, gfp, context, objinit,
			 release, READ_ONCE(objpool_debug));
}
EXPORT_SYMBOL_GPL(slabx_objpool_init);

/**
 * slabx_objpool_free() - free a pool now, whatever its references
 * @pool: the pool; calling it again does nothing.
 *
 * Takes the pool off slabx's list, frees the rings and the objects, then
 * calls the release callback.
 *
 * Context: process context, or wherever kvfree() may be called; not NMI
 * (it takes a spinlock).
 */
void slabx_objpool_free(struct slabx_objpool_head *pool)
{
	if (!pool->ring)
		return;
	pool_unregister(pool->ring);
	pool_free_memory(pool);
	if (pool->release)
		pool->release(pool, pool->context);
}
EXPORT_SYMBOL_GPL(slabx_objpool_free);

/**
 * slabx_objpool_drop() - take an object out of the pool for good
 * @obj: an object taken from @pool, not to be pushed back.
 * @pool: the pool.
 *
 * Drops the object's reference; the last one frees the pool.
 *
 * Context: any context, NMI included, when it cannot be the last
 * reference; else as slabx_objpool_free().
 * Return: 0 when the pool was freed, -EAGAIN when it lives on, -EINVAL
 * for a NULL @obj or @pool.
 */
int slabx_objpool_drop(void *obj, struct slabx_objpool_head *pool)
{
	if (!obj || !pool)
		return -EINVAL;
	count_here(pool, SLABX_OBJPOOL_DROP, 1);
	if (refcount_dec_and_test(&pool->ref)) {
		slabx_objpool_free(pool);
		return 0;
	}
	return -EAGAIN;
}
EXPORT_SYMBOL_GPL(slabx_objpool_drop);

/**
 * slabx_objpool_fini() - retire a pool: drop what it holds and its own
 *	reference
 * @pool: the pool.
 *
 * Objects still out keep it alive until each is dropped with
 * slabx_objpool_drop() (the kretprobe pattern); the last drop frees it.
 * Then slabx no longer needs @pool itself: the owner may free it, and drop
 * those objects through a copy of it. In debug mode (%SLABX_OBJPOOL_F_DEBUG)
 * objects still out are reported with pr_warn.
 *
 * Context: as slabx_objpool_drop().
 */
void slabx_objpool_fini(struct slabx_objpool_head *pool)
{
	bool debug = pool->flags & SLABX_OBJPOOL_F_DEBUG;
	unsigned int out;
	int nr = 1;	/* the pool's own reference */

	while (slabx_objpool_pop(pool))
		nr++;
	/* Taken to be dropped: not outstanding. */
	count_here(pool, SLABX_OBJPOOL_DROP, nr - 1);
	/* One reference per object still out, but for drops meanwhile. */
	out = refcount_read(&pool->ref) - nr;
	if (refcount_sub_and_test(nr, &pool->ref))
		slabx_objpool_free(pool);
	else if (debug)
		pr_warn("objpool %p: fini with %u objects still out; the pool lives until they are dropped\n",
			pool, out);
}
EXPORT_SYMBOL_GPL(slabx_objpool_fini);

/* The counters of a pool, from slabx's memory of it alone. */
static void ring_get_stats(const struct slabx_objpool_ring *r,
			   struct slabx_objpool_stats *st)
{
	unsigned long sum[SLABX_OBJPOOL_NR_COUNTERS] = {};
	int cpu, i;

	for_each_possible_cpu(cpu)
		for (i = 0; i < SLABX_OBJPOOL_NR_COUNTERS; i++)
			sum[i] += local_read(&per_cpu_ptr(r->local,
							  cpu)->count[i]);
	st->nr_objs = r->nr_objs;
	st->obj_size = r->obj_size;
	st->pops = sum[SLABX_OBJPOOL_POP];
	st->pushes = sum[SLABX_OBJPOOL_PUSH];
	st->pop_misses = sum[SLABX_OBJPOOL_MISS];
	st->remote_pops = sum[SLABX_OBJPOOL_REMOTE];
	st->drops = sum[SLABX_OBJPOOL_DROP];
	st->outstanding = st->pops - st->pushes - st->drops;
	st->ring_bytes = ring_bytes(r);
	st->debug_errors = atomic_read(&r->debug_errors);
}

/**
 * slabx_objpool_get_stats() - read a pool's counters
 * @pool: a live pool.
 * @st: filled in; sums over all possible CPUs.
 */
void slabx_objpool_get_stats(struct slabx_objpool_head *pool,
			     struct slabx_objpool_stats *st)
{
	ring_get_stats(pool->ring, st);
}
EXPORT_SYMBOL_GPL(slabx_objpool_get_stats);

/**
 * slabx_objpools_show() - show every pool, for debugfs
 * @m: passed to @show.
 * @show: called for each pool alive with @m, the pool's identifier (its
 *	shared ring: slabx's memory) and a snapshot of its counters; under
 *	slabx_objpools_lock with IRQs off, so it must not sleep.
 *
 * Reads slabx's own memory of each pool, never a head: a pool whose owner
 * retired it with objects still out is shown until it is freed.
 *
 * Context: process context, not under slabx_objpools_lock.
 */
void slabx_objpools_show(struct seq_file *m, slabx_objpool_show_cb show)
{
	struct slabx_objpool_stats st;
	struct slabx_objpool_ring *r;
	unsigned long flags;

	spin_lock_irqsave(&slabx_objpools_lock, flags);
	list_for_each_entry(r, &slabx_objpools, list) {
		ring_get_stats(r, &st);
		show(m, r, &st);
	}
	spin_unlock_irqrestore(&slabx_objpools_lock, flags);
}

/**
 * slabx_objpools_exit() - report the pools never freed, at module exit
 *
 * Every module that used slabx is gone by now. A pool still listed was
 * retired with objects out that were never dropped, or never retired: it
 * is reported, and its memory stays allocated, as the slabs of a
 * destroyed cache's leaked objects do (slabx keeps no pointer to its
 * objects' area, which only the head knew).
 *
 * Context: module exit.
 */
void slabx_objpools_exit(void)
{
	struct slabx_objpool_stats st;
	struct slabx_objpool_ring *r;

	list_for_each_entry(r, &slabx_objpools, list) {
		ring_get_stats(r, &st);
		pr_err("unloading with objpool %p of %d objects never freed, %ld still out\n",
		       r, st.nr_objs, st.outstanding);
	}
}

/**
 * slabx_objpool_set_debug() - set the objpool_debug module parameter
 * @on: whether pools initialised from now on check every push.
 */
void slabx_objpool_set_debug(bool on)
{
	WRITE_ONCE(objpool_debug, on);
}
EXPORT_SYMBOL_GPL(slabx_objpool_set_debug);

/* ---- pool mode of caches ------------------------------------------------------- */

static int pool_cache_ctor(void *obj, void *context)
{
	struct slabx_cache *s = context;

	if (s->ctor)
		s->ctor(obj);
	return 0;
}

/*
 * Whether KASAN's shadow of a pool-mode cache's objects is ours to write:
 * vmalloc() memory has a shadow of its own only with KASAN_VMALLOC.
 */
static bool pool_cache_shadow(struct slabx_cache *s)
{
	return IS_ENABLED(CONFIG_KASAN_GENERIC) &&
	       (IS_ENABLED(CONFIG_KASAN_VMALLOC) ||
		!is_vmalloc_addr(s->pool->objs));
}

static void *pool_cache_obj(struct slabx_cache *s, unsigned int i)
{
	return s->pool->objs + (size_t)i * s->stride;
}

/**
 * slabx_pool_cache_init() - preallocate the objects of a pool-mode cache
 * @s: a new cache, with its geometry set.
 * @nr: objects.
 *
 * Objects are @s->stride bytes apart, so they have the cache's alignment.
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int slabx_pool_cache_init(struct slabx_cache *s, unsigned int nr)
{
	unsigned int i;
	int rc;

	if (!slabx_meta_fail())
		s->pool = kzalloc(sizeof(*s->pool), GFP_KERNEL);
	if (!s->pool)
		return -ENOMEM;
	rc = pool_init(s->pool, nr, s->stride, GFP_KERNEL, s, pool_cache_ctor,
		       NULL, READ_ONCE(objpool_debug) || (s->flags & SLABX_DEBUG));
	if (rc) {
		kfree(s->pool);
		s->pool = NULL;
		return rc;
	}
	/* Every object waits in the pool: free, as in a slab. */
	if (pool_cache_shadow(s))
		for (i = 0; i < nr; i++)
			slabx_kasan_poison_new(s, pool_cache_obj(s, i));
	return 0;
}

/**
 * slabx_pool_cache_destroy() - free the pool of a pool-mode cache
 * @s: the cache; nothing to do without a pool.
 */
void slabx_pool_cache_destroy(struct slabx_cache *s)
{
	if (!s->pool)
		return;
	/* kvfree() must find the memory as it was handed out. */
	if (pool_cache_shadow(s))
		slabx_kasan_shadow(s->pool->objs,
				   (size_t)s->pool->nr_objs * s->stride, 0);
	slabx_objpool_free(s->pool);
	kfree(s->pool);
	s->pool = NULL;
}

/**
 * slabx_pool_cache_alloc() - allocate from a pool-mode cache
 * @s: the cache.
 * @gfp: only %__GFP_ZERO is looked at.
 *
 * Return: an object, or NULL when all are out (counted in alloc_fail).
 */
void *slabx_pool_cache_alloc(struct slabx_cache *s, gfp_t gfp)
{
	void *obj = slabx_objpool_pop(s->pool);

	if (!obj) {
		slabx_stat_inc(s, SLABX_ALLOC_FAIL);
		return NULL;
	}
	slabx_pool_hand_out(s, obj, gfp);
	slabx_stat_inc(s, SLABX_ALLOC);
	trace_slabx_alloc(s, obj, gfp, SLABX_TRACE_POOL);
	return obj;
}

/**
 * slabx_pool_hand_out() - a pool-mode object is handed to a user
 * @s: the cache.
 * @obj: the object, just taken from the pool.
 * @gfp: only %__GFP_ZERO is looked at.
 *
 * As slabx_alloc_hook(), without kmemleak: the object lies inside the
 * pool's memory, which kmemleak knows (and scans) as one block.
 */
void slabx_pool_hand_out(struct slabx_cache *s, void *obj, gfp_t gfp)
{
	if (pool_cache_shadow(s))
		slabx_kasan_unpoison(s, obj);
	if (slabx_init_on_alloc(s, gfp))
		memset(obj, 0, s->object_size);
}

/**
 * slabx_pool_cache_report_leaks() - what a destroy with objects out sees
 * @s: a pool-mode cache being destroyed with objects still allocated.
 *
 * An object lost to kfree() took the pool area's own reference: reported
 * now, with the cache's name, and mended (see objs_ref_mend()).
 */
void slabx_pool_cache_report_leaks(struct slabx_cache *s)
{
	if (objs_ref_mend(s->pool->objs))
		pr_err("%s: the pool's area lost its page reference\n", s->name);
}

/**
 * slabx_pool_cache_obj_offset() - where in its object a pointer points
 * @s: a pool-mode cache.
 * @ptr: any pointer.
 *
 * Return: the offset of @ptr from the start of the pool object whose
 * stride it is in, or -1 when it is in none.
 */
long slabx_pool_cache_obj_offset(struct slabx_cache *s, const void *ptr)
{
	const void *objs = s->pool->objs;
	unsigned long off = ptr - objs;

	if (ptr < objs || off >= (unsigned long)s->pool->nr_objs * s->stride)
		return -1;
	return off % s->stride;
}

/**
 * slabx_pool_cache_free() - free into a pool-mode cache
 * @s: the cache.
 * @obj: the object; a pointer that is not one of the pool's objects is
 *	refused with a warning.
 */
void slabx_pool_cache_free(struct slabx_cache *s, void *obj)
{
	if (obj_index(s->pool, obj) < 0) {
		slabx_stat_inc(s, SLABX_FREE_INVALID);
		slabx_report(s, "slabx: %s: free of %p, not an object of this cache\n",
			     s->name, obj);
		return;
	}
	if (pool_cache_shadow(s) && !slabx_kasan_free_ok(s, obj))
		return;
	if (slabx_init_on_free(s))
		memset(obj, 0, s->object_size);
	if (pool_cache_shadow(s))
		slabx_kasan_poison(s, obj);
	if (slabx_objpool_push(obj, s->pool)) {
		slabx_stat_inc(s, SLABX_FREE_INVALID);
		return;
	}
	slabx_stat_inc(s, SLABX_FREE);
	trace_slabx_free(s, obj, NUMA_NO_NODE, SLABX_TRACE_POOL);
}

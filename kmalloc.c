// SPDX-License-Identifier: GPL-2.0
/*
 * slabx kmalloc-style allocations: slabx_kmalloc(), slabx_kfree() and their
 * any-context variants, on size classes from 8 bytes to 8 KiB.
 *
 * Each class is an ordinary slabx cache ("kmalloc-64"), created when slabx
 * loads and listed in debugfs with its statistics. What sets the classes
 * apart is their slab order: all are of %SLABX_KMALLOC_ORDER, so a pointer
 * alone finds its slab header (the naturally aligned block that holds it),
 * and the header names the class. There is no per-object header and no
 * size to give on free. A power-of-two class aligns its objects to their
 * size, as kmalloc() does.
 *
 * No locks of its own: the classes' caches do the work.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "slabx_internal.h"
/* The SLABX_TEST hooks defined or used here. */
#include "tests/slabx_test_hooks.h"

static const unsigned int class_sizes[SLABX_KMALLOC_CLASSES] = {
	8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192,
};

/* Class of each size up to 192 bytes, by (size - 1) / 8. */
static const u8 small_class[24] = {
	0, 1, 2, 2, 3, 3, 3, 3,		/*   8 ..  64 */
	4, 4, 4, 4, 5, 5, 5, 5,		/*  72 .. 128 */
	6, 6, 6, 6, 6, 6, 6, 6,		/* 136 .. 192 */
};

static struct slabx_cache *class_caches[SLABX_KMALLOC_CLASSES];

/* The class of @size, 1 to %SLABX_KMALLOC_MAX_SIZE. */
static __always_inline unsigned int class_index(size_t size)
{
	if (size <= 192)
		return small_class[(size - 1) / 8];
	return fls(size - 1) - 1;	/* 256 is class 7, 8192 class 12 */
}

/*
 * The class cache for an allocation of @size (not 0), or NULL for one
 * above the largest class (reported unless @gfp has %__GFP_NOWARN).
 */
static __always_inline struct slabx_cache *class_for(size_t size, gfp_t gfp)
{
	if (likely(size <= SLABX_KMALLOC_MAX_SIZE))
		return class_caches[class_index(size)];
	if (!(gfp & __GFP_NOWARN))
		pr_warn_ratelimited("slabx_kmalloc of %zu bytes refused: above %u\n",
				    size, SLABX_KMALLOC_MAX_SIZE);
	return NULL;
}

/*
 * The class @slab's header names, or NULL. The header (whose magic
 * slabx_ptr_to_slab() checked) may be no slab's: its cache is read
 * without KASAN checks, compared, never followed.
 */
static __no_kasan_or_inline struct slabx_cache *
header_class(const struct slabx_slab *slab)
{
	unsigned int i;

	for (i = 0; i < SLABX_KMALLOC_CLASSES; i++)
		if (slab->cache == class_caches[i])
			return class_caches[i];
	return NULL;
}

/*
 * The class of an object slabx_kmalloc() returned, with its slab in
 * *@slabp. NULL for NULL and %ZERO_SIZE_PTR; NULL too for any other
 * pointer, reported (once, or every time in debug mode), and for what
 * slabx_free() refuses: a pointer into a class's slab that is no object
 * start, and under KASAN an object that is free already. The object is
 * then all accessible again for the free path, which may clear all of it
 * (init_on_free).
 */
static __always_inline struct slabx_cache *
class_of(void *obj, struct slabx_slab **slabp, const char *what)
{
	struct slabx_slab *slab;
	struct slabx_cache *s;

	if (unlikely(ZERO_OR_NULL_PTR(obj)))
		return NULL;		/* nothing to free, nothing to report */
	slab = slabx_ptr_to_slab(obj, SLABX_KMALLOC_ORDER);
	s = slab ? header_class(slab) : NULL;
	if (unlikely(!s)) {
		/* The classes share one debug setting: report as they would. */
		slabx_report(class_caches[0],
			     "slabx: %s() of %p, not from slabx_kmalloc()\n",
			     what, obj);
		return NULL;
	}
	if (!slabx_slab_holds(s, slab, obj) || !slabx_kasan_free_ok(s, obj))
		return NULL;
	slabx_kasan_unpoison(s, obj);
	*slabp = slab;
	return s;
}

/**
 * slabx_kmalloc() - allocate memory of a given size
 * @size: bytes, up to %SLABX_KMALLOC_MAX_SIZE.
 * @gfp: allocation context, as for slabx_alloc(); %__GFP_ZERO zeroes the
 *	memory, %__GFP_NOWARN silences the warning for a size too large.
 *
 * The memory is an object of the smallest size class that holds @size
 * (8, 16, 32, 64, 96, 128, 192, 256, 512 bytes, 1, 2, 4 or 8 KiB), from
 * that class's cache, so it costs what slabx_alloc() costs. Objects of a
 * power-of-two class are aligned to their size, others to 8 bytes. KASAN
 * sees only the @size bytes as accessible. Free it with slabx_kfree() or
 * slabx_kfree_nolock().
 *
 * Context: any context that @gfp allows.
 * Return: the memory; %ZERO_SIZE_PTR for a @size of 0 (slabx_kfree()
 * accepts it); NULL when out of memory or @size is above
 * %SLABX_KMALLOC_MAX_SIZE (reported with pr_warn).
 */
void *slabx_kmalloc(size_t size, gfp_t gfp)
{
	struct slabx_cache *s;
	void *obj;

	if (unlikely(!size))
		return ZERO_SIZE_PTR;
	s = class_for(size, gfp);
	if (unlikely(!s))
		return NULL;
	obj = slabx_alloc(s, gfp);
	if (likely(obj))
		slabx_kasan_kmalloc(s, obj, size);
	return obj;
}
EXPORT_SYMBOL_GPL(slabx_kmalloc);

/**
 * slabx_kfree() - free memory from slabx_kmalloc()
 * @ptr: the memory, or NULL or %ZERO_SIZE_PTR (nothing is done).
 *
 * Its size class is found from its slab. A pointer slabx_kmalloc() did not
 * return is refused with a warning (once, or every time in debug mode) and
 * left alone; a double free is refused as slabx_free() refuses it.
 *
 * Context: any context but NMI (use slabx_kfree_nolock() there).
 */
void slabx_kfree(const void *ptr)
{
	void *obj = (void *)ptr;
	struct slabx_slab *slab;
	struct slabx_cache *s = class_of(obj, &slab, __func__);

	if (!s || (s->sheaf_capacity && sheaves_free_plain(s) &&
		   sheaves_free(s, slab, obj)))
		return;
	/* As slabx_free(), which takes what the fast path did not. */
	slabx_free(s, obj);
}
EXPORT_SYMBOL_GPL(slabx_kfree);

/**
 * slabx_kmalloc_check_copy() - check a copy between slabx_kmalloc() memory
 *	and user space
 * @ptr: where the copy starts, inside memory from slabx_kmalloc().
 * @n: bytes to copy.
 * @to_user: true for a copy to user space, false for one from it.
 *
 * slabx_check_copy() for memory of slabx_kmalloc(), whose size class is
 * found from @ptr: the copy must lie in the object of its class (the
 * class's size, as the kernel checks a kmalloc() object, not the size
 * asked for).
 *
 * Context: any context.
 * Return: 0 when the copy is allowed, -EFAULT when it is not, @ptr
 * included when it is not slabx_kmalloc() memory (refused with a warning).
 */
int slabx_kmalloc_check_copy(const void *ptr, unsigned long n, bool to_user)
{
	struct slabx_slab *slab;
	struct slabx_cache *s;

	if (!n)
		return 0;
	slab = slabx_ptr_to_slab(ptr, SLABX_KMALLOC_ORDER);
	s = slab ? header_class(slab) : NULL;
	if (!s) {
		slabx_report(class_caches[0],
			     "slabx: usercopy %s user space refused: %p is not slabx_kmalloc() memory\n",
			     to_user ? "to" : "from", ptr);
		return -EFAULT;
	}
	return slabx_check_copy(s, ptr, n, to_user);
}
EXPORT_SYMBOL_GPL(slabx_kmalloc_check_copy);

/**
 * slabx_kmalloc_nolock() - allocate memory of a given size from any context
 * @size: bytes, up to %SLABX_KMALLOC_MAX_SIZE.
 * @gfp: 0 or %__GFP_ZERO (zeroes the memory); anything else is refused
 *	(pr_warn, NULL).
 * @node: NUMA node of the memory, or %NUMA_NO_NODE for the local one.
 *
 * As mainline's kmalloc_nolock(): never spins on a lock and never sleeps,
 * so it fails fast with NULL when the paths it may take are busy or empty
 * (see slabx_alloc_nolock_node()). The memory is an object of a size class
 * as with slabx_kmalloc(), with no header of its own; free it with
 * slabx_kfree_nolock() or slabx_kfree(). kmemleak is not told of it (it
 * may not be called in every context): it neither reports it as a leak
 * nor scans it for pointers.
 *
 * Context: any context, NMI included (on PREEMPT_RT not in NMI or hard
 * IRQ, where it returns NULL).
 * Return: the memory; %ZERO_SIZE_PTR for a @size of 0; NULL for a @size
 * above %SLABX_KMALLOC_MAX_SIZE (silently, as kmalloc_nolock()), a refused
 * @gfp or @node (reported), a @node without memory, or when nothing could
 * be had at once.
 */
void *slabx_kmalloc_nolock(size_t size, gfp_t gfp, int node)
{
	struct slabx_cache *s;
	void *obj;

	if (unlikely(!size))
		return ZERO_SIZE_PTR;
	if (unlikely(size > SLABX_KMALLOC_MAX_SIZE))
		return NULL;
	s = class_caches[class_index(size)];
	obj = slabx_alloc_nolock_node(s, gfp, node);
	if (likely(obj))
		slabx_kasan_kmalloc(s, obj, size);
	return obj;
}
EXPORT_SYMBOL_GPL(slabx_kmalloc_nolock);

/**
 * slabx_kfree_nolock() - free memory from slabx_kmalloc_nolock() or
 *	slabx_kmalloc(), from any context
 * @ptr: the memory, or NULL or %ZERO_SIZE_PTR (nothing is done).
 *
 * Never fails and never spins (see slabx_free_nolock()). Refuses what
 * slabx_kfree() refuses.
 *
 * Context: any context, NMI included.
 */
void slabx_kfree_nolock(const void *ptr)
{
	struct slabx_slab *slab;
	struct slabx_cache *s = class_of((void *)ptr, &slab, __func__);

	if (s)
		slabx_free_nolock(s, (void *)ptr);
}
EXPORT_SYMBOL_GPL(slabx_kfree_nolock);

/**
 * slabx_kmalloc_cache() - the size class of an allocation
 * @size: bytes, 1 to %SLABX_KMALLOC_MAX_SIZE.
 *
 * For slabx's tests: the class's cache may be read (with
 * slabx_cache_info() and slabx_cache_stat()), never destroyed.
 *
 * Return: the cache slabx_kmalloc(@size) allocates from, or NULL.
 */
struct slabx_cache *slabx_kmalloc_cache(size_t size)
{
	if (!size || size > SLABX_KMALLOC_MAX_SIZE)
		return NULL;
	return class_caches[class_index(size)];
}
EXPORT_SYMBOL_NS_GPL(slabx_kmalloc_cache, SLABX_TEST);

/**
 * slabx_kmalloc_exit() - destroy the size classes, at module exit or when
 *	slabx_kmalloc_init() fails
 *
 * Objects still allocated are reported by slabx_cache_destroy().
 */
void slabx_kmalloc_exit(void)
{
	unsigned int i;

	for (i = 0; i < SLABX_KMALLOC_CLASSES; i++) {
		if (class_caches[i])
			slabx_cache_destroy_kmalloc(class_caches[i]);
		class_caches[i] = NULL;
	}
}

/**
 * slabx_kmalloc_init() - create the size classes, at module load
 *
 * Return: 0, or the error of the class that could not be created (those
 * created are destroyed).
 */
int slabx_kmalloc_init(void)
{
	struct slabx_cache *s;
	char name[16];
	unsigned int i;

	for (i = 0; i < SLABX_KMALLOC_CLASSES; i++) {
		snprintf(name, sizeof(name), "kmalloc-%u", class_sizes[i]);
		s = slabx_cache_create_kmalloc(name, class_sizes[i]);
		if (!s) {
			slabx_kmalloc_exit();
			return -ENOMEM;
		}
		class_caches[i] = s;
	}
	return 0;
}

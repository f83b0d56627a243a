/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels slabx builds for (6.1 LTS onwards),
 * in one place. Each difference is chosen by a feature test in ./Kbuild,
 * which greps the target kernel's headers for the interface
 * (SLABX_HAVE_*), never by comparing kernel versions.
 */
#ifndef _SLABX_COMPAT_H
#define _SLABX_COMPAT_H

#include <linux/shrinker.h>
#include <linux/slab.h>

/*
 * slabx_shrinker_create() - a registered shrinker named @name
 * @name: its name (debugfs, tracing).
 * @count: its count_objects().
 * @scan: its scan_objects().
 *
 * 6.7 made shrinkers allocated by the shrinker code (shrinker_alloc(),
 * shrinker_register(), shrinker_free()); before, the user embedded one and
 * registered it with register_shrinker().
 *
 * Return: the shrinker, or NULL without memory.
 */
static inline struct shrinker *
slabx_shrinker_create(const char *name,
		      unsigned long (*count)(struct shrinker *,
					     struct shrink_control *),
		      unsigned long (*scan)(struct shrinker *,
					    struct shrink_control *))
{
	struct shrinker *shrinker;

#ifdef SLABX_HAVE_SHRINKER_ALLOC
	shrinker = shrinker_alloc(0, "%s", name);
	if (!shrinker)
		return NULL;
	shrinker->count_objects = count;
	shrinker->scan_objects = scan;
	shrinker_register(shrinker);
#else
	shrinker = kzalloc(sizeof(*shrinker), GFP_KERNEL);
	if (!shrinker)
		return NULL;
	shrinker->count_objects = count;
	shrinker->scan_objects = scan;
	shrinker->seeks = DEFAULT_SEEKS;
	if (register_shrinker(shrinker, "%s", name)) {
		kfree(shrinker);
		return NULL;
	}
#endif
	return shrinker;
}

/* Unregister and free a shrinker of slabx_shrinker_create(). */
static inline void slabx_shrinker_destroy(struct shrinker *shrinker)
{
#ifdef SLABX_HAVE_SHRINKER_ALLOC
	shrinker_free(shrinker);
#else
	unregister_shrinker(shrinker);
	kfree(shrinker);
#endif
}

#endif /* _SLABX_COMPAT_H */

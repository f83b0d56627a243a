// SPDX-License-Identifier: GPL-2.0
/*
 * A small slabx client for `make run` and the kselftests: it creates the
 * cache "demo", allocates @nr_objects objects one by one and as many again
 * in bulk, frees half of each, and keeps the rest until it is unloaded, so
 * that the cache's debugfs statistics show a known state.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "../slabx.h"

#define DEMO_SIZE	128

static unsigned int nr_objects = 1000;
module_param(nr_objects, uint, 0444);
MODULE_PARM_DESC(nr_objects, "objects allocated one by one, and in bulk");

static struct slabx_cache *demo_cache;
static void **demo_objs;

static int __init demo_init(void)
{
	unsigned int i, nr = 2 * nr_objects;

	if (!nr_objects || nr_objects > 1000000) {
		pr_warn("nr_objects must be 1..1000000\n");
		return -EINVAL;
	}
	demo_objs = kvcalloc(nr, sizeof(*demo_objs), GFP_KERNEL);
	if (!demo_objs)
		return -ENOMEM;
	demo_cache = slabx_cache_create("demo", DEMO_SIZE, NULL);
	if (!demo_cache) {
		kvfree(demo_objs);
		return -ENOMEM;
	}
	for (i = 0; i < nr_objects; i++)
		demo_objs[i] = slabx_alloc(demo_cache, GFP_KERNEL);
	if (!slabx_alloc_bulk(demo_cache, GFP_KERNEL, nr_objects,
			      demo_objs + nr_objects))
		pr_warn("bulk allocation failed\n");
	for (i = 0; i < nr; i += 2) {
		slabx_free(demo_cache, demo_objs[i]);
		demo_objs[i] = NULL;
	}
	pr_info("holding %u objects of %u bytes in cache demo\n",
		nr_objects, DEMO_SIZE);
	return 0;
}

static void __exit demo_exit(void)
{
	slabx_free_bulk(demo_cache, 2 * nr_objects, demo_objs);
	slabx_cache_destroy(demo_cache);
	kvfree(demo_objs);
}

module_init(demo_init);
module_exit(demo_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("slabx demo workload");

// SPDX-License-Identifier: GPL-2.0
/*
 * Helper of the kselftest slabx_kmemleak.sh: objects whose fate kmemleak
 * must see. On load, a slabx object held from this module's data holds
 * the only pointer to a kmalloc() buffer (never to be reported), and a
 * second slabx object is leaked: no pointer to it is kept anywhere
 * kmemleak scans (to be reported, with its allocation stack). Their
 * addresses are given in hex, as text that kmemleak does not take for
 * pointers, by the read-only parameters held_buf and leaked. Unloading
 * frees all of it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "../slabx.h"

struct holder {
	void *buf;
};

static struct slabx_cache *cache;
static struct holder *held;
/* The leaked object, complemented: no pointer for kmemleak to find. */
static unsigned long leaked_hidden;

static char held_buf[24];
module_param_string(held_buf, held_buf, sizeof(held_buf), 0444);
MODULE_PARM_DESC(held_buf, "address of the buffer only a live slabx object points to");
static char leaked[24];
module_param_string(leaked, leaked, sizeof(leaked), 0444);
MODULE_PARM_DESC(leaked, "address of the slabx object leaked");

/*
 * Allocate both, keeping no pointer but where said: every pointer they
 * pass through stays within this frame and the frames it calls.
 */
static noinline int make_objects(void)
{
	void *obj = slabx_alloc(cache, GFP_KERNEL);

	held = slabx_alloc(cache, GFP_KERNEL);
	if (held)
		held->buf = kmalloc(200, GFP_KERNEL);
	if (!held || !held->buf || !obj) {
		if (held)
			kfree(held->buf);
		slabx_free(cache, held);
		slabx_free(cache, obj);
		return -ENOMEM;
	}
	snprintf(held_buf, sizeof(held_buf), "%lx", (unsigned long)held->buf);
	snprintf(leaked, sizeof(leaked), "%lx", (unsigned long)obj);
	leaked_hidden = ~(unsigned long)obj;
	return 0;
}

/*
 * kmemleak scans the stacks of live tasks and the cached stacks of dead
 * ones: overwrite the stack below us, where make_objects() and what it
 * called left copies of the pointers (@depth frames of 256 bytes).
 */
static noinline void scrub_stack(int depth)
{
	char area[256];

	memset(area, 0, sizeof(area));
	barrier_data(area);
	if (depth)
		scrub_stack(depth - 1);
	barrier_data(area);
}

static int __init helper_init(void)
{
	int ret;

	cache = slabx_cache_create("kmemleak_helper", 96, NULL);
	if (!cache)
		return -ENOMEM;
	ret = make_objects();
	scrub_stack(40);
	if (ret)
		slabx_cache_destroy(cache);
	return ret;
}

static void __exit helper_exit(void)
{
	slabx_free(cache, (void *)~leaked_hidden);
	kfree(held->buf);
	slabx_free(cache, held);
	slabx_cache_destroy(cache);
}

module_init(helper_init);
module_exit(helper_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("slabx: objects for the kmemleak kselftest");

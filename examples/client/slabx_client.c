// SPDX-License-Identifier: GPL-2.0
/* The smallest client of slabx: a cache, an object, and back. */
#include <linux/module.h>
#include <slabx.h>

static struct slabx_cache *cache;

static int __init client_init(void)
{
	void *obj;

	cache = slabx_cache_create("client", 128, NULL);
	if (!cache)
		return -ENOMEM;
	obj = slabx_alloc(cache, GFP_KERNEL);
	pr_info("slabx_client: allocated %p\n", obj);
	slabx_free(cache, obj);
	return 0;
}
module_init(client_init);

static void __exit client_exit(void)
{
	slabx_cache_destroy(cache);
}
module_exit(client_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("slabx: the example client of README.md");

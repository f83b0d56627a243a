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

/*
 * ---- for the test modules ---------------------------------------------
 */

#ifndef SLABX_HAVE_KTHREAD_STOP_PUT
#include <linux/kthread.h>
#include <linux/sched/task.h>

/* kthread_stop() and the put of a task_struct got (6.6+). */
static inline int kthread_stop_put(struct task_struct *k)
{
	int ret = kthread_stop(k);

	put_task_struct(k);
	return ret;
}
#endif

/* KASAN's bug type for an access to a free slab object (6.2+ / before). */
#ifdef SLABX_KASAN_UAF_UNPREFIXED
#define SLABX_KASAN_SLAB_UAF	"use-after-free"
#else
#define SLABX_KASAN_SLAB_UAF	"slab-use-after-free"
#endif

#if IS_ENABLED(CONFIG_KUNIT)
#include <kunit/resource.h>
#include <kunit/test.h>

/* A case marked slow (6.6+) is an ordinary one before. */
#ifndef KUNIT_CASE_SLOW
#define KUNIT_CASE_SLOW(test_name) KUNIT_CASE(test_name)
#endif

#ifndef SLABX_HAVE_KUNIT_ACTIONS
/*
 * KUnit's deferred actions (6.5+), on the resources older kernels have:
 * each action is a resource whose free() calls it, so that KUnit runs the
 * actions when a case ends, the last added first, as 6.5 does. Removing
 * an action clears it before its resource goes.
 */
typedef void (kunit_action_t)(void *);

struct slabx_kunit_action {
	kunit_action_t *action;
	void *ctx;
};

static inline int slabx_kunit_action_init(struct kunit_resource *res,
					  void *action)
{
	res->data = action;
	return 0;
}

static inline void slabx_kunit_action_free(struct kunit_resource *res)
{
	struct slabx_kunit_action *a = res->data;

	if (a->action)
		a->action(a->ctx);
	kfree(a);
}

static inline int kunit_add_action(struct kunit *test, kunit_action_t *action,
				   void *ctx)
{
	struct slabx_kunit_action *a = kmalloc(sizeof(*a), GFP_KERNEL);

	if (!a)
		return -ENOMEM;
	a->action = action;
	a->ctx = ctx;
	if (!kunit_alloc_resource(test, slabx_kunit_action_init,
				  slabx_kunit_action_free, GFP_KERNEL, a)) {
		kfree(a);
		return -ENOMEM;
	}
	return 0;
}

static inline int kunit_add_action_or_reset(struct kunit *test,
					    kunit_action_t *action, void *ctx)
{
	int ret = kunit_add_action(test, action, ctx);

	if (ret)
		action(ctx);
	return ret;
}

static inline bool slabx_kunit_action_match(struct kunit *test,
					    struct kunit_resource *res,
					    void *match)
{
	struct slabx_kunit_action *a = res->data, *m = match;

	return res->free == slabx_kunit_action_free &&
	       a->action == m->action && a->ctx == m->ctx;
}

/* End the latest matching action now; run it first if @run. */
static inline void slabx_kunit_action_end(struct kunit *test,
					  kunit_action_t *action, void *ctx,
					  bool run)
{
	struct slabx_kunit_action m = { .action = action, .ctx = ctx };
	struct kunit_resource *res;

	res = kunit_find_resource(test, slabx_kunit_action_match, &m);
	if (!res)
		return;
	if (!run)
		((struct slabx_kunit_action *)res->data)->action = NULL;
	kunit_remove_resource(test, res);
	kunit_put_resource(res);
}

static inline void kunit_remove_action(struct kunit *test,
				       kunit_action_t *action, void *ctx)
{
	slabx_kunit_action_end(test, action, ctx, false);
}

static inline void kunit_release_action(struct kunit *test,
					kunit_action_t *action, void *ctx)
{
	slabx_kunit_action_end(test, action, ctx, true);
}
#endif /* !SLABX_HAVE_KUNIT_ACTIONS */
#endif /* CONFIG_KUNIT */

#endif /* _SLABX_COMPAT_H */

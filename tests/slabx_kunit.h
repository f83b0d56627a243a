/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by slabx's KUnit suites: counter snapshots, pinning the
 * test thread, the common cache set-ups, and the cleanups that undo what a
 * case set up when it ends, however it ends.
 */
#ifndef _SLABX_KUNIT_H
#define _SLABX_KUNIT_H

#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/task.h>

#include "../slabx.h"
#include "../slabx_compat.h"
#include "slabx_test_hooks.h"

/*
 * This header is included by each KUnit module of slabx, once: each is
 * GPL and may call the test hooks of slabx_test_hooks.h.
 */
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(SLABX_TEST);

struct snap {
	unsigned long v[SLABX_NR_STATS];
};

static inline void snap_take(struct slabx_cache *s, struct snap *sn)
{
	int i;

	for (i = 0; i < SLABX_NR_STATS; i++)
		sn->v[i] = slabx_cache_stat(s, i);
}

static inline unsigned long delta(struct slabx_cache *s, struct snap *sn,
				  enum slabx_stat_item item)
{
	return slabx_cache_stat(s, item) - sn->v[item];
}

static inline void pin(struct kunit *test, int cpu)
{
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(cpu)), 0);
}

/*
 * ---- cleanups ----------------------------------------------------------
 *
 * A failed KUNIT_ASSERT ends a case at once, so a case cannot undo what it
 * set up at its end by hand. The helpers below register a KUnit action for
 * each thing set up; KUnit runs the actions when the case ends (the last
 * registered first), after a failed assertion too, so that nothing leaks
 * into the following cases or the unloading: no cache left alive, no fault
 * injection left on, no CPU left offline, no kthread left running on
 * memory the case's end frees. A case that undoes something itself goes
 * through the matching helper, which cancels the action, so that nothing
 * is undone twice.
 */

static inline void cache_destroy_action(void *s)
{
	slabx_cache_destroy(s);
}

/*
 * slabx_cache_create() for a case: a cache it made is destroyed when the
 * case ends, unless cache_destroy() destroyed it first.
 * Return: what slabx_cache_create() returned, for the case to check.
 */
static inline struct slabx_cache *cache_create(struct kunit *test,
					       const char *name,
					       unsigned int size,
					       const struct slabx_cache_args *args)
{
	struct slabx_cache *s = slabx_cache_create(name, size, args);
	int ret;

	if (!s)
		return NULL;
	ret = kunit_add_action_or_reset(test, cache_destroy_action, s);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "no cleanup for %s: destroyed", name);
	return s;
}

/*
 * slabx_cache_destroy() of a cache of cache_create(), now instead of when
 * the case ends. Return: slabx_cache_destroy()'s result.
 */
static inline int cache_destroy(struct kunit *test, struct slabx_cache *s)
{
	kunit_remove_action(test, cache_destroy_action, s);
	return slabx_cache_destroy(s);
}

/*
 * Skip a case that needs caches with sheaves: slabx loaded with debug=1
 * makes every cache a %SLABX_DEBUG one, which has none.
 */
static inline void require_sheaves(struct kunit *test)
{
	struct slabx_cache *probe;
	struct slabx_info info;

	probe = slabx_cache_create("kunit-probe-sheaves", 64, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, probe);
	slabx_cache_info(probe, &info);
	slabx_cache_destroy(probe);
	if (!info.sheaf_capacity)
		kunit_skip(test, "needs sheaves, which slabx's debug=1 turns off");
}

/* A cache with sheaves of @capacity objects (0: the default). */
static inline struct slabx_cache *cache(struct kunit *test,
					const char *name, unsigned int size,
					unsigned int capacity)
{
	struct slabx_cache_args args = { .sheaf_capacity = capacity };
	struct slabx_cache *s = cache_create(test, name, size, &args);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	return s;
}

/* A fault injection hook of slabx_test_hooks.h: slabx_fault_inject_*(). */
typedef void (fault_inject_t)(int nr);

static inline void fault_inject_off(void *hook)
{
	((fault_inject_t *)hook)(0);
}

/*
 * Call @hook(@nr), and @hook(0) when the case ends unless fault_inject_end()
 * came first; however often a hook is set, it is reset once.
 */
static inline void fault_inject(struct kunit *test, fault_inject_t *hook,
				int nr)
{
	int ret;

	kunit_remove_action(test, fault_inject_off, (void *)hook);
	ret = kunit_add_action_or_reset(test, fault_inject_off, (void *)hook);
	KUNIT_ASSERT_EQ(test, ret, 0);
	hook(nr);
}

/* @hook(0) now, instead of when the case ends. */
static inline void fault_inject_end(struct kunit *test, fault_inject_t *hook)
{
	kunit_remove_action(test, fault_inject_off, (void *)hook);
	hook(0);
}

static inline void cpu_online_action(void *cpu)
{
	add_cpu((unsigned long)cpu);
}

/*
 * remove_cpu(@cpu); a CPU taken offline comes back online when the case
 * ends, unless bring_cpu_online() brought it back first.
 * Return: remove_cpu()'s result, or the error of registering the action
 * (the CPU is online again then).
 */
static inline int take_cpu_offline(struct kunit *test, unsigned int cpu)
{
	int ret = remove_cpu(cpu);

	if (ret)
		return ret;
	return kunit_add_action_or_reset(test, cpu_online_action,
					 (void *)(unsigned long)cpu);
}

/*
 * add_cpu(@cpu) now; when it fails, it is tried again when the case ends.
 * Return: add_cpu()'s result.
 */
static inline int bring_cpu_online(struct kunit *test, unsigned int cpu)
{
	int ret = add_cpu(cpu);

	if (!ret)
		kunit_remove_action(test, cpu_online_action,
				    (void *)(unsigned long)cpu);
	return ret;
}

struct kthread_join {
	struct task_struct *task;
	kunit_action_t *stop;
	void *ctx;
};

static inline void kthread_join_action(void *data)
{
	struct kthread_join *j = data;

	if (j->stop)
		j->stop(j->ctx);
	kthread_stop_put(j->task);
}

/*
 * Wake @task, just created with kthread_create*() and checked, a kthread
 * the case waits for. When the case ends, @stop(@ctx) is called (if @stop
 * is not NULL) to make @task return, and the end waits until it returned:
 * a case that ends early leaves no kthread running on memory or a cache
 * that its end frees. Neither is needed when the case waited for @task.
 * @task must return by itself or once @stop(@ctx) was called.
 * Return: 0, or -ENOMEM when @task was stopped instead (it never ran).
 * No assertion in here: it may be called with cpus_read_lock() held.
 */
static inline int start_kthread(struct kunit *test, struct task_struct *task,
				kunit_action_t *stop, void *ctx)
{
	struct kthread_join *j = kunit_kzalloc(test, sizeof(*j), GFP_KERNEL);
	int ret;

	if (!j) {
		kthread_stop(task);
		return -ENOMEM;
	}
	j->task = get_task_struct(task);
	j->stop = stop;
	j->ctx = ctx;
	ret = kunit_add_action(test, kthread_join_action, j);
	if (ret) {
		kthread_stop_put(task);
		return ret;
	}
	wake_up_process(task);
	return 0;
}

static inline void alloc_n(struct kunit *test, struct slabx_cache *s,
			   void **p, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		p[i] = slabx_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
	}
}

static inline void free_n(struct slabx_cache *s, void **p, int n)
{
	int i;

	for (i = 0; i < n; i++)
		slabx_free(s, p[i]);
}

/* Objects held outside sheaves and barns, after flushing both. */
static inline unsigned long objects_held(struct slabx_cache *s)
{
	struct slabx_info info;

	slabx_cache_shrink(s);
	slabx_cache_info(s, &info);
	return info.objects_inuse;
}

/* References on the page of @obj's slab (or pool area): on its head page. */
static inline int slab_page_refs(const void *obj)
{
	return page_ref_count(virt_to_head_page(obj));
}

/* Wait (5 s at most) until the any-context path's deferred frees are done. */
static inline void nolock_pages_drained(void)
{
	int i;

	for (i = 0; i < 250 &&
	     slabx_nolock_pages_stat(SLABX_NOLOCK_PAGES_DEFERRED_PENDING); i++)
		msleep(20);
}

/* For sort(): pointers in address order. */
static inline int cmp_ptr(const void *a, const void *b)
{
	unsigned long x = *(unsigned long *)a, y = *(unsigned long *)b;

	return x < y ? -1 : x > y;
}

/* Two online CPUs of one node, or -1. */
static inline int same_node_pair(int *b)
{
	int a, c;

	for_each_online_cpu(a)
		for_each_online_cpu(c)
			if (a != c && cpu_to_node(a) == cpu_to_node(c)) {
				*b = c;
				return a;
			}
	return -1;
}

/* The last online CPU but 0, to take offline; -1 when there is none. */
static inline int hotplug_victim(void)
{
	int cpu, victim = -1;

	for_each_online_cpu(cpu)
		if (cpu)
			victim = cpu;
	return victim;
}

/* ---- a drained cache, for the reserve suites ---------------------------- */

/* Most objects one case drains from a cache. */
#define DRAIN_MAX	4096

static inline struct slabx_info info_of(struct slabx_cache *s)
{
	struct slabx_info info;

	slabx_cache_info(s, &info);
	return info;
}

/* A cache without sheaves: every free object is in a slab, on no CPU. */
static inline struct slabx_cache *flat_cache(struct kunit *test,
					     const char *name)
{
	struct slabx_cache_args args = { .flags = SLABX_NO_SHEAVES };
	struct slabx_cache *s = cache_create(test, name, 64, &args);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	return s;
}

struct drained {
	struct slabx_cache *s;
	unsigned int nr;
	void *objs[DRAIN_MAX];
};

static inline void drained_free(void *data)
{
	struct drained *d = data;

	while (d->nr)
		slabx_free(d->s, d->objs[--d->nr]);
}

/*
 * Make the page allocator fail for slabx and take every free object @s
 * has, so that only reserves are left. Both are undone when the case
 * ends (the objects freed first). Needs slabx_test_hooks.h.
 */
static inline void starve(struct kunit *test, struct slabx_cache *s)
{
	struct drained *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	void *obj;

	KUNIT_ASSERT_NOT_NULL(test, d);
	d->s = s;
	fault_inject(test, slabx_fault_inject_pages, -1);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, drained_free, d),
			0);
	while ((obj = slabx_alloc(s, GFP_KERNEL | __GFP_NOWARN))) {
		KUNIT_ASSERT_LT(test, d->nr, DRAIN_MAX);
		d->objs[d->nr++] = obj;
	}
}

#endif /* _SLABX_KUNIT_H */

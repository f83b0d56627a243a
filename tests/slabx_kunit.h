/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by slabx's KUnit suites: counter snapshots, pinning the
 * test thread, and the common cache set-ups.
 */
#ifndef _SLABX_KUNIT_H
#define _SLABX_KUNIT_H

#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/sched.h>

#include "../slabx.h"

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

static inline struct slabx_cache *cache(struct kunit *test,
					const char *name, unsigned int size,
					unsigned int capacity)
{
	struct slabx_cache_args args = { .sheaf_capacity = capacity };
	struct slabx_cache *s = slabx_cache_create(name, size, &args);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	return s;
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

#endif /* _SLABX_KUNIT_H */

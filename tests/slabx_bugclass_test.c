// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for bug classes mainline met after merging sheaves (issue 29,
 * items 7, 8 and 9), one case each:
 *
 * - bulk frees of arrays that mix objects of both nodes, longer than one
 *   batch (mainline leaked remote objects in free_to_pcs_bulk() and lost
 *   local ones when the remote batch filled): every object accounted for
 *   after slabx_free_bulk(), and none handed out twice afterwards;
 * - recursion into slabx: a constructor that allocates from another cache
 *   and from slabx_kmalloc(); slabx_free_rcu() from an RCU callback; an
 *   allocation from a probe on slabx's own slabx_alloc tracepoint. With
 *   kmemleak on (scripts/check.sh boots this suite so), every case
 *   allocates and frees sheaves while kmemleak tracks them;
 * - refills where blocking is not allowed: a storm of GFP_NOWAIT and
 *   GFP_ATOMIC allocations on every CPU while every page a GFP_NOWAIT
 *   caller could get is pinned (mainline had to add __GFP_NOWARN to its
 *   refill paths): no warning, no livelock, no object handed out twice.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/gfp.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/percpu.h>
#include <linux/prandom.h>
#include <linux/rcupdate.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/tracepoint.h>

#include "../slabx.h"
#include "slabx_kunit.h"

/* Longest array given to slabx_free_bulk(). */
#define BULK_MAX	4096

/* ---- bulk frees of mixed-node arrays ---------------------------------------- */

enum bulk_mix {
	MIX_ALTERNATE,		/* local, remote, local, ... */
	MIX_RUNS,		/* runs of 65 remote, then 3 local */
	MIX_ALL_REMOTE,
	MIX_REMOTE_THEN_LOCAL,	/* first half remote, the rest local */
	MIX_RANDOM,
	MIX_NR
};

static const char * const mix_names[MIX_NR] = {
	"alternate", "runs", "all-remote", "remote-then-local", "random",
};

static bool mix_remote(enum bulk_mix mix, unsigned int i, unsigned int n,
		       struct rnd_state *rnd)
{
	switch (mix) {
	case MIX_ALTERNATE:
		return i & 1;
	case MIX_RUNS:
		return i % 68 < 65;
	case MIX_ALL_REMOTE:
		return true;
	case MIX_REMOTE_THEN_LOCAL:
		return i < n / 2;
	default:
		return prandom_u32_state(rnd) & 1;
	}
}

struct bulk_ctx {
	void **p;	/* what slabx_free_bulk() gets (and may reorder) */
	void **copy;	/* the same objects, for the checks */
};

static struct bulk_ctx *bulk_ctx(struct kunit *test)
{
	struct bulk_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->p = kunit_kmalloc_array(test, BULK_MAX, sizeof(void *), GFP_KERNEL);
	c->copy = kunit_kmalloc_array(test, BULK_MAX, sizeof(void *),
				      GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->p);
	KUNIT_ASSERT_NOT_NULL(test, c->copy);
	return c;
}

/* The pointers of @p, sorted, hold no duplicate. */
static bool all_distinct(void **p, unsigned int n)
{
	unsigned int i;

	sort(p, n, sizeof(*p), cmp_ptr, NULL);
	for (i = 1; i < n; i++)
		if (p[i] == p[i - 1])
			return false;
	return true;
}

/*
 * Fill @c->p with @n objects, each of the node @mix picks; assert that each
 * is of that node. Return: how many are remote.
 */
static unsigned int bulk_fill(struct kunit *test, struct slabx_cache *s,
			      struct bulk_ctx *c, unsigned int n,
			      enum bulk_mix mix, int local, int remote)
{
	struct rnd_state rnd;
	unsigned int i, nr_remote = 0;

	prandom_seed_state(&rnd, n);
	for (i = 0; i < n; i++) {
		bool r = mix_remote(mix, i, n, &rnd);
		int nid = r ? remote : local;

		c->p[i] = slabx_alloc_node(s, GFP_KERNEL, nid);
		KUNIT_ASSERT_NOT_NULL(test, c->p[i]);
		KUNIT_ASSERT_EQ(test, page_to_nid(virt_to_page(c->p[i])), nid);
		nr_remote += r;
	}
	memcpy(c->copy, c->p, n * sizeof(void *));
	return nr_remote;
}

/* Array lengths: every one to 17, then around the batch sizes, to 4096. */
static const unsigned int bulk_lengths[] = {
	1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 66,
	100, 127, 128, 129, 130, 200, 255, 256, 257, 300, 511, 512, 513, 700,
	1023, 1024, 1025, 1500, 2047, 2048, 2049, 3000, 4095, 4096,
};

struct bulk_param {
	const char *name;
	unsigned int capacity;	/* sheaf capacity, 0: the default */
	unsigned int flags;
	unsigned int size;
};

static const struct bulk_param bulk_params[] = {
	{ "default-sheaves-64B", 0, 0, 64 },
	{ "sheaf-of-4-32B", 4, 0, 32 },
	{ "sheaf-of-1024-16B", 1024, 0, 16 },
	{ "no-sheaves-128B", 0, SLABX_NO_SHEAVES, 128 },
};

static void bulk_param_desc(const struct bulk_param *p, char *desc)
{
	strscpy(desc, p->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(bulk, bulk_params, bulk_param_desc);

/*
 * slabx_free_bulk() of @n objects mixed as @mix, from a CPU of node @local:
 * afterwards the cache holds what it held before, no free was refused, and
 * @n objects allocated again (of the same nodes) are all distinct.
 */
static void bulk_one(struct kunit *test, struct slabx_cache *s,
		     struct bulk_ctx *c, unsigned int n, enum bulk_mix mix,
		     int local, int remote, unsigned long base)
{
	unsigned long freed, invalid;
	unsigned int nr_remote;

	nr_remote = bulk_fill(test, s, c, n, mix, local, remote);
	freed = slabx_cache_stat(s, SLABX_FREE);
	invalid = slabx_cache_stat(s, SLABX_FREE_INVALID);
	slabx_free_bulk(s, n, c->p);
	KUNIT_ASSERT_EQ_MSG(test, slabx_cache_stat(s, SLABX_FREE) - freed,
			    (unsigned long)n, "%s, %u objects (%u remote)",
			    mix_names[mix], n, nr_remote);
	KUNIT_ASSERT_EQ_MSG(test, slabx_cache_stat(s, SLABX_FREE_INVALID),
			    invalid, "%s, %u objects (%u remote)",
			    mix_names[mix], n, nr_remote);
	KUNIT_ASSERT_EQ_MSG(test, objects_held(s), base,
			    "%s, %u objects (%u remote): objects lost",
			    mix_names[mix], n, nr_remote);

	/* Again: no object may come twice, none may stay out. */
	bulk_fill(test, s, c, n, mix, local, remote);
	KUNIT_ASSERT_TRUE_MSG(test, all_distinct(c->copy, n),
			      "%s, %u objects (%u remote): handed out twice",
			      mix_names[mix], n, nr_remote);
	free_n(s, c->p, n);
}

static void free_bulk_mixed_nodes(struct kunit *test)
{
	const struct bulk_param *param = test->param_value;
	struct slabx_cache_args args = {
		.sheaf_capacity = param->capacity,
		.flags = param->flags,
	};
	struct bulk_ctx *c = bulk_ctx(test);
	int cpu, local, remote = NUMA_NO_NODE, nid;
	struct slabx_cache *s;
	unsigned long base;
	unsigned int i;
	enum bulk_mix mix;

	/* On a CPU of the first node; the remote node is another one. */
	cpu = cpumask_first(cpu_online_mask);
	pin(test, cpu);
	local = cpu_to_node(cpu);
	for_each_node_state(nid, N_MEMORY)
		if (nid != local && remote == NUMA_NO_NODE)
			remote = nid;
	if (remote == NUMA_NO_NODE) {
		kunit_info(test, "one node: every object is local\n");
		remote = local;
	}

	s = cache_create(test, "kunit-bulk-mix", param->size, &args);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	base = objects_held(s);
	for (mix = 0; mix < MIX_NR; mix++) {
		for (i = 0; i < ARRAY_SIZE(bulk_lengths); i++)
			bulk_one(test, s, c, bulk_lengths[i], mix, local, remote,
				 base);
		/* The objects allocated again, freed one by one. */
		KUNIT_ASSERT_EQ_MSG(test, objects_held(s), base, "%s",
				    mix_names[mix]);
	}
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

/* ---- a constructor that allocates from slabx ------------------------------- */

#define CTOR_MAGIC	0x5ab1c7011ULL

static struct slabx_cache *ctor_inner;
static atomic_t ctor_calls, ctor_nested_ok, ctor_nested_fail;

struct ctor_obj {
	u64 magic;
	u64 sum;
};

/*
 * Allocate from another cache and from slabx_kmalloc() while slabx builds
 * a slab of the outer cache; free both at once (a constructor runs once
 * per object, and nothing would free what it kept). GFP_NOWAIT: a
 * constructor is told nothing about its context.
 */
static void ctor_allocating(void *obj)
{
	struct ctor_obj *o = obj;
	u64 *inner = slabx_alloc(ctor_inner, GFP_NOWAIT);
	u64 *km = slabx_kmalloc(48, GFP_NOWAIT);

	atomic_inc(&ctor_calls);
	if (inner && km) {
		*inner = CTOR_MAGIC;
		*km = CTOR_MAGIC;
		atomic_inc(&ctor_nested_ok);
	} else {
		atomic_inc(&ctor_nested_fail);
	}
	o->magic = CTOR_MAGIC;
	o->sum = (inner ? *inner : 0) + (km ? *km : 0);
	slabx_kfree(km);
	if (inner)
		slabx_free(ctor_inner, inner);
}

static void ctor_allocates_from_slabx(struct kunit *test)
{
	struct slabx_cache_args args = { .ctor = ctor_allocating };
	int i, n = 2048, nid[2] = { first_online_node, first_online_node };
	struct slabx_cache *outer;
	unsigned long inner_base;
	void **p;

	p = kunit_kcalloc(test, n, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	if (next_online_node(nid[0]) < MAX_NUMNODES)
		nid[1] = next_online_node(nid[0]);
	atomic_set(&ctor_calls, 0);
	atomic_set(&ctor_nested_ok, 0);
	atomic_set(&ctor_nested_fail, 0);
	ctor_inner = cache(test, "kunit-ctor-inner", 64, 0);
	inner_base = objects_held(ctor_inner);
	outer = cache_create(test, "kunit-ctor-outer", sizeof(struct ctor_obj),
			     &args);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, outer);

	/* Single, bulk and node allocations: every path to a new slab. */
	for (i = 0; i < n / 2; i++) {
		p[i] = slabx_alloc(outer, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
	}
	KUNIT_ASSERT_EQ(test, slabx_alloc_bulk(outer, GFP_KERNEL, n / 4,
					       p + n / 2), n / 4);
	for (i = n / 2 + n / 4; i < n; i++) {
		p[i] = slabx_alloc_node(outer, GFP_KERNEL, nid[i % 2]);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
	}
	for (i = 0; i < n; i++) {
		struct ctor_obj *o = p[i];

		KUNIT_EXPECT_EQ(test, o->magic, CTOR_MAGIC);
		if (o->magic != CTOR_MAGIC)
			break;
	}
	kunit_info(test, "%d constructor calls, %d nested allocations failed\n",
		   atomic_read(&ctor_calls), atomic_read(&ctor_nested_fail));
	KUNIT_EXPECT_GE(test, atomic_read(&ctor_calls), n);
	KUNIT_EXPECT_GT(test, atomic_read(&ctor_nested_ok), 0);
	slabx_free_bulk(outer, n, p);
	KUNIT_EXPECT_EQ(test, objects_held(outer), 0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, outer), 0);
	KUNIT_EXPECT_EQ(test, objects_held(ctor_inner), inner_base);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, ctor_inner), 0);
	ctor_inner = NULL;
}

/* ---- slabx_free_rcu() from an RCU callback ---------------------------------- */

#define RCU_CB_OBJS	64

struct rcu_cb_obj {
	struct rcu_head head;	/* the test's, not slabx's */
	unsigned int tag;
};

static struct slabx_cache *rcu_cb_cache;
static atomic_t rcu_cb_done;
/*
 * Per object (by tag), kept outside it, which may be reused once its grace
 * period ended: a grace period cookie taken before the free, the CPU.
 */
static unsigned long rcu_cb_gp[RCU_CB_OBJS];
static int rcu_cb_cpu[RCU_CB_OBJS];

static void rcu_cb_free(struct rcu_head *head)
{
	struct rcu_cb_obj *o = container_of(head, struct rcu_cb_obj, head);

	unsigned int tag = o->tag;

	WRITE_ONCE(rcu_cb_cpu[tag], raw_smp_processor_id());
	/*
	 * The cookie before the free: the object may come back only once
	 * this grace period, which began before the free, has ended.
	 */
	WRITE_ONCE(rcu_cb_gp[tag], get_state_synchronize_rcu());
	slabx_free_rcu(rcu_cb_cache, o);
	atomic_inc(&rcu_cb_done);
}

static void free_rcu_from_rcu_callback(struct kunit *test)
{
	struct rcu_cb_obj *objs[RCU_CB_OBJS];
	unsigned long *gps = rcu_cb_gp, base, rcu_done;
	void **again;
	int i, j, n_again = 4 * RCU_CB_OBJS, early = 0;
	struct slabx_info info;

	again = kunit_kcalloc(test, n_again, sizeof(*again), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, again);
	rcu_cb_cache = cache(test, "kunit-rcu-cb", sizeof(struct rcu_cb_obj),
			     8);
	base = objects_held(rcu_cb_cache);
	rcu_done = slabx_cache_stat(rcu_cb_cache, SLABX_FREE_RCU_DONE);
	atomic_set(&rcu_cb_done, 0);
	for (i = 0; i < RCU_CB_OBJS; i++) {
		objs[i] = slabx_alloc(rcu_cb_cache, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
		objs[i]->tag = i;
	}
	for (i = 0; i < RCU_CB_OBJS; i++)
		call_rcu(&objs[i]->head, rcu_cb_free);
	/* Our callbacks have run: every object is in slabx_free_rcu(). */
	rcu_barrier();
	KUNIT_ASSERT_EQ(test, atomic_read(&rcu_cb_done), RCU_CB_OBJS);

	/*
	 * Allocate on every CPU that ran a callback: an object handed out
	 * before its grace period ended is reused too early.
	 */
	for (i = 0; i < RCU_CB_OBJS; i++) {
		int cpu = READ_ONCE(rcu_cb_cpu[i]), k;

		if (!cpu_online(cpu))
			continue;
		pin(test, cpu);
		for (k = 0; k < n_again; k++) {
			again[k] = slabx_alloc(rcu_cb_cache, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, again[k]);
			for (j = 0; j < RCU_CB_OBJS; j++)
				if (again[k] == objs[j] &&
				    !poll_state_synchronize_rcu(gps[j]))
					early++;
		}
		free_n(rcu_cb_cache, again, n_again);
		break;
	}
	KUNIT_EXPECT_EQ_MSG(test, early, 0,
			    "objects freed by slabx_free_rcu() in an RCU callback came back within their grace period");

	slabx_rcu_barrier(rcu_cb_cache);
	for (i = 0; i < RCU_CB_OBJS; i++)
		KUNIT_EXPECT_TRUE(test, poll_state_synchronize_rcu(gps[i]));
	slabx_cache_info(rcu_cb_cache, &info);
	KUNIT_EXPECT_EQ(test, info.objects_rcu_waiting, 0UL);
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(rcu_cb_cache,
					       SLABX_FREE_RCU_DONE) - rcu_done,
			(unsigned long)RCU_CB_OBJS);
	KUNIT_EXPECT_EQ(test, objects_held(rcu_cb_cache), base);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, rcu_cb_cache), 0);
	rcu_cb_cache = NULL;
}

/* ---- an allocation from a probe on slabx's own tracepoint ------------------- */

#ifdef CONFIG_TRACEPOINTS
/*
 * slabx.ko exports none of its tracepoints (no EXPORT_TRACEPOINT_SYMBOL),
 * so register_trace_slabx_alloc() cannot link from another module: the
 * tracepoint is found through the module notifier, which is told of every
 * module with tracepoints when registered, and the probe is registered
 * with tracepoint_probe_register().
 */
struct tp_find {
	const char *name;
	struct tracepoint *tp;
};

static struct tp_find tp_find;

static int tp_find_notify(struct notifier_block *nb, unsigned long val,
			  void *data)
{
	struct tp_module *tp_mod = data;
	struct module *mod = tp_mod->mod;
	unsigned int i;

	if (val != MODULE_STATE_COMING || strcmp(mod->name, "slabx"))
		return NOTIFY_OK;
	for (i = 0; i < mod->num_tracepoints; i++) {
		struct tracepoint *tp =
			tracepoint_ptr_deref(&mod->tracepoints_ptrs[i]);

		if (!strcmp(tp->name, tp_find.name))
			tp_find.tp = tp;
	}
	return NOTIFY_OK;
}

static struct notifier_block tp_find_nb = {
	.notifier_call = tp_find_notify,
};

static struct tracepoint *find_slabx_tracepoint(const char *name)
{
	tp_find.name = name;
	tp_find.tp = NULL;
	if (register_tracepoint_module_notifier(&tp_find_nb))
		return NULL;
	unregister_tracepoint_module_notifier(&tp_find_nb);
	return tp_find.tp;
}

struct probe_ctx {
	struct slabx_cache *inner;
	atomic_t hits, nested_ok, nested_fail, recursion_stopped;
};

static DEFINE_PER_CPU(int, in_probe);

/* The prototype of slabx_alloc's probes (slabx_trace.h); path is an enum. */
static void probe_alloc(void *data, struct slabx_cache *s, const void *obj,
			gfp_t gfp, int path)
{
	struct probe_ctx *ctx = data;
	void *p;

	/* Probes run with preemption off: this CPU's flag is stable. */
	if (this_cpu_read(in_probe)) {
		atomic_inc(&ctx->recursion_stopped);
		return;
	}
	this_cpu_write(in_probe, 1);
	atomic_inc(&ctx->hits);
	/*
	 * Preemption is off: on PREEMPT_RT only the any-context calls may
	 * allocate here (the page allocator's locks sleep there).
	 */
	if (!IS_ENABLED(CONFIG_PREEMPT_RT)) {
		p = slabx_alloc(ctx->inner, GFP_NOWAIT);
		if (p) {
			atomic_inc(&ctx->nested_ok);
			slabx_free(ctx->inner, p);
		} else {
			atomic_inc(&ctx->nested_fail);
		}
		p = slabx_kmalloc(40, GFP_ATOMIC);
		if (p)
			atomic_inc(&ctx->nested_ok);
		slabx_kfree(p);
	}
	p = slabx_alloc_nolock(ctx->inner, 0);
	if (p) {
		atomic_inc(&ctx->nested_ok);
		slabx_free_nolock(ctx->inner, p);
	} else {
		atomic_inc(&ctx->nested_fail);
	}
	this_cpu_write(in_probe, 0);
}

static void probe_unregister_action(void *data)
{
	struct probe_ctx *ctx = data;

	tracepoint_probe_unregister(tp_find.tp, (void *)probe_alloc, ctx);
	tracepoint_synchronize_unregister();
}

static void alloc_from_tracepoint_probe(struct kunit *test)
{
	struct probe_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	struct slabx_cache *outer;
	unsigned long inner_base, outer_base;
	void *p[64];
	int i, round, ret;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	if (!find_slabx_tracepoint("slabx_alloc"))
		kunit_skip(test, "no slabx_alloc tracepoint found");
	ctx->inner = cache(test, "kunit-probe-inner", 96, 0);
	outer = cache(test, "kunit-probe-outer", 64, 0);
	inner_base = objects_held(ctx->inner);
	outer_base = objects_held(outer);

	ret = tracepoint_probe_register(tp_find.tp, (void *)probe_alloc, ctx);
	KUNIT_ASSERT_EQ(test, ret, 0);
	ret = kunit_add_action_or_reset(test, probe_unregister_action, ctx);
	KUNIT_ASSERT_EQ(test, ret, 0);

	for (round = 0; round < 32; round++) {
		for (i = 0; i < ARRAY_SIZE(p); i++) {
			p[i] = slabx_alloc(outer, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, p[i]);
		}
		free_n(outer, p, ARRAY_SIZE(p));
		KUNIT_ASSERT_EQ(test, slabx_alloc_bulk(outer, GFP_KERNEL,
						       ARRAY_SIZE(p), p),
				(int)ARRAY_SIZE(p));
		slabx_free_bulk(outer, ARRAY_SIZE(p), p);
		p[0] = slabx_alloc_nolock(outer, 0);
		if (p[0])
			slabx_free_nolock(outer, p[0]);
		p[0] = slabx_kmalloc(200, GFP_KERNEL);
		slabx_kfree(p[0]);
	}
	kunit_release_action(test, probe_unregister_action, ctx);

	kunit_info(test, "%d probe hits, %d nested allocations, %d failed, %d recursions stopped\n",
		   atomic_read(&ctx->hits), atomic_read(&ctx->nested_ok),
		   atomic_read(&ctx->nested_fail),
		   atomic_read(&ctx->recursion_stopped));
	KUNIT_EXPECT_GE(test, atomic_read(&ctx->hits), 32 * 2 * 64);
	KUNIT_EXPECT_GT(test, atomic_read(&ctx->nested_ok), 0);
	/* The nested allocations fire the event again, on this CPU. */
	KUNIT_EXPECT_GT(test, atomic_read(&ctx->recursion_stopped), 0);
	slabx_rcu_barrier(ctx->inner);
	KUNIT_EXPECT_EQ(test, objects_held(ctx->inner), inner_base);
	KUNIT_EXPECT_EQ(test, objects_held(outer), outer_base);
}
#else
static void alloc_from_tracepoint_probe(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_TRACEPOINTS (the kcsan kernel has none)");
}
#endif

/* ---- GFP_NOWAIT and GFP_ATOMIC storm under memory pressure ---------------- */

/*
 * 480 B objects, eight to a page: the storm needs new slabs soon, and
 * those are what the pressure refuses.
 */
#define STORM_SIZE	480
#define STORM_KMALLOC	200	/* slabx_kmalloc()'s 256 B class */
#define STORM_HOLD	64	/* cache objects a thread holds at most */
#define STORM_KM_HOLD	16	/* slabx_kmalloc() objects held at most */
#define STORM_BULK	16
/* Operations per thread: 8 vCPUs share 2 host cores under TCG. */
#define STORM_OPS	3000
/*
 * Every this many operations a thread takes again every block of the
 * slab order that came back (slabx's shrinker, woken by the pinning,
 * gives back empty slabs all along).
 */
#define STORM_PROBE	16
/*
 * At its end a thread allocates with GFP_NOWAIT until it gets NULL, at
 * most this many objects, taking back what came back every
 * STORM_PROBE of them: a refill that cannot succeed, for sure.
 */
#define STORM_UNTIL_NULL	4096
/*
 * Pages given back after the pinning, before the storm: its first
 * operations make slabs from them (on one CPU the storm got no object at
 * all without them, every page of the first refill pinned), then it runs
 * out. A thread takes back what came back after its first STORM_PROBE
 * operations, not before.
 */
#define STORM_ROOM	32
/* Wait this long for a thread; beyond it, it is stuck (livelock). */
#define STORM_TIMEOUT	(120 * HZ)
/* The largest blocks pinned first: fewer calls to take most memory. */
#define PIN_MAX_ORDER	9
/*
 * Pages are taken as a GFP_NOWAIT caller takes them: down to the min
 * watermark, never into the reserves below it, never reclaiming (no OOM).
 */
#define PIN_GFP		(GFP_NOWAIT | __GFP_NOWARN | __GFP_NORETRY)
/*
 * GFP_NOWAIT as callers of Linux 6.1 pass it, and of 6.12 before 6.18
 * made it imply __GFP_NOWARN (Debian's 6.12 has that): a failed refill
 * with it warns unless slabx adds __GFP_NOWARN. GFP_ATOMIC never had it.
 */
#define STORM_NOWAIT	(GFP_NOWAIT & ~__GFP_NOWARN)

/* Pages taken from the page allocator; the order of each in ->private. */
struct pinned {
	spinlock_t lock;	/* guards the three below: threads pin too */
	struct list_head pages;
	unsigned long nr;	/* in pages */
	bool released;
};

static void pinned_add(struct pinned *pin, struct page *page,
		       unsigned int order)
{
	unsigned long flags;

	spin_lock_irqsave(&pin->lock, flags);
	if (!pin->released) {
		set_page_private(page, order);
		list_add(&page->lru, &pin->pages);
		pin->nr += 1UL << order;
		page = NULL;
	}
	spin_unlock_irqrestore(&pin->lock, flags);
	if (page)	/* released already: the case is ending */
		__free_pages(page, order);
}

/*
 * A KUnit action: the pages go back however the case ends, first of all
 * (registered last), so that no later step runs starved.
 */
static void pinned_release(void *data)
{
	struct pinned *pin = data;
	struct page *page, *tmp;
	unsigned long flags;
	LIST_HEAD(pages);

	spin_lock_irqsave(&pin->lock, flags);
	pin->released = true;
	list_splice_init(&pin->pages, &pages);
	spin_unlock_irqrestore(&pin->lock, flags);
	list_for_each_entry_safe(page, tmp, &pages, lru) {
		unsigned int order = page_private(page);

		list_del(&page->lru);
		set_page_private(page, 0);
		__free_pages(page, order);
	}
}

/* Take every page a GFP_NOWAIT caller could get, largest blocks first. */
static void pin_free_memory(struct pinned *pin)
{
	struct page *page;
	int order;

	for (order = PIN_MAX_ORDER; order >= 0; order--)
		while ((page = alloc_pages(PIN_GFP, order)))
			pinned_add(pin, page, order);
}

/* Free pinned blocks again, the last pinned first, @nr pages at least. */
static void pinned_give_back(struct pinned *pin, unsigned long nr)
{
	struct page *page;
	unsigned long flags;
	unsigned int order = 0;

	while (nr) {
		spin_lock_irqsave(&pin->lock, flags);
		page = list_first_entry_or_null(&pin->pages, struct page, lru);
		if (page) {
			list_del(&page->lru);
			order = page_private(page);
			pin->nr -= 1UL << order;
		}
		spin_unlock_irqrestore(&pin->lock, flags);
		if (!page)
			return;
		set_page_private(page, 0);
		__free_pages(page, order);
		nr -= min_t(unsigned long, nr, 1UL << order);
	}
}

/*
 * Every block of @order that came back, pinned with the rest: what slabx
 * gives back (its shrinker, woken by the pinning, releases empty slabs)
 * is taken again. Return: whether any came.
 */
static bool pin_what_came_back(struct pinned *pin, unsigned int order)
{
	struct page *page;
	bool came = false;

	while ((page = alloc_pages(PIN_GFP, order))) {
		pinned_add(pin, page, order);
		came = true;
	}
	return came;
}

struct storm {
	struct slabx_cache *s;
	struct pinned *pin;
	unsigned int order;		/* of the cache's slabs */
	struct completion go;
	atomic_t stop;
	atomic_long_t allocs;		/* objects handed out */
	atomic_long_t nulls;		/* of which GFP_NOWAIT calls got NULL */
	atomic_long_t nulls_atomic;	/* GFP_ATOMIC calls that got NULL */
	atomic_long_t bad;		/* objects found with a foreign tag */
	atomic_long_t pages_short;	/* probes that found no slab's pages */
	atomic_long_t pages_found;	/* probes that found some (pinned too) */
};

struct storm_thread {
	struct storm *st;
	unsigned int id;
	struct completion done;
	struct rnd_state rnd;
	u64 seq;
	void *obj[STORM_HOLD];
	u64 tag[STORM_HOLD];
	void *km[STORM_KM_HOLD];
	u64 km_tag[STORM_KM_HOLD];
	void *bulk[STORM_BULK];
	u64 bulk_tag;
	unsigned int nr_bulk;
};

/* A tag no other object of the storm carries: thread and sequence. */
static u64 storm_tag(struct storm_thread *t)
{
	return ((u64)t->id << 48) | ++t->seq;
}

/* The tag at both ends of the object, to be found there at its free. */
static void tag_set(void *obj, size_t size, u64 tag)
{
	u64 *p = obj;

	p[0] = tag;
	p[size / sizeof(u64) - 1] = ~tag;
}

static void tag_check(struct storm *st, const void *obj, size_t size,
		      u64 tag)
{
	const u64 *p = obj;

	if (p[0] != tag || p[size / sizeof(u64) - 1] != ~tag)
		atomic_long_inc(&st->bad);
}

/* @obj, counted, or NULL: none came, or a bad pointer (never touched). */
static void *storm_got(struct storm *st, void *obj, gfp_t gfp)
{
	if (!obj) {
		atomic_long_inc(gfp & __GFP_HIGH ? &st->nulls_atomic :
			       &st->nulls);
		return NULL;
	}
	if (!IS_ALIGNED((unsigned long)obj, sizeof(u64)) ||
	    !virt_addr_valid(obj)) {
		atomic_long_inc(&st->bad);
		return NULL;	/* not an object: never touched */
	}
	atomic_long_inc(&st->allocs);
	return obj;
}

/*
 * slabx_alloc() in one of the contexts a GFP_NOWAIT or GFP_ATOMIC caller
 * has: a task, a softirq-off section, a hardirq-off section (not on
 * PREEMPT_RT, whose page allocator takes sleeping locks).
 */
static void *storm_alloc(struct storm_thread *t, unsigned int how)
{
	struct slabx_cache *s = t->st->s;
	gfp_t gfp = how & 1 ? GFP_ATOMIC : STORM_NOWAIT;
	unsigned long flags;
	void *obj;

	switch (how >> 1) {
	case 0:
		obj = slabx_alloc(s, gfp);
		break;
	case 1:
		local_bh_disable();
		obj = slabx_alloc(s, gfp);
		local_bh_enable();
		break;
	default:
		if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
			obj = slabx_alloc(s, gfp);
			break;
		}
		local_irq_save(flags);
		obj = slabx_alloc(s, gfp);
		local_irq_restore(flags);
		break;
	}
	return storm_got(t->st, obj, gfp);
}

/*
 * A cache object's slot: free what it holds (in a softirq-off section at
 * times), or fill it.
 */
static void storm_slot(struct storm_thread *t, unsigned int i,
		       unsigned int how)
{
	void *obj = t->obj[i];

	if (obj) {
		tag_check(t->st, obj, STORM_SIZE, t->tag[i]);
		t->obj[i] = NULL;
		if (how & 2)
			local_bh_disable();
		slabx_free(t->st->s, obj);
		if (how & 2)
			local_bh_enable();
		return;
	}
	obj = storm_alloc(t, how % 6);
	if (obj) {
		t->tag[i] = storm_tag(t);
		tag_set(obj, STORM_SIZE, t->tag[i]);
		t->obj[i] = obj;
	}
}

/* A slabx_kmalloc() slot, as a cache object's. */
static void storm_km_slot(struct storm_thread *t, unsigned int i,
			  unsigned int how)
{
	gfp_t gfp = how & 1 ? GFP_ATOMIC : STORM_NOWAIT;
	void *obj = t->km[i];

	if (obj) {
		tag_check(t->st, obj, STORM_KMALLOC, t->km_tag[i]);
		t->km[i] = NULL;
		slabx_kfree(obj);
		return;
	}
	obj = storm_got(t->st, slabx_kmalloc(STORM_KMALLOC, gfp), gfp);
	if (obj) {
		t->km_tag[i] = storm_tag(t);
		tag_set(obj, STORM_KMALLOC, t->km_tag[i]);
		t->km[i] = obj;
	}
}

/* Give back, checked, the bulk taken last time. */
static void storm_bulk_free(struct storm_thread *t)
{
	unsigned int i;

	for (i = 0; i < t->nr_bulk; i++)
		tag_check(t->st, t->bulk[i], STORM_SIZE, t->bulk_tag + i);
	slabx_free_bulk(t->st->s, t->nr_bulk, t->bulk);
	t->nr_bulk = 0;
}

/* A new bulk, in a softirq-off section at times, for the one held. */
static void storm_bulk(struct storm_thread *t, unsigned int how)
{
	struct storm *st = t->st;
	gfp_t gfp = how & 1 ? GFP_ATOMIC : STORM_NOWAIT;
	unsigned int i;
	int got;

	storm_bulk_free(t);
	if (how & 2)
		local_bh_disable();
	got = slabx_alloc_bulk(st->s, gfp, STORM_BULK, t->bulk);
	if (how & 2)
		local_bh_enable();
	if (!got) {
		storm_got(st, NULL, gfp);
		return;
	}
	for (i = 0; i < got; i++)
		if (!storm_got(st, t->bulk[i], gfp))
			return;	/* a bad pointer: leave them be, counted */
	t->bulk_tag = t->seq + 1;
	t->seq += got;
	for (i = 0; i < got; i++)
		tag_set(t->bulk[i], STORM_SIZE, t->bulk_tag + i);
	t->nr_bulk = got;
}

/* Everything the thread holds back to slabx, checked. */
static void storm_thread_drain(struct storm_thread *t)
{
	unsigned int i;

	for (i = 0; i < STORM_HOLD; i++)
		if (t->obj[i])
			storm_slot(t, i, 0);
	for (i = 0; i < STORM_KM_HOLD; i++)
		if (t->km[i])
			storm_km_slot(t, i, 0);
	storm_bulk_free(t);
}

/*
 * GFP_NOWAIT allocations until one gets NULL (counted in @nulls by
 * storm_got()), chained through the objects, then all freed: with the
 * sheaves and slabs of the cache used up and what comes back taken
 * again, the refill that cannot succeed is met whatever the storm met.
 */
static void storm_until_null(struct storm_thread *t)
{
	struct storm *st = t->st;
	void *head = NULL, *obj;
	unsigned int i;

	for (i = 0; i < STORM_UNTIL_NULL && !atomic_read(&st->stop); i++) {
		if (!(i % STORM_PROBE))
			pin_what_came_back(st->pin, st->order);
		obj = storm_got(st, slabx_alloc(st->s, STORM_NOWAIT),
				STORM_NOWAIT);
		if (!obj)
			break;
		*(void **)obj = head;
		head = obj;
	}
	while (head) {
		obj = head;
		head = *(void **)obj;
		slabx_free(st->s, obj);
	}
}

static int storm_fn(void *arg)
{
	struct storm_thread *t = arg;
	struct storm *st = t->st;
	unsigned int op, r;

	wait_for_completion(&st->go);
	for (op = 0; op < STORM_OPS && !atomic_read(&st->stop); op++) {
		r = prandom_u32_state(&t->rnd);
		if (op % STORM_PROBE == STORM_PROBE - 1)
			atomic_long_inc(pin_what_came_back(st->pin, st->order) ?
					&st->pages_found : &st->pages_short);
		switch (r % 8) {
		case 0:
			storm_km_slot(t, (r >> 8) % STORM_KM_HOLD, r >> 4);
			break;
		case 1:
			if (!(op % 4)) {
				storm_bulk(t, r >> 4);
				break;
			}
			fallthrough;
		default:
			storm_slot(t, (r >> 8) % STORM_HOLD, r >> 4);
			break;
		}
		if (!(op % 64))
			cond_resched();
	}
	storm_thread_drain(t);
	storm_until_null(t);
	complete(&t->done);
	return 0;
}

/* A KUnit action: the threads stop soon, and go if they never went. */
static void storm_stop(void *data)
{
	struct storm *st = data;

	atomic_set(&st->stop, 1);
	complete_all(&st->go);
}

/* One storm thread per online CPU, waiting for @st->go. Return: how many. */
static int storm_start(struct kunit *test, struct storm *st,
		       struct storm_thread *t)
{
	struct task_struct *task;
	int cpu, nr = 0;

	for_each_online_cpu(cpu) {
		t[nr].st = st;
		t[nr].id = nr + 1;
		init_completion(&t[nr].done);
		prandom_seed_state(&t[nr].rnd, cpu + 1);
		task = kthread_create_on_cpu(storm_fn, &t[nr], cpu,
					     "slabx_storm/%u");
		KUNIT_ASSERT_FALSE(test, IS_ERR(task));
		KUNIT_ASSERT_EQ(test, start_kthread(test, task, storm_stop, st),
				0);
		nr++;
	}
	return nr;
}

/* Threads that did not finish within STORM_TIMEOUT, all together. */
static int storm_wait(struct storm_thread *t, int nr)
{
	unsigned long deadline = jiffies + STORM_TIMEOUT;
	int i, stuck = 0;

	for (i = 0; i < nr; i++) {
		long left = max_t(long, (long)(deadline - jiffies), 1);

		if (!wait_for_completion_timeout(&t[i].done, left))
			stuck++;
	}
	return stuck;
}

/*
 * Issue 29, item 7: GFP_NOWAIT and GFP_ATOMIC callers while the page
 * allocator has nothing for them (every page a GFP_NOWAIT caller could get
 * pinned, but STORM_ROOM given back for the first slabs). One thread per
 * CPU allocates with both (GFP_NOWAIT without the __GFP_NOWARN that 6.18
 * put into it), in a task, with softirqs off and (but on PREEMPT_RT)
 * with hardirqs off, from a cache,
 * in bulk and from a slabx_kmalloc() class, and frees. Refills that fail
 * must fail quietly (no allocation failure warning: the run's splat check
 * fails on one), promptly (every thread finishes its operations: no
 * livelock), and correctly (every object handed out is one no one else
 * holds; the counters balance once all is freed).
 *
 * Nothing in here allocates with GFP_KERNEL while the pages are pinned
 * (that would reclaim, or wake the OOM killer): the threads are started
 * before, the checks and logs come after the pages are back.
 */
static void nowait_storm_under_pressure(struct kunit *test)
{
	struct slabx_cache *km = slabx_kmalloc_cache(STORM_KMALLOC);
	struct storm *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	struct pinned *pin = kunit_kzalloc(test, sizeof(*pin), GFP_KERNEL);
	unsigned long km_base, nr_pinned;
	struct storm_thread *t;
	struct snap sn, km_sn;
	int nr, stuck;

	KUNIT_ASSERT_NOT_NULL(test, st);
	KUNIT_ASSERT_NOT_NULL(test, pin);
	KUNIT_ASSERT_NOT_NULL(test, km);
	t = kunit_kcalloc(test, num_online_cpus(), sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	spin_lock_init(&pin->lock);
	INIT_LIST_HEAD(&pin->pages);
	init_completion(&st->go);
	st->pin = pin;
	st->s = cache(test, "kunit-nowait-storm", STORM_SIZE, 0);
	st->order = info_of(st->s).order;
	km_base = objects_held(km);
	snap_take(st->s, &sn);
	snap_take(km, &km_sn);
	nr = storm_start(test, st, t);

	/* Registered last: undone first, before the threads are waited for. */
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pinned_release,
							pin), 0);
	pin_free_memory(pin);
	nr_pinned = pin->nr;
	pinned_give_back(pin, STORM_ROOM);
	complete_all(&st->go);
	stuck = storm_wait(t, nr);
	kunit_release_action(test, pinned_release, pin);

	kunit_info(test, "%lu pages pinned; %ld objects handed out, NULL for %ld GFP_NOWAIT and %ld GFP_ATOMIC calls; order-%u probes: %ld short, %ld not; %lu new slabs\n",
		   nr_pinned, atomic_long_read(&st->allocs),
		   atomic_long_read(&st->nulls),
		   atomic_long_read(&st->nulls_atomic), st->order,
		   atomic_long_read(&st->pages_short),
		   atomic_long_read(&st->pages_found),
		   delta(st->s, &sn, SLABX_SLAB_NEW));
	if (stuck)
		storm_stop(st);
	KUNIT_ASSERT_EQ_MSG(test, stuck, 0,
			    "%d of %d storm threads did not finish %d operations in %d s: livelock",
			    stuck, nr, STORM_OPS, STORM_TIMEOUT / HZ);
	KUNIT_EXPECT_EQ_MSG(test, atomic_long_read(&st->bad), 0L,
			    "objects handed out twice, or not objects");

	/*
	 * The pressure was real: new slabs needed, GFP_NOWAIT refills that
	 * failed (at the latest in storm_until_null()). Not that every probe
	 * found no pages: slabx's shrinker gives back empty slabs all along,
	 * and a probe may find them first.
	 */
	KUNIT_EXPECT_GT(test, nr_pinned, 0UL);
	KUNIT_EXPECT_GT(test, delta(st->s, &sn, SLABX_SLAB_NEW), 0UL);
	KUNIT_EXPECT_GT(test, atomic_long_read(&st->nulls), 0L);

	/* Everything back: the counters balance, nothing is held. */
	KUNIT_EXPECT_EQ(test, delta(st->s, &sn, SLABX_ALLOC),
			delta(st->s, &sn, SLABX_FREE));
	KUNIT_EXPECT_EQ(test, delta(km, &km_sn, SLABX_ALLOC),
			delta(km, &km_sn, SLABX_FREE));
	KUNIT_EXPECT_EQ(test, delta(st->s, &sn, SLABX_FREE_INVALID), 0UL);
	KUNIT_EXPECT_EQ(test, delta(km, &km_sn, SLABX_FREE_INVALID), 0UL);
	KUNIT_EXPECT_EQ(test, objects_held(st->s), 0UL);
	KUNIT_EXPECT_EQ(test, objects_held(km), km_base);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, st->s), 0);
}

static struct kunit_case slabx_bugclass_cases[] = {
	KUNIT_CASE_PARAM(free_bulk_mixed_nodes, bulk_gen_params),
	KUNIT_CASE(ctor_allocates_from_slabx),
	KUNIT_CASE(free_rcu_from_rcu_callback),
	KUNIT_CASE(alloc_from_tracepoint_probe),
	KUNIT_CASE(nowait_storm_under_pressure),
	{}
};

static struct kunit_suite slabx_bugclass_suite = {
	.name = "slabx_bugclass",
	.test_cases = slabx_bugclass_cases,
};

kunit_test_suites(&slabx_bugclass_suite);

MODULE_DESCRIPTION("KUnit tests of bug classes mainline met with sheaves");

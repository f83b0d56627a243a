// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for bug classes mainline met after merging sheaves (issue 29,
 * items 8 and 9), one case each:
 *
 * - bulk frees of arrays that mix objects of both nodes, longer than one
 *   batch (mainline leaked remote objects in free_to_pcs_bulk() and lost
 *   local ones when the remote batch filled): every object accounted for
 *   after slabx_free_bulk(), and none handed out twice afterwards;
 * - recursion into slabx: a constructor that allocates from another cache
 *   and from slabx_kmalloc(); slabx_free_rcu() from an RCU callback; an
 *   allocation from a probe on slabx's own slabx_alloc tracepoint. With
 *   kmemleak on (scripts/check.sh boots this suite so), every case
 *   allocates and frees sheaves while kmemleak tracks them.
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/percpu.h>
#include <linux/prandom.h>
#include <linux/rcupdate.h>
#include <linux/sort.h>
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

static struct kunit_case slabx_bugclass_cases[] = {
	KUNIT_CASE_PARAM(free_bulk_mixed_nodes, bulk_gen_params),
	KUNIT_CASE(ctor_allocates_from_slabx),
	KUNIT_CASE(free_rcu_from_rcu_callback),
	KUNIT_CASE(alloc_from_tracepoint_probe),
	{}
};

static struct kunit_suite slabx_bugclass_suite = {
	.name = "slabx_bugclass",
	.test_cases = slabx_bugclass_cases,
};

kunit_test_suites(&slabx_bugclass_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests of bug classes mainline met with sheaves: mixed-node bulk frees, recursion");

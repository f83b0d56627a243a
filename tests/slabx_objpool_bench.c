// SPDX-License-Identifier: GPL-2.0
/*
 * In-guest benchmark of slabx's objpool against the kernel's lib/objpool,
 * in the same boot, on the same parameters, in the modes of the kernel's
 * lib/test_objpool.c:
 *
 * - "pop+push" (its sync mode): pop one object, push it back, in a loop;
 * - "pop+push+timer" (sync & hrtimer): the same, and an hrtimer per CPU
 *   that does 4 such pairs in hard-IRQ context every 20 us;
 * - "overrun" (sync overrun): pop 16 objects, or as many as there are,
 *   then push back those popped, from a pool of 8 objects per possible CPU;
 * - "async+timer" (async & hrtimer): pop 4, push them back with preemption
 *   off, and an hrtimer per CPU that does the same, from such a small pool.
 *
 * The first two use 1024 objects of 64 bytes. Each mode is counted for a
 * fixed time by one kthread bound to each CPU taking part: one CPU, then
 * every online CPU. The figure is millions of objects popped and pushed
 * back per second, per CPU and in total, best of @rounds rounds with the
 * two pools alternating; the ratio is slabx/lib (above 1.00 means slabx
 * does more). Then the ring memory of both (lib/objpool's from its own
 * fields: a ring of @capacity pointers per possible CPU).
 *
 * lib/test_objpool.c's plain async mode sleeps 100 ms per cycle: it tests
 * the pool's lifecycle, not its speed, and has no figure here.
 *
 * "insmod slabx_objpool_bench.ko [rounds=R] [ms=T]": T ms per run.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/objpool.h>
#include <linux/slab.h>

#include "../slabx.h"

#define POOL_OBJS	1024
#define POOL_OBJ_SIZE	64
#define SMALL_POOL_PER_CPU	8
#define TIMER_NS	(20 * NSEC_PER_USEC)
#define MAX_BULK	16

static unsigned int rounds = 5;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "rounds per figure; the best one counts (1..100)");

static unsigned int ms = 200;
module_param(ms, uint, 0444);
MODULE_PARM_DESC(ms, "milliseconds per run (1..10000)");

struct pool_ops {
	void *(*pop)(void *pool);
	int (*push)(void *obj, void *pool);
};

static void *lib_pop(void *pool)
{
	return objpool_pop(pool);
}

static int lib_push(void *obj, void *pool)
{
	return objpool_push(obj, pool);
}

static void *slabx_pop(void *pool)
{
	return slabx_objpool_pop(pool);
}

static int slabx_push(void *obj, void *pool)
{
	return slabx_objpool_push(obj, pool);
}

/* lib/objpool first: index 0 and 1 below. */
static const struct pool_ops bench_pools[2] = {
	{ lib_pop, lib_push },
	{ slabx_pop, slabx_push },
};

/**
 * struct mode - what each kthread, and its CPU's hrtimer, does in a loop
 * @name: the figure's name.
 * @bulk: objects a kthread pops before pushing back those it got.
 * @pin: the kthread pushes them back with preemption off.
 * @timer_bulk: the same for the hrtimer; 0 for no hrtimer.
 * @timer_reps: such cycles per hrtimer expiry.
 * @small: the pool holds %SMALL_POOL_PER_CPU objects per possible CPU,
 *	not %POOL_OBJS.
 */
struct mode {
	const char *name;
	unsigned int bulk;
	bool pin;
	unsigned int timer_bulk;
	unsigned int timer_reps;
	bool small;
};

static const struct mode bench_modes[] = {
	{ .name = "pop+push", .bulk = 1 },
	{ .name = "pop+push+timer", .bulk = 1, .timer_bulk = 1,
	  .timer_reps = 4 },
	{ .name = "overrun", .bulk = MAX_BULK, .small = true },
	{ .name = "async+timer", .bulk = 4, .pin = true, .timer_bulk = 4,
	  .timer_reps = 1, .small = true },
};

struct run {
	const struct pool_ops *ops;
	const struct mode *mode;
	void *pool;
	u64 end;
	atomic_t running;
	atomic64_t pairs;
	struct completion done;
};

struct runner {
	struct run *run;
	struct hrtimer timer;
};

/*
 * @n pops, each pushed back at once. Return: the objects popped. Bulk
 * cycles (below) cost more around each pop than a pop+push itself.
 */
static unsigned long pairs(struct run *r, unsigned int n)
{
	unsigned long done = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		void *obj = r->ops->pop(r->pool);

		if (obj) {
			r->ops->push(obj, r->pool);
			done++;
		}
	}
	return done;
}

/* Pop @bulk objects, push back those popped. Return: how many. */
static unsigned int cycle(struct run *r, unsigned int bulk, bool pin)
{
	void *objs[MAX_BULK];
	unsigned int i, n = 0;

	for (i = 0; i < bulk; i++) {
		objs[n] = r->ops->pop(r->pool);
		if (objs[n])
			n++;
	}
	if (pin)
		preempt_disable();
	for (i = n; i-- > 0;)
		r->ops->push(objs[i], r->pool);
	if (pin)
		preempt_enable();
	return n;
}

static enum hrtimer_restart runner_timer(struct hrtimer *timer)
{
	struct runner *w = container_of(timer, struct runner, timer);
	const struct mode *m = w->run->mode;
	unsigned long done = 0;
	unsigned int i;

	if (m->timer_bulk == 1)
		done = pairs(w->run, m->timer_reps);
	else
		for (i = 0; i < m->timer_reps; i++)
			done += cycle(w->run, m->timer_bulk, false);
	atomic64_add(done, &w->run->pairs);
	if (ktime_get_ns() >= w->run->end)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(timer, ns_to_ktime(TIMER_NS));
	return HRTIMER_RESTART;
}

static int runner_fn(void *arg)
{
	struct runner *w = arg;
	struct run *r = w->run;
	const struct mode *m = r->mode;
	unsigned long done = 0;
	unsigned int i;

	if (m->timer_bulk) {
		hrtimer_init(&w->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
		w->timer.function = runner_timer;
		hrtimer_start(&w->timer, ns_to_ktime(TIMER_NS),
			      HRTIMER_MODE_REL_HARD);
	}
	while (ktime_get_ns() < r->end) {
		if (m->bulk == 1)
			done += pairs(r, 256);
		else
			for (i = 0; i < 256; i++)
				done += cycle(r, m->bulk, m->pin);
		cond_resched();
	}
	if (m->timer_bulk)
		hrtimer_cancel(&w->timer);
	atomic64_add(done, &r->pairs);
	if (atomic_dec_and_test(&r->running))
		complete(&r->done);
	return 0;
}

/* One run on the first @nr online CPUs. Return: objects per second. */
static long run_once(const struct pool_ops *ops, void *pool, unsigned int nr,
		     const struct mode *mode)
{
	struct runner *w;
	struct run r = { .ops = ops, .pool = pool, .mode = mode };
	unsigned int cpu, n = 0;
	u64 start;

	w = kcalloc(nr, sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	init_completion(&r.done);
	atomic_set(&r.running, nr);
	start = ktime_get_ns();
	r.end = start + (u64)ms * NSEC_PER_MSEC;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct task_struct *t;

		if (n == nr)
			break;
		w[n].run = &r;
		t = kthread_create_on_cpu(runner_fn, &w[n], cpu,
					  "objpool_bench/%u");
		if (IS_ERR(t)) {
			/* Count it as done, so that the wait ends. */
			if (atomic_dec_and_test(&r.running))
				complete(&r.done);
		} else {
			wake_up_process(t);
		}
		n++;
	}
	cpus_read_unlock();
	wait_for_completion(&r.done);
	kfree(w);
	return div64_u64(atomic64_read(&r.pairs) * NSEC_PER_SEC,
			 ktime_get_ns() - start);
}

static int pools_init(struct objpool_head *lib, struct slabx_objpool_head *sx,
		      int nr_objs)
{
	int ret;

	ret = objpool_init(lib, nr_objs, POOL_OBJ_SIZE, GFP_KERNEL, NULL,
			   NULL, NULL);
	if (ret)
		return ret;
	ret = slabx_objpool_init(sx, nr_objs, POOL_OBJ_SIZE, GFP_KERNEL,
				 NULL, NULL, NULL);
	if (ret)
		objpool_fini(lib);
	return ret;
}

static void print_figure(const char *what, unsigned int nr, long best[2])
{
	u64 ratio = div64_u64((u64)best[1] * 1000, max(best[0], 1L));

	pr_info("%-14s %u CPU%s lib %5ld.%02ld Mpairs/s (%ld.%02ld per CPU)  slabx %5ld.%02ld Mpairs/s (%ld.%02ld per CPU)  ratio slabx/lib %llu.%03llu\n",
		what, nr, nr > 1 ? "s" : " ",
		best[0] / 1000000, best[0] / 10000 % 100,
		best[0] / nr / 1000000, best[0] / nr / 10000 % 100,
		best[1] / 1000000, best[1] / 10000 % 100,
		best[1] / nr / 1000000, best[1] / nr / 10000 % 100,
		ratio / 1000, ratio % 1000);
}

static int bench_config(void *pools[2], unsigned int nr,
			const struct mode *mode)
{
	long best[2] = { 0, 0 }, t;
	unsigned int round, k;

	for (round = 0; round < rounds; round++) {
		for (k = 0; k < 2; k++) {
			t = run_once(&bench_pools[k], pools[k], nr, mode);
			if (t < 0)
				return t;
			best[k] = max(best[k], t);
		}
	}
	print_figure(mode->name, nr, best);
	return 0;
}

static void print_memory(struct objpool_head *lib,
			 struct slabx_objpool_head *sx)
{
	size_t theirs = lib->nr_possible_cpus *
			(sizeof(struct objpool_slot) +
			 lib->capacity * sizeof(void *));
	struct slabx_objpool_stats st;

	slabx_objpool_get_stats(sx, &st);
	pr_info("ring bytes, %d objects, %d possible CPUs: lib %zu slabx %zu ratio slabx/lib %zu.%03zu\n",
		POOL_OBJS, lib->nr_possible_cpus, theirs, st.ring_bytes,
		st.ring_bytes / theirs, st.ring_bytes * 1000 / theirs % 1000);
}

/*
 * The modes whose pools are small (@small) or not, on pools of that size,
 * then the ring memory of the large ones.
 */
static int bench_modes_on(bool small)
{
	int nr_objs = small ? SMALL_POOL_PER_CPU * num_possible_cpus() :
			      POOL_OBJS;
	unsigned int all = num_online_cpus(), i;
	struct slabx_objpool_head *sx;
	struct objpool_head *lib;
	void *pools[2];
	int ret;

	lib = kzalloc(sizeof(*lib), GFP_KERNEL);
	sx = kzalloc(sizeof(*sx), GFP_KERNEL);
	ret = lib && sx ? pools_init(lib, sx, nr_objs) : -ENOMEM;
	if (ret)
		goto out;
	pools[0] = lib;
	pools[1] = sx;
	for (i = 0; i < ARRAY_SIZE(bench_modes) && !ret; i++) {
		const struct mode *m = &bench_modes[i];

		if (m->small == small)
			ret = bench_config(pools, 1, m) ?:
			      bench_config(pools, all, m);
	}
	if (!ret && !small)
		print_memory(lib, sx);
	objpool_fini(lib);
	slabx_objpool_fini(sx);
out:
	kfree(lib);
	kfree(sx);
	return ret;
}

static int __init objpool_bench_init(void)
{
	int ret;

	if (!rounds || rounds > 100 || !ms || ms > 10000) {
		pr_warn("rounds must be 1..100 and ms 1..10000\n");
		return -EINVAL;
	}
	pr_info("%u rounds of %u ms, best round per figure, %u CPUs online\n",
		rounds, ms, num_online_cpus());
	ret = bench_modes_on(false) ?: bench_modes_on(true);
	if (ret)
		pr_warn("failed: %d\n", ret);
	else
		pr_info("done\n");
	return ret;
}

static void __exit objpool_bench_exit(void)
{
}

module_init(objpool_bench_init);
module_exit(objpool_bench_exit);
MODULE_DESCRIPTION("slabx objpool against lib/objpool, same boot");
MODULE_LICENSE("GPL");

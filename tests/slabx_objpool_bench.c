// SPDX-License-Identifier: GPL-2.0
/*
 * In-guest benchmark of slabx's objpool against the kernel's lib/objpool,
 * in the same boot, on the same parameters (1024 objects of 64 bytes).
 *
 * Pop+push pairs are counted for a fixed time by one kthread bound to each
 * CPU taking part: one CPU, then every online CPU; each again with an
 * hrtimer per CPU that pops and pushes in hard-IRQ context every 20 us.
 * The figure is millions of pairs per second, per CPU and in total, best of
 * @rounds rounds with the two pools alternating; the ratio is slabx/lib
 * (above 1.00 means slabx does more pairs). Then the ring memory of both
 * (lib/objpool's from its own fields: a ring of @capacity pointers per
 * possible CPU).
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
#define TIMER_NS	(20 * NSEC_PER_USEC)
#define TIMER_PAIRS	4

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

struct run {
	const struct pool_ops *ops;
	void *pool;
	u64 end;
	bool with_timer;
	atomic_t running;
	atomic64_t pairs;
	struct completion done;
};

struct runner {
	struct run *run;
	struct hrtimer timer;
};

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

static enum hrtimer_restart runner_timer(struct hrtimer *timer)
{
	struct runner *w = container_of(timer, struct runner, timer);

	atomic64_add(pairs(w->run, TIMER_PAIRS), &w->run->pairs);
	if (ktime_get_ns() >= w->run->end)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(timer, ns_to_ktime(TIMER_NS));
	return HRTIMER_RESTART;
}

static int runner_fn(void *arg)
{
	struct runner *w = arg;
	struct run *r = w->run;
	unsigned long done = 0;

	if (r->with_timer) {
		hrtimer_init(&w->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
		w->timer.function = runner_timer;
		hrtimer_start(&w->timer, ns_to_ktime(TIMER_NS),
			      HRTIMER_MODE_REL_HARD);
	}
	while (ktime_get_ns() < r->end) {
		done += pairs(r, 256);
		cond_resched();
	}
	if (r->with_timer)
		hrtimer_cancel(&w->timer);
	atomic64_add(done, &r->pairs);
	if (atomic_dec_and_test(&r->running))
		complete(&r->done);
	return 0;
}

/* One run on the first @nr online CPUs. Return: pairs per second. */
static long run_once(const struct pool_ops *ops, void *pool, unsigned int nr,
		     bool with_timer)
{
	struct runner *w;
	struct run r = { .ops = ops, .pool = pool, .with_timer = with_timer };
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

static int pools_init(struct objpool_head *lib, struct slabx_objpool_head *sx)
{
	int ret;

	ret = objpool_init(lib, POOL_OBJS, POOL_OBJ_SIZE, GFP_KERNEL, NULL,
			   NULL, NULL);
	if (ret)
		return ret;
	ret = slabx_objpool_init(sx, POOL_OBJS, POOL_OBJ_SIZE, GFP_KERNEL,
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

static int bench_config(void *pools[2], unsigned int nr, bool with_timer)
{
	long best[2] = { 0, 0 }, t;
	unsigned int round, k;

	for (round = 0; round < rounds; round++) {
		for (k = 0; k < 2; k++) {
			t = run_once(&bench_pools[k], pools[k], nr, with_timer);
			if (t < 0)
				return t;
			best[k] = max(best[k], t);
		}
	}
	print_figure(with_timer ? "pop+push+timer" : "pop+push", nr, best);
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

static int __init objpool_bench_init(void)
{
	struct slabx_objpool_head *sx;
	struct objpool_head *lib;
	unsigned int all = num_online_cpus();
	void *pools[2];
	int ret;

	if (!rounds || rounds > 100 || !ms || ms > 10000) {
		pr_warn("rounds must be 1..100 and ms 1..10000\n");
		return -EINVAL;
	}
	lib = kzalloc(sizeof(*lib), GFP_KERNEL);
	sx = kzalloc(sizeof(*sx), GFP_KERNEL);
	ret = lib && sx ? pools_init(lib, sx) : -ENOMEM;
	if (ret)
		goto out;
	pools[0] = lib;
	pools[1] = sx;
	pr_info("%u rounds of %u ms, best round per figure, %u CPUs online\n",
		rounds, ms, all);
	ret = bench_config(pools, 1, false) ?:
	      bench_config(pools, all, false) ?:
	      bench_config(pools, 1, true) ?:
	      bench_config(pools, all, true);
	if (!ret)
		print_memory(lib, sx);
	objpool_fini(lib);
	slabx_objpool_fini(sx);
out:
	kfree(lib);
	kfree(sx);
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

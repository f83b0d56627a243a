// SPDX-License-Identifier: GPL-2.0
/*
 * Multi-CPU stress of a slabx cache: one kthread per online CPU allocates
 * and frees in random mixes (single and bulk), and hands objects to other
 * CPUs through shared mailboxes. Every object carries an ownership tag over
 * its whole body; an object handed out twice, or corrupted while owned, is
 * caught when its owner checks the tag before freeing or passing it on.
 * With slabx_free_rcu() in the mix, the freeing worker keeps checking the
 * tag inside its read-side section: an object reused before the grace
 * period is caught there. The last case takes every path at once (slab,
 * bulk, prefilled sheaves, free_rcu, nolock) while the test thread shrinks
 * the cache, waits for its RCU frees and takes a CPU offline and online
 * again, over and over.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/prandom.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "../slabx.h"
#include "slabx_kunit.h"

#define STRESS_OBJ_SIZE		96
#define STRESS_HELD		256
#define STRESS_BULK		16
#define STRESS_MAILBOXES	64
#define STRESS_OPS		20000

struct tag {
	u32 owner;
	u32 seq;
	u64 body[];	/* every word: tag_word(owner, seq, index) */
};

#define TAG_WORDS ((STRESS_OBJ_SIZE - sizeof(struct tag)) / sizeof(u64))

struct stress {
	struct slabx_cache *cache;
	bool free_rcu;
	bool all_paths;
	bool stop_churn;
	atomic_t churn_rounds;
	struct completion churn_done;
	void *mailbox[STRESS_MAILBOXES];
	atomic_t errors;
	atomic_t running;
	struct completion done;
};

struct worker {
	struct stress *st;
	u32 id;
	u32 seq;
	struct rnd_state rnd;
	unsigned int nr_held;
	void *held[STRESS_HELD];
	u32 held_seq[STRESS_HELD];	/* seq of the tag we wrote */
};

static u64 tag_word(u32 owner, u32 seq, unsigned int i)
{
	return ((u64)owner << 48) ^ ((u64)seq << 16) ^ (i * 0x9e3779b97f4a7c15ULL);
}

static void tag_set(struct worker *w, struct tag *t)
{
	unsigned int i;

	t->owner = w->id;
	t->seq = ++w->seq;
	for (i = 0; i < TAG_WORDS; i++)
		t->body[i] = tag_word(t->owner, t->seq, i);
}

static bool tag_consistent(const struct tag *t)
{
	unsigned int i;

	for (i = 0; i < TAG_WORDS; i++)
		if (t->body[i] != tag_word(t->owner, t->seq, i))
			return false;
	return true;
}

/* @t must still carry the tag this worker wrote last. */
static void tag_check_mine(struct worker *w, struct tag *t, u32 seq)
{
	if (t->owner != w->id || t->seq != seq || !tag_consistent(t)) {
		if (atomic_inc_return(&w->st->errors) < 5)
			pr_err("slabx stress: worker %u: object %p tag %u/%u, expected %u/%u\n",
			       w->id, t, t->owner, t->seq, w->id, seq);
	}
}

static void hold(struct worker *w, struct tag *t)
{
	tag_set(w, t);
	w->held_seq[w->nr_held] = t->seq;
	w->held[w->nr_held++] = t;
}

static struct tag *unhold(struct worker *w, unsigned int i)
{
	struct tag *t = w->held[i];

	tag_check_mine(w, t, w->held_seq[i]);
	w->nr_held--;
	w->held[i] = w->held[w->nr_held];
	w->held_seq[i] = w->held_seq[w->nr_held];
	return t;
}

static void op_alloc(struct worker *w)
{
	void *obj;

	if (w->nr_held >= STRESS_HELD)
		return;
	obj = slabx_alloc(w->st->cache, GFP_KERNEL);
	if (obj)
		hold(w, obj);
	else
		atomic_inc(&w->st->errors);
}

static void op_alloc_bulk(struct worker *w)
{
	void *objs[STRESS_BULK];
	int i;

	if (w->nr_held + STRESS_BULK > STRESS_HELD)
		return;
	if (!slabx_alloc_bulk(w->st->cache, GFP_KERNEL, STRESS_BULK, objs)) {
		atomic_inc(&w->st->errors);
		return;
	}
	for (i = 0; i < STRESS_BULK; i++)
		hold(w, objs[i]);
}

static void op_free(struct worker *w)
{
	if (w->nr_held)
		slabx_free(w->st->cache,
			   unhold(w, prandom_u32_state(&w->rnd) % w->nr_held));
}

/* Free with slabx_free_rcu() inside a reader that still checks the tag. */
static void op_free_rcu(struct worker *w)
{
	unsigned int i;
	struct tag *t;
	u32 seq;

	if (!w->nr_held)
		return;
	i = prandom_u32_state(&w->rnd) % w->nr_held;
	seq = w->held_seq[i];
	rcu_read_lock();
	t = unhold(w, i);
	slabx_free_rcu(w->st->cache, t);
	udelay(prandom_u32_state(&w->rnd) % 8);
	tag_check_mine(w, t, seq);
	rcu_read_unlock();
}

static void op_free_bulk(struct worker *w)
{
	void *objs[STRESS_BULK];
	int i, nr = min_t(int, w->nr_held, STRESS_BULK);

	for (i = 0; i < nr; i++)
		objs[i] = unhold(w, prandom_u32_state(&w->rnd) % w->nr_held);
	slabx_free_bulk(w->st->cache, nr, objs);
}

/* Take a few objects through a prefilled sheaf, then give it back. */
static void op_prefill(struct worker *w)
{
	unsigned int want = 1 + prandom_u32_state(&w->rnd) % STRESS_BULK;
	struct slabx_sheaf *sheaf;
	void *obj;

	if (w->nr_held + want > STRESS_HELD)
		return;
	sheaf = slabx_prefill_sheaf(w->st->cache, GFP_KERNEL, want);
	if (!sheaf) {
		atomic_inc(&w->st->errors);
		return;
	}
	while (want-- && (obj = slabx_alloc_from_sheaf(w->st->cache, 0, sheaf)))
		hold(w, obj);
	slabx_return_sheaf(w->st->cache, GFP_KERNEL, sheaf);
}

/* The any-context paths may fail an allocation; they may not lose one. */
static void op_alloc_nolock(struct worker *w)
{
	void *obj;

	if (w->nr_held >= STRESS_HELD)
		return;
	obj = slabx_alloc_nolock(w->st->cache, 0);
	if (obj)
		hold(w, obj);
}

static void op_free_nolock(struct worker *w)
{
	if (w->nr_held)
		slabx_free_nolock(w->st->cache,
				  unhold(w, prandom_u32_state(&w->rnd) % w->nr_held));
}

/*
 * Swap one held object with a mailbox: what comes out was tagged by some
 * worker and must still be consistent; it becomes ours.
 */
static void op_exchange(struct worker *w)
{
	unsigned int box = prandom_u32_state(&w->rnd) % STRESS_MAILBOXES;
	struct tag *in = NULL, *out;

	if (w->nr_held)
		in = unhold(w, prandom_u32_state(&w->rnd) % w->nr_held);
	out = xchg(&w->st->mailbox[box], in);
	if (!out)
		return;
	if (!tag_consistent(out) && atomic_inc_return(&w->st->errors) < 5)
		pr_err("slabx stress: mailbox object %p corrupted\n", out);
	hold(w, out);
}

static void worker_step(struct worker *w)
{
	switch (prandom_u32_state(&w->rnd) % (w->st->all_paths ? 11 : 8)) {
	case 0: case 1: case 2:
		op_alloc(w);
		break;
	case 3:
		op_free(w);
		break;
	case 4:
		if (w->st->free_rcu)
			op_free_rcu(w);
		else
			op_free(w);
		break;
	case 5:
		op_alloc_bulk(w);
		break;
	case 6:
		op_free_bulk(w);
		break;
	case 7:
		op_exchange(w);
		break;
	case 8:
		op_prefill(w);
		break;
	case 9:
		op_alloc_nolock(w);
		break;
	default:
		op_free_nolock(w);
		break;
	}
}

static int worker_fn(void *arg)
{
	struct worker *w = arg;
	int i;

	for (i = 0; i < STRESS_OPS; i++) {
		worker_step(w);
		if (!(i % 64))
			cond_resched();
	}
	while (w->nr_held)
		slabx_free(w->st->cache, unhold(w, w->nr_held - 1));
	if (atomic_dec_and_test(&w->st->running))
		complete(&w->st->done);
	return 0;
}

/* Frees slabx_free_nolock() deferred are done by an irq_work soon after. */
static void wait_nolock_drained(struct kunit *test, struct slabx_cache *s)
{
	int i;

	for (i = 0; i < 500 &&
	     slabx_cache_stat(s, SLABX_FREE_NOLOCK_DEFERRED) !=
	     slabx_cache_stat(s, SLABX_FREE_NOLOCK_DRAINED); i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_FREE_NOLOCK_DEFERRED),
			slabx_cache_stat(s, SLABX_FREE_NOLOCK_DRAINED));
}

/* Shrink the cache and wait for its RCU frees, again and again. */
static int churn_fn(void *arg)
{
	struct stress *st = arg;

	while (!READ_ONCE(st->stop_churn)) {
		slabx_cache_shrink(st->cache);
		slabx_rcu_barrier(st->cache);
		atomic_inc(&st->churn_rounds);
		cond_resched();
	}
	complete(&st->churn_done);
	return 0;
}

/*
 * Take @cpu offline and back online, again and again, until the workers
 * are done; returns the number of cycles. At least one cycle runs, even if
 * the workers were quick.
 */
static int cycle_cpu_until_done(struct kunit *test, struct stress *st, int cpu)
{
	int cycles = 0;

	do {
		KUNIT_EXPECT_EQ(test, take_cpu_offline(test, cpu), 0);
		msleep(20);
		KUNIT_EXPECT_EQ(test, bring_cpu_online(test, cpu), 0);
		cycles++;
	} while (!wait_for_completion_timeout(&st->done, msecs_to_jiffies(20)));
	return cycles;
}

/* At the end of a case that did not stop the churn itself. */
static void churn_stop_action(void *arg)
{
	struct stress *st = arg;

	WRITE_ONCE(st->stop_churn, true);
}

/* With @all_paths, a kthread shrinks and waits for RCU frees meanwhile. */
static void churn_start(struct kunit *test, struct stress *st)
{
	struct task_struct *t;

	init_completion(&st->churn_done);
	if (!st->all_paths)
		return;
	t = kthread_create(churn_fn, st, "slabx_churn");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	KUNIT_ASSERT_EQ(test, start_kthread(test, t, churn_stop_action, st), 0);
}

static void churn_stop(struct kunit *test, struct stress *st)
{
	if (!st->all_paths)
		return;
	WRITE_ONCE(st->stop_churn, true);
	wait_for_completion(&st->churn_done);
	kunit_info(test, "%d shrink + rcu_barrier rounds meanwhile\n",
		   atomic_read(&st->churn_rounds));
	KUNIT_EXPECT_GT(test, atomic_read(&st->churn_rounds), 0);
}

/*
 * The objects left in the mailboxes: freed by the case, or when it ends
 * early, after the workers (registered before them, the action runs after).
 */
static void free_mailboxes(void *arg)
{
	struct stress *st = arg;
	int i;

	for (i = 0; i < STRESS_MAILBOXES; i++)
		slabx_free(st->cache, st->mailbox[i]);
}

/*
 * Start one worker per online CPU (at most @max_workers), bound to it, or
 * free to move when CPUs are to come and go; with @hotplug, take the last
 * CPU offline and back online again and again while they run. With
 * @free_rcu, half the single frees are slabx_free_rcu(). With @all_paths,
 * prefilled sheaves and the nolock paths join in, and another kthread
 * shrinks the cache and waits for its RCU frees all along.
 */
static void run_stress(struct kunit *test, bool hotplug, bool free_rcu,
		       bool all_paths, int max_workers)
{
	int cpu, nr = 0, victim = -1, cycles, err = 0;
	struct task_struct *t = NULL;
	struct worker *workers;
	struct slabx_info info;
	struct stress *st;

	st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	workers = kunit_kcalloc(test, nr_cpu_ids, sizeof(*workers),
				GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st);
	KUNIT_ASSERT_NOT_NULL(test, workers);
	st->cache = cache_create(test, "kunit-stress", STRESS_OBJ_SIZE, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, st->cache);
	err = kunit_add_action_or_reset(test, free_mailboxes, st);
	KUNIT_ASSERT_EQ(test, err, 0);
	st->free_rcu = free_rcu;
	st->all_paths = all_paths;
	init_completion(&st->done);
	churn_start(test, st);

	/* No assertion with the CPU hotplug lock held: checked after it. */
	cpus_read_lock();
	atomic_set(&st->running, min_t(int, num_online_cpus(), max_workers));
	for_each_online_cpu(cpu) {
		struct worker *w = &workers[nr];

		if (nr == max_workers) {
			victim = cpu;
			continue;
		}
		w->st = st;
		w->id = nr;
		prandom_seed_state(&w->rnd, 0x5ab1ab5 + cpu);
		if (hotplug)
			t = kthread_create(worker_fn, w, "slabx_stress/%u", cpu);
		else
			t = kthread_create_on_cpu(worker_fn, w, cpu,
						  "slabx_stress/%u");
		if (IS_ERR(t))
			break;
		err = start_kthread(test, t, NULL, NULL);
		if (err)
			break;
		victim = cpu;
		nr++;
	}
	cpus_read_unlock();
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	KUNIT_ASSERT_EQ(test, err, 0);
	kunit_info(test, "%d workers, %d ops each\n", nr, STRESS_OPS);

	if (hotplug) {
		cycles = cycle_cpu_until_done(test, st, victim);
		kunit_info(test, "%d offline/online cycles of CPU %d\n",
			   cycles, victim);
	} else {
		wait_for_completion(&st->done);
	}
	churn_stop(test, st);
	wait_nolock_drained(test, st->cache);

	kunit_release_action(test, free_mailboxes, st);
	KUNIT_EXPECT_EQ(test, atomic_read(&st->errors), 0);
	slabx_rcu_barrier(st->cache);
	slabx_cache_shrink(st->cache);
	slabx_cache_info(st->cache, &info);
	KUNIT_EXPECT_EQ(test, info.objects_inuse, 0UL);
	KUNIT_EXPECT_EQ(test, info.objects_rcu_waiting, 0UL);
	if (free_rcu)
		KUNIT_EXPECT_GT(test, slabx_cache_stat(st->cache,
						       SLABX_FREE_RCU_DONE), 0UL);
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(st->cache, SLABX_ALLOC),
			slabx_cache_stat(st->cache, SLABX_FREE));
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(st->cache, SLABX_FREE_INVALID),
			0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, st->cache), 0);
}

static void multi_cpu_stress(struct kunit *test)
{
	run_stress(test, false, false, false, INT_MAX);
}

/* slabx_free_rcu() mixed with slabx_free() and allocations. */
static void stress_with_free_rcu(struct kunit *test)
{
	run_stress(test, false, true, false, INT_MAX);
}

/*
 * The same with a CPU going offline and online: nothing may leak, rcu_free
 * sheaves included.
 */
static void stress_with_cpu_hotplug(struct kunit *test)
{
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs a second CPU");
	run_stress(test, true, true, false, INT_MAX);
}

/*
 * Every path at once, with shrinks, RCU barriers and (given a second CPU)
 * CPU hotplug running concurrently. Three workers: enough to make the
 * races, few enough that 8 vCPUs on 2 host cores measure slabx rather than
 * the host's scheduler.
 */
static void stress_every_path(struct kunit *test)
{
	run_stress(test, num_online_cpus() > 1, true, true, 3);
}

static struct kunit_case slabx_stress_cases[] = {
	KUNIT_CASE_SLOW(multi_cpu_stress),
	KUNIT_CASE_SLOW(stress_with_free_rcu),
	KUNIT_CASE_SLOW(stress_with_cpu_hotplug),
	KUNIT_CASE_SLOW(stress_every_path),
	{}
};

static struct kunit_suite slabx_stress_suite = {
	.name = "slabx_stress",
	.test_cases = slabx_stress_cases,
};

kunit_test_suites(&slabx_stress_suite);

MODULE_DESCRIPTION("KUnit multi-CPU stress of slabx");

// SPDX-License-Identifier: GPL-2.0
/*
 * slabx: the age monitor of the rcu_free sheaves (rcu_free.c).
 *
 * A partial rcu_free sheaf is queued for its grace period once it has been
 * open for %SLABX_RCU_FREE_MAX_AGE_MS, so that the objects of a CPU that
 * stopped freeing are not held without end (kfree_rcu()'s own monitor
 * drains its batches every 5 s). The monitor is a delayed work that runs
 * only while some rcu_free sheaf is open: opening one arms it
 * (slabx_rcu_monitor_arm(), from any context slabx_free_rcu() allows, as
 * kfree_rcu() arms its own), and it arms itself again while it saw one too
 * young to queue. Each CPU's sheaf is queued by a work item bound to that
 * CPU, which holds its sheaves as any other user does.
 *
 * Lock order: cpu_hotplug_lock (read) -> slabx_caches_mutex, the order of
 * cache.c; the monitor waits for slabx_wq work items (which take neither)
 * with both held, as SLUB's flush of every CPU waits with slab_mutex held.
 */
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/workqueue.h>

#include "slabx_internal.h"
/* The SLABX_TEST hooks defined here. */
#include "tests/slabx_test_hooks.h"

static void rcu_free_monitor_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(rcu_free_monitor, rcu_free_monitor_fn);
/*
 * Pauses in force: module exit's, which stays, and those of tests that
 * need partial sheaves kept.
 */
static atomic_t rcu_free_monitor_pauses = ATOMIC_INIT(0);
/* Set by rcu_free_aged_work_fn() for the monitor, which waits for it. */
static bool rcu_free_monitor_young;

/**
 * slabx_rcu_monitor_arm() - run the age monitor in %SLABX_RCU_FREE_MAX_AGE_MS
 *
 * For an rcu_free sheaf just opened, its opening stored before the call.
 * Two races must not leave the sheaf open:
 *
 * - with a monitor queued and not yet started: queue_delayed_work()'s
 *   test of the pending bit is fully ordered, and the workqueue clears the
 *   bit with a full barrier before a run (set_work_pool_and_clear_pending()
 *   says so), so either this call queues the monitor or that run sees the
 *   sheaf (and arms itself again while it is young);
 * - with the resume that ends the last pause: the smp_mb() below pairs with
 *   the resume's fully ordered atomic_dec_if_positive(), so either this
 *   call sees the pause ended and queues the monitor, or the run the
 *   resume makes sees the sheaf.
 *
 * A call that saw a pause in force queues nothing; one that raced with the
 * pause queues a run that returns at once. Either way the resume that ends
 * the last pause runs the monitor.
 *
 * Context: any context slabx_free_rcu() allows; with the sheaves held or
 * no lock.
 */
void slabx_rcu_monitor_arm(void)
{
	/* The sheaf, stored, before the pauses are read: see above. */
	smp_mb();
	if (!atomic_read(&rcu_free_monitor_pauses))
		queue_delayed_work(system_unbound_wq, &rcu_free_monitor,
				   msecs_to_jiffies(SLABX_RCU_FREE_MAX_AGE_MS));
}

/* Whether an rcu_free sheaf opened at @opened is below the age limit. */
static bool rcu_free_young(unsigned long opened)
{
	return time_before(jiffies, opened +
			   msecs_to_jiffies(SLABX_RCU_FREE_MAX_AGE_MS));
}

/*
 * In a kworker bound to a CPU (nothing else of the CPU holds its sheaves):
 * queue the CPU's partial rcu_free sheaf if it is aged by the CPU's own
 * stamp (the monitor's remote look may be stale, or the sheaf replaced by
 * a younger one since). Return: whether a young sheaf was kept.
 */
static bool rcu_free_submit_aged(struct slabx_cache *s)
{
	struct slabx_cpu_sheaves *pcs;
	bool young = false;

	pcs = pcs_lock(s);
	if (WARN_ON_ONCE(!pcs))
		return false;
	if (pcs->rcu_free && pcs->rcu_free->size) {
		young = rcu_free_young(pcs->rcu_free_opened);
		if (!young)
			slabx_stat_inc(s, SLABX_RCU_SHEAF_AGED);
	}
	if (!young)
		slabx_rcu_free_submit_pcs(s, pcs, numa_mem_id());
	pcs_unlock(pcs);
	return young;
}

/* The monitor's work item on each CPU, and the CPUs it queued it on. */
struct rcu_free_aged_work {
	struct work_struct work;
	struct slabx_cache *s;
};

static DEFINE_PER_CPU(struct rcu_free_aged_work, rcu_free_aged_works);
static struct cpumask rcu_free_aged_cpus;

static void rcu_free_aged_work_fn(struct work_struct *work)
{
	struct rcu_free_aged_work *w = container_of(work,
						    struct rcu_free_aged_work,
						    work);

	if (rcu_free_submit_aged(w->s))
		WRITE_ONCE(rcu_free_monitor_young, true);
}

/*
 * Queue the partial rcu_free sheaves of @s that look open for the age
 * limit, on their CPUs: the work items of all of them first, then the
 * wait for each. Return: whether one looked too young.
 */
static bool rcu_free_queue_aged_all(struct slabx_cache *s)
{
	struct rcu_free_aged_work *w;
	bool young = false;
	unsigned int cpu;

	if (!READ_ONCE(s->cpu_sheaves) || READ_ONCE(s->dead))
		return false;
	cpumask_clear(&rcu_free_aged_cpus);
	for_each_online_cpu(cpu) {
		struct slabx_cpu_sheaves *pcs = per_cpu_ptr(s->cpu_sheaves,
							     cpu);

		if (!READ_ONCE(pcs->rcu_free))
			continue;
		if (rcu_free_young(READ_ONCE(pcs->rcu_free_opened))) {
			young = true;
			continue;
		}
		w = per_cpu_ptr(&rcu_free_aged_works, cpu);
		INIT_WORK(&w->work, rcu_free_aged_work_fn);
		w->s = s;
		slabx_queue_on_cpu(cpu, &w->work);
		cpumask_set_cpu(cpu, &rcu_free_aged_cpus);
	}
	for_each_cpu(cpu, &rcu_free_aged_cpus)
		flush_work(&per_cpu_ptr(&rcu_free_aged_works, cpu)->work);
	return young;
}

/*
 * Every listed cache's aged sheaves. A listed cache that is not dead is
 * not being destroyed (cache_kill() takes slabx_caches_mutex), so its
 * sheaves stay until the mutex is released.
 */
static void rcu_free_monitor_fn(struct work_struct *work)
{
	struct slabx_cache *s;
	bool young = false;

	if (atomic_read(&rcu_free_monitor_pauses))
		return;
	WRITE_ONCE(rcu_free_monitor_young, false);
	cpus_read_lock();
	mutex_lock(&slabx_caches_mutex);
	list_for_each_entry(s, &slabx_caches, list)
		young |= rcu_free_queue_aged_all(s);
	mutex_unlock(&slabx_caches_mutex);
	cpus_read_unlock();
	/* flush_work() waited for each: their flags are seen. */
	if (young || READ_ONCE(rcu_free_monitor_young))
		slabx_rcu_monitor_arm();
}

/**
 * slabx_rcu_free_monitor_pause() - stop the age monitor
 *
 * Partial rcu_free sheaves then wait for a barrier, a shrink or a full
 * sheaf, until each pause is undone by slabx_rcu_free_monitor_resume().
 * For tests whose counts need partial sheaves kept, and for module exit,
 * after which no cache opens a sheaf again (it never resumes).
 *
 * Context: process context, may sleep; not under cpus_read_lock() nor
 * slabx_caches_mutex.
 */
void slabx_rcu_free_monitor_pause(void)
{
	atomic_inc(&rcu_free_monitor_pauses);
	cancel_delayed_work_sync(&rcu_free_monitor);
}
EXPORT_SYMBOL_NS_GPL(slabx_rcu_free_monitor_pause, SLABX_TEST);

/**
 * slabx_rcu_free_monitor_resume() - undo one slabx_rcu_free_monitor_pause()
 *
 * The resume that undoes the last pause in force runs the monitor once,
 * before returning (unless a pause() races with it: then that pause's
 * resume does). A resume without a pause is refused with a warning.
 *
 * Context: as slabx_rcu_free_monitor_pause().
 */
void slabx_rcu_free_monitor_resume(void)
{
	int left = atomic_dec_if_positive(&rcu_free_monitor_pauses);

	if (WARN_ON_ONCE(left < 0) || left)
		return;
	mod_delayed_work(system_unbound_wq, &rcu_free_monitor, 0);
	flush_delayed_work(&rcu_free_monitor);
}
EXPORT_SYMBOL_NS_GPL(slabx_rcu_free_monitor_resume, SLABX_TEST);

/**
 * slabx_rcu_free_monitor_exit() - make sure the age monitor is gone
 *
 * At module exit, which paused the monitor first. A monitor queued since
 * (a sheaf opened after exit began) would run after the unload: it is
 * cancelled, with a warning.
 *
 * Context: process context, may sleep.
 */
void slabx_rcu_free_monitor_exit(void)
{
	WARN_ON_ONCE(cancel_delayed_work_sync(&rcu_free_monitor));
}

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for slabx's any-context page path: slabx_try_alloc_pages()
 * and slabx_free_pages_nolock() from process context, IRQs off, a raw
 * spinlock, an hrtimer (hard IRQ), softirq and real NMIs; zeroed pages;
 * fail-fast while the test itself holds the paths' locks; deferred frees
 * drained; the reserve refilled from its low watermark. The same for
 * objects: slabx_alloc_nolock() and slabx_free_nolock().
 */
#include <kunit/test.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/irqflags.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#ifdef CONFIG_X86_LOCAL_APIC
#include <asm/apic.h>
#include <asm/nmi.h>
#endif

#include "../slabx.h"
#include "slabx_kunit.h"
#include "slabx_test_hooks.h"

#define NOLOCK_MAX_ORDER	3

/*
 * On PREEMPT_RT the any-context paths give nothing in NMI and hard IRQ
 * (they return NULL at once, frees are deferred): what those contexts
 * must get.
 */
#define RT_ATOMIC	IS_ENABLED(CONFIG_PREEMPT_RT)

/* Allocate, check zeroed, scribble, free: 0 on success, else an error. */
static int alloc_check_free(int order)
{
	struct page *page = slabx_try_alloc_pages(NUMA_NO_NODE, order);

	if (!page)
		return -ENOMEM;
	if (memchr_inv(page_address(page), 0, PAGE_SIZE << order)) {
		slabx_free_pages_nolock(page, order);
		return -EIO;
	}
	memset(page_address(page), 0x6b, PAGE_SIZE << order);
	slabx_free_pages_nolock(page, order);
	return 0;
}

/* Wait until the deferred frees are drained (the worker runs them). */
static bool drained(void)
{
	int i;

	for (i = 0; i < 200; i++) {
		if (!slabx_nolock_pages_stat(SLABX_NOLOCK_PAGES_DEFERRED_PENDING))
			return true;
		msleep(20);
	}
	return false;
}

static void zeroed_pages_every_order(struct kunit *test)
{
	struct page *pages[NOLOCK_MAX_ORDER + 1];
	int order;

	for (order = 0; order <= NOLOCK_MAX_ORDER; order++) {
		KUNIT_EXPECT_EQ(test, alloc_check_free(order), 0);
		/* Reused after the scribbling: zeroed again. */
		KUNIT_EXPECT_EQ(test, alloc_check_free(order), 0);
	}
	for (order = 0; order <= NOLOCK_MAX_ORDER; order++) {
		pages[order] = slabx_try_alloc_pages(0, order);
		KUNIT_EXPECT_NOT_NULL(test, pages[order]);
	}
	for (order = 0; order <= NOLOCK_MAX_ORDER; order++)
		if (pages[order])
			slabx_free_pages_nolock(pages[order], order);
	/* Refused without a warning: a costly order, an impossible node. */
	KUNIT_EXPECT_NULL(test, slabx_try_alloc_pages(NUMA_NO_NODE,
						      NOLOCK_MAX_ORDER + 1));
	KUNIT_EXPECT_NULL(test, slabx_try_alloc_pages(MAX_NUMNODES, 0));
	KUNIT_EXPECT_NULL(test, slabx_try_alloc_pages(-5, 0));
}

static DEFINE_RAW_SPINLOCK(test_raw_lock);

static void irqs_off_and_raw_lock(struct kunit *test)
{
	unsigned long flags;
	int err = 0, i;

	local_irq_save(flags);
	for (i = 0; i < 16 && !err; i++)
		err = alloc_check_free(i % 2);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, err, 0);

	raw_spin_lock_irqsave(&test_raw_lock, flags);
	for (i = 0; i < 16 && !err; i++)
		err = alloc_check_free(i % 4);
	raw_spin_unlock_irqrestore(&test_raw_lock, flags);
	KUNIT_EXPECT_EQ(test, err, 0);
}

struct irq_ctx {
	struct hrtimer timer;
	struct tasklet_struct tasklet;
	struct slabx_cache *s;
	atomic_t ok;
	atomic_t bad;
	atomic_t rounds;
};

static void irq_ctx_round(struct irq_ctx *c, int order)
{
	int expect = RT_ATOMIC && in_hardirq() ? -ENOMEM : 0;

	if (alloc_check_free(order) == expect)
		atomic_inc(&c->ok);
	else
		atomic_inc(&c->bad);
	atomic_inc(&c->rounds);
}

static enum hrtimer_restart hardirq_fn(struct hrtimer *timer)
{
	struct irq_ctx *c = container_of(timer, struct irq_ctx, timer);

	if (!in_hardirq())
		atomic_inc(&c->bad);
	irq_ctx_round(c, atomic_read(&c->rounds) % 2);
	if (atomic_read(&c->rounds) >= 64)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(timer, ns_to_ktime(100 * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static void softirq_fn(struct tasklet_struct *t)
{
	struct irq_ctx *c = from_tasklet(c, t, tasklet);

	void *obj;

	if (!in_softirq())
		atomic_inc(&c->bad);
	irq_ctx_round(c, 1);
	/* Objects too: from a softirq the paths are all there. */
	obj = slabx_alloc_nolock(c->s, __GFP_ZERO);
	if (obj && !memchr_inv(obj, 0, 64))
		atomic_inc(&c->ok);
	else
		atomic_inc(&c->bad);
	slabx_free_nolock(c->s, obj);
}

static void hardirq_and_softirq(struct kunit *test)
{
	struct irq_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->s = cache_create(test, "kunit-nolock-softirq", 64, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c->s);
	hrtimer_init(&c->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	c->timer.function = hardirq_fn;
	hrtimer_start(&c->timer, ns_to_ktime(100 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_HARD);
	for (i = 0; i < 200 && atomic_read(&c->rounds) < 64; i++)
		msleep(20);
	hrtimer_cancel(&c->timer);
	KUNIT_EXPECT_GE(test, atomic_read(&c->rounds), 64);

	tasklet_setup(&c->tasklet, softirq_fn);
	for (i = 0; i < 16; i++) {
		tasklet_schedule(&c->tasklet);
		msleep(20);
	}
	tasklet_kill(&c->tasklet);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->bad), 0);
	KUNIT_EXPECT_GT(test, atomic_read(&c->ok), 64);
	KUNIT_EXPECT_TRUE(test, drained());
	KUNIT_EXPECT_GT(test, slabx_cache_stat(c->s, SLABX_ALLOC_NOLOCK), 0UL);
	KUNIT_EXPECT_EQ(test, cache_destroy(test, c->s), 0);
}

/* The reserve falls below its low watermark and the worker refills it. */
static void watermark_refill(struct kunit *test)
{
	struct page *pages[64];
	long before, low;
	int i, n = 0, tries;

	KUNIT_ASSERT_EQ(test, slabx_nolock_set_watermarks(8, 16), 0);
	KUNIT_EXPECT_TRUE(test, drained());
	msleep(100);			/* the worker filled up to 16 */
	before = slabx_nolock_pages_stat(SLABX_NOLOCK_PAGES_REFILLED);
	for (i = 0; i < ARRAY_SIZE(pages); i++) {
		pages[n] = slabx_try_alloc_pages(NUMA_NO_NODE, 0);
		if (pages[n])
			n++;
	}
	KUNIT_EXPECT_GT(test, n, 0);
	/* Pages, not scribbled: back to the page allocator directly. */
	for (i = 0; i < n; i++)
		__free_pages(pages[i], 0);
	/*
	 * Up to 10 s: the kmemleak boot (4 vCPUs on 2 host cores, every
	 * allocation serialised) once took more than 2 s to run the worker.
	 */
	for (tries = 0; tries < 500; tries++) {
		if (slabx_nolock_pages_stat(SLABX_NOLOCK_PAGES_REFILLED) > before)
			break;
		msleep(20);
	}
	KUNIT_EXPECT_GT(test, slabx_nolock_pages_stat(SLABX_NOLOCK_PAGES_REFILLED), before);
	low = slabx_nolock_pages_stat(SLABX_NOLOCK_PAGES_RESERVE);
	KUNIT_EXPECT_GT(test, low, 0L);
	/* Bad watermarks are refused. */
	KUNIT_EXPECT_EQ(test, slabx_nolock_set_watermarks(0, 16), -EINVAL);
	KUNIT_EXPECT_EQ(test, slabx_nolock_set_watermarks(9, 8), -EINVAL);
	KUNIT_EXPECT_EQ(test, slabx_nolock_set_watermarks(8, 100000), -EINVAL);
	KUNIT_EXPECT_EQ(test, slabx_nolock_set_watermarks(16, 64), 0);
}

#ifdef CONFIG_X86_LOCAL_APIC

/* The names of the NMI handlers, one pointer each: the cleanups' keys. */
static const char nolock_nmi_name[] = "slabx_nolock_test";
static const char nolock_obj_nmi_name[] = "slabx_nolock_obj";
static const char nl_stress_nmi_name[] = "slabx_nl_stress";

static void nmi_unregister_action(void *name)
{
	unregister_nmi_handler(NMI_LOCAL, name);
}

/*
 * A local NMI handler just registered as @name is unregistered when the
 * case ends, unless nmi_unregister() came first.
 */
static int nmi_unregister_at_end(struct kunit *test, const char *name)
{
	return kunit_add_action_or_reset(test, nmi_unregister_action,
					 (void *)name);
}

static void nmi_unregister(struct kunit *test, const char *name)
{
	kunit_release_action(test, nmi_unregister_action, (void *)name);
}

static atomic_t nmi_expected, nmi_ok, nmi_fail;
static struct page *nmi_page;
static bool nmi_free_page;

static int nolock_nmi(unsigned int cmd, struct pt_regs *regs)
{
	struct page *page;

	if (atomic_add_unless(&nmi_expected, -1, 0) == 0)
		return NMI_DONE;
	if (READ_ONCE(nmi_free_page)) {
		slabx_free_pages_nolock(READ_ONCE(nmi_page), 0);
		WRITE_ONCE(nmi_free_page, false);
		return NMI_HANDLED;
	}
	page = slabx_try_alloc_pages(NUMA_NO_NODE, 0);
	if (!page) {
		atomic_inc(&nmi_fail);
		return NMI_HANDLED;
	}
	if (memchr_inv(page_address(page), 0, PAGE_SIZE))
		atomic_inc(&nmi_fail);
	else
		atomic_inc(&nmi_ok);
	slabx_free_pages_nolock(page, 0);
	return NMI_HANDLED;
}

/* Raise an NMI on this CPU and wait until the handler ran. */
static void nmi_self(void)
{
	int i;

	atomic_inc(&nmi_expected);
	apic->send_IPI_self(NMI_VECTOR);
	/* It is taken at once; IRQs may be off here, so no sleeping. */
	for (i = 0; i < 10000000 && atomic_read(&nmi_expected); i++)
		cpu_relax();
}

static void from_nmi(struct kunit *test)
{
	unsigned long flags;
	long deferred;
	int i;

	atomic_set(&nmi_ok, 0);
	atomic_set(&nmi_fail, 0);
	KUNIT_ASSERT_EQ(test, register_nmi_handler(NMI_LOCAL, nolock_nmi, 0,
						   nolock_nmi_name), 0);
	KUNIT_ASSERT_EQ(test, nmi_unregister_at_end(test, nolock_nmi_name), 0);
	for (i = 0; i < 32; i++)
		nmi_self();
	KUNIT_EXPECT_EQ(test, atomic_read(&nmi_ok), RT_ATOMIC ? 0 : 32);
	KUNIT_EXPECT_EQ(test, atomic_read(&nmi_fail), RT_ATOMIC ? 32 : 0);
	atomic_set(&nmi_fail, 0);

	/*
	 * Fail fast: with this CPU's stash flag and the node's reserve lock
	 * held by the interrupted code, an NMI's allocation returns NULL
	 * and its free is deferred; the interrupted code goes on.
	 */
	atomic_set(&nmi_ok, 0);
	nmi_page = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, nmi_page);
	deferred = slabx_nolock_pages_stat(SLABX_NOLOCK_PAGES_DEFERRED);
	local_irq_save(flags);
	slabx_nolock_test_block();
	nmi_self();			/* allocation: must fail */
	WRITE_ONCE(nmi_free_page, true);
	nmi_self();			/* free: must be deferred */
	slabx_nolock_test_unblock();
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, atomic_read(&nmi_ok), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&nmi_fail), 1);
	KUNIT_EXPECT_EQ(test, slabx_nolock_pages_stat(SLABX_NOLOCK_PAGES_DEFERRED),
			deferred + 1);
	KUNIT_EXPECT_TRUE(test, drained());

	/* The same with the locks free: it succeeds (not on RT). */
	nmi_self();
	KUNIT_EXPECT_EQ(test, atomic_read(&nmi_ok), RT_ATOMIC ? 0 : 1);
	nmi_unregister(test, nolock_nmi_name);
}

#else

static void from_nmi(struct kunit *test)
{
	kunit_skip(test, "needs x86 local APIC NMIs");
}

#endif

/* ---- objects ---------------------------------------------------------------- */

static struct slabx_cache *nolock_cache(struct kunit *test, const char *name)
{
	struct slabx_cache_args args = { .sheaf_capacity = 8 };
	struct slabx_cache *s = cache_create(test, name, 128, &args);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	return s;
}

/* Wait until a cache's deferred frees were drained. */
static bool cache_drained(struct slabx_cache *s)
{
	int i;

	for (i = 0; i < 200; i++) {
		if (slabx_cache_stat(s, SLABX_FREE_NOLOCK_DEFERRED) ==
		    slabx_cache_stat(s, SLABX_FREE_NOLOCK_DRAINED))
			return true;
		msleep(20);
	}
	return false;
}

static void objects_any_context(struct kunit *test)
{
	struct slabx_cache *s = nolock_cache(test, "kunit-nolock");
	void *o[64];
	unsigned long flags;
	int i;

	/* A new cache: the slabs come from the any-context page path. */
	local_irq_save(flags);
	for (i = 0; i < 64; i++)
		o[i] = slabx_alloc_nolock(s, __GFP_ZERO);
	local_irq_restore(flags);
	for (i = 0; i < 64; i++) {
		KUNIT_ASSERT_NOT_NULL(test, o[i]);
		KUNIT_EXPECT_NULL(test, memchr_inv(o[i], 0, 128));
		memset(o[i], 0x5a, 128);
	}
	raw_spin_lock_irqsave(&test_raw_lock, flags);
	for (i = 0; i < 64; i++)
		slabx_free_nolock(s, o[i]);
	raw_spin_unlock_irqrestore(&test_raw_lock, flags);
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_ALLOC_NOLOCK), 64UL);
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_FREE_NOLOCK), 64UL);
	/* Only __GFP_ZERO is allowed. */
	KUNIT_EXPECT_NULL(test, slabx_alloc_nolock(s, GFP_KERNEL));
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_ALLOC_NOLOCK_FAIL), 1UL);
	KUNIT_EXPECT_TRUE(test, cache_drained(s));
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_ALLOC),
			slabx_cache_stat(s, SLABX_FREE));
	KUNIT_EXPECT_EQ(test, cache_destroy(test, s), 0);
}

#ifdef CONFIG_X86_LOCAL_APIC

static struct slabx_cache *nmi_cache;
static void *nmi_obj;
static atomic_t nmi_obj_ok, nmi_obj_null;

static int nolock_obj_nmi(unsigned int cmd, struct pt_regs *regs)
{
	void *obj;

	if (atomic_add_unless(&nmi_expected, -1, 0) == 0)
		return NMI_DONE;
	if (READ_ONCE(nmi_free_page)) {
		slabx_free_nolock(nmi_cache, READ_ONCE(nmi_obj));
		WRITE_ONCE(nmi_free_page, false);
		return NMI_HANDLED;
	}
	obj = slabx_alloc_nolock(nmi_cache, __GFP_ZERO);
	if (!obj) {
		atomic_inc(&nmi_obj_null);
		return NMI_HANDLED;
	}
	atomic_inc(&nmi_obj_ok);
	slabx_free_nolock(nmi_cache, obj);
	return NMI_HANDLED;
}

/*
 * Objects from real NMIs; then, with this CPU's sheaves, the node's slab
 * lock and the page path's locks held by the interrupted code, the NMI's
 * allocation fails fast and its free is deferred; then it works again.
 */
static void objects_from_nmi(struct kunit *test)
{
	unsigned long flags;
	int i;

	nmi_cache = nolock_cache(test, "kunit-nolock-nmi");
	atomic_set(&nmi_obj_ok, 0);
	atomic_set(&nmi_obj_null, 0);
	KUNIT_ASSERT_EQ(test, register_nmi_handler(NMI_LOCAL, nolock_obj_nmi,
						   0, nolock_obj_nmi_name), 0);
	KUNIT_ASSERT_EQ(test, nmi_unregister_at_end(test, nolock_obj_nmi_name),
			0);
	for (i = 0; i < 32; i++)
		nmi_self();
	KUNIT_EXPECT_EQ(test, atomic_read(&nmi_obj_ok), RT_ATOMIC ? 0 : 32);
	atomic_set(&nmi_obj_null, 0);

	nmi_obj = slabx_alloc(nmi_cache, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, nmi_obj);
	local_irq_save(flags);
	slabx_nolock_test_block_cache(nmi_cache);
	nmi_self();
	WRITE_ONCE(nmi_free_page, true);
	nmi_self();
	slabx_nolock_test_unblock_cache(nmi_cache);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, atomic_read(&nmi_obj_null), 1);
	/* With kmemleak, every free in an NMI waits for the drain. */
	KUNIT_EXPECT_EQ(test,
			slabx_cache_stat(nmi_cache, SLABX_FREE_NOLOCK_DEFERRED),
			IS_ENABLED(CONFIG_DEBUG_KMEMLEAK) && !RT_ATOMIC ? 33UL : 1UL);
	KUNIT_EXPECT_TRUE(test, cache_drained(nmi_cache));
	nmi_self();
	KUNIT_EXPECT_EQ(test, atomic_read(&nmi_obj_ok), RT_ATOMIC ? 0 : 33);
	nmi_unregister(test, nolock_obj_nmi_name);
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(nmi_cache, SLABX_ALLOC),
			slabx_cache_stat(nmi_cache, SLABX_FREE));
	KUNIT_EXPECT_EQ(test, cache_destroy(test, nmi_cache), 0);
}

#else

static void objects_from_nmi(struct kunit *test)
{
	kunit_skip(test, "needs x86 local APIC NMIs");
}

#endif

/* ---- stress: every context at once, every CPU ------------------------------- */

#define STRESS_MS	1500

struct tagged {
	atomic_t owner;		/* 0 while free: the constructed state */
	u32 pad[23];
};

static void tagged_ctor(void *obj)
{
	atomic_set(&((struct tagged *)obj)->owner, 0);
}

struct nl_stress {
	struct slabx_cache *s;
	unsigned long end;
	atomic_t errors;
	atomic_t running;
	atomic_t nolock_ops;
	atomic_t nmi_ops;
	bool timer_nmis;	/* one CPU: the hrtimers raise the NMIs */
	struct completion done;
};

static struct nl_stress *nl_stress;

/* Allocate with @alloc's path and free again, checking the owner tag. */
static void tagged_round(struct nl_stress *st, int id, bool nolock)
{
	struct tagged *o;

	o = nolock ? slabx_alloc_nolock(st->s, 0) : slabx_alloc(st->s, GFP_KERNEL);
	if (!o)
		return;
	if (atomic_cmpxchg(&o->owner, 0, id))
		atomic_inc(&st->errors);
	if (atomic_cmpxchg(&o->owner, id, 0) != id)
		atomic_inc(&st->errors);
	if (nolock)
		slabx_free_nolock(st->s, o);
	else
		slabx_free(st->s, o);
}

/* Sizes of the slabx_kmalloc() rounds: five classes, small to large. */
static const size_t kmalloc_round_sizes[] = { 24, 96, 200, 1000, 3000 };

/*
 * The same with slabx_kmalloc() memory of the size @sel picks, zeroed: an
 * owner tag in its first word, as for the cache's objects.
 */
static void kmalloc_round(struct nl_stress *st, int id, unsigned int sel,
			  bool nolock)
{
	size_t size = kmalloc_round_sizes[sel % ARRAY_SIZE(kmalloc_round_sizes)];
	atomic_t *o;

	o = nolock ? slabx_kmalloc_nolock(size, __GFP_ZERO, NUMA_NO_NODE) :
		     slabx_kmalloc(size, GFP_KERNEL | __GFP_ZERO);
	if (!o)
		return;
	if (atomic_cmpxchg(o, 0, id))
		atomic_inc(&st->errors);
	if (atomic_cmpxchg(o, id, 0) != id)
		atomic_inc(&st->errors);
	if (nolock)
		slabx_kfree_nolock(o);
	else
		slabx_kfree(o);
}

/* Rounds of either kind, through the nolock paths: alternating. */
static void nolock_round(struct nl_stress *st, int id, unsigned int i)
{
	if (i & 1)
		kmalloc_round(st, id, i / 2, true);
	else
		tagged_round(st, id, true);
}

/* The kmalloc classes' objects out, summed: 0 when all came back. */
static long kmalloc_outstanding(void)
{
	long n = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(kmalloc_round_sizes); i++) {
		struct slabx_cache *s = slabx_kmalloc_cache(kmalloc_round_sizes[i]);

		n += slabx_cache_stat(s, SLABX_ALLOC) -
		     slabx_cache_stat(s, SLABX_FREE);
	}
	return n;
}

struct nl_worker {
	struct nl_stress *st;
	int id;
	unsigned int ticks;
	struct hrtimer timer;
};

#ifdef CONFIG_X86_LOCAL_APIC

/*
 * On one CPU nobody else can send an NMI while a worker is in the middle
 * of slabx: the hrtimer that interrupted it raises one at its own CPU,
 * which comes at once, on top of the worker's state (its sheaves held, a
 * node lock taken, half a bulk done).
 */
static void nl_timer_nmi(struct nl_stress *st)
{
	if (!READ_ONCE(st->timer_nmis))
		return;
	atomic_inc(&nmi_expected);
	apic->send_IPI_self(NMI_VECTOR);
}

#else

static void nl_timer_nmi(struct nl_stress *st)
{
}

#endif

static enum hrtimer_restart nl_timer_fn(struct hrtimer *timer)
{
	struct nl_worker *w = container_of(timer, struct nl_worker, timer);

	nl_timer_nmi(w->st);
	nolock_round(w->st, 1000 + w->id, w->ticks++);
	atomic_inc(&w->st->nolock_ops);
	if (time_after(jiffies, w->st->end))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(timer, ns_to_ktime(30 * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static int nl_worker_fn(void *arg)
{
	struct nl_worker *w = arg;
	int i = 0;

	hrtimer_init(&w->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	w->timer.function = nl_timer_fn;
	hrtimer_start(&w->timer, ns_to_ktime(30 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_HARD);
	while (time_before(jiffies, w->st->end)) {
		if (i & 2)
			kmalloc_round(w->st, 1 + w->id, i / 4, i & 1);
		else
			tagged_round(w->st, 1 + w->id, i & 1);
		if (!(++i % 64))
			cond_resched();
	}
	hrtimer_cancel(&w->timer);
	if (atomic_dec_and_test(&w->st->running))
		complete(&w->st->done);
	return 0;
}

#ifdef CONFIG_X86_LOCAL_APIC

static int nl_stress_nmi(unsigned int cmd, struct pt_regs *regs)
{
	struct nl_stress *st = READ_ONCE(nl_stress);

	if (atomic_add_unless(&nmi_expected, -1, 0) == 0)
		return NMI_DONE;
	if (st)
		nolock_round(st, 2000 + smp_processor_id(),
			     atomic_inc_return(&st->nmi_ops));
	return NMI_HANDLED;
}

/* NMIs at every other online CPU in turn, until the end. */
static int nl_sender_fn(void *arg)
{
	struct nl_stress *st = arg;
	int cpu, me = raw_smp_processor_id(), n = 0;	/* a hint */

	while (time_before(jiffies, st->end)) {
		for_each_online_cpu(cpu) {
			if (cpu == me)
				continue;
			atomic_inc(&nmi_expected);
			apic->send_IPI(cpu, NMI_VECTOR);
			udelay(5);
		}
		if (!(++n % 16))
			cond_resched();
	}
	if (atomic_dec_and_test(&st->running))
		complete(&st->done);
	return 0;
}

/*
 * NMIs from a sender thread, or on one CPU from the workers' hrtimers.
 * Return: the threads started, which count in st->running.
 */
static int nl_start_nmis(struct kunit *test, struct nl_stress *st)
{
	struct task_struct *t;

	KUNIT_ASSERT_EQ(test, register_nmi_handler(NMI_LOCAL, nl_stress_nmi, 0,
						   nl_stress_nmi_name), 0);
	KUNIT_ASSERT_EQ(test, nmi_unregister_at_end(test, nl_stress_nmi_name),
			0);
	if (num_online_cpus() < 2) {
		WRITE_ONCE(st->timer_nmis, true);
		return 0;
	}
	t = kthread_create(nl_sender_fn, st, "nl_nmi");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	KUNIT_ASSERT_EQ(test, start_kthread(test, t, NULL, NULL), 0);
	return 1;
}

/* After the workers, whose hrtimers are cancelled by then. */
static void nl_stop_nmis(struct kunit *test)
{
	nmi_unregister(test, nl_stress_nmi_name);
	atomic_set(&nmi_expected, 0);
}

static bool nl_nmis(void)
{
	return true;
}

#else

static int nl_start_nmis(struct kunit *test, struct nl_stress *st)
{
	return 0;
}

static void nl_stop_nmis(struct kunit *test)
{
}

static bool nl_nmis(void)
{
	return false;
}

#endif

/*
 * A kthread per CPU allocating and freeing through both paths, an hrtimer
 * per CPU through the nolock paths in hard IRQ, NMIs at every CPU through
 * them too, each with a cache's objects and with slabx_kmalloc() memory of
 * five classes; owner tags catch an object handed out twice. At the end
 * everything is accounted for and the reserve is refilled.
 */
static void stress_all_contexts(struct kunit *test)
{
	struct slabx_cache_args args = { .ctor = tagged_ctor };
	long kmalloc_out = kmalloc_outstanding();
	struct task_struct *t = NULL;
	struct nl_worker *w;
	struct slabx_info info;
	struct nl_stress *st;
	int cpu, n = 0, senders, err = 0, i;

	st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	w = kunit_kcalloc(test, nr_cpu_ids, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st);
	KUNIT_ASSERT_NOT_NULL(test, w);
	st->s = cache_create(test, "kunit-nolock-stress", sizeof(struct tagged),
			     &args);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, st->s);
	init_completion(&st->done);
	st->end = jiffies + msecs_to_jiffies(STRESS_MS);
	WRITE_ONCE(nl_stress, st);

	/* No assertion with the CPU hotplug lock held: checked after it. */
	cpus_read_lock();
	atomic_set(&st->running, num_online_cpus() + 1);
	for_each_online_cpu(cpu) {
		w[n].st = st;
		w[n].id = n;
		t = kthread_create_on_cpu(nl_worker_fn, &w[n], cpu, "nl_stress/%u");
		if (IS_ERR(t))
			break;
		err = start_kthread(test, t, NULL, NULL);
		if (err)
			break;
		n++;
	}
	cpus_read_unlock();
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	KUNIT_ASSERT_EQ(test, err, 0);
	senders = nl_start_nmis(test, st);
	if (!senders && atomic_dec_and_test(&st->running))
		complete(&st->done);
	wait_for_completion(&st->done);
	nl_stop_nmis(test);
	WRITE_ONCE(nl_stress, NULL);

	kunit_info(test, "%d CPUs, %d hard-IRQ and %d NMI rounds\n", n,
		   atomic_read(&st->nolock_ops), atomic_read(&st->nmi_ops));
	KUNIT_EXPECT_EQ(test, atomic_read(&st->errors), 0);
	KUNIT_EXPECT_GT(test, atomic_read(&st->nolock_ops), 0);
	if (nl_nmis())
		KUNIT_EXPECT_GT(test, atomic_read(&st->nmi_ops), 0);
	KUNIT_EXPECT_TRUE(test, cache_drained(st->s));
	slabx_cache_shrink(st->s);
	slabx_cache_info(st->s, &info);
	KUNIT_EXPECT_EQ(test, info.objects_inuse, 0UL);
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(st->s, SLABX_ALLOC),
			slabx_cache_stat(st->s, SLABX_FREE));
	KUNIT_EXPECT_EQ(test, cache_destroy(test, st->s), 0);
	for (i = 0; i < ARRAY_SIZE(kmalloc_round_sizes); i++)
		KUNIT_EXPECT_TRUE(test, cache_drained(slabx_kmalloc_cache(kmalloc_round_sizes[i])));
	KUNIT_EXPECT_EQ(test, kmalloc_outstanding(), kmalloc_out);
	KUNIT_EXPECT_TRUE(test, drained());
	msleep(100);
	KUNIT_EXPECT_GT(test, slabx_nolock_pages_stat(SLABX_NOLOCK_PAGES_RESERVE), 0L);
}

static struct kunit_case slabx_nolock_cases[] = {
	KUNIT_CASE(zeroed_pages_every_order),
	KUNIT_CASE(irqs_off_and_raw_lock),
	KUNIT_CASE(hardirq_and_softirq),
	KUNIT_CASE(watermark_refill),
	KUNIT_CASE(from_nmi),
	KUNIT_CASE(objects_any_context),
	KUNIT_CASE(objects_from_nmi),
	KUNIT_CASE_SLOW(stress_all_contexts),
	{}
};

static struct kunit_suite slabx_nolock_suite = {
	.name = "slabx_nolock_pages",
	.test_cases = slabx_nolock_cases,
};

kunit_test_suites(&slabx_nolock_suite);

MODULE_DESCRIPTION("KUnit tests of slabx's any-context page path");

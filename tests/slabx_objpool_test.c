// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for slabx's objpool: the semantics of lib/objpool, the test
 * matrix of the kernel's lib/test_objpool.c (sync, sync with hard-IRQ
 * pops and pushes, overrun, async with drop and fini from RCU callbacks),
 * real NMIs that pop and push in the middle of pops and pushes, hand-offs
 * from popping to pushing threads through the shared ring, a pool that
 * outlives its head, memory failures at init, ring memory against
 * lib/objpool, the debug mode, and pool-mode caches.
 *
 * Every object carries an owner word: a pop must find it 0 and claims it
 * with cmpxchg, a push clears it first. An object handed out twice, or a
 * lost one, is caught, and every case ends by counting all objects.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/uio.h>
#include <linux/kthread.h>
#ifdef SLABX_HAVE_OBJPOOL
#include <linux/objpool.h>
#endif
#include <linux/prandom.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#ifdef CONFIG_X86_LOCAL_APIC
#include <asm/apic.h>
#include <asm/nmi.h>
#endif

#include "../slabx.h"
#include "slabx_kunit.h"
#include "slabx_test_hooks.h"

struct obj {
	atomic_t owner;		/* 0: in the pool */
	u32 magic;		/* set by objinit */
	struct rcu_head rcu;
	struct slabx_objpool_head *pool;
};

#define OBJ_MAGIC	0x0b1ec7

struct counts {
	atomic_t inits;
	atomic_t releases;
	atomic_t not_zeroed;
	struct completion released;
};

static int objinit(void *p, void *context)
{
	struct counts *c = context;
	struct obj *o = p;

	if (memchr_inv(p, 0, sizeof(*o)))
		atomic_inc(&c->not_zeroed);
	o->magic = OBJ_MAGIC;
	atomic_inc(&c->inits);
	return 0;
}

static int release(struct slabx_objpool_head *pool, void *context)
{
	struct counts *c = context;

	atomic_inc(&c->releases);
	complete(&c->released);
	return 0;
}

static struct counts *counts_new(struct kunit *test)
{
	struct counts *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	init_completion(&c->released);
	return c;
}

static struct slabx_objpool_head *pool_new(struct kunit *test, int nr,
					   struct counts *c)
{
	struct slabx_objpool_head *pool;

	pool = kunit_kzalloc(test, sizeof(*pool), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pool);
	KUNIT_ASSERT_EQ(test, slabx_objpool_init(pool, nr, sizeof(struct obj),
						 GFP_KERNEL, c, objinit,
						 release), 0);
	return pool;
}

/* Pop with the ownership check. Return: the object, NULL, or an error. */
static struct obj *take(struct slabx_objpool_head *pool, int id,
			atomic_t *errors)
{
	struct obj *o = slabx_objpool_pop(pool);

	if (o && (atomic_cmpxchg(&o->owner, 0, id) != 0 ||
		  o->magic != OBJ_MAGIC))
		atomic_inc(errors);
	return o;
}

static void give(struct slabx_objpool_head *pool, struct obj *o, int id,
		 atomic_t *errors)
{
	if (atomic_cmpxchg(&o->owner, id, 0) != id)
		atomic_inc(errors);
	if (slabx_objpool_push(o, pool))
		atomic_inc(errors);
}

/* Pop everything: exactly @nr distinct objects, all free. */
static void expect_all_objects(struct kunit *test,
			       struct slabx_objpool_head *pool, int nr)
{
	void **p = kunit_kcalloc(test, nr + 1, sizeof(*p), GFP_KERNEL);
	int i, n = 0, dup = 0, owned = 0;

	KUNIT_ASSERT_NOT_NULL(test, p);
	for (n = 0; n <= nr; n++) {
		p[n] = slabx_objpool_pop(pool);
		if (!p[n])
			break;
	}
	KUNIT_EXPECT_EQ(test, n, nr);
	sort(p, n, sizeof(*p), cmp_ptr, NULL);
	for (i = 0; i < n; i++) {
		dup += i && p[i] == p[i - 1];
		owned += atomic_read(&((struct obj *)p[i])->owner) != 0;
	}
	KUNIT_EXPECT_EQ(test, dup, 0);
	KUNIT_EXPECT_EQ(test, owned, 0);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, slabx_objpool_push(p[i], pool), 0);
}

/* ---- semantics -------------------------------------------------------- */

static void init_pop_push_fini(struct kunit *test)
{
	struct counts *c = counts_new(test);
	struct slabx_objpool_head *pool = pool_new(test, 100, c);
	struct slabx_objpool_stats st;
	atomic_t errors = ATOMIC_INIT(0);
	struct obj *o[100];
	int i;

	KUNIT_EXPECT_EQ(test, atomic_read(&c->inits), 100);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->not_zeroed), 0);
	KUNIT_EXPECT_EQ(test, pool->obj_size % (int)sizeof(long), 0);
	for (i = 0; i < 100; i++) {
		o[i] = take(pool, 1, &errors);
		KUNIT_ASSERT_NOT_NULL(test, o[i]);
	}
	KUNIT_EXPECT_NULL(test, slabx_objpool_pop(pool));
	slabx_objpool_get_stats(pool, &st);
	KUNIT_EXPECT_EQ(test, st.pops, 100UL);
	KUNIT_EXPECT_EQ(test, st.pop_misses, 1UL);
	KUNIT_EXPECT_EQ(test, st.outstanding, 100L);
	for (i = 0; i < 100; i++)
		give(pool, o[i], 1, &errors);
	KUNIT_EXPECT_EQ(test, atomic_read(&errors), 0);
	expect_all_objects(test, pool, 100);
	slabx_objpool_get_stats(pool, &st);
	KUNIT_EXPECT_EQ(test, st.outstanding, 0L);

	slabx_objpool_fini(pool);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->releases), 1);
	slabx_objpool_free(pool);	/* already freed: nothing happens */
	KUNIT_EXPECT_EQ(test, atomic_read(&c->releases), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->inits), 100);
}

/* Objects out at fini keep the pool alive until the last one is dropped. */
static void drop_after_fini(struct kunit *test)
{
	struct counts *c = counts_new(test);
	struct slabx_objpool_head *pool = pool_new(test, 16, c);
	void *o[3];
	int i;

	for (i = 0; i < 3; i++)
		o[i] = slabx_objpool_pop(pool);
	slabx_objpool_fini(pool);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->releases), 0);
	KUNIT_EXPECT_EQ(test, slabx_objpool_drop(o[0], pool), -EAGAIN);
	KUNIT_EXPECT_EQ(test, slabx_objpool_drop(o[1], pool), -EAGAIN);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->releases), 0);
	KUNIT_EXPECT_EQ(test, slabx_objpool_drop(o[2], pool), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->releases), 1);
	KUNIT_EXPECT_EQ(test, slabx_objpool_drop(NULL, pool), -EINVAL);
	KUNIT_EXPECT_EQ(test, slabx_objpool_drop(o[0], NULL), -EINVAL);
}

static int objinit_fails(void *obj, void *context)
{
	atomic_t *calls = context;

	return atomic_inc_return(calls) == 5 ? -ENOSPC : 0;
}

static void bad_parameters(struct kunit *test)
{
	struct slabx_objpool_head pool;
	atomic_t calls = ATOMIC_INIT(0);
	static const int bad[][2] = {
		{ 0, 8 }, { -1, 8 }, { (1 << 24) + 1, 8 }, { INT_MIN, 8 },
		{ 8, 0 }, { 8, -1 }, { 8, (1 << 16) + 1 }, { 8, INT_MIN },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ(test, slabx_objpool_init(&pool, bad[i][0],
							 bad[i][1], GFP_KERNEL,
							 NULL, NULL, NULL),
				-EINVAL);
	/* The limits themselves are fine (one object of 64 KiB). */
	KUNIT_ASSERT_EQ(test, slabx_objpool_init(&pool, 1, 1 << 16, GFP_KERNEL,
						 NULL, NULL, NULL), 0);
	slabx_objpool_fini(&pool);
	/* An objinit error fails the init with it, nothing kept. */
	KUNIT_EXPECT_EQ(test, slabx_objpool_init(&pool, 10, 8, GFP_KERNEL,
						 &calls, objinit_fails, NULL),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, atomic_read(&calls), 5);
	/* GFP_ATOMIC pools work too. */
	KUNIT_ASSERT_EQ(test, slabx_objpool_init(&pool, 10, 8, GFP_ATOMIC,
						 NULL, NULL, NULL), 0);
	slabx_objpool_fini(&pool);
}

/* Debug mode: a double push and a foreign pointer, each refused. */
static void debug_catches_bad_pushes(struct kunit *test)
{
	struct counts *c = counts_new(test);
	struct slabx_objpool_head *pool;
	struct slabx_objpool_stats st;
	u64 foreign[4];
	void *o;

	slabx_objpool_set_debug(true);
	pool = pool_new(test, 8, c);
	slabx_objpool_set_debug(false);
	KUNIT_EXPECT_TRUE(test, pool->flags & SLABX_OBJPOOL_F_DEBUG);
	o = slabx_objpool_pop(pool);
	KUNIT_ASSERT_NOT_NULL(test, o);
	KUNIT_EXPECT_EQ(test, slabx_objpool_push(o, pool), 0);
	KUNIT_EXPECT_EQ(test, slabx_objpool_push(o, pool), -EINVAL);
	KUNIT_EXPECT_EQ(test, slabx_objpool_push(foreign, pool), -EINVAL);
	KUNIT_EXPECT_EQ(test, slabx_objpool_push(o + 1, pool), -EINVAL);
	slabx_objpool_get_stats(pool, &st);
	KUNIT_EXPECT_EQ(test, st.debug_errors, 3U);
	expect_all_objects(test, pool, 8);
	slabx_objpool_fini(pool);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->releases), 1);
}

/* ---- the lib/test_objpool.c matrix ------------------------------------- */

#define MATRIX_ITERS	4000
#define MATRIX_BATCH	8

struct matrix {
	struct slabx_objpool_head *pool;
	atomic_t errors;
	atomic_t running;
	atomic_t irq_ops;
	bool stop;
	struct completion done;
};

struct matrix_worker {
	struct matrix *m;
	int id;
	struct hrtimer timer;
	bool with_timer;
	struct obj *held[MATRIX_BATCH];
};

/* Pop up to a batch, then push it all back. */
static int matrix_round(struct matrix_worker *w, int id)
{
	struct matrix *m = w->m;
	struct obj *held[MATRIX_BATCH];
	int n, i;

	for (n = 0; n < MATRIX_BATCH; n++) {
		held[n] = take(m->pool, id, &m->errors);
		if (!held[n])
			break;
	}
	for (i = 0; i < n; i++)
		give(m->pool, held[i], id, &m->errors);
	return n;
}

static enum hrtimer_restart matrix_timer_fn(struct hrtimer *timer)
{
	struct matrix_worker *w = container_of(timer, struct matrix_worker,
					       timer);

	if (!in_hardirq())
		atomic_inc(&w->m->errors);
	matrix_round(w, 1000 + w->id);	/* its own owner id */
	atomic_inc(&w->m->irq_ops);
	if (READ_ONCE(w->m->stop))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(timer, ns_to_ktime(50 * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static int matrix_thread(void *arg)
{
	unsigned long end = jiffies + 2 * HZ;
	struct matrix_worker *w = arg;
	int i;

	if (w->with_timer) {
		hrtimer_init(&w->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
		w->timer.function = matrix_timer_fn;
		hrtimer_start(&w->timer, ns_to_ktime(50 * NSEC_PER_USEC),
			      HRTIMER_MODE_REL_HARD);
	}
	/* With a timer, run until it has fired a few times (or 2 s). */
	for (i = 0; i < MATRIX_ITERS ||
	     (w->with_timer && atomic_read(&w->m->irq_ops) < 16 &&
	      time_before(jiffies, end)); i++) {
		matrix_round(w, 1 + w->id);
		if (!(i % 32))
			cond_resched();
	}
	if (atomic_dec_and_test(&w->m->running))
		complete(&w->m->done);
	return 0;
}

/*
 * One thread per online CPU (bound), optionally with a hard-IRQ timer
 * each; *@irq_ops: rounds done in hard IRQ; *@misses: pops that missed.
 */
static void run_matrix(struct kunit *test, int nr_objs, bool with_timer,
		       int *irq_ops, unsigned long *misses)
{
	struct slabx_objpool_stats st;
	struct counts *c = counts_new(test);
	struct matrix_worker *w;
	struct matrix *m;
	int cpu, n = 0;

	m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	w = kunit_kcalloc(test, nr_cpu_ids, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, w);
	m->pool = pool_new(test, nr_objs, c);
	init_completion(&m->done);

	cpus_read_lock();
	atomic_set(&m->running, num_online_cpus());
	for_each_online_cpu(cpu) {
		struct task_struct *t;

		w[n].m = m;
		w[n].id = n;
		w[n].with_timer = with_timer;
		t = kthread_create_on_cpu(matrix_thread, &w[n], cpu,
					  "objpool_test/%u");
		KUNIT_ASSERT_FALSE(test, IS_ERR(t));
		wake_up_process(t);
		n++;
	}
	cpus_read_unlock();
	wait_for_completion(&m->done);
	WRITE_ONCE(m->stop, true);
	for (cpu = 0; cpu < n; cpu++)
		if (with_timer)
			hrtimer_cancel(&w[cpu].timer);

	KUNIT_EXPECT_EQ(test, atomic_read(&m->errors), 0);
	slabx_objpool_get_stats(m->pool, &st);
	*misses = st.pop_misses;
	expect_all_objects(test, m->pool, nr_objs);
	*irq_ops = atomic_read(&m->irq_ops);
	slabx_objpool_fini(m->pool);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->releases), 1);
}

static void matrix_sync(struct kunit *test)
{
	unsigned long misses;
	int irq_ops;

	run_matrix(test, num_possible_cpus() * MATRIX_BATCH * 2, false,
		   &irq_ops, &misses);
}

static void matrix_sync_hrtimer(struct kunit *test)
{
	unsigned long misses;
	int irq_ops;

	run_matrix(test, num_possible_cpus() * MATRIX_BATCH * 2, true,
		   &irq_ops, &misses);
	KUNIT_EXPECT_GT(test, irq_ops, 0);
	kunit_info(test, "%d hard-IRQ rounds\n", irq_ops);
}

/* Fewer objects than the threads want at once: misses, nothing lost. */
static void matrix_overrun(struct kunit *test)
{
	int irq_ops, nr = max(2U, num_online_cpus() * MATRIX_BATCH / 4);
	unsigned long misses;

	run_matrix(test, nr, true, &irq_ops, &misses);
	kunit_info(test, "%d objects, %lu pop misses\n", nr, misses);
	KUNIT_EXPECT_GT(test, misses, 0UL);
}

static void drop_rcu(struct rcu_head *head)
{
	struct obj *o = container_of(head, struct obj, rcu);

	slabx_objpool_drop(o, o->pool);
}

static void fini_rcu(struct rcu_head *head)
{
	struct obj *o = container_of(head, struct obj, rcu);

	slabx_objpool_fini(o->pool);
}

/*
 * async: objects out while the pool is retired from an RCU callback; each
 * is dropped from its own RCU callback; the pool goes with the last one.
 */
static void matrix_async_rcu(struct kunit *test)
{
	struct counts *c = counts_new(test);
	struct slabx_objpool_head *pool = pool_new(test, 64, c);
	struct obj *o[17];
	int i;

	for (i = 0; i < ARRAY_SIZE(o); i++) {
		o[i] = slabx_objpool_pop(pool);
		KUNIT_ASSERT_NOT_NULL(test, o[i]);
		o[i]->pool = pool;
	}
	/* o[0]'s rcu_head retires the pool while 17 objects are out. */
	call_rcu(&o[0]->rcu, fini_rcu);
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, atomic_read(&c->releases), 0);
	for (i = 1; i < ARRAY_SIZE(o); i++)
		call_rcu(&o[i]->rcu, drop_rcu);
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, atomic_read(&c->releases), 0);
	/* o[0] was taken by nobody after fini: its drop is the last. */
	KUNIT_EXPECT_EQ(test, slabx_objpool_drop(o[0], pool), 0);
	KUNIT_EXPECT_EQ(test,
			wait_for_completion_timeout(&c->released, HZ) > 0,
			true);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->releases), 1);
}

/* ---- NMIs in the middle of pops and pushes ------------------------------ */

#ifdef CONFIG_X86_LOCAL_APIC

/*
 * Sized by NMIs handled, not by time: NMIs do not queue, so on vCPUs that
 * share busy host cores most of those sent coalesce. The deadline is only
 * a bound.
 */
#define NMI_TEST_HANDLED	300
#define NMI_TEST_MAX_MS		60000

static struct matrix *nmi_matrix;
static atomic_t nmi_pending[NR_CPUS];
static atomic_t nmi_handled;

static int objpool_nmi(unsigned int cmd, struct pt_regs *regs)
{
	int cpu = smp_processor_id();
	struct matrix_worker w = { .m = READ_ONCE(nmi_matrix) };

	if (atomic_add_unless(&nmi_pending[cpu], -1, 0) == 0)
		return NMI_DONE;
	if (w.m) {
		matrix_round(&w, 2000 + cpu);
		atomic_inc(&nmi_handled);
	}
	return NMI_HANDLED;
}

struct nmi_target {
	struct matrix *m;
	int cpu;
	int sender_cpu;
	unsigned long end;
	int sent;
	struct hrtimer timer;	/* the sender on one CPU */
	struct rnd_state rnd;
};

static bool nmi_test_over(struct nmi_target *t)
{
	return atomic_read(&nmi_handled) >= NMI_TEST_HANDLED ||
	       time_after(jiffies, t->end);
}

/* On the target CPU: pops and pushes, as tight as they come. */
static int nmi_victim_thread(void *arg)
{
	struct nmi_target *t = arg;
	struct matrix_worker w = { .m = t->m };

	while (!nmi_test_over(t)) {
		matrix_round(&w, 3000 + t->cpu);
		cond_resched();
	}
	if (atomic_dec_and_test(&t->m->running))
		complete(&t->m->done);
	return 0;
}

/* On another CPU: NMIs at the target at random short intervals. */
static int nmi_sender_thread(void *arg)
{
	struct nmi_target *t = arg;
	struct rnd_state rnd;

	prandom_seed_state(&rnd, t->cpu);
	while (!nmi_test_over(t)) {
		atomic_inc(&nmi_pending[t->cpu]);
		apic->send_IPI(t->cpu, NMI_VECTOR);
		t->sent++;
		udelay(5 + prandom_u32_state(&rnd) % 40);
		if (!(t->sent % 64))
			cond_resched();
	}
	if (atomic_dec_and_test(&t->m->running))
		complete(&t->m->done);
	return 0;
}

/*
 * On one CPU, where no other CPU can send them: an hrtimer on the
 * target's CPU, at random short intervals, raises an NMI at that CPU,
 * which comes at once, on top of the pop or push the timer interrupted.
 * Only pops and pushes with IRQs on are hit so; on several CPUs the
 * sender's NMIs hit their IRQs-off windows too.
 */
static enum hrtimer_restart nmi_timer_fn(struct hrtimer *timer)
{
	struct nmi_target *t = container_of(timer, struct nmi_target, timer);

	if (nmi_test_over(t))
		return HRTIMER_NORESTART;
	atomic_inc(&nmi_pending[t->cpu]);
	apic->send_IPI_self(NMI_VECTOR);
	t->sent++;
	hrtimer_forward_now(timer, ns_to_ktime((5 + prandom_u32_state(&t->rnd) % 40) *
					       NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static void nmi_nesting(struct kunit *test)
{
	struct counts *c = counts_new(test);
	struct task_struct *victim, *sender = NULL;
	struct nmi_target t = { .cpu = 0, .sender_cpu = 1 };
	bool one_cpu = num_online_cpus() < 2;
	struct matrix *m;

	m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m);
	/* Few objects: the rings wrap and the NMI often finds them empty. */
	m->pool = pool_new(test, 24, c);
	init_completion(&m->done);
	atomic_set(&m->running, one_cpu ? 1 : 2);
	t.m = m;
	t.end = jiffies + msecs_to_jiffies(NMI_TEST_MAX_MS);
	prandom_seed_state(&t.rnd, t.cpu);
	atomic_set(&nmi_handled, 0);
	WRITE_ONCE(nmi_matrix, m);
	KUNIT_ASSERT_EQ(test, register_nmi_handler(NMI_LOCAL, objpool_nmi, 0,
						   "slabx_objpool_test"), 0);

	victim = kthread_create_on_cpu(nmi_victim_thread, &t, t.cpu,
				       "objpool_victim/%u");
	if (!one_cpu)
		sender = kthread_create_on_cpu(nmi_sender_thread, &t,
					       t.sender_cpu, "objpool_nmi/%u");
	KUNIT_ASSERT_FALSE(test, IS_ERR(victim));
	KUNIT_ASSERT_FALSE(test, IS_ERR(sender));
	wake_up_process(victim);
	if (one_cpu) {
		hrtimer_init_on_stack(&t.timer, CLOCK_MONOTONIC,
				      HRTIMER_MODE_REL_HARD);
		t.timer.function = nmi_timer_fn;
		hrtimer_start(&t.timer, ns_to_ktime(20 * NSEC_PER_USEC),
			      HRTIMER_MODE_REL_HARD);
	} else {
		wake_up_process(sender);
	}
	wait_for_completion(&m->done);
	if (one_cpu) {
		hrtimer_cancel(&t.timer);
		destroy_hrtimer_on_stack(&t.timer);
	}
	unregister_nmi_handler(NMI_LOCAL, "slabx_objpool_test");
	WRITE_ONCE(nmi_matrix, NULL);

	kunit_info(test, "%d NMIs sent, %d handled with pops and pushes\n",
		   t.sent, atomic_read(&nmi_handled));
	KUNIT_EXPECT_GT(test, atomic_read(&nmi_handled), 100);
	KUNIT_EXPECT_EQ(test, atomic_read(&m->errors), 0);
	expect_all_objects(test, m->pool, 24);
	slabx_objpool_fini(m->pool);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->releases), 1);
}

#else

static void nmi_nesting(struct kunit *test)
{
	kunit_skip(test, "needs x86 local APIC NMIs");
}

#endif

/* ---- hand-offs through the shared ring ---------------------------------- */

#define HANDOFFS	100000
#define HANDOFF_PAIRS	2
#define HANDOFF_SLOTS	4
/* Objects: the pushers' full small rings, and a few more to cycle. */
#define HANDOFF_OBJS	(HANDOFF_PAIRS * SLABX_OBJPOOL_OWN_SLOTS + 8)

/* From one popper to one pusher: single producer, single consumer. */
struct handoff {
	struct obj *slot[HANDOFF_SLOTS];
	unsigned long head;	/* written by the pusher */
	unsigned long tail;	/* written by the popper */
};

struct handoff_test {
	struct slabx_objpool_head *pool;
	struct handoff queue[HANDOFF_PAIRS];
	atomic_t errors;	/* ownership or magic broken */
	atomic_t push_errors;	/* pushes that failed: objects lost */
	atomic_t running;
	struct completion done;
};

struct handoff_worker {
	struct handoff_test *t;
	int id;
};

/* Whether the popper could put @o into @q. */
static bool handoff_put(struct handoff *q, struct obj *o)
{
	/* Pairs with handoff_get(): the pusher is done with the slot. */
	if (q->tail - smp_load_acquire(&q->head) == HANDOFF_SLOTS)
		return false;
	q->slot[q->tail % HANDOFF_SLOTS] = o;
	/* Pairs with handoff_get(): the slot is written. */
	smp_store_release(&q->tail, q->tail + 1);
	return true;
}

/* The pusher's next object from @q, or NULL. */
static struct obj *handoff_get(struct handoff *q)
{
	struct obj *o;

	/* Pairs with handoff_put(): the slot is written. */
	if (q->head == smp_load_acquire(&q->tail))
		return NULL;
	o = q->slot[q->head % HANDOFF_SLOTS];
	/* Pairs with handoff_put(): the slot is free once this is seen. */
	smp_store_release(&q->head, q->head + 1);
	return o;
}

/* Waiting for another vCPU: spin a little, then let the host run it. */
static void handoff_wait(unsigned int *spins)
{
	cpu_relax();
	if (!(++*spins % 64))
		cond_resched();
	if (!(*spins % 1024))
		usleep_range(5, 10);
}

static int handoff_popper(void *arg)
{
	struct handoff_worker *w = arg;
	struct handoff_test *t = w->t;
	struct handoff *q = &t->queue[w->id];
	unsigned int spins = 0;
	int i;

	for (i = 0; i < HANDOFFS / HANDOFF_PAIRS; i++) {
		struct obj *o;

		while (!(o = take(t->pool, 1 + w->id, &t->errors)))
			handoff_wait(&spins);
		while (!handoff_put(q, o))
			handoff_wait(&spins);
	}
	if (atomic_dec_and_test(&t->running))
		complete(&t->done);
	return 0;
}

/* Fill this CPU's small ring, so that pushes go to the shared ring. */
static void handoff_fill_local(struct handoff_test *t, int id)
{
	struct obj *o[SLABX_OBJPOOL_OWN_SLOTS];
	int i, n;

	for (n = 0; n < SLABX_OBJPOOL_OWN_SLOTS; n++) {
		o[n] = take(t->pool, id, &t->errors);
		if (!o[n])
			break;
	}
	for (i = 0; i < n; i++)
		give(t->pool, o[i], id, &t->errors);
}

static int handoff_pusher(void *arg)
{
	struct handoff_worker *w = arg;
	struct handoff_test *t = w->t;
	struct handoff *q = &t->queue[w->id];
	unsigned int spins = 0;
	int i;

	handoff_fill_local(t, 100 + w->id);
	for (i = 0; i < HANDOFFS / HANDOFF_PAIRS; i++) {
		struct obj *o;

		while (!(o = handoff_get(q)))
			handoff_wait(&spins);
		if (atomic_cmpxchg(&o->owner, 1 + w->id, 0) != 1 + w->id)
			atomic_inc(&t->errors);
		if (slabx_objpool_push(o, t->pool))
			atomic_inc(&t->push_errors);
	}
	if (atomic_dec_and_test(&t->running))
		complete(&t->done);
	return 0;
}

static void handoff_start(struct kunit *test, struct handoff_worker *w,
			  int (*fn)(void *), int cpu, const char *name)
{
	struct task_struct *k = kthread_create_on_cpu(fn, w, cpu, name);

	KUNIT_ASSERT_FALSE(test, IS_ERR(k));
	wake_up_process(k);
}

/*
 * Poppers hand every object they take to pushers on other CPUs, whose
 * small rings are full, so that their pushes go to the shared ring, which
 * the poppers keep almost empty. A push that finds head already past the
 * tail it read (others pushed and popped past it meanwhile) must read
 * tail again: it once took the ring for full, failed with -ENOSPC and lost
 * the object. That needs a push stopped between two loads (an interrupt,
 * a preempted vCPU), so this case may pass on that old code too; KCSAN
 * or luck would be needed. The proof is the userspace model that runs the
 * same ring code (tests/userspace/, make -C tests/userspace check); this
 * case checks the whole pool under the same traffic: no push fails, every
 * object comes back exactly once, and the counters add up.
 */
static void handoff_through_shared_ring(struct kunit *test)
{
	struct handoff_worker w[2 * HANDOFF_PAIRS];
	struct counts *c = counts_new(test);
	struct slabx_objpool_stats st;
	struct handoff_test *t;
	int cpu[2 * HANDOFF_PAIRS];
	int i, n = 0, online;
	ktime_t start;

	if (num_online_cpus() < ARRAY_SIZE(cpu))
		kunit_skip(test, "needs %zu CPUs (%u online)", ARRAY_SIZE(cpu),
			   num_online_cpus());
	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	t->pool = pool_new(test, HANDOFF_OBJS, c);
	init_completion(&t->done);
	atomic_set(&t->running, 2 * HANDOFF_PAIRS);

	/* Poppers on the first online CPUs, pushers on the next ones. */
	start = ktime_get();
	cpus_read_lock();
	online = num_online_cpus();
	for_each_online_cpu(i)
		if (n < ARRAY_SIZE(cpu))
			cpu[n++] = i;
	/* Fewer CPUs online since the check: they share (i % n). */
	for (i = 0; i < ARRAY_SIZE(w); i++) {
		w[i].t = t;
		w[i].id = i % HANDOFF_PAIRS;
		handoff_start(test, &w[i],
			      i < HANDOFF_PAIRS ? handoff_popper : handoff_pusher,
			      cpu[i % n], i < HANDOFF_PAIRS ? "objpool_pop/%u" :
							      "objpool_push/%u");
	}
	cpus_read_unlock();
	wait_for_completion(&t->done);

	slabx_objpool_get_stats(t->pool, &st);
	kunit_info(test, "%d hand-offs on %d CPUs of %d in %lld ms: %lu pops, %lu remote, %lu misses\n",
		   HANDOFFS, n, online, ktime_ms_delta(ktime_get(), start),
		   st.pops, st.remote_pops, st.pop_misses);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->push_errors), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->errors), 0);
	KUNIT_EXPECT_EQ(test, st.debug_errors, 0U);
	KUNIT_EXPECT_EQ(test, st.drops, 0UL);
	KUNIT_EXPECT_EQ(test, st.pushes, st.pops);
	KUNIT_EXPECT_EQ(test, st.outstanding, 0L);
	/* Each hand-off, and each object of the pushers' small rings. */
	KUNIT_EXPECT_GE(test, st.pops, (unsigned long)HANDOFFS);
	expect_all_objects(test, t->pool, HANDOFF_OBJS);
	slabx_objpool_fini(t->pool);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->releases), 1);
}

/* ---- slabx keeps no pointer to a head ------------------------------------ */

#define OBJPOOLS_FILE	"/sys/kernel/debug/slabx/objpools"
#define OBJPOOLS_MAX	(4 * PAGE_SIZE)

/*
 * The text of slabx's objpools file, or NULL without debugfs there.
 * kernel_read() refuses files with a ->read (seq_read), as debugfs's are:
 * this reads their seq_file as seq_read() does.
 */
static char *objpools_read(struct kunit *test)
{
	char *buf = kunit_kzalloc(test, OBJPOOLS_MAX, GFP_KERNEL);
	struct iov_iter iter;
	struct kiocb kiocb;
	struct kvec kv;
	struct file *f;
	ssize_t n;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	f = filp_open(OBJPOOLS_FILE, O_RDONLY, 0);
	if (IS_ERR(f))
		return NULL;
	init_sync_kiocb(&kiocb, f);
	do {
		kv.iov_base = buf + kiocb.ki_pos;
		kv.iov_len = OBJPOOLS_MAX - 1 - kiocb.ki_pos;
		iov_iter_kvec(&iter, ITER_DEST, &kv, 1, kv.iov_len);
		n = seq_read_iter(&kiocb, &iter);
	} while (n > 0 && kiocb.ki_pos < OBJPOOLS_MAX - 1);
	filp_close(f, NULL);
	KUNIT_EXPECT_GE(test, n, 0L);
	return buf;
}

/* Pools listed in the objpools file, or -1 without debugfs there. */
static int objpools_count(struct kunit *test)
{
	char *text = objpools_read(test);
	int n = 0;

	if (!text)
		return -1;
	while ((text = strchr(text, '\n'))) {
		text++;
		n++;
	}
	return n;
}

/* The objpools file's line of the pool of @nr_objs, or NULL. */
static char *objpools_line(struct kunit *test, char *text, int nr_objs)
{
	char key[32], *line;

	snprintf(key, sizeof(key), " objects=%d ", nr_objs);
	line = strstr(text, key);
	if (line)
		*strchrnul(line, '\n') = '\0';
	return line;
}

#define HEADLESS_OBJS	13	/* for its line in the objpools file */

/*
 * The owner retires a pool with objects still out, keeps a copy of the
 * head and frees the original, as lib/objpool allows: the pool lives on,
 * its objects are dropped through the copy. slabx must not touch the
 * freed head: not when other pools come and go on its list, not in
 * debugfs. (It once listed the heads themselves: KASAN reported the
 * first, DEBUG_LIST the last.) In debug mode, as here, fini reports the
 * objects still out.
 */
static void pool_outlives_head(struct kunit *test)
{
	struct slabx_objpool_head *pool, *copy, *other;
	struct counts *c = counts_new(test);
	char *text, *line;
	void *o[2];

	pool = kmalloc(sizeof(*pool), GFP_KERNEL);
	copy = kunit_kmalloc(test, sizeof(*copy), GFP_KERNEL);
	other = kunit_kzalloc(test, sizeof(*other), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pool);
	KUNIT_ASSERT_NOT_NULL(test, copy);
	KUNIT_ASSERT_NOT_NULL(test, other);
	slabx_objpool_set_debug(true);
	KUNIT_ASSERT_EQ(test, slabx_objpool_init(pool, HEADLESS_OBJS,
						 sizeof(struct obj), GFP_KERNEL,
						 c, objinit, release), 0);
	slabx_objpool_set_debug(false);
	o[0] = slabx_objpool_pop(pool);
	o[1] = slabx_objpool_pop(pool);
	KUNIT_ASSERT_NOT_NULL(test, o[0]);
	KUNIT_ASSERT_NOT_NULL(test, o[1]);
	slabx_objpool_fini(pool);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->releases), 0);
	memcpy(copy, pool, sizeof(*pool));
	kfree(pool);		/* KASAN poisons it */

	/* List operations next to the pool whose head is gone. */
	KUNIT_ASSERT_EQ(test, slabx_objpool_init(other, 4, 8, GFP_KERNEL,
						 NULL, NULL, NULL), 0);
	text = objpools_read(test);
	if (text) {
		line = objpools_line(test, text, HEADLESS_OBJS);
		KUNIT_ASSERT_NOT_NULL(test, line);
		KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(line, " outstanding=2 "),
					  "%s", line);
	} else {
		kunit_info(test, "no %s: debugfs not read\n", OBJPOOLS_FILE);
	}
	slabx_objpool_fini(other);

	KUNIT_EXPECT_EQ(test, slabx_objpool_drop(o[0], copy), -EAGAIN);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->releases), 0);
	KUNIT_EXPECT_EQ(test, slabx_objpool_drop(o[1], copy), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->releases), 1);
	text = objpools_read(test);
	if (text)
		KUNIT_EXPECT_NULL(test, objpools_line(test, text, HEADLESS_OBJS));
}

/* ---- memory failures ----------------------------------------------------- */

/*
 * Init with the nth metadata allocation failing, for nth = 1, 2, ... until
 * it succeeds: each failure is -ENOMEM, calls no release and lists no
 * pool. Return: the allocations that failed it.
 */
static int init_until_success(struct kunit *test, bool debug)
{
	struct slabx_objpool_head *pool = kunit_kzalloc(test, sizeof(*pool),
							GFP_KERNEL);
	struct counts *c = counts_new(test);
	int listed = objpools_count(test);
	int nth, rc;

	KUNIT_ASSERT_NOT_NULL(test, pool);
	slabx_objpool_set_debug(debug);
	for (nth = 1; nth <= 16; nth++) {
		slabx_fault_inject_meta(nth);
		rc = slabx_objpool_init(pool, 10, sizeof(struct obj),
					GFP_KERNEL, c, objinit, release);
		slabx_fault_inject_meta(0);
		if (rc != -ENOMEM)
			break;
		KUNIT_EXPECT_EQ(test, atomic_read(&c->releases), 0);
		KUNIT_EXPECT_EQ(test, objpools_count(test), listed);
	}
	slabx_objpool_set_debug(false);
	KUNIT_ASSERT_EQ(test, rc, 0);
	if (listed >= 0)
		KUNIT_EXPECT_EQ(test, objpools_count(test), listed + 1);
	expect_all_objects(test, pool, 10);
	slabx_objpool_fini(pool);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->releases), 1);
	return nth - 1;
}

/* Every allocation of an init can fail, and leaves nothing behind. */
static void init_memory_failure(struct kunit *test)
{
	/* The objects, the shared ring, the per-CPU rings. */
	KUNIT_EXPECT_EQ(test, init_until_success(test, false), 3);
	/* And the debug mode's bitmap. */
	KUNIT_EXPECT_EQ(test, init_until_success(test, true), 4);
}

/* ---- memory ---------------------------------------------------------------- */

#ifdef SLABX_HAVE_OBJPOOL
/* lib/objpool's ring memory: a ring of capacity entries per possible CPU. */
static size_t lib_ring_bytes(struct objpool_head *lib)
{
	return lib->nr_possible_cpus *
	       (sizeof(struct objpool_slot) + lib->capacity * sizeof(void *));
}

static void ring_memory_below_lib(struct kunit *test)
{
	struct slabx_objpool_head *pool = kunit_kzalloc(test, sizeof(*pool),
							GFP_KERNEL);
	struct objpool_head lib;
	struct slabx_objpool_stats st;
	size_t ours, theirs;

	KUNIT_ASSERT_NOT_NULL(test, pool);
	if (num_possible_cpus() < 4)
		kunit_skip(test, "small rings pay off from 3 CPUs (%u possible)",
			   num_possible_cpus());
	KUNIT_ASSERT_EQ(test, slabx_objpool_init(pool, 1024, 64, GFP_KERNEL,
						 NULL, NULL, NULL), 0);
	KUNIT_ASSERT_EQ(test, objpool_init(&lib, 1024, 64, GFP_KERNEL, NULL,
					   NULL, NULL), 0);
	slabx_objpool_get_stats(pool, &st);
	ours = st.ring_bytes;
	theirs = lib_ring_bytes(&lib);
	kunit_info(test, "1024 objects, %u possible CPUs: ring bytes slabx %zu, lib/objpool %zu (%zu%%)\n",
		   num_possible_cpus(), ours, theirs, ours * 100 / theirs);
	KUNIT_EXPECT_LT(test, ours, theirs);
	objpool_fini(&lib);
	slabx_objpool_fini(pool);
}
#else
static void ring_memory_below_lib(struct kunit *test)
{
	kunit_skip(test, "lib/objpool (6.7+) is not in this kernel");
}
#endif

static struct kunit_case slabx_objpool_cases[] = {
	KUNIT_CASE(init_pop_push_fini),
	KUNIT_CASE(drop_after_fini),
	KUNIT_CASE(bad_parameters),
	KUNIT_CASE(debug_catches_bad_pushes),
	KUNIT_CASE(matrix_sync),
	KUNIT_CASE(matrix_sync_hrtimer),
	KUNIT_CASE(matrix_overrun),
	KUNIT_CASE(matrix_async_rcu),
	KUNIT_CASE_SLOW(nmi_nesting),
	KUNIT_CASE_SLOW(handoff_through_shared_ring),
	KUNIT_CASE(pool_outlives_head),
	KUNIT_CASE(init_memory_failure),
	KUNIT_CASE(ring_memory_below_lib),
	{}
};

static struct kunit_suite slabx_objpool_suite = {
	.name = "slabx_objpool",
	.test_cases = slabx_objpool_cases,
};

/* ---- pool-mode caches --------------------------------------------------------- */

static void pool_cache_serves_from_pool(struct kunit *test)
{
	struct slabx_cache_args args = { .pool_objects = 50, .align = 64 };
	struct slabx_cache *s;
	struct slabx_info info;
	void *o[51], *b[10];
	int i;

	s = slabx_cache_create("kunit-poolmode", 100, &args);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	for (i = 0; i < 50; i++) {
		o[i] = slabx_alloc(s, GFP_KERNEL | __GFP_ZERO);
		KUNIT_ASSERT_NOT_NULL(test, o[i]);
		KUNIT_EXPECT_EQ(test, (unsigned long)o[i] % 64, 0UL);
		KUNIT_EXPECT_NULL(test, memchr_inv(o[i], 0, 100));
		memset(o[i], 0xff, 100);
	}
	KUNIT_EXPECT_NULL(test, slabx_alloc(s, GFP_KERNEL));
	KUNIT_EXPECT_EQ(test, slabx_alloc_bulk(s, GFP_KERNEL, 1, b), 0);
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_ALLOC_FAIL), 2UL);
	slabx_cache_info(s, &info);
	KUNIT_EXPECT_EQ(test, info.objects_inuse, 50UL);
	KUNIT_EXPECT_EQ(test, info.objects_total, 50UL);
	KUNIT_EXPECT_EQ(test, info.slabs, 0UL);
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_SLAB_NEW), 0UL);

	slabx_free_bulk(s, 10, o);
	KUNIT_EXPECT_EQ(test, slabx_alloc_bulk(s, GFP_KERNEL, 10, b), 10);
	slabx_free_bulk(s, 10, b);
	for (i = 10; i < 50; i++)
		slabx_free(s, o[i]);
	KUNIT_EXPECT_EQ(test, slabx_cache_stat(s, SLABX_ALLOC),
			slabx_cache_stat(s, SLABX_FREE));
	KUNIT_EXPECT_NULL(test, slabx_prefill_sheaf(s, GFP_KERNEL, 4));
	slabx_cache_info(s, &info);
	KUNIT_EXPECT_EQ(test, info.objects_inuse, 0UL);
	KUNIT_EXPECT_EQ(test, slabx_cache_destroy(s), 0);
}

static void pool_cache_ctor(void *obj)
{
	*(u32 *)obj = 0xc0ffee;
}

/* Leaks are reported; the constructor runs once per object, at create. */
static void pool_cache_ctor_and_leak(struct kunit *test)
{
	struct slabx_cache_args args = { .pool_objects = 8,
					 .ctor = pool_cache_ctor };
	struct slabx_cache *s;
	void *o;

	s = slabx_cache_create("kunit-poolmode-leak", 16, &args);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	o = slabx_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, o);
	KUNIT_EXPECT_EQ(test, *(u32 *)o, 0xc0ffeeU);
	KUNIT_EXPECT_EQ(test, slabx_cache_destroy(s), -EBUSY);
	slabx_free(s, o);	/* late free into the kept pool */
}

static void pool_cache_bad_size(struct kunit *test)
{
	struct slabx_cache_args args = { .pool_objects = (1 << 24) + 1 };

	KUNIT_EXPECT_NULL(test, slabx_cache_create("kunit-poolmode-big", 16,
						   &args));
}

/* Metadata allocations that slabx_cache_create() makes for these args. */
static int create_until_success(struct kunit *test, const char *name,
				const struct slabx_cache_args *args)
{
	struct slabx_cache *s;
	void *obj;
	int nth;

	for (nth = 1; nth <= 64; nth++) {
		slabx_fault_inject_meta(nth);
		s = slabx_cache_create(name, 32, args);
		slabx_fault_inject_meta(0);
		if (s)
			break;
	}
	KUNIT_ASSERT_NOT_NULL(test, s);
	obj = slabx_alloc(s, GFP_KERNEL);
	KUNIT_EXPECT_NOT_NULL(test, obj);
	if (obj)
		slabx_free(s, obj);
	KUNIT_EXPECT_EQ(test, slabx_cache_destroy(s), 0);
	return nth - 1;
}

/*
 * A pool-mode cache makes the allocations of a cache without sheaves,
 * plus four of its pool (its head, objects, shared ring, per-CPU rings),
 * and survives the failure of each.
 */
static void pool_cache_memory_failure(struct kunit *test)
{
	struct slabx_cache_args plain = { .flags = SLABX_NO_SHEAVES };
	struct slabx_cache_args pool = { .pool_objects = 8 };

	require_sheaves(test);

	KUNIT_EXPECT_EQ(test,
			create_until_success(test, "kunit-poolmode-nomem", &pool),
			create_until_success(test, "kunit-nosheaves-nomem",
					     &plain) + 4);
}

static struct kunit_case slabx_pool_cache_cases[] = {
	KUNIT_CASE(pool_cache_serves_from_pool),
	KUNIT_CASE(pool_cache_ctor_and_leak),
	KUNIT_CASE(pool_cache_bad_size),
	KUNIT_CASE(pool_cache_memory_failure),
	{}
};

static struct kunit_suite slabx_pool_cache_suite = {
	.name = "slabx_pool_cache",
	.test_cases = slabx_pool_cache_cases,
};

kunit_test_suites(&slabx_objpool_suite, &slabx_pool_cache_suite);

MODULE_DESCRIPTION("KUnit tests of slabx's objpool and pool-mode caches");

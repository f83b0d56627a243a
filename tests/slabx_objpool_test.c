// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for slabx's objpool: the semantics of lib/objpool, the test
 * matrix of the kernel's lib/test_objpool.c (sync, sync with hard-IRQ
 * pops and pushes, overrun, async with drop and fini from RCU callbacks),
 * real NMIs that pop and push in the middle of pops and pushes, ring
 * memory against lib/objpool, the debug mode, and pool-mode caches.
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
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/objpool.h>
#include <linux/prandom.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/sort.h>
#ifdef CONFIG_X86_LOCAL_APIC
#include <asm/apic.h>
#include <asm/nmi.h>
#endif

#include "../slabx.h"
#include "slabx_kunit.h"

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

#define NMI_TEST_MS	1500

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
};

/* On the target CPU: pops and pushes, as tight as they come. */
static int nmi_victim_thread(void *arg)
{
	struct nmi_target *t = arg;
	struct matrix_worker w = { .m = t->m };

	while (time_before(jiffies, t->end)) {
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
	while (time_before(jiffies, t->end)) {
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

static void nmi_nesting(struct kunit *test)
{
	struct counts *c = counts_new(test);
	struct task_struct *victim, *sender;
	struct nmi_target t = { .cpu = 0, .sender_cpu = 1 };
	struct matrix *m;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs a second CPU to send NMIs");
	m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m);
	/* Few objects: the rings wrap and the NMI often finds them empty. */
	m->pool = pool_new(test, 24, c);
	init_completion(&m->done);
	atomic_set(&m->running, 2);
	t.m = m;
	t.end = jiffies + msecs_to_jiffies(NMI_TEST_MS);
	atomic_set(&nmi_handled, 0);
	WRITE_ONCE(nmi_matrix, m);
	KUNIT_ASSERT_EQ(test, register_nmi_handler(NMI_LOCAL, objpool_nmi, 0,
						   "slabx_objpool_test"), 0);

	victim = kthread_create_on_cpu(nmi_victim_thread, &t, t.cpu,
				       "objpool_victim/%u");
	sender = kthread_create_on_cpu(nmi_sender_thread, &t, t.sender_cpu,
				       "objpool_nmi/%u");
	KUNIT_ASSERT_FALSE(test, IS_ERR(victim));
	KUNIT_ASSERT_FALSE(test, IS_ERR(sender));
	wake_up_process(victim);
	wake_up_process(sender);
	wait_for_completion(&m->done);
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

/* ---- memory ---------------------------------------------------------------- */

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
	KUNIT_EXPECT_TRUE(test, IS_ERR(slabx_prefill_sheaf(s, GFP_KERNEL, 4)));
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

	KUNIT_EXPECT_EQ(test, PTR_ERR(slabx_cache_create("kunit-poolmode-big",
							 16, &args)),
			-EINVAL);
}

static struct kunit_case slabx_pool_cache_cases[] = {
	KUNIT_CASE(pool_cache_serves_from_pool),
	KUNIT_CASE(pool_cache_ctor_and_leak),
	KUNIT_CASE(pool_cache_bad_size),
	{}
};

static struct kunit_suite slabx_pool_cache_suite = {
	.name = "slabx_pool_cache",
	.test_cases = slabx_pool_cache_cases,
};

kunit_test_suites(&slabx_objpool_suite, &slabx_pool_cache_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests of slabx's objpool and pool-mode caches");

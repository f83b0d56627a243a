// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace model of slabx's objpool rings: the push and pop of
 * slabx_objpool_ring.h, the very code the module runs, on pthreads.
 *
 * A shared ring of 4 to 64 cells holds N <= cells objects, as a pool's
 * shared ring holds its nr_objs. Pop-only threads take objects and hand
 * each to a push-only thread (through a small single-producer
 * single-consumer array per popper and pusher), which pushes it back.
 * Optionally each pusher has a "CPU" small ring of 16 slots that it pushes
 * to first, as slabx_objpool_push() does, and that the poppers steal from
 * when the shared ring is empty, as slabx_objpool_pop() does; a pusher
 * whose small ring is full pushes to the shared ring. There a push of an
 * object of the pool must never fail: a failure is counted, the object is
 * lost, as in the kernel, and the run stops. At the end every ring is
 * drained: each object must come back exactly once, and every ring be
 * empty (head == tail, and == last for a small ring).
 *
 * A thread sends signals to the others at random, whose handler sleeps:
 * so threads stop between any two instructions, as a CPU does in the
 * kernel for an IRQ, an NMI or a preempted vCPU, while the others go on.
 * On a 2-core machine that makes a push stopped between its reads of
 * tail and head, while others push and pop past its tail, frequent. In a
 * pusher with a small ring the handler first pops from that ring and
 * pushes back, as an interrupt may on its CPU: nested in a push to the same
 * ring, whose claim (a local_t cmpxchg) only nesting may race with. A run
 * that does not end within RUN_SECONDS fails.
 *
 *   objpool_ring_model                 the matrix below
 *   objpool_ring_model -c CELLS -n OBJS -p POPPERS -q PUSHERS -i HANDOFFS
 *                      [-l] [-r RUNS]  one configuration (-l: small rings)
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>

#include "objpool_shim.h"
#include "../../slabx_objpool_ring.h"

#define HANDOFF_SLOTS	2
#define MAX_THREADS	8
#define CACHELINE	64
#define SPINS_PER_YIELD	64
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define __aligned(x)	__attribute__((__aligned__(x)))

struct ring {
	unsigned long mask;
	struct slabx_objpool_cell *cells;
	unsigned long head __aligned(CACHELINE);
	unsigned long tail __aligned(CACHELINE);
};

/*
 * From one popper to one pusher. Few slots: a pusher that stalls holds
 * few objects, and the others go on cycling the rest through the ring.
 */
struct handoff {
	unsigned long head __aligned(CACHELINE);
	unsigned long tail __aligned(CACHELINE);
	void *slot[HANDOFF_SLOTS];
};

enum { IN_POOL, OUT, LOST };

struct obj {
	int state;
} __aligned(CACHELINE);

struct config {
	int cells;
	int objs;
	int poppers;
	int pushers;
	long handoffs;
	bool local;
};

struct model {
	struct config cfg;
	struct ring shared;
	/* Zeroed, as a pool's: only its pusher pushes to one. */
	struct slabx_objpool_own_ring local[MAX_THREADS];
	struct handoff hand[MAX_THREADS][MAX_THREADS];	/* [popper][pusher] */
	bool popper_done[MAX_THREADS];
	struct obj *objs;
	pthread_t threads[2 * MAX_THREADS];
	int running;		/* poppers and pushers not done */
	long interrupts;
	bool stop;
	long done_handoffs;
	long first_failure;	/* hand-offs done at the first failure */
	long push_failures;
	long bad_pops;		/* popped an object that was not in the pool */
	long pop_misses;
	long remote_pops;
	long nested;		/* pop+push pairs nested in a pusher */
};

struct worker {
	struct model *m;
	int id;
	bool pops;
};

/* The worker of this thread, for the signal handler. */
static __thread struct worker *self;

static void die(const char *what, int err)
{
	fprintf(stderr, "objpool_ring_model: %s: %s\n", what, strerror(err));
	exit(2);
}

static void ring_init(struct ring *r, int cells)
{
	int i;

	memset(r, 0, sizeof(*r));
	r->mask = cells - 1;
	r->cells = calloc(cells, sizeof(*r->cells));
	if (!r->cells)
		die("calloc", ENOMEM);
	for (i = 0; i < cells; i++)
		r->cells[i].seq = i;
}

static bool ring_push(struct ring *r, void *obj)
{
	return __slabx_objpool_cells_push(&r->head, &r->tail, r->cells,
					  r->mask, obj);
}

/* A "CPU"'s small ring: only its own pusher pushes to it. */
static bool own_ring_push(struct slabx_objpool_own_ring *r, void *obj)
{
	return __slabx_objpool_own_push(r, obj);
}

static void *ring_pop(struct ring *r)
{
	return __slabx_objpool_cells_pop(&r->head, r->cells, r->mask);
}

static void *own_ring_pop(struct slabx_objpool_own_ring *r)
{
	return __slabx_objpool_own_pop(r);
}

static void add(long *counter, long n)
{
	__atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
}

static bool stopped(struct model *m)
{
	return __atomic_load_n(&m->stop, __ATOMIC_RELAXED);
}

/* slabx_objpool_pop() as seen from a popper: shared ring, then stealing. */
static void *model_pop(struct model *m, int id)
{
	void *obj = ring_pop(&m->shared);
	int i;

	if (obj || !m->cfg.local)
		return obj;
	for (i = 0; i < m->cfg.pushers; i++) {
		obj = own_ring_pop(&m->local[(id + i) % m->cfg.pushers]);
		if (obj) {
			add(&m->remote_pops, 1);
			return obj;
		}
	}
	return NULL;
}

/* slabx_objpool_push(): this "CPU"'s small ring, else the shared ring. */
static bool model_push(struct model *m, int id, void *obj)
{
	return (m->cfg.local && own_ring_push(&m->local[id], obj)) ||
	       ring_push(&m->shared, obj);
}

static bool handoff_put(struct handoff *h, void *obj)
{
	unsigned long tail = h->tail;
	unsigned long head = __atomic_load_n(&h->head, __ATOMIC_ACQUIRE);

	if (tail - head == HANDOFF_SLOTS)
		return false;
	h->slot[tail % HANDOFF_SLOTS] = obj;
	__atomic_store_n(&h->tail, tail + 1, __ATOMIC_RELEASE);
	return true;
}

static void *handoff_get(struct handoff *h)
{
	unsigned long head = h->head;
	void *obj;

	if (head == __atomic_load_n(&h->tail, __ATOMIC_ACQUIRE))
		return NULL;
	obj = h->slot[head % HANDOFF_SLOTS];
	__atomic_store_n(&h->head, head + 1, __ATOMIC_RELEASE);
	return obj;
}

/*
 * Waiting: spin, and yield now and then. Spinning uses up time slices, so
 * threads are preempted at random points, in the middle of pushes too.
 */
static void relax(unsigned long *spins)
{
	if (!(++*spins % SPINS_PER_YIELD))
		sched_yield();
#if defined(__x86_64__) || defined(__i386__)
	else
		__builtin_ia32_pause();
#endif
}

/* To the next pusher whose queue has room. */
static void hand_over(struct model *m, int id, void *obj, int *next)
{
	unsigned long spins = 0;

	for (;;) {
		int k = (*next)++ % m->cfg.pushers;

		if (handoff_put(&m->hand[id][k], obj))
			return;
		if (!(*next % m->cfg.pushers))
			relax(&spins);
	}
}

static void popper(struct worker *w)
{
	struct model *m = w->m;
	long i, n = m->cfg.handoffs / m->cfg.poppers;
	unsigned long spins = 0;
	int next = 0;

	for (i = 0; i < n && !stopped(m); i++) {
		struct obj *o;
		int expect = IN_POOL;

		while (!(o = model_pop(m, w->id))) {
			add(&m->pop_misses, 1);
			if (stopped(m))
				goto out;
			relax(&spins);
		}
		if (!__atomic_compare_exchange_n(&o->state, &expect, OUT,
						 false, __ATOMIC_ACQ_REL,
						 __ATOMIC_RELAXED))
			add(&m->bad_pops, 1);
		hand_over(m, w->id, o, &next);
	}
out:
	__atomic_store_n(&m->popper_done[w->id], true, __ATOMIC_RELEASE);
}

/* Into the pool, as pusher @id. Return: false when no ring took it. */
static bool push_back(struct model *m, int id, struct obj *o)
{
	__atomic_store_n(&o->state, IN_POOL, __ATOMIC_RELEASE);
	if (model_push(m, id, o))
		return true;
	/* In no ring: lost, as slabx_objpool_push()'s -ENOSPC loses it. */
	__atomic_store_n(&o->state, LOST, __ATOMIC_RELAXED);
	if (__atomic_fetch_add(&m->push_failures, 1, __ATOMIC_RELAXED) == 0)
		m->first_failure = __atomic_load_n(&m->done_handoffs,
						   __ATOMIC_RELAXED);
	__atomic_store_n(&m->stop, true, __ATOMIC_RELAXED);
	return false;
}

static void push_one(struct model *m, int id, struct obj *o)
{
	if (push_back(m, id, o))
		add(&m->done_handoffs, 1);
}

/*
 * What an NMI on a pusher's "CPU" may do in the kernel, nested in whatever
 * the pusher was doing (a push to its small ring, between its claim and
 * its publication, say): a pop from that small ring and a push back.
 */
static void nested_pop_push(struct model *m, int id)
{
	struct obj *o = own_ring_pop(&m->local[id]);
	int expect = IN_POOL;

	if (!o)
		return;
	if (!__atomic_compare_exchange_n(&o->state, &expect, OUT, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		add(&m->bad_pops, 1);
	add(&m->nested, 1);
	push_back(m, id, o);
}

/* Takes from every popper until they are all done and drained. */
static void pusher(struct worker *w)
{
	struct model *m = w->m;
	unsigned long spins = 0;
	bool busy = true;

	while (busy) {
		bool got = false;
		int j;

		busy = false;
		for (j = 0; j < m->cfg.poppers; j++) {
			bool done = __atomic_load_n(&m->popper_done[j],
						    __ATOMIC_ACQUIRE);
			struct obj *o = handoff_get(&m->hand[j][w->id]);

			if (o) {
				push_one(m, w->id, o);
				got = true;
			}
			busy |= o || !done;
		}
		if (!got && busy)
			relax(&spins);
	}
}

static int cmp_ptr(const void *a, const void *b)
{
	const char *x = *(void * const *)a, *y = *(void * const *)b;

	return (x > y) - (x < y);
}

/* Drain the shared ring into p[]; Return: objects taken; head must meet tail. */
static int drain(struct ring *r, void **p, int n, int max, long *bad)
{
	void *obj;

	while (n < max && (obj = ring_pop(r)))
		p[n++] = obj;
	if (r->head != r->tail)
		(*bad)++;
	return n;
}

/* The same for a small ring, whose head must meet last and tail. */
static int drain_own(struct slabx_objpool_own_ring *r, void **p, int n,
		     int max, long *bad)
{
	void *obj;

	while (n < max && (obj = own_ring_pop(r)))
		p[n++] = obj;
	if (r->head != r->last || r->last != r->tail.v)
		(*bad)++;
	return n;
}

/* Every object back exactly once, in the pool, and every ring empty. */
static long check_objects(struct model *m)
{
	void **p = calloc(m->cfg.objs + 1, sizeof(*p));
	long bad = 0;
	int i, n;

	if (!p)
		die("calloc", ENOMEM);
	n = drain(&m->shared, p, 0, m->cfg.objs + 1, &bad);
	for (i = 0; m->cfg.local && i < m->cfg.pushers; i++)
		n = drain_own(&m->local[i], p, n, m->cfg.objs + 1, &bad);
	qsort(p, n, sizeof(*p), cmp_ptr);
	for (i = 0; i < n; i++) {
		struct obj *o = p[i];

		bad += o->state != IN_POOL;
		bad += i && p[i] == p[i - 1];
	}
	bad += n != m->cfg.objs;
	free(p);
	return bad;
}

static void model_init(struct model *m, const struct config *cfg)
{
	int i;

	memset(m, 0, sizeof(*m));
	m->cfg = *cfg;
	ring_init(&m->shared, cfg->cells);
	if (posix_memalign((void **)&m->objs, CACHELINE,
			   cfg->objs * sizeof(*m->objs)))
		die("posix_memalign", ENOMEM);
	memset(m->objs, 0, cfg->objs * sizeof(*m->objs));
	for (i = 0; i < cfg->objs; i++)
		if (!ring_push(&m->shared, &m->objs[i]))
			die("initial push", ENOSPC);
}

static void model_free(struct model *m)
{
	free(m->shared.cells);
	free(m->objs);
}

static void sleep_us(long us)
{
	struct timespec ts = { .tv_nsec = us * 1000 };

	nanosleep(&ts, NULL);
}

/*
 * The interrupt: the thread stops wherever it was, for a while. A pusher
 * with a small ring also pops from it and pushes back, nested in what it
 * was doing, unless that was a local_cmpxchg(), which no interrupt splits.
 */
static void on_interrupt(int sig)
{
	struct worker *w = self;

	if (w && !w->pops && w->m->cfg.local && !shim_in_local_op)
		nested_pop_push(w->m, w->id);
	sleep_us(10);
}

/* A signal at a random popper or pusher every few tens of microseconds. */
static void *interrupter(void *arg)
{
	struct model *m = arg;
	int n = m->cfg.poppers + m->cfg.pushers;
	unsigned int seed = 1;

	prctl(PR_SET_TIMERSLACK, 1UL);	/* sleeps of microseconds */
	while (__atomic_load_n(&m->running, __ATOMIC_ACQUIRE)) {
		/* Not joined before we return: a thread that ended is ok. */
		pthread_kill(m->threads[rand_r(&seed) % n], SIGUSR1);
		m->interrupts++;
		sleep_us(rand_r(&seed) % 40);
	}
	return NULL;
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	struct model *m = w->m;

	prctl(PR_SET_TIMERSLACK, 1UL);
	self = w;
	if (w->pops)
		popper(w);
	else
		pusher(w);
	__atomic_fetch_sub(&m->running, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void run_threads(struct model *m)
{
	int i, n = m->cfg.poppers + m->cfg.pushers, err;
	struct worker w[2 * MAX_THREADS];
	struct sigaction sa = { .sa_handler = on_interrupt };
	pthread_t irq;

	if (sigaction(SIGUSR1, &sa, NULL))
		die("sigaction", errno);
	m->running = n;
	for (i = 0; i < n; i++) {
		w[i].m = m;
		w[i].pops = i < m->cfg.poppers;
		w[i].id = w[i].pops ? i : i - m->cfg.poppers;
		err = pthread_create(&m->threads[i], NULL, worker_fn, &w[i]);
		if (err)
			die("pthread_create", err);
	}
	err = pthread_create(&irq, NULL, interrupter, m);
	if (err)
		die("pthread_create", err);
	pthread_join(irq, NULL);
	for (i = 0; i < n; i++)
		pthread_join(m->threads[i], NULL);
}

/* A run takes seconds; one that loses a claim can leave poppers spinning. */
#define RUN_SECONDS	300

static void on_timeout(int sig)
{
	static const char msg[] =
		"objpool_ring_model: FAILED: a run did not end in time\n";

	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

/* One run of a configuration. Return: whether it passed. */
static bool run(const struct config *cfg)
{
	struct model m;
	long bad;
	bool ok;

	model_init(&m, cfg);
	signal(SIGALRM, on_timeout);
	alarm(RUN_SECONDS);
	run_threads(&m);
	alarm(0);
	bad = check_objects(&m);
	ok = !m.push_failures && !m.bad_pops && !bad;
	printf("cells=%-2d objs=%-2d poppers=%d pushers=%d small_rings=%-3s ",
	       cfg->cells, cfg->objs, cfg->poppers, cfg->pushers,
	       cfg->local ? "yes" : "no");
	printf("handoffs=%ld: %s (push failures %ld", m.done_handoffs,
	       ok ? "ok" : "FAILED", m.push_failures);
	if (m.push_failures)
		printf(", the first after %ld hand-offs", m.first_failure);
	printf(", bad pops %ld, bad objects or rings %ld, pop misses %ld",
	       m.bad_pops, bad, m.pop_misses);
	printf(", remote pops %ld, nested pop+push %ld, interrupts %ld)\n",
	       m.remote_pops, m.nested, m.interrupts);
	fflush(stdout);
	model_free(&m);
	return ok;
}

/* What slabx_objpool_pop() tries: this "CPU"'s small ring first. */
static void *cpu_pop(struct model *m, int id)
{
	return own_ring_pop(&m->local[id]) ?: model_pop(m, id);
}

/*
 * Interleaving (c) of objpool.c, step by step on one "CPU": a push to the
 * small ring has claimed its cell and not published it yet, behind two
 * objects, and what interrupts it pops an object and pushes it back, again
 * and again. No pop may miss while objects are free (nothing may go behind
 * the claimed cell); once the push publishes, every object is there once.
 */
static bool claim_window_run(void)
{
	struct config cfg = { .cells = 4, .objs = 4, .poppers = 1,
			      .pushers = 1, .local = true };
	long misses = 0, bad;
	struct model m;
	unsigned long pos;
	struct obj *held;
	int i;
	bool ok;

	model_init(&m, &cfg);
	for (i = 0; i < 2; i++)
		if (!own_ring_push(&m.local[0], ring_pop(&m.shared)))
			die("claim window: setup push", ENOSPC);
	held = ring_pop(&m.shared);
	pos = local_read(&m.local[0].tail);
	if (local_cmpxchg(&m.local[0].tail, pos, pos + 1) != (long)pos)
		die("claim window: claim", EAGAIN);
	for (i = 0; i < 4 * cfg.objs; i++) {
		struct obj *o = cpu_pop(&m, 0);

		if (!o) {
			misses++;
			continue;
		}
		if (!model_push(&m, 0, o))
			die("claim window: push", ENOSPC);
	}
	__slabx_objpool_own_publish(&m.local[0], pos, held);
	bad = check_objects(&m);
	ok = !misses && !bad;
	printf("claim window: %d pops and pushes nested in a claim: %s (pop misses %ld, bad objects or rings %ld)\n",
	       4 * cfg.objs, ok ? "ok" : "FAILED", misses, bad);
	model_free(&m);
	return ok;
}

/*
 * One pusher alone cannot be overtaken; with small rings that never fill,
 * every push is local and pops steal: both check that nothing is lost.
 */
static const struct config matrix[] = {
	{ .cells = 4,  .objs = 4,  .poppers = 1, .pushers = 2 },
	{ .cells = 4,  .objs = 4,  .poppers = 2, .pushers = 2 },
	{ .cells = 4,  .objs = 3,  .poppers = 2, .pushers = 2 },
	{ .cells = 8,  .objs = 8,  .poppers = 2, .pushers = 3 },
	{ .cells = 16, .objs = 16, .poppers = 2, .pushers = 2 },
	{ .cells = 64, .objs = 64, .poppers = 1, .pushers = 2 },
	{ .cells = 64, .objs = 40, .poppers = 2, .pushers = 2, .local = true },
	{ .cells = 8,  .objs = 8,  .poppers = 3, .pushers = 1 },
	{ .cells = 8,  .objs = 8,  .poppers = 2, .pushers = 2, .local = true },
};

#define MATRIX_HANDOFFS	100000

static void usage(void)
{
	fprintf(stderr,
		"objpool_ring_model [-c CELLS -n OBJS -p POPPERS -q PUSHERS\n"
		"                    -i HANDOFFS [-l] [-r RUNS]]\n"
		"  CELLS a power of two, 4..64; 1 <= OBJS <= CELLS;\n"
		"  1..%d threads of each kind\n", MAX_THREADS);
	exit(2);
}

static bool config_valid(const struct config *c)
{
	return c->cells >= 4 && c->cells <= 64 && !(c->cells & (c->cells - 1)) &&
	       c->objs >= 1 && c->objs <= c->cells &&
	       c->poppers >= 1 && c->poppers <= MAX_THREADS &&
	       c->pushers >= 1 && c->pushers <= MAX_THREADS &&
	       c->handoffs >= c->poppers;
}

int main(int argc, char **argv)
{
	struct config cfg = { .cells = 4, .objs = 4, .poppers = 2,
			      .pushers = 2, .handoffs = MATRIX_HANDOFFS };
	int opt, runs = 0, i, passed = 0, failed = 0;

	while ((opt = getopt(argc, argv, "c:n:p:q:i:lr:")) != -1) {
		runs = runs ?: 1;	/* one configuration */
		switch (opt) {
		case 'c':
			cfg.cells = atoi(optarg);
			break;
		case 'n':
			cfg.objs = atoi(optarg);
			break;
		case 'p':
			cfg.poppers = atoi(optarg);
			break;
		case 'q':
			cfg.pushers = atoi(optarg);
			break;
		case 'i':
			cfg.handoffs = atol(optarg);
			break;
		case 'l':
			cfg.local = true;
			break;
		case 'r':
			runs = atoi(optarg);
			if (runs < 1)
				usage();
			break;
		default:
			usage();
		}
	}
	if (optind != argc || !config_valid(&cfg))
		usage();
	for (i = 0; i < (runs ?: (int)ARRAY_SIZE(matrix)); i++) {
		struct config c = runs ? cfg : matrix[i];

		if (!runs)
			c.handoffs = MATRIX_HANDOFFS;
		if (run(&c))
			passed++;
		else
			failed++;
	}
	if (!runs) {
		if (claim_window_run())
			passed++;
		else
			failed++;
	}
	printf("objpool_ring_model: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

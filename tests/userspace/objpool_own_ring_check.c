// SPDX-License-Identifier: GPL-2.0
/*
 * Exhaustive interleaving check of a CPU's small objpool ring: the very
 * __slabx_objpool_own_push() and __slabx_objpool_own_pop() of
 * slabx_objpool_ring.h, with a hook before each of their shared accesses.
 *
 * Two CPUs: the owner runs a script of pushes and pops ('u' and 'o'), the
 * remote CPU a number of pops. At every hook the checker may switch to the
 * other CPU, or nest an "interrupt" on the owner (a push or a pop, which
 * may itself be interrupted, up to a depth), as an IRQ or an NMI does in
 * the kernel. A depth-first search over those choices runs every
 * interleaving within the bounds given, on sequentially consistent memory
 * (the memory model side is argued in objpool.c; litmus/ has the tests).
 *
 * At every hook: tail - last is 0, or 1 exactly while a push is between
 * its claim and its publication; head <= last; tail - head <= slots. Every
 * pop returns an object that is in the ring, and no operation takes more
 * than MAX_STEPS accesses (a livelock). A push may refuse only when the
 * ring was full during it, or when it interrupted a claim window. At the
 * end the ring is drained: each object pushed comes back exactly once.
 *
 *   objpool_own_ring_check        the matrix below
 *   objpool_own_ring_check SCRIPT REMOTE_POPS PREFILL START SWITCHES IRQS DEPTH
 *
 * PREFILL objects are pushed before the run, unchecked, so that the ring
 * fills within a few operations; START puts the positions near the end of
 * unsigned long, so that they wrap. The slots start with stale pointers,
 * as an earlier lap leaves them, so a pop that reads a slot before it is
 * written returns what the ring does not hold.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

typedef struct {
	unsigned long v;
} local_t;

static void hook(void);
static void claimed(void);
static void published(void *p);

/* The kernel's primitives, each one access, after a hook. */
#define READ_ONCE(x)		({ hook(); (x); })
#define WRITE_ONCE(x, val)	do { hook(); (x) = (val); } while (0)
#define smp_rmb()		do { } while (0)
#define smp_load_acquire(p)	({ hook(); *(p); })
#define smp_store_release(p, val)					\
	do { hook(); *(p) = (val); published(p); } while (0)
#define try_cmpxchg(p, oldp, new)					\
	({								\
		bool __ok;						\
		hook();							\
		__ok = *(p) == *(oldp);					\
		if (__ok)						\
			*(p) = (new);					\
		else							\
			*(oldp) = *(p);					\
		__ok;							\
	})

static inline long local_read(local_t *l)
{
	hook();
	return (long)l->v;
}

static inline long local_cmpxchg(local_t *l, long old, long new)
{
	long cur;

	hook();
	cur = (long)l->v;
	if (cur == old) {
		l->v = (unsigned long)new;
		claimed();
	}
	return cur;
}

#include "../../slabx_objpool_ring.h"

#define MAX_CHOICES	4096
#define MAX_OBJS	256
#define MAX_DEPTH	6
#define MAX_STEPS	200
#define STACK_BYTES	65536
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct config {
	const char *script;	/* the owner's: 'u' push, 'o' pop */
	int remote_pops;
	int prefill;		/* objects pushed before the run */
	unsigned long start;	/* head, last and tail at the start */
	int switches;		/* most CPU switches per run */
	int irqs;		/* most interrupts per run */
	int depth;		/* most nested interrupts */
};

/* The search: the choice made at each point, and how many there were. */
static int choice[MAX_CHOICES], choices[MAX_CHOICES], nr_choices, replay;

static const struct config *cfg;
static struct slabx_objpool_own_ring ring;
static bool checking;

/* What the ring should hold, and what came back. */
static bool in_ring[MAX_OBJS];
static int pops_of[MAX_OBJS];
static bool pushed[MAX_OBJS];
static int nr_objs;
static int open_claims;		/* pushes between claim and publication */
static long full_seen;		/* hooks that found the ring full */
static long spurious, window_refusals, full_refusals;

/* The two CPUs, and the owner's interrupt nesting. */
static ucontext_t main_ctx, cpu_ctx[2];
static char stacks[2][STACK_BYTES];
static bool cpu_done[2];
static int cpu;			/* 0 owner, 1 remote */
static int depth, switches, irqs;
static int steps[MAX_DEPTH + 2];
static const char *failure;

static int choose(int n)
{
	int c;

	if (n <= 1)
		return 0;
	if (nr_choices == MAX_CHOICES) {
		fprintf(stderr, "objpool_own_ring_check: too many choices\n");
		exit(2);
	}
	c = nr_choices < replay ? choice[nr_choices] : 0;
	choices[nr_choices] = n;
	choice[nr_choices++] = c;
	return c;
}

/* Stop the run at once: the search goes on with the next one. */
static void fail(const char *why)
{
	if (!failure)
		failure = why;
	if (checking)
		setcontext(&main_ctx);
}

static void check_ring(void)
{
	unsigned long head = ring.head, last = ring.last, tail = ring.tail.v;

	if (tail - last > 1 || (tail - last == 1) != open_claims)
		fail("tail - last is not the open claim");
	if ((long)(last - head) < 0)
		fail("head passed last");
	if (tail - head > SLABX_OBJPOOL_OWN_SLOTS)
		fail("more entries than slots");
	if (tail - head == SLABX_OBJPOOL_OWN_SLOTS)
		full_seen++;
}

static void claimed(void)
{
	open_claims++;
}

static void published(void *p)
{
	if (p == &ring.last)
		open_claims--;
}

static void op(bool pop);

/* Before each shared access: go on, switch CPU, or nest an interrupt. */
static void hook(void)
{
	if (!checking)
		return;
	check_ring();
	if (++steps[cpu ? MAX_DEPTH + 1 : depth] > MAX_STEPS)
		fail("livelock");
	for (;;) {
		bool can_switch = !cpu_done[!cpu] && switches < cfg->switches;
		bool can_irq = !cpu && depth < cfg->depth && irqs < cfg->irqs;
		int n = 1 + can_switch + 2 * can_irq, c = choose(n);
		int me = cpu;

		if (!c)
			return;
		if (can_switch && c == 1) {
			switches++;
			cpu = !cpu;
			swapcontext(&cpu_ctx[me], &cpu_ctx[cpu]);
			check_ring();
			continue;
		}
		irqs++;
		depth++;
		steps[depth] = 0;
		op(c == n - 1);
		depth--;
		check_ring();
	}
}

static void push(void)
{
	long full_before = full_seen;
	int obj = ++nr_objs;

	if (obj >= MAX_OBJS)
		fail("too many objects");	/* MAX_OBJS marks stale slots */
	if (__slabx_objpool_own_push(&ring, (void *)(long)obj)) {
		pushed[obj] = true;
		in_ring[obj] = true;
		return;
	}
	check_ring();
	if (open_claims)
		window_refusals++;
	else if (full_seen != full_before)
		full_refusals++;
	else
		spurious++;
}

static void take(void *p)
{
	long obj = (long)p;

	if (obj <= 0 || obj > nr_objs || !in_ring[obj])
		fail("popped what the ring does not hold");
	in_ring[obj] = false;
	pops_of[obj]++;
}

static void op(bool pop)
{
	void *p;

	if (!pop) {
		push();
		return;
	}
	p = __slabx_objpool_own_pop(&ring);
	if (p)
		take(p);
}

static void cpu_end(int me)
{
	cpu_done[me] = true;
	if (!cpu_done[!me]) {
		cpu = !me;
		swapcontext(&cpu_ctx[me], &cpu_ctx[!me]);
	}
	setcontext(&main_ctx);
}

static void owner(void)
{
	const char *s;

	for (s = cfg->script; *s; s++) {
		steps[0] = 0;
		op(*s == 'o');
	}
	cpu_end(0);
}

static void remote(void)
{
	int i;

	for (i = 0; i < cfg->remote_pops; i++) {
		steps[MAX_DEPTH + 1] = 0;
		op(true);
	}
	cpu_end(1);
}

static void drain_and_count(void)
{
	void *p;
	int i;

	check_ring();
	if (open_claims)
		fail("a claim left open");
	while (!failure && (p = __slabx_objpool_own_pop(&ring)))
		take(p);
	for (i = 1; !failure && i <= nr_objs; i++)
		if (pops_of[i] != pushed[i])
			fail("an object lost or popped twice");
	if (ring.head != ring.last || ring.last != ring.tail.v)
		fail("not empty when drained");
}

static void run_start(void)
{
	int i;

	memset(&ring, 0, sizeof(ring));
	ring.head = cfg->start;
	ring.last = cfg->start;
	ring.tail.v = cfg->start;
	/* Slots hold what an earlier lap left: no object of this run. */
	for (i = 0; i < SLABX_OBJPOOL_OWN_SLOTS; i++)
		ring.slots[i] = (void *)(long)MAX_OBJS;
	memset(in_ring, 0, sizeof(in_ring));
	memset(pops_of, 0, sizeof(pops_of));
	memset(pushed, 0, sizeof(pushed));
	memset(cpu_done, 0, sizeof(cpu_done));
	nr_objs = 0;
	open_claims = 0;
	depth = 0;
	switches = 0;
	irqs = 0;
	nr_choices = 0;
	failure = NULL;
	checking = false;
	for (i = 0; i < cfg->prefill; i++)
		op(false);
	for (i = 0; i < 2; i++) {
		getcontext(&cpu_ctx[i]);
		cpu_ctx[i].uc_stack.ss_sp = stacks[i];
		cpu_ctx[i].uc_stack.ss_size = STACK_BYTES;
		cpu_ctx[i].uc_link = NULL;
		makecontext(&cpu_ctx[i], i ? remote : owner, 0);
	}
}

/* One interleaving, the one the choices so far lead to. */
static bool run_one(void)
{
	run_start();
	checking = true;
	cpu = choose(2);
	swapcontext(&main_ctx, &cpu_ctx[cpu]);
	checking = false;
	if (!failure)
		drain_and_count();
	if (!failure && spurious)
		failure = "a push refused with room and no claim window";
	return !failure;
}

/* The next choice sequence, depth first. Return: false when all are run. */
static bool next_interleaving(void)
{
	int i = nr_choices - 1;

	while (i >= 0 && choice[i] + 1 >= choices[i])
		i--;
	if (i < 0)
		return false;
	choice[i]++;
	replay = i + 1;
	return true;
}

static void print_config(const struct config *c)
{
	printf("script=%s remote_pops=%d prefill=%d start=%lu ", c->script,
	       c->remote_pops, c->prefill, c->start);
	printf("switches=%d irqs=%d depth=%d", c->switches, c->irqs, c->depth);
}

static bool check(const struct config *c)
{
	long runs = 0;

	cfg = c;
	replay = 0;
	spurious = 0;
	window_refusals = 0;
	full_refusals = 0;
	do {
		runs++;
		if (!run_one()) {
			print_config(c);
			printf(": FAILED after %ld interleavings: %s\n", runs,
			       failure);
			return false;
		}
	} while (next_interleaving());
	print_config(c);
	printf(": ok, %ld interleavings (refusals: %ld in a claim window, %ld full)\n",
	       runs, window_refusals, full_refusals);
	return true;
}

/* A few seconds in all; the command line runs larger ones. */
static const struct config matrix[] = {
	{ "uuo", 1, 14, 0, 2, 2, 2 },
	{ "uou", 1, 15, 0, 2, 2, 2 },
	{ "uuuo", 1, 13, -3UL, 2, 2, 2 },
	{ "uo", 2, 15, 0, 2, 2, 2 },
	{ "uo", 2, 0, 0, 2, 2, 2 },
	{ "ou", 2, 1, -1UL, 2, 2, 2 },
	{ "uo", 1, 14, 0, 1, 3, 3 },
};

int main(int argc, char **argv)
{
	struct config c;
	int i, failed = 0;

	if (argc == 1) {
		for (i = 0; i < (int)ARRAY_SIZE(matrix); i++)
			failed += !check(&matrix[i]);
		printf("objpool_own_ring_check: %d passed, %d failed\n",
		       (int)ARRAY_SIZE(matrix) - failed, failed);
		return failed ? 1 : 0;
	}
	if (argc != 8) {
		fprintf(stderr,
			"objpool_own_ring_check [SCRIPT REMOTE_POPS PREFILL START SWITCHES IRQS DEPTH]\n");
		return 2;
	}
	c = (struct config){ argv[1], atoi(argv[2]), atoi(argv[3]),
			     strtoul(argv[4], NULL, 0), atoi(argv[5]),
			     atoi(argv[6]), atoi(argv[7]) };
	if (c.depth > MAX_DEPTH || strspn(c.script, "uo") != strlen(c.script)) {
		fprintf(stderr, "objpool_own_ring_check: bad arguments\n");
		return 2;
	}
	return check(&c) ? 0 : 1;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace model of a cache's reserve: the very book of
 * slabx_reserve_book.h (every count of the guarantee and every change of
 * them), on pthreads, with a mutex for the reserve's lock, an array for
 * its stack of sheaves and a locked free list for the slabs.
 *
 * Reservations of 1 to 4 objects, two threads on each (as two CPUs
 * allocate through one mempool), the page allocator failing: objects come
 * only from the slabs' free list and the reserve. Each thread, at random:
 *
 *   take	slabx_alloc_reserved(GFP_NOWAIT): the slabs, else the reserve
 *   free	slabx_free_reserved() of an object it holds, with the unlocked
 *		look of reserve.c first (nothing held and the reserve full:
 *		a plain free, no lock)
 *   plain	slabx_free() of an object it holds, which keeps the share
 *		counted until a later free through the reservation
 *
 * and a manager thread makes and releases reservations meanwhile
 * (slabx_reserve(), filling from pages, then slabx_unreserve()), so the
 * target and the room move under the others. Every thread yields at
 * random between its steps, so that the unlocked looks go stale.
 *
 * Checked: a take through a reservation that held fewer than its share,
 * seen under the lock, always gets an object; after every step the
 * invariants of the book hold, objects equals the stack's depth, and owed
 * is the sum of the shares left (plus a fill in progress); at the end
 * every object is in exactly one place.
 *
 *   reserve_model          the new book (must pass)
 *   reserve_model -o       the accounting before the book: a lockless
 *                          share claim, an unlocked look at the target and
 *                          the share given back after the free, without
 *                          the manager (must fail: the model finds the
 *                          bug that issue 29 reported)
 */
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

#include "../../slabx_reserve_book.h"

#define RESERVATIONS	4
#define THREADS		(2 * RESERVATIONS)
#define CAP		4		/* objects per sheaf */
#define MAX_OBJS	4096
#define HOLD		8		/* objects a thread holds at most */
#define OPS		200000

struct reservation {
	unsigned int nr;
	unsigned int held;		/* the book's, under the lock */
	int old_held;			/* -o: the lockless count */
};

static struct slabx_reserve_book book;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int stack[MAX_OBJS];
static unsigned int depth;
static unsigned long filling;		/* owed to a fill in progress */

static pthread_mutex_t slab_lock = PTHREAD_MUTEX_INITIALIZER;
static int slab_free[MAX_OBJS];
static unsigned int slab_nr;
static int next_page_obj;		/* the manager's fresh objects */

static struct reservation res[RESERVATIONS + 1];	/* last: the manager's */
static bool old_mode;
static unsigned long failures;
static bool stop;

static void fail(const char *what)
{
	__atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
	if (failures < 5)
		fprintf(stderr, "reserve_model: %s\n", what);
	WRITE_ONCE(stop, true);
}

static void maybe_yield(unsigned int *seed)
{
	if (rand_r(seed) % 4 == 0)
		sched_yield();
}

/* With the lock held: the invariants, and the stack and owed agree. */
static void check_book(void)
{
	unsigned long owed = filling;
	int i;

	for (i = 0; i <= RESERVATIONS; i++)
		owed += res[i].nr - (old_mode ? (unsigned int)res[i].old_held :
				     res[i].held);
	if (book.objects != depth)
		fail("objects is not the stack's depth");
	if (old_mode) {
		if (depth < owed)
			fail("fewer objects in the reserve than owed");
		return;
	}
	if (!slabx_book_ok(&book))
		fail("an invariant of the book broke");
	if (book.owed != owed)
		fail("owed is not the sum of the shares left");
}

static void slab_put(int obj)
{
	pthread_mutex_lock(&slab_lock);
	slab_free[slab_nr++] = obj;
	pthread_mutex_unlock(&slab_lock);
}

static int slab_get(void)
{
	int obj = -1;

	pthread_mutex_lock(&slab_lock);
	if (slab_nr)
		obj = slab_free[--slab_nr];
	pthread_mutex_unlock(&slab_lock);
	return obj;
}

/* ---- the book (as reserve.c) -------------------------------------------- */

static int take(struct reservation *r)
{
	bool share, took;
	int obj = -1;

	pthread_mutex_lock(&lock);
	share = r->held < r->nr;
	took = slabx_book_take(&book, &r->held, r->nr);
	if (took)
		obj = stack[--depth];
	if (share && !took)
		fail("within its share, no object to be had");
	check_book();
	pthread_mutex_unlock(&lock);
	return obj;
}

static void give(struct reservation *r, int obj, unsigned int *seed)
{
	enum slabx_reserve_dest dest;

	/* reserve.c's unlocked look: nothing to give back, nothing to fill. */
	if (!READ_ONCE(r->held) && READ_ONCE(book.objects) >= READ_ONCE(book.target)) {
		slab_put(obj);
		return;
	}
	maybe_yield(seed);
	pthread_mutex_lock(&lock);
	dest = slabx_book_free(&book, &r->held);
	if (dest == SLABX_RESERVE_TO_RESERVE)
		stack[depth++] = obj;
	check_book();
	pthread_mutex_unlock(&lock);
	if (dest == SLABX_RESERVE_TO_SLAB)
		slab_put(obj);
}

/* ---- the accounting before it (-o) ------------------------------------- */

static int old_take(struct reservation *r, unsigned int *seed)
{
	int held = __atomic_load_n(&r->old_held, __ATOMIC_RELAXED), obj = -1;

	/* atomic_add_unless(&held, 1, nr) */
	do {
		if (held == (int)r->nr)
			return -1;
	} while (!__atomic_compare_exchange_n(&r->old_held, &held, held + 1,
					      false, __ATOMIC_SEQ_CST,
					      __ATOMIC_RELAXED));
	maybe_yield(seed);
	pthread_mutex_lock(&lock);
	if (depth) {
		obj = stack[--depth];
		book.objects--;
	}
	check_book();
	pthread_mutex_unlock(&lock);
	if (obj < 0) {
		fail("within its share, no object to be had");
		__atomic_sub_fetch(&r->old_held, 1, __ATOMIC_SEQ_CST);
	}
	return obj;
}

static void old_give(struct reservation *r, int obj, unsigned int *seed)
{
	int held;

	if (READ_ONCE(book.objects) < READ_ONCE(book.target)) {
		pthread_mutex_lock(&lock);
		stack[depth++] = obj;
		book.objects++;
		pthread_mutex_unlock(&lock);
	} else {
		slab_put(obj);
	}
	maybe_yield(seed);
	/* atomic_add_unless(&held, -1, 0) */
	held = __atomic_load_n(&r->old_held, __ATOMIC_RELAXED);
	do {
		if (!held)
			return;
	} while (!__atomic_compare_exchange_n(&r->old_held, &held, held - 1,
					      false, __ATOMIC_SEQ_CST,
					      __ATOMIC_RELAXED));
}

/* ---- the threads ---------------------------------------------------------- */

static void *worker(void *arg)
{
	unsigned int id = (unsigned long)arg, seed = id * 7919 + 1, n = 0, i;
	struct reservation *r = &res[id % RESERVATIONS];
	int held[HOLD], obj;

	for (i = 0; i < OPS && !READ_ONCE(stop); i++) {
		unsigned int op = rand_r(&seed) % 8;

		if (op < 4 && n < HOLD) {
			obj = slab_get();
			if (obj < 0)
				obj = old_mode ? old_take(r, &seed) : take(r);
			if (obj >= 0)
				held[n++] = obj;
		} else if (op < 7 && n) {
			obj = held[--n];
			if (old_mode)
				old_give(r, obj, &seed);
			else
				give(r, obj, &seed);
		} else if (n) {
			slab_put(held[--n]);
		}
		maybe_yield(&seed);
	}
	while (n) {
		obj = held[--n];
		if (old_mode)
			old_give(r, obj, &seed);
		else
			give(r, obj, &seed);
	}
	return NULL;
}

/* slabx_reserve() then slabx_unreserve() of @nr, as reserve.c makes them. */
static void manager_round(unsigned int nr)
{
	struct reservation *m = &res[RESERVATIONS];
	unsigned long got, need;
	int obj;

	pthread_mutex_lock(&lock);
	slabx_book_reserve(&book, nr);
	while (book.room < book.target)
		book.room += CAP;
	need = nr;
	filling = 0;
	got = slabx_book_claim_spare(&book, need);
	filling += got;
	check_book();
	pthread_mutex_unlock(&lock);
	for (need -= got; need; need--) {
		obj = slab_get();
		if (obj < 0)
			obj = __atomic_fetch_add(&next_page_obj, 1,
						 __ATOMIC_RELAXED);
		pthread_mutex_lock(&lock);
		if (slabx_book_fill(&book) == SLABX_RESERVE_TO_RESERVE)
			stack[depth++] = obj;
		else
			slab_put(obj);
		filling++;
		check_book();
		pthread_mutex_unlock(&lock);
	}
	pthread_mutex_lock(&lock);
	filling = 0;
	m->nr = nr;
	m->held = 0;
	check_book();
	pthread_mutex_unlock(&lock);

	sched_yield();

	pthread_mutex_lock(&lock);
	slabx_book_unreserve(&book, nr, 0);
	m->nr = 0;
	while (slabx_book_trim(&book))
		slab_put(stack[--depth]);
	while (book.room - CAP >= book.target && book.room - CAP >= depth)
		book.room -= CAP;
	check_book();
	pthread_mutex_unlock(&lock);
}

static void *manager(void *arg)
{
	unsigned int seed = 12345;
	int *running = arg;

	while (!READ_ONCE(stop) && READ_ONCE(*running))
		manager_round(1 + rand_r(&seed) % 8);
	return NULL;
}

static void setup(void)
{
	unsigned int i, total = 0, seed = 42;

	memset(&book, 0, sizeof(book));
	memset(res, 0, sizeof(res));
	depth = 0;
	slab_nr = 0;
	for (i = 0; i < RESERVATIONS; i++) {
		res[i].nr = 1 + rand_r(&seed) % 4;
		total += res[i].nr;
	}
	/* The reserves, full; a few objects free in the slabs. */
	book.target = total;
	book.owed = total;
	book.room = (total + CAP - 1) / CAP * CAP;
	for (i = 0; i < total; i++)
		stack[depth++] = i;
	book.objects = depth;
	for (; i < total + 4; i++)
		slab_free[slab_nr++] = i;
	next_page_obj = i;
}

/* Every object in exactly one place: the reserve or the slabs. */
static void check_end(void)
{
	static unsigned char seen[MAX_OBJS * 64];
	unsigned int i;

	memset(seen, 0, sizeof(seen));
	for (i = 0; i < depth; i++)
		if (seen[stack[i]]++)
			fail("an object twice");
	for (i = 0; i < slab_nr; i++)
		if (seen[slab_free[i]]++)
			fail("an object twice");
	for (i = 0; i < (unsigned int)next_page_obj; i++)
		if (!seen[i])
			fail("an object lost");
	if (depth > book.target)
		fail("the reserve holds more than its target once quiet");
}

/* One run of the threads; Return: the failures it found. */
static unsigned long run(void)
{
	pthread_t t[THREADS], mgr;
	int running = 1;
	unsigned long i;

	failures = 0;
	stop = false;
	setup();
	/* The manager keeps the new book: it runs with the new accounting. */
	if (!old_mode)
		pthread_create(&mgr, NULL, manager, &running);
	for (i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	WRITE_ONCE(running, 0);
	if (!old_mode) {
		pthread_join(mgr, NULL);
		check_end();
	}
	return failures;
}

int main(int argc, char **argv)
{
	unsigned int tries;
	bool caught = false;

	old_mode = argc > 1 && !strcmp(argv[1], "-o");
	if (!old_mode) {
		run();
		printf("reserve_model: %u passed, %u failed\n", !failures,
		       !!failures);
		return failures ? 1 : 0;
	}
	/* The old accounting must be caught, within a few runs. */
	for (tries = 0; tries < 20 && !caught; tries++)
		caught = run();
	printf("reserve_model -o: old accounting caught in run %u: %u passed, %u failed\n",
	       tries, caught, !caught);
	return caught ? 0 : 1;
}

/* test_writers.c - the writer pool: every task runs once, one writer runs them
 * in the order given, tasks beyond the writers wait for one, a task whose key
 * a writer runs waits for that writer while others run elsewhere, a stop runs
 * what is queued, and a stopped pool takes nothing. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "writers.h"

#define N 2000

struct item {
	struct writers_task task;
	int id;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int order[N], ran, gate_open, inside;
static pthread_t ran_on[N];
static struct item items[N];

static void
record(struct writers_task *t)
{
	struct item *it = (struct item *)t;

	pthread_mutex_lock(&lock);
	ran_on[it->id] = pthread_self();
	order[ran++] = it->id;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

/* waits at a gate, so the test can hold every writer busy */
static void
gated(struct writers_task *t)
{
	pthread_mutex_lock(&lock);
	inside++;
	pthread_cond_broadcast(&cond);
	while (!gate_open)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	record(t);
}

static void
reset(void)
{
	int i;

	memset(order, 0, sizeof(order));
	ran = gate_open = inside = 0;
	for (i = 0; i < N; i++)
		items[i].task.key = 0;
}

static void
submit(int i, void (*run)(struct writers_task *), unsigned long key)
{
	items[i].task.run = run;
	items[i].task.key = key;
	items[i].id = i;
	assert_int_equal(writers_submit(&items[i].task), 0);
}

/* Two writers; 0 (key 7) holds one at the gate. 1 and 2 have its key and
 * must wait for it although the other writer is idle; 3 (key 9) and 4 (no
 * key) run on that other writer at once. Then 0, 1, 2 in order, on 0's. */
static void
a_busy_key_waits_for_its_writer(void **state)
{
	size_t queued, busy;

	(void)state;
	reset();
	assert_int_equal(writers_start(2), 0);
	submit(0, gated, 7);
	pthread_mutex_lock(&lock);
	while (inside < 1)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	submit(1, record, 7);
	submit(2, record, 7);
	submit(3, record, 9);
	submit(4, record, 0);
	pthread_mutex_lock(&lock);
	while (ran < 2)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	usleep(50 * 1000);	/* were 1 or 2 handed to the idle writer, they would have run */
	writers_load(&queued, &busy);
	pthread_mutex_lock(&lock);
	assert_int_equal(ran, 2);
	assert_int_equal(order[0], 3);
	assert_int_equal(order[1], 4);
	gate_open = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	assert_int_equal(busy, 1);
	assert_int_equal(queued, 2);
	writers_stop();
	assert_int_equal(ran, 5);
	assert_int_equal(order[2], 0);
	assert_int_equal(order[3], 1);
	assert_int_equal(order[4], 2);
	assert_true(pthread_equal(ran_on[1], ran_on[0]));
	assert_true(pthread_equal(ran_on[2], ran_on[0]));
	assert_false(pthread_equal(ran_on[3], ran_on[0]));
}


static void
one_writer_runs_in_order(void **state)
{
	int i;

	(void)state;
	reset();
	assert_int_equal(writers_start(1), 0);
	for (i = 0; i < N; i++) {
		items[i].task.run = record;
		items[i].id = i;
		assert_int_equal(writers_submit(&items[i].task), 0);
	}
	writers_stop();	/* runs what is still queued */
	assert_int_equal(ran, N);
	for (i = 0; i < N; i++)
		assert_int_equal(order[i], i);
}

static void
busy_writers_queue_the_rest(void **state)
{
	size_t queued, busy;
	int i, seen[6] = { 0 };

	(void)state;
	reset();
	assert_int_equal(writers_start(2), 0);
	for (i = 0; i < 6; i++) {
		items[i].task.run = gated;
		items[i].id = i;
		assert_int_equal(writers_submit(&items[i].task), 0);
	}
	pthread_mutex_lock(&lock);
	while (inside < 2)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	usleep(50 * 1000);	/* a third writer, were there one, would be inside by now */
	writers_load(&queued, &busy);
	pthread_mutex_lock(&lock);
	assert_int_equal(inside, 2);
	assert_int_equal(ran, 0);
	gate_open = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	assert_int_equal(busy, 2);
	assert_int_equal(queued, 4);
	writers_stop();
	assert_int_equal(ran, 6);
	for (i = 0; i < 6; i++)
		seen[order[i]]++;
	for (i = 0; i < 6; i++)
		assert_int_equal(seen[i], 1);
	writers_load(&queued, &busy);
	assert_int_equal(queued, 0);
	assert_int_equal(busy, 0);
}

static void
stopped_pool_takes_nothing(void **state)
{
	(void)state;
	reset();
	items[0].task.run = record;
	assert_int_equal(writers_submit(&items[0].task), -1);
	assert_int_equal(writers_start(3), 0);
	writers_stop();
	assert_int_equal(writers_submit(&items[0].task), -1);
	assert_int_equal(ran, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_writer_runs_in_order),
		cmocka_unit_test(busy_writers_queue_the_rest),
		cmocka_unit_test(a_busy_key_waits_for_its_writer),
		cmocka_unit_test(stopped_pool_takes_nothing),
	};

	return cmocka_run_group_tests_name("writers", tests, NULL, NULL);
}

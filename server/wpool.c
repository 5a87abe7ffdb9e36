/*
 * wpool.c - a fixed set of threads that run queued tasks in order.
 *
 * A charge spends most of its time waiting for slapd to make its write
 * durable. On the HTTP threads that wait also held up every read queued
 * behind it; here it holds up only other writes. The threads are started
 * once, so a flood of writes queues instead of growing the process.
 */
#include <pthread.h>
#include <stdlib.h>

#include "wpool.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;
static struct wpool_task *head, *tail;
static pthread_t *threads;
static int nthreads, running, stopping;
static size_t queued, busy;

static void *
worker(void *arg)
{
	struct wpool_task *t;

	(void)arg;
	pthread_mutex_lock(&lock);
	for (;;) {
		while (head == NULL && !stopping)
			pthread_cond_wait(&ready, &lock);
		if (head == NULL)
			break;
		t = head;
		if ((head = t->next) == NULL)
			tail = NULL;
		queued--;
		busy++;
		pthread_mutex_unlock(&lock);
		t->run(t);	/* may free t */
		pthread_mutex_lock(&lock);
		busy--;
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

int
wpool_start(int n)
{
	int i;

	if ((threads = calloc((size_t)n, sizeof(*threads))) == NULL)
		return -1;
	stopping = 0;
	for (i = 0; i < n; i++) {
		if (pthread_create(&threads[i], NULL, worker, NULL) != 0) {
			nthreads = i;
			wpool_stop();
			return -1;
		}
	}
	nthreads = n;
	pthread_mutex_lock(&lock);
	running = 1;
	pthread_mutex_unlock(&lock);
	return 0;
}

int
wpool_submit(struct wpool_task *t)
{
	pthread_mutex_lock(&lock);
	if (!running) {
		pthread_mutex_unlock(&lock);
		return -1;
	}
	t->next = NULL;
	if (tail != NULL)
		tail->next = t;
	else
		head = t;
	tail = t;
	queued++;
	pthread_cond_signal(&ready);
	pthread_mutex_unlock(&lock);
	return 0;
}

void
wpool_stop(void)
{
	int i;

	pthread_mutex_lock(&lock);
	running = 0;
	stopping = 1;
	pthread_cond_broadcast(&ready);
	pthread_mutex_unlock(&lock);
	for (i = 0; i < nthreads; i++)
		pthread_join(threads[i], NULL);
	free(threads);
	threads = NULL;
	nthreads = 0;
}

void
wpool_load(size_t *q, size_t *b)
{
	pthread_mutex_lock(&lock);
	*q = queued;
	*b = busy;
	pthread_mutex_unlock(&lock);
}

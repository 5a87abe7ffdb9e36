/*
 * writers.c - a fixed set of threads that run queued tasks in order.
 *
 * A charge spends most of its time waiting for slapd to make its write
 * durable. On the HTTP threads that wait also held up every read queued
 * behind it; here it holds up only other writes. The threads are started
 * once, so a flood of writes queues instead of growing the process.
 *
 * Writes of one counter are serialised by its lock (keylock.h). Handed to
 * any idle thread, the second charge of a busy account would wake a thread
 * only to sleep on that lock, and wake it again when the first one ends:
 * three switches between threads for nothing, on a machine where a switch
 * costs as much as a read. A task whose key a thread is running waits on
 * that thread's own list instead, and runs there next without a wake-up.
 */
#include <pthread.h>
#include <stdlib.h>

#include "writers.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;
static struct writers_task *head, *tail;
struct wthread {
	pthread_t t;
	unsigned long key;	/* of the task it runs; 0 when none or idle */
	struct writers_task *head, *tail;	/* tasks of that key, after it */
};
static struct wthread *threads;
static int nthreads, running, stopping;
static size_t queued, busy;

static struct writers_task *
pop(struct writers_task **h, struct writers_task **tl)
{
	struct writers_task *t = *h;

	if ((*h = t->next) == NULL)
		*tl = NULL;
	return t;
}

static void
push(struct writers_task **h, struct writers_task **tl, struct writers_task *t)
{
	t->next = NULL;
	if (*tl != NULL)
		(*tl)->next = t;
	else
		*h = t;
	*tl = t;
}

static void *
worker(void *arg)
{
	struct wthread *w = arg;
	struct writers_task *t;

	pthread_setname_np(pthread_self(), "privd-writer");	/* top -H, perf */
	pthread_mutex_lock(&lock);
	for (;;) {
		if (w->head != NULL)
			t = pop(&w->head, &w->tail);
		else {
			w->key = 0;
			while (head == NULL && !stopping)
				pthread_cond_wait(&ready, &lock);
			if (head == NULL)
				break;
			t = pop(&head, &tail);
			w->key = t->key;
		}
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
writers_start(int n)
{
	int i;

	if ((threads = calloc((size_t)n, sizeof(*threads))) == NULL)
		return -1;
	stopping = 0;
	for (i = 0; i < n; i++) {
		if (pthread_create(&threads[i].t, NULL, worker, &threads[i]) != 0) {
			nthreads = i;
			writers_stop();
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
writers_submit(struct writers_task *t)
{
	int i;

	pthread_mutex_lock(&lock);
	if (!running) {
		pthread_mutex_unlock(&lock);
		return -1;
	}
	queued++;
	for (i = 0; t->key != 0 && i < nthreads; i++) {
		if (threads[i].key == t->key) {
			push(&threads[i].head, &threads[i].tail, t);
			pthread_mutex_unlock(&lock);
			return 0;
		}
	}
	push(&head, &tail, t);
	pthread_cond_signal(&ready);
	pthread_mutex_unlock(&lock);
	return 0;
}

void
writers_stop(void)
{
	int i;

	pthread_mutex_lock(&lock);
	running = 0;
	stopping = 1;
	pthread_cond_broadcast(&ready);
	pthread_mutex_unlock(&lock);
	for (i = 0; i < nthreads; i++)
		pthread_join(threads[i].t, NULL);
	free(threads);
	threads = NULL;
	nthreads = 0;
}

void
writers_load(size_t *q, size_t *b)
{
	pthread_mutex_lock(&lock);
	*q = queued;
	*b = busy;
	pthread_mutex_unlock(&lock);
}

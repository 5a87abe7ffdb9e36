/* writers.h - a fixed set of threads that run queued tasks in order: the HTTP
 * layer's writes wait on slapd there, not on the threads that answer reads. */
#ifndef PRIVD_WRITERS_H
#define PRIVD_WRITERS_H

#include <stddef.h>

/* Embedded first in whatever the task carries: submitting allocates nothing. */
struct writers_task {
	void (*run)(struct writers_task *);
	struct writers_task *next;
	/* 0, or what the task writes (a hash): a task whose key a thread is
	 * running goes after it on that thread, not to another thread that
	 * would only wait for the first one's lock */
	unsigned long key;
};

/* Starts n threads; -1 when one cannot be started (none are left running). */
int writers_start(int n);
/* Queues t to run on a pool thread; -1 when the pool is not running. */
int writers_submit(struct writers_task *t);
/* Runs what is queued, then stops and joins the threads. */
void writers_stop(void);
/* For /metrics: tasks waiting, and threads running one now. */
void writers_load(size_t *queued, size_t *busy);

#endif

/*
 * worker.h - a background thread that works, sleeps, and stops when told:
 * the connection reaper, the ledger retention pass, hold expiry, mend. Stopping wakes it
 * from its sleep at once.
 */
#ifndef PRIVD_WORKER_H
#define PRIVD_WORKER_H

#include <pthread.h>

struct worker {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int quit, running;
	void (*fn)(struct worker *);
};

#define WORKER_INIT { .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER }

/* Runs fn(w) on a thread of its own; 0 or -1. fn returns when
 * worker_sleep says to stop. */
int worker_start(struct worker *w, void (*fn)(struct worker *));
/* Tells the thread to stop and waits for it (nothing when not started). */
void worker_stop(struct worker *w);
/* Whether the thread was told to stop (for a loop between sleeps). */
int worker_stopping(struct worker *w);
/* Sleeps ms milliseconds or until told to stop; 1 when told to stop. */
int worker_sleep(struct worker *w, long ms);

#endif

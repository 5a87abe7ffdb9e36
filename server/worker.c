/* worker.c - background threads that sleep on a condition, so a stop is never kept waiting. */
#include <time.h>

#include "worker.h"

static void *
run(void *arg)
{
	struct worker *w = arg;

	w->fn(w);
	return NULL;
}

int
worker_start(struct worker *w, void (*fn)(struct worker *))
{
	w->quit = 0;
	w->fn = fn;
	if (pthread_create(&w->thread, NULL, run, w) != 0)
		return -1;
	w->running = 1;
	return 0;
}

void
worker_stop(struct worker *w)
{
	if (!w->running)
		return;
	pthread_mutex_lock(&w->lock);
	w->quit = 1;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	w->running = 0;
}

int
worker_sleep(struct worker *w, long ms)
{
	struct timespec until;
	int quit;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&w->lock);
	while (!w->quit && pthread_cond_timedwait(&w->wake, &w->lock, &until) == 0)
		;
	quit = w->quit;
	pthread_mutex_unlock(&w->lock);
	return quit;
}

int
worker_stopping(struct worker *w)
{
	int quit;

	pthread_mutex_lock(&w->lock);
	quit = w->quit;
	pthread_mutex_unlock(&w->lock);
	return quit;
}

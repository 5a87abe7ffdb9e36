/*
 * holds.c - expiring holds and sessions past their TTL. Several privd may
 * run this at once: ending one removes its exact privHold or privSession
 * value in the same modify that gives its count back, so only one wins.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "holds.h"
#include "ldpool.h"
#include "log.h"
#include "period.h"
#include "quota.h"
#include "session.h"

static const struct cfg *cfg;
static pthread_t thread;
static atomic_int stopping;
static int started;

static void *
run(void *arg)
{
	(void)arg;
	while (!atomic_load(&stopping)) {
		struct timespec pause = { 0, 100 * 1000000L };
		struct err e;
		LDAP *ld;
		int i, n;

		memset(&e, 0, sizeof(e));
		if (ldpool_get(&ld, &e) == 0) {
			/* drain in batches, so a backlog goes quickly */
			do
				n = quota_expire(ld, cfg, period_now(), 100, &e);
			while (n == 100 && !atomic_load(&stopping));
			if (n >= 0) {
				do
					n = session_expire(ld, cfg, period_now(), 100, &e);
				while (n == 100 && !atomic_load(&stopping));
			}
			ldpool_put(ld, n < 0 && e.code == ERR_UNAVAILABLE);
			if (n < 0)
				log_debug("holds: cannot expire holds: %s", e.msg);
		}
		for (i = 0; i < 10 && !atomic_load(&stopping); i++)
			nanosleep(&pause, NULL);
	}
	return NULL;
}

int
holds_start(const struct cfg *c)
{
	cfg = c;
	atomic_store(&stopping, 0);
	if (pthread_create(&thread, NULL, run, NULL) != 0)
		return -1;
	started = 1;
	return 0;
}

void
holds_stop(void)
{
	if (!started)
		return;
	atomic_store(&stopping, 1);
	pthread_join(thread, NULL);
	started = 0;
}

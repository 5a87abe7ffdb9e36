/*
 * holds.c - expiring holds and sessions past their TTL. Several privd may
 * run this at once: ending one removes its exact privHold or privSession
 * value in the same modify that gives its count back, so only one wins.
 * Expiry is judged by the directory's clock (skew.h): a privd whose clock
 * is off by more than SKEW_BOUND_S expires nothing until it is set right.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "holds.h"
#include "ldpool.h"
#include "log.h"
#include "period.h"
#include "probe.h"
#include "quota.h"
#include "session.h"
#include "skew.h"

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
		double off, age;
		int i, n;

		memset(&e, 0, sizeof(e));
		if (ldpool_get(&ld, &e) == 0) {
			/* expiry by the directory's clock, never by this one alone: a
			 * privd whose clock ran ahead would end others' live holds */
			/* measured again when none is fresh; a clock found wrong is
			 * measured every 30 s, not at every pass (a probe is two writes) */
			if (!skew_trusted() && (skew_offset(&off, &age) != 0 || age >= 30) &&
			    probe_clock(ld, cfg, &e) != 0)
				log_debug("holds: cannot measure the clock: %s", e.msg);
			n = 0;
			if (skew_trusted()) {
				/* drain in batches, so a backlog goes quickly */
				do
					n = quota_expire(ld, cfg, skew_directory_time(period_now()),
					    100, &e);
				while (n == 100 && !atomic_load(&stopping));
				if (n >= 0) {
					do
						n = session_expire(ld, cfg,
						    skew_directory_time(period_now()), 100, &e);
					while (n == 100 && !atomic_load(&stopping));
				}
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

/*
 * expiry.c - expiring holds and sessions past their TTL. Several privd may
 * run this at once: ending one removes its exact privHold or privSession
 * value in the same modify that gives its count back, so only one wins.
 * Expiry is judged by the directory's clock (skew.h): a privd whose clock
 * is off by more than SKEW_BOUND_S expires nothing until it is set right.
 */
#include <string.h>

#include "expiry.h"
#include "ldpool.h"
#include "log.h"
#include "period.h"
#include "probe.h"
#include "quota.h"
#include "session.h"
#include "skew.h"
#include "worker.h"

static const struct cfg *cfg;
static struct worker w = WORKER_INIT;

static void
run(struct worker *self)
{
	do {
		struct err e;
		LDAP *ld;
		double off, age;
		int n;

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
				while (n == 100 && !worker_stopping(self));
				if (n >= 0) {
					do
						n = session_expire(ld, cfg,
						    skew_directory_time(period_now()), 100, &e);
					while (n == 100 && !worker_stopping(self));
				}
			}
			ldpool_put(ld, n < 0 && e.code == ERR_UNAVAILABLE);
			if (n < 0)
				log_debug("holds: cannot expire holds: %s", e.msg);
		}
	} while (!worker_sleep(self, 1000));
}

int
expiry_start(const struct cfg *c)
{
	cfg = c;
	return worker_start(&w, run);
}

void
expiry_stop(void)
{
	worker_stop(&w);
}

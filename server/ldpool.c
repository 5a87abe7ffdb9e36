/*
 * ldpool.c - write connections: one per concurrent writer at most, reused,
 * reopened after a failure. Reads never come here (they use the snapshot).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "ldapconn.h"
#include "ldpool.h"

static const struct cfg *cfg;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t freed = PTHREAD_COND_INITIALIZER;
static LDAP **idle;		/* open, idle connections */
static int nidle, size, out;	/* out: connections handed out */
/* after a connection gave out, writes fail at once until this moment (ms):
 * a slapd that hangs must not hold every HTTP thread for its timeout */
static _Atomic long fast_fail_until;

static long
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

int
ldpool_init(const struct cfg *c, int n)
{
	cfg = c;
	size = n < 1 ? 1 : n;
	if ((idle = calloc((size_t)size, sizeof(*idle))) == NULL)
		return -1;
	nidle = out = 0;
	return 0;
}

void
ldpool_free(void)
{
	int i;

	pthread_mutex_lock(&lock);
	for (i = 0; i < nidle; i++)
		ldapc_close(idle[i]);
	free(idle);
	idle = NULL;
	nidle = size = 0;
	pthread_mutex_unlock(&lock);
}

int
ldpool_get(LDAP **ld, struct err *e)
{
	struct timespec until;
	int rc;

	*ld = NULL;
	if (mono_ms() < atomic_load(&fast_fail_until))
		return err_set(e, ERR_UNAVAILABLE, 0, NULL,
		    "LDAP unavailable: it did not answer within %d s just now", cfg->ldap_timeout_s);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += cfg->ldap_timeout_s;
	pthread_mutex_lock(&lock);
	while (nidle == 0 && out >= size) {
		if (pthread_cond_timedwait(&freed, &lock, &until) == ETIMEDOUT) {
			pthread_mutex_unlock(&lock);
			return err_set(e, ERR_UNAVAILABLE, 0, NULL,
			    "LDAP unavailable: all %d write connections are busy", size);
		}
	}
	out++;
	if (nidle > 0) {
		*ld = idle[--nidle];
		pthread_mutex_unlock(&lock);
		return 0;
	}
	pthread_mutex_unlock(&lock);
	/* open outside the lock: connecting may take the whole timeout */
	if ((rc = ldapc_open_write(cfg, NULL, NULL, ld, e)) != 0) {
		atomic_store(&fast_fail_until, mono_ms() + 1000);
		pthread_mutex_lock(&lock);
		out--;
		pthread_cond_signal(&freed);
		pthread_mutex_unlock(&lock);
	}
	return rc;
}

void
ldpool_put(LDAP *ld, int broken)
{
	if (broken)
		atomic_store(&fast_fail_until, mono_ms() + 1000);
	pthread_mutex_lock(&lock);
	out--;
	if (ld != NULL && !broken && nidle < size)
		idle[nidle++] = ld;
	else if (ld != NULL) {
		pthread_mutex_unlock(&lock);
		ldapc_close(ld);
		pthread_mutex_lock(&lock);
	}
	pthread_cond_signal(&freed);
	pthread_mutex_unlock(&lock);
}

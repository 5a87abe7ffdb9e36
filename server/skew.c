/*
 * skew.c - this privd's clock against the directory's (skew.h). Each write
 * privd makes is answered with its entry's entryCSN, whose time is the
 * provider's at the commit; it happened between the moment the write was
 * sent and the moment its answer came, so this clock's offset is known to
 * within half that round trip. The last measurement is kept; the reaper
 * measures again with a probe entry when none is fresh.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "skew.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static double
mag(double x)
{
	return x < 0 ? -x : x;
}

static time_t
whole(double x)
{
	return (time_t)(x < 0 ? x - 0.5 : x + 0.5);
}

static double offset, half_rtt, learned_at, site_shift;
static int known, was_trusted = -1;

double
skew_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	/* period_now() carries the test offset (PRIVD_CLOCK_OFFSET) */
	return (double)(period_now() - time(NULL)) + (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A CSN's time, "YYYYMMDDHHMMSS.ffffffZ#...", in seconds; -1 when it is none. */
static double
csn_time(const char *csn)
{
	struct tm tm;
	long frac = 0;
	int used = 0;

	memset(&tm, 0, sizeof(tm));
	if (csn == NULL || sscanf(csn, "%4d%2d%2d%2d%2d%2d%n", &tm.tm_year, &tm.tm_mon,
	    &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &used) != 6)
		return -1;
	if (csn[used] == '.')
		sscanf(csn + used + 1, "%6ld", &frac);
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (double)timegm(&tm) + frac / 1e6 + site_shift;
}

void
skew_shift_directory(long seconds)
{
	site_shift = (double)seconds;
}

static int
trusted_locked(double now)
{
	return known && now - learned_at <= SKEW_FRESH_S &&
	    mag(offset) - half_rtt <= SKEW_BOUND_S;
}

void
skew_observe(const char *csn, double sent, double answered)
{
	double d = csn_time(csn), off;
	int t;

	if (d < 0 || answered < sent || answered - sent > 1.0)
		return;
	off = (sent + answered) / 2 - d;
	pthread_mutex_lock(&lock);
	offset = off;
	half_rtt = (answered - sent) / 2;
	learned_at = answered;
	known = 1;
	t = trusted_locked(answered);
	if (t != was_trusted) {
		if (!t)
			log_warn("clock: this privd's clock is %.3f s %s the directory's, more than "
			    "%.0f s: it expires no hold and starts no period until it is set right",
			    mag(off), off > 0 ? "ahead of" : "behind", SKEW_BOUND_S);
		else if (was_trusted == 0)
			log_info("clock: within %.3f s of the directory's again", mag(off));
		was_trusted = t;
	}
	pthread_mutex_unlock(&lock);
}

int
skew_offset(double *off, double *age)
{
	double now = skew_clock();
	int rc;

	pthread_mutex_lock(&lock);
	rc = known ? 0 : -1;
	*off = offset;
	*age = now - learned_at;
	pthread_mutex_unlock(&lock);
	return rc;
}

int
skew_trusted(void)
{
	double now = skew_clock();
	int t;

	pthread_mutex_lock(&lock);
	t = trusted_locked(now);
	pthread_mutex_unlock(&lock);
	return t;
}

time_t
skew_directory_time(time_t now)
{
	double off, age;

	if (skew_offset(&off, &age) != 0)
		return now;
	return now - whole(off);
}

int
skew_period_unsure(const struct cfg *c, enum period_kind kind, time_t now)
{
	char mine[PERIOD_KEY_MAX], theirs[PERIOD_KEY_MAX];
	double off, age;

	int a, b;

	if (skew_trusted() || skew_offset(&off, &age) != 0)
		return 0;
	a = period_key(c, kind, now, mine, NULL);
	b = period_key(c, kind, now - whole(off), theirs, NULL);
	if (a != 0 || b != 0)
		return a != b;
	return strcmp(mine, theirs) != 0;
}

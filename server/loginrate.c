/*
 * loginrate.c - the sign-in limits (loginrate.h). Failures are kept per
 * exact address: a table full of addresses that failed within the window
 * takes no new one (the sign-in is refused), so no address can push
 * another's count out. Budgets are token buckets: an address's and an
 * account's refill on their own, so one flood spends its own budget and
 * only a share of everyone's. Each sign-in costs two LDAP operations.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "loginrate.h"

#define TRACKED 4096
#define WINDOW_S 60

static struct {
	char addr[64];
	time_t since;
	int fails;
} seen[TRACKED];

struct bucket {
	char who[72];
	double tokens;
	double at;		/* monotonic seconds of the last refill */
};

static struct bucket addrs[TRACKED], uids[TRACKED], everyone;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Whether addr may try again; counts a failure when failed. */
static int
allowed(const char *addr, int failed)
{
	time_t now = time(NULL);
	int i, at = -1, spare = -1, ok;

	pthread_mutex_lock(&lock);
	for (i = 0; i < TRACKED && at < 0; i++) {
		if (seen[i].addr[0] != '\0' && strcmp(seen[i].addr, addr) == 0)
			at = i;
		else if (spare < 0 && (seen[i].addr[0] == '\0' || now - seen[i].since >= WINDOW_S))
			spare = i;
	}
	if (at >= 0 && now - seen[at].since >= WINDOW_S) {
		seen[at].since = now;
		seen[at].fails = 0;
	}
	if (at < 0 && failed && spare >= 0) {
		at = spare;
		snprintf(seen[at].addr, sizeof(seen[at].addr), "%s", addr);
		seen[at].since = now;
		seen[at].fails = 0;
	}
	if (at < 0)
		/* never failed here; or the table is full of recent failures, and
		 * a failure that cannot be counted is not allowed */
		ok = !failed && spare >= 0;
	else {
		if (failed)
			seen[at].fails++;
		ok = seen[at].fails < LOGINRATE_FAILS;
	}
	pthread_mutex_unlock(&lock);
	return ok;
}

int
loginrate_allowed(const char *addr)
{
	return allowed(addr, 0);
}

void
loginrate_failed(const char *addr)
{
	allowed(addr, 1);
}

static void
refill(struct bucket *b, double now, double rate, double burst)
{
	b->tokens += (now - b->at) * rate;
	if (b->tokens > burst)
		b->tokens = burst;
	b->at = now;
}

/*
 * who's bucket in table (a full bucket is as good as none, so its place
 * is taken for who), refilled to now; NULL when every place holds a
 * bucket still refilling: then who is refused, as a failure is above.
 */
static struct bucket *
find(struct bucket *table, const char *who, double now, double rate, double burst)
{
	struct bucket *spare = NULL;
	int i;

	for (i = 0; i < TRACKED; i++) {
		struct bucket *b = &table[i];

		if (b->who[0] != '\0' && strcasecmp(b->who, who) == 0) {
			refill(b, now, rate, burst);
			return b;
		}
		if (spare == NULL && (b->who[0] == '\0' || b->tokens + (now - b->at) * rate >= burst))
			spare = b;
	}
	if (spare != NULL) {
		snprintf(spare->who, sizeof(spare->who), "%s", who);
		spare->tokens = burst;
		spare->at = now;
	}
	return spare;
}

int
loginrate_take(const char *addr, const char *uid, char *why, size_t n)
{
	struct bucket *a, *u;
	struct timespec ts;
	double now;
	int rc = -1;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (double)ts.tv_sec + ts.tv_nsec / 1e9;
	pthread_mutex_lock(&lock);
	if (everyone.at == 0) {
		everyone.tokens = LOGINRATE_ALL_BURST;
		everyone.at = now;
	}
	refill(&everyone, now, LOGINRATE_ALL_PER_S, LOGINRATE_ALL_BURST);
	a = find(addrs, addr, now, LOGINRATE_ADDR_PER_S, LOGINRATE_ADDR_BURST);
	u = find(uids, uid, now, LOGINRATE_UID_PER_S, LOGINRATE_UID_BURST);
	if (a == NULL || a->tokens < 1)
		snprintf(why, n, "more than %.0f sign-ins a second from %s; try again in a second",
		    LOGINRATE_ADDR_PER_S, addr);
	else if (u == NULL || u->tokens < 1)
		snprintf(why, n, "too many sign-ins as %s; try again in a few seconds", uid);
	else if (everyone.tokens < 1)
		snprintf(why, n, "more than %.0f sign-ins a second from everyone together; "
		    "try again in a second", LOGINRATE_ALL_PER_S);
	else {
		a->tokens -= 1;
		everyone.tokens -= 1;
		rc = 0;
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

void
loginrate_signed_in(const char *uid)
{
	struct bucket *u;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	pthread_mutex_lock(&lock);
	u = find(uids, uid, (double)ts.tv_sec + ts.tv_nsec / 1e9, LOGINRATE_UID_PER_S,
	    LOGINRATE_UID_BURST);
	if (u != NULL)
		u->tokens -= 1;
	pthread_mutex_unlock(&lock);
}

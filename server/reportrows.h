/*
 * reportrows.h - a quota's usage in one period and in the paid wallet, taken from
 * the usage table in one pass and sorted by each account's place in the
 * snapshot's full build, for a walk that visits the accounts in that order
 * (report.c). One pass over the table rather than a look-up per account:
 * two hashed look-ups under a lock, a million times, took 300 ms once
 * 100,000 accounts had usage.
 */
#ifndef PRIVD_REPORTROWS_H
#define PRIVD_REPORTROWS_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "period.h"
#include "snapshot.h"
#include "usage.h"

struct rrows_hit {
	uint32_t idx;		/* in s->core; UINT32_MAX: an overlay account */
	unsigned char paid;	/* the paid wallet's; else the period's */
	const struct snap_account *a;
	long long used, credit, held;
};

/* Copied by value into each lane of a walk, which moves only its own at. */
struct rrows {
	const struct snap *s;
	char per[PRIV_NAME_MAX + PERIOD_KEY_MAX + 3], paid[PRIV_NAME_MAX + 16];
	size_t lper, lpaid;
	struct rrows_hit *h;
	size_t n, cap, at;	/* at: the walk's place among the hits */
	int oom;
};

/*
 * Fills us with quota's entries in period and in the paid wallet whose
 * accounts s holds, on one thread or two (lanes). 0, or -1 when out of
 * memory or the names are too long; either way the caller frees us with
 * rrows_free.
 */
int rrows_fill(struct rrows *us, const struct snap *s, const char *quota, const char *period,
    int lanes);
/* a's usage in the period (*u) and in the paid wallet (*w), zero when none;
 * the accounts of s's core must be asked in order, the overlay's after */
void rrows_get(struct rrows *us, const struct snap_account *a, struct usage_val *u,
    struct usage_val *w);
/* the place of the first hit at or after core position lo */
size_t rrows_seek(const struct rrows *us, size_t lo);
void rrows_free(struct rrows *us);

#endif

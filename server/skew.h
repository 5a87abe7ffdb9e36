/*
 * skew.h - how far this privd's clock is from the directory's. Learned
 * from the entryCSN of its own writes (the provider's time at the commit,
 * to the microsecond) against this privd's clock before and after each,
 * so that hold expiry and period boundaries are never decided by whichever
 * privd's clock runs fastest: beyond SKEW_BOUND_S this privd reaps no hold
 * and rolls no period, and says so in /readyz, the log and /metrics.
 */
#ifndef PRIVD_SKEW_H
#define PRIVD_SKEW_H

#include <time.h>

#include "config.h"
#include "period.h"

#define SKEW_BOUND_S 2.0	/* the offset a decision by this clock may carry */
#define SKEW_FRESH_S 120	/* a measurement older than this is measured again */

/* This privd's clock, in seconds with a fraction: period_now()'s. */
double skew_clock(void);
/* One write whose entryCSN is csn, sent at `sent`, answered at `answered`
 * (skew_clock). A write slower than a second teaches nothing. */
void skew_observe(const char *csn, double sent, double answered);
/* The offset learned (this privd's clock less the directory's) into *off
 * and its age in seconds into *age; 0, or -1 when none was learned. */
int skew_offset(double *off, double *age);
/* Whether this clock may decide: an offset learned within SKEW_FRESH_S
 * whose size, less its uncertainty, is at most SKEW_BOUND_S. */
int skew_trusted(void);
/* now as the directory's clock has it (now less the offset, when one is
 * learned). */
time_t skew_directory_time(time_t now);
/* Whether a write at `now` of a quota of period kind must wait: this
 * clock is not trusted and it would put the write in another period than
 * the directory's clock would. */
int skew_period_unsure(const struct cfg *c, enum period_kind kind, time_t now);

/* A test hook (PRIVD_CLOCK_OFFSET=N:site): the directory's times as this
 * privd reads them move by seconds too, as if the whole site's clock had. */
void skew_shift_directory(long seconds);

#endif

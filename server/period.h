/* period.h - which usage period a moment falls in, for each period kind. */
#ifndef PRIVD_PERIOD_H
#define PRIVD_PERIOD_H

#include <time.h>

#include "config.h"
#include "err.h"

#define PERIOD_KEY_MAX 40

/*
 * Writes the period key of `now` (UTC) for kind into out: the term's name
 * ("2026T3"), the ISO week ("2026W49"), the month ("2026-12"), the year
 * ("2026") or "all" for never. A moment outside every term is -1 with e
 * saying so. A new period simply has a new key: nothing is reset.
 */
int period_key(const struct cfg *c, enum period_kind kind, time_t now,
    char out[PERIOD_KEY_MAX], struct err *e);

/*
 * The moment usage is counted at: the system clock, plus an offset that only
 * tests set (PRIVD_CLOCK_OFFSET, logged loudly) to cross a period boundary.
 */
time_t period_now(void);
void period_set_offset(long seconds);

#endif

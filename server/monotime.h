/* monotime.h - milliseconds on the monotonic clock, for deadlines and ages
 * that a change of the wall clock must not move. */
#ifndef PRIVD_MONOTIME_H
#define PRIVD_MONOTIME_H

long long monotime_ms(void);

#endif

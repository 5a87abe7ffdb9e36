/* membership.h - memberships with dates: "CELL" or "CELL|FROM|UNTIL", parsed and in force. */
#ifndef PRIVD_MEMBERSHIP_H
#define PRIVD_MEMBERSHIP_H

#include <stddef.h>
#include <time.h>


#include "config.h"
#include "err.h"

/*
 * privd passes a membership around as one string: the cell name, or for a
 * dated one "CELL|FROM|UNTIL" with each bound a GeneralizedTime
 * ("20260901000000Z") or "-" when open. In LDAP the person keeps
 * privMembership (the cell's DN) for every membership, and
 * privMembershipDates "CELL FROM UNTIL" for each dated one. FROM is the
 * first second in force, UNTIL the first second no longer in force.
 */
#define MEMBERSHIP_MAX 600	/* an encoded membership, with its NUL */

/*
 * A date of the import format or the API: "2026-09-01" (midnight UTC; as
 * an until, the end of that day), "2026-09-01T08:30[:00][Z]", or a term of
 * the calendar ("2026T3": its first day, or as an until the end of its
 * last). 0, or -1 and e naming what was wrong.
 */
int membership_date(const struct cfg *c, const char *s, int until, time_t *out,
    struct err *e);

/* "CELL" when both bounds are 0, else "CELL|FROM|UNTIL"; malloc'd. */
char *membership_encode(const char *cell, time_t from, time_t until);
/* The cell name of m into out (size n), and its bounds (0: open). -1
 * when it does not fit or a bound is not a GeneralizedTime. */
int membership_split(const char *m, char *out, size_t n, time_t *from, time_t *until);
/* Whether the names of two memberships are the same cell. */
int membership_same_cell(const char *a, const char *b);
/* Whether a membership with these bounds is in force at now. */
int membership_in_force(time_t from, time_t until, time_t now);

/*
 * Lays privMembershipDates values ("CELL FROM UNTIL") over memberships
 * cells[0..n-1] (cell names as read from privMembership): each named cell
 * becomes "CELL|FROM|UNTIL" (reallocated in place). Values for cells not
 * in the list are ignored. 0, or -1 when out of memory.
 */
int membership_apply_dates(char **cells, size_t n, char *const *dates);
/* The privMembershipDates value of a dated membership ("CELL FROM UNTIL"),
 * malloc'd; NULL for an undated one (or out of memory: *oom set). */
char *membership_dates_value(const char *m, int *oom);

/* m for people: "CELL", or "CELL (from T until T)". */
void membership_text(const char *m, char *out, size_t n);

/* t as "YYYYMMDDHHMMSSZ", or "-" for 0; out needs 16 bytes. */
void membership_gt(time_t t, char out[16]);
/* t as RFC 3339 UTC, for answers; out needs 24 bytes. */
void membership_rfc3339(time_t t, char out[24]);

#endif

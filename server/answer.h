/* answer.h - an account's privileges answer, serialised once per snapshot. */
#ifndef PRIVD_ANSWER_H
#define PRIVD_ANSWER_H

#include <time.h>

#include <jansson.h>

#include "resolve.h"
#include "snapshot.h"

/*
 * The JSON of GET /v1/accounts/{uid}/privileges for account a of s, as a
 * malloc'd, NUL-terminated string (the caller frees). Everything but the
 * staleness and the quotas' usage is made once per snapshot and kept
 * (s->answers); those are spliced in per request, so a read costs a copy,
 * a few numbers and no JSON building. NULL when out of memory.
 */
char *answer_privileges(const struct snap *s, const struct snap_account *a, int stale);

/*
 * Privilege p's value for a without a quota's usage ({"type","value"} or
 * {"type":"quota","limit"}), with the resolved value in v (the caller
 * clears it). NULL when out of memory.
 */
json_t *answer_value(const struct snap *s, const struct snap_account *a, int p,
    struct resolve_val *v);

/*
 * a's dated memberships as JSON ([{"cell","from","until","in_force"}], the
 * bounds RFC 3339 or null), or NULL when it has none.
 */
json_t *answer_dated(const struct snap *s, const struct snap_account *a);
/* The bounds of a's membership of cell (0: open; both 0 when undated). */
void answer_bounds(const struct snap_account *a, const char *cell, time_t *from,
    time_t *until);

#endif

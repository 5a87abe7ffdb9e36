/* resolve.h - the resolution rules of DESIGN.md section 1; pure, no I/O. */
#ifndef PRIVD_RESOLVE_H
#define PRIVD_RESOLVE_H

#include "snapshot.h"

/*
 * Rules 1-3 for one membership (reason, org): collects the grants on every
 * cell of s covering it, keeps the most specific per privilege (per element
 * for sets), breaks ties between incomparable cells (deny wins for flags
 * and set elements, the privilege's combine for numbers and quotas).
 * Fills pv[0..cfg->nprivs-1]; snap_pval_clear frees each.
 */
int resolve_membership(const struct snap *s, const char *reason,
    const char *org, struct snap_pval *pv);

/*
 * The grants of privilege priv that reach membership m in s (rule 1), each
 * a winner or overridden by a more specific cell (rule 2): what m->pv
 * [priv] was resolved from, worked out again when asked (?explain, privctl
 * model test) rather than kept for every membership. *out is malloc'd, the
 * caller frees it; its cells and grants are borrowed from s. -1 only when
 * out of memory.
 */
int resolve_sources(const struct snap *s, const struct snap_mres *m, int priv,
    struct snap_src **out, size_t *nout);

/* The effective value of one privilege for an account (rules 4 and 5). */
struct resolve_val {
	long long num;		/* flag 0/1, number, quota limit */
	const char **elems;	/* set: sorted, unique, borrowed from s */
	size_t nelems;
};

/* Rule 4 across memberships m[0..nm-1]; no membership or no grant is
 * rule 5 (false, empty, 0). -1 only when out of memory. */
/* Two values of a number or quota combined as the privilege says (min,
 * max or sum): what resolve_combine does membership by membership. */
long long resolve_combine2(enum priv_combine how, long long a, long long b);
int resolve_combine(const struct cfg *c, int priv,
    const struct snap_mres *const *m, size_t nm, struct resolve_val *out);
/* resolve_combine over account a's memberships as s holds them
 * (snap_mres_of): what every reader of a published snapshot calls. */
int resolve_account(const struct snap *s, int priv, const struct snap_account *a,
    struct resolve_val *out);
void resolve_val_clear(struct resolve_val *v);

enum resolve_why {
	WHY_APPLIED,		/* the source gives the effective value */
	WHY_OVERRIDDEN,		/* a grant on a more specific cell won (rule 2) */
	WHY_OUTWEIGHED		/* a winner that a tie or another membership beat */
};

/* Why source src of membership m does or does not show in final. */
enum resolve_why resolve_why(const struct cfg *c, int priv,
    const struct snap_mres *m, const struct snap_src *src,
    const struct resolve_val *final);
const char *resolve_why_name(enum resolve_why w);

/* Whether a set value holds elem (binary search). */
int resolve_has(const struct resolve_val *v, const char *elem);

#endif

/* report.h - usage of one quota aggregated along either tree, from memory. */
#ifndef PRIVD_REPORT_H
#define PRIVD_REPORT_H

#include <stddef.h>

#include "err.h"
#include "period.h"
#include "snapshot.h"

struct report_opts {
	int priv;		/* a quota privilege */
	const char *period;	/* its period key */
	int by_reason;		/* the reason tree; else the organisation tree */
	int depth;		/* rows at most this deep (1 = the top nodes) */
	const char *under;	/* only memberships at or below this path; NULL: all */
	size_t top;		/* the heaviest accounts to list */
	int lanes;		/* 1: one thread; 2: two; 0: two from
				 * REPORT_LANES_MIN accounts on */
};

/* Below this many accounts a second thread costs more than it saves. */
#define REPORT_LANES_MIN 50000

/*
 * One node of the tree (path "" is the root: cells with that side empty),
 * for its whole subtree: a Head of School's row counts the school. own_:
 * the accounts with a membership at the node itself. The paid wallets
 * have no periods: paid_used and topped_up are what they hold so far.
 */
struct report_row {
	char *path;
	size_t accounts, own_accounts;
	long long used, limit, credit, held, own_used;
	long long paid_used, topped_up;
};

struct report_top {
	const char *uid;	/* borrowed from the snapshot */
	long long used, limit, credit;
};

struct report {
	struct report_row *rows;	/* by path */
	size_t nrows;
	size_t accounts;	/* counted, each once */
	size_t multi;		/* counted in more than one row */
	long long used, limit, credit, held;	/* over the accounts, each once */
	long long paid_used, topped_up;
	struct report_top *top;	/* heaviest first */
	size_t ntop;
};

/*
 * Each account with a membership in o's part of the tree counts once in
 * each row its memberships reach (the membership's node and its ancestors,
 * to o->depth levels), with its usage in o->period and its resolved limit.
 * Reads the usage table, never LDAP. 0, or -1 and e (out of memory).
 */
int report_usage(const struct snap *s, const struct report_opts *o, struct report *out,
    struct err *e);
void report_free(struct report *r);

#endif

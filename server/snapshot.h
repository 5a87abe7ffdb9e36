/* snapshot.h - the immutable in-memory model readers answer from, and its swap. */
#ifndef PRIVD_SNAPSHOT_H
#define PRIVD_SNAPSHOT_H

#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "config.h"
#include "err.h"
#include "grant.h"
#include "price.h"
#include "strmap.h"

struct snap_cell {
	char *name;		/* "reason@organisation" */
	char *reason;		/* own copies of the two sides */
	char *org;
	struct grant *grants;
	size_t ngrants;
	struct grant *pools;	/* the pools it holds: a limit per quota (pool.h) */
	size_t npools;
	char **contacts;	/* told when its pools run low (notice.h) */
	size_t ncontacts;
};

/* One grant considered for one membership (rule 1), won or overridden (rule 2). */
struct snap_src {
	const struct snap_cell *cell;
	const struct grant *grant;
	const struct snap_cell *by;	/* the more specific cell that won; NULL: a winner */
};

/* Rules 1-3 for one membership cell and one privilege. */
struct snap_pval {
	int granted;		/* some grant applies */
	long long num;		/* flag 0/1, number, quota limit */
	const char **allow;	/* set: allowed elements, sorted, borrowed */
	size_t nallow;
	struct snap_src *src;	/* winners and overridden, for provenance */
	size_t nsrc;
};

/* The precomputed effective privileges of one membership cell. */
struct snap_mres {
	char *cell;
	struct snap_pval *pv;	/* one per declared privilege */
};

struct snap_account {
	char *uid;		/* as the directory stores it */
	char *fold;		/* uid in lower case when that differs, else NULL */
	char *dn;		/* its entry when not UID_ATTR=uid,people_dn, else NULL */
	char **dated;		/* its dated memberships, in force or not:
				 * "CELL|FROM|UNTIL" (membership.h) */
	size_t ndated;
	const struct snap_mres **m;
	size_t nm;
};

struct snap {
	const struct cfg *cfg;	/* borrowed; outlives every snapshot */
	uint64_t gen;
	time_t built;

	char **reasons;
	int *reason_kids;	/* children per reason node */
	size_t nreasons;
	struct strmap reason_idx;	/* path -> index + 1 */
	char **orgs;
	size_t norgs;
	struct strmap org_idx;

	struct snap_cell *cells;
	size_t ncells;
	struct strmap cell_by_name;
	const struct snap_cell **pooled;	/* the cells with pools */
	size_t npooled;

	struct snap_mres *mres;
	size_t nmres;
	struct strmap mres_by_cell;

	struct price_card *printers;	/* rate cards, sorted by name */
	size_t nprinters;
	struct strmap printer_by_name;

	struct snap_account *accounts;
	size_t naccounts;
	struct strmap account_by_uid;
	/* per account, its privileges answer serialised once (answer.c); each a
	 * single malloc'd block, freed with the snapshot */
	_Atomic(void *) *answers;

	size_t skipped;		/* bad grants, cells, memberships left out */
	time_t now;		/* the moment memberships were judged in force */
	time_t next_change;	/* when a dated membership starts or ends next; 0: never */
};

/* What the directory holds, as plain strings; borrowed by snap_build. */
struct snap_in_cell {
	const char *name;
	const char **grants;
	size_t ngrants;
};

struct snap_in_account {
	const char *uid;
	const char **cells;	/* membership cell names */
	size_t ncells;
	const char *dn;		/* NULL: UID_ATTR=uid,people_dn */
};

struct snap_input {
	time_t now;		/* judge dated memberships at this moment; 0: period_now() */
	const char **reasons;
	size_t nreasons;
	const char **orgs;
	size_t norgs;
	const struct snap_in_cell *cells;
	size_t ncells;
	const struct snap_in_account *accounts;
	size_t naccounts;
	const struct snap_in_cell *printers;	/* name and privRate values */
	size_t nprinters;
};

/* Builds a snapshot (freed by snap_free); NULL and e when out of memory.
 * Entries privd cannot use are skipped, counted and logged, not fatal. */
struct snap *snap_build(const struct cfg *c, const struct snap_input *in,
    struct err *e);
void snap_free(struct snap *s);
/* The key of a uid in account_by_uid (lower case); -1 when longer than n. */
int snap_fold_uid(const char *uid, char *out, size_t n);

/* The index maps hold i + 1, so that index 0 is not NULL. */
static inline void *
snap_idx_val(size_t i)
{
	return (void *)(uintptr_t)(i + 1);
}

static inline size_t
snap_val_idx(const void *v)
{
	return (size_t)(uintptr_t)v - 1;
}
/* Frees what one membership's resolved value owns (not pv). */
void snap_pval_clear(struct snap_pval *pv);

/* The account whose uid matches uid without regard to case, as LDAP
 * matches uid (caseIgnoreMatch); its uid is the stored one. */
const struct snap_account *snap_account(const struct snap *s, const char *uid);
/* Whether the published snapshot has a dated membership that starts or
 * ends by now (then it is rebuilt). */
int snap_due(time_t now);
const struct snap_cell *snap_cell(const struct snap *s, const char *name);
/* A printer's rate card, or NULL when it has none. */
const struct price_card *snap_printer(const struct snap *s, const char *name);
int snap_reason_exists(const struct snap *s, const char *path);
int snap_reason_is_leaf(const struct snap *s, const char *path);
int snap_org_exists(const struct snap *s, const char *path);

/*
 * Publishing. One writer (the sync thread) calls snap_publish; it returns
 * after the replaced snapshot has no reader left and has been freed.
 * Readers never lock: snap_enter returns the current snapshot (NULL before
 * the first) and a ticket that snap_leave gives back.
 */
void snap_publish(struct snap *s);
const struct snap *snap_enter(int *ticket);
void snap_leave(int ticket);
/* Frees the current snapshot; call once no reader can start. */
void snap_shutdown(void);

#endif

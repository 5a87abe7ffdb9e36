/* snapshot.h - the immutable in-memory model readers answer from, and its swap. */
#ifndef PRIVD_SNAPSHOT_H
#define PRIVD_SNAPSHOT_H

#include <pthread.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "config.h"
#include "err.h"
#include "grant.h"
#include "price.h"
#include "strmap.h"
#include "uidindex.h"

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
	/* no provenance: resolve_sources works it out when asked (?explain),
	 * 30 MB less at a million accounts */
};

#define SNAP_NOIDX UINT32_MAX

/* The precomputed effective privileges of one membership cell. */
struct snap_mres {
	char *cell;
	struct snap_pval *pv;	/* one per declared privilege */
	/* the full build's: its reason's and organisation's indices in
	 * reasons and orgs, SNAP_NOIDX when the side is empty or no node
	 * (snapderive.c finds the memberships a changed cell covers by them) */
	uint32_t reason, org;
};

struct snap_account {
	char *uid;		/* as the directory stores it; in a->m's block */
	char *fold;		/* uid in lower case when that differs, else NULL */
	char *dn;		/* its entry when not UID_ATTR=uid,people_dn, else NULL */
	char **dated;		/* its dated memberships, in force or not:
				 * "CELL|FROM|UNTIL" (membership.h) */
	const struct snap_mres **m;
	/* 32 bits each: a million accounts, 8 MB less */
	uint32_t ndated;
	uint32_t nm;
	struct snap_over *over;	/* the change that holds it; NULL: the full build's */
};

/*
 * An account changed since the full build a snapshot shares (snapderive.c):
 * held, with its answer, by each snapshot derived since, until the next
 * full build. a.uid NULL: the account is gone.
 */
struct snap_over {
	atomic_int refs;
	struct snap_account a;
	_Atomic(void *) answer;	/* as snap.answers */
};

/*
 * A change that reached more accounts than an overlay holds (a grant on
 * "@"): the full build's memberships it covers are resolved again where
 * they are first asked for, and the full build's accounts answer anew.
 * Shared by the snapshots derived after it, until the next full build.
 */
struct snap_wide {
	atomic_int refs;
	/* per s->mres: its values now, the full build's own or a
	 * struct snap_over_mres's; NULL: resolved on first use */
	_Atomic(const struct snap_mres *) *m;
	_Atomic(void *) *answers;	/* per core account, as snap.answers */
	size_t nm, na;
};

/* A cell changed since the full build (c.name NULL: removed; its name in
 * c.reason). */
struct snap_over_cell {
	atomic_int refs;
	struct snap_cell c;
};

/* A membership cell's values resolved since the full build: a cell the
 * full build had no account in, or one a changed cell covers. */
struct snap_over_mres {
	atomic_int refs;
	struct snap_mres m;
};

/*
 * A snapshot is a full build (the core: every field below but the last
 * group) or derived from the one before for a few changed accounts: then it
 * shares the core, counted in core_refs, and holds the changes in its own
 * overlay. Readers see one model either way: snap_account and snap_next.
 */
struct snap {
	const struct cfg *cfg;	/* borrowed; outlives every snapshot */
	uint64_t gen;
	time_t built;
	atomic_int *core_refs;	/* snapshots sharing this one's core */

	char **reasons;
	int *reason_kids;	/* children per reason node */
	size_t nreasons;
	struct strmap reason_idx;	/* path -> index + 1 */
	char **orgs;
	size_t norgs;
	struct strmap org_idx;

	struct snap_cell *core_cells;	/* the full build's (iterate with snap_next_cell) */
	size_t ncore_cells;
	struct strmap cell_by_name;
	const struct snap_cell **pooled;	/* the cells with pools */
	size_t npooled;
	const struct snap_cell **core_pooled;	/* the full build's list (freed with the core) */

	struct snap_mres *mres;
	size_t nmres;
	struct strmap mres_by_cell;
	/* the core accounts in each core membership cell: mres_accts[
	 * mres_first[k] .. mres_first[k + 1]) for s->mres[k] */
	size_t *mres_first;
	uint32_t *mres_accts;

	struct price_card *printers;	/* rate cards, sorted by name */
	size_t nprinters;
	struct strmap printer_by_name;

	struct snap_account *core;	/* the full build's accounts (iterate with snap_next) */
	size_t ncore;
	struct uidx account_by_uid;	/* core accounts by snap_account_key */
	/* per core account, its privileges answer serialised once (answer.c);
	 * each a single malloc'd block, freed with the core */
	_Atomic(void *) *answers;

	size_t skipped;		/* bad grants, cells, memberships left out */
	time_t now;		/* the moment memberships were judged in force */
	time_t next_change;	/* when a dated membership starts or ends next; 0: never */

	/* this snapshot's own: what changed since the core */
	size_t naccounts;	/* accounts in the model, core and overlay */
	size_t ncells;		/* cells likewise */
	struct strmap over;	/* folded uid -> struct snap_over */
	struct strmap over_mres;	/* cell -> struct snap_over_mres */
	struct strmap over_cells;	/* cell -> struct snap_over_cell */
	uint64_t *shadow;	/* bit per core account the overlay replaces */
	int own_pooled;		/* pooled is this snapshot's, not the core's */
	struct snap_wide *wide;	/* NULL: no change since the full build was wide */
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
/*
 * The same build in steps, for a source too large to copy into an array
 * of accounts first (the mirror: 32 MB at a million people): start with
 * in's trees, cells and printers (its accounts ignored) and room for
 * naccounts accounts holding nmemberships memberships in all, add each
 * account, finish. On an error the build is freed and e says why; an
 * account beyond the room counted is one.
 */
struct snap_memo;
/* What building accounts met, kept apart per thread and added up at the
 * end: memberships by address (NULL: none kept), entries left out, the
 * next moment a dated membership starts or ends (0: none). */
struct snap_tally {
	struct snap_memo *memo;
	size_t skipped;
	time_t next_change;
};
struct snap_builder {
	struct snap *s;
	size_t naccounts;	/* room in s->core */
	size_t nmres;		/* room in s->mres */
	struct snap_tally tally;	/* snap_build_add's */
	pthread_mutex_t lock;	/* s->mres and mres_by_cell, while lanes add */
	_Atomic unsigned char *dropped;	/* per core account, while lanes add */
};
int snap_build_start(struct snap_builder *b, const struct cfg *c, const struct snap_input *in,
    size_t naccounts, size_t nmemberships, struct err *e);
int snap_build_add(struct snap_builder *b, const struct snap_in_account *a, struct err *e);
/*
 * Accounts added by several threads at once: lane k takes the next counts[k]
 * accounts' room in s->core, after lane k-1's, and is given its accounts
 * in the order snap_build_add would have been (each lane by one thread,
 * snap_lane_add). Join adds up what they met and closes the gaps that
 * accounts left out (a uid twice) leave; then snap_build_add and finish
 * as before. A uid on two entries keeps the one earlier in that order, as
 * snap_build_add does. On an error join frees the build.
 */
struct snap_lane {
	struct snap_builder *b;
	size_t start, next, end;	/* its room in s->core */
	struct snap_tally tally;
	int failed;
};
int snap_build_lanes(struct snap_builder *b, struct snap_lane *lanes, size_t n,
    const size_t *counts, struct err *e);
int snap_lane_add(struct snap_lane *l, const struct snap_in_account *a);
int snap_build_join(struct snap_builder *b, struct snap_lane *lanes, size_t n, struct err *e);
struct snap *snap_build_finish(struct snap_builder *b, struct err *e);
/*
 * What changed since a snapshot: people and cells as given (new or
 * changed), and the uids and cell names gone.
 */
struct snap_change {
	const struct snap_in_account *set;
	size_t nset;
	const char *const *gone;
	size_t ngone;
	const struct snap_in_cell *cells;
	size_t ncells;
	const char *const *cells_gone;
	size_t ncells_gone;
};

/*
 * The snapshot after old with ch applied, sharing old's core; old stays
 * valid. The people a changed cell covers are re-resolved with it: in the
 * overlay, or when that would pass SNAP_OVER_MAX accounts, in a new
 * struct snap_wide. NULL when the people changed would pass SNAP_OVER_MAX
 * (e->code ERR_CONFLICT: build in full instead) or out of memory.
 */
#define SNAP_OVER_MAX 4096
struct snap *snap_derive(const struct snap *old, const struct snap_change *ch, struct err *e);
/*
 * The values in s of a membership an account holds (a->m[k]): m itself,
 * or what a wide change resolved it to since. NULL only when out of
 * memory resolving it now.
 */
const struct snap_mres *snap_mres_of(const struct snap *s, const struct snap_mres *m);
/* m's index in the full build's s->mres, or -1 when m is the overlay's. */
long snap_mres_idx(const struct snap *s, const struct snap_mres *m);
/* Where the account's privileges answer is cached (answer.c). */
_Atomic(void *) *snap_answer_slot(const struct snap *s, const struct snap_account *a);
/* Let go of one hold on w; the last frees it. */
void snap_wide_put(struct snap_wide *w, const struct snap *s);
/* Builds one cell from in into c: 0, 1 when privd cannot use it (logged),
 * -1 out of memory. */
int snap_build_cell(struct snap *s, const struct snap_in_cell *in, struct snap_cell *c);
void snap_cell_clear(struct snap_cell *c);
void snap_over_cell_put(struct snap_over_cell *o);
/* The cells of s in turn: start with *pos = 0; NULL after the last. */
const struct snap_cell *snap_next_cell(const struct snap *s, size_t *pos);
/* Builds one account of s into a (for snap_build and snap_derive): 0, or -1
 * when out of memory. Each membership's values come from mres(s, cell, arg,
 * &out): 0, -1 out of memory, -2 a cell name privd cannot use. t->memo
 * (NULL: none) remembers them by the address of the membership's string, so
 * the strings of every account built with one memo must stay where they
 * are, unchanged, until it is freed (the full build's, at its end); what
 * is left out and the next dated moment are counted in t, not s. */
typedef int (*snap_mres_fn)(struct snap *s, const char *cell, void *arg,
    const struct snap_mres **out);
int snap_build_account(struct snap *s, const struct snap_in_account *in,
    struct snap_account *a, snap_mres_fn mres, void *arg, struct snap_tally *t);
/* t's counts into s: what a build's accounts met. */
void snap_tally_add(struct snap *s, const struct snap_tally *t);
/* a->m, room for nm memberships, and a->uid, a copy of uid, in one
 * allocation that a->m owns: a million accounts, a million blocks fewer. */
int snap_account_alloc(struct snap_account *a, const char *uid, size_t nm);
/* Frees what one account owns (not a itself). */
void snap_account_clear(struct snap_account *a);
/* A new snapshot's generation, above every one before. */
uint64_t snap_new_gen(void);
/* Let go of one hold on o; the last frees it. */
void snap_over_put(struct snap_over *o);
void snap_over_mres_put(struct snap_over_mres *o, const struct cfg *c);
/* The accounts of s in turn: start with *pos = 0; NULL after the last. */
const struct snap_account *snap_next(const struct snap *s, size_t *pos);
void snap_free(struct snap *s);
/* The key a core account is found under: its uid in lower case. */
const char *snap_account_key(const struct snap_account *a);
/* The key of core account i of snapshot s: account_by_uid's uidx_key_fn. */
const char *snap_core_key(const void *s, uint32_t i);
/* The full build's account under key (snap_fold_uid's), overlay or not. */
const struct snap_account *snap_core_account(const struct snap *s, const char *key);
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
/* a's index in s->core (the full build's array), UINT32_MAX when a is an
 * account of the overlay */
static inline uint32_t
snap_core_index(const struct snap *s, const struct snap_account *a)
{
	return a >= s->core && a < s->core + s->ncore ? (uint32_t)(a - s->core) : UINT32_MAX;
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

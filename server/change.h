/*
 * change.h - a change to the model (an import, an edit, a node delete or
 * move) as the states the objects it touches are to reach, written to LDAP
 * one entry at a time, never in an RFC 5805 transaction (slapd 2.5.13
 * crashes on those under privd's load).
 *
 * A change of more than one object is recorded first, under
 * ou=imports,BASE: who, what, a digest, and each object's state before and
 * after. While the record is open every privd answers from the model as it
 * was before (the follower lays the "before" states over what it reads),
 * so readers see all of a change or none of it. Running the same change
 * again finishes an interrupted one; aborting it writes the "before"
 * states back.
 */
#ifndef PRIVD_CHANGE_H
#define PRIVD_CHANGE_H

#include <stddef.h>

#include <ldap.h>

#include "config.h"
#include "dirview.h"
#include "err.h"

/* Object kinds, the first letter of an encoded state. */
#define CHG_REASON	'r'	/* a reason node (key: path) */
#define CHG_ORG		'o'	/* an organisation node (key: path) */
#define CHG_CELL	'c'	/* a cell (key: name; vals: its grants) */
#define CHG_ACCOUNT	'a'	/* present: followed, vals its cells; absent: not followed */
#define CHG_PERSON	'p'	/* absent only: the person entry does not exist */

struct chg_obj {
	char kind;
	int present;
	char *key;
	char **vals;
	size_t nvals;
};

struct chg_list {
	struct chg_obj *v;
	size_t n, cap;
};

/* Appends a copy of the state; -1 when out of memory. */
int chg_put(struct chg_list *l, char kind, int present, const char *key,
    char *const *vals, size_t nvals);
void chg_list_free(struct chg_list *l);
void chg_obj_free(struct chg_obj *o);
/* "c+NAME\tGRANT\tGRANT": the form kept in the record; malloc'd. */
char *chg_encode(const struct chg_obj *o);
/* The reverse into o (free with chg_obj_free); -1 when malformed. */
int chg_decode(const char *s, size_t len, struct chg_obj *o);

struct chg_req {
	const char *what;	/* "import", "grant", "node delete", ... */
	const char *actor;	/* the key's name or the administrator's uid */
	const char *body;	/* the request, digested with what: the same */
	size_t len;		/* request again resumes an open record */
};

#define CHG_ID_MAX 48
#define CHG_CSN_MAX 64

struct chg_result {
	char id[CHG_ID_MAX];	/* the record, "" when none was needed */
	int resumed;		/* an open record of the same change was finished */
	size_t writes;
	/* entryCSN of the last write in each sync stream, for sync_wait_csn */
	char csn_privileges[CHG_CSN_MAX];
	char csn_people[CHG_CSN_MAX];
};

struct chg_record {
	char id[CHG_ID_MAX];
	char state[16];		/* planning, open, closed, aborted */
	char what[64];
	char actor[128];
	long started;		/* unix time */
	char digest[65];
};

/*
 * Makes the directory hold after's states. before holds the same objects'
 * states now (what an abort writes back). Refuses (ERR_CONFLICT) while
 * another change is open, unless it is this very change (same digest):
 * then it finishes that one from its record. On ld, bound as the caller.
 * view: what the caller read of the directory to make after (dirview.h),
 * planned from as it is, so an import reads each subtree once; NULL: read
 * here.
 */
int chg_run(LDAP *ld, const struct cfg *c, const struct chg_req *rq,
    const struct chg_list *before, const struct chg_list *after, struct dview *view,
    struct chg_result *res, struct err *e);
/* Writes an open record's "before" states back and closes it as aborted. */
int chg_abort(LDAP *ld, const struct cfg *c, const char *id,
    struct chg_result *res, struct err *e);
/* The records, newest first; free *out. */
int chg_records(LDAP *ld, const struct cfg *c, struct chg_record **out,
    size_t *n, struct err *e);

/* Makes every running change stop before its next write (SIGTERM). */
void chg_stop(void);

#endif

/*
 * chgstate.h - the states a change brings objects to: a node, a cell and
 * its grants, an account and its cells, a printer and its rate card, as privd plans them and keeps
 * them in a change's record (change.h).
 */
#ifndef PRIVD_CHGSTATE_H
#define PRIVD_CHGSTATE_H

#include <stddef.h>

/* Object kinds, the first letter of an encoded state. */
#define CHG_REASON	'r'	/* a reason node (key: path) */
#define CHG_ORG		'o'	/* an organisation node (key: path) */
#define CHG_CELL	'c'	/* a cell (key: name; vals: its grants) */
#define CHG_ACCOUNT	'a'	/* present: followed, vals its cells; absent: not followed */
#define CHG_PERSON	'p'	/* absent only: the person entry does not exist */
#define CHG_PRINTER	'q'	/* a printer's rate card (key: name; vals: privRate) */

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

#endif

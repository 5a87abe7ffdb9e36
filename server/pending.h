/*
 * pending.h - the follower's view of recorded changes (change.c): which one
 * is open, and the states its objects had before it, laid over the mirror
 * so that readers keep the model as it was until the change closes.
 * Used by the sync thread only, except pending_status.
 */
#ifndef PRIVD_PENDING_H
#define PRIVD_PENDING_H

#include <stddef.h>

#include <ldap.h>

#include "change.h"
#include "config.h"
#include "strmap.h"

int pending_init(const struct cfg *c);
void pending_clear(void);
void pending_free(void);

/* Whether dn is a record or a record's part (under ou=imports). */
int pending_is(const char *dn);
/* A record or part went by in the privileges stream. */
void pending_put(LDAP *ld, LDAPMessage *msg, const char *uuid, const char *dn);
void pending_forget(const char *uuid);

/*
 * Whether the snapshot must stay as it is: a change is open, or one closed
 * whose last people write (its privImportCSN) the people stream, at
 * people_csn, has not delivered yet.
 */
int pending_holding(const char *people_csn);
/* Reports (once each) changes open longer than imports.stale_after. */
void pending_audit(void);

/* The "before" states of the open changes, by kind and key. */
struct pending_ov {
	struct strmap map;	/* "k\x1fkey" -> struct chg_obj * */
	char **keys;
	size_t nkeys;
	unsigned char *used;	/* per key, set by pending_ov_get */
	const struct chg_obj **objs;
};

int pending_overlay(struct pending_ov *ov);
/* The state before the open change of (kind, key), or NULL when it did not touch it. */
const struct chg_obj *pending_ov_get(struct pending_ov *ov, char kind, const char *key);
/* The i-th state not asked for, or NULL past the end (objects the change deleted). */
const struct chg_obj *pending_ov_unused(const struct pending_ov *ov, size_t i);
size_t pending_ov_len(const struct pending_ov *ov);
void pending_ov_free(struct pending_ov *ov);

struct pending_status {
	int open;		/* a change is open (or closing) */
	char id[CHG_ID_MAX];
	char what[64];
	char actor[128];
	long started;
	int stale;		/* open longer than imports.stale_after */
};

/* For /readyz and /metrics: the open change, if any (thread-safe). */
void pending_status(struct pending_status *out);

#endif

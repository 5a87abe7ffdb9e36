/* wop.h - one atomic LDAP modify of one entry, with an optional assertion
 * and an optional read of the entry as the modify left it. */
#ifndef PRIVD_WOP_H
#define PRIVD_WOP_H

#include <ldap.h>

#include "err.h"

#define WOP_MODS 8
#define WOP_READ 8

/*
 * A modify of dn (borrowed); owns its values, assertion and what it read.
 * read (borrowed, NULL-terminated, at most WOP_READ names) asks slapd for
 * those attributes of the entry as the modify left it, in the modify's
 * answer (RFC 4527 post-read): then got[i] is the first value of read[i]
 * (NULL when the entry has none) and have_got is 1. A directory that does
 * not answer the control leaves have_got 0: read the entry instead.
 */
struct wop {
	const char *dn;
	char *assert;		/* an LDAP filter the entry must match, or NULL */
	int nmod;
	LDAPMod mod[WOP_MODS];
	char *val[WOP_MODS][2];
	LDAPMod *mods[WOP_MODS + 1];
	char **read;
	char *got[WOP_READ];
	int have_got;
	double sent, answered;	/* skew_clock() around the modify (skew.h) */
};

/* Adds a modification of type (op LDAP_MOD_*) with one formatted value; -1 when full. */
int wop_mod(struct wop *o, int op, const char *type, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/*
 * Moves counter type from old to new: a delete of the old value and an add
 * of the new one. A counter only ever changes so, never by an increment:
 * delta-syncrepl may deliver a provider's own modify back to it after a
 * crash, and an increment applied twice counts twice where this finds its
 * old value gone and changes nothing. The modify fails with
 * LDAP_NO_SUCH_ATTRIBUTE when the counter is no longer old. -1 when full.
 */
int wop_swap(struct wop *o, const char *type, long long old, long long new);
/* Moves a state value of dn's attr from old to new in one modify: the
 * delete of old fails (LDAP_NO_SUCH_ATTRIBUTE) when another writer
 * changed it since it was read. The LDAP result code. */
int wop_swap_value(LDAP *ld, const char *dn, const char *attr, const char *old,
    const char *new);
/* Sends the modify: the LDAP result code. */
int wop_run(LDAP *ld, struct wop *o);
/*
 * A write that got no answer may have landed at ld's provider and, when
 * that provider died between its commit and its accesslog, never reach
 * the others. wop_run tells the function set here (mend.h, set once at
 * start) of each; so does wop_doubt, for writes sent otherwise (adds).
 */
void wop_on_doubt(void (*fn)(LDAP *ld, const char *dn));
void wop_doubt(LDAP *ld, const char *dn, int rc);
/* The first value of attribute type as the modify left it (type one of
 * o->read), or NULL. */
const char *wop_got(const struct wop *o, const char *type);
/* Frees the values and what was read; o can be reused. */
void wop_free(struct wop *o);

/*
 * The optimistic write loop of privd's counters and sessions: read, build
 * one modify under an assertion, send it; when another writer got there
 * first, read again. Written once as
 *
 *	for (wop_try_init(&t, "charge"); wop_try(&t, e);) { ... continue; ... }
 *
 * it makes at most WOP_TRIES attempts; after the last, e says that what
 * gave up (ERR_UNAVAILABLE) and the loop ends.
 */
#define WOP_TRIES 16

struct wop_try {
	int n;			/* attempts made */
	const char *what;	/* for the error: "charge", "open session", ... */
};

void wop_try_init(struct wop_try *t, const char *what);
/* 1: make another attempt; 0: the last one was made, e filled. */
int wop_try(struct wop_try *t, struct err *e);

#endif

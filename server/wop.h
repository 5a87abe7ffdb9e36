/* wop.h - one atomic LDAP modify of one entry, with an optional assertion. */
#ifndef PRIVD_WOP_H
#define PRIVD_WOP_H

#include <ldap.h>

#include "err.h"

#define WOP_MODS 8

/* A modify of dn (borrowed); owns its values and assertion. */
struct wop {
	const char *dn;
	char *assert;		/* an LDAP filter the entry must match, or NULL */
	int nmod;
	LDAPMod mod[WOP_MODS];
	char *val[WOP_MODS][2];
	LDAPMod *mods[WOP_MODS + 1];
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
/* Sends the modify: the LDAP result code. */
int wop_run(LDAP *ld, struct wop *o);
/* Frees the values; o can be reused. */
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

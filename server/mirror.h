/* mirror.h - the follower's copy of the model entries, and the snapshot built from it. */
#ifndef PRIVD_MIRROR_H
#define PRIVD_MIRROR_H

#include <ldap.h>

#include "config.h"

int mirror_init(const struct cfg *c);
/* Forgets every entry and what mirror_init allocated. */
void mirror_free(void);
/*
 * Keeps what an entry of the privilege subtree (people = 0) or the people
 * says, under its entryUUID (the sync state control's bytes); an entry that
 * is no node, cell or person privd follows is forgotten instead. 0 when the
 * mirror holds the same as before (a change of an attribute privd does not
 * follow, such as the entitlements it publishes), else 1. A person's
 * entryCSN, met on the way, goes to csn (ncsn bytes); csn is "" when it was
 * not met (the follower then reads it itself).
 */
int mirror_entry(LDAP *ld, LDAPMessage *msg, int people, const struct berval *uuid,
    char *csn, size_t ncsn);
void mirror_forget(const struct berval *uuid);
/* Forgets every entry (a new session refreshes them all). */
void mirror_clear(void);
/* Builds a snapshot of the mirror and the open change's before-states and
 * publishes it; -1 when out of memory. */
int mirror_publish(void);
/* Seconds the last snapshot took to build or derive. */
double mirror_build_seconds(void);
/* Snapshots built in full, and derived from the one before for a few
 * people's changes (snapderive.c), since privd started. */
void mirror_builds(long *full, long *derived);

#endif

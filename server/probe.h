/* probe.h - what a provider is and what it has seen, learned by writing to it. */
#ifndef PRIVD_PROBE_H
#define PRIVD_PROBE_H

#include <ldap.h>

#include "config.h"
#include "err.h"

#define PROBE_NONCE 33

/*
 * A probe is an entry cn=NONCE under cn=providers in privd's base, added
 * at one provider. Its entryCSN carries that provider's server id: what a
 * provider is, whatever host name a list gives it. And another provider
 * that shows the entry has everything the first one took before it:
 * unlike a contextCSN, which a SIGKILLed slapd may bring back older than
 * the writes it holds, the entry is there or not.
 */
/* The server id in a CSN ("TIME#COUNT#SID#MOD"), or -1. */
int probe_csn_sid(const char *csn);
/* Adds a probe over ld: 0 with nonce and *sid, -1 and e. */
int probe_add(LDAP *ld, const struct cfg *c, char nonce[PROBE_NONCE], int *sid,
    struct err *e);
/* Whether ld's provider shows probe nonce: 1, 0, -1 and e. */
int probe_seen(LDAP *ld, const struct cfg *c, const char *nonce, struct err *e);
/* Measures this privd's clock against ld's provider (skew.h) with a probe
 * added and deleted: 0, or -1 and e. */
int probe_clock(LDAP *ld, const struct cfg *c, struct err *e);
/* Deletes probe nonce (when it fails, the entry is left: it is harmless). */
void probe_drop(LDAP *ld, const struct cfg *c, const char *nonce);

#endif

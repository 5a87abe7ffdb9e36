/* probe.h - what a provider is and what it has seen, learned by writing to it. */
#ifndef PRIVD_PROBE_H
#define PRIVD_PROBE_H

#include <ldap.h>

#include "config.h"
#include "err.h"

#define PROBE_NONCE 33

/*
 * Each privd owns one entry per provider under cn=providers in its base,
 * "cn=HOST:PORT at URI", written only at that provider. A write there
 * carries the provider's server id in its entryCSN: that is what a
 * provider is, whatever host name a list gives it. And a provider that
 * shows the nonce last written at another one has everything that other
 * one took before it: unlike a contextCSN, which a SIGKILLed slapd may
 * bring back older than the writes it holds, the nonce is there or not.
 */
/* Writes a fresh nonce at uri's entry over ld (a connection to uri):
 * 0 with *sid and nonce, -1 and e. */
int probe_write(LDAP *ld, const struct cfg *c, const char *uri, int *sid,
    char nonce[PROBE_NONCE], struct err *e);
/* Whether ld's provider shows nonce at uri's entry: 1, 0, -1 and e. */
int probe_seen(LDAP *ld, const struct cfg *c, const char *uri, const char *nonce,
    struct err *e);

#endif

/* ldpool.h - pools of bound LDAP connections for writes, one per provider. */
#ifndef PRIVD_LDPOOL_H
#define PRIVD_LDPOOL_H

#include <stddef.h>
#include <stdio.h>

#include <ldap.h>

#include "config.h"
#include "err.h"


/* Sizes the pools, one per URI of ldap.write_uri (or ldap.uri);
 * connections are opened on first use. */
int ldpool_init(const struct cfg *c, int size);
void ldpool_free(void);

/*
 * Takes an idle connection to the home provider of key (an account or
 * pool: a stable hash picks one of the providers, counted in server id
 * order), opening it when needed. So two privd send one account's charges
 * to the same provider, whose assertions then bound its quota. While that
 * provider is down or catching up: ERR_UNAVAILABLE, or with
 * ldap.away_allowance the next one that answers. key NULL: the first
 * provider that answers. Waits for a
 * connection at most the LDAP timeout; ERR_UNAVAILABLE when no provider
 * can be reached.
 */
int ldpool_get_home(const char *key, LDAP **ld, struct err *e);
/* As ldpool_get_home, never away from home: every write of key but a
 * charge or hold (refunds, settles, credits, top-ups, voucher claims,
 * sessions), whose swaps two providers must not take at once. */
int ldpool_get_at_home(const char *key, LDAP **ld, struct err *e);
/*
 * With several providers: learns each one's server id (probe.h) and
 * counts homes in their order, so every privd agrees whatever names or
 * order its list gives. A provider that does not answer is learned when
 * it does; until all are known, account writes wait. -1 and e when two
 * names in the list are one provider.
 */
int ldpool_start(struct err *e);
/* Prints that order (--check-config); -1 when it is not known yet. */
int ldpool_describe(FILE *out);
int ldpool_get(LDAP **ld, struct err *e);
/* Whether ld (handed out by this pool) goes to key's home provider: false
 * while writes of key fail over to another one. */
int ldpool_is_home(LDAP *ld, const char *key);
/* The provider ld (handed out by this pool) goes to (as ldpool_provider), or -1. */
int ldpool_provider_of(LDAP *ld);
/* Gives ld back; broken: it failed at the connection level, close it. */
void ldpool_put(LDAP *ld, int broken);

/* For /metrics: how many providers, and for provider i its URI, the
 * connections handed out to it and whether it is marked down now. */
size_t ldpool_providers(void);
void ldpool_provider(size_t i, const char **uri, unsigned long long *taken, int *down);

/* Splits a list of URIs (libldap's form: spaces or commas) in place into
 * uris, at most CFG_PROVIDERS_MAX; how many. */
size_t ldpool_split(char *list, const char **uris);
/* uri as every privd should name a provider (lower case, port written
 * out, no path) into out. */
void ldpool_canonical(const char *uri, char *out, size_t n);
/* order[0..n-1]: the indexes of uris in canonical order. */
void ldpool_order(size_t n, const char *const *uris, size_t *order);

#endif

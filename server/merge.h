/* merge.h - the ledgers of several providers made one again after an outage in allow mode. */
#ifndef PRIVD_MERGE_H
#define PRIVD_MERGE_H

#include <stddef.h>
#include <stdio.h>

#include "config.h"
#include "err.h"

/*
 * In allow mode (ldap.away_allowance above 0) two providers may take
 * charges of one usage entry at once, each a modify of the same
 * attributes; after the outage delta-syncrepl drops the older of two such
 * modifies at the provider that holds the newer one, and with it ledger
 * values that one never gets. privd --check-ledger --repair, with several
 * providers in ldap.write_uri, first adds to each usage entry at each
 * provider the ledger entries and request ids another provider holds and
 * it lacks (values that only ever come, so their union is the truth),
 * then sets counters to ledgers. Each addition is written on out; entries
 * one provider lacks altogether, or whose segments differ, are named and
 * left. The faults (so named), or -1 and e.
 */
int merge_ledgers(const struct cfg *c, const char *const *uris, size_t n, FILE *out,
    struct err *e);

#endif

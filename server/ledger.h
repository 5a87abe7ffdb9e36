/* ledger.h - reading and verifying the ledger entries under each usage entry. */
#ifndef PRIVD_LEDGER_H
#define PRIVD_LEDGER_H

#include <stdio.h>
#include <time.h>

#include <ldap.h>

#include "config.h"
#include "err.h"
#include "lentry.h"
#include "strmap.h"

/*
 * A page of the ledger of usage_dn: entries [offset, offset + limit) of the
 * window (newest first), followed by each segment's (archive.h), newest
 * segment first. Reads only the segments the page reaches into; *total
 * counts every entry. None when the usage entry does not exist.
 */
int ledger_page(LDAP *ld, const struct cfg *c, const char *usage_dn, size_t offset,
    size_t limit, struct lentry **out, size_t *n, size_t *total, struct err *e);

/*
 * Checks every usage entry against its ledger (window and segments): used,
 * held and credit equal the sums of their entries, no charge is refunded
 * beyond its amount, each hold is open or settled once. Usage entries come
 * in pages (RFC 2696) over ld and their segments one by one over seg_ld, so
 * memory holds one usage entry's sums at a time. Writes a line per fault
 * and a summary to out; the number of faults, or -1. With repair_ld, a
 * usage entry whose counters differ from its ledger has them set to the
 * ledger's sums there, in one modify asserting they are still as read.
 */
int ledger_check(LDAP *ld, LDAP *seg_ld, LDAP *repair_ld, const struct cfg *c, FILE *out,
    struct strmap *digests, struct err *e);

/*
 * digests (when not NULL, an initialised strmap) gets, per usage entry
 * ("uid/name"), what this directory holds of it: its counters and its
 * ledger entries (their number and an order-free hash). Two providers'
 * digests compared name every entry one lacks or holds otherwise; the
 * number of differences. ledger_digests_free frees keys and values.
 */
int ledger_compare(const char *an, struct strmap *a, const char *bn, struct strmap *b,
    FILE *out);
void ledger_digests_free(struct strmap *m);

/* GeneralizedTime with microseconds ("20261203063530.123456Z") of t plus
 * the current microsecond, and its RFC 3339 form. */

/*
 * ledger.titles on a charge's or hold's metadata (JSON object text, or
 * NULL; replaced in place): the "title" kept, hashed ("sha256:" and 16 hex
 * digits) or dropped. 0, or -1 out of memory.
 */
int ledger_titles(const struct cfg *c, char **meta);

#endif

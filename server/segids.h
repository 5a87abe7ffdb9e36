/* segids.h - the request ids of usage entries' committed ledger segments, remembered. */
#ifndef PRIVD_SEGIDS_H
#define PRIVD_SEGIDS_H

#include <ldap.h>

#include "config.h"

#define SEGIDS_UUID 40		/* an entryUUID as text, with room to spare */
/* the ids remembered in all, as fingerprints (idset.h): 10-22 MB; a usage
 * entry with more is asked about as before */
#define SEGIDS_BUDGET 2000000

/*
 * Whether request id sits in one of the first nseg committed segments of
 * the usage entry udn (archive.h), asking the directory (ld) only for the
 * segments not seen before: a busy account's charge then makes one round
 * trip, not two. 0: it is in none of the segments of the entry whose
 * entryUUID is now in uuid; the write must assert that entryUUID beside
 * privSegments = nseg, since an entry deleted and made again has other
 * segments under the same name. 2: it may be in one (a replay, or an id
 * with the same fingerprint), or nothing remembered would be trusted (too
 * many ids, or the directory shows fewer committed segments than nseg, or
 * it could not be read); ask the directory as before, which also says
 * what went wrong if something did.
 */
int segids_check(LDAP *ld, const struct cfg *c, const char *udn, long long nseg,
    const char *id, char uuid[SEGIDS_UUID]);
/*
 * After a write asserting uuid failed with the counters as they were:
 * whether the entry udn is no longer the one with that entryUUID (made
 * again, gone, or unreadable), what was remembered of it then forgotten:
 * 1, and the write is tried again; 0, the assertion failed for the limit.
 */
int segids_gone(LDAP *ld, const struct cfg *c, const char *udn, const char *uuid);
/* Forgets udn's. */
void segids_forget(const char *udn);
/* Forgets everything. */
void segids_clear(void);
/* Usage entries and ids remembered now (/metrics, tests). */
void segids_size(size_t *entries, size_t *ids);

#endif

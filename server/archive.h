/* archive.h - settled ledger entries moved out of a usage entry into segments below it. */
#ifndef PRIVD_ARCHIVE_H
#define PRIVD_ARCHIVE_H

#include <ldap.h>

#include "config.h"
#include "err.h"

/*
 * A usage entry keeps its counters, its open holds and a window of recent
 * ledger entries with their request ids. When the window passes ARCH_HIGH
 * entries, the oldest settled ones move into a segment entry
 * "cn=K,USAGE-DN" (K = 1, 2, ...): first the segment is added, then one
 * modify of the usage entry deletes the moved values and sets privSegments
 * to K under the assertion privSegments = K-1. So every entry sits in the
 * window, a segment, or both, at every moment; a segment numbered above
 * privSegments is a move that has not committed (its entries are still in
 * the window) and the next move adopts it as it is.
 *
 * Writes that add a request id assert privSegments too, after looking the
 * id up in the segments: a move that commits between the look-up and the
 * write makes the write fail and look again, so an id that moved out can
 * never be added a second time. A committed segment never changes, so a
 * charge may look the id up in what it read of them before (segids.h),
 * asserting the usage entry's entryUUID with privSegments.
 */
#define ARCH_HIGH	96	/* window entries that make a move worth it */
#define ARCH_KEEP	16	/* newest entries a move leaves in the window */
#define ARCH_EVERY	32	/* writes between looks at a window */

/* The number K of a segment's DN "cn=K,...", or -1 when dn names none. */
long long arch_number(const char *dn);
/* The assertion that privSegments is n (absent counts as 0); malloc'd. */
char *arch_assert(long long n);

/*
 * Whether request id sits in a committed segment (number <= nseg) of the
 * usage entry udn: 1 (and the segments' ledger entries appended to *vals, a
 * strv the caller frees), 0 not, -1 and e.
 */
int arch_load(LDAP *ld, const struct cfg *c, const char *udn, long long nseg,
    const char *id, char ***vals, struct err *e);

/* Counts a write to udn; 1 when this one should look at the window (every
 * ARCH_EVERY writes, spread by a hash of udn). */
int arch_due(const char *udn);

/*
 * Moves the oldest settled entries of udn's window into the next segment,
 * when the window holds more than high entries. The number moved (0 when
 * nothing was due or another privd moved first), or -1 and e.
 */
int arch_move(LDAP *ld, const struct cfg *c, const char *udn, int high, struct err *e);

/*
 * What a move takes of a window (ledger entries and open holds as stored):
 * all but the newest ARCH_KEEP entries, less the holds still open (their
 * settling reads them). A strv of the values, empty when nothing; NULL
 * when out of memory.
 */
char **arch_choose(char *const *entries, char *const *holds);

/* A committed segment: its number and how many entries it holds. */
struct arch_seg {
	long long k;
	long long count;
};

/* The committed segments of udn (numbers <= nseg), newest first; *out
 * malloc'd. */
int arch_segments(LDAP *ld, const struct cfg *c, const char *udn, long long nseg,
    struct arch_seg **out, size_t *n, struct err *e);

/* The segments of udn numbered above nseg: moves that have not committed,
 * whose entries must all still be in the window; *out malloc'd. */
int arch_uncommitted(LDAP *ld, const struct cfg *c, const char *udn, long long nseg,
    struct arch_seg **out, size_t *n, struct err *e);

/* Appends the ledger entries (JSON) of segment k of udn to *vals (a strv
 * the caller frees): 0, 1 when there is no such segment, -1 and e. */
int arch_read(LDAP *ld, const struct cfg *c, const char *udn, long long k,
    char ***vals, struct err *e);

/* The DN of segment k of udn; malloc'd. */
char *arch_dn(const char *udn, long long k);

/* Whether dn is a segment: 0 with the usage entry's DN (malloc'd) in
 * *udn, -1 otherwise. */
int arch_parent(const char *dn, char **udn);

#endif

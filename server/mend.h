/* mend.h - copying to the other providers a write that one of them never logged. */
#ifndef PRIVD_MEND_H
#define PRIVD_MEND_H

#include "config.h"

/*
 * A provider SIGKILLed between committing a write and logging it in its
 * accesslog holds the write, and its peers never receive it: delta-
 * syncrepl sends only what is logged. The client saw no answer, so it
 * asks again with the same request id, and privd answers from the home
 * provider's ledger (a replay). Each such replay is noted here; a thread
 * then waits until every other provider has caught up with the home one
 * (a probe, probe.h), compares the usage entry, and writes what a peer
 * lacks (its ledger values, and its counters set from what they were to
 * the home's) at that peer, as one asserted modify. A peer without the
 * entry at all is made to fetch it whole from home (touch, in mend.c).
 */
int mend_start(const struct cfg *c);
void mend_stop(void);
/* Notes usage entry dn of account uid for a look (a bounded queue:
 * when it is full the note is dropped, and --check-ledger still finds
 * what differs). */
void mend_note(const char *uid, const char *dn);

#endif

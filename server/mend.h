/* mend.h - copying to the other providers a write that one of them never logged. */
#ifndef PRIVD_MEND_H
#define PRIVD_MEND_H

#include <ldap.h>

#include "config.h"

/*
 * A provider SIGKILLed between committing a write and logging it in its
 * accesslog holds the write, and its peers never receive it: delta-
 * syncrepl sends only what is logged. Such a write is one whose answer
 * privd never got (wop.h tells this file of each, for every verb), or one
 * a client sent again and privd found done at home (a replay, noted
 * here). Either way a thread looks at the entry once the provider that
 * took the write is back, with no client needed: it waits until that
 * provider and each peer have caught up with each other (probes,
 * probe.h), reads the entry twice around them, and when nothing was in
 * flight makes the peer hold the entry as the provider that took the
 * write does (values it lacks or holds alone, counters set by swap), as
 * one modify. A peer without the entry at all is made to fetch it whole
 * (touch, in mend.c). A write with no answer is looked at twice: it may
 * land after the first look.
 */
int mend_start(const struct cfg *c);
void mend_stop(void);
/* Notes entry dn as ld's provider (handed out by ldpool.h) holds it, for
 * a look (a bounded queue: when it is full the note is dropped, and
 * --check-ledger still finds what differs). */
void mend_note(LDAP *ld, const char *dn);

#endif

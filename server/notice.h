/*
 * notice.h - email to people whose balance runs low and to administrators
 * (a weekly digest of memberships that end soon), sent once per crossing
 * however many privd run and however often they restart.
 *
 * A notice is claimed before it is sent: an entry
 * cn=KEY,ou=notices,ou=usage,BASE (class privNotice) added by one privd,
 * where KEY names what crossed ("low|jdoe|print.balance@2026T3|20%", a
 * pool's "pool|CELL|QUOTA@PERIOD|T", "digest/2026-W49"); an add of an entry that exists fails, so one privd
 * wins. Its privNoticeState then says "claimed HOST UNTIL" while that privd
 * sends it, and "sent TIME" after. A claim whose sender died (or whose
 * mail server refused) is taken over after UNTIL by whichever privd swaps
 * the state first (an asserted modify), and sent: never lost. The window
 * that remains is between the mail server taking the message and the
 * state saying so; each message carries a Message-ID made from its key,
 * so a mail system can tell a repeat from that window.
 */
#ifndef PRIVD_NOTICE_H
#define PRIVD_NOTICE_H

#include "config.h"

/* The thread that sends claimed notices, takes over stale claims and
 * makes the weekly digest; nothing when notify is off. */
int notice_start(const struct cfg *c);
void notice_stop(void);

/*
 * Which of pv's thresholds are crossed when remaining is left of an
 * allowance of allowance (N% of it, or N): the index of the lowest (the
 * one to tell), or -1; *all gets a bit per threshold crossed.
 */
int notice_due(const struct cfg_priv *pv, long long allowance, long long remaining,
    unsigned *all);

/*
 * After a charge or hold on holder's quota landed (an account, or a pool
 * "pool:CELL", whose contacts are told), remaining being left in all
 * (both wallets) of an allowance of allowance in period: claims the
 * thresholds now crossed that were not claimed before, and hands the
 * lowest to the sender. Never fails the write: a claim that cannot be
 * made is logged, and made by the next write that finds it due.
 */
void notice_after(const struct cfg *c, const char *holder, const char *quota,
    const char *period, long long allowance, long long remaining);

#endif

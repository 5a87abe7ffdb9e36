/*
 * loginrate.h - how often people may sign in: failures per client address,
 * and budgets per address and for everyone together that every sign-in
 * spends, and per account that each successful one spends, so that no one
 * person or address can spend the sign-ins of the rest.
 */
#ifndef PRIVD_LOGINRATE_H
#define PRIVD_LOGINRATE_H

#include <stddef.h>

#define LOGINRATE_FAILS 10	/* failures per address and minute */
#define LOGINRATE_ADDR_PER_S 2.0	/* sign-ins per address and second ... */
#define LOGINRATE_ADDR_BURST 20	/* ... after a burst of this many */
#define LOGINRATE_UID_PER_S 0.5	/* sign-ins per account and second ... */
#define LOGINRATE_UID_BURST 6	/* ... after a burst of this many */
#define LOGINRATE_ALL_PER_S 20.0	/* sign-ins a second from everyone together */
#define LOGINRATE_ALL_BURST 40

/* Whether addr may try a secret now (fewer than LOGINRATE_FAILS failures). */
int loginrate_allowed(const char *addr);
/* One more failure from addr. */
void loginrate_failed(const char *addr);
/*
 * Before a sign-in as uid from addr: spends one of addr's and everyone's
 * budgets and 0, or -1 with why (n bytes) naming the budget that is spent
 * (uid's among them), nothing taken.
 */
int loginrate_take(const char *addr, const char *uid, char *why, size_t n);
/* After a sign-in as uid succeeded: spends one of uid's budget. Failures
 * do not, so nobody can spend another person's budget by guessing. */
void loginrate_signed_in(const char *uid);

#endif

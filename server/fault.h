/*
 * fault.h - named points where a test makes privd fail as a machine room
 * does: PRIVD_FAULT=NAME:kill SIGKILLs privd there, NAME:pause sleeps 3 s
 * there (while the test stops slapd), NAME:hang stops that thread for
 * good (the watchdog's test), NAME:lose=TEXT makes the first write there
 * whose entry's DN holds TEXT land and its answer be lost, as when the
 * provider dies before answering. Unset, a point costs one compare.
 * For the integration tests of guarantees that hold across a crash (a
 * split charge's two writes, wallet.h); never set it in production.
 */
#ifndef PRIVD_FAULT_H
#define PRIVD_FAULT_H

/* Reads PRIVD_FAULT once, at start. */
void fault_init(void);
/* Fails here when PRIVD_FAULT names this point. */
void fault_point(const char *name);
/* 1 once, when PRIVD_FAULT is NAME:lose=TEXT and dn holds TEXT; else 0. */
int fault_lose(const char *name, const char *dn);

#endif

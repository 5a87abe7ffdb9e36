/*
 * fault.h - named points where a test makes privd fail as a machine room
 * does: PRIVD_FAULT=NAME:kill SIGKILLs privd there, NAME:pause sleeps 3 s
 * there (while the test stops slapd), NAME:hang stops that thread for
 * good (the watchdog's test). Unset, a point costs one compare.
 * For the integration tests of guarantees that hold across a crash (a
 * split charge's two writes, wallet.h); never set it in production.
 */
#ifndef PRIVD_FAULT_H
#define PRIVD_FAULT_H

/* Reads PRIVD_FAULT once, at start. */
void fault_init(void);
/* Fails here when PRIVD_FAULT names this point. */
void fault_point(const char *name);

#endif

/* sync.h - following the directory with an RFC 4533 refreshAndPersist search. */
#ifndef PRIVD_SYNC_H
#define PRIVD_SYNC_H

#include <stdint.h>

#include "config.h"

enum sync_state {
	SYNC_STARTING,		/* no snapshot yet */
	SYNC_LIVE,		/* following the directory */
	SYNC_STALE		/* connection lost; answering from the last snapshot */
};

/* Starts the follower thread; it publishes snapshots with snap_publish. */
int sync_start(const struct cfg *c);
/* Stops and joins it. */
void sync_stop(void);

enum sync_state sync_state(void);
uint64_t sync_reconnects(void);
/* The last connection problem, for /readyz ("" when none). */
void sync_last_error(char *out, size_t n);
/*
 * Read-your-writes: waits until the published snapshot holds everything up
 * to these CSNs (entryCSN of what a write changed, "" or NULL: nothing in
 * that stream). -1 when timeout_ms passed first.
 */
int sync_wait_csn(const char *privileges_csn, const char *people_csn, int timeout_ms);
/*
 * Waits until ready(arg) is true, asking it again each time the follower
 * publishes a snapshot; -1 when timeout_ms passed first. ready runs under
 * the follower's publication lock: it must be quick and must not wait.
 */
int sync_wait(int (*ready)(void *), void *arg, int timeout_ms);
/* When the follower's loop last turned (CLOCK_MONOTONIC, ms): the
 * watchdog's sign that it is not wedged (service.c). */
long sync_beat_ms(void);
/* Asks for a new snapshot from what the follower holds (a reload's terms). */
void sync_rebuild(void);
/* Whether the follower gave up on a permanent error before the first
 * snapshot (it then sent privd SIGTERM): main exits with 1. */
int sync_fatal(void);
/* What the usage stream has carried: bytes of DNs, names and values, and entries. */
void sync_usage_traffic(unsigned long long *bytes, unsigned long long *entries);

#endif

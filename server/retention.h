/*
 * retention.h - ledger.retention: the ledgers of usage periods older than
 * the newest N (job titles, times, who printed what) are removed, while
 * their counters stay, so that a site keeps no more history than it needs.
 */
#ifndef PRIVD_RETENTION_H
#define PRIVD_RETENTION_H

#include <stdio.h>
#include <time.h>

#include "config.h"
#include "err.h"

/* Whether a usage entry named name ("print.pages@2026T3") at moment now is
 * of a period older than the ledger.retention newest (0 when retention is
 * off, the privilege unknown or its period never ends). */
int retention_old(const struct cfg *c, const char *name, time_t now);

/* Removes the ledgers (privEntry and the segments below) of every old usage
 * entry on the (first) write provider, saying each on out when not NULL;
 * how many, or -1 with e. */
long retention_purge(const struct cfg *c, time_t now, FILE *out, struct err *e);

/* A thread that purges at start and once a day while retention is on. */
int retention_start(const struct cfg *c);
void retention_stop(void);

#endif

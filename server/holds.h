/* holds.h - the thread that releases holds whose TTL has passed. */
#ifndef PRIVD_HOLDS_H
#define PRIVD_HOLDS_H

#include "config.h"

/* Every second, releases expired holds (recorded in the ledger as
 * "expire"). Holds live in LDAP, so a restart loses none. */
int holds_start(const struct cfg *c);
void holds_stop(void);

#endif

/* expiry.h - the thread that releases holds whose TTL has passed. */
#ifndef PRIVD_EXPIRY_H
#define PRIVD_EXPIRY_H

#include "config.h"

/* Every second, releases expired holds (recorded in the ledger as
 * "expire"). Holds live in LDAP, so a restart loses none. */
int expiry_start(const struct cfg *c);
void expiry_stop(void);

#endif

/* auth.h - API keys: hashed with SHA-256 (nettle), compared in constant time. */
#ifndef PRIVD_AUTH_H
#define PRIVD_AUTH_H

#include "config.h"

/* The key named by an "Authorization: Bearer KEY" header, or NULL. */
const struct cfg_key *auth_bearer(const struct cfg *c, const char *header);
/* SHA-256 of key as 64 lower-case hex digits and a NUL. */
void auth_hash_hex(const char *key, char out[65]);

#endif

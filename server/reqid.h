/* reqid.h - request ids, the key that makes a write idempotent. */
#ifndef PRIVD_REQID_H
#define PRIVD_REQID_H

#define REQID_MAX	128

/* Checks a request id: 1..REQID_MAX of [A-Za-z0-9._:-]. */
int reqid_ok(const char *id);

#endif

/*
 * session.h - concurrent sessions counted against a number privilege
 * (login.max_sessions), kept in LDAP so that every privd and every restart
 * sees the same ones. One entry per account and privilege,
 * cn=PRIV@sessions,uid=UID,ou=usage,BASE: privUsed counts the open
 * sessions, one privSession value describes each.
 */
#ifndef PRIVD_SESSION_H
#define PRIVD_SESSION_H

#include <stddef.h>
#include <time.h>

#include <ldap.h>

#include "config.h"
#include "err.h"
#include "quota.h"

#define SESSION_PERIOD		"sessions"	/* the usage table's "period" */
#define SESSION_FIELD_MAX	64		/* host, service */
#define SESSION_TTL_MAX		(7 * 86400)

struct session {
	char id[REQID_MAX + 1];	/* the request id that opened it */
	char host[SESSION_FIELD_MAX + 1];
	char service[SESSION_FIELD_MAX + 1];
	time_t started, expires;
};

/* Who asks, for which account and privilege, against which limit. */
struct session_req {
	const struct cfg *cfg;
	const char *uid;
	const char *priv;	/* a PRIV_NUMBER privilege */
	long long max;		/* from resolution */
	time_t now;
};

/* Why a call was refused; session_why_code names it for the API. */
enum session_why {
	SESSION_WHY_NONE = 0,	/* it did what it was asked, or failed (LDAP): see the error */
	SESSION_ID_REUSED,
	SESSION_TOO_MANY,
	SESSION_UNKNOWN,
};

/* The API's error code of a refusal ("too_many_sessions", ...); NULL for none. */
const char *session_why_code(enum session_why why);

/* What a call did; on refusal why says why. */
struct session_res {
	enum session_why why;	/* SESSION_WHY_NONE on success */
	int replayed;		/* the request id's session, already open */
	long long open;		/* sessions open after the call */
	struct session s;	/* the one opened, renewed or closed */
	struct session *list;	/* the open ones (list, and too_many_sessions) */
	size_t n;
};

/* Whether a host or service name is 1..SESSION_FIELD_MAX of [A-Za-z0-9._:@-]. */
int session_field_ok(const char *s);

/*
 * Opens session id: one modify raises privUsed under the assertion
 * privUsed <= max - 1, so of two racing for the last slot one wins.
 * Expired sessions in the way are closed first. 0 (r->replayed for an id
 * already open), or -1 with e (ERR_CONFLICT and r->why too_many_sessions
 * with r->list; ERR_UNAVAILABLE when LDAP is down).
 */
int session_open(LDAP *ld, const struct session_req *q, const char *id,
    const char *host, const char *service, long ttl_s, struct session_res *r,
    struct err *e);
/* Moves session id's expiry to now + ttl_s. ERR_NOT_FOUND when it is not open. */
int session_renew(LDAP *ld, const struct session_req *q, const char *id,
    long ttl_s, struct session_res *r, struct err *e);
/* Ends session id. ERR_NOT_FOUND when it is not open. */
int session_close(LDAP *ld, const struct session_req *q, const char *id,
    struct session_res *r, struct err *e);
/* The open sessions, oldest first, into r->list. */
int session_list(LDAP *ld, const struct session_req *q, struct session_res *r,
    struct err *e);
void session_res_free(struct session_res *r);

/* Ends up to max sessions whose TTL has passed, in every account; the count, or -1. */
int session_expire(LDAP *ld, const struct cfg *c, time_t now, int max, struct err *e);

#endif

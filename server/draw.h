/*
 * draw.h - where a write on a quota goes: through the holder's home
 * provider, never elsewhere for a request whose outcome is in doubt, and
 * with "fallback" from an account's own quota to the pools it may draw
 * on. Below the HTTP layer: api_quota.c parses, calls draw() and answers.
 */
#ifndef PRIVD_DRAW_H
#define PRIVD_DRAW_H

#include <stddef.h>

#include <ldap.h>

#include "err.h"
#include "quota.h"

/* What came of it, and on whose quota. */
struct draw_res {
	struct quota_res res;
	struct quota_req on;	/* whose quota it was written to (a pool, after fallback) */
	const char *charged_to;	/* with fallback: "personal" or the pool's cell */
};

/* A pool an account may fall back to, most specific first. */
struct draw_pool {
	char holder[QUOTA_HOLDER_MAX];
	long long limit;
};

/* What draw needs from below; draw_ldap is privd's, the unit tests bring theirs. */
struct draw_ops {
	int (*get_home)(const char *holder, LDAP **ld, struct err *e);
	/* never away from home (ldpool.h); NULL: get_home */
	int (*get_at_home)(const char *holder, LDAP **ld, struct err *e);
	int (*is_home)(LDAP *ld, const char *holder);
	void (*put)(LDAP *ld, int broken);
	/* the pools q's account may draw on for q's quota; *out malloc'd */
	int (*pools)(const struct quota_req *q, struct draw_pool **out, size_t *n);
	/* as quota_seen */
	int (*seen)(LDAP *ld, const struct quota_req *q, const char *rid, int hold,
	    long long amount, struct quota_res *r, struct err *e);
	/* the write itself: quota_take, quota_refund, ... by d->op */
	int (*write)(LDAP *ld, const struct quota_req *q, const struct draw_req *d,
	    struct quota_res *r, struct err *e);
	/* q's usage as this privd last saw it: 0, or -1 when it saw none */
	int (*usage)(const struct quota_req *q, struct usage_val *u);
	/* as quota_refundable */
	int (*refundable)(LDAP *ld, const struct quota_req *q, const char *charge_id,
	    long long *left, struct err *e);
};

extern const struct draw_ops draw_ldap;

/*
 * Makes write d on q (q->home is set here). 0 when it landed or was a
 * replay; -1 and e when it did not, with out->res.why naming a
 * refusal (quota.h) or QUOTA_WHY_NONE for a failure: ERR_UNAVAILABLE
 * when the home provider cannot be reached, or is bypassed while d->rid
 * is in doubt.
 * out->on says whose quota answered.
 */
int draw(const struct quota_req *q, const struct draw_req *d, struct draw_res *out,
    struct err *e);
int draw_with(const struct draw_ops *ops, const struct quota_req *q,
    const struct draw_req *d, struct draw_res *out, struct err *e);

/* What is left to refund of charge_id on q (quota_refundable), read at
 * q's home provider. */
int draw_refundable(const struct draw_ops *ops, const struct quota_req *q,
    const char *charge_id, long long *left, struct err *e);

/* *dst = *src, its names pointing into dst's own buffers where src's did. */
void draw_req_copy(struct quota_req *dst, const struct quota_req *src);

/* Whether rid was seen on q (quota_seen), read at q's home provider: 1 a
 * replay, 0 not seen, -1 another operation's id (r->why) or an error. */
int draw_seen(const struct draw_ops *ops, const struct quota_req *q, const char *rid,
    int hold, long long amount, struct quota_res *r, struct err *e);

/* The log's and the audit's name of an operation ("charge", "hold", ...). */
const char *draw_op_name(enum draw_op op);

#endif

/* grant.h - one grant: a privilege value attached to a cell. */
#ifndef PRIVD_GRANT_H
#define PRIVD_GRANT_H

#include "config.h"
#include "err.h"

/*
 * Text forms (the privGrant values in LDAP, and privctl's syntax):
 *   print.colour=true            flag
 *   login.max_sessions=3         number
 *   print.pages=300              quota limit
 *   printer.access+=eng-laser    set: grant an element
 *   printer.access-=colour-a3    set: deny an element
 *   pool print.pages=150         a pool: a budget the cell holds (quotas
 *                                only), privPool in LDAP (pool.h)
 */
enum grant_op { GRANT_SET, GRANT_ADD, GRANT_DEL };

#define GRANT_ELEM_MAX	128
#define GRANT_NUM_MAX	1000000000000LL	/* 10^12: a sane ceiling for limits */
#define GRANT_POOL	"pool "	/* the text prefix of a pool's limit */

struct grant {
	int priv;		/* index into cfg->privs */
	enum grant_op op;
	long long num;		/* flag 0/1, number, quota limit */
	char *elem;		/* set element, else NULL */
	char *text;		/* canonical text form */
	int pool;		/* a pool's limit, not a grant (pool.h) */
};

/* Parses a text form against the declared privileges. An unknown
 * privilege is ERR_NOT_FOUND, any other fault ERR_INVALID. */
int grant_parse(const struct cfg *c, const char *s, struct grant *g,
    struct err *e);
/*
 * Builds a grant from a privilege and one import value: "true"/"false"
 * for flags, a whole number for numbers and quotas, "+x", "-x" or "x"
 * (meaning "+x") for one set element.
 */
int grant_make(const struct cfg *c, int priv, const char *value,
    struct grant *g, struct err *e);
/* The text after "pool " when text is a pool's limit, else NULL. */
const char *grant_pool_text(const char *text);
/*
 * A pool's contact (an address told when the pool runs low, notice.h):
 * "pool contact ADDR" among the cell's values, privPool "contact ADDR" in
 * LDAP. The address when text is one, else NULL.
 */
#define GRANT_CONTACT	"pool contact "
const char *grant_contact_text(const char *text);
/* A pool's limit of quota priv: a whole number. */
int grant_make_pool(const struct cfg *c, int priv, const char *value,
    struct grant *g, struct err *e);
/* Frees what g owns (not g). */
void grant_clear(struct grant *g);

#endif

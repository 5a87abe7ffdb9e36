/*
 * authz.h - who may do what: the one rule every route is decided by, from
 * the route table's two columns (a key's scope, what a person may do) and
 * who is asking. No route relies on the directory's ACLs to refuse a person
 * when privd writes as itself.
 */
#ifndef PRIVD_AUTHZ_H
#define PRIVD_AUTHZ_H

#include <stddef.h>

#include "config.h"

/* What a person (not an administrator) may do on a route. */
enum authz_person {
	AUTHZ_STAFF = 0,	/* nothing: keys with the scope and administrators */
	AUTHZ_OWN_READ,		/* read their own account (a POST that writes nothing) */
	AUTHZ_OWN_WRITE,	/* change their own account (preferences) */
	AUTHZ_OWN_ONLY,		/* redeem into their own account: nobody acts for another,
				 * an administrator neither; a key needs exactly the scope */
};

/* How the asker proved who they are. */
enum authz_how {
	AUTHZ_KEY,		/* an API key */
	AUTHZ_BASIC,		/* HTTP Basic, bound to LDAP as the person */
	AUTHZ_TOKEN,		/* a sign-in token: no password to write as */
};

struct authz_who {
	enum authz_how how;
	const struct cfg_key *key;	/* AUTHZ_KEY */
	const char *uid;		/* a person */
	int admin;			/* the person is one of ui.admins now */
};

/* The route as the rule sees it. */
struct authz_route {
	const char *method;
	const char *name;		/* in refusals */
	unsigned scope;			/* SCOPE_* a key needs */
	enum authz_person person;
	const char *account;		/* /v1/accounts/ACCOUNT/..., or NULL */
};

/* 0 when w may use rt; -1 with why (a message for the 403) when not. */
int authz_allow(const struct authz_who *w, const struct authz_route *rt, char *why, size_t n);
/* The scope's name ("read", "charge", "topup", "admin"). */
const char *authz_scope_name(unsigned scope);

#endif

/*
 * authz.c - the rule that decides every route (authz.h). Keys are decided
 * by their scopes; people by whether they administer (ui.admins) and by
 * whose account the route is on. A sign-in token carries no password, so
 * it writes only what a person writes for themselves.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "authz.h"

const char *
authz_scope_name(unsigned scope)
{
	return scope == SCOPE_ADMIN ? "admin" : scope == SCOPE_CHARGE ? "charge" :
	    scope == SCOPE_TOPUP ? "topup" : "read";
}

static int
refuse(char *why, size_t n, const char *fmt, const char *a, const char *b)
{
	snprintf(why, n, fmt, a, b);
	return -1;
}

static int
key_allow(const struct cfg_key *k, const struct authz_route *rt, char *why, size_t n)
{
	unsigned need = rt->scope;

	/* an administrator's key may top up, as at a cashier's desk, but a
	 * redemption is the person's own or a top-up terminal's */
	if (need == SCOPE_TOPUP && rt->person != AUTHZ_OWN_ONLY)
		need |= SCOPE_ADMIN;
	if ((k->scopes & need) != 0)
		return 0;
	return refuse(why, n, "key %s lacks the %s scope", k->name, authz_scope_name(rt->scope));
}

int
authz_allow(const struct authz_who *w, const struct authz_route *rt, char *why, size_t n)
{
	int own, reads;

	if (w->how == AUTHZ_KEY)
		return key_allow(w->key, rt, why, n);
	own = rt->account != NULL && strcasecmp(rt->account, w->uid) == 0;
	reads = strcmp(rt->method, "GET") == 0 || rt->person == AUTHZ_OWN_READ;
	if (rt->person == AUTHZ_OWN_ONLY && !own)
		return refuse(why, n, "%s may redeem only into their own account (%s is "
		    "another's)", w->uid, rt->account ? rt->account : "-");
	if (own && rt->person != AUTHZ_STAFF)
		return 0;
	if (!w->admin)
		return rt->person != AUTHZ_STAFF ?
		    refuse(why, n, "%s may use %s only on their own account", w->uid, rt->name) :
		    refuse(why, n, "%s is for administrators (ui.admins), and %s is not one",
		    rt->name, w->uid);
	if (w->how == AUTHZ_TOKEN && !reads)
		return refuse(why, n, "a sign-in token reads only (%s by %s): changes are made "
		    "with HTTP Basic, privctl or an API key", rt->name, w->uid);
	return 0;
}

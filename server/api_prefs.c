/*
 * api_prefs.c - a person's own choices over REST: whether privd emails
 * them when their balance runs low (notice.h). Kept beside their usage,
 * as privPreference values of uid=UID,ou=usage,BASE.
 */
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "body.h"
#include "ldapconn.h"
#include "ldpool.h"
#include "snapshot.h"
#include "strv.h"
#include "uentry.h"

#define NOTICES_OFF "notices=off"

/* The account of the path, as the directory spells it, into uid; answers itself. */
static int
account(struct req *r, char uid[65], enum MHD_Result *ret)
{
	const struct snap_account *a = NULL;
	const struct snap *s;
	int t;

	if ((s = snap_enter(&t)) == NULL)
		*ret = http_error(r, 503, "not_ready", NULL, "privd has not loaded the directory yet");
	else if ((a = snap_account(s, r->part[2])) == NULL)
		*ret = http_error(r, 404, "unknown_account", "uid",
		    "no account '%.64s' (no entry with privAccount and that uid)", r->part[2]);
	else
		snprintf(uid, 65, "%s", a->uid);
	snap_leave(t);
	return s != NULL && a != NULL ? 0 : -1;
}

/* Whether uid turned notices off: 0 / 1, or -1 and e. */
static int
notices_off(LDAP *ld, const struct cfg *c, const char *uid, struct err *e)
{
	static char *attrs[] = { "privPreference", NULL };
	char *root = uent_root(c), *adn = root ? uent_holder_dn(uid, root) : NULL, **v;
	LDAPMessage *res = NULL, *m;
	int rc, off = 0;
	size_t i;

	if (adn == NULL) {
		free(root);
		return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
	}
	rc = ldapc_search(ld, c, adn, LDAP_SCOPE_BASE, "(objectClass=*)", attrs, 0, &res, e);
	if (rc == 0 && (m = ldap_first_entry(ld, res)) != NULL &&
	    (v = ldapc_get_strv(ld, m, "privPreference")) != NULL) {
		for (i = 0; v[i]; i++)
			off |= strcmp(v[i], NOTICES_OFF) == 0;
		strv_free(v);
	}
	ldap_msgfree(res);
	free(adn);
	free(root);
	return rc < 0 ? -1 : off;
}

static enum MHD_Result
answer(struct req *r, const char *uid, int off)
{
	return http_json(r, 200, json_pack("{s:s, s:b, s:b}", "account", uid, "notices", !off,
	    "notices_configured", r->cfg->notify.smtp != NULL));
}

/* GET /v1/accounts/{uid}/preferences */
enum MHD_Result
api_prefs(struct req *r)
{
	enum MHD_Result ret;
	char uid[65];
	struct err e;
	LDAP *ld;
	int off;

	memset(&e, 0, sizeof(e));
	if (account(r, uid, &ret) != 0)
		return ret;
	if (ldpool_get_home(uid, &ld, &e) != 0)
		return http_err(r, &e, "preferences_failed");
	off = notices_off(ld, r->cfg, uid, &e);
	ldpool_put(ld, e.code == ERR_UNAVAILABLE);
	return off < 0 ? http_err(r, &e, "preferences_failed") : answer(r, uid, off);
}

/* POST /v1/accounts/{uid}/preferences {"notices": true|false}: the person's own sign-in, or admin. */
enum MHD_Result
api_prefs_set(struct req *r)
{
	static const char *const allowed[] = { "notices", NULL };
	enum MHD_Result ret;
	char uid[65], *root = NULL, *adn = NULL;
	char *val[] = { NOTICES_OFF, NULL };
	LDAPMod mod, *mods[] = { &mod, NULL };
	struct err e;
	json_t *o, *n;
	LDAP *ld;
	int rc, on;

	memset(&e, 0, sizeof(e));
	if (account(r, uid, &ret) != 0)
		return ret;
	if ((o = body_object(r->body, r->len, allowed, &e)) == NULL)
		return http_error(r, 400, "bad_request", e.key, "%s", e.msg);
	n = json_object_get(o, "notices");
	if (!json_is_boolean(n)) {
		json_decref(o);
		return http_error(r, 400, "bad_request", "notices", "notices is true or false");
	}
	on = json_is_true(n);
	json_decref(o);
	if (ldpool_get_home(uid, &ld, &e) != 0)
		return http_err(r, &e, "preferences_failed");
	if ((root = uent_root(r->cfg)) == NULL || (adn = uent_holder_dn(uid, root)) == NULL) {
		err_set(&e, ERR_INTERNAL, 0, NULL, "out of memory");
		goto done;
	}
	if (uent_ensure_account(ld, r->cfg, uid, &e) != 0)
		goto done;
	mod = (LDAPMod){ on ? LDAP_MOD_DELETE : LDAP_MOD_ADD, "privPreference", { val } };
	rc = ldap_modify_ext_s(ld, adn, mods, NULL, NULL);
	/* already so: the same answer */
	if (rc != LDAP_SUCCESS && rc != LDAP_TYPE_OR_VALUE_EXISTS && rc != LDAP_NO_SUCH_ATTRIBUTE)
		ldapc_fail(&e, rc, "preferences");
done:
	ldpool_put(ld, e.code == ERR_UNAVAILABLE);
	free(adn);
	free(root);
	if (e.code != ERR_NONE)
		return http_err(r, &e, "preferences_failed");
	return answer(r, uid, !on);
}

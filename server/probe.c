/* probe.c - a provider's server id and catch-up, from writes of privd's own entries (probe.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "auth.h"
#include "dn.h"
#include "ldapconn.h"
#include "ldpool.h"
#include "probe.h"

/* The name of this privd's entry for provider uri. */
static void
entry_name(const struct cfg *c, const char *uri, char *out, size_t n)
{
	char host[256] = "", canon[512];

	gethostname(host, sizeof(host) - 1);
	ldpool_canonical(uri, canon, sizeof(canon));
	snprintf(out, n, "%s:%d at %s", host, c->listen_port, canon);
}

/* This privd's entry for provider uri and its parent: malloc'd, or NULL. */
static char *
entry_dn(const struct cfg *c, const char *uri, char **parent)
{
	char name[1024];

	entry_name(c, uri, name, sizeof(name));
	*parent = dn_child("cn", "providers", c->base_dn);
	return *parent ? dn_child("cn", name, *parent) : NULL;
}

/* Adds dn (an organizationalRole named cn) unless it exists. */
static int
ensure(LDAP *ld, const char *dn, const char *cn, struct err *e)
{
	char *oc[] = { "organizationalRole", NULL }, *cnv[] = { (char *)cn, NULL };
	char *desc[] = { "privd: replication probe", NULL };
	LDAPMod m[3] = { { LDAP_MOD_ADD, "objectClass", { oc } }, { LDAP_MOD_ADD, "cn", { cnv } },
	    { LDAP_MOD_ADD, "description", { desc } } };
	LDAPMod *mods[] = { &m[0], &m[1], &m[2], NULL };
	int rc = ldap_add_ext_s(ld, dn, mods, NULL, NULL);

	return rc == LDAP_SUCCESS || rc == LDAP_ALREADY_EXISTS ? 0 : ldapc_fail(e, rc, dn);
}

int
probe_write(LDAP *ld, const struct cfg *c, const char *uri, int *sid,
    char nonce[PROBE_NONCE], struct err *e)
{
	static char *attrs[] = { "entryCSN", NULL };
	unsigned char rnd[16];
	char *parent = NULL, *dn = entry_dn(c, uri, &parent), *vals[2] = { nonce, NULL }, csn[64];
	char name[1024];
	LDAPMod m = { LDAP_MOD_REPLACE, "description", { vals } }, *mods[] = { &m, NULL };
	LDAPMessage *res = NULL, *msg;
	const char *s;
	int rc, ret = -1, tries;

	if (dn == NULL) {
		err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
		goto done;
	}
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
		err_set(e, ERR_INTERNAL, 0, NULL, "getrandom failed");
		goto done;
	}
	auth_hex(rnd, sizeof(rnd), nonce);
	for (tries = 0; tries < 3; tries++) {
		rc = ldap_modify_ext_s(ld, dn, mods, NULL, NULL);
		if (rc == LDAP_SUCCESS)
			break;
		if (rc != LDAP_NO_SUCH_OBJECT) {
			ldapc_fail(e, rc, dn);
			goto done;
		}
		entry_name(c, uri, name, sizeof(name));
		if (ensure(ld, parent, "providers", e) != 0 || ensure(ld, dn, name, e) != 0)
			goto done;
	}
	if (tries == 3) {
		err_set(e, ERR_UNAVAILABLE, 0, NULL, "%s: cannot write the replication probe", uri);
		goto done;
	}
	/* only this privd writes the entry, and only at uri: its entryCSN
	 * is this write's, and names the provider's server id */
	if ((rc = ldapc_search(ld, c, dn, LDAP_SCOPE_BASE, "(objectClass=*)", attrs, 1, &res,
	    e)) != 0 || (msg = ldap_first_entry(ld, res)) == NULL ||
	    ldapc_get_buf(ld, msg, "entryCSN", csn, sizeof(csn)) != 0 ||
	    (s = strchr(csn, '#')) == NULL || (s = strchr(s + 1, '#')) == NULL ||
	    sscanf(s + 1, "%x", (unsigned *)sid) != 1) {
		if (e->code == ERR_NONE)
			err_set(e, ERR_UNAVAILABLE, 0, NULL, "%s: the replication probe has no "
			    "entryCSN with a server id", uri);
		goto done;
	}
	ret = 0;
done:
	ldap_msgfree(res);
	free(dn);
	free(parent);
	return ret;
}

int
probe_seen(LDAP *ld, const struct cfg *c, const char *uri, const char *nonce, struct err *e)
{
	static char *attrs[] = { "1.1", NULL };
	char *parent = NULL, *dn = entry_dn(c, uri, &parent), filter[64];
	LDAPMessage *res = NULL;
	int rc;

	free(parent);
	if (dn == NULL)
		return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
	snprintf(filter, sizeof(filter), "(description=%s)", nonce);
	rc = ldapc_search(ld, c, dn, LDAP_SCOPE_BASE, filter, attrs, 1, &res, e);
	if (rc == 0)
		rc = ldap_first_entry(ld, res) != NULL;
	else if (rc == 1)
		rc = 0;		/* not even the entry yet */
	ldap_msgfree(res);
	free(dn);
	return rc;
}

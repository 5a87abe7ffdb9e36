/* probe.c - a provider's server id and catch-up, from entries privd adds (probe.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "hex.h"
#include "dn.h"
#include "ldapconn.h"
#include "probe.h"
#include "skew.h"

int
probe_csn_sid(const char *csn)
{
	const char *s = strchr(csn, '#');
	unsigned v;

	s = s ? strchr(s + 1, '#') : NULL;
	return s && sscanf(s + 1, "%x", &v) == 1 ? (int)v : -1;
}

/* The probe's DN and its parent's: malloc'd, or NULL. */
static char *
probe_dn(const struct cfg *c, const char *nonce, char **parent)
{
	*parent = dn_child("cn", "providers", c->base_dn);
	return *parent ? dn_child("cn", nonce, *parent) : NULL;
}

/* Adds dn, an organizationalRole named cn: the LDAP result code. */
static int
add(LDAP *ld, const char *dn, const char *cn)
{
	char *oc[] = { "organizationalRole", NULL }, *cnv[] = { (char *)cn, NULL };
	char *desc[] = { "privd: replication probe", NULL };
	LDAPMod m[3] = { { LDAP_MOD_ADD, "objectClass", { oc } }, { LDAP_MOD_ADD, "cn", { cnv } },
	    { LDAP_MOD_ADD, "description", { desc } } };
	LDAPMod *mods[] = { &m[0], &m[1], &m[2], NULL };

	return ldap_add_ext_s(ld, dn, mods, NULL, NULL);
}

/*
 * A new probe over ld, its entryCSN into csn (n bytes), and this clock
 * just before and after the add that made it (skew.h): 0, or -1 and e.
 */
static int
make(LDAP *ld, const struct cfg *c, char nonce[PROBE_NONCE], char *csn, size_t n,
    double *sent, double *answered, struct err *e)
{
	static char *attrs[] = { "entryCSN", NULL };
	unsigned char rnd[16];
	char *parent = NULL, *dn = NULL;
	LDAPMessage *res = NULL, *m;
	int rc, ret = -1;

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
		err_set(e, ERR_INTERNAL, 0, NULL, "getrandom failed");
		goto done;
	}
	hex_encode(rnd, sizeof(rnd), nonce);
	if ((dn = probe_dn(c, nonce, &parent)) == NULL) {
		err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
		goto done;
	}
	*sent = skew_clock();
	if ((rc = add(ld, dn, nonce)) == LDAP_NO_SUCH_OBJECT) {
		rc = add(ld, parent, "providers");
		if (rc == LDAP_SUCCESS || rc == LDAP_ALREADY_EXISTS) {
			*sent = skew_clock();
			rc = add(ld, dn, nonce);
		}
	}
	*answered = skew_clock();
	if (rc != LDAP_SUCCESS) {
		ldapc_fail(e, rc, dn);
		goto done;
	}
	/* nobody else writes this entry: its entryCSN is this add's */
	if (ldapc_search(ld, c, dn, LDAP_SCOPE_BASE, "(objectClass=*)", attrs, 1, &res, e) != 0 ||
	    (m = ldap_first_entry(ld, res)) == NULL ||
	    ldapc_get_buf(ld, m, "entryCSN", csn, n) != 0) {
		if (e->code == ERR_NONE)
			err_set(e, ERR_UNAVAILABLE, 0, NULL, "%s has no entryCSN", dn);
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
probe_add(LDAP *ld, const struct cfg *c, char nonce[PROBE_NONCE], int *sid, struct err *e)
{
	char csn[64];
	double sent, answered;

	if (make(ld, c, nonce, csn, sizeof(csn), &sent, &answered, e) != 0)
		return -1;
	if ((*sid = probe_csn_sid(csn)) < 0)
		return err_set(e, ERR_UNAVAILABLE, 0, NULL, "probe %s: entryCSN %s has no server id",
		    nonce, csn);
	skew_observe(csn, sent, answered);
	return 0;
}

int
probe_seen(LDAP *ld, const struct cfg *c, const char *nonce, struct err *e)
{
	static char *attrs[] = { "1.1", NULL };
	char *parent = NULL, *dn = probe_dn(c, nonce, &parent);
	LDAPMessage *res = NULL;
	int rc;

	free(parent);
	if (dn == NULL)
		return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
	rc = ldapc_search(ld, c, dn, LDAP_SCOPE_BASE, "(objectClass=*)", attrs, 1, &res, e);
	if (rc == 0)
		rc = ldap_first_entry(ld, res) != NULL;
	else if (rc == 1)
		rc = 0;
	ldap_msgfree(res);
	free(dn);
	return rc;
}

void
probe_drop(LDAP *ld, const struct cfg *c, const char *nonce)
{
	char *parent = NULL, *dn = probe_dn(c, nonce, &parent);

	if (dn != NULL)
		ldap_delete_ext_s(ld, dn, NULL, NULL);
	free(dn);
	free(parent);
}

int
probe_clock(LDAP *ld, const struct cfg *c, struct err *e)
{
	char nonce[PROBE_NONCE], csn[64];
	double sent, answered;

	nonce[0] = '\0';
	if (make(ld, c, nonce, csn, sizeof(csn), &sent, &answered, e) != 0) {
		if (nonce[0])
			probe_drop(ld, c, nonce);
		return -1;
	}
	skew_observe(csn, sent, answered);
	probe_drop(ld, c, nonce);
	return 0;
}

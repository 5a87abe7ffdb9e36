/*
 * benchldap.h - what the bench's raw LDAP clients share (charge.c,
 * chargefloor.c): a simple bind, and a usage entry made as privd makes one
 * on an account's first charge. Static functions: each tool is one file.
 */
#ifndef BENCH_BENCHLDAP_H
#define BENCH_BENCHLDAP_H

#include <stdio.h>
#include <string.h>

#include <ldap.h>

/* A connection bound as dn with password pw; NULL on failure. */
static LDAP *
bench_bind(const char *uri, const char *dn, const char *pw)
{
	struct berval cred = { strlen(pw), (char *)pw };
	LDAP *ld;
	int v = 3;

	if (ldap_initialize(&ld, uri) != LDAP_SUCCESS)
		return NULL;
	ldap_set_option(ld, LDAP_OPT_PROTOCOL_VERSION, &v);
	if (ldap_sasl_bind_s(ld, dn, LDAP_SASL_SIMPLE, &cred, NULL, NULL, NULL) != LDAP_SUCCESS) {
		ldap_unbind_ext_s(ld, NULL, NULL);
		return NULL;
	}
	return ld;
}

/* uid=UID,BASE and its cn=print.pages@all usage entry at zero; an entry
 * already there is left as it is */
static void
bench_usage_entry(LDAP *ld, const char *base, const char *uid)
{
	char dn[600], udn[512], *oc1[] = { "privAccountUsage", NULL };
	char *u[] = { (char *)uid, NULL }, *oc2[] = { "privUsage", NULL };
	char *cn[] = { "print.pages@all", NULL }, *zero[] = { "0", NULL }, *per[] = { "all", NULL };
	LDAPMod a0 = { LDAP_MOD_ADD, "objectClass", { oc1 } }, a1 = { LDAP_MOD_ADD, "uid", { u } };
	LDAPMod b0 = { LDAP_MOD_ADD, "objectClass", { oc2 } }, b1 = { LDAP_MOD_ADD, "cn", { cn } };
	LDAPMod b2 = { LDAP_MOD_ADD, "privUsed", { zero } }, b3 = { LDAP_MOD_ADD, "privCredit", { zero } };
	LDAPMod b4 = { LDAP_MOD_ADD, "privHeld", { zero } }, b5 = { LDAP_MOD_ADD, "privPeriod", { per } };
	LDAPMod *ma[] = { &a0, &a1, NULL }, *mb[] = { &b0, &b1, &b2, &b3, &b4, &b5, NULL };

	snprintf(udn, sizeof(udn), "uid=%s,%s", uid, base);
	snprintf(dn, sizeof(dn), "cn=print.pages@all,%s", udn);
	ldap_add_ext_s(ld, udn, ma, NULL, NULL);
	ldap_add_ext_s(ld, dn, mb, NULL, NULL);
}

#endif

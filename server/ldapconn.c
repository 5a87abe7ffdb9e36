/* ldapconn.c - one place that knows how privd talks to slapd: options, bind, errors. */
#include <string.h>
#include <sys/time.h>

#include "ldapconn.h"

int
ldapc_fail(struct err *e, int rc, const char *what)
{
	switch (rc) {
	case LDAP_SERVER_DOWN:
	case LDAP_CONNECT_ERROR:
	case LDAP_TIMEOUT:
	case LDAP_UNAVAILABLE:
	case LDAP_BUSY:
		return err_set(e, ERR_UNAVAILABLE, 0, NULL, "LDAP unavailable (%s): %s",
		    what, ldap_err2string(rc));
	case LDAP_ALREADY_EXISTS:
	case LDAP_TYPE_OR_VALUE_EXISTS:
	case LDAP_ASSERTION_FAILED:
	case LDAP_NOT_ALLOWED_ON_NONLEAF:
		return err_set(e, ERR_CONFLICT, 0, NULL, "%s: %s", what, ldap_err2string(rc));
	case LDAP_NO_SUCH_OBJECT:
		return err_set(e, ERR_NOT_FOUND, 0, NULL, "%s: %s", what, ldap_err2string(rc));
	default:
		return err_set(e, ERR_INTERNAL, 0, NULL, "%s: %s", what, ldap_err2string(rc));
	}
}

int
ldapc_open(const struct cfg *c, const char *who, const char *password,
    LDAP **out, struct err *e)
{
	struct timeval tv = { c->ldap_timeout_s, 0 };
	struct berval cred;
	LDAP *ld = NULL;
	int version = LDAP_VERSION3, rc;
	const char *dn = who ? who : c->bind_dn;
	const char *pw = who ? password : c->bind_password;

	*out = NULL;
	if ((rc = ldap_initialize(&ld, c->ldap_uri)) != LDAP_SUCCESS)
		return ldapc_fail(e, rc, "ldap_initialize");
	ldap_set_option(ld, LDAP_OPT_PROTOCOL_VERSION, &version);
	ldap_set_option(ld, LDAP_OPT_NETWORK_TIMEOUT, &tv);
	ldap_set_option(ld, LDAP_OPT_TIMEOUT, &tv);
	ldap_set_option(ld, LDAP_OPT_REFERRALS, LDAP_OPT_OFF);
	ldap_set_option(ld, LDAP_OPT_RESTART, LDAP_OPT_ON);
	cred.bv_val = (char *)(pw ? pw : "");
	cred.bv_len = strlen(cred.bv_val);
	rc = ldap_sasl_bind_s(ld, dn, LDAP_SASL_SIMPLE, &cred, NULL, NULL, NULL);
	if (rc != LDAP_SUCCESS) {
		ldap_unbind_ext_s(ld, NULL, NULL);
		if (rc == LDAP_INVALID_CREDENTIALS)
			return err_set(e, ERR_UNAVAILABLE, 0, NULL,
			    "LDAP bind as %s refused: %s", dn ? dn : "(anonymous)",
			    ldap_err2string(rc));
		return ldapc_fail(e, rc, "bind");
	}
	*out = ld;
	return 0;
}

void
ldapc_close(LDAP *ld)
{
	if (ld != NULL)
		ldap_unbind_ext_s(ld, NULL, NULL);
}

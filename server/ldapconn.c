/* ldapconn.c - one place that knows how privd talks to slapd: options, bind, errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>

#include "ldapconn.h"
#include "log.h"
#include "strv.h"

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
	case LDAP_INSUFFICIENT_ACCESS:
		return err_set(e, ERR_FORBIDDEN, 0, NULL, "%s: the directory refused: %s", what,
		    ldap_err2string(rc));
	case LDAP_UNDEFINED_TYPE:
	case LDAP_INVALID_SYNTAX:
		/* privd checks every value it writes: what slapd does not know
		 * is privd's attributes and classes */
		return err_set(e, ERR_SCHEMA, 0, NULL, "%s: %s: the directory does not have privd's "
		    "schema, or has an older one: load schema/privd.ldif (ldapadd -Y EXTERNAL -H "
		    "ldapi:/// -f privd.ldif) or include schema/privd.schema, then check with "
		    "privd --check-directory", what, ldap_err2string(rc));
	default:
		return err_set(e, ERR_INTERNAL, 0, NULL, "%s: %s", what, ldap_err2string(rc));
	}
}

/* Certificate checks on by default; StartTLS when asked. */
static int
tls(LDAP *ld, const struct cfg *c)
{
	int req = c->ldap_tls_verify ? LDAP_OPT_X_TLS_DEMAND : LDAP_OPT_X_TLS_NEVER, zero = 0, rc;

	ldap_set_option(ld, LDAP_OPT_X_TLS_REQUIRE_CERT, &req);
	if (c->ldap_ca_file != NULL)
		ldap_set_option(ld, LDAP_OPT_X_TLS_CACERTFILE, c->ldap_ca_file);
	/* a context of this connection's own, with the options above */
	ldap_set_option(ld, LDAP_OPT_X_TLS_NEWCTX, &zero);
	if (c->ldap_starttls && (rc = ldap_start_tls_s(ld, NULL, NULL)) != LDAP_SUCCESS)
		return rc;
	return LDAP_SUCCESS;
}

static int open_uri(const struct cfg *c, const char *uri, const char *who,
    const char *password, LDAP **out, struct err *e);

int
ldapc_open_uri(const struct cfg *c, const char *uri, LDAP **out, struct err *e)
{
	return open_uri(c, uri, NULL, NULL, out, e);
}

int
ldapc_open(const struct cfg *c, const char *who, const char *password,
    LDAP **out, struct err *e)
{
	return open_uri(c, c->ldap_uri, who, password, out, e);
}

int
ldapc_open_write(const struct cfg *c, const char *who, const char *password,
    LDAP **out, struct err *e)
{
	return open_uri(c, c->write_uri ? c->write_uri : c->ldap_uri, who, password, out, e);
}

/*
 * libldap reads a TCP message with a poll and two reads (its length, then
 * the rest): a million-entry refresh spent a third of privd's CPU in those
 * calls, and a charge a dozen of its syscalls. A read-ahead layer under TLS
 * fills a buffer per read instead, and tells libldap a message is already
 * there. Whoever polls the descriptor itself must drain first (sync.c).
 */
static void
read_ahead(LDAP *ld)
{
	Sockbuf *sb = NULL;
	int size = 64 * 1024;

	if (ldap_get_option(ld, LDAP_OPT_SOCKBUF, &sb) != LDAP_OPT_SUCCESS || sb == NULL ||
	    ber_sockbuf_add_io(sb, &ber_sockbuf_io_readahead, LBER_SBIOD_LEVEL_PROVIDER,
	    &size) != 0)
		log_warn("ldap: no read-ahead buffer: reading message by message");
}

static int
open_uri(const struct cfg *c, const char *uri, const char *who, const char *password,
    LDAP **out, struct err *e)
{
	struct timeval tv = { c->ldap_timeout_s, 0 };
	struct berval cred;
	LDAP *ld = NULL;
	int version = LDAP_VERSION3, rc;
	const char *dn = who ? who : c->bind_dn;
	const char *pw = who ? password : c->bind_password;

	*out = NULL;
	if ((rc = ldap_initialize(&ld, uri)) != LDAP_SUCCESS)
		return ldapc_fail(e, rc, "ldap_initialize");
	ldap_set_option(ld, LDAP_OPT_PROTOCOL_VERSION, &version);
	ldap_set_option(ld, LDAP_OPT_NETWORK_TIMEOUT, &tv);
	ldap_set_option(ld, LDAP_OPT_TIMEOUT, &tv);
	ldap_set_option(ld, LDAP_OPT_REFERRALS, LDAP_OPT_OFF);
	ldap_set_option(ld, LDAP_OPT_RESTART, LDAP_OPT_ON);
	if ((rc = tls(ld, c)) != LDAP_SUCCESS) {
		ldap_unbind_ext_s(ld, NULL, NULL);
		return err_set(e, ERR_UNAVAILABLE, 0, NULL, "LDAP TLS with %s failed: %s%s",
		    uri, ldap_err2string(rc), rc == LDAP_CONNECT_ERROR ?
		    " (is the server's certificate signed by ldap.ca_file?)" :
		    rc == LDAP_PROTOCOL_ERROR && c->ldap_starttls ? " (the server does not offer "
		    "StartTLS, as a stock Debian slapd does not: give slapd a certificate "
		    "(olcTLSCertificateFile), or use ldapi:// on the same host, or set "
		    "ldap.starttls: false where the network is trusted)" : "");
	}
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
	read_ahead(ld);
	*out = ld;
	return 0;
}

void
ldapc_close(LDAP *ld)
{
	if (ld != NULL)
		ldap_unbind_ext_s(ld, NULL, NULL);
}

int
ldapc_search(LDAP *ld, const struct cfg *c, const char *base, int scope,
    const char *filter, char **attrs, int sizelimit, LDAPMessage **res,
    struct err *e)
{
	struct timeval tv = { c->ldap_timeout_s, 0 };
	int rc;

	*res = NULL;
	rc = ldap_search_ext_s(ld, base, scope, filter, attrs, 0, NULL, NULL, &tv,
	    sizelimit, res);
	/* a limit asked for may cut the answer short; the server's own may not */
	if (rc == LDAP_SUCCESS || (rc == LDAP_SIZELIMIT_EXCEEDED && sizelimit > 0 && *res != NULL))
		return 0;
	ldap_msgfree(*res);
	*res = NULL;
	if (rc == LDAP_NO_SUCH_OBJECT)
		return 1;
	return ldapc_fail(e, rc, base);
}

int
ldapc_bv_buf(const struct berval *v, char *out, size_t n)
{
	if (v->bv_len >= n)
		return -1;
	memcpy(out, v->bv_val, v->bv_len);
	out[v->bv_len] = '\0';
	return 0;
}

int
ldapc_is_attr(const struct berval *a, const char *name)
{
	return a->bv_len == strlen(name) && strncasecmp(a->bv_val, name, a->bv_len) == 0;
}

int
ldapc_get_buf(LDAP *ld, LDAPMessage *m, const char *attr, char *out, size_t n)
{
	struct berval **v = ldap_get_values_len(ld, m, attr);
	int rc = -1;

	if (v != NULL && v[0] != NULL)
		rc = ldapc_bv_buf(v[0], out, n);
	if (v != NULL)
		ldap_value_free_len(v);
	return rc;
}

int
ldapc_get_ll(LDAP *ld, LDAPMessage *m, const char *attr, long long *out)
{
	char buf[32], *end;

	if (ldapc_get_buf(ld, m, attr, buf, sizeof(buf)) != 0)
		return -1;
	*out = strtoll(buf, &end, 10);
	return *end == '\0' && end != buf ? 0 : -1;
}

char *
ldapc_get_str(LDAP *ld, LDAPMessage *m, const char *attr)
{
	struct berval **v = ldap_get_values_len(ld, m, attr);
	char *s = NULL;

	if (v != NULL && v[0] != NULL)
		s = strndup(v[0]->bv_val, v[0]->bv_len);
	if (v != NULL)
		ldap_value_free_len(v);
	return s;
}

char *
ldapc_or_filter(const char *attr, const char *const *vals, size_t n)
{
	size_t len = 4, i;
	char *filter, *f;

	for (i = 0; i < n; i++)
		len += strlen(attr) + 3 * strlen(vals[i]) + 4;
	if ((filter = malloc(len)) == NULL)
		return NULL;
	f = filter + sprintf(filter, "(|");
	for (i = 0; i < n; i++) {
		struct berval in, out;

		in.bv_val = (char *)vals[i];
		in.bv_len = strlen(vals[i]);
		if (ldap_bv2escaped_filter_value(&in, &out) != 0) {
			free(filter);
			return NULL;
		}
		f += sprintf(f, "(%s=%s)", attr, out.bv_val);
		ber_memfree(out.bv_val);
	}
	sprintf(f, ")");
	return filter;
}

int
ldapc_paged(LDAP *ld, const struct cfg *c, const char *base, int scope,
    const char *filter, char **attrs, int page,
    int (*fn)(LDAP *, LDAPMessage *, void *), void *arg, struct err *e)
{
	struct timeval tv = { c->ldap_timeout_s, 0 };
	struct berval cookie = { 0, NULL };
	LDAPControl *pc, *ctrls[2] = { NULL, NULL }, **rctrls = NULL, *rc_page;
	LDAPMessage *res, *m;
	ber_int_t count;
	int rc, err, ret = 0;

	do {
		pc = NULL;
		res = NULL;
		if ((rc = ldap_create_page_control(ld, page, &cookie, 0, &pc)) != LDAP_SUCCESS) {
			ret = ldapc_fail(e, rc, base);
			break;
		}
		ctrls[0] = pc;
		rc = ldap_search_ext_s(ld, base, scope, filter, attrs, 0, ctrls, NULL, &tv, 0, &res);
		ldap_control_free(pc);
		ber_memfree(cookie.bv_val);
		cookie.bv_val = NULL;
		cookie.bv_len = 0;
		if (rc != LDAP_SUCCESS) {
			ldap_msgfree(res);
			ret = rc == LDAP_NO_SUCH_OBJECT ? 1 : ldapc_fail(e, rc, base);
			break;
		}
		for (m = ldap_first_entry(ld, res); m && ret == 0; m = ldap_next_entry(ld, m))
			if (fn(ld, m, arg) != 0)
				ret = err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
		rctrls = NULL;
		if (ret == 0 && ldap_parse_result(ld, res, &err, NULL, NULL, NULL, &rctrls, 0) ==
		    LDAP_SUCCESS && (rc_page = ldap_control_find(LDAP_CONTROL_PAGEDRESULTS,
		    rctrls, NULL)) != NULL)
			ldap_parse_pageresponse_control(ld, rc_page, &count, &cookie);
		ldap_controls_free(rctrls);
		ldap_msgfree(res);
	} while (ret == 0 && cookie.bv_len > 0);
	ber_memfree(cookie.bv_val);
	return ret;
}

char **
ldapc_get_strv(LDAP *ld, LDAPMessage *m, const char *attr)
{
	struct berval **v = ldap_get_values_len(ld, m, attr);
	size_t i, n = v ? (size_t)ldap_count_values_len(v) : 0;
	char **out = calloc(n + 1, sizeof(*out));

	for (i = 0; out && i < n; i++)
		if ((out[i] = strndup(v[i]->bv_val, v[i]->bv_len)) == NULL) {
			strv_free(out);
			out = NULL;
		}
	ldap_value_free_len(v);
	return out;
}

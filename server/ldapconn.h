/* ldapconn.h - opening and binding an LDAP connection as the configuration says. */
#ifndef PRIVD_LDAPCONN_H
#define PRIVD_LDAPCONN_H

#include <ldap.h>

#include "config.h"
#include "err.h"

/* Connects to ldap.uri and binds (as bind_dn, or as who/password when who
 * is not NULL); ERR_UNAVAILABLE when the server cannot be reached. */
int ldapc_open(const struct cfg *c, const char *who, const char *password,
    LDAP **out, struct err *e);
/* The same to ldap.write_uri (the provider, when privd follows a replica;
 * with several providers, the first that answers). */
int ldapc_open_write(const struct cfg *c, const char *who, const char *password,
    LDAP **out, struct err *e);
/* The same to one given URI, bound as ldap.bind_dn (a provider of the pool). */
int ldapc_open_uri(const struct cfg *c, const char *uri, LDAP **out, struct err *e);
void ldapc_close(LDAP *ld);
/* Maps an LDAP result code to an err (503 for down, 409 for conflicts...). */
int ldapc_fail(struct err *e, int rc, const char *what);

/*
 * A synchronous search with the configured timeout: 0 with *res (free with
 * ldap_msgfree), 1 when base does not exist (*res NULL), -1 and e on error.
 * Reaching sizelimit (> 0) is not an error: *res holds what came; with 0
 * (everything), a server limit that cuts the answer short is one.
 */
int ldapc_search(LDAP *ld, const struct cfg *c, const char *base, int scope,
    const char *filter, char **attrs, int sizelimit, LDAPMessage **res,
    struct err *e);
/*
 * A search in pages of page entries (RFC 2696): fn(ld, entry, arg) for
 * each, so a large answer is never held whole. 0, 1 when base does not
 * exist, -1 and e (also when fn returns non-zero: out of memory).
 */
int ldapc_paged(LDAP *ld, const struct cfg *c, const char *base, int scope,
    const char *filter, char **attrs, int page,
    int (*fn)(LDAP *, LDAPMessage *, void *), void *arg, struct err *e);
/* The values of attr as a strv (empty when absent); NULL when out of memory. */
char **ldapc_get_strv(LDAP *ld, LDAPMessage *m, const char *attr);
/* "(|(attr=v0)(attr=v1)...)" with every value escaped; malloc'd, NULL when out of memory. */
char *ldapc_or_filter(const char *attr, const char *const *vals, size_t n);
/* The first value of attr as a number: 0, or -1 when absent or not one. */
int ldapc_get_ll(LDAP *ld, LDAPMessage *m, const char *attr, long long *out);
/* The first value of attr, malloc'd; NULL when absent. */
char *ldapc_get_str(LDAP *ld, LDAPMessage *m, const char *attr);
/* Copies the first value of attr into out (size n); -1 when absent or too long. */
int ldapc_get_buf(LDAP *ld, LDAPMessage *m, const char *attr, char *out, size_t n);
/* Copies v into out (size n), terminated; -1 when it does not fit. */
int ldapc_bv_buf(const struct berval *v, char *out, size_t n);
/* Whether attribute description a (from ldap_get_attribute_ber) is name;
 * privd asks for no options. */
int ldapc_is_attr(const struct berval *a, const char *name);

#endif

/*
 * dirconf.h - what slapd needs for privd, from one list: the syncprov
 * module and overlay, the indexes, the limits for privd's bind DN and the
 * ACLs, written as slapd.conf lines or as cn=config LDIF, checked by
 * privd --check-directory, and the subtree privd setup-directory creates.
 */
#ifndef PRIVD_DIRCONF_H
#define PRIVD_DIRCONF_H

#include <stdio.h>

#include <ldap.h>

#include "config.h"

struct dirconf_site {
	const char *database;	/* cn=config DN of the database, e.g. olcDatabase={1}mdb,cn=config */
	const char *admins;	/* DN of the privd administrators' group */
};

/* The site's values: the defaults for what s leaves NULL. */
void dirconf_defaults(const struct cfg *c, struct dirconf_site *s, char *buf, size_t n);
/* Writes the slapd.conf lines ("slapd.conf") or the cn=config LDIF ("ldif"); -1 for another form. */
int dirconf_print(const struct cfg *c, const struct dirconf_site *s, const char *form, FILE *f);

/* Creates privd's subtree (base, ou=reasons, ou=organisations, ou=cells,
 * ou=usage, ou=imports) as far as it is missing; on ld. 0, or -1 with e. */
int dirconf_setup(LDAP *ld, const struct cfg *c, int dry_run, FILE *out, struct err *e);
/*
 * Adds the organizationalUnit dn names (its first RDN must be ou=NAME):
 * the LDAP result, LDAP_SUCCESS without writing under dry_run, and
 * LDAP_INVALID_DN_SYNTAX when dn is no ou=NAME.
 */
int dirconf_add_ou(LDAP *ld, const char *dn, int dry_run);

/*
 * The preflight: bind, schema, subtree, syncprov, privd's writes, size
 * limit, indexes; one line each on out, a failure naming its fix.
 * 0 all passed, 1 something failed, 3 LDAP could not be reached.
 */
int dirconf_check(const struct cfg *c, FILE *out);

/* The first of privd's object classes the directory's schema lacks (the
 * schema is missing, or older than this privd), or NULL. */
const char *dirconf_schema_missing(LDAP *ld);

#endif

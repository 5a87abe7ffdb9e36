/* wop.h - one atomic LDAP modify of one entry, with an optional assertion. */
#ifndef PRIVD_WOP_H
#define PRIVD_WOP_H

#include <ldap.h>

#define WOP_MODS 8

/* A modify of dn (borrowed); owns its values and assertion. */
struct wop {
	const char *dn;
	char *assert;		/* an LDAP filter the entry must match, or NULL */
	int nmod;
	LDAPMod mod[WOP_MODS];
	char *val[WOP_MODS][2];
	LDAPMod *mods[WOP_MODS + 1];
};

/* Adds a modification of type (op LDAP_MOD_*) with one formatted value; -1 when full. */
int wop_mod(struct wop *o, int op, const char *type, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Sends the modify: the LDAP result code. */
int wop_run(LDAP *ld, struct wop *o);
/* Frees the values; o can be reused. */
void wop_free(struct wop *o);

#endif

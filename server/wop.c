/*
 * wop.c - one LDAP modify, built value by value, sent with an optional
 * assertion (RFC 4528). privd's counters (quotas, sessions) change only so:
 * slapd applies a modify whole or not at all, after checking the assertion.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wop.h"

void
wop_free(struct wop *o)
{
	int i;

	for (i = 0; i < o->nmod; i++)
		free(o->val[i][0]);
	free(o->assert);
	memset(o, 0, sizeof(*o));
}

/* Adds a modification of type with one formatted value. */
int
wop_mod(struct wop *o, int op, const char *type, const char *fmt, ...)
{
	LDAPMod *m;
	va_list ap;
	int n;

	if (o->nmod == WOP_MODS)
		return -1;
	m = &o->mod[o->nmod];
	va_start(ap, fmt);
	n = vasprintf(&o->val[o->nmod][0], fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	o->val[o->nmod][1] = NULL;
	m->mod_op = op;
	m->mod_type = (char *)type;
	m->mod_values = o->val[o->nmod];
	o->nmod++;
	return 0;
}

int
wop_swap(struct wop *o, const char *type, long long old, long long new)
{
	if (old == new)
		return 0;
	if (o->nmod + 2 > WOP_MODS)
		return -1;
	return wop_mod(o, LDAP_MOD_DELETE, type, "%lld", old) != 0 ||
	    wop_mod(o, LDAP_MOD_ADD, type, "%lld", new) != 0 ? -1 : 0;
}

/* Sends the modify: the LDAP result code. */
int
wop_run(LDAP *ld, struct wop *o)
{
	LDAPControl *actrl = NULL, *ctrls[2] = { NULL, NULL };
	int i, rc;

	for (i = 0; i < o->nmod; i++)
		o->mods[i] = &o->mod[i];
	o->mods[o->nmod] = NULL;
	if (o->assert != NULL) {
		if ((rc = ldap_create_assertion_control(ld, o->assert, 1, &actrl)) != LDAP_SUCCESS)
			return rc;
		ctrls[0] = actrl;
	}
	rc = ldap_modify_ext_s(ld, o->dn, o->mods, ctrls, NULL);
	if (actrl != NULL)
		ldap_control_free(actrl);
	return rc;
}

void
wop_try_init(struct wop_try *t, const char *what)
{
	t->n = 0;
	t->what = what;
}

int
wop_try(struct wop_try *t, struct err *e)
{
	if (t->n++ < WOP_TRIES)
		return 1;
	err_set(e, ERR_UNAVAILABLE, 0, NULL, "%s: gave up after %d attempts under contention",
	    t->what, WOP_TRIES);
	return 0;
}

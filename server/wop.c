/*
 * wop.c - one LDAP modify, built value by value, sent with an optional
 * assertion (RFC 4528). privd's counters (quotas, sessions) change only so:
 * slapd applies a modify whole or not at all, after checking the assertion.
 * The entry as the modify left it comes back in the same answer (RFC 4527
 * post-read) where asked: a charge then needs no second search to learn
 * its counters, and they are exactly those of its own write.
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fault.h"
#include "skew.h"
#include "wop.h"

void
wop_free(struct wop *o)
{
	int i;

	for (i = 0; i < o->nmod; i++)
		free(o->val[i][0]);
	for (i = 0; i < WOP_READ; i++)
		free(o->got[i]);
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

/* The post-read request: the attribute names, non-critical (a directory
 * without it answers the modify alone). 0, or -1. */
static int
read_control(char **attrs, LDAPControl **ctrl)
{
	BerElement *ber = ber_alloc_t(LBER_USE_DER);
	struct berval bv;
	int rc = -1;

	if (ber == NULL)
		return -1;
	if (ber_printf(ber, "{v}", attrs) != -1 && ber_flatten2(ber, &bv, 0) == 0 &&
	    ldap_control_create(LDAP_CONTROL_POST_READ, 0, &bv, 1, ctrl) == LDAP_SUCCESS)
		rc = 0;
	ber_free(ber, 1);
	return rc;
}

/* The post-read answer: a SearchResultEntry (the DN, then each attribute
 * with its values); the first value of each name asked for goes to got. */
static void
take_read(struct wop *o, const LDAPControl *c)
{
	BerElement *ber = ber_init((struct berval *)&c->ldctl_value);
	struct berval dn, type;
	BerVarray vals;
	ber_len_t len;
	ber_tag_t tag;
	char *last;
	int i;

	if (ber == NULL)
		return;
	if (ber_scanf(ber, "{m", &dn) == LBER_ERROR)
		goto done;
	for (tag = ber_first_element(ber, &len, &last); tag != LBER_DEFAULT;
	    tag = ber_next_element(ber, &len, last)) {
		vals = NULL;
		if (ber_scanf(ber, "{m[W]}", &type, &vals) == LBER_ERROR)
			goto done;
		for (i = 0; i < WOP_READ && o->read[i]; i++)
			if (strlen(o->read[i]) == type.bv_len && vals && vals[0].bv_val &&
			    o->got[i] == NULL &&
			    strncasecmp(o->read[i], type.bv_val, type.bv_len) == 0)
				o->got[i] = strndup(vals[0].bv_val, vals[0].bv_len);
		ber_bvarray_free(vals);
	}
	o->have_got = 1;
done:
	ber_free(ber, 1);
}

/* Sends the modify: the LDAP result code. */
int
wop_run(LDAP *ld, struct wop *o)
{
	LDAPControl *actrl = NULL, *rctrl = NULL, *ctrls[3] = { NULL, NULL, NULL };
	LDAPControl **answer = NULL, *c;
	LDAPMessage *res = NULL;
	int i, k = 0, msgid, err = LDAP_OTHER, rc;

	for (i = 0; i < o->nmod; i++)
		o->mods[i] = &o->mod[i];
	o->mods[o->nmod] = NULL;
	for (i = 0; i < WOP_READ; i++) {
		free(o->got[i]);
		o->got[i] = NULL;
	}
	o->have_got = 0;
	if (o->assert != NULL) {
		if ((rc = ldap_create_assertion_control(ld, o->assert, 1, &actrl)) != LDAP_SUCCESS)
			return rc;
		ctrls[k++] = actrl;
	}
	if (o->read != NULL && read_control(o->read, &rctrl) == 0)
		ctrls[k++] = rctrl;
	o->sent = skew_clock();
	rc = ldap_modify_ext(ld, o->dn, o->mods, ctrls, NULL, &msgid);
	if (rc == LDAP_SUCCESS) {
		/* as ldap_modify_ext_s waits, but keeping the answer's controls */
		if (ldap_result(ld, msgid, LDAP_MSG_ALL, NULL, &res) <= 0 || res == NULL) {
			ldap_msgfree(res);
			ldap_get_option(ld, LDAP_OPT_RESULT_CODE, &rc);
			if (rc == LDAP_SUCCESS)
				rc = LDAP_SERVER_DOWN;
		} else if ((rc = ldap_parse_result(ld, res, &err, NULL, NULL, NULL, &answer,
		    1)) == LDAP_SUCCESS)
			rc = err;
	}
	if (rc == LDAP_SUCCESS && fault_lose("answer", o->dn))
		rc = LDAP_SERVER_DOWN;
	o->answered = skew_clock();
	wop_doubt(ld, o->dn, rc);
	if (rc == LDAP_SUCCESS && o->read != NULL &&
	    (c = ldap_control_find(LDAP_CONTROL_POST_READ, answer, NULL)) != NULL)
		take_read(o, c);
	ldap_controls_free(answer);
	ldap_control_free(actrl);
	ldap_control_free(rctrl);
	return rc;
}

int
wop_swap_value(LDAP *ld, const char *dn, const char *attr, const char *old, const char *new)
{
	struct wop o;
	int rc;

	memset(&o, 0, sizeof(o));
	o.dn = dn;
	if (wop_mod(&o, LDAP_MOD_DELETE, attr, "%s", old) != 0 ||
	    wop_mod(&o, LDAP_MOD_ADD, attr, "%s", new) != 0)
		rc = LDAP_NO_MEMORY;
	else
		rc = wop_run(ld, &o);
	wop_free(&o);
	return rc;
}

static void (*_Atomic doubt)(LDAP *, const char *);

void
wop_on_doubt(void (*fn)(LDAP *ld, const char *dn))
{
	atomic_store(&doubt, fn);
}

void
wop_doubt(LDAP *ld, const char *dn, int rc)
{
	void (*fn)(LDAP *, const char *) = atomic_load(&doubt);

	if (fn != NULL && (rc == LDAP_SERVER_DOWN || rc == LDAP_TIMEOUT ||
	    rc == LDAP_CONNECT_ERROR || rc == LDAP_TIMELIMIT_EXCEEDED))
		fn(ld, dn);
}

const char *
wop_got(const struct wop *o, const char *type)
{
	int i;

	for (i = 0; o->have_got && i < WOP_READ && o->read[i]; i++)
		if (strcasecmp(o->read[i], type) == 0)
			return o->got[i];
	return NULL;
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

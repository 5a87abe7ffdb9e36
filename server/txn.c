/* txn.c - running a list of LDAP writes as one RFC 5805 transaction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldapconn.h"
#include "ldpool.h"
#include "txn.h"

static int run(LDAP *, const struct cfg *, const struct txn_plan *, struct err *);

char **
txn_vals_new(size_t n)
{
	return calloc(n + 1, sizeof(char *));
}

void
txn_vals_free(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

struct txn_op *
txn_op_new(struct txn_plan *p, enum txn_kind kind, char *dn)
{
	struct txn_op *o;

	if (dn == NULL)
		return NULL;
	if (p->nops == p->cap) {
		size_t nc = p->cap ? p->cap * 2 : 32;
		struct txn_op *n = realloc(p->ops, nc * sizeof(*n));

		if (n == NULL) {
			free(dn);
			return NULL;
		}
		p->ops = n;
		p->cap = nc;
	}
	o = &p->ops[p->nops++];
	memset(o, 0, sizeof(*o));
	o->kind = kind;
	o->dn = dn;
	return o;
}

/* Adds a mod owning vals (NULL-terminated, malloc'd strings). */
int
txn_op_mod(struct txn_op *o, int type, const char *attr, char **vals)
{
	if (vals == NULL || o->nmod == TXN_MODS) {
		txn_vals_free(vals);
		return -1;
	}
	o->vals[o->nmod] = vals;
	o->mod[o->nmod].mod_op = type;
	o->mod[o->nmod].mod_type = (char *)attr;
	o->mod[o->nmod].mod_values = vals;
	o->nmod++;
	return 0;
}

char **
txn_vals_of(const char *a, const char *b)
{
	char **v = txn_vals_new(2);

	if (v == NULL)
		return NULL;
	if ((v[0] = strdup(a)) == NULL || (b && (v[1] = strdup(b)) == NULL)) {
		txn_vals_free(v);
		return NULL;
	}
	return v;
}

void
txn_plan_free(struct txn_plan *p)
{
	size_t i, j;

	for (i = 0; i < p->nops; i++) {
		for (j = 0; j < p->ops[i].nmod; j++)
			txn_vals_free(p->ops[i].vals[j]);
		free(p->ops[i].dn);
		free(p->ops[i].newrdn);
		free(p->ops[i].newsup);
	}
	free(p->ops);
}

static int
wait_op(LDAP *ld, const struct cfg *c, int msgid, const struct txn_op *o, struct err *e)
{
	struct timeval tv = { c->ldap_timeout_s, 0 };
	LDAPMessage *res = NULL;
	int rc, err = LDAP_OTHER;
	char *text = NULL;

	rc = ldap_result(ld, msgid, LDAP_MSG_ALL, &tv, &res);
	if (rc <= 0) {
		ldap_msgfree(res);
		return ldapc_fail(e, rc == 0 ? LDAP_TIMEOUT : LDAP_SERVER_DOWN, o->dn);
	}
	ldap_parse_result(ld, res, &err, NULL, &text, NULL, NULL, 1);
	if (err != LDAP_SUCCESS) {
		ldapc_fail(e, err, o->dn);
		if (text && *text && e)
			snprintf(e->msg + strlen(e->msg), sizeof(e->msg) - strlen(e->msg),
			    " (%s)", text);
	}
	ldap_memfree(text);
	return err == LDAP_SUCCESS ? 0 : -1;
}

/*
 * Ends (commits or aborts) a transaction: the result code slapd gave. Not
 * ldap_txn_end_s: libldap 2.5 reports a refused commit as a decoding error
 * instead of its result.
 */
static int
end(LDAP *ld, const struct cfg *c, struct berval *txnid, int commit)
{
	struct timeval tv = { c->ldap_timeout_s, 0 };
	LDAPMessage *res = NULL;
	int rc, msgid, err = LDAP_OTHER;

	if ((rc = ldap_txn_end(ld, commit, txnid, NULL, NULL, &msgid)) != LDAP_SUCCESS)
		return rc;
	rc = ldap_result(ld, msgid, LDAP_MSG_ALL, &tv, &res);
	if (rc <= 0) {
		ldap_msgfree(res);
		return rc == 0 ? LDAP_TIMEOUT : LDAP_SERVER_DOWN;
	}
	if (ldap_parse_result(ld, res, &err, NULL, NULL, NULL, NULL, 1) != LDAP_SUCCESS)
		return LDAP_DECODING_ERROR;
	return err;
}

int
txn_run(LDAP *ld, const struct cfg *c, const struct txn_plan *p, struct err *e)
{
	int rc;

	ldpool_txn_lock();
	rc = run(ld, c, p, e);
	ldpool_txn_unlock();
	return rc;
}

static int
run(LDAP *ld, const struct cfg *c, const struct txn_plan *p, struct err *e)
{
	struct berval *txnid = NULL;
	LDAPControl ctrl, *ctrls[2] = { &ctrl, NULL };
	size_t i;
	int rc, msgid;

	if ((rc = ldap_txn_start_s(ld, NULL, NULL, &txnid)) != LDAP_SUCCESS)
		return ldapc_fail(e, rc, "start transaction");
	ctrl.ldctl_oid = LDAP_CONTROL_TXN_SPEC;
	ctrl.ldctl_value = *txnid;
	ctrl.ldctl_iscritical = 1;
	for (i = 0; i < p->nops; i++) {
		struct txn_op *o = &p->ops[i];
		LDAPMod *mods[TXN_MODS + 1];
		size_t j;

		for (j = 0; j < o->nmod; j++)
			mods[j] = &o->mod[j];
		mods[o->nmod] = NULL;
		switch (o->kind) {
		case TXN_ADD:
			rc = ldap_add_ext(ld, o->dn, mods, ctrls, NULL, &msgid);
			break;
		case TXN_MODIFY:
			rc = ldap_modify_ext(ld, o->dn, mods, ctrls, NULL, &msgid);
			break;
		case TXN_DELETE:
			rc = ldap_delete_ext(ld, o->dn, ctrls, NULL, &msgid);
			break;
		case TXN_RENAME:
			rc = ldap_rename(ld, o->dn, o->newrdn, o->newsup, 1, ctrls, NULL, &msgid);
			break;
		}
		if (rc != LDAP_SUCCESS) {
			ldapc_fail(e, rc, o->dn);
			goto abort;
		}
		if (wait_op(ld, c, msgid, o, e) != 0)
			goto abort;
	}
	rc = end(ld, c, txnid, 1);
	ber_bvfree(txnid);
	if (rc != LDAP_SUCCESS)
		return ldapc_fail(e, rc, "commit (nothing was written)");
	return 0;
abort:
	end(ld, c, txnid, 0);
	ber_bvfree(txnid);
	return -1;
}


int
txn_run_each(LDAP *ld, const struct cfg *c, const struct txn_plan *p, struct err *e)
{
	size_t i;

	(void)c;
	for (i = 0; i < p->nops; i++) {
		struct txn_op *o = &p->ops[i];
		LDAPMod *mods[TXN_MODS + 1];
		size_t j;
		int rc = LDAP_OTHER;

		for (j = 0; j < o->nmod; j++)
			mods[j] = &o->mod[j];
		mods[o->nmod] = NULL;
		ldpool_write_begin();
		switch (o->kind) {
		case TXN_ADD:
			rc = ldap_add_ext_s(ld, o->dn, mods, NULL, NULL);
			break;
		case TXN_MODIFY:
			rc = ldap_modify_ext_s(ld, o->dn, mods, NULL, NULL);
			break;
		case TXN_DELETE:
			rc = ldap_delete_ext_s(ld, o->dn, NULL, NULL);
			break;
		case TXN_RENAME:
			rc = ldap_rename_s(ld, o->dn, o->newrdn, o->newsup, 1, NULL, NULL);
			break;
		}
		ldpool_write_end();
		if (rc != LDAP_SUCCESS)
			return ldapc_fail(e, rc, o->dn);
	}
	return 0;
}

/*
 * chgwrite.c - a change's LDAP writes (chgwrite.h): each one atomic in
 * slapd, sent with a window in flight, stopped at the first refusal, at a
 * SIGTERM or when the change's record says so; an answer that never came
 * is said to be unknown, never "not written".
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ldap.h>

#include "chgwrite.h"
#include "ldapconn.h"
#include "strv.h"

void
chgw_plan_free(struct chgw_plan *p)
{
	size_t i, j;

	for (i = 0; i < p->n; i++) {
		for (j = 0; j < p->ops[i].nmod; j++)
			strv_free(p->ops[i].vals[j]);
		free(p->ops[i].dn);
		free(p->ops[i].assert);
	}
	free(p->ops);
	memset(p, 0, sizeof(*p));
}

/* A new write on dn (taken); NULL when out of memory. */
struct chgw_op *
chgw_op_new(struct chgw_plan *p, int stage, enum chgw_kind kind, char *dn)
{
	struct chgw_op *o;

	if (dn == NULL)
		return NULL;
	if (p->n == p->cap) {
		size_t nc = p->cap ? p->cap * 2 : 64;
		struct chgw_op *n = realloc(p->ops, nc * sizeof(*n));

		if (n == NULL) {
			free(dn);
			return NULL;
		}
		p->ops = n;
		p->cap = nc;
	}
	o = &p->ops[p->n];
	memset(o, 0, sizeof(*o));
	o->stage = stage;
	o->seq = p->n++;
	o->kind = kind;
	o->dn = dn;
	return o;
}

/* Adds a modification owning vals (freed on failure too). */
int
chgw_op_mod(struct chgw_op *o, int type, const char *attr, char **vals)
{
	if (o == NULL || vals == NULL || o->nmod == CHGW_MODS) {
		strv_free(vals);
		return -1;
	}
	o->vals[o->nmod] = vals;
	o->mod[o->nmod].mod_op = type;
	o->mod[o->nmod].mod_type = (char *)attr;
	o->mod[o->nmod].mod_values = vals;
	o->nmod++;
	return 0;
}

static int
by_stage(const void *a, const void *b)
{
	const struct chgw_op *x = a, *y = b;

	if (x->stage != y->stage)
		return x->stage < y->stage ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int
send_op(LDAP *ld, struct chgw_op *o, int *msgid)
{
	LDAPMod *mods[CHGW_MODS + 1];
	LDAPControl *actrl = NULL, *ctrls[2] = { NULL, NULL };
	size_t j;
	int rc = LDAP_OTHER;

	for (j = 0; j < o->nmod; j++)
		mods[j] = &o->mod[j];
	mods[o->nmod] = NULL;
	if (o->assert != NULL) {
		if ((rc = ldap_create_assertion_control(ld, o->assert, 1, &actrl)) != LDAP_SUCCESS)
			return rc;
		ctrls[0] = actrl;
	}
	switch (o->kind) {
	case CHGW_ADD:
		rc = ldap_add_ext(ld, o->dn, mods, ctrls, NULL, msgid);
		break;
	case CHGW_MODIFY:
		rc = ldap_modify_ext(ld, o->dn, mods, ctrls, NULL, msgid);
		break;
	case CHGW_DELETE:
		rc = ldap_delete_ext(ld, o->dn, ctrls, NULL, msgid);
		break;
	}
	ldap_control_free(actrl);
	return rc;
}

/*
 * The words for a write whose answer never came: it may have landed. Never
 * "nothing was written".
 */
int
chgw_unknown(struct err *e, int rc, size_t inflight, const char *dn, const char *id)
{
	if (*id)
		return err_set(e, ERR_UNAVAILABLE, 0, NULL,
		    "LDAP %s while writing %s: the outcome of %zu write%s in flight is unknown; "
		    "the change is recorded as import %s: run it again to finish it, or undo "
		    "it with privctl import --abort %s", rc == LDAP_TIMEOUT ?
		    "did not answer in time" : "went away", dn, inflight, inflight == 1 ? "" : "s",
		    id, id);
	return err_set(e, ERR_UNAVAILABLE, 0, NULL,
	    "LDAP %s while writing %s: whether it was written is unknown; read it back, "
	    "or send the same change again (it is idempotent)", rc == LDAP_TIMEOUT ?
	    "did not answer in time" : "went away", dn);
}

/* set by a SIGTERM: changes stop sending, wait for what is in flight, and
 * leave their record open for the next run to finish */
static atomic_int stopping;

void
chgw_stop(void)
{
	atomic_store(&stopping, 1);
}

int
chgw_window(LDAP *ld, const struct cfg *c, struct chgw_op *ops, size_t from, size_t to,
    size_t window, const char *id, int expect, chgw_check *check, size_t *writes,
    struct err *e)
{
	struct timeval tv = { c->ldap_bulk_timeout_s, 0 };
	int msgids[CHGW_WINDOW];
	size_t idx[CHGW_WINDOW], inflight = 0, next = from, k;
	int failed = 0;

	while (next < to || inflight > 0) {
		LDAPMessage *res = NULL;
		int rc, msgid, err = LDAP_OTHER;
		char *text = NULL;

		while (!failed && next < to && inflight < window) {
			if (atomic_load(&stopping)) {
				if (*id)
					err_set(e, ERR_STOPPING, 0, "import", "privd is stopping: "
					    "import %s is left open; run it again to finish it, or "
					    "undo it with privctl import --abort %s", id, id);
				else
					err_set(e, ERR_STOPPING, 0, NULL, "privd is stopping: the "
					    "change was not finished; send it again");
				failed = 1;
				break;
			}
			if (check && expect && *id && (next - from) % CHGW_CHECK_EVERY == 0 &&
			    check(ld, c, id, expect, e) != 0) {
				failed = 1;
				break;
			}
			if ((rc = send_op(ld, &ops[next], &msgids[inflight])) != LDAP_SUCCESS) {
				if (rc == LDAP_SERVER_DOWN || rc == LDAP_TIMEOUT)
					return chgw_unknown(e, rc, inflight, ops[next].dn, id);
				ldapc_fail(e, rc, ops[next].dn);
				failed = 1;
				break;
			}
			idx[inflight++] = next++;
		}
		if (inflight == 0)
			break;
		rc = ldap_result(ld, LDAP_RES_ANY, LDAP_MSG_ALL, &tv, &res);
		if (rc <= 0) {
			ldap_msgfree(res);
			return chgw_unknown(e, rc == 0 ? LDAP_TIMEOUT : LDAP_SERVER_DOWN, inflight,
			    ops[idx[0]].dn, id);
		}
		msgid = ldap_msgid(res);
		for (k = 0; k < inflight && msgids[k] != msgid; k++)
			;
		if (k == inflight) {
			ldap_msgfree(res);
			continue;
		}
		ldap_parse_result(ld, res, &err, NULL, &text, NULL, NULL, 1);
		if (err == LDAP_ASSERTION_FAILED && !failed) {
			err_set(e, ERR_CONFLICT, 0, "conflict", "%s changed since this edit read it",
			    ops[idx[k]].dn);
			err_why(e, ERR_WHY_CONFLICT);
			failed = 1;
		} else if (err != LDAP_SUCCESS && !failed) {
			ldapc_fail(e, err, ops[idx[k]].dn);
			if (text && *text && e)
				snprintf(e->msg + strlen(e->msg), sizeof(e->msg) - strlen(e->msg),
				    " (%s)", text);
			failed = 1;
		} else if (err == LDAP_SUCCESS)
			(*writes)++;
		ldap_memfree(text);
		msgids[k] = msgids[inflight - 1];
		idx[k] = idx[inflight - 1];
		inflight--;
	}
	return failed ? -1 : 0;
}

/* The entryCSN of dn into out; "" when it cannot be read. */
void
chgw_read_csn(LDAP *ld, const struct cfg *c, const char *dn, char out[CHG_CSN_MAX])
{
	char *attrs[] = { "entryCSN", NULL };
	LDAPMessage *res = NULL, *m;

	out[0] = '\0';
	if (ldapc_search(ld, c, dn, LDAP_SCOPE_BASE, "(objectClass=*)", attrs, 0, &res,
	    NULL) == 0 && res && (m = ldap_first_entry(ld, res)) != NULL)
		ldapc_get_buf(ld, m, "entryCSN", out, CHG_CSN_MAX);
	ldap_msgfree(res);
}

/*
 * Runs the plan stage by stage. The people stage ends with one write on
 * its own, so that its entryCSN is the stage's newest: the follower waits
 * for it before it shows the change.
 */
int
chgw_run(LDAP *ld, const struct cfg *c, struct chgw_plan *p, const char *id, int expect,
    chgw_check *check, struct chg_result *res, struct err *e)
{
	size_t from = 0, to;

	if (p->n == 0)
		return 0;	/* nothing differs: ops may be NULL */
	qsort(p->ops, p->n, sizeof(*p->ops), by_stage);
	while (from < p->n) {
		int people = p->ops[from].stage == CHGW_PEOPLE;

		for (to = from; to < p->n && p->ops[to].stage == p->ops[from].stage; to++)
			;
		if (chgw_window(ld, c, p->ops, from, people ? to - 1 : to, CHGW_WINDOW, id, expect,
		    check, &res->writes, e) != 0)
			return -1;
		if (people) {
			if (chgw_window(ld, c, p->ops, to - 1, to, 1, id, expect, check, &res->writes,
			    e) != 0)
				return -1;
			chgw_read_csn(ld, c, p->ops[to - 1].dn, res->csn_people);
		} else if (p->ops[to - 1].stage != CHGW_PERSON_DEL && p->ops[to - 1].kind != CHGW_DELETE) {
			char csn[CHG_CSN_MAX];

			chgw_read_csn(ld, c, p->ops[to - 1].dn, csn);
			if (*csn)
				memcpy(res->csn_privileges, csn, sizeof(csn));
		}
		from = to;
	}
	return 0;
}


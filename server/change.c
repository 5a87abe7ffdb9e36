/*
 * change.c - model changes written entry by entry, with a record that lets
 * readers see all of a change or none, and lets it be finished or undone.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#include <lber.h>
#include <ldap.h>
#include <nettle/sha2.h>

#include "change.h"
#include "dirview.h"
#include "dn.h"
#include "ldapconn.h"
#include "log.h"
#include "membership.h"
#include "path.h"
#include "grant.h"
#include "pool.h"
#include "strmap.h"
#include "strv.h"

#define WINDOW		32	/* writes in flight on one connection */
#define CHUNK		500	/* states per record part */
#define MODS		8

/* Stages: nodes before cells before memberships; removals the reverse. */
enum {
	ST_NODE_ADD = 1,			/* + depth */
	ST_CELL_PUT = 30,
	ST_PERSON_DEL = 40,
	ST_PEOPLE = 41,
	ST_CELL_DEL = 50,
	ST_NODE_DEL = 60			/* + PATH_DEPTH_MAX - depth */
};

enum op_kind { OP_ADD, OP_MODIFY, OP_DELETE };

struct op {
	int stage;
	size_t seq;
	enum op_kind kind;
	char *dn;
	LDAPMod mod[MODS];	/* pointed at only when sent: ops move on realloc */
	char **vals[MODS];
	size_t nmod;
	char *assert;		/* a filter the entry must still match, or NULL */
};

struct plan {
	struct op *ops;
	size_t n, cap;
};

static int
oom(struct err *e)
{
	return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
}

/* ---- states ---- */

void
chg_obj_free(struct chg_obj *o)
{
	size_t i;

	for (i = 0; i < o->nvals; i++)
		free(o->vals[i]);
	free(o->vals);
	free(o->key);
	memset(o, 0, sizeof(*o));
}

void
chg_list_free(struct chg_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		chg_obj_free(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

int
chg_put(struct chg_list *l, char kind, int present, const char *key,
    char *const *vals, size_t nvals)
{
	struct chg_obj *o;
	size_t i;

	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 16;
		struct chg_obj *nv = realloc(l->v, nc * sizeof(*nv));

		if (nv == NULL)
			return -1;
		l->v = nv;
		l->cap = nc;
	}
	o = &l->v[l->n];
	memset(o, 0, sizeof(*o));
	o->kind = kind;
	o->present = present;
	if ((o->key = strdup(key)) == NULL ||
	    (nvals && (o->vals = calloc(nvals, sizeof(char *))) == NULL))
		goto fail;
	for (i = 0; i < nvals; i++) {
		if (vals[i][0] == '\0')
			continue;	/* a membership that is not a cell of ours */
		if ((o->vals[o->nvals] = strdup(vals[i])) == NULL)
			goto fail;
		o->nvals++;
	}
	l->n++;
	return 0;
fail:
	chg_obj_free(o);
	return -1;
}

char *
chg_encode(const struct chg_obj *o)
{
	size_t n = strlen(o->key) + 3, i;
	char *s, *p;

	for (i = 0; i < o->nvals; i++)
		n += strlen(o->vals[i]) + 1;
	if ((s = malloc(n)) == NULL)
		return NULL;
	p = s + sprintf(s, "%c%c%s", o->kind, o->present ? '+' : '-', o->key);
	for (i = 0; i < o->nvals; i++)
		p += sprintf(p, "\t%s", o->vals[i]);
	return s;
}

int
chg_decode(const char *s, size_t len, struct chg_obj *o)
{
	const char *p, *end = s + len, *tab;
	size_t n = 0;

	memset(o, 0, sizeof(*o));
	if (len < 3 || strchr("rocap", s[0]) == NULL || (s[1] != '+' && s[1] != '-'))
		return -1;
	o->kind = s[0];
	o->present = s[1] == '+';
	for (p = s + 2; p < end; p++)
		n += *p == '\t';
	if ((o->vals = calloc(n + 1, sizeof(char *))) == NULL)
		return -1;
	p = s + 2;
	tab = memchr(p, '\t', end - p);
	if ((o->key = strndup(p, (tab ? tab : end) - p)) == NULL)
		goto fail;
	while (tab != NULL) {
		p = tab + 1;
		tab = memchr(p, '\t', end - p);
		if ((o->vals[o->nvals] = strndup(p, (tab ? tab : end) - p)) == NULL)
			goto fail;
		o->nvals++;
	}
	if (o->key[0] == '\0' && o->kind != CHG_CELL)
		goto fail;
	return 0;
fail:
	chg_obj_free(o);
	return -1;
}

/* ---- planned writes ---- */

static void
plan_free(struct plan *p)
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
static struct op *
op_new(struct plan *p, int stage, enum op_kind kind, char *dn)
{
	struct op *o;

	if (dn == NULL)
		return NULL;
	if (p->n == p->cap) {
		size_t nc = p->cap ? p->cap * 2 : 64;
		struct op *n = realloc(p->ops, nc * sizeof(*n));

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
static int
op_mod(struct op *o, int type, const char *attr, char **vals)
{
	if (o == NULL || vals == NULL || o->nmod == MODS) {
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
	const struct op *x = a, *y = b;

	if (x->stage != y->stage)
		return x->stage < y->stage ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int
send_op(LDAP *ld, struct op *o, int *msgid)
{
	LDAPMod *mods[MODS + 1];
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
	case OP_ADD:
		rc = ldap_add_ext(ld, o->dn, mods, ctrls, NULL, msgid);
		break;
	case OP_MODIFY:
		rc = ldap_modify_ext(ld, o->dn, mods, ctrls, NULL, msgid);
		break;
	case OP_DELETE:
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
static int
unknown(struct err *e, int rc, size_t inflight, const char *dn, const char *id)
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

/*
 * Runs ops[from, to) with up to WINDOW in flight: slapd applies each one
 * atomically, and the stages order them. Stops issuing at the first
 * refusal and waits for what is in flight.
 */
static int state_is(LDAP *ld, const struct cfg *c, const char *id, const char *state);

/*
 * expect: the record's state while this runs ("open" for the change,
 * "aborting" for its undo); checked every CHECK_EVERY writes, so an abort
 * stops the change it undoes.
 */
#define CHECK_EVERY 256

/* set by a SIGTERM: changes stop sending, wait for what is in flight, and
 * leave their record open for the next run to finish */
static atomic_int stopping;

void
chg_stop(void)
{
	atomic_store(&stopping, 1);
}

static int
run_window(LDAP *ld, const struct cfg *c, struct op *ops, size_t from, size_t to,
    size_t window, const char *id, const char *expect, size_t *writes, struct err *e)
{
	struct timeval tv = { c->ldap_bulk_timeout_s, 0 };
	int msgids[WINDOW];
	size_t idx[WINDOW], inflight = 0, next = from, k;
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
			if (expect && *id && (next - from) % CHECK_EVERY == 0 &&
			    !state_is(ld, c, id, expect)) {
				err_set(e, ERR_CONFLICT, 0, "import", "import %s is no longer %s "
				    "(aborted, or finished by another privd): stopped", id, expect);
				failed = 1;
				break;
			}
			if ((rc = send_op(ld, &ops[next], &msgids[inflight])) != LDAP_SUCCESS) {
				if (rc == LDAP_SERVER_DOWN || rc == LDAP_TIMEOUT)
					return unknown(e, rc, inflight, ops[next].dn, id);
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
			return unknown(e, rc == 0 ? LDAP_TIMEOUT : LDAP_SERVER_DOWN, inflight,
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
static void
read_csn(LDAP *ld, const struct cfg *c, const char *dn, char out[CHG_CSN_MAX])
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
static int
run_plan(LDAP *ld, const struct cfg *c, struct plan *p, const char *id, const char *expect,
    struct chg_result *res, struct err *e)
{
	size_t from = 0, to;

	if (p->n == 0)
		return 0;	/* nothing differs: ops may be NULL */
	qsort(p->ops, p->n, sizeof(*p->ops), by_stage);
	while (from < p->n) {
		int people = p->ops[from].stage == ST_PEOPLE;

		for (to = from; to < p->n && p->ops[to].stage == p->ops[from].stage; to++)
			;
		if (run_window(ld, c, p->ops, from, people ? to - 1 : to, WINDOW, id, expect,
		    &res->writes, e) != 0)
			return -1;
		if (people) {
			if (run_window(ld, c, p->ops, to - 1, to, 1, id, expect, &res->writes, e) != 0)
				return -1;
			read_csn(ld, c, p->ops[to - 1].dn, res->csn_people);
		} else if (p->ops[to - 1].stage != ST_PERSON_DEL && p->ops[to - 1].kind != OP_DELETE) {
			char csn[CHG_CSN_MAX];

			read_csn(ld, c, p->ops[to - 1].dn, csn);
			if (*csn)
				memcpy(res->csn_privileges, csn, sizeof(csn));
		}
		from = to;
	}
	return 0;
}

/* ---- from states to writes ---- */

static int
plan_node(struct plan *p, const struct cfg *c, const struct chg_obj *o,
    const struct dview *d)
{
	int reason = o->kind == CHG_REASON;
	int have = strmap_get(reason ? &d->reasons.has : &d->orgs.has, o->key) != NULL;
	char *container = dn_join(reason ? "ou=reasons" : "ou=organisations", c->base_dn);
	int depth = path_depth(o->key), rc = -1;
	struct op *op;

	if (container == NULL)
		return -1;
	if (o->present && !have) {
		op = op_new(p, ST_NODE_ADD + depth, OP_ADD, dn_node(o->key, container));
		if (op_mod(op, LDAP_MOD_ADD, "objectClass", strv_of(reason ? "privReason" :
		    "privOrganisation", NULL)) != 0 ||
		    op_mod(op, LDAP_MOD_ADD, "cn", strv_of(path_leaf(o->key), NULL)) != 0)
			goto done;
	} else if (!o->present && have) {
		if (op_new(p, ST_NODE_DEL + PATH_DEPTH_MAX - depth, OP_DELETE,
		    dn_node(o->key, container)) == NULL)
			goto done;
	}
	rc = 0;
done:
	free(container);
	return rc;
}

/* The state the edit read of o's object (same kind and key), or NULL. */
static const struct chg_obj *
basis_of(const struct chg_list *basis, const struct chg_obj *o)
{
	size_t i;

	for (i = 0; basis && i < basis->n; i++)
		if (basis->v[i].kind == o->kind && strcmp(basis->v[i].key, o->key) == 0)
			return &basis->v[i];
	return NULL;
}

/* "(entryCSN=CSN)": the write lands only on the entry as it was read. */
static int
assert_csn(struct op *o, const char *csn)
{
	struct berval in = { strlen(csn), (char *)csn }, esc = { 0, NULL };
	int rc;

	if (o == NULL || *csn == '\0')
		return o == NULL ? -1 : 0;
	if (ldap_bv2escaped_filter_value(&in, &esc) != 0)
		return -1;
	rc = asprintf(&o->assert, "(entryCSN=%s)", esc.bv_val) < 0 ? -1 : 0;
	if (rc != 0)
		o->assert = NULL;
	ber_memfree(esc.bv_val);
	return rc;
}

/* v's names but the empty ones (memberships that are not cells of
 * privd's) into out (room for n); how many. */
static size_t
ours(char *const *v, size_t n, char **out)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (*v[i])
			out[k++] = v[i];
	return k;
}

/* Whether a and b hold the same cells of privd's. */
static int
same_cells(char *const *a, size_t na, char *const *b, size_t nb)
{
	char **va = strv_new(na), **vb = strv_new(nb);
	int same = va && vb && strv_same(va, ours(a, na, va), vb, ours(b, nb, vb));

	free(va);
	free(vb);
	return same;
}

static int
conflict(struct err *e, const char *what, const char *key)
{
	return err_set(e, ERR_CONFLICT, 0, "conflict", "%s %s changed since this edit read it",
	    what, key);
}

/*
 * b: the state the edit planned from (a one-entry edit, without a record),
 * or NULL. With it, a cell that no longer looks like b is a conflict, and
 * the write asserts the entryCSN read here: a change between the read and
 * the write makes it fail rather than overwrite (no lost update).
 */
static int
has_pool(char *const *v)
{
	for (; v && *v; v++)
		if (grant_pool_text(*v) != NULL)
			return 1;
	return 0;
}

static int
plan_cell(struct plan *p, const char *cells_dn, const struct chg_obj *o,
    const struct dview *d, const struct chg_obj *b, struct err *e)
{
	char reason[PATH_MAX_LEN + 1], org[PATH_MAX_LEN + 1];
	const struct dview_cell *dc = strmap_get(&d->cells, o->key);
	char **have = dc ? dc->grants : NULL;
	const char *csn = b && dc ? dc->csn : NULL;
	char **g = NULL, **pl = NULL;
	size_t ng, npl;
	struct op *op;
	int rc = 0;

	if (b && ((have != NULL) != b->present ||
	    (have && !strv_same(have, strv_len(have), b->vals, b->nvals))))
		return conflict(e, "cell", o->key);
	if (!o->present) {
		if (have && ((op = op_new(p, ST_CELL_DEL, OP_DELETE,
		    dn_child("cn", o->key, cells_dn))) == NULL || (csn && assert_csn(op, csn) != 0)))
			return oom(e);
		return 0;
	}
	if (have && strv_same(have, strv_len(have), o->vals, o->nvals))
		return 0;
	/* grants go to privGrant, a pool's limits to privPool (pool.h) */
	if (pool_split_vals(o->vals, o->nvals, &g, &ng, &pl, &npl) != 0)
		return oom(e);
	if (have) {
		/* replace, not delete: deleting an absent value-less attribute fails */
		op = op_new(p, ST_CELL_PUT, OP_MODIFY, dn_child("cn", o->key, cells_dn));
		rc = op_mod(op, LDAP_MOD_REPLACE, "privGrant", g);
		g = NULL;
		/* privPool only when pools are or were there: a directory
		 * whose schema predates pools keeps taking grant edits */
		if (rc == 0 && (npl > 0 || has_pool(have))) {
			rc = op_mod(op, LDAP_MOD_REPLACE, "privPool", pl);
			pl = NULL;
		}
		if (rc == 0 && csn)
			rc = assert_csn(op, csn);
		goto done;
	}
	if (cell_split(o->key, reason, org, NULL) != 0)
		goto done;
	op = op_new(p, ST_CELL_PUT, OP_ADD, dn_child("cn", o->key, cells_dn));
	if (op_mod(op, LDAP_MOD_ADD, "objectClass", strv_of("privCell", NULL)) != 0 ||
	    op_mod(op, LDAP_MOD_ADD, "cn", strv_of(o->key, NULL)) != 0 ||
	    (*reason && op_mod(op, LDAP_MOD_ADD, "privCellReason", strv_of(reason, NULL)) != 0) ||
	    (*org && op_mod(op, LDAP_MOD_ADD, "privCellOrganisation", strv_of(org, NULL)) != 0))
		rc = -1;
	else if (ng) {
		rc = op_mod(op, LDAP_MOD_ADD, "privGrant", g);
		g = NULL;
	}
	if (rc == 0 && npl) {
		rc = op_mod(op, LDAP_MOD_ADD, "privPool", pl);
		pl = NULL;
	}
done:
	strv_free(g);
	strv_free(pl);
	return rc != 0 ? oom(e) : 0;
}

static char **
membership_dns(const struct chg_obj *o, const char *cells_dn)
{
	char **v = strv_new(o->nvals), cell[MEMBERSHIP_MAX];
	time_t from, until;
	size_t i;

	for (i = 0; v && i < o->nvals; i++)
		if (membership_split(o->vals[i], cell, sizeof(cell), &from, &until) != 0 ||
		    (v[i] = dn_child("cn", cell, cells_dn)) == NULL) {
			strv_free(v);
			return NULL;
		}
	return v;
}

/* The privMembershipDates values of o's dated memberships (an empty strv
 * when none). */
static char **
membership_dates(const struct chg_obj *o)
{
	char **v = strv_new(o->nvals);
	size_t i, k = 0;
	int oom = 0;

	for (i = 0; v && i < o->nvals && !oom; i++)
		if ((v[k] = membership_dates_value(o->vals[i], &oom)) != NULL)
			k++;
	if (oom) {
		strv_free(v);
		return NULL;
	}
	return v;
}

/* Whether o has a dated membership. */
static int
has_dates(const struct chg_obj *o)
{
	size_t i;

	for (i = 0; i < o->nvals; i++)
		if (strchr(o->vals[i], '|') != NULL)
			return 1;
	return 0;
}

static int
plan_account(struct plan *p, const struct cfg *c, const char *cells_dn,
    const struct chg_obj *o, const struct dview *d, const struct chg_obj *b, struct err *e)
{
	const struct dview_person *have = strmap_get(&d->people, o->key);
	struct op *op;

	if (b && b->kind == CHG_ACCOUNT && (have == NULL || b->present != have->has_class ||
	    (b->present && !same_cells(have->cells, have->ncells, b->vals, b->nvals))))
		return conflict(e, "account", o->key);

	if (o->kind == CHG_PERSON) {
		if (have && op_new(p, ST_PERSON_DEL, OP_DELETE, strdup(have->dn)) == NULL)
			return oom(e);
		return 0;
	}
	if (!o->present) {
		if (have == NULL || !have->has_class)
			return 0;
		op = op_new(p, ST_PEOPLE, OP_MODIFY, strdup(have->dn));
		if (op_mod(op, LDAP_MOD_REPLACE, "privMembership", strv_new(0)) != 0 ||
		    (have->dated && op_mod(op, LDAP_MOD_REPLACE, "privMembershipDates",
		    strv_new(0)) != 0) ||
		    op_mod(op, LDAP_MOD_DELETE, "objectClass", strv_of("privAccount", NULL)) != 0)
			return oom(e);
		return 0;
	}
	if (have == NULL) {
		if (!c->create_people)
			return err_set(e, ERR_INVALID, 0, o->key, "accounts '%s': no entry with "
			    "%s=%s under %s (privd does not create people unless "
			    "ldap.create_people is true)", o->key, c->uid_attr, o->key, c->people_dn);
		op = op_new(p, ST_PEOPLE, OP_ADD, dn_child(c->uid_attr, o->key, c->people_dn));
		if (op_mod(op, LDAP_MOD_ADD, "objectClass", strv_of("account", "privAccount")) != 0 ||
		    op_mod(op, LDAP_MOD_ADD, c->uid_attr, strv_of(o->key, NULL)) != 0 ||
		    (o->nvals && op_mod(op, LDAP_MOD_ADD, "privMembership",
		    membership_dns(o, cells_dn)) != 0) ||
		    (has_dates(o) && op_mod(op, LDAP_MOD_ADD, "privMembershipDates",
		    membership_dates(o)) != 0))
			return oom(e);
		return 0;
	}
	if (have->has_class && !have->foreign &&
	    strv_same(have->cells, have->ncells, o->vals, o->nvals))
		return 0;
	op = op_new(p, ST_PEOPLE, OP_MODIFY, strdup(have->dn));
	if ((!have->has_class &&
	    op_mod(op, LDAP_MOD_ADD, "objectClass", strv_of("privAccount", NULL)) != 0) ||
	    op_mod(op, LDAP_MOD_REPLACE, "privMembership", membership_dns(o, cells_dn)) != 0 ||
	    ((has_dates(o) || have->dated) && op_mod(op, LDAP_MOD_REPLACE, "privMembershipDates",
	    membership_dates(o)) != 0) ||
	    (b && b->kind == CHG_ACCOUNT && assert_csn(op, have->csn) != 0))
		return oom(e);
	return 0;
}

/* The uids of l's accounts and people; malloc'd (NULL when out of memory). */
static const char **
uids_of(const struct chg_list *l, size_t *n)
{
	const char **v = calloc(l->n + 1, sizeof(*v));
	size_t i;

	*n = 0;
	for (i = 0; v && i < l->n; i++)
		if (l->v[i].kind == CHG_ACCOUNT || l->v[i].kind == CHG_PERSON)
			v[(*n)++] = l->v[i].key;
	return v;
}

/*
 * Makes the directory hold l's states, planned from view (what the
 * directory holds, as the caller read it; what it lacks of l is read
 * here) or, when NULL, from a view read here.
 */
static int
apply_states(LDAP *ld, const struct cfg *c, const struct chg_list *l,
    const struct chg_list *basis, const char *id, const char *expect, struct dview *view,
    struct chg_result *res, struct err *e)
{
	struct plan p = { NULL, 0, 0 };
	struct dview own, *d = view ? view : &own;
	const char **uids = NULL;
	const char *cells_dn;
	size_t i, nuids;
	int rc = -1;

	dview_init(&own);
	if ((uids = uids_of(l, &nuids)) == NULL) {
		oom(e);
		goto done;
	}
	if (dview_read_model(ld, c, d, e) != 0 ||
	    dview_read_people(ld, c, uids, nuids, NULL, d, e) != 0)
		goto done;
	cells_dn = d->cells_dn;
	for (i = 0; i < l->n; i++) {
		const struct chg_obj *o = &l->v[i];
		int r;

		switch (o->kind) {
		case CHG_REASON:
		case CHG_ORG:
			r = plan_node(&p, c, o, d) != 0 ? oom(e) : 0;
			break;
		case CHG_CELL:
			r = plan_cell(&p, cells_dn, o, d, basis_of(basis, o), e);
			break;
		default:
			r = plan_account(&p, c, cells_dn, o, d, basis_of(basis, o), e);
		}
		if (r != 0)
			goto done;
	}
	rc = run_plan(ld, c, &p, id, expect, res, e);
	if (p.n)
		log_info("change%s%s: %zu writes", *id ? " " : "", id, res->writes);
done:
	plan_free(&p);
	dview_free(&own);
	free(uids);
	return rc;
}

/* ---- the record ---- */

static void
digest_hex(const struct chg_req *rq, char out[65])
{
	struct sha256_ctx ctx;
	uint8_t d[SHA256_DIGEST_SIZE];
	size_t i;

	sha256_init(&ctx);
	sha256_update(&ctx, strlen(rq->what) + 1, (const uint8_t *)rq->what);
	sha256_update(&ctx, rq->len, (const uint8_t *)(rq->body ? rq->body : ""));
	sha256_digest(&ctx, sizeof(d), d);
	for (i = 0; i < sizeof(d); i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

static char *
imports_dn(const struct cfg *c)
{
	return dn_join("ou=imports", c->base_dn);
}

static void
record_of(LDAP *ld, const struct cfg *c, LDAPMessage *m, struct chg_record *r)
{
	long long t = 0;

	(void)c;
	memset(r, 0, sizeof(*r));
	ldapc_get_buf(ld, m, "cn", r->id, sizeof(r->id));
	ldapc_get_buf(ld, m, "privImportState", r->state, sizeof(r->state));
	ldapc_get_buf(ld, m, "privImportWhat", r->what, sizeof(r->what));
	ldapc_get_buf(ld, m, "privImportActor", r->actor, sizeof(r->actor));
	ldapc_get_buf(ld, m, "privImportDigest", r->digest, sizeof(r->digest));
	ldapc_get_ll(ld, m, "privImportTime", &t);
	r->started = (long)t;
}

static int
newest_first(const void *a, const void *b)
{
	const struct chg_record *x = a, *y = b;

	if (x->started != y->started)
		return x->started > y->started ? -1 : 1;
	return strcmp(y->id, x->id);
}

/* Records matching filter; 0 with *out (maybe empty). */
static int
find_records(LDAP *ld, const struct cfg *c, const char *filter, struct chg_record **out,
    size_t *n, struct err *e)
{
	char *attrs[] = { "cn", "privImportState", "privImportWhat", "privImportActor",
	    "privImportDigest", "privImportTime", NULL };
	char *base = imports_dn(c);
	LDAPMessage *res = NULL, *m;
	int rc;

	*out = NULL;
	*n = 0;
	if (base == NULL)
		return oom(e);
	rc = ldapc_search(ld, c, base, LDAP_SCOPE_ONELEVEL, filter, attrs, 0, &res, e);
	free(base);
	if (rc == 1)
		return 0;
	if (rc != 0)
		return -1;
	if ((*out = calloc(ldap_count_entries(ld, res) + 1, sizeof(**out))) == NULL) {
		ldap_msgfree(res);
		return oom(e);
	}
	for (m = ldap_first_entry(ld, res); m; m = ldap_next_entry(ld, m))
		record_of(ld, c, m, &(*out)[(*n)++]);
	ldap_msgfree(res);
	qsort(*out, *n, sizeof(**out), newest_first);
	return 0;
}

static int
state_is(LDAP *ld, const struct cfg *c, const char *id, const char *state)
{
	char *attrs[] = { "privImportState", NULL }, got[16] = "";
	char *base = imports_dn(c), *rdn = base ? dn_child("cn", id, base) : NULL;
	LDAPMessage *res = NULL, *m;

	if (rdn && ldapc_search(ld, c, rdn, LDAP_SCOPE_BASE, "(objectClass=privImport)", attrs, 0,
	    &res, NULL) == 0 && (m = ldap_first_entry(ld, res)) != NULL)
		ldapc_get_buf(ld, m, "privImportState", got, sizeof(got));
	ldap_msgfree(res);
	free(rdn);
	free(base);
	/* unreadable: go on; the write itself will say what is wrong */
	return got[0] == '\0' || strcasecmp(got, state) == 0;
}

int
chg_records(LDAP *ld, const struct cfg *c, struct chg_record **out, size_t *n,
    struct err *e)
{
	return find_records(ld, c, "(&(objectClass=privImport)(privImportState=*))", out, n, e);
}

static const char in_progress[] =
    "(&(objectClass=privImport)(|(privImportState=planning)(privImportState=open)"
    "(privImportState=aborting)))";

static int
add_entry(LDAP *ld, const struct cfg *c, const char *dn, LDAPMod **mods, struct err *e)
{
	struct timeval tv = { c->ldap_bulk_timeout_s, 0 };
	LDAPMessage *res = NULL;
	int rc, msgid, err = LDAP_OTHER;

	if ((rc = ldap_add_ext(ld, dn, mods, NULL, NULL, &msgid)) != LDAP_SUCCESS)
		return ldapc_fail(e, rc, dn);
	if ((rc = ldap_result(ld, msgid, LDAP_MSG_ALL, &tv, &res)) <= 0) {
		ldap_msgfree(res);
		return unknown(e, rc == 0 ? LDAP_TIMEOUT : LDAP_SERVER_DOWN, 1, dn, "");
	}
	ldap_parse_result(ld, res, &err, NULL, NULL, NULL, NULL, 1);
	if (err != LDAP_SUCCESS && err != LDAP_ALREADY_EXISTS)
		return ldapc_fail(e, err, dn);
	return err == LDAP_ALREADY_EXISTS ? 1 : 0;
}

static int
ensure_container(LDAP *ld, const struct cfg *c, const char *dn, struct err *e)
{
	char *oc[] = { "organizationalUnit", NULL }, *ou[] = { "imports", NULL };
	LDAPMod m1 = { LDAP_MOD_ADD, "objectClass", { oc } }, m2 = { LDAP_MOD_ADD, "ou", { ou } };
	LDAPMod *mods[] = { &m1, &m2, NULL };

	return add_entry(ld, c, dn, mods, e) < 0 ? -1 : 0;
}

/* The record's parts as one plan of adds: states CHUNK to an entry. */
static int
plan_parts(struct plan *p, const char *rdn_dn, const struct chg_list *l,
    const char *attr, char prefix)
{
	size_t i = 0, part = 0;

	while (i < l->n) {
		char cn[16], **vals;
		size_t n = l->n - i < CHUNK ? l->n - i : CHUNK, j;
		struct op *op;

		snprintf(cn, sizeof(cn), "%c%05zu", prefix, ++part);
		op = op_new(p, 0, OP_ADD, dn_child("cn", cn, rdn_dn));
		if (op == NULL || (vals = strv_new(n)) == NULL)
			return -1;
		for (j = 0; j < n; j++)
			if ((vals[j] = chg_encode(&l->v[i + j])) == NULL) {
				strv_free(vals);
				return -1;
			}
		if (op_mod(op, LDAP_MOD_ADD, "objectClass", strv_of("privImport", NULL)) != 0 ||
		    op_mod(op, LDAP_MOD_ADD, "cn", strv_of(cn, NULL)) != 0 ||
		    op_mod(op, LDAP_MOD_ADD, attr, vals) != 0)
			return -1;
		i += n;
	}
	return 0;
}

static int
set_state(LDAP *ld, const char *dn, const char *state, const char *csn, struct err *e)
{
	char *sv[] = { (char *)state, NULL }, *cv[] = { (char *)csn, NULL };
	char ended[24], *ev[] = { ended, NULL };
	LDAPMod m1 = { LDAP_MOD_REPLACE, "privImportState", { sv } };
	LDAPMod m2 = { LDAP_MOD_REPLACE, "privImportCSN", { cv } };
	LDAPMod m3 = { LDAP_MOD_REPLACE, "privImportEnded", { ev } };
	LDAPMod *mods[] = { &m1, NULL, NULL, NULL };
	int rc, n = 1;

	snprintf(ended, sizeof(ended), "%lld", (long long)time(NULL));
	if (csn && *csn)
		mods[n++] = &m2;
	if (strcmp(state, "closed") == 0 || strcmp(state, "aborted") == 0)
		mods[n++] = &m3;
	rc = ldap_modify_ext_s(ld, dn, mods, NULL, NULL);
	if (rc == LDAP_TIMEOUT || rc == LDAP_SERVER_DOWN)
		return unknown(e, rc, 1, dn, "");
	return rc == LDAP_SUCCESS ? 0 : ldapc_fail(e, rc, dn);
}

/* Deletes the record's parts (what it needed only while open). */
static void
drop_parts(LDAP *ld, const struct cfg *c, const char *rdn)
{
	char *attrs[] = { "1.1", NULL };
	LDAPMessage *res = NULL, *m;

	if (ldapc_search(ld, c, rdn, LDAP_SCOPE_ONELEVEL, "(objectClass=*)", attrs, 0, &res,
	    NULL) != 0)
		return;
	for (m = ldap_first_entry(ld, res); m; m = ldap_next_entry(ld, m)) {
		char *dn = ldap_get_dn(ld, m);

		if (dn)
			ldap_delete_ext_s(ld, dn, NULL, NULL);
		ldap_memfree(dn);
	}
	ldap_msgfree(res);
}

/* The states in a record's parts (attr privBefore or privAfter). */
static int
read_parts(LDAP *ld, const struct cfg *c, const char *rdn, char *attr,
    struct chg_list *out, struct err *e)
{
	char *attrs[] = { attr, NULL };
	LDAPMessage *res = NULL, *m;
	int rc;

	if ((rc = ldapc_search(ld, c, rdn, LDAP_SCOPE_ONELEVEL, "(objectClass=privImport)",
	    attrs, 0, &res, e)) != 0)
		return rc == 1 ? err_set(e, ERR_NOT_FOUND, 0, NULL, "no record %s", rdn) : -1;
	for (m = ldap_first_entry(ld, res); m; m = ldap_next_entry(ld, m)) {
		struct berval **v = ldap_get_values_len(ld, m, attr);
		size_t i;

		for (i = 0; v && v[i]; i++) {
			struct chg_obj o;
			struct chg_obj *no;

			if (chg_decode(v[i]->bv_val, v[i]->bv_len, &o) != 0) {
				log_warn("change: %s: a malformed state in %s; ignored", rdn, attr);
				continue;
			}
			if (out->n == out->cap) {
				size_t nc = out->cap ? out->cap * 2 : 64;

				if ((no = realloc(out->v, nc * sizeof(*no))) == NULL) {
					chg_obj_free(&o);
					ldap_value_free_len(v);
					ldap_msgfree(res);
					return oom(e);
				}
				out->v = no;
				out->cap = nc;
			}
			out->v[out->n++] = o;
		}
		ldap_value_free_len(v);
	}
	ldap_msgfree(res);
	return 0;
}

/* Writes the record (planning, its parts, then open); fills res->id. */
static int
begin(LDAP *ld, const struct cfg *c, const struct chg_req *rq, const char *digest,
    const struct chg_list *before, const struct chg_list *after,
    struct chg_result *res, struct err *e)
{
	char *base = imports_dn(c), *rdn = NULL, tbuf[24], stamp[20];
	unsigned char rnd[4] = { 0, 0, 0, 0 };
	struct plan p = { NULL, 0, 0 };
	struct chg_record *others = NULL;
	size_t nothers = 0, writes = 0, i;
	time_t now = time(NULL);
	struct tm tm;
	struct op *op;
	int rc = -1;

	if (base == NULL) {
		oom(e);
		goto done;
	}
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		rnd[0] ^= (unsigned char)now;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm);
	snprintf(res->id, sizeof(res->id), "imp-%s-%02x%02x%02x%02x", stamp, rnd[0], rnd[1],
	    rnd[2], rnd[3]);
	snprintf(tbuf, sizeof(tbuf), "%lld", (long long)now);
	if (ensure_container(ld, c, base, e) != 0 || (rdn = dn_child("cn", res->id, base)) == NULL)
		goto done;
	op = op_new(&p, 0, OP_ADD, strdup(rdn));
	if (op_mod(op, LDAP_MOD_ADD, "objectClass", strv_of("privImport", NULL)) != 0 ||
	    op_mod(op, LDAP_MOD_ADD, "cn", strv_of(res->id, NULL)) != 0 ||
	    op_mod(op, LDAP_MOD_ADD, "privImportState", strv_of("planning", NULL)) != 0 ||
	    op_mod(op, LDAP_MOD_ADD, "privImportWhat", strv_of(rq->what, NULL)) != 0 ||
	    op_mod(op, LDAP_MOD_ADD, "privImportActor", strv_of(rq->actor ? rq->actor : "-",
	    NULL)) != 0 ||
	    op_mod(op, LDAP_MOD_ADD, "privImportDigest", strv_of(digest, NULL)) != 0 ||
	    op_mod(op, LDAP_MOD_ADD, "privImportTime", strv_of(tbuf, NULL)) != 0) {
		oom(e);
		goto done;
	}
	if (run_window(ld, c, p.ops, 0, 1, 1, "", NULL, &writes, e) != 0)
		goto done;
	plan_free(&p);
	if (plan_parts(&p, rdn, before, "privBefore", 'b') != 0 ||
	    plan_parts(&p, rdn, after, "privAfter", 'a') != 0) {
		oom(e);
		goto fail;
	}
	if (run_window(ld, c, p.ops, 0, p.n, 8, "", NULL, &writes, e) != 0)
		goto fail;
	/* two changes started at once: the one that sees another gives way */
	if (find_records(ld, c, in_progress, &others, &nothers, e) != 0)
		goto fail;
	for (i = 0; i < nothers; i++)
		if (strcmp(others[i].id, res->id) != 0) {
			err_set(e, ERR_CONFLICT, 0, "import", "import %s (%s by %s) started at the same "
			    "time; try again once it has finished", others[i].id, others[i].what,
			    others[i].actor);
			goto fail;
		}
	{
		char *sv[] = { "open", NULL };
		LDAPMod m1 = { LDAP_MOD_REPLACE, "privImportState", { sv } };
		LDAPMod *mods[] = { &m1, NULL };
		int r = ldap_modify_ext_s(ld, rdn, mods, NULL, NULL);

		if (r != LDAP_SUCCESS) {
			ldapc_fail(e, r, rdn);
			goto fail;
		}
	}
	log_info("change %s: %s by %s: recorded (%zu objects)", res->id, rq->what,
	    rq->actor ? rq->actor : "-", after->n);
	rc = 0;
	goto done;
fail:
	/* nothing of the change was written yet: the record goes */
	drop_parts(ld, c, rdn);
	ldap_delete_ext_s(ld, rdn, NULL, NULL);
	res->id[0] = '\0';
done:
	free(others);
	plan_free(&p);
	free(rdn);
	free(base);
	return rc;
}

/* Closed records are history for RECORD_DAYS, then go (a few per change). */
#define RECORD_DAYS 30

static void
purge_old(LDAP *ld, const struct cfg *c)
{
	char *attrs[] = { "1.1", NULL }, filter[160], *base = imports_dn(c);
	LDAPMessage *res = NULL, *m;

	snprintf(filter, sizeof(filter), "(&(objectClass=privImport)(|(privImportState=closed)"
	    "(privImportState=aborted))(privImportEnded<=%lld))",
	    (long long)time(NULL) - RECORD_DAYS * 86400LL);
	if (base != NULL && ldapc_search(ld, c, base, LDAP_SCOPE_ONELEVEL, filter, attrs, 20, &res,
	    NULL) == 0)
		for (m = ldap_first_entry(ld, res); m; m = ldap_next_entry(ld, m)) {
			char *dn = ldap_get_dn(ld, m);

			if (dn != NULL) {
				drop_parts(ld, c, dn);
				ldap_delete_ext_s(ld, dn, NULL, NULL);
			}
			ldap_memfree(dn);
		}
	ldap_msgfree(res);
	free(base);
}

/* Closes a record: the follower shows the change once it has seen the
 * people write with people_csn. */
static int
finish(LDAP *ld, const struct cfg *c, const char *id, const char *state,
    struct chg_result *res, struct err *e)
{
	char *base = imports_dn(c), *rdn = base ? dn_child("cn", id, base) : NULL;
	int rc = -1;

	if (rdn == NULL) {
		oom(e);
		goto done;
	}
	if (set_state(ld, rdn, state, res->csn_people, e) != 0)
		goto done;
	read_csn(ld, c, rdn, res->csn_privileges);
	drop_parts(ld, c, rdn);
	purge_old(ld, c);
	log_info("change %s: %s (%zu writes)", id, state, res->writes);
	rc = 0;
done:
	free(rdn);
	free(base);
	return rc;
}

int
chg_run(LDAP *ld, const struct cfg *c, const struct chg_req *rq,
    const struct chg_list *before, const struct chg_list *after, struct dview *view,
    struct chg_result *res, struct err *e)
{
	struct chg_record *open = NULL;
	struct chg_list redo = { NULL, 0, 0, };
	char digest[65];
	size_t nopen = 0;
	int rc = -1;

	memset(res, 0, sizeof(*res));
	digest_hex(rq, digest);
	if (find_records(ld, c, in_progress, &open, &nopen, e) != 0)
		return -1;
	if (nopen > 0 && strcmp(open[0].state, "planning") == 0 &&
	    strcmp(open[0].digest, digest) == 0) {
		/* this change, stopped before its first write: its record may be
		 * half written, so it goes and the change starts over */
		char *base = imports_dn(c), *rdn = base ? dn_child("cn", open[0].id, base) : NULL;

		if (rdn != NULL) {
			drop_parts(ld, c, rdn);
			ldap_delete_ext_s(ld, rdn, NULL, NULL);
			log_info("change %s: dropped (it had written nothing); starting over", open[0].id);
		}
		free(rdn);
		free(base);
		nopen = 0;
	}
	if (nopen > 0) {
		char *base = imports_dn(c), *rdn;

		if (strcmp(open[0].state, "aborting") == 0) {
			err_set(e, ERR_CONFLICT, 0, "import", "import %s (%s by %s) is being aborted: "
			    "run privctl import --abort %s again if that stopped", open[0].id,
			    open[0].what, open[0].actor, open[0].id);
			free(base);
			goto done;
		}
		if (strcmp(open[0].digest, digest) != 0 || strcmp(open[0].state, "open") != 0) {
			err_set(e, ERR_CONFLICT, 0, "import", "import %s (%s by %s, started %lds ago) is "
			    "not finished: run that same import again to finish it, or undo it with "
			    "privctl import --abort %s", open[0].id, open[0].what, open[0].actor,
			    (long)(time(NULL) - open[0].started), open[0].id);
			free(base);
			goto done;
		}
		/* the same change again: finish it from its record */
		snprintf(res->id, sizeof(res->id), "%s", open[0].id);
		res->resumed = 1;
		rdn = base ? dn_child("cn", res->id, base) : NULL;
		free(base);
		if (rdn == NULL) {
			oom(e);
			goto done;
		}
		rc = read_parts(ld, c, rdn, "privAfter", &redo, e);
		free(rdn);
		if (rc != 0)
			goto done;
		log_info("change %s: resuming %s by %s", res->id, open[0].what, open[0].actor);
		if ((rc = apply_states(ld, c, &redo, NULL, res->id, "open", view, res, e)) == 0)
			rc = finish(ld, c, res->id, "closed", res, e);
		goto done;
	}
	if (after->n == 0) {
		rc = 0;
		goto done;
	}
	/* one object is one entry: slapd writes it whole or not at all */
	if (after->n > 1 && begin(ld, c, rq, digest, before, after, res, e) != 0)
		goto done;
	/* a one-entry edit asserts the entry is as it planned from; a recorded
	 * change is guarded by its record (other edits wait for it) */
	if ((rc = apply_states(ld, c, after, res->id[0] ? NULL : before, res->id,
	    res->id[0] ? "open" : NULL, view, res, e)) != 0)
		goto done;
	if (res->id[0])
		rc = finish(ld, c, res->id, "closed", res, e);
done:
	chg_list_free(&redo);
	free(open);
	return rc;
}

int
chg_abort(LDAP *ld, const struct cfg *c, const char *id, struct chg_result *res,
    struct err *e)
{
	char *base = imports_dn(c), *rdn = NULL, *filter = NULL;
	struct chg_list undo = { NULL, 0, 0 };
	struct chg_record *rec = NULL;
	struct berval in = { 0, NULL }, esc = { 0, NULL };
	size_t n = 0;
	int rc = -1, pass;

	memset(res, 0, sizeof(*res));
	snprintf(res->id, sizeof(res->id), "%s", id);
	in.bv_val = (char *)id;
	in.bv_len = strlen(id);
	if (base == NULL || (rdn = dn_child("cn", id, base)) == NULL ||
	    ldap_bv2escaped_filter_value(&in, &esc) != 0 ||
	    asprintf(&filter, "(&(objectClass=privImport)(privImportState=*)(cn=%s))",
	    esc.bv_val) < 0) {
		filter = NULL;
		oom(e);
		goto done;
	}
	if (find_records(ld, c, filter, &rec, &n, e) != 0)
		goto done;
	if (n == 0) {
		err_set(e, ERR_NOT_FOUND, 0, "id", "no import %s", id);
		goto done;
	}
	if (strcmp(rec[0].state, "aborted") == 0) {
		rc = 0;
		goto done;
	}
	if (strcmp(rec[0].state, "closed") == 0) {
		err_set(e, ERR_CONFLICT, 0, "id", "import %s has finished; there is nothing to "
		    "abort (make the opposite change instead)", id);
		goto done;
	}
	/* the change stops at its next check; readers keep the model before it */
	if (set_state(ld, rdn, "aborting", NULL, e) != 0)
		goto done;
	if (strcmp(rec[0].state, "planning") != 0 &&
	    read_parts(ld, c, rdn, "privBefore", &undo, e) != 0)
		goto done;
	log_info("change %s: aborting: writing back %zu objects", id, undo.n);
	/* a privd still writing the change stops within CHECK_EVERY writes:
	 * write back again until a pass finds nothing left to undo */
	for (pass = 0; pass < 10; pass++) {
		size_t before = res->writes;
		struct timespec pause = { 1, 0 };

		if (apply_states(ld, c, &undo, NULL, id, "aborting", NULL, res, e) != 0)
			goto done;
		if (pass > 0 && res->writes == before)
			break;
		nanosleep(&pause, NULL);
	}
	rc = finish(ld, c, id, "aborted", res, e);
done:
	chg_list_free(&undo);
	ber_memfree(esc.bv_val);
	free(filter);
	free(rec);
	free(rdn);
	free(base);
	return rc;
}

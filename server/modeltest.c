/*
 * modeltest.c - privd test FILE (modeltest.h): a model and what its
 * accounts should have, checked with no server and no directory. The model
 * is read as an import is (import.c) and resolved into a snapshot as the
 * directory's would be (snap_build), so every answer here is the one the
 * API would give for the same entries: the effective values, /check, the
 * explain's winners and the pools a quota may draw on.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "grant.h"
#include "import.h"
#include "membership.h"
#include "modeltest.h"
#include "rfile.h"
#include "money.h"
#include "pool.h"
#include "resolve.h"
#include "snapshot.h"
#include "strv.h"
#include "ydoc.h"

struct mt {
	const struct cfg *c;
	const struct snap *s;
	yaml_document_t *doc;
	const char *path;	/* the test file, for its lines */
	FILE *out;
	int fails, passes;
	int bad;		/* the test file is wrong: exit 2 */
};

/* A path named in the test file: relative to the test file's directory. */
static char *
beside(const char *test, const char *name)
{
	const char *slash = strrchr(test, '/');
	char *p;

	if (name[0] == '/' || slash == NULL)
		return strdup(name);
	if (asprintf(&p, "%.*s/%s", (int)(slash - test), test, name) < 0)
		return NULL;
	return p;
}

static int
bad(struct mt *t, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The test file is wrong at n: said with its line; the run ends with 2. */
static int
bad(struct mt *t, const yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: ", t->path, n ? ydoc_line(n) : 0);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	t->bad = 1;
	return -1;
}

/* An amount of privilege p as the configuration counts it, for messages. */
static void
amount(const struct cfg_priv *pv, long long n, char *buf, size_t len)
{
	if (pv->currency[0] == '\0' || money_format(n, pv->currency, buf, len) == NULL)
		snprintf(buf, len, "%lld", n);
}

/* Why a has what it has of p: each grant considered, as ?explain=1 lists them. */
static void
explain(struct mt *t, const struct snap_account *a, int p, const struct resolve_val *v)
{
	size_t k, i, n = 0;

	if (a->nm == 0) {
		fprintf(t->out, "       %s has no membership in force: every privilege is its "
		    "default (false, empty, 0)\n", a->uid);
		return;
	}
	for (k = 0; k < a->nm; k++) {
		struct snap_src *srcs;
		size_t nsrc;

		if (resolve_sources(t->s, a->m[k], p, &srcs, &nsrc) != 0) {
			fprintf(t->out, "       out of memory\n");
			return;
		}
		for (i = 0; i < nsrc; i++, n++) {
			const struct snap_src *src = &srcs[i];
			enum resolve_why why = resolve_why(t->c, p, a->m[k], src, v);

			fprintf(t->out, "       %s: %s on %s (%s%s%s)\n", a->m[k]->cell,
			    src->grant->text, src->cell->name, resolve_why_name(why),
			    src->by ? ", by " : "", src->by ? src->by->name : "");
		}
		free(srcs);
	}
	if (n == 0)
		fprintf(t->out, "       no grant of %s reaches %s's memberships (%s): the "
		    "default applies\n", t->c->privs[p].name, a->uid, a->m[0]->cell);
}

static void
failed(struct mt *t, const struct snap_account *a, int p, const struct resolve_val *v,
    const yaml_node_t *n, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* One assertion failed: its line, what was found, and why. */
static void
failed(struct mt *t, const struct snap_account *a, int p, const struct resolve_val *v,
    const yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;

	t->fails++;
	fprintf(t->out, "FAIL %s:%d: %s: ", t->path, ydoc_line(n), a->uid);
	va_start(ap, fmt);
	vfprintf(t->out, fmt, ap);
	va_end(ap);
	fputc('\n', t->out);
	if (p >= 0)
		explain(t, a, p, v);
}

/* The privilege a key names; -1 said (exit 2). */
static int
priv_of(struct mt *t, const yaml_node_t *k, const char *name)
{
	int p = cfg_priv_find(t->c, name);

	if (p < 0)
		return bad(t, k, "no privilege '%.64s' is declared in the configuration", name);
	return p;
}

/* A number of privilege p from the test: money as an amount, else whole. */
static int
number(struct mt *t, int p, const yaml_node_t *v, long long *out)
{
	const struct cfg_priv *pv = &t->c->privs[p];
	const char *s = ydoc_str(v);
	char *end;

	if (s == NULL)
		return bad(t, v, "%s: expected a number", pv->name);
	/* money: minor units as the import counts them (1500), or an amount (15.00) */
	if (pv->currency[0] != '\0' && strpbrk(s, ".,") != NULL) {
		if (money_parse(s, pv->currency, GRANT_NUM_MAX, out) != 0)
			return bad(t, v, "%s: expected an amount of %s such as 15.00, not '%.40s'",
			    pv->name, pv->currency, s);
		return 0;
	}
	errno = 0;
	*out = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0')
		return bad(t, v, "%s: expected a whole number, not '%.40s'", pv->name, s);
	return 0;
}

/* "a, b" of a set value, into buf. */
static void
elems(const struct resolve_val *v, char *buf, size_t n)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < v->nelems && len + 1 < n; i++) {
		snprintf(buf + len, n - len, "%s%s", i ? ", " : "", v->elems[i]);
		len = strlen(buf);
	}
	if (v->nelems == 0)
		snprintf(buf, n, "nothing");
}

/* The strings of a sequence node; -1 said. */
static int
each_str(struct mt *t, const yaml_node_t *seq, const char *what,
    int (*fn)(struct mt *, const yaml_node_t *, const char *, void *), void *arg)
{
	if (!ydoc_is_seq(seq))
		return bad(t, seq, "%s: expected a list", what);
	YDOC_ITEMS(seq, it) {
		const yaml_node_t *n = ydoc_get(t->doc, *it);
		const char *s = ydoc_str(n);

		if (s == NULL)
			return bad(t, n, "%s: expected a list of names", what);
		if (fn(t, n, s, arg) != 0)
			return -1;
	}
	return 0;
}

struct set_ctx {
	const struct snap_account *a;
	int p;
	const struct resolve_val *v;
	int want;		/* 1: has it, 0: has it not */
	size_t count;
};

static int
set_elem(struct mt *t, const yaml_node_t *n, const char *s, void *arg)
{
	struct set_ctx *x = arg;
	char have[512];

	x->count++;
	if (resolve_has(x->v, s) == x->want) {
		t->passes++;
		return 0;
	}
	elems(x->v, have, sizeof(have));
	failed(t, x->a, x->p, x->v, n, "%s: %s %s, expected %s (it has %s)",
	    t->c->privs[x->p].name, x->want ? "lacks" : "has", s,
	    x->want ? "to have it" : "not to", have);
	return 0;
}

/* One privilege's expected value for a. */
static int
expect_value(struct mt *t, const struct snap_account *a, int p, const yaml_node_t *v)
{
	const struct cfg_priv *pv = &t->c->privs[p];
	struct resolve_val r;
	char want[64], got[64];
	long long n;
	int rc = 0;

	if (resolve_account(t->s, p, a, &r) != 0)
		return bad(t, v, "out of memory");
	switch (pv->type) {
	case PRIV_FLAG: {
		const char *s = ydoc_str(v);
		int b;

		if (s != NULL && (strcmp(s, "true") == 0 || strcmp(s, "yes") == 0))
			b = 1;
		else if (s != NULL && (strcmp(s, "false") == 0 || strcmp(s, "no") == 0))
			b = 0;
		else {
			rc = bad(t, v, "%s is a flag: expected true or false", pv->name);
			break;
		}
		if ((r.num != 0) == b)
			t->passes++;
		else
			failed(t, a, p, &r, v, "%s is %s, expected %s", pv->name,
			    r.num ? "true" : "false", b ? "true" : "false");
		break;
	}
	case PRIV_NUMBER:
	case PRIV_QUOTA:
		if ((rc = number(t, p, v, &n)) != 0)
			break;
		if (r.num == n)
			t->passes++;
		else {
			amount(pv, r.num, got, sizeof(got));
			amount(pv, n, want, sizeof(want));
			failed(t, a, p, &r, v, "%s is %s, expected %s", pv->name, got, want);
		}
		break;
	case PRIV_SET: {
		struct set_ctx x = { a, p, &r, 1, 0 };

		if (ydoc_is_seq(v)) {
			/* exactly these: each present, and nothing else */
			int before = t->fails;
			char have[512];

			if ((rc = each_str(t, v, pv->name, set_elem, &x)) != 0)
				break;
			if (t->fails == before && x.count != r.nelems) {
				elems(&r, have, sizeof(have));
				failed(t, a, p, &r, v, "%s is {%s}: more than the %zu expected",
				    pv->name, have, x.count);
			}
			break;
		}
		if (!ydoc_is_map(v)) {
			rc = bad(t, v, "%s is a set: expected a list, or {has: [...], not: [...]}",
			    pv->name);
			break;
		}
		YDOC_PAIRS(v, q) {
			const yaml_node_t *k = ydoc_get(t->doc, q->key);
			const char *ks = ydoc_str(k);

			if (ks == NULL || (strcmp(ks, "has") != 0 && strcmp(ks, "not") != 0)) {
				rc = bad(t, k, "%s: has or not, not '%.40s'", pv->name,
				    ks ? ks : "?");
				break;
			}
			x.want = strcmp(ks, "has") == 0;
			if ((rc = each_str(t, ydoc_get(t->doc, q->value), pv->name, set_elem,
			    &x)) != 0)
				break;
		}
		break;
	}
	}
	resolve_val_clear(&r);
	return rc;
}

struct check_ctx {
	const struct snap_account *a;
	int want;		/* check: allowed; refused: not */
};

/* "PRIV" or "PRIV=VALUE" as GET /v1/accounts/{uid}/check answers it (a
 * quota against its limit: a model test has no usage). */
static int
check_one(struct mt *t, const yaml_node_t *n, const char *s, void *arg)
{
	struct check_ctx *x = arg;
	const char *eq = strchr(s, '='), *value = eq ? eq + 1 : NULL;
	char name[PRIV_NAME_MAX + 1];
	struct resolve_val r;
	long long num = 1;
	char *end;
	int p, allowed = 0;

	snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - s) : (int)strlen(s), s);
	if ((p = priv_of(t, n, name)) < 0)
		return -1;
	if (t->c->privs[p].type == PRIV_SET && value == NULL)
		return bad(t, n, "%s is a set: check %s=ELEMENT", name, name);
	if (t->c->privs[p].type != PRIV_SET && value != NULL) {
		errno = 0;
		num = strtoll(value, &end, 10);
		if (t->c->privs[p].type == PRIV_FLAG || errno != 0 || *end != '\0' || num < 0)
			return bad(t, n, "%s: a %s checks %s", s, cfg_type_name(t->c->privs[p].type),
			    t->c->privs[p].type == PRIV_FLAG ? "without a value" :
			    "a whole number (NAME=N)");
	}
	if (resolve_account(t->s, p, x->a, &r) != 0)
		return bad(t, n, "out of memory");
	switch (t->c->privs[p].type) {
	case PRIV_FLAG:
		allowed = r.num != 0;
		break;
	case PRIV_SET:
		allowed = resolve_has(&r, value);
		break;
	case PRIV_NUMBER:
	case PRIV_QUOTA:
		allowed = num <= r.num;
		break;
	}
	if (allowed == x->want)
		t->passes++;
	else
		failed(t, x->a, p, &r, n, "check %s is %s, expected %s", s,
		    allowed ? "allowed" : "refused", x->want ? "allowed" : "refused");
	resolve_val_clear(&r);
	return 0;
}

/* winner: {PRIV: CELL}: a grant on CELL gives a's value of PRIV. */
static int
expect_winners(struct mt *t, const struct snap_account *a, const yaml_node_t *m)
{
	if (!ydoc_is_map(m))
		return bad(t, m, "winner: expected {PRIVILEGE: CELL, ...}");
	YDOC_PAIRS(m, q) {
		const yaml_node_t *k = ydoc_get(t->doc, q->key), *v = ydoc_get(t->doc, q->value);
		const char *cell = ydoc_str(v);
		struct resolve_val r;
		size_t i, j;
		int p, found = 0;

		if ((p = priv_of(t, k, ydoc_str(k))) < 0)
			return -1;
		if (cell == NULL)
			return bad(t, v, "winner: %s: expected a cell (reason@organisation)",
			    ydoc_str(k));
		if (resolve_account(t->s, p, a, &r) != 0)
			return bad(t, v, "out of memory");
		for (i = 0; i < a->nm && !found; i++) {
			struct snap_src *srcs;
			size_t nsrc;

			if (resolve_sources(t->s, a->m[i], p, &srcs, &nsrc) != 0) {
				resolve_val_clear(&r);
				return bad(t, v, "out of memory");
			}
			for (j = 0; j < nsrc && !found; j++)
				found = strcmp(srcs[j].cell->name, cell) == 0 &&
				    resolve_why(t->c, p, a->m[i], &srcs[j], &r) == WHY_APPLIED;
			free(srcs);
		}
		if (found)
			t->passes++;
		else
			failed(t, a, p, &r, v, "%s: no grant on %s gives the value", ydoc_str(k),
			    cell);
		resolve_val_clear(&r);
	}
	return 0;
}

/* pools: {QUOTA: [CELL, ...]}: the pools a may draw on, most specific first. */
static int
expect_pools(struct mt *t, const struct snap_account *a, const yaml_node_t *m)
{
	if (!ydoc_is_map(m))
		return bad(t, m, "pools: expected {QUOTA: [CELL, ...], ...}");
	YDOC_PAIRS(m, q) {
		const yaml_node_t *k = ydoc_get(t->doc, q->key), *v = ydoc_get(t->doc, q->value);
		struct pool_ref *refs = NULL;
		char have[512] = "", want[512] = "";
		size_t n = 0, i, len;
		int p;

		if ((p = priv_of(t, k, ydoc_str(k))) < 0)
			return -1;
		if (t->c->privs[p].type != PRIV_QUOTA)
			return bad(t, k, "pools: %s is not a quota", ydoc_str(k));
		if (!ydoc_is_seq(v))
			return bad(t, v, "pools: %s: expected a list of cells", ydoc_str(k));
		YDOC_ITEMS(v, it) {
			const char *s = ydoc_str(ydoc_get(t->doc, *it));

			if (s == NULL)
				return bad(t, v, "pools: %s: expected a list of cells", ydoc_str(k));
			len = strlen(want);
			snprintf(want + len, sizeof(want) - len, "%s%s", len ? ", " : "", s);
		}
		if (pool_for_account(t->s, a, p, &refs, &n) != 0)
			return bad(t, v, "out of memory");
		for (i = 0; i < n; i++) {
			len = strlen(have);
			snprintf(have + len, sizeof(have) - len, "%s%s", len ? ", " : "",
			    refs[i].cell->name);
		}
		free(refs);
		if (strcmp(have, want) == 0)
			t->passes++;
		else
			failed(t, a, -1, NULL, v, "%s draws on pools [%s], expected [%s]",
			    ydoc_str(k), have, want);
	}
	return 0;
}

/* One account's expectations. */
static int
expect_account(struct mt *t, const yaml_node_t *k, const yaml_node_t *m)
{
	const char *uid = ydoc_str(k);
	const struct snap_account *a;

	if (uid == NULL || !ydoc_is_map(m))
		return bad(t, m, "expect: each account maps to {PRIVILEGE: VALUE, check: [...], "
		    "refused: [...], winner: {...}, pools: {...}}");
	if ((a = snap_account(t->s, uid)) == NULL) {
		t->fails++;
		fprintf(t->out, "FAIL %s:%d: %s: no such account in the model\n", t->path,
		    ydoc_line(k), uid);
		return 0;
	}
	YDOC_PAIRS(m, q) {
		const yaml_node_t *qk = ydoc_get(t->doc, q->key), *qv = ydoc_get(t->doc, q->value);
		const char *ks = ydoc_str(qk);
		struct check_ctx cx = { a, 1 };
		int p, rc;

		if (ks == NULL)
			return bad(t, qk, "expect: %s: keys are privileges or check, refused, "
			    "winner, pools", uid);
		if (strcmp(ks, "check") == 0 || strcmp(ks, "refused") == 0) {
			cx.want = ks[0] == 'c';
			rc = each_str(t, qv, ks, check_one, &cx);
		} else if (strcmp(ks, "winner") == 0)
			rc = expect_winners(t, a, qv);
		else if (strcmp(ks, "pools") == 0)
			rc = expect_pools(t, a, qv);
		else if ((p = priv_of(t, qk, ks)) < 0)
			rc = -1;
		else
			rc = expect_value(t, a, p, qv);
		if (rc != 0)
			return -1;
	}
	return 0;
}

/* The snapshot of an import document as the directory would hold it. */
static struct snap *
build(const struct cfg *c, const struct import_doc *d, time_t now, struct err *e)
{
	struct snap_input in;
	struct snap_in_cell *cells = calloc(d->ncells + 1, sizeof(*cells));
	struct snap_in_cell *printers = calloc(d->nprinters + 1, sizeof(*printers));
	struct snap_in_account *accts = calloc(d->naccounts + 1, sizeof(*accts));
	const char **reasons = calloc(d->nreasons + 1, sizeof(*reasons));
	const char **orgs = calloc(d->norgs + 1, sizeof(*orgs));
	char **made = NULL;	/* the contacts' texts, freed here */
	size_t i, j, nmade = 0, ncontacts = 0;
	struct snap *s = NULL;

	for (i = 0; i < d->ncells; i++)
		ncontacts += d->cells[i].ncontacts;
	if (cells == NULL || printers == NULL || accts == NULL || reasons == NULL ||
	    orgs == NULL || (made = calloc(ncontacts + 1, sizeof(*made))) == NULL)
		goto oom;
	memset(&in, 0, sizeof(in));
	in.now = now;
	for (i = 0; i < d->nreasons; i++)
		reasons[i] = d->reasons[i].path;
	for (i = 0; i < d->norgs; i++)
		orgs[i] = d->orgs[i].path;
	for (i = 0; i < d->ncells; i++) {
		const struct import_cell *ic = &d->cells[i];
		const char **g = calloc(ic->ngrants + ic->ncontacts + 1, sizeof(*g));

		if (g == NULL)
			goto oom;
		cells[i].name = ic->name;
		cells[i].grants = g;
		for (j = 0; j < ic->ngrants; j++)
			g[cells[i].ngrants++] = ic->grants[j].text;
		/* a pool's contacts ride with its values, as the mirror reads them */
		for (j = 0; j < ic->ncontacts; j++) {
			if (asprintf(&made[nmade], "%s%s", GRANT_CONTACT, ic->contacts[j]) < 0)
				goto oom;
			g[cells[i].ngrants++] = made[nmade++];
		}
	}
	for (i = 0; i < d->nprinters; i++) {
		printers[i].name = d->printers[i].name;
		printers[i].grants = (const char **)d->printers[i].vals;
		printers[i].ngrants = d->printers[i].nvals;
	}
	for (i = 0; i < d->naccounts; i++) {
		accts[i].uid = d->accounts[i].uid;
		accts[i].cells = (const char **)d->accounts[i].cells;
		accts[i].ncells = d->accounts[i].ncells;
	}
	in.reasons = reasons;
	in.nreasons = d->nreasons;
	in.orgs = orgs;
	in.norgs = d->norgs;
	in.cells = cells;
	in.ncells = d->ncells;
	in.accounts = accts;
	in.naccounts = d->naccounts;
	in.printers = printers;
	in.nprinters = d->nprinters;
	s = snap_build(c, &in, e);
	goto done;
oom:
	err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
done:
	for (i = 0; cells && i < d->ncells; i++)
		free((void *)cells[i].grants);
	for (i = 0; i < nmade; i++)
		free(made[i]);
	free(made);
	free(cells);
	free(printers);
	free(accts);
	free(reasons);
	free(orgs);
	return s;
}

int
modeltest_run(const char *path, const char *config, FILE *out)
{
	struct mt t = { .path = path, .out = out };
	yaml_document_t doc;
	const yaml_node_t *root, *model = NULL, *nown = NULL, *expect = NULL, *cfgn = NULL;
	struct import_doc d;
	struct cfg *c = NULL;
	struct snap *s = NULL;
	char *text = NULL, *mtext = NULL, *mpath = NULL, *cpath = NULL, why[200];
	size_t len, mlen;
	time_t now = time(NULL);
	struct err e;
	int rc = 2, have_doc = 0, have_import = 0;

	memset(&e, 0, sizeof(e));
	memset(&d, 0, sizeof(d));
	if (rfile_read(path, RFILE_CONFIG_MAX, &text, &len, why, sizeof(why)) != 0) {
		fprintf(stderr, "%s: %s\n", path, why);
		goto done;
	}
	if (ydoc_load(&doc, text, len, &e) != 0) {
		fprintf(stderr, "%s:%d: %s\n", path, e.line, e.msg);
		goto done;
	}
	have_doc = 1;
	t.doc = &doc;
	root = ydoc_get(&doc, 1);
	if (root == NULL || !ydoc_is_map(root)) {
		bad(&t, root, "a model test is a mapping: model, now, expect (and config)");
		goto done;
	}
	if (ydoc_check_map(&doc, root, "the test", &e) != 0) {
		fprintf(stderr, "%s:%d: %s\n", path, e.line, e.msg);
		goto done;
	}
	YDOC_PAIRS(root, q) {
		const yaml_node_t *k = ydoc_get(&doc, q->key), *v = ydoc_get(&doc, q->value);
		const char *ks = ydoc_str(k);

		if (strcmp(ks, "model") == 0)
			model = v;
		else if (strcmp(ks, "now") == 0)
			nown = v;
		else if (strcmp(ks, "expect") == 0)
			expect = v;
		else if (strcmp(ks, "config") == 0)
			cfgn = v;
		else {
			bad(&t, k, "unknown key '%.48s' (model, now, expect, config)",
			    ydoc_quotable(ks));
			goto done;
		}
	}
	if (model == NULL || ydoc_str(model) == NULL) {
		bad(&t, model ? model : root, "model: the import file or export to test (required)");
		goto done;
	}
	if (expect == NULL || !ydoc_is_map(expect)) {
		bad(&t, expect ? expect : root, "expect: {ACCOUNT: {PRIVILEGE: VALUE, ...}, ...} "
		    "(required)");
		goto done;
	}
	if (cfgn != NULL && ydoc_str(cfgn) == NULL) {
		bad(&t, cfgn, "config: the privd configuration declaring the privileges");
		goto done;
	}
	/* the configuration declares the privileges and terms the model uses */
	if ((cpath = cfgn ? beside(path, ydoc_str(cfgn)) : strdup(config)) == NULL)
		goto oom;
	if (cfg_load_model(cpath, &c, &e) != 0) {
		if (e.line)
			fprintf(stderr, "%s:%d: %s\n", cpath, e.line, e.msg);
		else
			fprintf(stderr, "%s: %s\n", cpath, e.msg);
		goto done;
	}
	t.c = c;
	if (nown != NULL && (ydoc_str(nown) == NULL ||
	    membership_date(c, ydoc_str(nown), 0, &now, &e) != 0)) {
		bad(&t, nown, "now: a date (2026-10-01), a time (RFC 3339) or a term: %s",
		    e.msg[0] ? e.msg : "not a scalar");
		goto done;
	}
	if ((mpath = beside(path, ydoc_str(model))) == NULL)
		goto oom;
	if (rfile_read(mpath, RFILE_IMPORT_MAX, &mtext, &mlen, why, sizeof(why)) != 0) {
		bad(&t, model, "model: %s: %s", mpath, why);
		goto done;
	}
	if (import_parse(c, mtext, mlen, &d, &e) != 0) {
		fprintf(stderr, "%s:%d: %s\n", mpath, e.line, e.msg);
		goto done;
	}
	have_import = 1;
	/* nothing else is there: the model names every node it uses */
	if (import_check(c, &d, NULL, 0, NULL, 0, &e) != 0) {
		fprintf(stderr, "%s:%d: %s\n", mpath, e.line, e.msg);
		goto done;
	}
	if ((s = build(c, &d, now, &e)) == NULL) {
		fprintf(stderr, "privd test: %s\n", e.msg);
		goto done;
	}
	t.s = s;
	YDOC_PAIRS(expect, q)
		if (expect_account(&t, ydoc_get(&doc, q->key), ydoc_get(&doc, q->value)) != 0)
			goto done;
	fprintf(out, "%s: %d passed, %d failed (model %s: %zu accounts, %zu cells)\n", path,
	    t.passes, t.fails, mpath, s->naccounts, s->ncells);
	rc = t.fails ? 1 : 0;
	goto done;
oom:
	fprintf(stderr, "privd test: out of memory\n");
done:
	snap_free(s);
	if (have_import)
		import_free(&d);
	if (have_doc)
		yaml_document_delete(&doc);
	cfg_free(c);
	free(text);
	free(mtext);
	free(mpath);
	free(cpath);
	return rc;
}

/* import.c - reading an import file into plain structures, and checking it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "membership.h"
#include "path.h"
#include "price.h"
#include "strmap.h"
#include "strv.h"
#include "ydoc.h"

struct ctx {
	const struct cfg *c;
	yaml_document_t *doc;
	struct import_doc *d;
	struct err *e;
	size_t ccap;		/* room in d->cells */
};

/* Re-labels e with a line and the section, keeping its own message. */
static int
at(struct ctx *x, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
at(struct ctx *x, const yaml_node_t *n, const char *fmt, ...)
{
	char msg[ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (x->e != NULL) {
		x->e->code = x->e->code == ERR_INTERNAL ? ERR_INTERNAL : ERR_INVALID;
		x->e->line = n ? ydoc_line(n) : 0;
		snprintf(x->e->msg, sizeof(x->e->msg), "%s", msg);
	}
	return -1;
}

static int
tree(struct ctx *x, const yaml_node_t *m, const char *prefix,
    struct import_node **out, size_t *n, size_t *cap, const char *what)
{
	if (ydoc_is_null(m))
		return 0;
	if (!ydoc_is_map(m))
		return err_set(x->e, ERR_INVALID, ydoc_line(m), prefix,
		    "%s: '%s' must hold a mapping of child nodes ({} for none)",
		    what, *prefix ? prefix : what);
	if (ydoc_check_map(x->doc, m, what, x->e) != 0)
		return -1;
	YDOC_PAIRS(m, p) {
		yaml_node_t *k = ydoc_get(x->doc, p->key);
		const char *name = ydoc_str(k);
		char path[PATH_MAX_LEN + 2];
		int len;

		len = snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? "/" : "", name);
		if (len < 0 || (size_t)len > PATH_MAX_LEN || strchr(name, '/') != NULL ||
		    path_check(path, what, x->e) != 0) {
			err_set(x->e, ERR_INVALID, ydoc_line(k), name,
			    "%s: bad node name '%.64s' (a-z 0-9 - _, one segment, at most %d deep)",
			    what, name, PATH_DEPTH_MAX);
			return -1;
		}
		if (*n == *cap) {
			size_t nc = *cap ? *cap * 2 : 32;
			struct import_node *nn = realloc(*out, nc * sizeof(*nn));

			if (nn == NULL)
				return err_set(x->e, ERR_INTERNAL, 0, NULL, "out of memory");
			*out = nn;
			*cap = nc;
		}
		if (((*out)[*n].path = strdup(path)) == NULL)
			return err_set(x->e, ERR_INTERNAL, 0, NULL, "out of memory");
		(*out)[(*n)++].line = ydoc_line(k);
		if (tree(x, ydoc_get(x->doc, p->value), path, out, n, cap, what) != 0)
			return -1;
	}
	return 0;
}

static int
add_grant(struct ctx *x, struct import_cell *cell, int pool, int priv,
    const yaml_node_t *v, const char *cellname)
{
	const char *s = ydoc_str(v), *what = pool ? "pools" : "grants";
	struct grant *ng;
	int rc;

	if (s == NULL || ydoc_is_null(v))
		return at(x, v, "%s '%s': %s needs a value", what, cellname,
		    x->c->privs[priv].name);
	if ((ng = realloc(cell->grants, (cell->ngrants + 1) * sizeof(*ng))) == NULL)
		return err_set(x->e, ERR_INTERNAL, 0, NULL, "out of memory");
	cell->grants = ng;
	rc = pool ? grant_make_pool(x->c, priv, s, &ng[cell->ngrants], x->e) :
	    grant_make(x->c, priv, s, &ng[cell->ngrants], x->e);
	if (rc != 0)
		return at(x, v, "%s '%s': %s", what, cellname, x->e ? x->e->msg : "bad grant");
	cell->ngrants++;
	return 0;
}

/* The cell named by key k, made on first mention: grants and pools of one
 * cell land in one import_cell. NULL with x->e on a bad name. */
static struct import_cell *
cell_for(struct ctx *x, const yaml_node_t *k, const char *what)
{
	char reason[PATH_MAX_LEN + 1], org[PATH_MAX_LEN + 1];
	const char *name = ydoc_str(k);
	struct import_cell *cell;
	size_t i;

	if (cell_split(name, reason, org, x->e) != 0) {
		if (x->e)
			snprintf(x->e->key, sizeof(x->e->key), "%.100s", name);
		at(x, k, "%s: %s", what, x->e ? x->e->msg : "bad cell");
		return NULL;
	}
	for (i = 0; i < x->d->ncells; i++)
		if (strcmp(x->d->cells[i].name, name) == 0)
			return &x->d->cells[i];
	if (x->d->ncells == x->ccap) {
		size_t nc = x->ccap ? x->ccap * 2 : 16;
		struct import_cell *v = realloc(x->d->cells, nc * sizeof(*v));

		if (v == NULL) {
			err_set(x->e, ERR_INTERNAL, 0, NULL, "out of memory");
			return NULL;
		}
		x->d->cells = v;
		x->ccap = nc;
	}
	cell = &x->d->cells[x->d->ncells++];
	memset(cell, 0, sizeof(*cell));
	cell->line = ydoc_line(k);
	cell->name = strdup(name);
	cell->reason = strdup(reason);
	cell->org = strdup(org);
	if (!cell->name || !cell->reason || !cell->org) {
		err_set(x->e, ERR_INTERNAL, 0, NULL, "out of memory");
		return NULL;
	}
	return cell;
}

/* A pool's contacts: addresses told when its pools run low (notice.h). */
static int
contacts(struct ctx *x, struct import_cell *cell, const yaml_node_t *v, const char *name)
{
	if (!ydoc_is_seq(v))
		return err_set(x->e, ERR_INVALID, ydoc_line(v), "contacts", "pools '%s': contacts "
		    "is a list of addresses", name);
	YDOC_ITEMS(v, it) {
		yaml_node_t *a = ydoc_get(x->doc, *it);
		const char *s = ydoc_str(a), *at = s ? strchr(s, '@') : NULL;
		char **nc;

		if (s == NULL || at == NULL || at == s || at[1] == '\0' || strlen(s) > 254 ||
		    strpbrk(s, " \t\r\n<>,;\"") != NULL)
			return err_set(x->e, ERR_INVALID, ydoc_line(a), "contacts", "pools '%s': "
			    "'%.80s' is not an address", name, s ? s : "");
		if ((nc = realloc(cell->contacts, (cell->ncontacts + 1) * sizeof(*nc))) == NULL)
			return err_set(x->e, ERR_INTERNAL, 0, NULL, "out of memory");
		cell->contacts = nc;
		if ((nc[cell->ncontacts] = strdup(s)) == NULL)
			return err_set(x->e, ERR_INTERNAL, 0, NULL, "out of memory");
		cell->ncontacts++;
	}
	return 0;
}

/*
 * grants: {CELL: {PRIV: VALUE or [ELEM, ...]}}, or with pool set, pools:
 * {CELL: {QUOTA: LIMIT}}, the budgets cells hold (pool.h).
 */
static int
cells(struct ctx *x, const yaml_node_t *m, int pool)
{
	const char *what = pool ? "pools" : "grants";

	if (!ydoc_is_map(m))
		return err_set(x->e, ERR_INVALID, ydoc_line(m), what, "%s: expected a mapping "
		    "of cells to %s", what, pool ? "quota limits" : "privileges");
	if (ydoc_check_map(x->doc, m, what, x->e) != 0)
		return -1;
	YDOC_PAIRS(m, p) {
		yaml_node_t *k = ydoc_get(x->doc, p->key), *v = ydoc_get(x->doc, p->value);
		struct import_cell *cell = cell_for(x, k, what);
		const char *name = ydoc_str(k);

		if (cell == NULL)
			return -1;
		*(pool ? &cell->in_pools : &cell->in_grants) = 1;
		if (ydoc_is_null(v))
			continue;
		if (!ydoc_is_map(v))
			return err_set(x->e, ERR_INVALID, ydoc_line(v), name, "%s '%s': expected a "
			    "mapping of %s", what, name, pool ? "quotas to limits" : "privileges to values");
		if (ydoc_check_map(x->doc, v, name, x->e) != 0)
			return -1;
		YDOC_PAIRS(v, q) {
			yaml_node_t *pk = ydoc_get(x->doc, q->key), *pv = ydoc_get(x->doc, q->value);
			const char *pname = ydoc_str(pk);
			int priv = cfg_priv_find(x->c, pname);

			if (pool && strcmp(pname, "contacts") == 0) {
				if (contacts(x, cell, pv, name) != 0)
					return -1;
				continue;
			}
			if (priv < 0)
				return err_set(x->e, ERR_INVALID, ydoc_line(pk), pname,
				    "%s '%s': unknown privilege '%.64s'", what, name, pname);
			if (!pool && ydoc_is_seq(pv)) {
				if (x->c->privs[priv].type != PRIV_SET)
					return err_set(x->e, ERR_INVALID, ydoc_line(pv), pname,
					    "grants '%s': %s is a %s, not a set: give one value",
					    name, pname, cfg_type_name(x->c->privs[priv].type));
				YDOC_ITEMS(pv, it)
					if (add_grant(x, cell, 0, priv, ydoc_get(x->doc, *it), name) != 0)
						return -1;
			} else if (add_grant(x, cell, pool, priv, pv, name) != 0)
				return -1;
		}
	}
	return 0;
}

/* {cell: C, from: D, until: D}: either bound may be left out. */
static int
dated(struct ctx *x, yaml_node_t *m, const char *uid, const char **cell, time_t *from,
    time_t *until)
{
	*cell = NULL;
	YDOC_PAIRS(m, q) {
		yaml_node_t *k = ydoc_get(x->doc, q->key), *v = ydoc_get(x->doc, q->value);
		const char *ks = ydoc_str(k), *vs = ydoc_str(v);

		if (ks != NULL && strcmp(ks, "cell") == 0)
			*cell = vs;
		else if (ks != NULL && (strcmp(ks, "from") == 0 || strcmp(ks, "until") == 0)) {
			int u = ks[0] == 'u';

			if (vs == NULL || membership_date(x->c, vs, u, u ? until : from, x->e) != 0)
				return at(x, v, "accounts '%s': %s", uid, x->e && vs ? x->e->msg :
				    "a date is 2026-09-01, 2026-09-01T08:30 or a term");
		} else
			return err_set(x->e, ERR_INVALID, ydoc_line(k), uid, "accounts '%s': a dated "
			    "membership has cell, from and until, not '%.40s'", uid, ks ? ks : "?");
	}
	if (*cell == NULL)
		return err_set(x->e, ERR_INVALID, ydoc_line(m), uid,
		    "accounts '%s': a dated membership needs its cell", uid);
	if (*from != 0 && *until != 0 && *until <= *from)
		return err_set(x->e, ERR_INVALID, ydoc_line(m), uid,
		    "accounts '%s': membership %s ends before it starts", uid, *cell);
	return 0;
}

static int
accounts(struct ctx *x, const yaml_node_t *m)
{
	size_t n;

	if (!ydoc_is_map(m))
		return err_set(x->e, ERR_INVALID, ydoc_line(m), "accounts",
		    "accounts: expected a mapping of uids to lists of cells");
	if (ydoc_check_map(x->doc, m, "accounts", x->e) != 0)
		return -1;
	n = m->data.mapping.pairs.top - m->data.mapping.pairs.start;
	if ((x->d->accounts = calloc(n ? n : 1, sizeof(*x->d->accounts))) == NULL)
		return err_set(x->e, ERR_INTERNAL, 0, NULL, "out of memory");
	YDOC_PAIRS(m, p) {
		yaml_node_t *k = ydoc_get(x->doc, p->key), *v = ydoc_get(x->doc, p->value);
		struct import_account *a = &x->d->accounts[x->d->naccounts++];
		const char *uid = ydoc_str(k);
		size_t cap;

		a->line = ydoc_line(k);
		if (uid_check(uid, x->e) != 0) {
			if (x->e)
				snprintf(x->e->key, sizeof(x->e->key), "%.64s", uid);
			return at(x, k, "accounts: %s", x->e ? x->e->msg : "bad uid");
		}
		if ((a->uid = strdup(uid)) == NULL)
			return err_set(x->e, ERR_INTERNAL, 0, NULL, "out of memory");
		if (ydoc_is_null(v))
			continue;
		if (!ydoc_is_seq(v))
			return err_set(x->e, ERR_INVALID, ydoc_line(v), uid,
			    "accounts '%s': expected a list of cells", uid);
		cap = v->data.sequence.items.top - v->data.sequence.items.start;
		if ((a->cells = calloc(cap ? cap : 1, sizeof(*a->cells))) == NULL)
			return err_set(x->e, ERR_INTERNAL, 0, NULL, "out of memory");
		YDOC_ITEMS(v, it) {
			yaml_node_t *cv = ydoc_get(x->doc, *it);
			const char *cell = ydoc_str(cv);
			char reason[PATH_MAX_LEN + 1], org[PATH_MAX_LEN + 1];
			time_t from = 0, until = 0;
			size_t j;

			/* a dated membership: {cell: C, from: D, until: D} */
			if (ydoc_is_map(cv) && dated(x, cv, uid, &cell, &from, &until) != 0)
				return -1;
			if (cell == NULL)
				return err_set(x->e, ERR_INVALID, ydoc_line(cv), uid,
				    "accounts '%s': each membership is a cell name or "
				    "{cell, from, until}", uid);
			if (cell_split(cell, reason, org, x->e) != 0) {
				if (x->e)
					snprintf(x->e->key, sizeof(x->e->key), "%.100s", cell);
				return at(x, cv, "accounts '%s': %s", uid, x->e ? x->e->msg : "bad cell");
			}
			for (j = 0; j < a->ncells; j++)
				if (membership_same_cell(a->cells[j], cell))
					return err_set(x->e, ERR_INVALID, ydoc_line(cv), cell,
					    "accounts '%s': membership %s listed twice", uid, cell);
			if ((a->cells[a->ncells] = membership_encode(cell, from, until)) == NULL)
				return err_set(x->e, ERR_INTERNAL, 0, NULL, "out of memory");
			a->ncells++;
		}
	}
	return 0;
}

/* One printer's card (charge, price, media) into privRate values. */
static int
card(struct ctx *x, const char *name, const yaml_node_t *m, struct import_printer *ip)
{
	char v[PRICE_NAME_MAX + PRICE_MEDIA_LEN + 16];
	struct price_card pc;
	int p;

	if (!ydoc_is_map(m))
		return at(x, m, "printers: %s: a mapping with charge, price and media", name);
	if (ydoc_check_map(x->doc, m, name, x->e) != 0)
		return -1;
	if ((ip->vals = strv_new(2 * (m->data.mapping.pairs.top - m->data.mapping.pairs.start) +
	    PRICE_MEDIA_MAX + 8)) == NULL)
		return err_oom(x->e);
	YDOC_PAIRS(m, q) {
		yaml_node_t *k = ydoc_get(x->doc, q->key), *val = ydoc_get(x->doc, q->value);
		const char *ks = ydoc_str(k), *vs = ydoc_str(val);
		int price = strcmp(ks, "price") == 0;

		if (strcmp(ks, "charge") == 0) {
			if (vs == NULL || (p = cfg_priv_find(x->c, vs)) < 0 ||
			    x->c->privs[p].type != PRIV_QUOTA)
				return at(x, val, "printers: %s: charge names a declared quota or "
				    "money privilege ('%.64s' is not one)", name, vs ? vs : "?");
			snprintf(v, sizeof(v), "charge=%s", vs);
			if ((ip->vals[ip->nvals++] = strdup(v)) == NULL)
				return err_oom(x->e);
			continue;
		}
		if (!price && strcmp(ks, "media") != 0)
			return at(x, k, "printers: %s: unknown key '%.64s' (charge, price, media)",
			    name, ks);
		if (!ydoc_is_map(val) || ydoc_check_map(x->doc, val, ks, x->e) != 0)
			return at(x, val, "printers: %s: %s is a mapping%s", name, ks, price ?
			    " (mono, colour, duplex_mono, duplex_colour, job)" : " of size: factor");
		YDOC_PAIRS(val, r) {
			const char *rk = ydoc_str(ydoc_get(x->doc, r->key));
			const yaml_node_t *rn = ydoc_get(x->doc, r->value);
			const char *rv = ydoc_str(rn);

			if (price && !price_key_ok(rk))
				return at(x, rn, "printers: %s: unknown price '%.64s' (mono, colour, "
				    "duplex_mono, duplex_colour, job)", name, rk);
			if (rv == NULL || strlen(rk) >= PRICE_MEDIA_LEN || strchr(rk, ':'))
				return at(x, rn, "printers: %s: %s.%.64s: expected a number", name,
				    ks, rk);
			if (ip->nvals >= PRICE_MEDIA_MAX + 7)
				return at(x, rn, "printers: %s: at most %d media factors", name,
				    PRICE_MEDIA_MAX);
			if (price)
				snprintf(v, sizeof(v), "%s=%.20s", rk, rv);
			else
				snprintf(v, sizeof(v), "media=%s:%.12s", rk, rv);
			if ((ip->vals[ip->nvals++] = strdup(v)) == NULL)
				return err_oom(x->e);
		}
	}
	if (price_card_parse(name, ip->vals, ip->nvals, &pc, x->e) != 0)
		return at(x, m, "printers: %s", x->e->msg);
	/* stored in one form, so an export imported again changes nothing */
	strv_free(ip->vals);
	if ((ip->vals = price_card_vals(&pc, &ip->nvals)) == NULL)
		return err_oom(x->e);
	return 0;
}

/* printers: {NAME: {charge: QUOTA, price: {...}, media: {...}}} */
static int
printers(struct ctx *x, const yaml_node_t *m)
{
	size_t n;

	if (!ydoc_is_map(m))
		return at(x, m, "printers is a mapping of printer names to rate cards");
	if (ydoc_check_map(x->doc, m, "printers", x->e) != 0)
		return -1;
	n = m->data.mapping.pairs.top - m->data.mapping.pairs.start;
	if ((x->d->printers = calloc(n + 1, sizeof(*x->d->printers))) == NULL)
		return err_oom(x->e);
	YDOC_PAIRS(m, p) {
		yaml_node_t *k = ydoc_get(x->doc, p->key);
		const char *name = ydoc_str(k);
		struct import_printer *ip = &x->d->printers[x->d->nprinters++];

		if (!cfg_name_ok(name, PRICE_NAME_MAX))
			return at(x, k, "printers: '%.64s' is not a printer name (letters, digits "
			    "and . _ - :, as printer.access names it)", name);
		ip->line = ydoc_line(k);
		if ((ip->name = strdup(name)) == NULL)
			return err_oom(x->e);
		if (card(x, name, ydoc_get(x->doc, p->value), ip) != 0) {
			snprintf(x->e->key, sizeof(x->e->key), "printers.%s", name);
			return -1;
		}
	}
	return 0;
}

int
import_parse(const struct cfg *c, const char *text, size_t len,
    struct import_doc *d, struct err *e)
{
	yaml_document_t doc;
	yaml_node_t *root;
	struct ctx x = { c, &doc, d, e, 0 };
	size_t rcap = 0, ocap = 0;
	int rc = -1;

	memset(d, 0, sizeof(*d));
	if (ydoc_load(&doc, text, len, e) != 0)
		return -1;
	root = yaml_document_get_root_node(&doc);
	if (!ydoc_is_map(root)) {
		err_set(e, ERR_INVALID, ydoc_line(root), NULL,
		    "an import file is a mapping with reasons, organisations, grants, accounts");
		goto done;
	}
	if (ydoc_check_map(&doc, root, "import", e) != 0)
		goto done;
	YDOC_PAIRS(root, p) {
		yaml_node_t *k = ydoc_get(&doc, p->key), *v = ydoc_get(&doc, p->value);
		const char *ks = ydoc_str(k);
		int r;

		if (strcmp(ks, "reasons") == 0)
			r = tree(&x, v, "", &d->reasons, &d->nreasons, &rcap, "reasons");
		else if (strcmp(ks, "organisations") == 0)
			r = tree(&x, v, "", &d->orgs, &d->norgs, &ocap, "organisations");
		else if (strcmp(ks, "grants") == 0)
			r = ydoc_is_null(v) ? 0 : cells(&x, v, 0);
		else if (strcmp(ks, "pools") == 0)
			r = ydoc_is_null(v) ? 0 : cells(&x, v, 1);
		else if (strcmp(ks, "accounts") == 0)
			r = ydoc_is_null(v) ? 0 : accounts(&x, v);
		else if (strcmp(ks, "printers") == 0)
			r = ydoc_is_null(v) ? 0 : printers(&x, v);
		else
			r = err_set(e, ERR_INVALID, ydoc_line(k), ydoc_quotable(ks), "unknown key "
			    "'%.64s' (expected reasons, organisations, grants, pools, accounts, "
			    "printers)", ydoc_quotable(ks));
		if (r != 0)
			goto done;
	}
	rc = 0;
done:
	yaml_document_delete(&doc);
	if (rc != 0)
		import_free(d);
	return rc;
}

void
import_free(struct import_doc *d)
{
	size_t i, j;

	for (i = 0; i < d->nreasons; i++)
		free(d->reasons[i].path);
	free(d->reasons);
	for (i = 0; i < d->norgs; i++)
		free(d->orgs[i].path);
	free(d->orgs);
	for (i = 0; i < d->ncells; i++) {
		struct import_cell *c = &d->cells[i];

		for (j = 0; j < c->ngrants; j++)
			grant_clear(&c->grants[j]);
		free(c->grants);
		for (j = 0; j < c->nrevoke; j++)
			free(c->revoke[j]);
		free(c->revoke);
		for (j = 0; j < c->ncontacts; j++)
			free(c->contacts[j]);
		free(c->contacts);
		free(c->name);
		free(c->reason);
		free(c->org);
	}
	free(d->cells);
	for (i = 0; i < d->naccounts; i++) {
		for (j = 0; j < d->accounts[i].ncells; j++)
			free(d->accounts[i].cells[j]);
		free(d->accounts[i].cells);
		for (j = 0; j < d->accounts[i].nremove; j++)
			free(d->accounts[i].remove[j]);
		free(d->accounts[i].remove);
		free(d->accounts[i].uid);
	}
	free(d->accounts);
	for (i = 0; i < d->nprinters; i++) {
		strv_free(d->printers[i].vals);
		free(d->printers[i].name);
	}
	free(d->printers);
	memset(d, 0, sizeof(*d));
}

/* Adds each path to m, its value the key itself (so a lookup yields a
 * pointer that lives as long as the inputs). */
static int
note_paths(struct strmap *m, const char *const *paths, size_t n)
{
	size_t i;
	int failed;

	for (i = 0; i < n; i++) {
		if (strmap_get(m, paths[i]) == NULL) {
			strmap_put(m, paths[i], (void *)paths[i], &failed);
			if (failed)
				return -1;
		}
	}
	return 0;
}

static int
note_nodes(struct strmap *m, const struct import_node *nodes, size_t n)
{
	size_t i;
	int failed;

	for (i = 0; i < n; i++) {
		if (strmap_get(m, nodes[i].path) == NULL) {
			strmap_put(m, nodes[i].path, nodes[i].path, &failed);
			if (failed)
				return -1;
		}
	}
	return 0;
}

int
import_check(const struct cfg *c, const struct import_doc *d,
    const char *const *reasons, size_t nreasons, const char *const *orgs,
    size_t norgs, struct err *e)
{
	struct strmap rset, oset, kids;
	size_t i, j;
	int rc = -1, failed;

	strmap_init(&rset);
	strmap_init(&oset);
	strmap_init(&kids);
	if (note_paths(&rset, reasons, nreasons) != 0 || note_paths(&oset, orgs, norgs) != 0 ||
	    note_nodes(&rset, d->reasons, d->nreasons) != 0 ||
	    note_nodes(&oset, d->orgs, d->norgs) != 0)
		goto oom;
	/* a reason with a child is not a leaf: mark each parent */
	for (i = 0; i < rset.cap; i++) {
		const char *p = rset.slots[i].key, *q;
		char parent[PATH_MAX_LEN + 1];
		size_t plen;

		if (p == NULL || (plen = path_parent_len(p)) == 0)
			continue;
		memcpy(parent, p, plen);
		parent[plen] = '\0';
		if ((q = strmap_get(&rset, parent)) != NULL) {
			strmap_put(&kids, q, (void *)q, &failed);
			if (failed)
				goto oom;
		}
	}
	for (i = 0; i < d->ncells; i++) {
		const struct import_cell *cell = &d->cells[i];

		if (*cell->reason && strmap_get(&rset, cell->reason) == NULL) {
			err_set(e, ERR_INVALID, cell->line, cell->name,
			    "grants '%s': unknown reason node '%s' (declare it under reasons)",
			    cell->name, cell->reason);
			goto done;
		}
		if (*cell->org && strmap_get(&oset, cell->org) == NULL) {
			err_set(e, ERR_INVALID, cell->line, cell->name,
			    "grants '%s': unknown organisation node '%s' (declare it under organisations)",
			    cell->name, cell->org);
			goto done;
		}
	}
	for (i = 0; i < d->naccounts; i++) {
		const struct import_account *a = &d->accounts[i];

		for (j = 0; j < a->ncells; j++) {
			char reason[PATH_MAX_LEN + 1], org[PATH_MAX_LEN + 1], name[MEMBERSHIP_MAX];
			time_t from, until;

			membership_split(a->cells[j], name, sizeof(name), &from, &until);
			cell_split(name, reason, org, NULL);
			if (*reason && strmap_get(&rset, reason) == NULL) {
				err_set(e, ERR_INVALID, a->line, a->cells[j],
				    "accounts '%s': unknown reason node '%s'", a->uid, reason);
				goto done;
			}
			if (*org && strmap_get(&oset, org) == NULL) {
				err_set(e, ERR_INVALID, a->line, a->cells[j],
				    "accounts '%s': unknown organisation node '%s'", a->uid, org);
				goto done;
			}
			if (c->reason_leaf_only && (*reason == '\0' || strmap_get(&kids, reason))) {
				err_set(e, ERR_INVALID, a->line, a->cells[j],
				    "accounts '%s': membership %s is in reason '%s', which is not "
				    "a leaf (accounts sit only in leaf reasons)",
				    a->uid, a->cells[j], *reason ? reason : "(all)");
				goto done;
			}
		}
	}
	rc = 0;
	goto done;
oom:
	err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
done:
	strmap_free(&rset);
	strmap_free(&oset);
	strmap_free(&kids);
	return rc;
}

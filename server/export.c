/* export.c - writing the model back out in the import format, with libyaml's emitter. */
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "answer.h"
#include "export.h"
#include "membership.h"
#include "path.h"

struct out {
	char *p;
	size_t len, cap;
	int failed;
};

static int
on_write(void *data, unsigned char *buf, size_t n)
{
	struct out *o = data;

	if (o->len + n + 1 > o->cap) {
		size_t nc = (o->len + n + 1) * 2;
		char *np = realloc(o->p, nc);

		if (np == NULL) {
			o->failed = 1;
			return 0;
		}
		o->p = np;
		o->cap = nc;
	}
	memcpy(o->p + o->len, buf, n);
	o->len += n;
	o->p[o->len] = '\0';
	return 1;
}

static int
scalar(yaml_emitter_t *em, const char *s, int quoted)
{
	yaml_event_t ev;

	yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), 1, 1,
	    quoted ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE);
	return yaml_emitter_emit(em, &ev);
}

static int
map_start(yaml_emitter_t *em, int flow)
{
	yaml_event_t ev;

	yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
	    flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE);
	return yaml_emitter_emit(em, &ev);
}

static int
map_end(yaml_emitter_t *em)
{
	yaml_event_t ev;

	yaml_mapping_end_event_initialize(&ev);
	return yaml_emitter_emit(em, &ev);
}

static int
seq_start(yaml_emitter_t *em)
{
	yaml_event_t ev;

	yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_FLOW_SEQUENCE_STYLE);
	return yaml_emitter_emit(em, &ev);
}

static int
seq_end(yaml_emitter_t *em)
{
	yaml_event_t ev;

	yaml_sequence_end_event_initialize(&ev);
	return yaml_emitter_emit(em, &ev);
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The children of prefix among sorted paths, each a mapping of its own. */
static int
tree(yaml_emitter_t *em, char **paths, size_t n, const char *prefix, int depth)
{
	size_t i, pl = strlen(prefix);
	int leaf = 1;

	for (i = 0; i < n; i++)
		if (path_depth(paths[i]) == depth + 1 && (pl == 0 ||
		    (strncmp(paths[i], prefix, pl) == 0 && paths[i][pl] == '/'))) {
			leaf = 0;
			break;
		}
	if (!map_start(em, leaf))
		return 0;
	for (i = 0; i < n; i++) {
		if (path_depth(paths[i]) != depth + 1 || (pl > 0 &&
		    (strncmp(paths[i], prefix, pl) != 0 || paths[i][pl] != '/')))
			continue;
		if (!scalar(em, path_leaf(paths[i]), 0) || !tree(em, paths, n, paths[i], depth + 1))
			return 0;
	}
	return map_end(em);
}

static int
sorted_tree(yaml_emitter_t *em, const char *key, char *const *src, size_t n)
{
	char **paths = malloc((n + 1) * sizeof(*paths));
	int ok;

	if (paths == NULL)
		return 0;
	if (n > 0)
		memcpy(paths, src, n * sizeof(*paths));
	qsort(paths, n, sizeof(*paths), by_name);
	ok = scalar(em, key, 0) && tree(em, paths, n, "", 0);
	free(paths);
	return ok;
}

/* One cell's grants: scalars per privilege, a list of +x/-x for sets. */
static int
grants(yaml_emitter_t *em, const struct snap *s, const struct snap_cell *c)
{
	char buf[GRANT_ELEM_MAX + 32];
	size_t i, j, p;

	if (!scalar(em, c->name, 1) || !map_start(em, 1))
		return 0;
	for (p = 0; p < s->cfg->nprivs; p++) {
		const struct cfg_priv *def = &s->cfg->privs[p];
		int any = 0;

		for (i = 0; i < c->ngrants; i++) {
			const struct grant *g = &c->grants[i];

			if (g->priv != (int)p)
				continue;
			if (def->type == PRIV_SET) {
				if (!any && (!scalar(em, def->name, 0) || !seq_start(em)))
					return 0;
				any = 1;
				snprintf(buf, sizeof(buf), "%c%s", g->op == GRANT_DEL ? '-' : '+', g->elem);
				if (!scalar(em, buf, 0))
					return 0;
				continue;
			}
			/* one scalar grant per privilege and cell: the first */
			for (j = 0; j < i && c->grants[j].priv != (int)p; j++)
				;
			if (j < i)
				continue;
			if (def->type == PRIV_FLAG)
				snprintf(buf, sizeof(buf), "%s", g->num ? "true" : "false");
			else
				snprintf(buf, sizeof(buf), "%lld", g->num);
			if (!scalar(em, def->name, 0) || !scalar(em, buf, 0))
				return 0;
		}
		if (any && !seq_end(em))
			return 0;
	}
	return map_end(em);
}

/* One cell's pools: a limit per quota, in the order privd keeps them. */
static int
pools(yaml_emitter_t *em, const struct snap *s, const struct snap_cell *c)
{
	char buf[32];
	size_t i;

	if (!scalar(em, c->name, 1) || !map_start(em, 1))
		return 0;
	for (i = 0; i < c->npools; i++) {
		snprintf(buf, sizeof(buf), "%lld", c->pools[i].num);
		if (!scalar(em, s->cfg->privs[c->pools[i].priv].name, 0) || !scalar(em, buf, 0))
			return 0;
	}
	if (c->ncontacts > 0) {
		if (!scalar(em, "contacts", 0) || !seq_start(em))
			return 0;
		for (i = 0; i < c->ncontacts; i++)
			if (!scalar(em, c->contacts[i], 0))
				return 0;
		if (!seq_end(em))
			return 0;
	}
	return map_end(em);
}

static int
cell_by_name(const void *a, const void *b)
{
	return strcmp((*(const struct snap_cell *const *)a)->name,
	    (*(const struct snap_cell *const *)b)->name);
}

static int
account_by_uid(const void *a, const void *b)
{
	return strcmp((*(const struct snap_account *const *)a)->uid,
	    (*(const struct snap_account *const *)b)->uid);
}

static int
by_string(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A membership: its cell, or {cell, from, until} for a dated one. */
static int
membership(yaml_emitter_t *em, const char *enc)
{
	char cell[MEMBERSHIP_MAX], t[24];
	time_t from, until;
	int ok;

	if (membership_split(enc, cell, sizeof(cell), &from, &until) != 0)
		return 0;
	if (from == 0 && until == 0)
		return scalar(em, cell, 0);
	ok = map_start(em, 1) && scalar(em, "cell", 0) && scalar(em, cell, 0);
	if (ok && from != 0) {
		membership_rfc3339(from, t);
		ok = scalar(em, "from", 0) && scalar(em, t, 0);
	}
	if (ok && until != 0) {
		membership_rfc3339(until, t);
		ok = scalar(em, "until", 0) && scalar(em, t, 0);
	}
	return ok && map_end(em);
}

/* The same model exports the same text, whatever order the snapshot holds it in. */
/* printers: {NAME: {charge, price: {...}, media: {...}}}, in the
 * snapshot's order (by name). */
static int
printers(yaml_emitter_t *em, const struct snap *s)
{
	char num[32];
	size_t i, k;
	int ok = scalar(em, "printers", 0) && map_start(em, 0);

	for (i = 0; ok && i < s->nprinters; i++) {
		const struct price_card *c = &s->printers[i];

		ok = scalar(em, c->name, 0) && map_start(em, 0) && scalar(em, "charge", 0) &&
		    scalar(em, c->charge, 0) && scalar(em, "price", 0) && map_start(em, 1);
		for (k = 0; ok && k < PRICE_NKEYS; k++) {
			snprintf(num, sizeof(num), "%lld", price_of(c, k));
			ok = scalar(em, price_keys[k], 0) && scalar(em, num, 0);
		}
		ok = ok && map_end(em);
		if (ok && c->nmedia > 0) {
			ok = scalar(em, "media", 0) && map_start(em, 1);
			for (k = 0; ok && k < c->nmedia; k++)
				ok = scalar(em, c->media[k].name, 0) && scalar(em,
				    price_factor_text(c->media[k].milli, num, sizeof(num)), 0);
			ok = ok && map_end(em);
		}
		ok = ok && map_end(em);
	}
	return ok && map_end(em);
}

char *
export_yaml(const struct snap *s)
{
	struct out o = { NULL, 0, 0, 0 };
	const struct snap_cell **cells = calloc(s->ncells + 1, sizeof(*cells));
	const struct snap_account **accts = calloc(s->naccounts + 1, sizeof(*accts));
	yaml_emitter_t em;
	yaml_event_t ev;
	const struct snap_account *a;
	const struct snap_cell *c;
	size_t i, k, pos = 0, cpos = 0;
	int ok;

	if (cells == NULL || accts == NULL || !yaml_emitter_initialize(&em)) {
		free(cells);
		free(accts);
		return NULL;
	}
	for (i = 0; (c = snap_next_cell(s, &cpos)) != NULL; i++)
		cells[i] = c;
	for (i = 0; (a = snap_next(s, &pos)) != NULL; i++)
		accts[i] = a;
	if (s->ncells)
		qsort(cells, s->ncells, sizeof(*cells), cell_by_name);
	if (s->naccounts)
		qsort(accts, s->naccounts, sizeof(*accts), account_by_uid);
	yaml_emitter_set_output(&em, on_write, &o);
	yaml_emitter_set_unicode(&em, 1);
	yaml_emitter_set_width(&em, 100);
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	ok = yaml_emitter_emit(&em, &ev);
	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
	ok = ok && yaml_emitter_emit(&em, &ev) && map_start(&em, 0) &&
	    sorted_tree(&em, "reasons", s->reasons, s->nreasons) &&
	    sorted_tree(&em, "organisations", s->orgs, s->norgs) &&
	    scalar(&em, "grants", 0) && map_start(&em, 0);
	for (i = 0; ok && i < s->ncells; i++)
		if (cells[i]->ngrants > 0)
			ok = grants(&em, s, cells[i]);
	ok = ok && map_end(&em);
	if (ok && s->npooled > 0) {
		ok = scalar(&em, "pools", 0) && map_start(&em, 0);
		for (i = 0; ok && i < s->ncells; i++)
			if (cells[i]->npools > 0)
				ok = pools(&em, s, cells[i]);
		ok = ok && map_end(&em);
	}
	if (ok && s->nprinters > 0)
		ok = printers(&em, s);
	ok = ok && scalar(&em, "accounts", 0) && map_start(&em, 0);
	for (i = 0; ok && i < s->naccounts; i++) {
		const struct snap_account *a = accts[i];
		const char **m = calloc(a->nm + a->ndated + 1, sizeof(*m));
		size_t n = 0;

		if (m == NULL) {
			ok = 0;
			break;
		}
		/* the undated memberships (in force), then every dated one,
		 * in force or not: by cell name */
		for (k = 0; k < a->nm; k++) {
			time_t from, until;

			answer_bounds(a, a->m[k]->cell, &from, &until);
			if (from == 0 && until == 0)
				m[n++] = a->m[k]->cell;
		}
		for (k = 0; k < a->ndated; k++)
			m[n++] = a->dated[k];
		if (n)
			qsort(m, n, sizeof(*m), by_string);
		ok = scalar(&em, a->uid, 0) && seq_start(&em);
		for (k = 0; ok && k < n; k++)
			ok = membership(&em, m[k]);
		ok = ok && seq_end(&em);
		free(m);
	}
	ok = ok && map_end(&em) && map_end(&em);
	yaml_document_end_event_initialize(&ev, 1);
	ok = ok && yaml_emitter_emit(&em, &ev);
	yaml_stream_end_event_initialize(&ev);
	ok = ok && yaml_emitter_emit(&em, &ev) && yaml_emitter_flush(&em);
	yaml_emitter_delete(&em);
	free(cells);
	free(accts);
	if (!ok || o.failed) {
		free(o.p);
		return NULL;
	}
	return o.p;
}

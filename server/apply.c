/* apply.c - an import as a diff against LDAP, validated whole, written as a change (change.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ldap.h>

#include "apply.h"
#include "membership.h"
#include "change.h"
#include "dirview.h"
#include "dn.h"
#include "ldapconn.h"
#include "log.h"
#include "path.h"
#include "pool.h"
#include "strv.h"
#include "strmap.h"

/*
 * The person entries of doc's accounts into d. The directory matches a
 * uid without case: each account is named as it is stored from here on.
 */
static int
read_people(LDAP *ld, const struct cfg *c, const struct import_doc *doc, struct dview *d,
    struct err *e)
{
	const char **uids = calloc(doc->naccounts + 1, sizeof(*uids));
	const char **stored = calloc(doc->naccounts + 1, sizeof(*stored));
	size_t i;
	int rc = -1;

	if (uids == NULL || stored == NULL) {
		err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
		goto done;
	}
	for (i = 0; i < doc->naccounts; i++)
		uids[i] = doc->accounts[i].uid;
	if (dview_read_people(ld, c, uids, doc->naccounts, stored, d, e) != 0)
		goto done;
	for (i = 0; i < doc->naccounts; i++) {
		struct import_account *a = &doc->accounts[i];
		char *s;

		if (stored[i] == NULL || strcmp(stored[i], a->uid) == 0)
			continue;
		if ((s = strdup(stored[i])) == NULL) {
			err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
			goto done;
		}
		free(a->uid);
		a->uid = s;
	}
	rc = 0;
done:
	free(uids);
	free(stored);
	return rc;
}

/* Appends one change line to the summary. */
int
apply_note(struct apply_summary *sum, const char *fmt, ...)
{
	char **nc, *line;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	if ((nc = realloc(sum->changes, (sum->nchanges + 1) * sizeof(*nc))) == NULL) {
		free(line);
		return -1;
	}
	sum->changes = nc;
	sum->changes[sum->nchanges++] = line;
	return 0;
}

void
apply_summary_free(struct apply_summary *s)
{
	size_t i;

	for (i = 0; i < s->nchanges; i++)
		free(s->changes[i]);
	free(s->changes);
	s->changes = NULL;
	s->nchanges = 0;
}

/* States for the nodes of the document the directory lacks. */
static int
plan_nodes(struct chg_list *before, struct chg_list *after, char kind,
    const struct import_node *nodes, size_t n, char *const *have, size_t nhave,
    size_t *count, struct apply_summary *sum, const char *what)
{
	struct strmap seen;
	size_t i;
	int failed, rc = -1;

	strmap_init(&seen);
	for (i = 0; i < nhave; i++) {
		strmap_put(&seen, have[i], (void *)1, &failed);
		if (failed)
			goto done;
	}
	for (i = 0; i < n; i++) {
		if (strmap_get(&seen, nodes[i].path))
			continue;
		if (chg_put(before, kind, 0, nodes[i].path, NULL, 0) != 0 ||
		    chg_put(after, kind, 1, nodes[i].path, NULL, 0) != 0 ||
		    apply_note(sum, "+ %s %s", what, nodes[i].path) != 0)
			goto done;
		strmap_put(&seen, nodes[i].path, (void *)1, &failed);
		if (failed)
			goto done;
		(*count)++;
	}
	rc = 0;
done:
	strmap_free(&seen);
	return rc;
}

/* What a grant text replaces: its privilege, or privilege and element. */
static void
grant_identity(const char *text, char *out, size_t n, size_t *namelen)
{
	const char *eq = strchr(text, '=');
	size_t len = eq ? (size_t)(eq - text) : strlen(text);

	if (len > 0 && (text[len - 1] == '+' || text[len - 1] == '-')) {
		*namelen = len - 1;
		snprintf(out, n, "%.*s\x1f%s", (int)(len - 1), text, eq + 1);
	} else {
		*namelen = len;
		snprintf(out, n, "%.*s", (int)len, text);
	}
}

static int
in_list(char *const *v, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return 1;
	return 0;
}

/* Whether memberships v name the cell of membership s, whatever the dates. */
static int
same_cell_in(char *const *v, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (membership_same_cell(v[i], s))
			return 1;
	return 0;
}

/* The grants cell ic is to hold, given what it holds now (have). */
static char **
want_grants(const struct import_cell *ic, char *const *have, size_t nhave, size_t *n)
{
	char **want = strv_new(nhave + ic->ngrants + ic->ncontacts);
	char id[PRIV_NAME_MAX + GRANT_ELEM_MAX + 4], id2[sizeof(id)];
	size_t i, j, k = 0, nl;

	if (want == NULL)
		return NULL;
	for (i = 0; i < nhave; i++) {
		int pool = grant_pool_text(have[i]) != NULL, replaced = 0;

		if (!ic->merge) {
			/* an import sets what its sections name, and keeps the rest */
			if ((pool ? !ic->in_pools : !ic->in_grants) &&
			    (want[k++] = strdup(have[i])) == NULL)
				goto oom;
			continue;
		}
		grant_identity(have[i], id, sizeof(id), &nl);
		for (j = 0; j < ic->nrevoke && !replaced; j++)
			replaced = strlen(ic->revoke[j]) == nl && strncmp(have[i], ic->revoke[j], nl) == 0;
		for (j = 0; j < ic->ngrants && !replaced; j++) {
			grant_identity(ic->grants[j].text, id2, sizeof(id2), &nl);
			replaced = strcmp(id, id2) == 0;
		}
		if (!replaced && (want[k++] = strdup(have[i])) == NULL)
			goto oom;
	}
	for (j = 0; j < ic->ngrants; j++)
		if (!in_list(want, k, ic->grants[j].text) &&
		    (want[k++] = strdup(ic->grants[j].text)) == NULL)
			goto oom;
	/* a pool's contacts ride with its limits, as privPool values */
	for (j = 0; j < ic->ncontacts; j++) {
		char *t;

		if (asprintf(&t, "%s%s", GRANT_CONTACT, ic->contacts[j]) < 0)
			goto oom;
		if (in_list(want, k, t))
			free(t);
		else
			want[k++] = t;
	}
	*n = k;
	return want;
oom:
	strv_free(want);
	return NULL;
}

/* "+a -b" of the difference between two lists, into buf. */
static void
diff_text(char *const *from, size_t nfrom, char *const *to, size_t nto, char *buf, size_t n)
{
	size_t i, len = 0;

	char t[MEMBERSHIP_MAX + 64];

	buf[0] = '\0';
	for (i = 0; i < nto && len < n; i++)
		if (!in_list(from, nfrom, to[i])) {
			membership_text(to[i], t, sizeof(t));
			len += snprintf(buf + len, n - len, "%s+%s", len ? " " : "", t);
		}
	for (i = 0; i < nfrom && len < n; i++)
		if (!in_list(to, nto, from[i])) {
			membership_text(from[i], t, sizeof(t));
			len += snprintf(buf + len, n - len, "%s-%s", len ? " " : "", t);
		}
}

/* The cells account a is to be a member of, given its current ones. */
static char **
want_cells(const struct import_account *a, char *const *have, size_t nhave, size_t *n)
{
	char **want = strv_new(nhave + a->ncells);
	size_t i, k = 0;

	if (want == NULL)
		return NULL;
	/* by cell name: an edit that names a cell again sets its dates */
	for (i = 0; a->merge && i < nhave; i++)
		if (!same_cell_in(a->remove, a->nremove, have[i]) &&
		    !same_cell_in(a->cells, a->ncells, have[i]) && !in_list(want, k, have[i]) &&
		    (want[k++] = strdup(have[i])) == NULL)
			goto oom;
	for (i = 0; i < a->ncells; i++)
		if (!same_cell_in(want, k, a->cells[i]) && (want[k++] = strdup(a->cells[i])) == NULL)
			goto oom;
	*n = k;
	return want;
oom:
	strv_free(want);
	return NULL;
}

static int
plan_build(const struct cfg *c, const struct import_doc *doc, struct dview *d,
    struct chg_list *before, struct chg_list *after, struct apply_summary *sum,
    struct err *e)
{
	char buf[2048];
	struct strmap planned;
	size_t i, j, nwant;
	int rc = -1, failed;
	char **want = NULL;

	strmap_init(&planned);
	if (plan_nodes(before, after, CHG_REASON, doc->reasons, doc->nreasons, d->reasons.path,
	    d->reasons.n, &sum->reasons_added, sum, "reason") != 0 ||
	    plan_nodes(before, after, CHG_ORG, doc->orgs, doc->norgs, d->orgs.path, d->orgs.n,
	    &sum->orgs_added, sum, "organisation") != 0)
		goto oom;
	for (i = 0; i < doc->ncells; i++) {
		const struct import_cell *ic = &doc->cells[i];
		const struct dview_cell *dc = strmap_get(&d->cells, ic->name);

		if (strmap_get(&planned, ic->name) != NULL)
			continue;
		want = dc ? want_grants(ic, dc->grants, dc->ngrants, &nwant)
		    : want_grants(ic, NULL, 0, &nwant);
		if (want == NULL)
			goto oom;
		if (dc == NULL) {
			diff_text(NULL, 0, want, nwant, buf, sizeof(buf));
			if (chg_put(before, CHG_CELL, 0, ic->name, NULL, 0) != 0 ||
			    chg_put(after, CHG_CELL, 1, ic->name, want, nwant) != 0 ||
			    apply_note(sum, "+ cell %s%s%s", ic->name, *buf ? ": " : "", buf) != 0)
				goto oom;
			sum->cells_added++;
		} else if (!strv_same(want, nwant, dc->grants, dc->ngrants)) {
			diff_text(dc->grants, dc->ngrants, want, nwant, buf, sizeof(buf));
			if (chg_put(before, CHG_CELL, 1, ic->name, dc->grants, dc->ngrants) != 0 ||
			    chg_put(after, CHG_CELL, 1, ic->name, want, nwant) != 0 ||
			    apply_note(sum, "~ cell %s: %s", ic->name, buf) != 0)
				goto oom;
			sum->cells_changed++;
		}
		strv_free(want);
		want = NULL;
		strmap_put(&planned, ic->name, (void *)1, &failed);
		if (failed)
			goto oom;
	}
	for (i = 0; i < doc->nprinters; i++) {
		const struct import_printer *ip = &doc->printers[i];
		const struct dview_cell *dp = strmap_get(&d->printers, ip->name);

		if (dp && strv_same(dp->grants, dp->ngrants, ip->vals, ip->nvals))
			continue;
		if ((dp ? chg_put(before, CHG_PRINTER, 1, ip->name, dp->grants, dp->ngrants) :
		    chg_put(before, CHG_PRINTER, 0, ip->name, NULL, 0)) != 0 ||
		    chg_put(after, CHG_PRINTER, 1, ip->name, ip->vals, ip->nvals) != 0 ||
		    apply_note(sum, "%c printer %s", dp ? '~' : '+', ip->name) != 0)
			goto oom;
		sum->printers_changed++;
	}
	for (i = 0; i < doc->naccounts; i++) {
		const struct import_account *a = &doc->accounts[i];
		const struct dview_person *dp = strmap_get(&d->people, a->uid);

		for (j = 0; j < a->ncells; j++) {
			char cell[MEMBERSHIP_MAX];
			time_t from, until;

			membership_split(a->cells[j], cell, sizeof(cell), &from, &until);
			if (strmap_get(&d->cells, cell) || strmap_get(&planned, cell))
				continue;
			if (chg_put(before, CHG_CELL, 0, cell, NULL, 0) != 0 ||
			    chg_put(after, CHG_CELL, 1, cell, NULL, 0) != 0 ||
			    apply_note(sum, "+ cell %s", cell) != 0)
				goto oom;
			sum->cells_added++;
			/* the map borrows its key: the plan's own copy lives long enough */
			strmap_put(&planned, after->v[after->n - 1].key, (void *)1, &failed);
			if (failed)
				goto oom;
		}
		if (dp == NULL && !c->create_people) {
			err_set(e, ERR_INVALID, a->line, a->uid,
			    "accounts '%s': no entry with %s=%s under %s (privd does not "
			    "create people unless ldap.create_people is true)",
			    a->uid, c->uid_attr, a->uid, c->people_dn);
			goto done;
		}
		want = dp && dp->has_class ? want_cells(a, dp->cells, dp->ncells, &nwant)
		    : want_cells(a, NULL, 0, &nwant);
		if (want == NULL)
			goto oom;
		if (dp != NULL && dp->has_class &&
		    strv_same(want, nwant, dp->cells, dp->ncells)) {
			strv_free(want);
			want = NULL;
			continue;
		}
		if (dp && dp->has_class)
			diff_text(dp->cells, dp->ncells, want, nwant, buf, sizeof(buf));
		else
			diff_text(NULL, 0, want, nwant, buf, sizeof(buf));
		if (chg_put(after, CHG_ACCOUNT, 1, a->uid, want, nwant) != 0)
			goto oom;
		strv_free(want);
		want = NULL;
		if (dp == NULL) {
			if (chg_put(before, CHG_PERSON, 0, a->uid, NULL, 0) != 0 ||
			    apply_note(sum, "+ account %s%s%s", a->uid, *buf ? ": " : "", buf) != 0)
				goto oom;
			sum->accounts_created++;
			continue;
		}
		if ((dp->has_class ? chg_put(before, CHG_ACCOUNT, 1, a->uid, dp->cells, dp->ncells) :
		    chg_put(before, CHG_ACCOUNT, 0, a->uid, NULL, 0)) != 0 ||
		    apply_note(sum, "~ account %s: %s", a->uid, *buf ? buf : "(now followed by privd)") != 0)
			goto oom;
		sum->accounts_changed++;
	}
	rc = 0;
	goto done;
oom:
	err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
done:
	strv_free(want);
	strmap_free(&planned);
	return rc;
}

static int
apply_once(const struct cfg *c, const struct import_doc *doc, int dry_run,
    const char *who, const char *password, const struct chg_req *rq,
    struct apply_summary *sum, struct err *e)
{
	struct dview d;
	struct chg_list before = { NULL, 0, 0 }, after = { NULL, 0, 0 };
	struct chg_result res;
	LDAP *ld = NULL;
	int rc = -1;

	memset(sum, 0, sizeof(*sum));
	dview_init(&d);
	if (ldapc_open_write(c, who, password, &ld, e) != 0)
		goto done;
	if (dview_read_model(ld, c, &d, e) != 0)
		goto done;
	if (import_check(c, doc, (const char *const *)d.reasons.path, d.reasons.n,
	    (const char *const *)d.orgs.path, d.orgs.n, e) != 0)
		goto done;
	if (read_people(ld, c, doc, &d, e) != 0)
		goto done;
	if (plan_build(c, doc, &d, &before, &after, sum, e) != 0)
		goto done;
	if (dry_run) {
		rc = 0;
		goto done;
	}
	if (chg_run(ld, c, rq, &before, &after, &d, &res, e) != 0)
		goto done;
	snprintf(sum->import_id, sizeof(sum->import_id), "%s", res.id);
	sum->resumed = res.resumed;
	memcpy(sum->csn_privileges, res.csn_privileges, sizeof(sum->csn_privileges));
	memcpy(sum->csn_people, res.csn_people, sizeof(sum->csn_people));
	rc = 0;
done:
	if (rc != 0)
		apply_summary_free(sum);
	chg_list_free(&before);
	chg_list_free(&after);
	dview_free(&d);
	ldapc_close(ld);
	return rc;
}

/*
 * An edit that found its entry changed between its read and its write (a
 * concurrent edit of the same cell or account: the write asserted the
 * entryCSN it read) plans again from a fresh read, so both edits land; after
 * a few tries it answers 409 conflict.
 */
int
apply_import(const struct cfg *c, const struct import_doc *doc, int dry_run,
    const char *who, const char *password, const struct chg_req *rq,
    struct apply_summary *sum, struct err *e)
{
	int tries, rc = -1;

	for (tries = 0; tries < 5; tries++) {
		memset(e, 0, sizeof(*e));
		rc = apply_once(c, doc, dry_run, who, password, rq, sum, e);
		if (rc == 0 || e->why != ERR_WHY_CONFLICT)
			break;
		log_info("apply: %s; planning again", e->msg);
	}
	return rc;
}

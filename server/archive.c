/*
 * archive.c - ledger segments: settled ledger entries moved out of a usage
 * entry, so that a charge rewrites a window of recent entries and not the
 * whole ledger of the period. The protocol is in archive.h.
 */
#include <stdatomic.h>
#include <strings.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <lber.h>

#include "archive.h"
#include "ldapconn.h"
#include "log.h"
#include "strv.h"

char *
arch_assert(long long n)
{
	char *s = NULL;

	if (n == 0)
		return strdup("(|(privSegments=0)(!(privSegments=*)))");
	if (asprintf(&s, "(privSegments=%lld)", n) < 0)
		return NULL;
	return s;
}

char *
arch_dn(const char *udn, long long k)
{
	char *s = NULL;

	if (asprintf(&s, "cn=%lld,%s", k, udn) < 0)
		return NULL;
	return s;
}

long long
arch_number(const char *dn)
{
	long long k = 0;
	size_t i;

	if (strncasecmp(dn, "cn=", 3) != 0)
		return -1;
	for (i = 3; dn[i] >= '0' && dn[i] <= '9' && i < 21; i++)
		k = k * 10 + (dn[i] - '0');
	return i > 3 && dn[i] == ',' ? k : -1;
}

int
arch_parent(const char *dn, char **udn)
{
	if (arch_number(dn) < 0)
		return -1;
	*udn = strdup(strchr(dn, ',') + 1);
	return *udn != NULL ? 0 : -1;
}

int
arch_due(const char *udn)
{
	static atomic_uint counts[1024];
	unsigned h = 5381;
	const char *p;

	for (p = udn; *p; p++)
		h = h * 33 + (unsigned char)*p;
	return (atomic_fetch_add(&counts[h & 1023], 1) + 1) % ARCH_EVERY == 0;
}

/* Appends copies of attr's values of m to *v (a strv, grown). */
static int
append_values(LDAP *ld, LDAPMessage *m, const char *attr, char ***v)
{
	struct berval **bv = ldap_get_values_len(ld, m, attr);
	size_t have = strv_len(*v), n = bv ? (size_t)ldap_count_values_len(bv) : 0, i;
	char **nv;

	if (n == 0) {
		ldap_value_free_len(bv);
		return 0;
	}
	if ((nv = realloc(*v, (have + n + 1) * sizeof(*nv))) == NULL) {
		ldap_value_free_len(bv);
		return -1;
	}
	*v = nv;
	for (i = 0; i < n; i++) {
		if ((nv[have] = strndup(bv[i]->bv_val, bv[i]->bv_len)) == NULL)
			break;
		nv[++have] = NULL;
	}
	nv[have] = NULL;
	ldap_value_free_len(bv);
	return i == n ? 0 : -1;
}

int
arch_load(LDAP *ld, const struct cfg *c, const char *udn, long long nseg,
    const char *id, char ***vals, struct err *e)
{
	static char *attrs[] = { "privEntry", NULL };
	struct berval in, out = { 0, NULL };
	LDAPMessage *res = NULL, *m;
	char filter[512], *dn;
	int rc, found = 0;

	if (nseg <= 0)
		return 0;
	in.bv_val = (char *)id;
	in.bv_len = strlen(id);
	if (ldap_bv2escaped_filter_value(&in, &out) != 0)
		return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
	snprintf(filter, sizeof(filter), "(&(objectClass=privLedgerSegment)(privRequest=%s))",
	    out.bv_val);
	ber_memfree(out.bv_val);
	rc = ldapc_search(ld, c, udn, LDAP_SCOPE_ONELEVEL, filter, attrs, 0, &res, e);
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	for (m = ldap_first_entry(ld, res); m; m = ldap_next_entry(ld, m)) {
		long long k;

		if ((dn = ldap_get_dn(ld, m)) == NULL)
			continue;
		k = arch_number(dn);
		ldap_memfree(dn);
		if (k < 1 || k > nseg)
			continue;	/* a move that has not committed: its entries are in the window */
		if (append_values(ld, m, "privEntry", vals) != 0) {
			ldap_msgfree(res);
			return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
		}
		found = 1;
	}
	ldap_msgfree(res);
	return found;
}

/* One window entry, parsed enough to choose what moves. */
struct rec {
	const char *val;	/* borrowed from the strv */
	json_t *j;
	const char *id, *kind, *time;
};

static int
older_first(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	return strcmp(x->time ? x->time : "", y->time ? y->time : "");
}

static int
in_strv(char *const *v, const char *s)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		if (strcmp(v[i], s) == 0)
			return 1;
	return 0;
}

/* Appends a copy of s to v unless it is there already. */
static int
add_once(char ***v, const char *s)
{
	size_t n = strv_len(*v);
	char **nv;

	if (in_strv(*v, s))
		return 0;
	if ((nv = realloc(*v, (n + 2) * sizeof(*nv))) == NULL)
		return -1;
	*v = nv;
	if ((nv[n] = strdup(s)) == NULL)
		return -1;
	nv[n + 1] = NULL;
	return 0;
}

/* The window of a usage entry as one move reads it. */
struct window {
	char **entries, **requests, **holds, **refunds;
	long long nseg, archived;
};

static void
window_free(struct window *w)
{
	strv_free(w->entries);
	strv_free(w->requests);
	strv_free(w->holds);
	strv_free(w->refunds);
	memset(w, 0, sizeof(*w));
}

/* 0, 1 when udn does not exist, -1 and e. */
static int
window_read(LDAP *ld, const struct cfg *c, const char *udn, struct window *w, struct err *e)
{
	static char *attrs[] = { "privEntry", "privRequest", "privHold", "privRefund",
	    "privSegments", "privArchived", NULL };
	LDAPMessage *res = NULL, *m;
	int rc;

	window_free(w);
	rc = ldapc_search(ld, c, udn, LDAP_SCOPE_BASE, "(objectClass=privUsage)", attrs, 1,
	    &res, e);
	if (rc != 0)
		return rc;
	if ((m = ldap_first_entry(ld, res)) == NULL) {
		ldap_msgfree(res);
		return 1;
	}
	ldapc_get_ll(ld, m, "privSegments", &w->nseg);
	ldapc_get_ll(ld, m, "privArchived", &w->archived);
	if ((w->entries = strv_new(0)) == NULL || (w->requests = strv_new(0)) == NULL ||
	    (w->holds = strv_new(0)) == NULL || (w->refunds = strv_new(0)) == NULL ||
	    append_values(ld, m, "privEntry", &w->entries) != 0 ||
	    append_values(ld, m, "privRequest", &w->requests) != 0 ||
	    append_values(ld, m, "privHold", &w->holds) != 0 ||
	    append_values(ld, m, "privRefund", &w->refunds) != 0) {
		ldap_msgfree(res);
		window_free(w);
		return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
	}
	ldap_msgfree(res);
	return 0;
}

char **
arch_choose(char *const *entries, char *const *holds)
{
	size_t n = strv_len(entries), i, k = 0;
	struct rec *r = calloc(n + 1, sizeof(*r));
	char **out = strv_new(0);

	if (r == NULL || out == NULL)
		goto fail;
	for (i = 0; i < n; i++) {
		json_t *j = json_loads(entries[i], 0, NULL);

		if (j == NULL)
			continue;	/* not privd's: it stays, and the ledger check says so */
		r[k].val = entries[i];
		r[k].j = j;
		r[k].id = json_string_value(json_object_get(j, "id"));
		r[k].kind = json_string_value(json_object_get(j, "kind"));
		r[k].time = json_string_value(json_object_get(j, "time"));
		k++;
	}
	qsort(r, k, sizeof(*r), older_first);
	for (i = 0; k > ARCH_KEEP && i < k - ARCH_KEEP; i++) {
		if (r[i].id == NULL || r[i].kind == NULL)
			continue;
		if (strcmp(r[i].kind, "hold") == 0 && strv_keyed(holds, r[i].id) != NULL)
			continue;
		if (add_once(&out, r[i].val) != 0)
			goto fail;
	}
	for (i = 0; i < k; i++)
		json_decref(r[i].j);
	free(r);
	return out;
fail:
	for (i = 0; r && i < k; i++)
		json_decref(r[i].j);
	free(r);
	strv_free(out);
	return NULL;
}

/* What the commit deletes besides the entries: the request ids of the moved
 * charges, holds, refunds and credits, and the zero refund states of moved
 * charges (entries written before refund states were made on demand). */
static int
companions(const struct window *w, char *const *moved, char ***ids, char ***segids,
    char ***zeros)
{
	size_t i;

	for (i = 0; moved[i]; i++) {
		json_t *j = json_loads(moved[i], 0, NULL);
		const char *id = json_string_value(json_object_get(j, "id"));
		const char *kind = json_string_value(json_object_get(j, "kind"));
		char zero[200];
		int ok = 0;

		if (id == NULL || kind == NULL) {
			json_decref(j);
			continue;
		}
		snprintf(zero, sizeof(zero), "%s 0", id);
		if (add_once(segids, id) == 0)
			ok = 1;
		if (ok && strcmp(kind, "commit") != 0 && strcmp(kind, "release") != 0 &&
		    strcmp(kind, "expire") != 0 && in_strv(w->requests, id))
			ok = add_once(ids, id) == 0;
		if (ok && strcmp(kind, "charge") == 0 && in_strv(w->refunds, zero))
			ok = add_once(zeros, zero) == 0;
		json_decref(j);
		if (!ok)
			return -1;
	}
	return 0;
}

/* Adds segment k holding moved: the LDAP result code. */
static int
add_segment(LDAP *ld, const char *sdn, long long k, char **moved, char **segids)
{
	char kbuf[24], nbuf[24], *oc[] = { "privLedgerSegment", NULL };
	char *cn[] = { kbuf, NULL }, *cnt[] = { nbuf, NULL };
	LDAPMod m[5], *mods[6];
	int i;

	snprintf(kbuf, sizeof(kbuf), "%lld", k);
	snprintf(nbuf, sizeof(nbuf), "%zu", strv_len(moved));
	m[0] = (LDAPMod){ LDAP_MOD_ADD, "objectClass", { oc } };
	m[1] = (LDAPMod){ LDAP_MOD_ADD, "cn", { cn } };
	m[2] = (LDAPMod){ LDAP_MOD_ADD, "privEntry", { moved } };
	m[3] = (LDAPMod){ LDAP_MOD_ADD, "privRequest", { segids } };
	m[4] = (LDAPMod){ LDAP_MOD_ADD, "privArchived", { cnt } };
	for (i = 0; i < 5; i++)
		mods[i] = &m[i];
	mods[5] = NULL;
	return ldap_add_ext_s(ld, sdn, mods, NULL, NULL);
}

/* The commit: one modify of the usage entry, under privSegments = k-1. */
static int
commit(LDAP *ld, const char *udn, long long k, long long archived, char **moved,
    char **ids, char **zeros)
{
	char kbuf[24], abuf[24], *kv[] = { kbuf, NULL }, *av[] = { abuf, NULL };
	char *assert = arch_assert(k - 1);
	LDAPControl *actrl = NULL, *ctrls[2] = { NULL, NULL };
	LDAPMod m[5], *mods[6];
	int n = 0, rc;

	if (assert == NULL)
		return LDAP_NO_MEMORY;
	snprintf(kbuf, sizeof(kbuf), "%lld", k);
	snprintf(abuf, sizeof(abuf), "%lld", archived + (long long)strv_len(moved));
	m[n++] = (LDAPMod){ LDAP_MOD_DELETE, "privEntry", { moved } };
	if (ids[0] != NULL)
		m[n++] = (LDAPMod){ LDAP_MOD_DELETE, "privRequest", { ids } };
	if (zeros[0] != NULL)
		m[n++] = (LDAPMod){ LDAP_MOD_DELETE, "privRefund", { zeros } };
	m[n++] = (LDAPMod){ LDAP_MOD_REPLACE, "privSegments", { kv } };
	m[n++] = (LDAPMod){ LDAP_MOD_REPLACE, "privArchived", { av } };
	for (rc = 0; rc < n; rc++)
		mods[rc] = &m[rc];
	mods[n] = NULL;
	if ((rc = ldap_create_assertion_control(ld, assert, 1, &actrl)) == LDAP_SUCCESS) {
		ctrls[0] = actrl;
		rc = ldap_modify_ext_s(ld, udn, mods, ctrls, NULL);
		ldap_control_free(actrl);
	}
	free(assert);
	return rc;
}

int
arch_move(LDAP *ld, const struct cfg *c, const char *udn, int high, struct err *e)
{
	struct window w = { NULL, NULL, NULL, NULL, 0, 0 };
	char **moved = NULL, **ids = NULL, **segids = NULL, **zeros = NULL, *sdn = NULL;
	int attempt, rc, ret = -1;
	size_t i;

	for (attempt = 0; attempt < 3; attempt++) {
		strv_free(moved);
		strv_free(ids);
		strv_free(segids);
		strv_free(zeros);
		free(sdn);
		moved = ids = segids = zeros = NULL;
		if ((rc = window_read(ld, c, udn, &w, e)) != 0) {
			ret = rc < 0 ? -1 : 0;
			goto done;
		}
		if (strv_len(w.entries) <= (size_t)high) {
			ret = 0;
			goto done;
		}
		if ((sdn = arch_dn(udn, w.nseg + 1)) == NULL || (moved = arch_choose(w.entries, w.holds)) == NULL)
			goto oom;
		if (moved[0] == NULL) {
			ret = 0;	/* all open holds */
			goto done;
		}
		if ((segids = strv_new(0)) == NULL || (ids = strv_new(0)) == NULL ||
		    (zeros = strv_new(0)) == NULL || companions(&w, moved, &ids, &segids, &zeros) != 0)
			goto oom;
		rc = add_segment(ld, sdn, w.nseg + 1, moved, segids);
		if (rc == LDAP_ALREADY_EXISTS) {
			/* a move that did not commit (or one running now): adopt its
			 * segment as it is, if its entries are all still here */
			strv_free(moved);
			strv_free(ids);
			strv_free(segids);
			strv_free(zeros);
			ids = segids = zeros = NULL;
			if ((moved = strv_new(0)) == NULL)
				goto oom;
			if (arch_read(ld, c, udn, w.nseg + 1, &moved, e) != 0)
				goto done;
			for (i = 0; moved[i]; i++)
				if (!in_strv(w.entries, moved[i])) {
					ret = 0;	/* the window moved on: another move commits it */
					goto done;
				}
			if (moved[0] == NULL || (segids = strv_new(0)) == NULL ||
			    (ids = strv_new(0)) == NULL || (zeros = strv_new(0)) == NULL ||
			    companions(&w, moved, &ids, &segids, &zeros) != 0)
				goto oom;
		} else if (rc != LDAP_SUCCESS) {
			ldapc_fail(e, rc, sdn);
			goto done;
		}
		rc = commit(ld, udn, w.nseg + 1, w.archived, moved, ids, zeros);
		if (rc == LDAP_SUCCESS) {
			ret = (int)strv_len(moved);
			log_debug("archive: moved %d entries of %s into segment %lld", ret, udn,
			    w.nseg + 1);
			goto done;
		}
		if (rc == LDAP_ASSERTION_FAILED) {
			ret = 0;	/* another privd moved first */
			goto done;
		}
		if (rc != LDAP_NO_SUCH_ATTRIBUTE) {
			ldapc_fail(e, rc, udn);
			goto done;
		}
		/* a refund state changed under us: look again, adopting the segment */
	}
	ret = 0;
	goto done;
oom:
	err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
	ret = -1;
done:
	strv_free(moved);
	strv_free(ids);
	strv_free(segids);
	strv_free(zeros);
	free(sdn);
	window_free(&w);
	return ret;
}

static int
newest_first(const void *a, const void *b)
{
	const struct arch_seg *x = a, *y = b;

	return x->k < y->k ? 1 : x->k > y->k ? -1 : 0;
}

/* The segments of udn numbered lo..hi, newest first; *out malloc'd. */
static int
segments_in(LDAP *ld, const struct cfg *c, const char *udn, long long lo, long long hi,
    struct arch_seg **out, size_t *n, struct err *e)
{
	static char *attrs[] = { "privArchived", NULL };
	LDAPMessage *res = NULL, *m;
	struct arch_seg *v;
	size_t k = 0;
	char *dn;
	int rc;

	*out = NULL;
	*n = 0;
	rc = ldapc_search(ld, c, udn, LDAP_SCOPE_ONELEVEL, "(objectClass=privLedgerSegment)",
	    attrs, 0, &res, e);
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	if ((v = calloc((size_t)ldap_count_entries(ld, res) + 1, sizeof(*v))) == NULL) {
		ldap_msgfree(res);
		return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
	}
	for (m = ldap_first_entry(ld, res); m; m = ldap_next_entry(ld, m)) {
		if ((dn = ldap_get_dn(ld, m)) == NULL)
			continue;
		v[k].k = arch_number(dn);
		ldap_memfree(dn);
		if (v[k].k < lo || v[k].k > hi)
			continue;
		ldapc_get_ll(ld, m, "privArchived", &v[k].count);
		k++;
	}
	ldap_msgfree(res);
	qsort(v, k, sizeof(*v), newest_first);
	*out = v;
	*n = k;
	return 0;
}

int
arch_segments(LDAP *ld, const struct cfg *c, const char *udn, long long nseg,
    struct arch_seg **out, size_t *n, struct err *e)
{
	*out = NULL;
	*n = 0;
	if (nseg <= 0)
		return 0;
	return segments_in(ld, c, udn, 1, nseg, out, n, e);
}

int
arch_uncommitted(LDAP *ld, const struct cfg *c, const char *udn, long long nseg,
    struct arch_seg **out, size_t *n, struct err *e)
{
	return segments_in(ld, c, udn, nseg + 1, LLONG_MAX, out, n, e);
}

int
arch_read(LDAP *ld, const struct cfg *c, const char *udn, long long k, char ***vals,
    struct err *e)
{
	static char *attrs[] = { "privEntry", NULL };
	LDAPMessage *res = NULL, *m;
	char *sdn = arch_dn(udn, k);
	int rc;

	if (sdn == NULL)
		return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
	rc = ldapc_search(ld, c, sdn, LDAP_SCOPE_BASE, "(objectClass=privLedgerSegment)",
	    attrs, 1, &res, e);
	free(sdn);
	if (rc != 0)
		return rc;
	m = ldap_first_entry(ld, res);
	rc = m && append_values(ld, m, "privEntry", vals) != 0 ?
	    err_set(e, ERR_INTERNAL, 0, NULL, "out of memory") : 0;
	ldap_msgfree(res);
	return rc;
}

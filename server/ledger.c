/* ledger.c - reading a usage entry's ledger, and checking counters against ledgers. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <jansson.h>
#include <nettle/sha2.h>

#include "hex.h"
#include "archive.h"
#include "dn.h"
#include "ldapconn.h"
#include "ledger.h"
#include "period.h"
#include "reqid.h"
#include "usage.h"
#include "retention.h"
#include "strmap.h"
#include "strv.h"
#include "wop.h"

int
ledger_titles(const struct cfg *c, char **meta)
{
	unsigned char d[SHA256_DIGEST_SIZE];
	struct sha256_ctx h;
	json_t *m, *t;
	char hex[7 + 16 + 1];
	char *out;

	if (*meta == NULL || c->ledger_titles == CFG_TITLES_KEEP ||
	    (m = json_loads(*meta, 0, NULL)) == NULL)
		return 0;
	if ((t = json_object_get(m, "title")) == NULL || !json_is_string(t)) {
		json_decref(m);
		return 0;
	}
	if (c->ledger_titles == CFG_TITLES_DROP)
		json_object_del(m, "title");
	else {
		/* equal titles hash equal: a job someone names can be found,
		 * and nobody can read what they printed */
		sha256_init(&h);
		sha256_update(&h, json_string_length(t), (const uint8_t *)json_string_value(t));
		sha256_digest(&h, sizeof(d), d);
		memcpy(hex, "sha256:", 7);
		hex_encode(d, 8, hex + 7);
		json_object_set_new(m, "title", json_string(hex));
	}
	out = json_dumps(m, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(m);
	if (out == NULL)
		return -1;
	free(*meta);
	*meta = out;
	return 0;
}

/* Whether "ID N[ ...]" values v hold id (N into *n). */
static int
has_state(char *const *v, const char *id, long long *n)
{
	const char *s = strv_keyed(v, id);

	if (s != NULL)
		*n = strtoll(s + strlen(id) + 1, NULL, 10);
	return s != NULL;
}

static int
newest_first(const void *a, const void *b)
{
	const struct lentry *x = a, *y = b;
	int c = strcmp(y->time ? y->time : "", x->time ? x->time : "");

	return c != 0 ? c : strcmp(x->id ? x->id : "", y->id ? y->id : "");
}

/* The entries of vals, newest first, with each charge's refunded amount
 * from the refund states; *out malloc'd. 0, or -1 when out of memory. */
static int
parse(char *const *vals, char *const *refunds, struct lentry **out, size_t *n)
{
	size_t i, k = 0, nv = strv_len(vals);
	struct lentry *x = calloc(nv + 1, sizeof(*x));

	if (x == NULL)
		return -1;
	for (i = 0; i < nv; i++) {
		struct lentry *le = &x[k];
		int rc = lentry_parse(vals[i], le);

		if (rc > 0)
			continue;	/* not privd's: ledger_check reports it */
		if (rc < 0) {
			lentry_free_all(x, k);
			return -1;
		}
		k++;
		if (strcmp(le->kind, "charge") == 0 && !has_state(refunds, le->id, &le->refunded))
			le->refunded = 0;
	}
	qsort(x, k, sizeof(*x), newest_first);
	*out = x;
	*n = k;
	return 0;
}

/* Moves entries [from, from + want) of v (n of them) to the end of page. */
static void
take_slice(struct lentry *v, size_t n, size_t from, size_t want,
    struct lentry *page, size_t *np)
{
	size_t i;

	for (i = from; i < n && i < from + want; i++) {
		page[(*np)++] = v[i];
		memset(&v[i], 0, sizeof(v[i]));
	}
}

int
ledger_page(LDAP *ld, const struct cfg *c, const char *usage_dn, size_t offset,
    size_t limit, struct lentry **out, size_t *n, size_t *total, struct err *e)
{
	static char *attrs[] = { "privEntry", "privRefund", "privSegments", "privArchived", NULL };
	LDAPMessage *res = NULL, *m;
	char **win = NULL, **refunds = NULL, **seg = NULL;
	struct lentry *page = NULL, *v = NULL;
	struct arch_seg *segs = NULL;
	long long nseg = 0, archived = 0;
	size_t nv = 0, np = 0, nsegs = 0, pos, i;
	int rc, ret = -1;

	*out = NULL;
	*n = *total = 0;
	rc = ldapc_search(ld, c, usage_dn, LDAP_SCOPE_BASE, "(objectClass=privUsage)",
	    attrs, 1, &res, e);
	if (rc != 0 || (m = ldap_first_entry(ld, res)) == NULL) {
		ldap_msgfree(res);
		return rc < 0 ? -1 : 0;
	}
	ldapc_get_ll(ld, m, "privSegments", &nseg);
	ldapc_get_ll(ld, m, "privArchived", &archived);
	win = ldapc_get_strv(ld, m, "privEntry");
	refunds = ldapc_get_strv(ld, m, "privRefund");
	ldap_msgfree(res);
	if (win == NULL || refunds == NULL || (page = calloc(limit + 1, sizeof(*page))) == NULL ||
	    parse(win, refunds, &v, &nv) != 0)
		goto oom;
	*total = nv + (size_t)archived;
	/* the window first, then the segments newest first: read only those
	 * the page reaches into */
	take_slice(v, nv, offset, limit, page, &np);
	pos = nv;
	lentry_free_all(v, nv);
	v = NULL;
	nv = 0;
	if (np < limit && offset + limit > pos &&
	    arch_segments(ld, c, usage_dn, nseg, &segs, &nsegs, e) != 0)
		goto done;
	for (i = 0; i < nsegs && np < limit; i++) {
		size_t cnt = (size_t)segs[i].count;

		if (pos + cnt <= offset) {
			pos += cnt;
			continue;
		}
		strv_free(seg);
		if ((seg = strv_new(0)) == NULL)
			goto oom;
		if (arch_read(ld, c, usage_dn, segs[i].k, &seg, e) < 0)
			goto done;
		if (parse(seg, refunds, &v, &nv) != 0)
			goto oom;
		take_slice(v, nv, offset > pos ? offset - pos : 0, limit - np, page, &np);
		lentry_free_all(v, nv);
		v = NULL;
		pos += cnt;
	}
	*out = page;
	*n = np;
	page = NULL;
	ret = 0;
	goto done;
oom:
	err_set(e, ERR_INTERNAL, 0, NULL, "out of memory reading %s", usage_dn);
done:
	lentry_free_all(page, np);
	lentry_free_all(v, nv);
	free(segs);
	strv_free(win);
	strv_free(refunds);
	strv_free(seg);
	return ret;
}

/* What the check knows of one request id of one usage entry. */
struct item {
	long long charge;	/* its amount; -1 before a charge is seen */
	long long refunded;	/* sum of refunds naming it */
	long long hold;		/* held; -1 before a hold is seen */
	int charges, holds, settles;
	char id[];
};

struct check {
	FILE *out;
	int faults;
	size_t nusage, nentries, nretained, repaired;
	char key[2 * DN_VAL_MAX + 2];
	/* the usage entry being checked */
	struct strmap items;
	long long used, held, credit;
	unsigned long long lhash;	/* the entries, in any order: a sum of their hashes */
	struct strmap *digests;		/* key -> what a provider holds, or NULL */
	char **paid;			/* "UID QUOTA" of each paid wallet met */
};

static void __attribute__((format(printf, 2, 3)))
fault(struct check *k, const char *fmt, ...)
{
	va_list ap;

	fprintf(k->out, "%s: ", k->key);
	va_start(ap, fmt);
	vfprintf(k->out, fmt, ap);
	va_end(ap);
	fputc('\n', k->out);
	k->faults++;
}

static struct item *
item(struct check *k, const char *id)
{
	struct item *it = strmap_get(&k->items, id);
	size_t n = strlen(id);
	int failed = 0;

	if (it != NULL)
		return it;
	if ((it = calloc(1, sizeof(*it) + n + 1)) == NULL)
		return NULL;
	memcpy(it->id, id, n + 1);
	it->charge = it->hold = -1;
	strmap_put(&k->items, it->id, it, &failed);
	if (failed) {
		free(it);
		return NULL;
	}
	return it;
}

/* One ledger entry into the sums: O(1), so a long ledger checks in one pass. */
static void
feed(struct check *k, const char *val)
{
	json_t *j = json_loads(val, 0, NULL);
	const char *kind = json_string_value(json_object_get(j, "kind"));
	const char *id = json_string_value(json_object_get(j, "id"));
	const char *ref = json_string_value(json_object_get(j, "ref"));
	long long a = json_integer_value(json_object_get(j, "amount"));
	long long rel = json_integer_value(json_object_get(j, "released"));
	struct item *it;

	k->nentries++;
	{
		unsigned long long h = 14695981039346656037ULL;
		const char *c;

		for (c = val; *c; c++)
			h = (h ^ (unsigned char)*c) * 1099511628211ULL;
		k->lhash += h;
	}
	if (j == NULL) {
		fault(k, "a ledger entry is not JSON: %.60s", val);
		return;
	}
	if (kind == NULL || id == NULL) {
		fault(k, "a ledger entry has no kind or id: %.60s", val);
		goto done;
	}
	if (json_object_get(j, "void") != NULL)
		goto done;	/* a split's paid part not had: it took nothing (wallet.h) */
	if ((it = item(k, strcmp(kind, "refund") == 0 && ref ? ref : id)) == NULL) {
		fault(k, "out of memory");
		goto done;
	}
	if (strcmp(kind, "charge") == 0) {
		k->used += a;
		it->charge = a;
		it->charges++;
	} else if (strcmp(kind, "refund") == 0) {
		k->used -= a;
		it->refunded += a;
	} else if (strcmp(kind, "hold") == 0) {
		k->used += a;
		k->held += a;
		it->hold = a;
		it->holds++;
	} else if (strcmp(kind, "commit") == 0 || strcmp(kind, "release") == 0 ||
	    strcmp(kind, "expire") == 0) {
		k->used -= rel;
		k->held -= a + rel;
		it->settles++;
	} else if (strcmp(kind, "credit") == 0 || strcmp(kind, "topup") == 0 ||
	    strcmp(kind, "reversal") == 0)
		k->credit += a;
	else
		fault(k, "ledger entry %s has unknown kind '%s'", id, kind);
done:
	json_decref(j);
}

/* The per-id rules, once every entry of the usage entry is in. */
static void
judge(struct check *k, char *const *holds, char *const *refunds)
{
	long long st, n;
	size_t i;

	for (i = 0; i < k->items.cap; i++) {
		struct item *it = k->items.slots[i].val;
		int open;

		if (k->items.slots[i].key == NULL)
			continue;
		if (it->charges > 1 || it->holds > 1)
			fault(k, "%s is in the ledger %d times", it->id, it->charges + it->holds);
		if (it->charge >= 0) {
			if (!has_state(refunds, it->id, &st))
				st = 0;	/* a refund state is made with the first refund */
			if (st != it->refunded)
				fault(k, "charge %s: refund state says %lld, its refunds sum to %lld",
				    it->id, st, it->refunded);
			if (it->refunded > it->charge)
				fault(k, "charge %s of %lld is refunded %lld", it->id, it->charge,
				    it->refunded);
		} else if (it->refunded > 0)
			fault(k, "refunds name %s, which is no charge here", it->id);
		if (it->hold >= 0) {
			open = has_state(holds, it->id, &n);
			if (open + it->settles != 1)
				fault(k, "hold %s is %s", it->id, open ? "open and settled" :
				    it->settles ? "settled twice" : "neither open nor settled");
			if (open && n != it->hold)
				fault(k, "hold %s holds %lld in its state, %lld in the ledger", it->id,
				    n, it->hold);
		} else if (it->settles > 0)
			fault(k, "%s is settled but was never held", it->id);
	}
}

static long long
get_ll(LDAP *ld, LDAPMessage *m, const char *attr)
{
	long long n = 0;

	ldapc_get_ll(ld, m, attr, &n);
	return n;
}

/* A counter of m against what its ledger says it must be. */
static void
expect(struct check *k, LDAP *ld, LDAPMessage *m, const char *attr, long long want,
    const char *why)
{
	long long have = get_ll(ld, m, attr);

	if (have != want)
		fault(k, "%s is %lld, %s %lld", attr, have, why, want);
}

struct walk {
	const struct cfg *c;
	const char *root;
	struct check *k;
	LDAP *seg_ld;		/* reads segments while the paged search runs */
	struct err *e;
	LDAP *repair_ld;	/* --repair: counters set to their ledger here */
};

/* The assertion that attr is what was read: its value, or absent. */
static void
as_read(LDAP *ld, LDAPMessage *m, const char *attr, char *out, size_t n)
{
	char v[32];

	if (ldapc_get_buf(ld, m, attr, v, sizeof(v)) == 0 && v[0])
		snprintf(out, n, "(%s=%s)", attr, v);
	else
		snprintf(out, n, "(!(%s=*))", attr);
}

/*
 * --repair: the counters that differ from their ledger set to what it sums
 * to, in one modify asserting that all three are still what was read (a
 * charge in between makes it refuse, and the next run looks again).
 */
static void
repair(struct walk *w, struct check *k, const char *dn, LDAP *ld, LDAPMessage *m)
{
	static const char *const attrs[] = { "privUsed", "privHeld", "privCredit" };
	long long want[3] = { k->used, k->held, k->credit };
	char a[3][64], said[256] = "";
	struct wop o;
	size_t i;
	int rc;

	memset(&o, 0, sizeof(o));
	o.dn = dn;
	for (i = 0; i < 3; i++) {
		long long have = get_ll(ld, m, attrs[i]);

		as_read(ld, m, attrs[i], a[i], sizeof(a[i]));
		if (have == want[i])
			continue;
		/* a swap, not a replace: like every counter write (wop.h) */
		if (a[i][1] == '!')
			wop_mod(&o, LDAP_MOD_ADD, attrs[i], "%lld", want[i]);
		else
			wop_swap(&o, attrs[i], have, want[i]);
		snprintf(said + strlen(said), sizeof(said) - strlen(said), "%s%s %lld -> %lld",
		    said[0] ? ", " : "", attrs[i], have, want[i]);
	}
	if (o.nmod == 0)
		return;
	if (asprintf(&o.assert, "(&%s%s%s)", a[0], a[1], a[2]) < 0) {
		o.assert = NULL;
		wop_free(&o);
		return;
	}
	rc = wop_run(w->repair_ld, &o);
	if (rc == LDAP_SUCCESS) {
		fprintf(k->out, "%s: repaired: %s\n", k->key, said);
		k->repaired++;
	} else
		fprintf(k->out, "%s: not repaired (%s): %s; run it again\n", k->key, said,
		    rc == LDAP_ASSERTION_FAILED ? "it changed while it was checked" :
		    ldap_err2string(rc));
	wop_free(&o);
}

/*
 * The segments above privSegments: a move that has not committed copies
 * entries that stay in the window. An entry in such a segment and not in
 * the window is in no ledger the counters were checked against: it is
 * counted now, and named (replication that lost a window's values, or a
 * move half undone, leaves this).
 */
static void
above(struct walk *w, struct check *k, const char *dn, long long nseg, char **win)
{
	struct arch_seg *segs = NULL;
	struct strmap inwin;
	size_t i, j, extra;
	char **vals;

	if (arch_uncommitted(w->seg_ld, w->c, dn, nseg, &segs, &i, w->e) != 0) {
		fault(k, "segments above %lld: %s", nseg, w->e->msg);
		memset(w->e, 0, sizeof(*w->e));
		return;
	}
	strmap_init(&inwin);
	for (j = 0; win[j]; j++)
		strmap_put(&inwin, win[j], win[j], NULL);
	while (i-- > 0) {
		if ((vals = strv_new(0)) == NULL ||
		    arch_read(w->seg_ld, w->c, dn, segs[i].k, &vals, w->e) < 0) {
			fault(k, "segment %lld: %s", segs[i].k, w->e->code ? w->e->msg : "unreadable");
			memset(w->e, 0, sizeof(*w->e));
			strv_free(vals);
			continue;
		}
		for (j = 0, extra = 0; vals[j]; j++)
			if (strmap_get(&inwin, vals[j]) == NULL) {
				feed(k, vals[j]);
				extra++;
			}
		if (extra > 0)
			fault(k, "segment %lld, above privSegments %lld, holds %zu entr%s not in the "
			    "window", segs[i].k, nseg, extra, extra == 1 ? "y" : "ies");
		strv_free(vals);
	}
	strmap_free(&inwin);
	free(segs);
}

/* Appends s (taken) to the strv *v; -1 when out of memory. */
static int
push(char ***v, char *s)
{
	size_t n = strv_len(*v);
	char **nv = realloc(*v, (n + 2) * sizeof(**v));

	if (nv == NULL)
		return -1;
	nv[n] = s;
	nv[n + 1] = NULL;
	*v = nv;
	return 0;
}

/* One usage entry: its window and segments, summed, against its counters. */
static int
check_one(LDAP *ld, LDAPMessage *m, void *arg)
{
	struct walk *w = arg;
	struct check *k = w->k;
	char uid[DN_VAL_MAX], name[DN_VAL_MAX], *dn = ldap_get_dn(ld, m);
	char **win = ldapc_get_strv(ld, m, "privEntry");
	char **holds = ldapc_get_strv(ld, m, "privHold");
	char **refunds = ldapc_get_strv(ld, m, "privRefund");
	char **seg = NULL;
	long long nseg = get_ll(ld, m, "privSegments"), kk, archived = 0, cnt;
	size_t i, entries0;

	if (dn == NULL || win == NULL || holds == NULL || refunds == NULL)
		goto done;
	if (dn_usage(dn, w->root, uid, name) != 0)
		snprintf(k->key, sizeof(k->key), "%s", dn);
	else if (retention_old(w->c, name, period_now())) {
		/* ledger.retention removed its ledger: only the counters remain */
		k->nretained++;
		goto done;
	} else {
		size_t nl = strlen(name), pl = strlen("@" USAGE_PAID_PERIOD);

		snprintf(k->key, sizeof(k->key), "%s/%s", uid, name);
		/* an account's paid wallet: its parts checked against the
		 * allowance's splits once the walk is done (cross) */
		if (nl > pl && strcmp(name + nl - pl, "@" USAGE_PAID_PERIOD) == 0 &&
		    strncmp(uid, "pool:", 5) != 0 && k->paid != NULL) {
			char *pair = NULL;

			if (asprintf(&pair, "%s %.*s", uid, (int)(nl - pl), name) < 0 ||
			    push(&k->paid, pair) != 0) {
				free(pair);
				fault(k, "out of memory");
			}
		}
	}
	k->nusage++;
	entries0 = k->nentries;
	strmap_init(&k->items);
	k->used = k->held = k->credit = 0;
	k->lhash = 0;
	for (i = 0; win[i]; i++)
		feed(k, win[i]);
	for (kk = 1; kk <= nseg; kk++) {
		strv_free(seg);
		if ((seg = strv_new(0)) == NULL)
			break;
		if (arch_read(w->seg_ld, w->c, dn, kk, &seg, w->e) != 0) {
			fault(k, "segment %lld: %s", kk, w->e->code ? w->e->msg : "missing");
			memset(w->e, 0, sizeof(*w->e));
			continue;
		}
		for (cnt = 0; seg[cnt]; cnt++)
			feed(k, seg[cnt]);
		archived += cnt;
	}
	expect(k, ld, m, "privArchived", archived, "its segments hold");
	above(w, k, dn, nseg, win);
	judge(k, holds, refunds);
	expect(k, ld, m, "privUsed", k->used, "the ledger sums to");
	expect(k, ld, m, "privHeld", k->held, "the ledger sums to");
	expect(k, ld, m, "privCredit", k->credit, "the ledger sums to");
	if (w->repair_ld != NULL)
		repair(w, k, dn, ld, m);
	if (k->digests != NULL) {
		char *d = NULL, *key = strdup(k->key);

		if (key == NULL || asprintf(&d, "privUsed %lld, privHeld %lld, privCredit %lld, "
		    "%zu ledger entries #%016llx", get_ll(ld, m, "privUsed"), get_ll(ld, m, "privHeld"),
		    get_ll(ld, m, "privCredit"), k->nentries - entries0, k->lhash) < 0) {
			free(key);
			fault(k, "out of memory");
		} else {
			int failed = 0;

			if (strmap_get(k->digests, key) == NULL)
				strmap_put(k->digests, key, d, &failed);
			else
				failed = 1;	/* one usage entry, one key: never twice */
			if (failed) {
				free(key);
				free(d);
			}
		}
	}
	for (i = 0; i < k->items.cap; i++)
		if (k->items.slots[i].key != NULL)
			free(k->items.slots[i].val);
	strmap_free(&k->items);
done:
	ldap_memfree(dn);
	strv_free(win);
	strv_free(holds);
	strv_free(refunds);
	strv_free(seg);
	return 0;
}


/* Every entry of usage_dn's ledger (window and segments); 0, or -1 and e. */
static int
whole_ledger(LDAP *ld, const struct cfg *c, const char *dn, struct lentry **v, size_t *n,
    struct err *e)
{
	size_t total = 0;

	*v = NULL;
	*n = 0;
	if (ledger_page(ld, c, dn, 0, 0, v, n, &total, e) != 0)
		return -1;
	lentry_free_all(*v, *n);
	*v = NULL;
	*n = 0;
	return total == 0 ? 0 : ledger_page(ld, c, dn, 0, total, v, n, &total, e);
}

/*
 * One account's quota across its wallets: every split on an allowance (a
 * charge or hold whose entry names a paid part) has that part, ID@PERIOD,
 * in the paid wallet, of the same size (or void); every part there has its
 * split; and no request id is both an allowance's operation and a top-up,
 * reversal or credit of the paid wallet (an id names one operation).
 */
static void
cross(struct walk *w, LDAP *ld, const char *uid, const char *quota)
{
	static char *attrs[] = { "1.1", NULL };
	struct check *k = w->k;
	char cn[DN_VAL_MAX], filter[DN_VAL_MAX + 64], *holder, *pdn = NULL, u[DN_VAL_MAX], name[DN_VAL_MAX];
	struct lentry *pe = NULL, *ae = NULL;
	size_t np = 0, na, i, j;
	struct strmap parts, used;
	LDAPMessage *res = NULL, *m;
	int rc;

	strmap_init(&parts);
	strmap_init(&used);
	snprintf(k->key, sizeof(k->key), "%s/%s", uid, quota);
	snprintf(cn, sizeof(cn), "%s@%s", quota, USAGE_PAID_PERIOD);
	if ((holder = dn_child("uid", uid, w->root)) == NULL ||
	    (pdn = dn_child("cn", cn, holder)) == NULL) {
		fault(k, "out of memory");
		goto done;
	}
	if (whole_ledger(ld, w->c, pdn, &pe, &np, w->e) != 0)
		goto failed;
	for (i = 0; i < np; i++)
		if (strcmp(pe[i].kind, "commit") != 0 && strcmp(pe[i].kind, "release") != 0 &&
		    strcmp(pe[i].kind, "expire") != 0)
			strmap_put(&parts, pe[i].id, &pe[i], NULL);
	snprintf(filter, sizeof(filter), "(&(objectClass=privUsage)(cn=%s@*))", quota);
	if ((rc = ldapc_search(ld, w->c, holder, LDAP_SCOPE_ONELEVEL, filter, attrs, 0, &res,
	    w->e)) < 0)
		goto failed;
	for (m = res ? ldap_first_entry(ld, res) : NULL; m; m = ldap_next_entry(ld, m)) {
		char *dn = ldap_get_dn(ld, m), *period;

		if (dn == NULL || dn_usage(dn, w->root, u, name) != 0 ||
		    (period = strrchr(name, '@')) == NULL ||
		    strcmp(period + 1, USAGE_PAID_PERIOD) == 0 ||
		    whole_ledger(ld, w->c, dn, &ae, &na, w->e) != 0) {
			ldap_memfree(dn);
			if (w->e->code != ERR_NONE)
				goto failed;
			continue;
		}
		ldap_memfree(dn);
		period++;
		for (j = 0; j < na; j++) {
			const struct lentry *x = &ae[j], *p = strmap_get(&parts, x->id);
			char pid[REQID_MAX + PERIOD_KEY_MAX + 8];

			if (p != NULL && (strcmp(p->kind, "topup") == 0 ||
			    strcmp(p->kind, "reversal") == 0 || strcmp(p->kind, "credit") == 0))
				fault(k, "request id %s is a %s of the paid wallet and a %s in %s: one "
				    "id, two operations", x->id, p->kind, x->kind, period);
			if (x->paid < 0 || (strcmp(x->kind, "charge") != 0 &&
			    strcmp(x->kind, "hold") != 0))
				continue;
			snprintf(pid, sizeof(pid), "%s@%s", x->id, period);
			if ((p = strmap_get(&parts, pid)) != NULL)
				strmap_put(&used, p->id, (void *)p, NULL);
			if (p == NULL)
				fault(k, "split %s in %s: the allowance says the paid wallet gave %lld, "
				    "the paid wallet has no part %s", x->id, period, x->paid, pid);
			else if (!p->voided && p->amount != x->paid)
				fault(k, "split %s in %s: the allowance says the paid wallet gave %lld, "
				    "its part %s says %lld", x->id, period, x->paid, pid, p->amount);
		}
		lentry_free_all(ae, na);
		ae = NULL;
	}
	/* a part whose split no allowance holds */
	for (i = 0; i < np; i++)
		if ((strcmp(pe[i].kind, "charge") == 0 || strcmp(pe[i].kind, "hold") == 0) &&
		    strchr(pe[i].id, '@') != NULL && strmap_get(&used, pe[i].id) == NULL)
			fault(k, "the paid wallet's part %s has no split on any allowance", pe[i].id);
	goto done;
failed:
	fault(k, "cannot read its wallets: %s", w->e->msg);
	memset(w->e, 0, sizeof(*w->e));
done:
	ldap_msgfree(res);
	strmap_free(&parts);
	strmap_free(&used);
	lentry_free_all(pe, np);
	free(pdn);
	free(holder);
}

int
ledger_check(LDAP *ld, LDAP *seg_ld, LDAP *repair_ld, const struct cfg *c, FILE *out,
    struct strmap *digests, struct err *e)
{
	static char *attrs[] = { "privUsed", "privCredit", "privHeld", "privEntry",
	    "privHold", "privRefund", "privSegments", "privArchived", NULL };
	struct check k;
	struct walk w;
	struct err se;
	char *root = dn_join("ou=usage", c->base_dn);
	int rc;

	size_t i;

	memset(&k, 0, sizeof(k));
	memset(&se, 0, sizeof(se));
	k.out = out;
	k.digests = digests;
	k.paid = strv_new(0);
	if (root == NULL || k.paid == NULL) {
		free(root);
		strv_free(k.paid);
		return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
	}
	w = (struct walk){ c, root, &k, seg_ld, &se, repair_ld };
	rc = ldapc_paged(ld, c, root, LDAP_SCOPE_SUBTREE, "(objectClass=privUsage)", attrs,
	    100, check_one, &w, e);
	/* each paid wallet against its account's allowances, after the walk */
	for (i = 0; rc >= 0 && k.paid[i]; i++) {
		char *sp = strchr(k.paid[i], ' ');

		*sp = '\0';
		cross(&w, seg_ld, k.paid[i], sp + 1);
	}
	strv_free(k.paid);
	free(root);
	if (rc < 0)
		return -1;
	fprintf(out, "%s: %zu usage entries, %zu ledger entries, %d fault%s", k.faults ?
	    "FAILED" : "ok", k.nusage, k.nentries, k.faults, k.faults == 1 ? "" : "s");
	if (k.nretained)
		fprintf(out, "; %zu older than ledger.retention, counters only, not checked",
		    k.nretained);
	if (repair_ld != NULL)
		fprintf(out, "; %zu usage entr%s repaired", k.repaired, k.repaired == 1 ? "y" : "ies");
	fprintf(out, "\n");
	return k.faults;
}

/* Keys of a that b lacks or holds otherwise, each said; how many. */
static int
differ(const char *an, struct strmap *a, const char *bn, struct strmap *b, int both, FILE *out)
{
	size_t i;
	int n = 0;

	for (i = 0; i < a->cap; i++) {
		const char *key = a->slots[i].key, *theirs;

		if (key == NULL)
			continue;
		if ((theirs = strmap_get(b, key)) == NULL) {
			fprintf(out, "%s: on %s (%s), not on %s\n", key, an,
			    (const char *)a->slots[i].val, bn);
			n++;
		} else if (both && strcmp(theirs, a->slots[i].val) != 0) {
			fprintf(out, "%s: %s holds %s; %s holds %s\n", key, an,
			    (const char *)a->slots[i].val, bn, theirs);
			n++;
		}
	}
	return n;
}

int
ledger_compare(const char *an, struct strmap *a, const char *bn, struct strmap *b, FILE *out)
{
	return differ(an, a, bn, b, 1, out) + differ(bn, b, an, a, 0, out);
}

void
ledger_digests_free(struct strmap *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		if (m->slots[i].key != NULL) {
			free((char *)m->slots[i].key);
			free(m->slots[i].val);
		}
	strmap_free(m);
}

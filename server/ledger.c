/* ledger.c - reading a usage entry's ledger, and checking counters against ledgers. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <jansson.h>

#include "dn.h"
#include "ldapconn.h"
#include "ledger.h"

void
ledger_time(time_t t, char out[32])
{
	struct timeval tv;
	struct tm tm;

	gettimeofday(&tv, NULL);
	gmtime_r(&t, &tm);
	/* strftime bounds the date part; years past 9999 do not fit */
	if (strftime(out, 32, "%Y%m%d%H%M%S", &tm) != 14)
		snprintf(out, 32, "99991231235959");
	snprintf(out + 14, 18, ".%06dZ", (int)(tv.tv_usec % 1000000));
}

void
ledger_rfc3339(const char *gt, char out[40])
{
	size_t n = strlen(gt);

	if (n < 15) {
		snprintf(out, 40, "%s", gt);
		return;
	}
	/* YYYYMMDDHHMMSS[.ffffff]Z */
	snprintf(out, 40, "%.4s-%.2s-%.2sT%.2s:%.2s:%.2s%.*s", gt, gt + 4, gt + 6,
	    gt + 8, gt + 10, gt + 12, (int)(n - 14 > 8 ? 8 : n - 14), gt + 14);
}

void
ledger_entries_free(struct ledger_entry *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++) {
		free(v[i].id);
		free(v[i].kind);
		free(v[i].time);
		free(v[i].actor);
		free(v[i].ref);
		free(v[i].metadata);
		free(v[i].expires);
	}
	free(v);
}

static char *
jstr(json_t *j, const char *k)
{
	const char *s = json_string_value(json_object_get(j, k));

	return s ? strdup(s) : NULL;
}

/* Whether "ID N[ ...]" values v hold id (N into *n). */
static int
has_state(struct berval **v, const char *id, long long *n)
{
	size_t i, il = strlen(id);

	for (i = 0; v && v[i]; i++)
		if (v[i]->bv_len > il && memcmp(v[i]->bv_val, id, il) == 0 &&
		    v[i]->bv_val[il] == ' ') {
			*n = strtoll(v[i]->bv_val + il + 1, NULL, 10);
			return 1;
		}
	return 0;
}

static int
newest_first(const void *a, const void *b)
{
	const struct ledger_entry *x = a, *y = b;
	int c = strcmp(y->time ? y->time : "", x->time ? x->time : "");

	return c != 0 ? c : strcmp(x->id ? x->id : "", y->id ? y->id : "");
}

int
ledger_list(LDAP *ld, const struct cfg *c, const char *usage_dn,
    struct ledger_entry **out, size_t *n, struct err *e)
{
	static char *attrs[] = { "privEntry", "privRefund", NULL };
	LDAPMessage *res = NULL, *m;
	struct berval **v = NULL, **refunds = NULL;
	struct ledger_entry *x = NULL;
	size_t i, k = 0;
	int rc;

	*out = NULL;
	*n = 0;
	rc = ldapc_search(ld, c, usage_dn, LDAP_SCOPE_BASE, "(objectClass=privUsage)",
	    attrs, 1, &res, e);
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	if ((m = ldap_first_entry(ld, res)) == NULL) {
		ldap_msgfree(res);
		return 0;
	}
	v = ldap_get_values_len(ld, m, "privEntry");
	refunds = ldap_get_values_len(ld, m, "privRefund");
	if ((x = calloc((v ? (size_t)ldap_count_values_len(v) : 0) + 1, sizeof(*x))) == NULL)
		goto oom;
	for (i = 0; v && v[i]; i++) {
		json_t *j = json_loadb(v[i]->bv_val, v[i]->bv_len, 0, NULL), *md;
		struct ledger_entry *le = &x[k];

		if (j == NULL)
			continue;	/* not privd's: ledger_check reports it */
		k++;
		le->id = jstr(j, "id");
		le->kind = jstr(j, "kind");
		le->time = jstr(j, "time");
		le->actor = jstr(j, "actor");
		le->ref = jstr(j, "ref");
		le->expires = jstr(j, "expires");
		le->amount = json_integer_value(json_object_get(j, "amount"));
		le->released = json_object_get(j, "released") ?
		    json_integer_value(json_object_get(j, "released")) : -1;
		if ((md = json_object_get(j, "metadata")) != NULL)
			le->metadata = json_dumps(md, JSON_COMPACT | JSON_SORT_KEYS);
		json_decref(j);
		if (le->id == NULL || le->kind == NULL)
			goto oom;
		if (strcmp(le->kind, "charge") == 0 && !has_state(refunds, le->id, &le->refunded))
			le->refunded = 0;
	}
	qsort(x, k, sizeof(*x), newest_first);
	ldap_value_free_len(v);
	ldap_value_free_len(refunds);
	ldap_msgfree(res);
	*out = x;
	*n = k;
	return 0;
oom:
	ldap_value_free_len(v);
	ldap_value_free_len(refunds);
	ldap_msgfree(res);
	ledger_entries_free(x, k);
	return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory reading %s", usage_dn);
}

struct check {
	FILE *out;
	int faults;
	size_t nusage, nentries;
	const char *key;
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

static long long
get_ll(LDAP *ld, LDAPMessage *m, const char *attr)
{
	long long n = 0;

	ldapc_get_ll(ld, m, attr, &n);
	return n;
}

/* One usage entry: its counters and state against the sum of its ledger. */
static void
check_one(LDAP *ld, LDAPMessage *m, struct check *k)
{
	struct berval **v = ldap_get_values_len(ld, m, "privEntry");
	struct berval **holds = ldap_get_values_len(ld, m, "privHold");
	struct berval **refunds = ldap_get_values_len(ld, m, "privRefund");
	long long used = 0, held = 0, credit = 0, n, st;
	json_t **js;
	size_t i, j, nv = v ? (size_t)ldap_count_values_len(v) : 0;

	k->nusage++;
	k->nentries += nv;
	if ((js = calloc(nv + 1, sizeof(*js))) == NULL) {
		fault(k, "out of memory");
		goto done;
	}
	for (i = 0; i < nv; i++)
		if ((js[i] = json_loadb(v[i]->bv_val, v[i]->bv_len, 0, NULL)) == NULL)
			fault(k, "ledger entry %zu is not JSON", i);
	for (i = 0; i < nv; i++) {
		const char *kind = json_string_value(json_object_get(js[i], "kind"));
		const char *id = json_string_value(json_object_get(js[i], "id"));
		long long a = json_integer_value(json_object_get(js[i], "amount"));
		long long rel = json_integer_value(json_object_get(js[i], "released"));

		if (js[i] == NULL)
			continue;
		if (kind == NULL || id == NULL) {
			fault(k, "ledger entry %zu has no kind or id", i);
			continue;
		}
		if (strcmp(kind, "charge") == 0) {
			long long refunded = 0;

			used += a;
			/* its refunds sum to what the refund state says, within the charge */
			for (j = 0; j < nv; j++) {
				const char *rk = json_string_value(json_object_get(js[j], "kind"));
				const char *ref = json_string_value(json_object_get(js[j], "ref"));

				if (rk && ref && strcmp(rk, "refund") == 0 && strcmp(ref, id) == 0)
					refunded += json_integer_value(json_object_get(js[j], "amount"));
			}
			if (!has_state(refunds, id, &st))
				fault(k, "charge %s has no refund state", id);
			else if (st != refunded)
				fault(k, "charge %s: refund state says %lld, its refunds sum to %lld",
				    id, st, refunded);
			if (refunded > a)
				fault(k, "charge %s of %lld is refunded %lld", id, a, refunded);
		} else if (strcmp(kind, "refund") == 0)
			used -= a;
		else if (strcmp(kind, "hold") == 0) {
			int open = has_state(holds, id, &n), closed = 0;

			used += a;
			held += a;
			for (j = 0; j < nv; j++) {
				const char *sk = json_string_value(json_object_get(js[j], "kind"));
				const char *sid = json_string_value(json_object_get(js[j], "id"));

				if (sk && sid && strcmp(sid, id) == 0 && (strcmp(sk, "commit") == 0 ||
				    strcmp(sk, "release") == 0 || strcmp(sk, "expire") == 0))
					closed++;
			}
			if (open + closed != 1)
				fault(k, "hold %s is %s", id, open ? "open and settled" :
				    closed ? "settled twice" : "neither open nor settled");
			if (open && n != a)
				fault(k, "hold %s holds %lld in its state, %lld in the ledger", id, n, a);
		} else if (strcmp(kind, "commit") == 0 || strcmp(kind, "release") == 0 ||
		    strcmp(kind, "expire") == 0) {
			used -= rel;
			held -= a + rel;
		} else if (strcmp(kind, "credit") == 0)
			credit += a;
		else
			fault(k, "ledger entry %s has unknown kind '%s'", id, kind);
	}
	if ((n = get_ll(ld, m, "privUsed")) != used)
		fault(k, "privUsed is %lld, the ledger sums to %lld", n, used);
	if ((n = get_ll(ld, m, "privHeld")) != held)
		fault(k, "privHeld is %lld, the ledger sums to %lld", n, held);
	if ((n = get_ll(ld, m, "privCredit")) != credit)
		fault(k, "privCredit is %lld, the ledger sums to %lld", n, credit);
	for (i = 0; i < nv; i++)
		json_decref(js[i]);
	free(js);
done:
	ldap_value_free_len(v);
	ldap_value_free_len(holds);
	ldap_value_free_len(refunds);
}

int
ledger_check(LDAP *ld, const struct cfg *c, FILE *out, struct err *e)
{
	static char *attrs[] = { "privUsed", "privCredit", "privHeld", "privEntry",
	    "privHold", "privRefund", NULL };
	char uid[DN_VAL_MAX], name[DN_VAL_MAX], key[2 * DN_VAL_MAX + 2];
	struct check k;
	LDAPMessage *res = NULL, *m;
	char *root = dn_join("ou=usage", c->base_dn), *dn;
	int rc;

	memset(&k, 0, sizeof(k));
	k.out = out;
	if (root == NULL)
		return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
	rc = ldapc_search(ld, c, root, LDAP_SCOPE_SUBTREE, "(objectClass=privUsage)",
	    attrs, 0, &res, e);
	if (rc < 0)
		goto done;
	for (m = rc == 0 ? ldap_first_entry(ld, res) : NULL; m; m = ldap_next_entry(ld, m)) {
		if ((dn = ldap_get_dn(ld, m)) == NULL)
			continue;
		if (dn_usage(dn, root, uid, name) == 0)
			snprintf(key, sizeof(key), "%s/%s", uid, name);
		else
			snprintf(key, sizeof(key), "%s", dn);
		ldap_memfree(dn);
		k.key = key;
		check_one(ld, m, &k);
	}
	fprintf(out, "%s: %zu usage entries, %zu ledger entries, %d fault%s\n",
	    k.faults ? "FAILED" : "ok", k.nusage, k.nentries, k.faults,
	    k.faults == 1 ? "" : "s");
	rc = k.faults;
done:
	ldap_msgfree(res);
	free(root);
	return rc;
}

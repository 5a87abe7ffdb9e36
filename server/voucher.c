/*
 * voucher.c - vouchers (voucher.h): made in batches with their codes shown
 * once, kept hashed under ou=vouchers,ou=usage, redeemed once into a paid
 * wallet.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <nettle/sha2.h>

#include "dn.h"
#include "draw.h"
#include "hex.h"
#include "ldapconn.h"
#include "ldpool.h"
#include "lentry.h"
#include "log.h"
#include "period.h"
#include "uentry.h"
#include "voucher.h"
#include "wop.h"

/* 32 symbols, none that reads as another (no I, O, 0, 1): 5 bits each */
static const char alphabet[] = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
#define CODE_LEN 16

/* All vouchers' writes go to one home provider, where the claim's
 * assertion decides between two redeemers. */
#define HOME_KEY "vouchers"

/* text without dashes and spaces, in capitals: 0, or -1 when it is no code */
static int
normal(const char *text, char out[CODE_LEN + 1])
{
	size_t k = 0;

	for (; *text; text++) {
		int ch = toupper((unsigned char)*text);

		if (ch == '-' || ch == ' ')
			continue;
		if (k == CODE_LEN || strchr(alphabet, ch) == NULL || ch == '\0')
			return -1;
		out[k++] = (char)ch;
	}
	out[k] = '\0';
	return k == CODE_LEN ? 0 : -1;
}

int
voucher_code_ok(const char *text)
{
	char n[CODE_LEN + 1];

	return strlen(text) <= 64 && normal(text, n) == 0;
}

static void
hash_of(const char *norm, char hex[65])
{
	struct sha256_ctx ctx;
	unsigned char d[SHA256_DIGEST_SIZE];

	sha256_init(&ctx);
	sha256_update(&ctx, strlen(norm), (const uint8_t *)norm);
	sha256_digest(&ctx, sizeof(d), d);
	hex_encode(d, sizeof(d), hex);
}

/* ou=vouchers,ou=usage,BASE; malloc'd. */
static char *
vouchers_dn(const struct cfg *c)
{
	char *root = uent_root(c), *dn = root ? dn_join("ou=vouchers", root) : NULL;

	free(root);
	return dn;
}

/* One new code: CODE_LEN symbols from getrandom, dashed in fours. */
static int
new_code(char out[VOUCHER_CODE_MAX + 1], char norm[CODE_LEN + 1])
{
	unsigned char rnd[CODE_LEN];
	size_t i, k = 0;

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return -1;
	for (i = 0; i < CODE_LEN; i++) {
		norm[i] = alphabet[rnd[i] & 31];
		if (i > 0 && i % 4 == 0)
			out[k++] = '-';
		out[k++] = norm[i];
	}
	norm[CODE_LEN] = '\0';
	out[k] = '\0';
	return 0;
}

static int
add_voucher(LDAP *ld, const char *dn, const char *hash, const char *val, struct err *e)
{
	char *oc[] = { "privVoucherCode", NULL }, *cn[] = { (char *)hash, NULL };
	char *v[] = { (char *)val, NULL };
	LDAPMod m[3] = { { LDAP_MOD_ADD, "objectClass", { oc } }, { LDAP_MOD_ADD, "cn", { cn } },
	    { LDAP_MOD_ADD, "privVoucher", { v } } };
	LDAPMod *mods[] = { &m[0], &m[1], &m[2], NULL };
	int r = ldap_add_ext_s(ld, dn, mods, NULL, NULL);

	return r == LDAP_SUCCESS ? 0 : ldapc_fail(e, r, "voucher");
}

int
voucher_create(const struct cfg *c, const char *quota, long long value, int count,
    const char *expires, const char *batch, char batch_out[VOUCHER_BATCH_MAX + 1],
    char **codes, struct err *e)
{
	char *base = NULL, **dns = NULL, val[256], norm[CODE_LEN + 1], hash[65];
	LDAP *ld = NULL;
	int i, made = 0, rc = -1;

	*codes = NULL;
	if (batch != NULL)
		snprintf(batch_out, VOUCHER_BATCH_MAX + 1, "%s", batch);
	else {
		time_t now = time(NULL);
		struct tm tm;

		gmtime_r(&now, &tm);
		strftime(batch_out, VOUCHER_BATCH_MAX + 1, "b%Y%m%d-%H%M%S", &tm);
	}
	snprintf(val, sizeof(val), "%s %lld %s %s", quota, value, expires ? expires : "-",
	    batch_out);
	if ((base = vouchers_dn(c)) == NULL ||
	    (*codes = calloc((size_t)count, VOUCHER_CODE_MAX + 1)) == NULL ||
	    (dns = calloc((size_t)count, sizeof(*dns))) == NULL) {
		err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
		goto done;
	}
	if (ldpool_get_home(HOME_KEY, &ld, e) != 0) {
		ld = NULL;
		goto done;
	}
	if (uent_ensure_ou(ld, c, "vouchers", NULL, e) != 0)
		goto done;
	for (i = 0; i < count; i++) {
		char *code = *codes + (size_t)i * (VOUCHER_CODE_MAX + 1);

		if (new_code(code, norm) != 0) {
			err_set(e, ERR_INTERNAL, 0, NULL, "getrandom failed");
			goto done;
		}
		hash_of(norm, hash);
		if ((dns[i] = dn_child("cn", hash, base)) == NULL) {
			err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
			goto done;
		}
		if (add_voucher(ld, dns[i], hash, val, e) != 0)
			goto done;
		made++;
	}
	rc = 0;
	log_info("voucher: batch %s: %d of %s worth %lld made", batch_out, count, quota, value);
done:
	if (rc != 0) {
		/* no code was shown: the ones made cannot be used; take them away */
		for (i = 0; ld != NULL && i < made; i++)
			ldap_delete_ext_s(ld, dns[i], NULL, NULL);
		free(*codes);
		*codes = NULL;
	}
	for (i = 0; dns != NULL && i < count; i++)
		free(dns[i]);
	free(dns);
	if (ld != NULL)
		ldpool_put(ld, e->code == ERR_UNAVAILABLE);
	free(base);
	return rc;
}

/* A voucher entry into v (id from its cn). */
static int
parse(LDAP *ld, LDAPMessage *m, struct voucher *v)
{
	char cn[80] = "", val[256] = "", red[160] = "";
	char q[PRIV_NAME_MAX + 1], ex[11], b[VOUCHER_BATCH_MAX + 1];

	memset(v, 0, sizeof(*v));
	if (ldapc_get_buf(ld, m, "cn", cn, sizeof(cn)) != 0 ||
	    ldapc_get_buf(ld, m, "privVoucher", val, sizeof(val)) != 0 ||
	    sscanf(val, "%64s %lld %10s %64s", q, &v->value, ex, b) != 4)
		return -1;
	snprintf(v->id, sizeof(v->id), "%.16s", cn);
	snprintf(v->quota, sizeof(v->quota), "%s", q);
	snprintf(v->expires, sizeof(v->expires), "%s", strcmp(ex, "-") == 0 ? "" : ex);
	snprintf(v->batch, sizeof(v->batch), "%s", b);
	if (ldapc_get_buf(ld, m, "privRedeemed", red, sizeof(red)) == 0)
		sscanf(red, "%64s %39s", v->redeemed_by, v->redeemed_at);
	return 0;
}

/* Reads the voucher at dn: 0 (v filled), 1 none, -1 and e. */
static int
read_one(LDAP *ld, const struct cfg *c, const char *dn, struct voucher *v, struct err *e)
{
	static char *attrs[] = { "cn", "privVoucher", "privRedeemed", NULL };
	LDAPMessage *res = NULL, *m;
	int rc;

	if ((rc = ldapc_search(ld, c, dn, LDAP_SCOPE_BASE, "(objectClass=privVoucherCode)",
	    attrs, 0, &res, e)) != 0)
		return rc;
	m = ldap_first_entry(ld, res);
	rc = m != NULL && parse(ld, m, v) == 0 ? 0 : 1;
	ldap_msgfree(res);
	return rc;
}

/* The voucher's claim for uid: 0 (claimed now or before by uid: *again), -1 and e. */
static int
claim(LDAP *ld, const struct cfg *c, const char *dn, const char *uid, struct voucher *v,
    int *again, struct err *e)
{
	char day[11], now[32], at[40];
	struct wop o;
	time_t t = period_now();
	struct tm tm;
	int rc, tries;

	gmtime_r(&t, &tm);
	strftime(day, sizeof(day), "%Y-%m-%d", &tm);
	for (tries = 0; tries < 3; tries++) {
		if ((rc = read_one(ld, c, dn, v, e)) != 0) {
			if (rc == 1)
				err_set(e, ERR_NOT_FOUND, 0, "code", "no such voucher code");
			return -1;
		}
		if (v->redeemed_by[0]) {
			if (strcmp(v->redeemed_by, uid) == 0) {
				*again = 1;
				return 0;
			}
			return err_set(e, ERR_CONFLICT, 0, "code", "this voucher was redeemed "
			    "already, at %s", v->redeemed_at);
		}
		if (v->expires[0] && strcmp(day, v->expires) > 0)
			return err_set(e, ERR_CONFLICT, 0, "code", "this voucher expired on %s",
			    v->expires);
		lentry_time(t, now);
		lentry_rfc3339(now, at);
		memset(&o, 0, sizeof(o));
		o.dn = dn;
		if (wop_mod(&o, LDAP_MOD_ADD, "privRedeemed", "%s %s", uid, at) != 0 ||
		    (o.assert = strdup("(!(privRedeemed=*))")) == NULL) {
			wop_free(&o);
			return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
		}
		rc = wop_run(ld, &o);
		wop_free(&o);
		if (rc == LDAP_SUCCESS) {
			snprintf(v->redeemed_by, sizeof(v->redeemed_by), "%s", uid);
			snprintf(v->redeemed_at, sizeof(v->redeemed_at), "%s", at);
			*again = 0;
			return 0;
		}
		/* another redeemer came first: look again, and say who */
		if (rc != LDAP_ASSERTION_FAILED && rc != LDAP_CONSTRAINT_VIOLATION &&
		    rc != LDAP_TYPE_OR_VALUE_EXISTS)
			return ldapc_fail(e, rc, "voucher");
	}
	return err_set(e, ERR_CONFLICT, 0, "code", "this voucher was redeemed already");
}

int
voucher_redeem(const struct cfg *c, const char *code, const char *uid, const char *actor,
    struct voucher *v, int *replayed, struct err *e)
{
	char norm[CODE_LEN + 1], hash[65], rid[48], reason[VOUCHER_BATCH_MAX + 16];
	struct draw_req d = { .op = DRAW_CREDIT, .kind = "topup" };
	struct quota_req q;
	struct draw_res out;
	char *base = NULL, *dn = NULL;
	LDAP *ld = NULL;
	int p, again = 0, rc = -1;

	*replayed = 0;
	memset(v, 0, sizeof(*v));
	if (normal(code, norm) != 0)
		return err_set(e, ERR_NOT_FOUND, 0, "code", "no such voucher code");
	hash_of(norm, hash);
	if ((base = vouchers_dn(c)) == NULL || (dn = dn_child("cn", hash, base)) == NULL) {
		err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
		goto done;
	}
	if (ldpool_get_at_home(HOME_KEY, &ld, e) != 0) {
		ld = NULL;
		goto done;
	}
	rc = claim(ld, c, dn, uid, v, &again, e);
	ldpool_put(ld, e->code == ERR_UNAVAILABLE);
	if (rc != 0)
		goto done;
	rc = -1;
	if ((p = cfg_priv_find(c, v->quota)) < 0 || c->privs[p].type != PRIV_QUOTA) {
		err_set(e, ERR_CONFLICT, 0, "code", "this voucher is for %s, which is no longer "
		    "a quota", v->quota);
		goto done;
	}
	/* the top-up, under the voucher's own request id: once, and a retry finishes it */
	memset(&q, 0, sizeof(q));
	q.cfg = c;
	q.uid = uid;
	q.quota = c->privs[p].name;
	q.kind = c->privs[p].period;
	q.actor = actor;
	q.now = period_now();
	q.paid = 1;
	snprintf(rid, sizeof(rid), "voucher:%.32s", hash);
	snprintf(reason, sizeof(reason), "voucher %s", v->batch);
	d.rid = rid;
	d.amount = v->value;
	d.reason = reason;
	if (draw(&q, &d, &out, e) != 0)
		goto done;
	*replayed = again && out.res.replayed;
	rc = 0;
done:
	free(dn);
	free(base);
	return rc;
}

struct gather {
	struct voucher *v;
	size_t n, cap;
	const char *batch;
};

static int
gather(LDAP *ld, LDAPMessage *m, void *arg)
{
	struct gather *g = arg;
	struct voucher v, *nv;

	if (parse(ld, m, &v) != 0 || (g->batch && strcmp(g->batch, v.batch) != 0))
		return 0;
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 64;
		if ((nv = realloc(g->v, g->cap * sizeof(*nv))) == NULL)
			return -1;
		g->v = nv;
	}
	g->v[g->n++] = v;
	return 0;
}

static int
by_use(const void *a, const void *b)
{
	const struct voucher *x = a, *y = b;
	int c;

	if ((x->redeemed_by[0] != 0) != (y->redeemed_by[0] != 0))
		return x->redeemed_by[0] ? 1 : -1;
	if ((c = strcmp(x->batch, y->batch)) != 0)
		return c;
	if ((c = strcmp(x->redeemed_at, y->redeemed_at)) != 0)
		return c;
	return strcmp(x->id, y->id);
}

int
voucher_list(const struct cfg *c, const char *batch, struct voucher **out, size_t *n,
    struct err *e)
{
	static char *attrs[] = { "cn", "privVoucher", "privRedeemed", NULL };
	struct gather g = { NULL, 0, 0, batch };
	char *base = vouchers_dn(c);
	LDAP *ld;
	int rc = -1;

	*out = NULL;
	*n = 0;
	if (base == NULL)
		return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
	if (ldpool_get_home(HOME_KEY, &ld, e) != 0) {
		free(base);
		return -1;
	}
	rc = ldapc_paged(ld, c, base, LDAP_SCOPE_ONELEVEL, "(objectClass=privVoucherCode)",
	    attrs, 500, gather, &g, e);
	ldpool_put(ld, e->code == ERR_UNAVAILABLE);
	free(base);
	if (rc < 0) {
		free(g.v);
		return -1;
	}
	if (g.n > 1)
		qsort(g.v, g.n, sizeof(*g.v), by_use);
	*out = g.v;
	*n = g.n;
	return 0;
}

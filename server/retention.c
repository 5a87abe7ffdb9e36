/* retention.c - removing the ledgers of old periods, keeping their counters. */
#include <stdlib.h>
#include <string.h>

#include "dn.h"
#include "ldapconn.h"
#include "log.h"
#include "period.h"
#include "qwrite.h"
#include "retention.h"
#include "strv.h"
#include "worker.h"

/* Index of the term named key, or -1. */
static long
term_index(const struct cfg *c, const char *key)
{
	size_t i;

	for (i = 0; i < c->nterms; i++)
		if (strcmp(c->terms[i].name, key) == 0)
			return (long)i;
	return -1;
}

/* The newest term that has begun by now (-1: none). */
static long
term_now(const struct cfg *c, time_t now)
{
	struct tm tm;
	long days, best = -1;
	size_t i;

	gmtime_r(&now, &tm);
	days = cfg_days_from_civil(tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
	for (i = 0; i < c->nterms; i++)
		if (c->terms[i].start <= days && (best < 0 || c->terms[i].start >
		    c->terms[best].start))
			best = (long)i;
	return best;
}

int
retention_old(const struct cfg *c, const char *name, time_t now)
{
	char prv[128], bound[PERIOD_KEY_MAX];
	const char *at = strrchr(name, '@'), *key;
	int n = c->ledger_retention, p;
	struct err e;
	struct tm tm;
	time_t then;

	if (n <= 0 || at == NULL || (size_t)(at - name) >= sizeof(prv))
		return 0;
	memcpy(prv, name, (size_t)(at - name));
	prv[at - name] = '\0';
	key = at + 1;
	if (strcmp(key, QUOTA_PAID_PERIOD) == 0)
		return 0;	/* a paid wallet is kept, as is its ledger */
	if ((p = cfg_priv_find(c, prv)) < 0)
		return 0;
	gmtime_r(&now, &tm);
	/* the moment n periods back: its period and all before it are old */
	switch (c->privs[p].period) {
	case PERIOD_TERM: {
		long i = term_index(c, key), cur = term_now(c, now);

		return i >= 0 && cur >= 0 && c->terms[i].start < c->terms[cur].start &&
		    cur - i >= n;
	}
	case PERIOD_WEEK:
		then = now - (time_t)n * 7 * 86400;
		break;
	case PERIOD_MONTH:
		tm.tm_mon -= n;
		tm.tm_mday = 1;
		then = timegm(&tm);
		break;
	case PERIOD_YEAR:
		tm.tm_year -= n;
		tm.tm_mon = 0;
		tm.tm_mday = 1;
		then = timegm(&tm);
		break;
	default:
		return 0;	/* never, or not a quota */
	}
	memset(&e, 0, sizeof(e));
	if (period_key(c, c->privs[p].period, then, bound, &e) != 0)
		return 0;
	/* week, month and year keys sort as their periods do */
	return strcmp(key, bound) <= 0;
}

struct purge {
	const struct cfg *c;
	const char *root;
	time_t now;
	FILE *out;
	LDAP *wld;		/* deletes beside the paged search */
	long purged;
	int failed;
};

static int
purge_one(LDAP *ld, LDAPMessage *m, void *arg)
{
	struct purge *pg = arg;
	char uid[DN_VAL_MAX], name[DN_VAL_MAX], *dn = ldap_get_dn(ld, m);
	char *none[] = { "1.1", NULL }, zero[] = "0", *zv[] = { zero, NULL };
	LDAPMod del = { LDAP_MOD_DELETE, "privEntry", { NULL } };
	LDAPMod seg = { LDAP_MOD_REPLACE, "privSegments", { zv } };
	LDAPMod arc = { LDAP_MOD_REPLACE, "privArchived", { zv } };
	LDAPMod *mods[4];
	LDAPMessage *res = NULL, *k;
	char **win = NULL;
	int rc, nm = 0, removed = 0;

	if (dn == NULL || dn_usage(dn, pg->root, uid, name) != 0 ||
	    !retention_old(pg->c, name, pg->now))
		goto done;
	/* the segments, one level below */
	if (ldap_search_ext_s(pg->wld, dn, LDAP_SCOPE_ONELEVEL, "(objectClass=*)", none, 0,
	    NULL, NULL, NULL, 0, &res) == LDAP_SUCCESS)
		for (k = ldap_first_entry(pg->wld, res); k; k = ldap_next_entry(pg->wld, k)) {
			char *kdn = ldap_get_dn(pg->wld, k);

			if (kdn == NULL || ldap_delete_ext_s(pg->wld, kdn, NULL, NULL) != LDAP_SUCCESS)
				pg->failed = 1;
			else
				removed++;
			ldap_memfree(kdn);
		}
	ldap_msgfree(res);
	if ((win = ldapc_get_strv(ld, m, "privEntry")) == NULL) {
		pg->failed = 1;
		goto done;
	}
	if (win[0] == NULL && removed == 0)
		goto done;	/* removed before */
	if (win[0] != NULL)
		mods[nm++] = &del;
	mods[nm++] = &seg;
	mods[nm++] = &arc;
	mods[nm] = NULL;
	if ((rc = ldap_modify_ext_s(pg->wld, dn, mods, NULL, NULL)) != LDAP_SUCCESS) {
		log_warn("retention: %s: %s", dn, ldap_err2string(rc));
		pg->failed = 1;
	} else {
		pg->purged++;
		if (pg->out)
			fprintf(pg->out, "%s: ledger removed (ledger.retention %d), counters kept\n",
			    dn, pg->c->ledger_retention);
	}
done:
	strv_free(win);
	ldap_memfree(dn);
	return 0;
}

/* One pass: the usage entries searched on ld, ledgers removed on wld. */
static long
purge(LDAP *ld, LDAP *wld, const struct cfg *c, time_t now, FILE *out, struct err *e)
{
	static char *attrs[] = { "privEntry", NULL };
	char *root = dn_join("ou=usage", c->base_dn);
	struct purge pg = { c, root, now, out, wld, 0, 0 };
	int rc;

	if (root == NULL)
		return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
	rc = ldapc_paged(ld, c, root, LDAP_SCOPE_SUBTREE, "(objectClass=privUsage)", attrs, 100,
	    purge_one, &pg, e);
	free(root);
	if (rc < 0)
		return -1;
	if (pg.failed)
		return err_set(e, ERR_UNAVAILABLE, 0, NULL, "some ledgers could not be removed "
		    "(%ld were); the next pass tries again", pg.purged);
	return pg.purged;
}

long
retention_purge(const struct cfg *c, time_t now, FILE *out, struct err *e)
{
	LDAP *ld = NULL, *wld = NULL;
	long n = -1;

	/* deletes beside the paged search, on a connection of their own */
	if (ldapc_open_write(c, NULL, NULL, &ld, e) == 0 &&
	    ldapc_open_write(c, NULL, NULL, &wld, e) == 0)
		n = purge(ld, wld, c, now, out, e);
	ldapc_close(wld);
	ldapc_close(ld);
	return n;
}

static struct worker pass = WORKER_INIT;
static const struct cfg *cfg;

static void
run(struct worker *w)
{
	long wait_ms;

	do {
		struct err e;
		long n;

		memset(&e, 0, sizeof(e));
		if ((n = retention_purge(cfg, period_now(), NULL, &e)) >= 0) {
			if (n > 0)
				log_info("retention: the ledgers of %ld usage entries older than %d "
				    "periods removed, their counters kept", n, cfg->ledger_retention);
			wait_ms = 86400 * 1000L;
		} else {
			log_warn("retention: %s; trying again in an hour", e.msg);
			wait_ms = 3600 * 1000L;
		}
	} while (!worker_sleep(w, wait_ms));
}

int
retention_start(const struct cfg *c)
{
	cfg = c;
	return c->ledger_retention > 0 ? worker_start(&pass, run) : 0;
}

void
retention_stop(void)
{
	worker_stop(&pass);
}

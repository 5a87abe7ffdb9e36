/*
 * ldpool.c - write connections: one per concurrent writer at most, reused,
 * reopened after a failure, in one pool per provider of ldap.write_uri.
 * Reads never come here (they use the snapshot). An account's writes go
 * to its home provider (a stable hash of the account), and to the next
 * provider only while the home one is down. Home and next are counted in
 * the providers' canonical order, not the order of this privd's list, so
 * that every privd naming the same providers agrees on them.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "ldapconn.h"
#include "ldpool.h"
#include "log.h"
#include "monotime.h"
#include "probe.h"
#include "strv.h"

struct provider {
	char *uri;
	LDAP **idle;		/* open, idle connections to it */
	int nidle;
	/* after a connection to it gave out, its writes go elsewhere (or fail
	 * at once) until this moment (ms): a slapd that hangs must not hold
	 * every HTTP thread for its timeout */
	_Atomic long down_until;
	/* it was down: no writes go back to it before it has caught up with
	 * what the others took meanwhile (or its stale counters let charges
	 * past the limit) */
	atomic_int recovering;
	atomic_ullong taken;
	int sid;		/* its server id, -1 before it answered a probe */
	/* while recovering: the nonces written at each other provider that
	 * it must show before it takes writes again (probe.h) */
	atomic_uint outages;
	unsigned probed;	/* the outage the nonces are for, 0 none */
	char want[CFG_PROVIDERS_MAX][PROBE_NONCE];
};

static const struct cfg *cfg;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t freed = PTHREAD_COND_INITIALIZER;
static struct provider prov[CFG_PROVIDERS_MAX];
static size_t nprov;
static size_t canon[CFG_PROVIDERS_MAX];	/* prov indexes, in the order homes count */
/* homes count in the order of the providers' server ids once those are
 * known: until then no account's writes go anywhere (two privd that
 * counted in different orders would write one account at two providers) */
static atomic_int ordered;
static pthread_mutex_t order_lock = PTHREAD_MUTEX_INITIALIZER;
static int size, out;		/* out: connections handed out, to any provider */
/* which provider each handed-out connection belongs to */
static LDAP **out_ld;
static int *out_p;


/*
 * A provider's URI as every privd should name it: scheme and host in
 * lower case, the default port written out, no trailing slash. Two lists
 * that differ only in order or in these forms give the same homes.
 */
void
ldpool_canonical(const char *uri, char *out, size_t n)
{
	const char *host = strstr(uri, "://");
	size_t k = 0, i;
	int ldaps = strncasecmp(uri, "ldaps:", 6) == 0, port = 0;

	if (n == 0)
		return;
	if (host == NULL) {
		snprintf(out, n, "%s", uri);
		return;
	}
	for (i = 0; uri + i < host + 3 && k + 1 < n; i++)
		out[k++] = (char)tolower((unsigned char)uri[i]);
	for (host += 3; *host && *host != '/' && k + 1 < n; host++) {
		port |= *host == ':';
		out[k++] = (char)tolower((unsigned char)*host);
	}
	out[k] = '\0';
	if (!port && strncasecmp(out, "ldapi:", 6) != 0)
		snprintf(out + k, n - k, ":%d", ldaps ? 636 : 389);
}

static int
by_canonical(const void *a, const void *b, void *arg)
{
	char ca[512], cb[512];
	const char *const *uris = arg;

	ldpool_canonical(uris[*(const size_t *)a], ca, sizeof(ca));
	ldpool_canonical(uris[*(const size_t *)b], cb, sizeof(cb));
	return strcmp(ca, cb);
}

void
ldpool_order(size_t n, const char *const *uris, size_t *order)
{
	size_t i;

	for (i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), by_canonical, (void *)uris);
}

size_t
ldpool_split(char *list, const char **uris)
{
	char *tok, *save = NULL;
	size_t n = 0;

	/* libldap's own list form: URIs separated by spaces or commas */
	for (tok = strtok_r(list, " ,", &save); tok && n < CFG_PROVIDERS_MAX;
	    tok = strtok_r(NULL, " ,", &save))
		uris[n++] = tok;
	return n;
}

int
ldpool_init(const struct cfg *c, int n)
{
	const char *list = c->write_uri ? c->write_uri : c->ldap_uri, *uris[CFG_PROVIDERS_MAX];
	char *copy = strdup(list);
	size_t i, nu;

	cfg = c;
	size = n < 1 ? 1 : n;
	nprov = 0;
	if (copy == NULL)
		return -1;
	nu = ldpool_split(copy, uris);
	for (i = 0; i < nu; i++, nprov++) {
		struct provider *p = &prov[nprov];

		memset(p, 0, sizeof(*p));
		p->sid = -1;
		if ((p->uri = strdup(uris[i])) == NULL ||
		    (p->idle = calloc((size_t)size, sizeof(*p->idle))) == NULL) {
			free(copy);
			return -1;
		}
	}
	ldpool_order(nu, uris, canon);
	atomic_store(&ordered, nu <= 1);
	free(copy);
	if (nprov == 0 || (out_ld = calloc((size_t)size, sizeof(*out_ld))) == NULL ||
	    (out_p = calloc((size_t)size, sizeof(*out_p))) == NULL)
		return -1;
	out = 0;
	return 0;
}

void
ldpool_free(void)
{
	size_t i;
	int k;

	pthread_mutex_lock(&lock);
	for (i = 0; i < nprov; i++) {
		for (k = 0; k < prov[i].nidle; k++)
			ldapc_close(prov[i].idle[k]);
		free(prov[i].idle);
		free(prov[i].uri);
		memset(&prov[i], 0, sizeof(prov[i]));
	}
	nprov = 0;
	free(out_ld);
	free(out_p);
	out_ld = NULL;
	out_p = NULL;
	size = 0;
	pthread_mutex_unlock(&lock);
}

static void
mark_down(size_t p)
{
	atomic_store(&prov[p].down_until, monotime_ms() + 1000);
	if (nprov > 1) {
		atomic_store(&prov[p].recovering, 1);
		atomic_fetch_add(&prov[p].outages, 1);
	}
}

/* The contextCSN values of the naming context that holds the base DN, as
 * a strv; NULL when they cannot be read. */
static char **
context_csns(LDAP *ld)
{
	static char *nc_attrs[] = { "namingContexts", NULL }, *csn_attrs[] = { "contextCSN", NULL };
	LDAPMessage *res = NULL, *m;
	char **ncs = NULL, **out = NULL, *best = NULL;
	size_t i, bl = strlen(cfg->base_dn);
	struct err e;

	memset(&e, 0, sizeof(e));
	if (ldapc_search(ld, cfg, "", LDAP_SCOPE_BASE, "(objectClass=*)", nc_attrs, 0, &res,
	    &e) != 0 || (m = ldap_first_entry(ld, res)) == NULL ||
	    (ncs = ldapc_get_strv(ld, m, "namingContexts")) == NULL)
		goto done;
	for (i = 0; ncs[i]; i++) {
		size_t nl = strlen(ncs[i]);

		if (nl <= bl && strcasecmp(cfg->base_dn + bl - nl, ncs[i]) == 0 &&
		    (nl == bl || cfg->base_dn[bl - nl - 1] == ',') &&
		    (best == NULL || nl > strlen(best)))
			best = ncs[i];
	}
	ldap_msgfree(res);
	res = NULL;
	if (best != NULL && ldapc_search(ld, cfg, best, LDAP_SCOPE_BASE, "(objectClass=*)",
	    csn_attrs, 0, &res, &e) == 0 && (m = ldap_first_entry(ld, res)) != NULL)
		out = ldapc_get_strv(ld, m, "contextCSN");
done:
	ldap_msgfree(res);
	strv_free(ncs);
	return out;
}

static int
by_sid(const void *a, const void *b)
{
	int x = prov[*(const size_t *)a].sid, y = prov[*(const size_t *)b].sid;

	return (x > y) - (x < y);
}

/*
 * Counts homes in server id order once every provider's id is known: from
 * its probe, or, for one provider that has not answered, the one id the
 * others' contextCSN holds beyond theirs. ld: a connection to some
 * provider, for that. order_lock held. 0, or -1 when two names are one
 * provider (what is wrong in msg).
 */
static int
reorder(LDAP *ld, char *msg, size_t n)
{
	size_t i, k, unknown = 0, u = 0;
	char **csns;
	int cand = -1, ncand = 0;

	for (i = 0; i < nprov; i++) {
		if (prov[i].sid < 0) {
			unknown++;
			u = i;
		}
		for (k = 0; k < i; k++)
			if (prov[i].sid >= 0 && prov[i].sid == prov[k].sid) {
				snprintf(msg, n, "ldap.write_uri names one provider (server id %d) "
				    "twice: %s and %s", prov[i].sid, prov[k].uri, prov[i].uri);
				return -1;
			}
	}
	if (unknown == 1 && ld != NULL && (csns = context_csns(ld)) != NULL) {
		for (i = 0; csns[i]; i++) {
			int sid = probe_csn_sid(csns[i]), known = 0;

			for (k = 0; k < nprov; k++)
				known |= prov[k].sid == sid;
			if (sid >= 0 && !known) {
				cand = sid;
				ncand++;
			}
		}
		strv_free(csns);
		if (ncand == 1) {
			prov[u].sid = cand;
			unknown = 0;
			log_info("ldap: %s has not answered; its server id is %d, the only "
			    "other one the directory knows", prov[u].uri, cand);
		}
	}
	if (unknown > 0)
		return 0;
	for (i = 0; i < nprov; i++)
		canon[i] = i;
	qsort(canon, nprov, sizeof(*canon), by_sid);
	atomic_store(&ordered, 1);
	return 0;
}

/* Provider p answered on ld: learn its server id if still unknown (and
 * with infer, count homes when that makes them all known). */
static int
learn(size_t p, LDAP *ld, int infer, char *msg, size_t n)
{
	struct err e;
	char nonce[PROBE_NONCE];
	int sid, rc = 0;

	if (nprov <= 1 || atomic_load(&ordered))
		return 0;
	memset(&e, 0, sizeof(e));
	pthread_mutex_lock(&order_lock);
	if (prov[p].sid < 0 && probe_add(ld, cfg, nonce, &sid, &e) == 0) {
		prov[p].sid = sid;
		probe_drop(ld, cfg, nonce);
	}
	else if (prov[p].sid < 0)
		log_warn("ldap: cannot learn the server id of %s: %s", prov[p].uri, e.msg);
	if (infer && !atomic_load(&ordered))
		rc = reorder(ld, msg, n);
	pthread_mutex_unlock(&order_lock);
	return rc;
}

/* The providers whose server id is unknown, tried once more (at most
 * once a second, by one thread): homes cannot be counted without them. */
static void
learn_missing(void)
{
	static _Atomic long next;
	char msg[512];
	long now = monotime_ms();
	size_t p;
	LDAP *ld;

	if (now < atomic_load(&next))
		return;
	atomic_store(&next, now + 1000);
	for (p = 0; p < nprov && !atomic_load(&ordered); p++) {
		struct err e;

		memset(&e, 0, sizeof(e));
		if (prov[p].sid >= 0 || ldapc_open_uri(cfg, prov[p].uri, &ld, &e) != 0)
			continue;
		if (learn(p, ld, 1, msg, sizeof(msg)) != 0)
			log_warn("ldap: %s", msg);
		ldapc_close(ld);
	}
}

int
ldpool_start(struct err *e)
{
	char msg[512] = "";
	size_t p;
	LDAP *ld, *any = NULL;
	int rc = 0;

	if (nprov <= 1) {
		atomic_store(&ordered, 1);
		return 0;
	}
	/* every one that answers first: only then may a missing id be
	 * inferred, and two names of one provider be seen */
	for (p = 0; p < nprov; p++) {
		struct err oe;

		memset(&oe, 0, sizeof(oe));
		if (ldapc_open_uri(cfg, prov[p].uri, &ld, &oe) != 0) {
			log_warn("ldap: %s does not answer (%s): its server id is learned when it "
			    "does", prov[p].uri, oe.msg);
			continue;
		}
		learn(p, ld, 0, msg, sizeof(msg));
		if (any == NULL)
			any = ld;
		else
			ldapc_close(ld);
	}
	pthread_mutex_lock(&order_lock);
	rc = reorder(any, msg, sizeof(msg));
	pthread_mutex_unlock(&order_lock);
	ldapc_close(any);
	if (rc != 0)
		return err_set(e, ERR_INVALID, 0, "ldap.write_uri", "%s", msg);
	if (!atomic_load(&ordered))
		log_warn("ldap: the server ids of the providers are not all known yet: "
		    "account writes wait until they are");
	return 0;
}

/* For --check-config: the order homes count in, by server id, then
 * which URI is which. 0, or -1 when it is not known yet. */
int
ldpool_describe(FILE *out)
{
	size_t i;

	if (!atomic_load(&ordered)) {
		fprintf(out, "write providers: the order accounts' homes are counted in is not "
		    "known until each has answered once:\n");
		for (i = 0; i < nprov; i++)
			fprintf(out, "  %s: %s\n", prov[i].uri, prov[i].sid < 0 ? "no answer" : "answered");
		return -1;
	}
	fprintf(out, "write providers, in the order accounts' homes are counted (every privd on "
	    "them must print the same):");
	for (i = 0; i < nprov; i++)
		fprintf(out, "%s server id %d", i ? "," : "", prov[canon[i]].sid);
	fprintf(out, "\n");
	for (i = 0; i < nprov; i++)
		fprintf(out, "  server id %d: %s\n", prov[canon[i]].sid, prov[canon[i]].uri);
	return 0;
}

/*
 * Whether provider p has caught up with every other provider that answers:
 * it shows the nonce this privd wrote at each of them after p went away.
 * Replication from one provider arrives in the order it took its writes,
 * so p then holds whatever that provider took before the nonce.
 */
static int
caught_up(size_t p)
{
	static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;
	LDAP *mine = NULL, *other;
	struct err e;
	size_t q;
	int sid, ok = 1;

	memset(&e, 0, sizeof(e));
	/* one thread looks; the others keep waiting meanwhile */
	if (pthread_mutex_trylock(&probe_lock) != 0)
		return 0;
	if (prov[p].probed != atomic_load(&prov[p].outages)) {
		unsigned outage = atomic_load(&prov[p].outages);

		for (q = 0; q < nprov; q++) {
			prov[p].want[q][0] = '\0';
			if (q == p || ldapc_open_uri(cfg, prov[q].uri, &other, &e) != 0)
				continue;	/* one that is down has nothing newer to give */
			if (probe_add(other, cfg, prov[p].want[q], &sid, &e) != 0)
				ok = 0;
			ldapc_close(other);
		}
		prov[p].probed = ok ? outage : 0;
	}
	if (ok && ldapc_open_uri(cfg, prov[p].uri, &mine, &e) != 0)
		ok = 0;
	for (q = 0; q < nprov && ok; q++)
		if (prov[p].want[q][0] != '\0')
			ok = probe_seen(mine, cfg, prov[p].want[q], &e) == 1;
	ldapc_close(mine);
	/* seen: the probes have done their work */
	for (q = 0; q < nprov && ok; q++)
		if (prov[p].want[q][0] != '\0' && ldapc_open_uri(cfg, prov[q].uri, &other, &e) == 0) {
			probe_drop(other, cfg, prov[p].want[q]);
			ldapc_close(other);
		}
	pthread_mutex_unlock(&probe_lock);
	return ok;
}

/* An account's home among the canonical list. Every privd of a site must
 * pick the same one, versions apart during an upgrade too: this hash is
 * part of that agreement, not an implementation detail to swap. */
static size_t
home_of(const char *key)
{
	unsigned h = 2166136261u;

	if (key == NULL)
		return 0;
	while (*key)
		h = (h ^ (unsigned char)*key++) * 16777619u;
	return h % nprov;
}

/* Notes ld as handed out for provider p (lock held). */
static void
note_out(LDAP *ld, size_t p)
{
	int k;

	for (k = 0; k < size; k++)
		if (out_ld[k] == NULL) {
			out_ld[k] = ld;
			out_p[k] = (int)p;
			return;
		}
}

/* A connection for key's writes; away: to another provider when home is
 * unreachable (ldap.away_allowance). */
static int
get(const char *key, int away, LDAP **ld, struct err *e)
{
	struct timespec until;
	size_t h, k, p, tries;
	long now = monotime_ms();
	int rc = -1;

	*ld = NULL;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += cfg->ldap_timeout_s;
	pthread_mutex_lock(&lock);
	while (out >= size) {
		if (pthread_cond_timedwait(&freed, &lock, &until) == ETIMEDOUT) {
			pthread_mutex_unlock(&lock);
			return err_set(e, ERR_UNAVAILABLE, 0, NULL,
			    "LDAP unavailable: all %d write connections are busy", size);
		}
	}
	out++;
	pthread_mutex_unlock(&lock);
	h = home_of(key);
	/* an account's writes go nowhere but home unless the site allows
	 * some away from it (ldap.away_allowance): two providers that both
	 * take one account's charges each check its limit alone */
	tries = key && nprov > 1 && !away ? 1 : nprov;
	if (key && !atomic_load(&ordered))
		learn_missing();
	if (key && !atomic_load(&ordered))
		tries = 0;
	for (k = 0; k < tries; k++) {
		/* an account's: from its home on, in canonical order; admin
		 * writes (no key): this privd's own order */
		p = key ? canon[(h + k) % nprov] : k;
		if (now < atomic_load(&prov[p].down_until))
			continue;
		if (atomic_load(&prov[p].recovering)) {
			if (!caught_up(p)) {
				atomic_store(&prov[p].down_until, monotime_ms() + 200);
				continue;
			}
			atomic_store(&prov[p].recovering, 0);
		}
		pthread_mutex_lock(&lock);
		if (prov[p].nidle > 0) {
			*ld = prov[p].idle[--prov[p].nidle];
			note_out(*ld, p);
			pthread_mutex_unlock(&lock);
			atomic_fetch_add(&prov[p].taken, 1);
			return 0;
		}
		pthread_mutex_unlock(&lock);
		/* open outside the lock: connecting may take the whole timeout */
		memset(e, 0, sizeof(*e));
		if ((rc = ldapc_open_uri(cfg, prov[p].uri, ld, e)) == 0) {
			char msg[512];

			if (learn(p, *ld, 1, msg, sizeof(msg)) != 0)
				log_warn("ldap: %s", msg);
			pthread_mutex_lock(&lock);
			note_out(*ld, p);
			pthread_mutex_unlock(&lock);
			atomic_fetch_add(&prov[p].taken, 1);
			return 0;
		}
		mark_down(p);
	}
	pthread_mutex_lock(&lock);
	out--;
	pthread_cond_signal(&freed);
	pthread_mutex_unlock(&lock);
	if (tries == 0)
		return err_set(e, ERR_UNAVAILABLE, 0, NULL, "the homes of accounts are not known "
		    "until every provider of ldap.write_uri has answered once");
	if (tries < nprov)
		return err_set(e, ERR_UNAVAILABLE, 0, NULL, "the home provider of %s (%s) is "
		    "unreachable or catching up; its writes wait for it (%s)", key,
		    prov[canon[h]].uri, cfg->away_allowance == 0 ? "ldap.away_allowance: 0" :
		    "only charges and holds go elsewhere, within ldap.away_allowance");
	if (rc == 0 || e->code == ERR_NONE)
		return err_set(e, ERR_UNAVAILABLE, 0, NULL, "LDAP unavailable: %s did not answer "
		    "within %d s just now", nprov > 1 ? "no provider" : "it", cfg->ldap_timeout_s);
	return -1;
}

int
ldpool_get_home(const char *key, LDAP **ld, struct err *e)
{
	return get(key, cfg->away_allowance > 0, ld, e);
}

int
ldpool_get_at_home(const char *key, LDAP **ld, struct err *e)
{
	return get(key, 0, ld, e);
}

int
ldpool_get(LDAP **ld, struct err *e)
{
	return ldpool_get_home(NULL, ld, e);
}

void
ldpool_put(LDAP *ld, int broken)
{
	int k, p = 0, rc = LDAP_SUCCESS;

	/* the caller's error may be a refusal under contention on a healthy
	 * connection: only the connection's own last result says it broke */
	if (broken && ld != NULL && ldap_get_option(ld, LDAP_OPT_RESULT_CODE, &rc) ==
	    LDAP_OPT_SUCCESS)
		broken = rc == LDAP_SERVER_DOWN || rc == LDAP_CONNECT_ERROR || rc == LDAP_TIMEOUT ||
		    rc == LDAP_UNAVAILABLE || rc == LDAP_BUSY || rc == LDAP_TIMELIMIT_EXCEEDED;
	pthread_mutex_lock(&lock);
	for (k = 0; ld != NULL && k < size; k++)
		if (out_ld[k] == ld) {
			out_ld[k] = NULL;
			p = out_p[k];
			break;
		}
	out--;
	if (broken)
		mark_down((size_t)p);
	if (ld != NULL && !broken && prov[p].nidle < size)
		prov[p].idle[prov[p].nidle++] = ld;
	else if (ld != NULL) {
		pthread_mutex_unlock(&lock);
		ldapc_close(ld);
		pthread_mutex_lock(&lock);
	}
	pthread_cond_signal(&freed);
	pthread_mutex_unlock(&lock);
}

size_t
ldpool_providers(void)
{
	return nprov;
}

void
ldpool_provider(size_t i, const char **uri, unsigned long long *taken, int *down)
{
	*uri = prov[i].uri;
	*taken = atomic_load(&prov[i].taken);
	*down = monotime_ms() < atomic_load(&prov[i].down_until);
}

int
ldpool_provider_of(LDAP *ld)
{
	int k, p = -1;

	pthread_mutex_lock(&lock);
	for (k = 0; k < size; k++)
		if (out_ld[k] == ld) {
			p = out_p[k];
			break;
		}
	pthread_mutex_unlock(&lock);
	return p;
}

int
ldpool_is_home(LDAP *ld, const char *key)
{
	int p;

	if (nprov <= 1)
		return 1;
	p = ldpool_provider_of(ld);
	return p >= 0 && (size_t)p == canon[home_of(key)];
}

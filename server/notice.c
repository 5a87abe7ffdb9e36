/*
 * notice.c - notices by email (notice.h): the thresholds, the claims in
 * LDAP, the sender thread with its take-over of stale claims, the weekly
 * digest, and the messages (templates from notify.templates, sent through
 * libcurl's SMTP).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <lber.h>
#include <nettle/sha2.h>

#include "dn.h"
#include "fault.h"
#include "hex.h"
#include "holder.h"
#include "ldapconn.h"
#include "ldpool.h"
#include "log.h"
#include "membership.h"
#include "money.h"
#include "cfglive.h"
#include "notice.h"
#include "rfile.h"
#include "path.h"
#include "period.h"
#include "pool.h"
#include "qwrite.h"
#include "resolve.h"
#include "snapshot.h"
#include "strmap.h"
#include "strv.h"
#include "uentry.h"
#include "usage.h"
#include "wop.h"

#define KEY_MAX		400
#define QUEUE_MAX	1024
#define CACHE_MAX	100000	/* keys known claimed; cleared when full */
#define HOME_KEY	"notices"	/* all claims on one provider: one add wins */

static const struct cfg *cfg;	/* the one started with */

/* The settings in force: a reload changes templates, addresses,
 * thresholds and the retry (cfglive.h). */
static const struct cfg *
conf(void)
{
	const struct cfg *c = cfglive_get();

	return c != NULL ? c : cfg;
}
static pthread_t thread;
static atomic_int stopping;
static int started;
static char me[128];		/* HOST:PID, in the claims */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static char *queue[QUEUE_MAX];
static size_t nqueue;
static struct strmap claimed;	/* keys (malloc'd, also the values) */

int
notice_due(const struct cfg_priv *pv, long long allowance, long long remaining,
    unsigned *all)
{
	long long at, low = -1;
	int i, best = -1;

	*all = 0;
	for (i = 0; i < pv->nnotify; i++) {
		at = pv->notify[i].percent ? allowance * pv->notify[i].value / 100 :
		    pv->notify[i].value;
		if (remaining > at)
			continue;
		*all |= 1u << i;
		if (best < 0 || at < low) {
			best = i;
			low = at;
		}
	}
	return best;
}

/* "YYYYMMDDHHMMSSZ" of t: claims' times compare as strings */
static void
gt(time_t t, char out[16])
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, 16, "%Y%m%d%H%M%SZ", &tm);
}

static char *
notices_dn(void)
{
	char *root = uent_root(conf()), *dn = root ? dn_join("ou=notices", root) : NULL;

	free(root);
	return dn;
}

/* Adds the claim of key with state: 0 this privd has it, 1 another had it, -1 and e. */
static int
claim(LDAP *ld, const char *key, const char *state, struct err *e)
{
	char *oc[] = { "privNotice", NULL }, *cn[] = { (char *)key, NULL };
	char *st[] = { (char *)state, NULL };
	LDAPMod m[3] = { { LDAP_MOD_ADD, "objectClass", { oc } }, { LDAP_MOD_ADD, "cn", { cn } },
	    { LDAP_MOD_ADD, "privNoticeState", { st } } };
	LDAPMod *mods[] = { &m[0], &m[1], &m[2], NULL };
	char *base = notices_dn(), *dn = NULL;
	int r, rc = -1, tries;

	if (base == NULL || (dn = dn_child("cn", key, base)) == NULL) {
		err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
		goto done;
	}
	for (tries = 0; tries < 2; tries++) {
		r = ldap_add_ext_s(ld, dn, mods, NULL, NULL);
		if (r == LDAP_SUCCESS || r == LDAP_ALREADY_EXISTS) {
			rc = r == LDAP_SUCCESS ? 0 : 1;
			goto done;
		}
		if (r != LDAP_NO_SUCH_OBJECT || uent_ensure_ou(ld, conf(), "notices", NULL, e) != 0) {
			if (e->code == ERR_NONE)
				ldapc_fail(e, r, "notice");
			goto done;
		}
	}
	ldapc_fail(e, LDAP_NO_SUCH_OBJECT, "notice");
done:
	free(dn);
	free(base);
	return rc;
}

static int
known(const char *key)
{
	int k;

	pthread_mutex_lock(&lock);
	k = strmap_get(&claimed, key) != NULL;
	pthread_mutex_unlock(&lock);
	return k;
}

static void
remember(const char *key)
{
	char *copy;
	int failed = 0;
	size_t i;

	pthread_mutex_lock(&lock);
	if (strmap_get(&claimed, key) == NULL && (copy = strdup(key)) != NULL) {
		if (claimed.len >= CACHE_MAX) {
			for (i = 0; i < claimed.cap; i++)
				free(claimed.slots[i].val);
			strmap_free(&claimed);
			strmap_init(&claimed);
		}
		strmap_put(&claimed, copy, copy, &failed);
		if (failed)
			free(copy);
	}
	pthread_mutex_unlock(&lock);
}

static void
enqueue(const char *key)
{
	char *copy = strdup(key);

	pthread_mutex_lock(&lock);
	if (copy != NULL && nqueue < QUEUE_MAX)
		queue[nqueue++] = copy;
	else
		free(copy);	/* a full queue: the sweep takes it over later */
	pthread_cond_signal(&wake);
	pthread_mutex_unlock(&lock);
}

void
notice_after(const struct cfg *c, const char *holder, const char *quota, const char *period,
    long long allowance, long long remaining)
{
	const char *cell = holder_cell(holder);
	char key[KEY_MAX], until[16], state[200];
	const struct cfg_priv *pv;
	unsigned all;
	struct err e;
	LDAP *ld = NULL;
	int p, i, best, rc;

	if (!started || c->notify.smtp == NULL || (p = cfg_priv_find(c, quota)) < 0)
		return;
	pv = &c->privs[p];
	if ((best = notice_due(pv, allowance, remaining, &all)) < 0)
		return;
	memset(&e, 0, sizeof(e));
	/* the lowest first: a jump past several thresholds tells the lowest only */
	for (i = -1; i < pv->nnotify; i++) {
		int t = i < 0 ? best : i;
		char th[32];

		if (i == best || !(all & (1u << t)))
			continue;
		if (pv->notify[t].percent)
			snprintf(th, sizeof(th), "%lld%%", pv->notify[t].value);
		else
			snprintf(th, sizeof(th), "%lld", pv->notify[t].value);
		/* '|' is in no uid, cell, quota or period */
		snprintf(key, sizeof(key), "%s|%s|%s@%s|%s", cell ? "pool" : "low",
		    cell ? cell : holder, quota, period, th);
		if (known(key))
			continue;
		if (ld == NULL && ldpool_get_home(HOME_KEY, &ld, &e) != 0) {
			ld = NULL;
			log_warn("notice: cannot claim %s: %s", key, e.msg);
			return;
		}
		gt(time(NULL) + c->notify.retry_s, until);
		if (t == best)
			snprintf(state, sizeof(state), "claimed %s %s", me, until);
		else
			snprintf(state, sizeof(state), "dropped superseded");
		if ((rc = claim(ld, key, state, &e)) < 0) {
			log_warn("notice: cannot claim %s: %s", key, e.msg);
			break;
		}
		remember(key);
		if (rc == 0 && t == best) {
			log_info("notice: claimed %s", key);
			/* a test kills privd here: the claim must still be sent, once */
			fault_point("notice-claimed");
			enqueue(key);
		}
	}
	if (ld != NULL)
		ldpool_put(ld, e.code == ERR_UNAVAILABLE);
}

/* --- the messages */

struct msg {
	char *text;
	size_t len, off;
};

static size_t
feed(char *buf, size_t size, size_t n, void *arg)
{
	struct msg *m = arg;
	size_t k = size * n;

	if (k > m->len - m->off)
		k = m->len - m->off;
	memcpy(buf, m->text + m->off, k);
	m->off += k;
	return k;
}

/* Sends text (headers and body) to the addresses to[0..n-1]: 0, or -1 and why. */
static int
smtp_send(const char *const *to, size_t n, const char *text, char *why, size_t nwhy)
{
	struct msg m = { (char *)text, strlen(text), 0 };
	struct curl_slist *rcpt = NULL;
	char errbuf[CURL_ERROR_SIZE] = "";
	CURL *c = curl_easy_init();
	CURLcode rc;
	size_t i;

	if (c == NULL) {
		snprintf(why, nwhy, "libcurl: cannot start");
		return -1;
	}
	for (i = 0; i < n; i++)
		rcpt = curl_slist_append(rcpt, to[i]);
	curl_easy_setopt(c, CURLOPT_URL, conf()->notify.smtp);
	curl_easy_setopt(c, CURLOPT_MAIL_FROM, conf()->notify.from);
	curl_easy_setopt(c, CURLOPT_MAIL_RCPT, rcpt);
	curl_easy_setopt(c, CURLOPT_READFUNCTION, feed);
	curl_easy_setopt(c, CURLOPT_READDATA, &m);
	curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	rc = curl_easy_perform(c);
	if (rc != CURLE_OK)
		snprintf(why, nwhy, "%s", errbuf[0] ? errbuf : curl_easy_strerror(rc));
	curl_slist_free_all(rcpt);
	curl_easy_cleanup(c);
	return rc == CURLE_OK ? 0 : -1;
}

/* A template with ${name} replaced from vars (name, value, ..., NULL); malloc'd. */
static char *
render(const char *tpl, const char *const *vars)
{
	size_t cap = strlen(tpl) + 256, len = 0, i, k;
	char *out = malloc(cap), *no;
	const char *p = tpl;

	while (out != NULL && *p) {
		const char *val = NULL;

		if (p[0] == '$' && p[1] == '{')
			for (i = 0; vars[i]; i += 2) {
				k = strlen(vars[i]);
				if (strncmp(p + 2, vars[i], k) == 0 && p[2 + k] == '}') {
					val = vars[i + 1];
					p += 3 + k;
					break;
				}
			}
		k = val ? strlen(val) : 1;
		if (len + k + 1 > cap) {
			cap = (len + k + 1) * 2;
			if ((no = realloc(out, cap)) == NULL) {
				free(out);
				return NULL;
			}
			out = no;
		}
		if (val) {
			memcpy(out + len, val, k);
			len += k;
		} else
			out[len++] = *p++;
	}
	if (out != NULL)
		out[len] = '\0';
	return out;
}

/*
 * The whole message of template name for key to addresses: the template's
 * "Subject:" line, privd's headers, then its body. malloc'd.
 */
static char *
message(const char *name, const char *key, const char *const *to, size_t nto,
    const char *const *vars)
{
	char path[1200], date[64], id[65], *tpl = NULL, *body, *text = NULL, *nl, why[200];
	size_t tlen;
	const char *subject = "privd notice", *rest;
	unsigned char d[SHA256_DIGEST_SIZE];
	struct sha256_ctx ctx;
	time_t now = time(NULL);
	struct tm tm;
	size_t i, tolen = 0;
	char *tolist;

	snprintf(path, sizeof(path), "%s/%s", conf()->notify.templates, name);
	if (rfile_read(path, 65535, &tpl, &tlen, why, sizeof(why)) != 0 ||
	    (body = render(tpl, vars)) == NULL) {
		free(tpl);
		return NULL;
	}
	free(tpl);
	rest = body;
	if (strncmp(body, "Subject:", 8) == 0 && (nl = strchr(body, '\n')) != NULL) {
		*nl = '\0';
		subject = body + 8 + (body[8] == ' ');
		rest = nl + 1 + (nl[1] == '\n');
	}
	for (i = 0; i < nto; i++)
		tolen += strlen(to[i]) + 2;
	if ((tolist = calloc(1, tolen + 1)) == NULL) {
		free(body);
		return NULL;
	}
	for (i = 0; i < nto; i++) {
		strcat(tolist, i ? ", " : "");
		strcat(tolist, to[i]);
	}
	/* the same key, the same Message-ID: a repeat can be told */
	sha256_init(&ctx);
	sha256_update(&ctx, strlen(key), (const uint8_t *)key);
	sha256_digest(&ctx, sizeof(d), d);
	hex_encode(d, 16, id);
	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S +0000", &tm);
	if (asprintf(&text, "From: %s\r\nTo: %s\r\nSubject: %s\r\nDate: %s\r\n"
	    "Message-ID: <%s.notice@privd>\r\nX-Privd-Notice: %s\r\nMIME-Version: 1.0\r\n"
	    "Content-Type: text/plain; charset=utf-8\r\n\r\n%s", conf()->notify.from, tolist,
	    subject, date, id, key, rest) < 0)
		text = NULL;
	free(tolist);
	free(body);
	return text;
}

/* uid's mail, and whether they turned notices off: 0, 1 no address, -1 and e. */
static int
address_of(LDAP *ld, const char *uid, char *mail, size_t n, int *off, struct err *e)
{
	static char *attrs[] = { "mail", NULL };
	static char *pattrs[] = { "privPreference", NULL };
	struct berval in = { strlen(uid), (char *)uid }, esc = { 0, NULL };
	LDAPMessage *res = NULL, *m;
	char filter[600], *root, *adn;
	char **prefs;
	int rc;

	*off = 0;
	if (ldap_bv2escaped_filter_value(&in, &esc) != 0)
		return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
	snprintf(filter, sizeof(filter), "(%s=%s)", conf()->uid_attr, esc.bv_val);
	ber_memfree(esc.bv_val);
	if ((rc = ldapc_search(ld, conf(), conf()->people_dn, LDAP_SCOPE_SUBTREE, filter, attrs, 2,
	    &res, e)) < 0)
		return -1;
	m = rc == 0 ? ldap_first_entry(ld, res) : NULL;
	rc = m != NULL && ldapc_get_buf(ld, m, "mail", mail, n) == 0 ? 0 : 1;
	ldap_msgfree(res);
	/* the person's choice, beside their usage */
	if ((root = uent_root(conf())) != NULL && (adn = uent_holder_dn(uid, root)) != NULL) {
		if (ldapc_search(ld, conf(), adn, LDAP_SCOPE_BASE, "(objectClass=*)", pattrs, 0, &res,
		    e) == 0) {
			if ((m = ldap_first_entry(ld, res)) != NULL &&
			    (prefs = ldapc_get_strv(ld, m, "privPreference")) != NULL) {
				for (size_t i = 0; prefs[i]; i++)
					*off |= strcmp(prefs[i], "notices=off") == 0;
				strv_free(prefs);
			}
			ldap_msgfree(res);
		}
		free(adn);
	}
	free(root);
	return rc;
}

/* An amount of quota as people read it. */
static const char *
amount(const struct cfg_priv *pv, long long n, char *buf, size_t len)
{
	if (pv->currency[0])
		return money_format(n, pv->currency, buf, len);
	snprintf(buf, len, "%lld", n);
	return buf;
}

/* The low-balance message of key ("low/UID/QUOTA@PERIOD/T") to its person. */
static char *
low_message(LDAP *ld, const char *key, const char **why, char mail[256], struct err *e)
{
	char uid[128], quota[PRIV_NAME_MAX + 1], period[PERIOD_KEY_MAX], th[32];
	char rem[64], allow[64], paid[64], lim[64];
	const struct snap_account *a;
	const struct snap *s;
	struct resolve_val rv;
	struct usage_val u, w;
	long long limit = 0;
	const char *to[1];
	int p, t, off, rc;

	*why = NULL;
	if (sscanf(key, "low|%127[^|]|%64[^@]@%31[^|]|%31s", uid, quota, period, th) != 4 ||
	    (p = cfg_priv_find(conf(), quota)) < 0) {
		*why = "unknown";
		return NULL;
	}
	if ((rc = address_of(ld, uid, mail, 256, &off, e)) < 0)
		return NULL;
	if (rc == 1 || off) {
		*why = rc == 1 ? "no-address" : "opted-out";
		return NULL;
	}
	if ((s = snap_enter(&t)) != NULL && (a = snap_account(s, uid)) != NULL &&
	    resolve_account(s, p, a, &rv) == 0) {
		limit = rv.num;
		resolve_val_clear(&rv);
	}
	snap_leave(t);
	memset(&u, 0, sizeof(u));
	memset(&w, 0, sizeof(w));
	usage_get_for(uid, quota, period, &u);
	usage_get_for(uid, quota, QUOTA_PAID_PERIOD, &w);
	{
		const struct cfg_priv *pv = &cfg->privs[p];
		const char *vars[] = { "uid", uid, "quota", quota, "period", period,
		    "threshold", th,
		    "remaining", amount(pv, usage_remaining(limit, &u) + usage_remaining(0, &w), rem,
		    sizeof(rem)),
		    "allowance", amount(pv, usage_remaining(limit, &u), allow, sizeof(allow)),
		    "paid", amount(pv, usage_remaining(0, &w), paid, sizeof(paid)),
		    "limit", amount(pv, limit + u.credit, lim, sizeof(lim)), NULL };

		to[0] = mail;
		return message("low.txt", key, to, 1, vars);
	}
}

/*
 * The message of key ("pool|CELL|QUOTA@PERIOD|T") to the pool's contacts
 * (the model's), into *to (strv, malloc'd).
 */
static char *
pool_message(const char *key, char ***to, const char **why)
{
	char cell[CELL_MAX_LEN + 1], quota[PRIV_NAME_MAX + 1], period[PERIOD_KEY_MAX], th[32];
	char holder[QUOTA_HOLDER_MAX], rem[64], lim[64];
	const struct snap_cell *c;
	const struct snap *s;
	const struct grant *g;
	struct usage_val u;
	long long limit = 0;
	int p, t;

	*to = NULL;
	*why = NULL;
	if (sscanf(key, "pool|%511[^|]|%64[^@]@%31[^|]|%31s", cell, quota, period, th) != 4 ||
	    (p = cfg_priv_find(conf(), quota)) < 0) {
		*why = "unknown";
		return NULL;
	}
	if ((s = snap_enter(&t)) != NULL && (c = snap_cell(s, cell)) != NULL) {
		if ((g = pool_limit(c, p)) != NULL)
			limit = g->num;
		if (c->ncontacts > 0)
			*to = strv_copy(c->contacts, c->ncontacts);
	}
	snap_leave(t);
	if (*to == NULL) {
		*why = "no-contacts";
		return NULL;
	}
	holder_pool(holder, cell);
	memset(&u, 0, sizeof(u));
	usage_get_for(holder, quota, period, &u);
	{
		const struct cfg_priv *pv = &cfg->privs[p];
		const char *vars[] = { "pool", cell, "quota", quota, "period", period,
		    "threshold", th,
		    "remaining", amount(pv, usage_remaining(limit, &u), rem, sizeof(rem)),
		    "limit", amount(pv, limit + u.credit, lim, sizeof(lim)), NULL };
		char *text = message("pool-low.txt", key, (const char *const *)*to, strv_len(*to),
		    vars);

		if (text == NULL) {
			strv_free(*to);
			*to = NULL;
		}
		return text;
	}
}

/* The weekly digest (key "digest/YYYY-Www"): memberships ending in 14 days. */
static char *
digest_message(const char *key)
{
	char *list = NULL, *nl, line[MEMBERSHIP_MAX + 128], when[24];
	const struct snap *s;
	const struct snap_account *a;
	size_t k, len = 0, n = 0, pos = 0;
	time_t now;
	int t;

	if ((s = snap_enter(&t)) == NULL) {
		snap_leave(t);
		return NULL;
	}
	now = s->now ? s->now : period_now();
	while ((a = snap_next(s, &pos)) != NULL)
		for (k = 0; k < a->ndated; k++) {
			char cell[MEMBERSHIP_MAX];
			time_t from, until;

			if (membership_split(a->dated[k], cell, sizeof(cell), &from,
			    &until) != 0 || until == 0 || until <= now || until > now + 14 * 86400)
				continue;
			membership_rfc3339(until, when);
			snprintf(line, sizeof(line), "  %-16.64s %-40s until %s\n",
			    a->uid, cell, when);
			if ((nl = realloc(list, len + strlen(line) + 1)) == NULL)
				break;
			list = nl;
			memcpy(list + len, line, strlen(line) + 1);
			len += strlen(line);
			n++;
		}
	snap_leave(t);
	{
		char count[24];
		const char *vars[] = { "week", key + 7, "count", count, "list",
		    list ? list : "  (none)\n", NULL };
		const struct cfg *c = conf();	/* one reading: a reload may come */
		char *text;

		snprintf(count, sizeof(count), "%zu", n);
		text = message("digest.txt", key, (const char *const *)c->notify.admins,
		    c->notify.nadmins, vars);
		free(list);
		return text;
	}
}

/*
 * Sends the notice of key, which this privd holds with state held (a
 * "claimed ME UNTIL" value), and records what came of it. tries: how many
 * sends failed before.
 */
static void
send_key(LDAP *ld, const char *key, const char *held, int tries)
{
	char *base = notices_dn(), *dn = base ? dn_child("cn", key, base) : NULL;
	char why[CURL_ERROR_SIZE + 64] = "", state[CURL_ERROR_SIZE + 128], now[16];
	char mail[256] = "", **contacts = NULL;
	const char *drop = NULL, *to[1] = { mail };
	char *text = NULL;
	struct err e;
	int rc;

	memset(&e, 0, sizeof(e));
	if (dn == NULL)
		goto done;
	if (strncmp(key, "digest/", 7) == 0)
		text = digest_message(key);
	else if (strncmp(key, "pool|", 5) == 0)
		text = pool_message(key, &contacts, &drop);
	else
		text = low_message(ld, key, &drop, mail, &e);
	gt(time(NULL), now);
	if (text == NULL && drop != NULL) {
		snprintf(state, sizeof(state), "dropped %s", drop);
		log_info("notice: %s not sent: %s", key, drop);
	} else if (text == NULL) {
		if (e.code == ERR_UNAVAILABLE)
			goto done;	/* LDAP gone: the claim is taken over later */
		snprintf(why, sizeof(why), "%.200s", e.msg[0] ? e.msg : "cannot make the message");
		goto failed;
	} else {
		/* a person's notice to them, a pool's to its contacts, the digest
		 * to the administrators */
		const struct cfg *c = conf();
		const char *const *rcpt = contacts ? (const char *const *)contacts :
		    mail[0] ? to : (const char *const *)c->notify.admins;
		size_t nr = contacts ? strv_len(contacts) : mail[0] ? 1 : c->notify.nadmins;

		if (smtp_send(rcpt, nr, text, why, sizeof(why)) != 0)
			goto failed;
		snprintf(state, sizeof(state), "sent %s", now);
		log_info("notice: %s sent", key);
	}
	if ((rc = wop_swap_value(ld, dn, "privNoticeState", held, state)) != LDAP_SUCCESS)
		log_warn("notice: %s: cannot record '%s': %s", key, state, ldap_err2string(rc));
	goto done;
failed:
	{
		/* again later, less often each time, at most hourly */
		long wait = (long)conf()->notify.retry_s << (tries < 6 ? tries : 6);
		char until[16];

		gt(time(NULL) + (wait > 3600 ? 3600 : wait), until);
		snprintf(state, sizeof(state), "retry %d %s", tries + 1, until);
		log_warn("notice: %s not sent (%s); %s", key, why, state);
		if ((rc = wop_swap_value(ld, dn, "privNoticeState", held, state)) != LDAP_SUCCESS)
			log_warn("notice: %s: cannot record '%s': %s", key, state,
			    ldap_err2string(rc));
	}
done:
	strv_free(contacts);
	free(text);
	free(dn);
	free(base);
}

/* A claimed notice of this privd, taken from the queue and sent. */
static void
send_claimed(LDAP *ld, const char *key)
{
	static char *attrs[] = { "privNoticeState", NULL };
	char *base = notices_dn(), *dn = base ? dn_child("cn", key, base) : NULL;
	char st[300] = "", who[128];
	LDAPMessage *res = NULL, *m;
	struct err e;

	memset(&e, 0, sizeof(e));
	if (dn != NULL && ldapc_search(ld, conf(), dn, LDAP_SCOPE_BASE, "(objectClass=privNotice)",
	    attrs, 0, &res, &e) == 0 && (m = ldap_first_entry(ld, res)) != NULL &&
	    ldapc_get_buf(ld, m, "privNoticeState", st, sizeof(st)) == 0 &&
	    sscanf(st, "claimed %127s", who) == 1 && strcmp(who, me) == 0)
		send_key(ld, key, st, 0);
	ldap_msgfree(res);
	free(dn);
	free(base);
}

/*
 * Claims whose sender died, or that failed and are due again: taken over
 * by swapping their state (one privd wins), then sent.
 */
static void
sweep(LDAP *ld)
{
	static char *attrs[] = { "cn", "privNoticeState", NULL };
	LDAPMessage *res = NULL, *m;
	char *base = notices_dn(), now[16], until[16];
	struct err e;
	int n = 0;

	memset(&e, 0, sizeof(e));
	gt(time(NULL), now);
	if (base == NULL || ldapc_search(ld, conf(), base, LDAP_SCOPE_ONELEVEL,
	    "(|(privNoticeState=claimed *)(privNoticeState=retry *))", attrs, 200, &res,
	    &e) != 0) {
		free(base);
		return;
	}
	for (m = ldap_first_entry(ld, res); m && n < 20 && !atomic_load(&stopping);
	    m = ldap_next_entry(ld, m)) {
		char key[KEY_MAX], st[300], a[128], b[32], mine[300], *dn;
		int tries = 0;

		if (ldapc_get_buf(ld, m, "cn", key, sizeof(key)) != 0 ||
		    ldapc_get_buf(ld, m, "privNoticeState", st, sizeof(st)) != 0)
			continue;
		if ((strncmp(st, "claimed ", 8) == 0 && sscanf(st, "claimed %127s %31s", a, b) != 2) ||
		    (strncmp(st, "retry ", 6) == 0 && sscanf(st, "retry %d %31s", &tries, b) != 2))
			continue;
		if (strcmp(b, now) > 0)
			continue;	/* its sender may still be at it */
		gt(time(NULL) + conf()->notify.retry_s, until);
		snprintf(mine, sizeof(mine), "claimed %s %s", me, until);
		if ((dn = ldap_get_dn(ld, m)) == NULL)
			continue;
		if (wop_swap_value(ld, dn, "privNoticeState", st, mine) == LDAP_SUCCESS) {
			log_info("notice: took over %s (%s)", key, st);
			send_key(ld, key, mine, tries);
			n++;
		}
		ldap_memfree(dn);
	}
	ldap_msgfree(res);
	free(base);
}

/* On the digest's day, this week's digest: claimed once among all privd. */
static void
digest(LDAP *ld)
{
	char key[32], until[16], state[200];
	time_t now = period_now();
	struct tm tm;
	struct err e;

	if (conf()->notify.digest_wday < 0)
		return;
	gmtime_r(&now, &tm);
	if (tm.tm_wday != conf()->notify.digest_wday)
		return;
	strftime(key, sizeof(key), "digest/%G-W%V", &tm);
	if (known(key))
		return;
	memset(&e, 0, sizeof(e));
	gt(time(NULL) + conf()->notify.retry_s, until);
	snprintf(state, sizeof(state), "claimed %s %s", me, until);
	switch (claim(ld, key, state, &e)) {
	case 0:
		remember(key);
		log_info("notice: claimed %s", key);
		send_key(ld, key, state, 0);
		break;
	case 1:
		remember(key);
		break;
	default:
		log_warn("notice: cannot claim %s: %s", key, e.msg);
	}
}

static void *
run(void *arg)
{
	time_t last = 0;

	(void)arg;
	while (!atomic_load(&stopping)) {
		char *key = NULL;
		struct timespec until;
		struct err e;
		LDAP *ld;

		pthread_mutex_lock(&lock);
		if (nqueue == 0) {
			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_sec += 1;
			pthread_cond_timedwait(&wake, &lock, &until);
		}
		if (nqueue > 0) {
			key = queue[0];
			memmove(queue, queue + 1, --nqueue * sizeof(*queue));
		}
		pthread_mutex_unlock(&lock);
		if (atomic_load(&stopping)) {
			free(key);
			break;
		}
		memset(&e, 0, sizeof(e));
		if (key == NULL && time(NULL) - last < (conf()->notify.retry_s + 1) / 2)
			continue;
		if (ldpool_get_home(HOME_KEY, &ld, &e) != 0) {
			free(key);
			continue;
		}
		if (key != NULL)
			send_claimed(ld, key);
		else {
			last = time(NULL);
			sweep(ld);
			digest(ld);
		}
		ldpool_put(ld, 0);
		free(key);
	}
	return NULL;
}

int
notice_start(const struct cfg *c)
{
	char host[64] = "host";

	if (c->notify.smtp == NULL)
		return 0;
	cfg = c;
	gethostname(host, sizeof(host) - 1);
	snprintf(me, sizeof(me), "%s:%ld", host, (long)getpid());
	strmap_init(&claimed);
	atomic_store(&stopping, 0);
	if (pthread_create(&thread, NULL, run, NULL) != 0)
		return -1;
	started = 1;
	return 0;
}

void
notice_stop(void)
{
	size_t i;

	if (!started)
		return;
	atomic_store(&stopping, 1);
	pthread_mutex_lock(&lock);
	pthread_cond_signal(&wake);
	pthread_mutex_unlock(&lock);
	pthread_join(thread, NULL);
	started = 0;
	for (i = 0; i < nqueue; i++)
		free(queue[i]);
	nqueue = 0;
	for (i = 0; i < claimed.cap; i++)
		free(claimed.slots[i].val);
	strmap_free(&claimed);
}

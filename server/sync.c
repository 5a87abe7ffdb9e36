/*
 * sync.c - the LDAP follower: three refreshAndPersist searches (the privilege
 * subtree, the people, the usage counters). What the first two return goes
 * to the mirror (mirror.c), which builds a new snapshot after each burst of
 * changes. Usage counters change with every charge, so they bypass the
 * snapshot and go straight to the usage table. While a recorded change is
 * open (pending.c) no snapshot is published, and one built then (at start)
 * shows the model as it was before the change.
 *
 * RFC 4533 is driven with libldap's primitives rather than ldap_sync_poll:
 * in libldap 2.5 ldap_sync_poll hands the first message of a received chain
 * to the callback for every message in it, which loses entries whenever
 * slapd sends faster than privd reads (every large refresh).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lber.h>
#include <ldap.h>

#include "hex.h"
#include "dirconf.h"
#include "dn.h"
#include "fault.h"
#include "ldapconn.h"
#include "log.h"
#include "mirror.h"
#include "monotime.h"
#include "pending.h"
#include "period.h"
#include "snapshot.h"
#include "strmap.h"
#include "sync.h"
#include "usage.h"

#define CSN_MAX 64

struct follower {
	const char *what;
	LDAP *ld;
	int msgid;
	int refreshed;		/* refreshDone seen */
	int ended;		/* the server ended the search */
	char csn[CSN_MAX];	/* newest CSN the stream has delivered */
};

static const struct cfg *cfg;
static pthread_t thread;
static long long session_t0;	/* when this session's searches began (debug lines) */
static unsigned long drained;	/* messages taken, by drain */

/*
 * While the searches refresh, the follower naps this long after taking
 * what had arrived, so that slapd's entries gather in the socket: a read
 * then takes tens of kilobytes, not one or two entries. Taken as they
 * came, a million people cost about 200,000 reads, each with its wake-up
 * and an acknowledgement back to slapd: about 1 s more of privd's CPU on a
 * machine whose two cores slapd and privd fill, and a load 0.7-1 s longer
 * (0.5 ms naps gained less, 2 ms less again). Live, nothing naps: a change
 * is taken when it comes.
 */
#define REFRESH_NAP_US 1000
static atomic_int stopping;
static atomic_int rebuild;	/* sync_rebuild: a new snapshot wanted */
static atomic_long beat;	/* sync_beat_ms: the loop's last turn */

static atomic_int state = SYNC_STARTING;
static atomic_ulong reconnects;
static pthread_mutex_t errlock = PTHREAD_MUTEX_INITIALIZER;
static char last_error[ERR_MSG_MAX];
/* an error no retry mends (a refused bind, no syncprov, no subtree): before
 * the first snapshot, privd exits on it after ldap.startup_timeout */
static atomic_int permanent;
static atomic_int fatal;

static char *usage_dn;
/* the CSN each stream had delivered when the current snapshot was built */
static pthread_mutex_t csnlock = PTHREAD_MUTEX_INITIALIZER;
static char published_csn[2][CSN_MAX];
static struct strmap usage_ids;	/* entryUUID -> usage key, for deletes */
static unsigned long events;
static int csn_moved;		/* an entry's CSN moved and nothing else */

enum stream { ST_PRIVILEGES, ST_PEOPLE, ST_USAGE };

static void
set_error(const char *msg)
{
	pthread_mutex_lock(&errlock);
	snprintf(last_error, sizeof(last_error), "%s", msg);
	pthread_mutex_unlock(&errlock);
}

void
sync_last_error(char *out, size_t n)
{
	pthread_mutex_lock(&errlock);
	snprintf(out, n, "%s", last_error);
	pthread_mutex_unlock(&errlock);
}

enum sync_state
sync_state(void)
{
	return (enum sync_state)atomic_load(&state);
}

uint64_t
sync_reconnects(void)
{
	return atomic_load(&reconnects);
}

static void
uuid_hex(const struct berval *bv, char out[33])
{
	hex_encode((const unsigned char *)bv->bv_val, bv->bv_len < 16 ? bv->bv_len : 16, out);
}

/* csn as the stream's newest when it is newer. CSNs start with a
 * GeneralizedTime: text order is time order. */
static void
keep_csn(struct follower *f, const char *csn)
{
	if (strcmp(csn, f->csn) > 0)
		snprintf(f->csn, sizeof(f->csn), "%s", csn);
}

/* Keeps the newest csn= of a sync cookie ("rid=000,csn=2026...Z#000000#000#000000"). */
static void
note_cookie(struct follower *f, const struct berval *cookie)
{
	char tmp[CSN_MAX];
	const char *p;
	size_t n;

	if (cookie->bv_val == NULL)
		return;
	p = memmem(cookie->bv_val, cookie->bv_len, "csn=", 4);
	if (p == NULL)
		return;
	p += 4;
	n = cookie->bv_len - (p - cookie->bv_val);
	for (size_t i = 0; i < n; i++)
		if (p[i] == ',' || p[i] == ';') {
			n = i;
			break;
		}
	if (n == 0 || n >= CSN_MAX)
		return;
	memcpy(tmp, p, n);
	tmp[n] = '\0';
	keep_csn(f, tmp);
}

/*
 * Keeps the entry's own entryCSN too: syncprov puts in a cookie only the
 * CSN up to which every write has committed, so while charges run beside
 * an edit the edit's entry can come with an older cookie, and no newer one
 * comes until the next change of that stream.
 */
static void
note_entry_csn(struct follower *f, LDAPMessage *msg)
{
	char csn[CSN_MAX];

	if (ldapc_get_buf(f->ld, msg, "entryCSN", csn, sizeof(csn)) == 0)
		keep_csn(f, csn);
}

static void
usage_forget(const char *uuid)
{
	char *key = strmap_del(&usage_ids, uuid);

	if (key != NULL) {
		usage_del(key + 33);
		free(key);
	}
}

static void
usage_ids_clear(void)
{
	size_t i;

	for (i = 0; i < usage_ids.cap; i++)
		if (usage_ids.slots[i].key != NULL)
			free(usage_ids.slots[i].val);
	strmap_free(&usage_ids);
}

static atomic_ullong usage_bytes, usage_msgs;

void
sync_usage_traffic(unsigned long long *bytes, unsigned long long *entries)
{
	*bytes = atomic_load(&usage_bytes);
	*entries = atomic_load(&usage_msgs);
}

/* A counter's value; 0 when it is no number, as a missing one. */
static long long
value_ll(const struct berval *v)
{
	char buf[32];

	return ldapc_bv_buf(v, buf, sizeof(buf)) == 0 ? strtoll(buf, NULL, 10) : 0;
}

/*
 * A usage entry's DN (*dn, malloc'd), counters and CSN in one pass over
 * the message, counting the bytes of its DN, attribute names and values:
 * what the usage stream carries per change, for /metrics (it must not grow
 * with the ledger). Asking for each attribute in turn scans the entry from
 * its start every time: 100,000 usage entries took a third of a second.
 */
static int
read_usage(LDAP *ld, LDAPMessage *msg, char **dn, struct usage_val *v)
{
	BerElement *ber = NULL;
	struct berval dnbv, attr, *vals = NULL;
	unsigned long long bytes;
	size_t i;

	if (ldap_get_dn_ber(ld, msg, &ber, &dnbv) != LDAP_SUCCESS || ber == NULL ||
	    (*dn = strndup(dnbv.bv_val, dnbv.bv_len)) == NULL) {
		if (ber != NULL)
			ber_free(ber, 0);
		return -1;
	}
	bytes = dnbv.bv_len;
	while (ldap_get_attribute_ber(ld, msg, ber, &attr, &vals) == LDAP_SUCCESS &&
	    attr.bv_val != NULL) {
		bytes += attr.bv_len;
		for (i = 0; vals != NULL && vals[i].bv_val != NULL; i++)
			bytes += vals[i].bv_len;
		if (vals != NULL && vals[0].bv_val != NULL) {
			if (ldapc_is_attr(&attr, "privUsed"))
				v->used = value_ll(&vals[0]);
			else if (ldapc_is_attr(&attr, "privCredit"))
				v->credit = value_ll(&vals[0]);
			else if (ldapc_is_attr(&attr, "privHeld"))
				v->held = value_ll(&vals[0]);
			else if (ldapc_is_attr(&attr, "privSegments"))
				v->segments = value_ll(&vals[0]);
			else if (ldapc_is_attr(&attr, "entryCSN"))
				ldapc_bv_buf(&vals[0], v->csn, sizeof(v->csn));
		}
		ber_memfree(vals);
		vals = NULL;
	}
	ber_free(ber, 0);
	atomic_fetch_add(&usage_bytes, bytes);
	atomic_fetch_add(&usage_msgs, 1);
	return 0;
}

/* A usage entry went by: into the usage table, straight away. */
static void
on_usage(struct follower *f, LDAPMessage *msg, const char *uuid)
{
	char uid[DN_VAL_MAX], name[DN_VAL_MAX];
	char key[USAGE_KEY_MAX], *dn = NULL, *kept;
	struct usage_val v;
	int failed = 0;

	memset(&v, 0, sizeof(v));
	if (read_usage(f->ld, msg, &dn, &v) != 0)
		return;
	if (dn_usage(dn, usage_dn, uid, name) != 0) {
		log_debug("sync: %s is not a usage entry; ignored", dn);
		free(dn);
		return;
	}
	free(dn);
	snprintf(key, sizeof(key), "%s/%s", uid, name);
	if (usage_put(key, &v) != 0)
		log_warn("sync: out of memory recording usage of %s", key);
	/* the uuid's copy sits first in the same block as the key */
	if (strmap_get(&usage_ids, uuid) != NULL)
		return;
	if ((kept = malloc(33 + strlen(key) + 1)) == NULL)
		return;
	memcpy(kept, uuid, 33);
	strcpy(kept + 33, key);
	strmap_put(&usage_ids, kept, kept, &failed);
	if (failed)
		free(kept);
}

static void
on_entry(struct follower *f, LDAPMessage *msg, enum stream stream)
{
	LDAPControl **ctrls = NULL, *sc;
	struct berval uuid = { 0, NULL }, cookie = { 0, NULL };
	BerElement *ber = NULL;
	ber_len_t len;
	char key[33], csn[CSN_MAX];
	ber_int_t st = -1;
	int rc;

	if (ldap_get_entry_controls(f->ld, msg, &ctrls) != LDAP_SUCCESS ||
	    (sc = ldap_control_find(LDAP_CONTROL_SYNC_STATE, ctrls, NULL)) == NULL) {
		log_warn("sync: %s: entry without a sync state; ignored", f->what);
		goto done;
	}
	if ((ber = ber_init(&sc->ldctl_value)) == NULL ||
	    ber_scanf(ber, "{em", &st, &uuid) == LBER_ERROR || uuid.bv_len == 0) {
		log_warn("sync: %s: bad sync state control; ignored", f->what);
		goto done;
	}
	if (ber_peek_tag(ber, &len) == LDAP_TAG_SYNC_COOKIE &&
	    ber_scanf(ber, "m", &cookie) != LBER_ERROR)
		note_cookie(f, &cookie);
	uuid_hex(&uuid, key);
	if (stream == ST_USAGE) {
		if (st == LDAP_SYNC_ADD || st == LDAP_SYNC_MODIFY)
			on_usage(f, msg, key);
		else if (st == LDAP_SYNC_DELETE)
			usage_forget(key);
		goto done;
	}
	/* a person's entryCSN comes with the rest of the entry (mirror_entry) */
	if (stream != ST_PEOPLE || (st != LDAP_SYNC_ADD && st != LDAP_SYNC_MODIFY))
		note_entry_csn(f, msg);
	switch (st) {
	case LDAP_SYNC_ADD:
	case LDAP_SYNC_MODIFY: {
		if (stream == ST_PRIVILEGES) {
			char *dn = ldap_get_dn(f->ld, msg);
			int rec = dn && pending_is(dn);

			if (rec)
				pending_put(f->ld, msg, key, dn);
			ldap_memfree(dn);
			if (rec) {
				events++;
				break;
			}
		}
		/* gone when no longer something privd follows (or unreadable);
		 * the same as before (privd's own entitlement values on a
		 * person): nothing to build, only the CSN to own up to */
		rc = mirror_entry(f->ld, msg, stream == ST_PEOPLE, &uuid, csn, sizeof(csn));
		if (stream == ST_PEOPLE && csn[0] == '\0')
			note_entry_csn(f, msg);
		else if (stream == ST_PEOPLE)
			keep_csn(f, csn);
		if (rc)
			events++;
		else
			csn_moved = 1;
		break;
	}
	case LDAP_SYNC_DELETE:
		events++;
		mirror_forget(&uuid);
		pending_forget(key);
		break;
	default:
		break;		/* PRESENT: only with a cookie, which privd never sends */
	}
done:
	if (ber)
		ber_free(ber, 1);
	if (ctrls)
		ldap_controls_free(ctrls);
}

static void
on_intermediate(struct follower *f, LDAPMessage *msg)
{
	char *oid = NULL;
	struct berval *data = NULL;
	BerElement *ber = NULL;
	ber_tag_t tag;
	ber_len_t len;
	ber_int_t done = 1;	/* refreshDone DEFAULT TRUE */
	struct berval cookie;

	if (ldap_parse_intermediate(f->ld, msg, &oid, &data, NULL, 0) != LDAP_SUCCESS)
		return;
	if (oid == NULL || strcmp(oid, LDAP_SYNC_INFO) != 0 || data == NULL ||
	    (ber = ber_init(data)) == NULL)
		goto out;
	tag = ber_peek_tag(ber, &len);
	if (tag == LDAP_TAG_SYNC_NEW_COOKIE) {
		if (ber_scanf(ber, "m", &cookie) != LBER_ERROR)
			note_cookie(f, &cookie);
		goto out;
	}
	if (tag == LDAP_TAG_SYNC_REFRESH_PRESENT || tag == LDAP_TAG_SYNC_REFRESH_DELETE) {
		if (ber_scanf(ber, "{") == LBER_ERROR)
			goto out;
		if (ber_peek_tag(ber, &len) == LDAP_TAG_SYNC_COOKIE) {
			if (ber_scanf(ber, "m", &cookie) == LBER_ERROR)
				goto out;
			note_cookie(f, &cookie);
		}
		if (ber_peek_tag(ber, &len) == LDAP_TAG_REFRESHDONE &&
		    ber_scanf(ber, "b", &done) == LBER_ERROR)
			goto out;
		if (done && !f->refreshed)
			log_debug("sync: %s refreshed %lld ms after the searches began", f->what,
			    monotime_ms() - session_t0);
		if (done)
			f->refreshed = 1;
		events++;
	}
out:
	if (ber)
		ber_free(ber, 1);
	ldap_memfree(oid);
	if (data)
		ber_bvfree(data);
}

/* Whether libldap holds bytes of f's stream that poll cannot see. */
static int
read_ahead(struct follower *f)
{
	Sockbuf *sb = NULL;

	if (ldap_get_option(f->ld, LDAP_OPT_SOCKBUF, &sb) != LDAP_OPT_SUCCESS || sb == NULL)
		return 1;
	return ber_sockbuf_ctrl(sb, LBER_SB_OPT_DATA_READY, NULL) > 0;
}

/* Takes what has arrived without waiting; -1 when the connection failed. */
static int
drain(struct follower *f, enum stream stream)
{
	struct timeval zero = { 0, 0 };
	LDAPMessage *msg;
	unsigned beats = 0;
	int rc, n = 0;

	for (;;) {
		/* a first refresh of a million entries is a long drain */
		if ((++beats & 1023) == 0)
			atomic_store(&beat, monotime_ms());
		rc = ldap_result(f->ld, f->msgid, LDAP_MSG_ONE, &zero, &msg);
		if (rc == 0)
			return 0;
		drained++;
		if (rc < 0) {
			int err = 0;

			ldap_get_option(f->ld, LDAP_OPT_RESULT_CODE, &err);
			log_warn("sync: %s: connection lost: %s", f->what, ldap_err2string(err));
			set_error(ldap_err2string(err));
			return -1;
		}
		switch (rc) {
		case LDAP_RES_SEARCH_ENTRY:
			on_entry(f, msg, stream);
			break;
		case LDAP_RES_INTERMEDIATE:
			on_intermediate(f, msg);
			break;
		case LDAP_RES_SEARCH_RESULT: {
			int err = 0;
			char *text = NULL;

			ldap_parse_result(f->ld, msg, &err, NULL, &text, NULL, NULL, 0);
			log_warn("sync: %s: search ended by the server: %s%s%s", f->what,
			    ldap_err2string(err), text ? ": " : "", text ? text : "");
			if (err == LDAP_UNAVAILABLE_CRITICAL_EXTENSION || err == LDAP_NO_SUCH_OBJECT ||
			    err == LDAP_INSUFFICIENT_ACCESS)
				atomic_store(&permanent, err);
			set_error(ldap_err2string(err));
			ldap_memfree(text);
			f->ended = 1;
			break;
		}
		default:
			break;
		}
		ldap_msgfree(msg);
		if (f->ended)
			return -1;
		/* live, with nothing read ahead, the caller's poll sees what
		 * comes next; asking ldap_result again would only cost a poll
		 * of the socket for nothing, with every charge's echo */
		if (f->refreshed && !read_ahead(f))
			return 0;
		/* let the caller poll the other search now and then; what is
		 * left may sit in the read-ahead buffer, where poll cannot see it */
		if (++n == 4096)
			return 1;
	}
}

static int
begin(struct follower *f, const char *base, const char *filter, char **attrs)
{
	BerElement *ber;
	LDAPControl ctrl, *ctrls[2] = { &ctrl, NULL };
	struct err e;
	int rc;

	f->refreshed = f->ended = 0;
	if (ldapc_open(cfg, NULL, NULL, &f->ld, &e) != 0) {
		set_error(e.msg);
		if (strstr(e.msg, "refused") != NULL)
			atomic_store(&permanent, LDAP_INVALID_CREDENTIALS);
		else if (strstr(e.msg, "does not offer StartTLS") != NULL)
			atomic_store(&permanent, LDAP_PROTOCOL_ERROR);
		return -1;
	}
	if (atomic_load(&state) == SYNC_STARTING) {
		/* without privd's schema the searches below answer nothing, not an
		 * error: privd would look ready, then fail every write */
		const char *missing = dirconf_schema_missing(f->ld);

		if (missing != NULL) {
			char why[160];

			snprintf(why, sizeof(why), "the directory's schema has no %s", missing);
			set_error(why);
			atomic_store(&permanent, LDAP_UNDEFINED_TYPE);
			return -1;
		}
	}
	if ((ber = ber_alloc_t(LBER_USE_DER)) == NULL)
		return -1;
	/* syncRequestValue: mode refreshAndPersist, no cookie, reloadHint FALSE */
	if (ber_printf(ber, "{eb}", (ber_int_t)LDAP_SYNC_REFRESH_AND_PERSIST, 0) < 0 ||
	    ber_flatten2(ber, &ctrl.ldctl_value, 0) < 0) {
		ber_free(ber, 1);
		return -1;
	}
	ctrl.ldctl_oid = LDAP_CONTROL_SYNC;
	ctrl.ldctl_iscritical = 1;
	rc = ldap_search_ext(f->ld, base, LDAP_SCOPE_SUBTREE, filter, attrs, 0,
	    ctrls, NULL, NULL, 0, &f->msgid);
	ber_free(ber, 1);
	if (rc != LDAP_SUCCESS) {
		log_warn("sync: %s: search failed: %s", f->what, ldap_err2string(rc));
		set_error(ldap_err2string(rc));
		return -1;
	}
	return 0;
}

static void
end(struct follower *f)
{
	ldapc_close(f->ld);
	f->ld = NULL;
}

static int
fd_of(struct follower *f)
{
	int fd = -1;

	ldap_get_option(f->ld, LDAP_OPT_DESC, &fd);
	return fd;
}


/*
 * The follower signals every publication; writers that wait to read their
 * own writes sleep on it with a deadline instead of polling.
 */
static pthread_cond_t published;
static pthread_once_t published_once = PTHREAD_ONCE_INIT;

static void
published_init(void)
{
	pthread_condattr_t a;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&published, &a);
	pthread_condattr_destroy(&a);
}

static void
publish_csns(const struct follower *fp, const struct follower *fa)
{
	pthread_once(&published_once, published_init);
	pthread_mutex_lock(&csnlock);
	memcpy(published_csn[0], fp->csn, CSN_MAX);
	memcpy(published_csn[1], fa->csn, CSN_MAX);
	pthread_cond_broadcast(&published);
	pthread_mutex_unlock(&csnlock);
}

int
sync_wait(int (*ready)(void *), void *arg, int timeout_ms)
{
	struct timespec until;
	int ok;

	pthread_once(&published_once, published_init);
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (timeout_ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&csnlock);
	while (!(ok = ready(arg)))
		if (pthread_cond_timedwait(&published, &csnlock, &until) == ETIMEDOUT) {
			ok = ready(arg);
			break;
		}
	pthread_mutex_unlock(&csnlock);
	return ok ? 0 : -1;
}

struct csn_pair {
	const char *privileges, *people;
};

/* Called with csnlock held. */
static int
csns_published(void *arg)
{
	const struct csn_pair *w = arg;

	return (w->privileges == NULL || *w->privileges == '\0' ||
	    strcmp(published_csn[0], w->privileges) >= 0) &&
	    (w->people == NULL || *w->people == '\0' ||
	    strcmp(published_csn[1], w->people) >= 0);
}

int
sync_wait_csn(const char *privileges_csn, const char *people_csn, int timeout_ms)
{
	struct csn_pair w = { privileges_csn, people_csn };

	return sync_wait(csns_published, &w, timeout_ms);
}

/* One connected session: refresh both, publish, follow until failure. */
static void
follow(void)
{
	static char *priv_attrs[] = { "cn", "privGrant", "privPool", "privRate", "privImportState", "privImportWhat",
	    "privImportActor", "privImportTime", "privImportCSN", "privBefore", "entryCSN", NULL };
	char *people_attrs[] = { cfg->uid_attr, "privMembership", "privMembershipDates",
	    "entryCSN", NULL };
	struct follower fp = { "privileges", NULL, 0, 0, 0, "" };
	struct follower fa = { "people", NULL, 0, 0, 0, "" };
	struct follower fu = { "usage", NULL, 0, 0, 0, "" };
	static char *usage_attrs[] = { "privUsed", "privCredit", "privHeld", "privSegments",
	    "entryCSN", NULL };
	unsigned long seen, last_drained = 0;
	long dirty_since = 0;
	struct follower *fol[3] = { &fp, &fa, &fu };
	static const enum stream streams[3] = { ST_PRIVILEGES, ST_PEOPLE, ST_USAGE };
	struct pollfd pfd[3];
	int live = 0, polled = 0, left[3] = { 0, 0, 0 }, i;
	char people_filter[128];

	/* every person, not only those with memberships: a real person
	 * without any answers 200 with the defaults, a typo 404 */
	snprintf(people_filter, sizeof(people_filter), "(|(objectClass=privAccount)(%s=*))",
	    cfg->uid_attr);

	strmap_init(&usage_ids);
	session_t0 = monotime_ms();
	/* usage on the base, not ou=usage: the base always exists */
	if (begin(&fp, cfg->base_dn, "(|(objectClass=privReason)(objectClass=privOrganisation)"
	    "(objectClass=privCell)(objectClass=privImport)(objectClass=privPrinter))",
	    priv_attrs) != 0 ||
	    begin(&fa, cfg->people_dn, people_filter, people_attrs) != 0 ||
	    begin(&fu, cfg->base_dn, "(|(objectClass=privUsage)(objectClass=privSessions))",
	    usage_attrs) != 0)
		goto out;
	while (!atomic_load(&stopping)) {
		int hold;

		atomic_store(&beat, monotime_ms());
		if (live)
			fault_point("sync-live");
		seen = events;
		/* after a poll, only the searches it woke (or left mid-drain):
		 * a charge's echo wakes one, and each drain costs a poll of its own */
		for (i = 0; i < 3; i++) {
			if (polled && !pfd[i].revents && !left[i])
				continue;
			if ((left[i] = drain(fol[i], streams[i])) < 0)
				goto out;
		}
		polled = 0;
		/* an open change: readers keep the model before it until it closes */
		hold = pending_holding(fa.csn);
		pending_audit();
		if (!live && fp.refreshed && fa.refreshed && fu.refreshed) {
			if (mirror_publish() != 0)
				goto out;
			publish_csns(&fp, &fa);
			live = 1;
			atomic_store(&state, SYNC_LIVE);
			set_error("");
			log_info("sync: following %s and %s", cfg->base_dn, cfg->people_dn);
			continue;
		}
		/* the snapshot already holds what those entries say */
		if (live && events == seen && dirty_since == 0 && csn_moved && !hold) {
			publish_csns(&fp, &fa);
			csn_moved = 0;
		}
		if (live && events != seen) {
			if (dirty_since == 0)
				dirty_since = monotime_ms();
			/* a burst keeps coming: still publish every 100 ms */
			if (monotime_ms() - dirty_since < 100)
				continue;
		}
		/* a dated membership starts or ends: the model changes by itself;
		 * a reload's terms date memberships anew */
		if (live && dirty_since == 0 && !hold && (snap_due(period_now()) ||
		    atomic_exchange(&rebuild, 0)))
			dirty_since = 1;
		if (live && dirty_since != 0 && !hold) {
			if (mirror_publish() != 0)
				goto out;
			publish_csns(&fp, &fa);
			dirty_since = 0;
			continue;
		}
		if (!live && drained != last_drained && !left[0] && !left[1] && !left[2]) {
			struct timespec nap = { 0, REFRESH_NAP_US * 1000L };

			nanosleep(&nap, NULL);
		}
		last_drained = drained;
		for (i = 0; i < 3; i++) {
			pfd[i].fd = fd_of(fol[i]);
			pfd[i].events = POLLIN;
			pfd[i].revents = 0;
		}
		polled = poll(pfd, 3, left[0] || left[1] || left[2] ? 0 : 200) >= 0;
	}
out:
	end(&fp);
	end(&fa);
	end(&fu);
	mirror_clear();
	usage_ids_clear();
	pending_clear();
}

/* The fix for a permanent error, in words. */
static const char *
fix_for(int rc)
{
	switch (rc) {
	case LDAP_INVALID_CREDENTIALS:
		return "the directory refused privd's bind: check ldap.bind_dn and its password";
	case LDAP_UNAVAILABLE_CRITICAL_EXTENSION:
		return "the directory answers sync searches with \"Critical extension is "
		    "unavailable\": add the syncprov overlay to the database (privd "
		    "--directory-config ldif, parts 1 and 5)";
	case LDAP_NO_SUCH_OBJECT:
		return "ldap.base or ldap.people does not exist: run privd setup-directory, "
		    "or correct the configuration";
	case LDAP_PROTOCOL_ERROR:
		return "the directory does not offer StartTLS: give slapd a certificate, use "
		    "ldapi:// on its host, or set ldap.starttls: false where the network is trusted";
	case LDAP_UNDEFINED_TYPE:
		return "the directory does not have privd's schema, or has an older one: load "
		    "schema/privd.ldif (ldapadd -Y EXTERNAL -H ldapi:/// -f privd.ldif) or include "
		    "schema/privd.schema in slapd.conf";
	default:
		return "the directory refuses privd's reads: add privd's ACLs (privd "
		    "--directory-config ldif, part 4)";
	}
}

static void *
run(void *arg)
{
	long backoff = 100, started = monotime_ms();

	(void)arg;
	pthread_setname_np(pthread_self(), "privd-sync");	/* top -H, perf */
	while (!atomic_load(&stopping)) {
		long until;
		int perm;

		atomic_store(&permanent, 0);
		follow();
		if (atomic_load(&stopping))
			break;
		perm = atomic_load(&permanent);
		if (perm && atomic_load(&state) == SYNC_STARTING &&
		    monotime_ms() - started >= cfg->startup_timeout_s * 1000L) {
			log_warn("sync: %s; giving up after %d s (ldap.startup_timeout)", fix_for(perm),
			    cfg->startup_timeout_s);
			atomic_store(&fatal, 1);
			kill(getpid(), SIGTERM);
			break;
		}
		if (perm)
			log_warn("sync: %s; retrying for up to %d s", fix_for(perm),
			    cfg->startup_timeout_s);
		if (atomic_load(&state) == SYNC_LIVE) {
			atomic_store(&state, SYNC_STALE);
			backoff = 100;
		}
		atomic_fetch_add(&reconnects, 1);
		{
			char why[ERR_MSG_MAX];

			sync_last_error(why, sizeof(why));
			log_warn("sync: directory unreachable (%s); answering from the last "
			    "snapshot, retrying in %ld ms", why[0] ? why : "connection lost", backoff);
		}
		until = monotime_ms() + backoff;
		/* a start that keeps failing gives up at ldap.startup_timeout, not
		 * after the backoff that would sleep past it */
		if (perm && atomic_load(&state) == SYNC_STARTING &&
		    until > started + cfg->startup_timeout_s * 1000L)
			until = started + cfg->startup_timeout_s * 1000L;
		while (!atomic_load(&stopping) && monotime_ms() < until) {
			struct timespec ts = { 0, 20 * 1000000L };

			atomic_store(&beat, monotime_ms());
			nanosleep(&ts, NULL);
		}
		backoff = backoff * 2 > cfg->reconnect_max_ms ? cfg->reconnect_max_ms : backoff * 2;
	}
	return NULL;
}

long
sync_beat_ms(void)
{
	return atomic_load(&beat);
}

void
sync_rebuild(void)
{
	atomic_store(&rebuild, 1);
}

int
sync_fatal(void)
{
	return atomic_load(&fatal);
}

int
sync_start(const struct cfg *c)
{
	cfg = c;
	usage_dn = dn_join("ou=usage", c->base_dn);
	if (usage_dn == NULL || mirror_init(c) != 0 || pending_init(c) != 0)
		return -1;
	atomic_store(&stopping, 0);
	atomic_store(&beat, monotime_ms());
	if (pthread_create(&thread, NULL, run, NULL) != 0)
		return -1;
	return 0;
}

void
sync_stop(void)
{
	atomic_store(&stopping, 1);
	pthread_join(thread, NULL);
	pending_free();
	mirror_free();
	free(usage_dn);
	usage_dn = NULL;
}

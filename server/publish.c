/*
 * publish.c - entitlements written into the directory (publish.h). The
 * writer holds the lease cn=privd publisher under publish.groups, taken
 * and renewed by asserted modifies on one provider; it reads what the
 * directory holds once (the reconcile), then after each snapshot writes
 * what changed: a group per flag or set element, values on each person.
 * Every write is one modify, add or delete of one entry.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ldap.h>

#include "dirconf.h"
#include "dn.h"
#include "entitle.h"
#include "err.h"
#include "ldapconn.h"
#include "ldpool.h"
#include "log.h"
#include "monotime.h"
#include "publish.h"
#include "snapshot.h"
#include "sync.h"
#include "wop.h"

#define HOME_KEY	"entitlements"	/* the lease and every write on one provider */
#define LEASE_CN	"privd publisher"	/* a space: never a privilege's name */
/* bytes of member values per modify: slapd rewrites a whole entry on each
 * modify, so a group of 100,000 members written 1,000 at a time cost 100
 * rewrites of an entry megabytes long; 1 MiB a modify is 5 and stays well
 * under slapd's 4 MiB limit on an authenticated request */
#define CHUNK_BYTES	(1 << 20)
#define RECONCILE_S	600	/* the writer reads the directory again this often */

static const struct cfg *cfg;
static pthread_t thread;
static int started;
static atomic_int stopping;
static char me[128];
static char *lease_dn;

/* the writer's view; only the publisher thread touches these */
static struct ent_state have;
static int have_ok;
static time_t have_read;
static uint64_t done_gen;
static int holder;
static time_t lease_until;

static atomic_ullong m_writes, m_values, m_reconciles, m_takeovers, m_failures;
static atomic_int m_holder;
static atomic_ullong m_values_held;
static atomic_llong m_last_ms;


/* the container, made when absent (the first publish on a directory) */
static int
ensure_container(LDAP *ld)
{
	int rc = dirconf_add_ou(ld, cfg->publish.groups_dn, 0);

	return rc == LDAP_ALREADY_EXISTS ? LDAP_SUCCESS : rc;
}

/*
 * Takes the lease when it is free or lapsed, or renews ours: 1 holding it,
 * 0 another privd does, -1 the directory did not answer.
 */
static int
lease(LDAP *ld, time_t now)
{
	char *attrs[] = { "privLeaseHolder", NULL }, cur[256] = "", want[200], who[160];
	char *oc[] = { "privLease", NULL }, *cnv[] = { LEASE_CN, NULL }, *hv[] = { want, NULL };
	LDAPMod moc = { LDAP_MOD_ADD, "objectClass", { oc } };
	LDAPMod mcn = { LDAP_MOD_ADD, "cn", { cnv } };
	LDAPMod mh = { LDAP_MOD_ADD, "privLeaseHolder", { hv } };
	LDAPMod *add[] = { &moc, &mcn, &mh, NULL };
	LDAPMessage *res = NULL, *m;
	long long until = 0;
	struct err e;
	int rc, found;

	memset(&e, 0, sizeof(e));
	snprintf(want, sizeof(want), "%s %lld", me, (long long)now + cfg->publish.lease_s);
	found = ldapc_search(ld, cfg, lease_dn, LDAP_SCOPE_BASE, "(objectClass=privLease)", attrs,
	    0, &res, &e);
	if (found < 0)
		return -1;
	if (found == 0 && (m = ldap_first_entry(ld, res)) != NULL &&
	    ldapc_get_buf(ld, m, "privLeaseHolder", cur, sizeof(cur)) == 0 &&
	    sscanf(cur, "%159s %lld", who, &until) == 2) {
		ldap_msgfree(res);
		if (strcmp(who, me) != 0 && until >= (long long)now)
			return 0;
		/* ours, or lapsed: swap it, if it is still what we read */
		rc = wop_swap_value(ld, lease_dn, "privLeaseHolder", cur, want);
		if (rc == LDAP_SUCCESS)
			return 1;
		if (rc == LDAP_NO_SUCH_ATTRIBUTE)
			return 0;
		log_warn("publish: cannot renew the lease %s: %s", lease_dn, ldap_err2string(rc));
		return -1;
	}
	if (res != NULL)
		ldap_msgfree(res);
	if (found == 0) {
		/* a lease entry without a holder we can read: take it over */
		char *rv[] = { want, NULL };
		LDAPMod mr = { LDAP_MOD_REPLACE, "privLeaseHolder", { rv } };
		LDAPMod *mods[] = { &mr, NULL };

		return ldap_modify_ext_s(ld, lease_dn, mods, NULL, NULL) == LDAP_SUCCESS ? 1 : -1;
	}
	rc = ldap_add_ext_s(ld, lease_dn, add, NULL, NULL);
	if (rc == LDAP_NO_SUCH_OBJECT && ensure_container(ld) == LDAP_SUCCESS)
		rc = ldap_add_ext_s(ld, lease_dn, add, NULL, NULL);
	if (rc == LDAP_SUCCESS)
		return 1;
	if (rc == LDAP_ALREADY_EXISTS)
		return 0;
	log_warn("publish: cannot make the lease %s: %s", lease_dn, ldap_err2string(rc));
	return -1;
}

/* gives the lease back (stopping): another privd need not wait for it to lapse */
static void
release(LDAP *ld)
{
	char held[200], none[200];

	snprintf(held, sizeof(held), "%s %lld", me, (long long)lease_until);
	snprintf(none, sizeof(none), "%s 0", me);
	wop_swap_value(ld, lease_dn, "privLeaseHolder", held, none);
}

/* --- reading what the directory holds --- */

static int
read_group(LDAP *ld, LDAPMessage *m, void *arg)
{
	struct ent_state *st = arg;
	char cn[512];
	struct berval **v;
	size_t i;
	int rc = 0;

	if (ldapc_get_buf(ld, m, "cn", cn, sizeof(cn)) != 0)
		return 0;
	v = ldap_get_values_len(ld, m, "member");
	for (i = 0; v && v[i] && rc == 0; i++) {
		char *raw = strndup(v[i]->bv_val, v[i]->bv_len), *norm = NULL;

		if (raw == NULL)
			rc = -1;
		else if (ldap_dn_normalize(raw, LDAP_DN_FORMAT_LDAP, &norm,
		    LDAP_DN_FORMAT_LDAPV3) == LDAP_SUCCESS) {
			rc = ent_add_member(st, cn, norm);
			ldap_memfree(norm);
		} else
			rc = ent_add_member(st, cn, raw);
		free(raw);
	}
	if (v)
		ldap_value_free_len(v);
	return rc;
}

static int
read_person(LDAP *ld, LDAPMessage *m, void *arg)
{
	struct ent_state *st = arg;
	char uid[256], *dn;
	struct berval **v;
	size_t i, np = strlen(cfg->publish.prefix ? cfg->publish.prefix : "");
	int rc = 0;

	if (np == 0 || ldapc_get_buf(ld, m, cfg->uid_attr, uid, sizeof(uid)) != 0)
		return 0;
	if ((dn = ldap_get_dn(ld, m)) == NULL)
		return -1;
	v = ldap_get_values_len(ld, m, cfg->publish.attribute);
	for (i = 0; v && v[i] && rc == 0; i++) {
		char *s;

		/* only privd's values: others (Grouper, the IdP's) are not ours */
		if (v[i]->bv_len < np || memcmp(v[i]->bv_val, cfg->publish.prefix, np) != 0)
			continue;
		if ((s = strndup(v[i]->bv_val, v[i]->bv_len)) == NULL)
			rc = -1;
		else
			rc = ent_add_value(st, uid, dn, s);
		free(s);
	}
	if (v)
		ldap_value_free_len(v);
	ldap_memfree(dn);
	return rc;
}

/* What the directory holds now, into st (initialised here). */
static int
read_directory(LDAP *ld, struct ent_state *st, struct err *e)
{
	char *gattrs[] = { "cn", "member", NULL };
	char *pattrs[] = { cfg->uid_attr, cfg->publish.attribute, NULL };
	char filter[128];

	ent_init(st);
	if (ldapc_paged(ld, cfg, cfg->publish.groups_dn, LDAP_SCOPE_ONELEVEL,
	    "(objectClass=groupOfNames)", gattrs, 500, read_group, st, e) < 0)
		goto fail;
	snprintf(filter, sizeof(filter), "(%s=*)", cfg->publish.attribute);
	if (cfg->publish.prefix && ldapc_paged(ld, cfg, cfg->people_dn, LDAP_SCOPE_SUBTREE,
	    filter, pattrs, 500, read_person, st, e) < 0)
		goto fail;
	ent_sort(st);
	return 0;
fail:
	ent_free(st);
	return -1;
}

/* --- writing the differences --- */

/* a person's modify in flight: people are many, so up to WINDOW at once */
#define WINDOW 32

struct inflight {
	int msgid;
	const char *dn;		/* borrowed from the states, alive for the pass */
	char **add;		/* NULL-terminated copies of the change's arrays */
	char **del;
	int with_class;
};

struct writer {
	LDAP *ld;
	int checking;		/* --check-entitlements: say, do not write */
	FILE *out;
	size_t changes;
	struct inflight win[WINDOW];
	int n;			/* of win in flight */
	int failed;
	int class_first;	/* send the class with a first value */
};

/* values of v from *from (n in all) up to CHUNK_BYTES of them (at least
 * one), NULL-terminated in buf, which holds n + 1; *from moves past them */
static char **
slice(char **v, size_t n, size_t *from, char **buf)
{
	size_t k = 0, bytes = 0;

	for (; *from < n && (k == 0 || bytes + strlen(v[*from]) <= CHUNK_BYTES); (*from)++) {
		bytes += strlen(v[*from]) + 8;	/* and BER's framing */
		buf[k++] = v[*from];
	}
	buf[k] = NULL;
	return k ? buf : NULL;
}

static int
write_group(struct writer *w, const struct ent_change *ch)
{
	char *dn = dn_child("cn", ch->group, cfg->publish.groups_dn);
	char **abuf = calloc(ch->nadd + 1, sizeof(char *)), **dbuf = calloc(ch->ndel + 1, sizeof(char *));
	char *oc[] = { "groupOfNames", NULL }, *cnv[] = { (char *)ch->group, NULL };
	size_t ai = 0, di = 0;
	int rc = LDAP_NO_MEMORY;

	if (dn == NULL || abuf == NULL || dbuf == NULL)
		goto done;
	if (ch->remove) {
		rc = ldap_delete_ext_s(w->ld, dn, NULL, NULL);
		if (rc == LDAP_NO_SUCH_OBJECT)
			rc = LDAP_SUCCESS;
		atomic_fetch_add(&m_writes, 1);
		goto done;
	}
	if (ch->create) {
		LDAPMod moc = { LDAP_MOD_ADD, "objectClass", { oc } };
		LDAPMod mcn = { LDAP_MOD_ADD, "cn", { cnv } };
		LDAPMod mm = { LDAP_MOD_ADD, "member", { slice(ch->add, ch->nadd, &ai, abuf) } };
		LDAPMod *mods[] = { &moc, &mcn, &mm, NULL };

		rc = ldap_add_ext_s(w->ld, dn, mods, NULL, NULL);
		if (rc == LDAP_NO_SUCH_OBJECT && ensure_container(w->ld) == LDAP_SUCCESS)
			rc = ldap_add_ext_s(w->ld, dn, mods, NULL, NULL);
		atomic_fetch_add(&m_writes, 1);
		if (rc != LDAP_SUCCESS)
			goto done;
	}
	/* adds before deletes: a group is never left empty on the way */
	while (ai < ch->nadd || di < ch->ndel) {
		LDAPMod ma = { LDAP_MOD_ADD, "member", { slice(ch->add, ch->nadd, &ai, abuf) } };
		LDAPMod md = { LDAP_MOD_DELETE, "member", { slice(ch->del, ch->ndel, &di, dbuf) } };
		LDAPMod *mods[3] = { NULL, NULL, NULL };
		int k = 0;

		if (ma.mod_values)
			mods[k++] = &ma;
		if (md.mod_values)
			mods[k++] = &md;
		rc = ldap_modify_ext_s(w->ld, dn, mods, NULL, NULL);
		atomic_fetch_add(&m_writes, 1);
		if (rc != LDAP_SUCCESS)
			goto done;
	}
	rc = LDAP_SUCCESS;
done:
	if (rc != LDAP_SUCCESS)
		log_warn("publish: group %s: %s", dn ? dn : ch->group, ldap_err2string(rc));
	free(abuf);
	free(dbuf);
	free(dn);
	return rc;
}

static int
send_person(struct writer *w, struct inflight *f)
{
	char *oc[] = { cfg->publish.object_class, NULL };
	LDAPMod moc = { LDAP_MOD_ADD, "objectClass", { oc } };
	LDAPMod ma = { LDAP_MOD_ADD, cfg->publish.attribute, { f->add } };
	LDAPMod md = { LDAP_MOD_DELETE, cfg->publish.attribute, { f->del } };
	LDAPMod *mods[4];
	int k = 0;

	if (f->with_class)
		mods[k++] = &moc;
	if (f->add[0])
		mods[k++] = &ma;
	if (f->del[0])
		mods[k++] = &md;
	mods[k] = NULL;
	atomic_fetch_add(&m_writes, 1);
	return ldap_modify_ext(w->ld, f->dn, mods, NULL, NULL, &f->msgid);
}

static void
done_person(struct writer *w, int k)
{
	free(w->win[k].add);
	free(w->win[k].del);
	w->win[k] = w->win[--w->n];
}

/*
 * Takes one answer of the modifies in flight. A person's first value goes
 * without the class while the entry's own classes allow the attribute
 * (privAccount allows privEntitlement; many people already are eduPerson):
 * adding a class costs slapd an index update, and the first publish of
 * 100,000 people ran at two thirds of the speed with it. When the guess was
 * wrong the modify is sent again the other way, and the next person is
 * sent the way that worked (a refused modify writes nothing). -1 when the
 * directory did not answer.
 */
static int
reap(struct writer *w)
{
	struct timeval tv = { cfg->ldap_timeout_s, 0 };
	LDAPMessage *res = NULL;
	int rc, err = LDAP_OTHER, k;

	rc = ldap_result(w->ld, LDAP_RES_ANY, LDAP_MSG_ALL, &tv, &res);
	if (rc <= 0) {
		ldap_msgfree(res);
		log_warn("publish: the directory did not answer %d modifies", w->n);
		while (w->n > 0)
			done_person(w, 0);
		w->failed = 1;
		return -1;
	}
	for (k = 0; k < w->n && w->win[k].msgid != ldap_msgid(res); k++)
		;
	ldap_parse_result(w->ld, res, &err, NULL, NULL, NULL, NULL, 1);
	if (k == w->n)
		return 0;
	if ((w->win[k].with_class && err == LDAP_TYPE_OR_VALUE_EXISTS) ||
	    (!w->win[k].with_class && err == LDAP_OBJECT_CLASS_VIOLATION && w->win[k].add[0])) {
		w->win[k].with_class = !w->win[k].with_class;
		w->class_first = w->win[k].with_class;
		if (send_person(w, &w->win[k]) == LDAP_SUCCESS)
			return 0;
		err = LDAP_SERVER_DOWN;
	}
	if (err == LDAP_NO_SUCH_OBJECT && w->win[k].add[0] == NULL)
		err = LDAP_SUCCESS;	/* the person is gone, and their values with them */
	if (err != LDAP_SUCCESS) {
		log_warn("publish: %s %s: %s%s", w->win[k].dn, cfg->publish.attribute,
		    ldap_err2string(err), err == LDAP_UNDEFINED_TYPE ? " (load privd's schema, or "
		    "the eduPerson schema for eduPersonEntitlement)" : "");
		w->failed = 1;
	}
	done_person(w, k);
	return 0;
}

static char **
copy_ptrs(char **v, size_t n)
{
	char **c = calloc(n + 1, sizeof(*c));

	if (c != NULL && n > 0)
		memcpy(c, v, n * sizeof(*c));
	return c;
}

/* Sends a person's change; its answer is taken later (reap). */
static int
write_person(struct writer *w, const struct ent_change *ch)
{
	struct inflight *f;

	while (w->n == WINDOW)
		if (reap(w) != 0)
			return LDAP_SERVER_DOWN;
	if (w->failed)
		return LDAP_OTHER;
	f = &w->win[w->n];
	memset(f, 0, sizeof(*f));
	f->dn = ch->dn;
	f->with_class = ch->fresh && ch->nadd > 0 && w->class_first;
	if ((f->add = copy_ptrs(ch->add, ch->nadd)) == NULL ||
	    (f->del = copy_ptrs(ch->del, ch->ndel)) == NULL) {
		free(f->add);
		return LDAP_NO_MEMORY;
	}
	w->n++;
	if (send_person(w, f) != LDAP_SUCCESS) {
		done_person(w, w->n - 1);
		w->failed = 1;
		return LDAP_SERVER_DOWN;
	}
	return LDAP_SUCCESS;
}

/* Waits for every modify in flight: 0 when all landed. */
static int
drain(struct writer *w)
{
	while (w->n > 0)
		if (reap(w) != 0)
			break;
	return w->failed ? -1 : 0;
}

static void
say_values(FILE *out, char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < 5; i++)
		fprintf(out, "%s%s", i ? ", " : " ", v[i]);
	if (n > 5)
		fprintf(out, " and %zu more", n - 5);
}

static int
apply(const struct ent_change *ch, void *arg)
{
	struct writer *w = arg;
	int rc;

	w->changes++;
	if (w->checking) {
		FILE *o = w->out;

		if (ch->group)
			fprintf(o, "group cn=%s,%s:", ch->group, cfg->publish.groups_dn);
		else
			fprintf(o, "%s %s:", ch->dn, cfg->publish.attribute);
		if (ch->nadd) {
			fprintf(o, " missing %zu:", ch->nadd);
			say_values(o, ch->add, ch->nadd);
		}
		if (ch->ndel) {
			fprintf(o, "%s not entitled %zu:", ch->nadd ? ";" : "", ch->ndel);
			say_values(o, ch->del, ch->ndel);
		}
		fputc('\n', o);
		return 0;
	}
	/* a lease about to lapse is renewed before another write */
	if (time(NULL) + 1 >= lease_until) {
		time_t now = time(NULL);

		if (lease(w->ld, now) != 1) {
			holder = 0;
			return -1;
		}
		lease_until = now + cfg->publish.lease_s;
	}
	rc = ch->group ? write_group(w, ch) : write_person(w, ch);
	if (rc != LDAP_SUCCESS)
		return -1;
	atomic_fetch_add(&m_values, ch->nadd + ch->ndel);
	return 0;
}

/* --- the thread --- */

static void
drop_view(void)
{
	if (have_ok)
		ent_free(&have);
	have_ok = 0;
	done_gen = 0;
}

/* One pass: the lease, the reconcile when needed, the new snapshot's changes. */
static void
step(LDAP *ld)
{
	time_t now = time(NULL);
	const struct snap *s;
	struct ent_state want;
	struct writer w = { .ld = ld };
	struct err e;
	uint64_t gen;
	long long t0;
	int ticket, r;

	if (!holder || now + cfg->publish.lease_s / 2 >= lease_until) {
		r = lease(ld, now);
		if (r == 1) {
			if (!holder) {
				log_info("publish: %s writes the entitlements (lease %s)", me, lease_dn);
				atomic_fetch_add(&m_takeovers, 1);
			}
			holder = 1;
			lease_until = now + cfg->publish.lease_s;
		} else if (r == 0 || now >= lease_until) {
			if (holder)
				log_info("publish: another privd holds the lease now");
			holder = 0;
		}
	}
	atomic_store(&m_holder, holder);
	if (!holder) {
		drop_view();
		return;
	}
	memset(&e, 0, sizeof(e));
	/* what someone else changed by hand is found and put right */
	if (have_ok && now - have_read >= RECONCILE_S)
		drop_view();
	if (!have_ok) {
		if (read_directory(ld, &have, &e) != 0) {
			log_warn("publish: cannot read the entitlements the directory holds: %s", e.msg);
			return;
		}
		have_ok = 1;
		have_read = now;
		done_gen = 0;
		atomic_fetch_add(&m_reconciles, 1);
	}
	if ((s = snap_enter(&ticket)) == NULL) {
		snap_leave(ticket);
		return;
	}
	gen = s->gen;
	if (gen == done_gen) {
		snap_leave(ticket);
		return;
	}
	t0 = monotime_ms();
	r = ent_from_snap(cfg, s, &want);
	/* never write while holding the snapshot: its successor waits for readers */
	snap_leave(ticket);
	if (r != 0)
		return;
	if (ent_diff(&have, &want, apply, &w) != 0 || drain(&w) != 0) {
		drain(&w);
		/* the directory is not what we thought (or went away): read it again */
		atomic_fetch_add(&m_failures, 1);
		ent_free(&want);
		drop_view();
		return;
	}
	ent_free(&have);
	have = want;
	done_gen = gen;
	atomic_store(&m_values_held, have.values);
	atomic_store(&m_last_ms, monotime_ms() - t0);
	if (w.changes)
		log_debug("publish: snapshot %llu: %zu entries changed in %lld ms",
		    (unsigned long long)gen, w.changes, monotime_ms() - t0);
}

/* whether the thread has anything to ask the directory now */
static int
due(time_t now)
{
	int ticket, changed;
	const struct snap *s;

	if (!holder || now + cfg->publish.lease_s / 2 >= lease_until || !have_ok ||
	    now - have_read >= RECONCILE_S)
		return 1;
	s = snap_enter(&ticket);
	changed = s != NULL && s->gen != done_gen;
	snap_leave(ticket);
	return changed;
}

static void *
run(void *arg)
{
	time_t last_try = 0;

	(void)arg;
	while (!atomic_load(&stopping)) {
		time_t now = time(NULL);
		LDAP *ld;
		struct err e;

		/* the writer looks for a new snapshot every 100 ms; the others
		 * for a lapsed lease every second */
		if ((holder || now != last_try) && due(now)) {
			last_try = now;
			memset(&e, 0, sizeof(e));
			if (ldpool_get_home(HOME_KEY, &ld, &e) == 0) {
				step(ld);
				ldpool_put(ld, 0);
			} else if (holder && now >= lease_until) {
				holder = 0;
				drop_view();
			}
		}
		usleep(100000);
	}
	if (holder) {
		struct err e;
		LDAP *ld;

		memset(&e, 0, sizeof(e));
		if (ldpool_get_home(HOME_KEY, &ld, &e) == 0) {
			release(ld);
			ldpool_put(ld, 0);
		}
		holder = 0;
	}
	return NULL;
}

static int
init(const struct cfg *c)
{
	char host[64] = "host";

	cfg = c;
	gethostname(host, sizeof(host) - 1);
	host[strcspn(host, " \t()*\\")] = '\0';
	snprintf(me, sizeof(me), "%s:%ld:%04x", host, (long)getpid(),
	    (unsigned)(monotime_ms() & 0xffff));
	lease_dn = dn_child("cn", LEASE_CN, c->publish.groups_dn);
	return lease_dn ? 0 : -1;
}

int
publish_start(const struct cfg *c)
{
	if (!cfg_publishes(c))
		return 0;
	if (init(c) != 0)
		return -1;
	atomic_store(&stopping, 0);
	if (pthread_create(&thread, NULL, run, NULL) != 0)
		return -1;
	started = 1;
	return 0;
}

void
publish_stop(void)
{
	if (!started)
		return;
	atomic_store(&stopping, 1);
	pthread_join(thread, NULL);
	started = 0;
	drop_view();
	free(lease_dn);
	lease_dn = NULL;
}

void
publish_metrics(char *out, size_t n)
{
	size_t len = strlen(out);

	if (!started || len >= n)
		return;
	snprintf(out + len, n - len,
	    "# HELP privd_entitlement_writer 1 when this privd holds the lease and writes\n"
	    "# TYPE privd_entitlement_writer gauge\nprivd_entitlement_writer %d\n"
	    "# TYPE privd_entitlement_writes_total counter\nprivd_entitlement_writes_total %llu\n"
	    "# HELP privd_entitlement_values_written_total members and URI values added or removed\n"
	    "# TYPE privd_entitlement_values_written_total counter\n"
	    "privd_entitlement_values_written_total %llu\n"
	    "# TYPE privd_entitlement_reconciles_total counter\n"
	    "privd_entitlement_reconciles_total %llu\n"
	    "# TYPE privd_entitlement_takeovers_total counter\n"
	    "privd_entitlement_takeovers_total %llu\n"
	    "# TYPE privd_entitlement_failures_total counter\n"
	    "privd_entitlement_failures_total %llu\n"
	    "# TYPE privd_entitlement_values gauge\nprivd_entitlement_values %llu\n"
	    "# TYPE privd_entitlement_last_pass_seconds gauge\n"
	    "privd_entitlement_last_pass_seconds %.3f\n",
	    atomic_load(&m_holder), atomic_load(&m_writes), atomic_load(&m_values),
	    atomic_load(&m_reconciles), atomic_load(&m_takeovers), atomic_load(&m_failures),
	    atomic_load(&m_values_held), atomic_load(&m_last_ms) / 1000.0);
}

static int
has_snap(void *arg)
{
	int t;
	const struct snap *s = snap_enter(&t);

	(void)arg;
	snap_leave(t);
	return s != NULL;
}

int
publish_check(const struct cfg *c, FILE *out)
{
	struct ent_state want, held;
	struct writer w = { .checking = 1, .out = out };
	const struct snap *s;
	struct err e;
	int ticket, rc = 3, built;

	if (init(c) != 0)
		return 3;
	memset(&e, 0, sizeof(e));
	if (ldapc_open(c, NULL, NULL, &w.ld, &e) != 0) {
		fprintf(stderr, "privd: check-entitlements: %s\n", e.msg);
		goto done;
	}
	if (ldpool_init(c, 2) != 0 || sync_start(c) != 0)
		goto done;
	if (sync_wait(has_snap, NULL, c->startup_timeout_s * 1000) != 0) {
		fprintf(stderr, "privd: check-entitlements: no model from %s within %d s\n",
		    c->ldap_uri, c->startup_timeout_s);
		sync_stop();
		goto done;
	}
	s = snap_enter(&ticket);
	built = ent_from_snap(c, s, &want) == 0;
	snap_leave(ticket);
	sync_stop();
	snap_shutdown();
	if (!built)
		goto done;
	if (read_directory(w.ld, &held, &e) != 0) {
		fprintf(stderr, "privd: check-entitlements: %s\n", e.msg);
		ent_free(&want);
		goto done;
	}
	ent_diff(&held, &want, apply, &w);
	fprintf(out, "%s: %zu values wanted, %zu held, %zu entries differ%s\n",
	    w.changes ? "FAILED" : "ok", want.values, held.values, w.changes,
	    cfg_publishes(c) ? "" : " (no privilege says publish:)");
	rc = w.changes ? 1 : 0;
	ent_free(&want);
	ent_free(&held);
done:
	if (w.ld)
		ldapc_close(w.ld);
	ldpool_free();
	free(lease_dn);
	lease_dn = NULL;
	return rc;
}

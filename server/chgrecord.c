/*
 * chgrecord.c - a change's record (chgrecord.h): written before the
 * change, read to finish or undo it, closed after, purged after
 * RECORD_DAYS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#include <lber.h>
#include <ldap.h>
#include <nettle/sha2.h>

#include "chgrecord.h"
#include "chgwrite.h"
#include "dn.h"
#include "ldapconn.h"
#include "log.h"
#include "strv.h"

#define CHUNK		500	/* states per record part */

void
chgrec_digest(const struct chg_req *rq, char out[65])
{
	struct sha256_ctx ctx;
	uint8_t d[SHA256_DIGEST_SIZE];
	size_t i;

	sha256_init(&ctx);
	sha256_update(&ctx, strlen(rq->what) + 1, (const uint8_t *)rq->what);
	sha256_update(&ctx, rq->len, (const uint8_t *)(rq->body ? rq->body : ""));
	sha256_digest(&ctx, sizeof(d), d);
	for (i = 0; i < sizeof(d); i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

static char *
chgrec_base(const struct cfg *c)
{
	return dn_join("ou=imports", c->base_dn);
}

char *
chgrec_dn(const struct cfg *c, const char *id)
{
	char *base = chgrec_base(c), *dn = base ? dn_child("cn", id, base) : NULL;

	free(base);
	return dn;
}

static const char *const names[] = {
	[CHGREC_NONE] = "", [CHGREC_PLANNING] = "planning", [CHGREC_OPEN] = "open",
	[CHGREC_CLOSED] = "closed", [CHGREC_ABORTING] = "aborting", [CHGREC_ABORTED] = "aborted",
};

const char *
chgrec_state_name(enum chgrec_state st)
{
	return names[st];
}

enum chgrec_state
chgrec_state_parse(const char *s)
{
	size_t i;

	for (i = 1; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcasecmp(s, names[i]) == 0)
			return (enum chgrec_state)i;
	return CHGREC_NONE;
}

static void
record_of(LDAP *ld, const struct cfg *c, LDAPMessage *m, struct chg_record *r)
{
	long long t = 0;

	(void)c;
	memset(r, 0, sizeof(*r));
	ldapc_get_buf(ld, m, "cn", r->id, sizeof(r->id));
	ldapc_get_buf(ld, m, "privImportState", r->state, sizeof(r->state));
	r->st = chgrec_state_parse(r->state);
	ldapc_get_buf(ld, m, "privImportWhat", r->what, sizeof(r->what));
	ldapc_get_buf(ld, m, "privImportActor", r->actor, sizeof(r->actor));
	ldapc_get_buf(ld, m, "privImportDigest", r->digest, sizeof(r->digest));
	ldapc_get_ll(ld, m, "privImportTime", &t);
	r->started = (long)t;
}

static int
newest_first(const void *a, const void *b)
{
	const struct chg_record *x = a, *y = b;

	if (x->started != y->started)
		return x->started > y->started ? -1 : 1;
	return strcmp(y->id, x->id);
}

/* Records matching filter; 0 with *out (maybe empty). */
int
chgrec_find(LDAP *ld, const struct cfg *c, const char *filter, struct chg_record **out,
    size_t *n, struct err *e)
{
	char *attrs[] = { "cn", "privImportState", "privImportWhat", "privImportActor",
	    "privImportDigest", "privImportTime", NULL };
	char *base = chgrec_base(c);
	LDAPMessage *res = NULL, *m;
	int rc;

	*out = NULL;
	*n = 0;
	if (base == NULL)
		return err_oom(e);
	rc = ldapc_search(ld, c, base, LDAP_SCOPE_ONELEVEL, filter, attrs, 0, &res, e);
	free(base);
	if (rc == 1)
		return 0;
	if (rc != 0)
		return -1;
	if ((*out = calloc(ldap_count_entries(ld, res) + 1, sizeof(**out))) == NULL) {
		ldap_msgfree(res);
		return err_oom(e);
	}
	for (m = ldap_first_entry(ld, res); m; m = ldap_next_entry(ld, m))
		record_of(ld, c, m, &(*out)[(*n)++]);
	ldap_msgfree(res);
	qsort(*out, *n, sizeof(**out), newest_first);
	return 0;
}

int
chgrec_check(LDAP *ld, const struct cfg *c, const char *id, int state, struct err *e)
{
	char *attrs[] = { "privImportState", NULL }, got[16] = "";
	char *base = chgrec_base(c), *rdn = base ? dn_child("cn", id, base) : NULL;
	LDAPMessage *res = NULL, *m;

	if (rdn && ldapc_search(ld, c, rdn, LDAP_SCOPE_BASE, "(objectClass=privImport)", attrs, 0,
	    &res, NULL) == 0 && (m = ldap_first_entry(ld, res)) != NULL)
		ldapc_get_buf(ld, m, "privImportState", got, sizeof(got));
	ldap_msgfree(res);
	free(rdn);
	free(base);
	/* unreadable: go on; the write itself will say what is wrong */
	if (got[0] == '\0' || chgrec_state_parse(got) == (enum chgrec_state)state)
		return 0;
	err_set(e, ERR_CONFLICT, 0, "import", "import %s is no longer %s (aborted, or "
	    "finished by another privd): stopped", id, names[state]);
	return err_why(e, ERR_WHY_IMPORT);
}

int
chgrec_list(LDAP *ld, const struct cfg *c, struct chg_record **out, size_t *n,
    struct err *e)
{
	return chgrec_find(ld, c, "(&(objectClass=privImport)(privImportState=*))", out, n, e);
}

const char chgrec_in_progress[] =
    "(&(objectClass=privImport)(|(privImportState=planning)(privImportState=open)"
    "(privImportState=aborting)))";

static int
add_entry(LDAP *ld, const struct cfg *c, const char *dn, LDAPMod **mods, struct err *e)
{
	struct timeval tv = { c->ldap_bulk_timeout_s, 0 };
	LDAPMessage *res = NULL;
	int rc, msgid, err = LDAP_OTHER;

	if ((rc = ldap_add_ext(ld, dn, mods, NULL, NULL, &msgid)) != LDAP_SUCCESS)
		return ldapc_fail(e, rc, dn);
	if ((rc = ldap_result(ld, msgid, LDAP_MSG_ALL, &tv, &res)) <= 0) {
		ldap_msgfree(res);
		return chgw_unknown(e, rc == 0 ? LDAP_TIMEOUT : LDAP_SERVER_DOWN, 1, dn, "");
	}
	ldap_parse_result(ld, res, &err, NULL, NULL, NULL, NULL, 1);
	if (err != LDAP_SUCCESS && err != LDAP_ALREADY_EXISTS)
		return ldapc_fail(e, err, dn);
	return err == LDAP_ALREADY_EXISTS ? 1 : 0;
}

static int
ensure_container(LDAP *ld, const struct cfg *c, const char *dn, struct err *e)
{
	char *oc[] = { "organizationalUnit", NULL }, *ou[] = { "imports", NULL };
	LDAPMod m1 = { LDAP_MOD_ADD, "objectClass", { oc } }, m2 = { LDAP_MOD_ADD, "ou", { ou } };
	LDAPMod *mods[] = { &m1, &m2, NULL };

	return add_entry(ld, c, dn, mods, e) < 0 ? -1 : 0;
}

/* The record's parts as one plan of adds: states CHUNK to an entry. */
static int
plan_parts(struct chgw_plan *p, const char *rdn_dn, const struct chg_list *l,
    const char *attr, char prefix)
{
	size_t i = 0, part = 0;

	while (i < l->n) {
		char cn[16], **vals;
		size_t n = l->n - i < CHUNK ? l->n - i : CHUNK, j;
		struct chgw_op *op;

		snprintf(cn, sizeof(cn), "%c%05zu", prefix, ++part);
		op = chgw_op_new(p, 0, CHGW_ADD, dn_child("cn", cn, rdn_dn));
		if (op == NULL || (vals = strv_new(n)) == NULL)
			return -1;
		for (j = 0; j < n; j++)
			if ((vals[j] = chg_encode(&l->v[i + j])) == NULL) {
				strv_free(vals);
				return -1;
			}
		if (chgw_op_mod(op, LDAP_MOD_ADD, "objectClass", strv_of("privImport", NULL)) != 0 ||
		    chgw_op_mod(op, LDAP_MOD_ADD, "cn", strv_of(cn, NULL)) != 0 ||
		    chgw_op_mod(op, LDAP_MOD_ADD, attr, vals) != 0)
			return -1;
		i += n;
	}
	return 0;
}

int
chgrec_set_state(LDAP *ld, const char *dn, enum chgrec_state st, const char *csn,
    struct err *e)
{
	char *sv[] = { (char *)names[st], NULL }, *cv[] = { (char *)csn, NULL };
	char ended[24], *ev[] = { ended, NULL };
	LDAPMod m1 = { LDAP_MOD_REPLACE, "privImportState", { sv } };
	LDAPMod m2 = { LDAP_MOD_REPLACE, "privImportCSN", { cv } };
	LDAPMod m3 = { LDAP_MOD_REPLACE, "privImportEnded", { ev } };
	LDAPMod *mods[] = { &m1, NULL, NULL, NULL };
	int rc, n = 1;

	snprintf(ended, sizeof(ended), "%lld", (long long)time(NULL));
	if (csn && *csn)
		mods[n++] = &m2;
	if (st == CHGREC_CLOSED || st == CHGREC_ABORTED)
		mods[n++] = &m3;
	rc = ldap_modify_ext_s(ld, dn, mods, NULL, NULL);
	if (rc == LDAP_TIMEOUT || rc == LDAP_SERVER_DOWN)
		return chgw_unknown(e, rc, 1, dn, "");
	return rc == LDAP_SUCCESS ? 0 : ldapc_fail(e, rc, dn);
}

/* Deletes the record's parts (what it needed only while open). */
static void
drop_parts(LDAP *ld, const struct cfg *c, const char *rdn)
{
	char *attrs[] = { "1.1", NULL };
	LDAPMessage *res = NULL, *m;

	if (ldapc_search(ld, c, rdn, LDAP_SCOPE_ONELEVEL, "(objectClass=*)", attrs, 0, &res,
	    NULL) != 0)
		return;
	for (m = ldap_first_entry(ld, res); m; m = ldap_next_entry(ld, m)) {
		char *dn = ldap_get_dn(ld, m);

		if (dn)
			ldap_delete_ext_s(ld, dn, NULL, NULL);
		ldap_memfree(dn);
	}
	ldap_msgfree(res);
}

void
chgrec_drop(LDAP *ld, const struct cfg *c, const char *dn)
{
	drop_parts(ld, c, dn);
	ldap_delete_ext_s(ld, dn, NULL, NULL);
}

/* The states in a record's parts (attr privBefore or privAfter). */
int
chgrec_read_parts(LDAP *ld, const struct cfg *c, const char *rdn, char *attr,
    struct chg_list *out, struct err *e)
{
	char *attrs[] = { attr, NULL };
	LDAPMessage *res = NULL, *m;
	int rc;

	if ((rc = ldapc_search(ld, c, rdn, LDAP_SCOPE_ONELEVEL, "(objectClass=privImport)",
	    attrs, 0, &res, e)) != 0)
		return rc == 1 ? err_set(e, ERR_NOT_FOUND, 0, NULL, "no record %s", rdn) : -1;
	for (m = ldap_first_entry(ld, res); m; m = ldap_next_entry(ld, m)) {
		struct berval **v = ldap_get_values_len(ld, m, attr);
		size_t i;

		for (i = 0; v && v[i]; i++) {
			struct chg_obj o;
			struct chg_obj *no;

			if (chg_decode(v[i]->bv_val, v[i]->bv_len, &o) != 0) {
				log_warn("change: %s: a malformed state in %s; ignored", rdn, attr);
				continue;
			}
			if (out->n == out->cap) {
				size_t nc = out->cap ? out->cap * 2 : 64;

				if ((no = realloc(out->v, nc * sizeof(*no))) == NULL) {
					chg_obj_free(&o);
					ldap_value_free_len(v);
					ldap_msgfree(res);
					return err_oom(e);
				}
				out->v = no;
				out->cap = nc;
			}
			out->v[out->n++] = o;
		}
		ldap_value_free_len(v);
	}
	ldap_msgfree(res);
	return 0;
}

/* Writes the record (planning, its parts, then open); fills res->id. */
int
chgrec_begin(LDAP *ld, const struct cfg *c, const struct chg_req *rq, const char *digest,
    const struct chg_list *before, const struct chg_list *after,
    struct chg_result *res, struct err *e)
{
	char *base = chgrec_base(c), *rdn = NULL, tbuf[24], stamp[20];
	unsigned char rnd[4] = { 0, 0, 0, 0 };
	struct chgw_plan p = { NULL, 0, 0 };
	struct chg_record *others = NULL;
	size_t nothers = 0, writes = 0, i;
	time_t now = time(NULL);
	struct tm tm;
	struct chgw_op *op;
	int rc = -1;

	if (base == NULL) {
		err_oom(e);
		goto done;
	}
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		rnd[0] ^= (unsigned char)now;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm);
	snprintf(res->id, sizeof(res->id), "imp-%s-%02x%02x%02x%02x", stamp, rnd[0], rnd[1],
	    rnd[2], rnd[3]);
	snprintf(tbuf, sizeof(tbuf), "%lld", (long long)now);
	if (ensure_container(ld, c, base, e) != 0 || (rdn = dn_child("cn", res->id, base)) == NULL)
		goto done;
	op = chgw_op_new(&p, 0, CHGW_ADD, strdup(rdn));
	if (chgw_op_mod(op, LDAP_MOD_ADD, "objectClass", strv_of("privImport", NULL)) != 0 ||
	    chgw_op_mod(op, LDAP_MOD_ADD, "cn", strv_of(res->id, NULL)) != 0 ||
	    chgw_op_mod(op, LDAP_MOD_ADD, "privImportState", strv_of(names[CHGREC_PLANNING], NULL)) != 0 ||
	    chgw_op_mod(op, LDAP_MOD_ADD, "privImportWhat", strv_of(rq->what, NULL)) != 0 ||
	    chgw_op_mod(op, LDAP_MOD_ADD, "privImportActor", strv_of(rq->actor ? rq->actor : "-",
	    NULL)) != 0 ||
	    chgw_op_mod(op, LDAP_MOD_ADD, "privImportDigest", strv_of(digest, NULL)) != 0 ||
	    chgw_op_mod(op, LDAP_MOD_ADD, "privImportTime", strv_of(tbuf, NULL)) != 0) {
		err_oom(e);
		goto done;
	}
	if (chgw_window(ld, c, p.ops, 0, 1, 1, "", CHGREC_NONE, NULL, &writes, e) != 0)
		goto done;
	chgw_plan_free(&p);
	if (plan_parts(&p, rdn, before, "privBefore", 'b') != 0 ||
	    plan_parts(&p, rdn, after, "privAfter", 'a') != 0) {
		err_oom(e);
		goto fail;
	}
	if (chgw_window(ld, c, p.ops, 0, p.n, 8, "", CHGREC_NONE, NULL, &writes, e) != 0)
		goto fail;
	/* two changes started at once: the one that sees another gives way */
	if (chgrec_find(ld, c, chgrec_in_progress, &others, &nothers, e) != 0)
		goto fail;
	for (i = 0; i < nothers; i++)
		if (strcmp(others[i].id, res->id) != 0) {
			err_set(e, ERR_CONFLICT, 0, "import", "import %s (%s by %s) started at the same "
			    "time; try again once it has finished", others[i].id, others[i].what,
			    others[i].actor);
			err_why(e, ERR_WHY_IMPORT);
			goto fail;
		}
	{
		char *sv[] = { (char *)names[CHGREC_OPEN], NULL };
		LDAPMod m1 = { LDAP_MOD_REPLACE, "privImportState", { sv } };
		LDAPMod *mods[] = { &m1, NULL };
		int r = ldap_modify_ext_s(ld, rdn, mods, NULL, NULL);

		if (r != LDAP_SUCCESS) {
			ldapc_fail(e, r, rdn);
			goto fail;
		}
	}
	log_info("change %s: %s by %s: recorded (%zu objects)", res->id, rq->what,
	    rq->actor ? rq->actor : "-", after->n);
	rc = 0;
	goto done;
fail:
	/* nothing of the change was written yet: the record goes */
	chgrec_drop(ld, c, rdn);
	res->id[0] = '\0';
done:
	free(others);
	chgw_plan_free(&p);
	free(rdn);
	free(base);
	return rc;
}

/* Closed records are history for RECORD_DAYS, then go (a few per change). */
#define RECORD_DAYS 30

static void
purge_old(LDAP *ld, const struct cfg *c)
{
	char *attrs[] = { "1.1", NULL }, filter[160], *base = chgrec_base(c);
	LDAPMessage *res = NULL, *m;

	snprintf(filter, sizeof(filter), "(&(objectClass=privImport)(|(privImportState=closed)"
	    "(privImportState=aborted))(privImportEnded<=%lld))",
	    (long long)time(NULL) - RECORD_DAYS * 86400LL);
	if (base != NULL && ldapc_search(ld, c, base, LDAP_SCOPE_ONELEVEL, filter, attrs, 20, &res,
	    NULL) == 0)
		for (m = ldap_first_entry(ld, res); m; m = ldap_next_entry(ld, m)) {
			char *dn = ldap_get_dn(ld, m);

			if (dn != NULL)
				chgrec_drop(ld, c, dn);
			ldap_memfree(dn);
		}
	ldap_msgfree(res);
	free(base);
}

/* Closes a record: the follower shows the change once it has seen the
 * people write with people_csn. */
int
chgrec_finish(LDAP *ld, const struct cfg *c, const char *id, enum chgrec_state st,
    struct chg_result *res, struct err *e)
{
	char *base = chgrec_base(c), *rdn = base ? dn_child("cn", id, base) : NULL;
	int rc = -1;

	if (rdn == NULL) {
		err_oom(e);
		goto done;
	}
	if (chgrec_set_state(ld, rdn, st, res->csn_people, e) != 0)
		goto done;
	chgw_read_csn(ld, c, rdn, res->csn_privileges);
	drop_parts(ld, c, rdn);
	purge_old(ld, c);
	log_info("change %s: %s (%zu writes)", id, names[st], res->writes);
	rc = 0;
done:
	free(rdn);
	free(base);
	return rc;
}


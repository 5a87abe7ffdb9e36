/*
 * api_members.c - memberships over REST: add (dated or not), remove, and
 * the dated ones that end soon or have ended (list, purge).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api.h"
#include "api_edit.h"
#include "apply.h"
#include "body.h"
#include "change.h"
#include "import.h"
#include "ldapconn.h"
#include "log.h"
#include "membership.h"
#include "path.h"
#include "pool.h"
#include "snapshot.h"
#include "sync.h"
#include "tree.h"

/* An edit document for one account's memberships. */
static struct import_account *
edit_account(struct req *r, struct import_doc *doc, const char *uid, const char *cell,
    int add, enum MHD_Result *ret)
{
	char reason[PATH_MAX_LEN + 1], org[PATH_MAX_LEN + 1], name[CELL_MAX_LEN + 1];
	struct import_account *a;
	struct err e;

	memset(&e, 0, sizeof(e));
	if (uid == NULL || uid_check(uid, &e) != 0) {
		*ret = http_error(r, 400, "bad_request", "account", "account must be a uid%s%s",
		    e.msg[0] ? ": " : "", e.msg);
		return NULL;
	}
	if (cell == NULL || cell_split(cell, reason, org, &e) != 0) {
		*ret = http_error(r, 400, "bad_request", "cell", "cell must be REASON@ORGANISATION%s%s",
		    e.msg[0] ? ": " : "", e.msg);
		return NULL;
	}
	cell_join(name, reason, org);
	if ((doc->accounts = calloc(1, sizeof(*doc->accounts))) == NULL)
		goto oom;
	a = &doc->accounts[0];
	doc->naccounts = 1;
	a->merge = 1;
	if ((a->uid = strdup(uid)) == NULL)
		goto oom;
	if (add) {
		if ((a->cells = calloc(1, sizeof(char *))) == NULL || (a->cells[0] = strdup(name)) == NULL)
			goto oom;
		a->ncells = 1;
		if ((*reason && edit_add_nodes(&doc->reasons, &doc->nreasons, reason) != 0) ||
		    (*org && edit_add_nodes(&doc->orgs, &doc->norgs, org) != 0))
			goto oom;
	} else {
		if ((a->remove = calloc(1, sizeof(char *))) == NULL ||
		    (a->remove[0] = strdup(name)) == NULL)
			goto oom;
		a->nremove = 1;
	}
	return a;
oom:
	*ret = http_error(r, 500, "internal", NULL, "out of memory");
	return NULL;
}

/* The date in field k of o (absent: 0); 400 naming the field when bad. */
static int
date_field(struct req *r, json_t *o, const char *k, time_t *out, enum MHD_Result *ret)
{
	json_t *v = json_object_get(o, k);
	struct err e;

	*out = 0;
	memset(&e, 0, sizeof(e));
	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_string(v) || membership_date(r->cfg, json_string_value(v), k[0] == 'u', out,
	    &e) != 0) {
		*ret = http_error(r, 400, "bad_request", k, "%s", e.msg[0] ? e.msg :
		    "a date is 2026-09-01, 2026-09-01T08:30 or a term of the calendar");
		return -1;
	}
	return 0;
}

enum MHD_Result
api_member_add(struct req *r)
{
	static const char *const allowed[] = { "account", "cell", "from", "until", NULL };
	struct import_doc doc;
	struct import_account *a;
	enum MHD_Result ret;
	time_t from, until;
	char *enc;
	json_t *o;

	if ((o = edit_body(r, allowed, &ret)) == NULL)
		return ret;
	memset(&doc, 0, sizeof(doc));
	if (date_field(r, o, "from", &from, &ret) != 0 || date_field(r, o, "until", &until, &ret) != 0 ||
	    (a = edit_account(r, &doc, edit_field(o, "account"), edit_field(o, "cell"), 1, &ret)) == NULL) {
		import_free(&doc);
		json_decref(o);
		return ret;
	}
	json_decref(o);
	if (from != 0 && until != 0 && until <= from) {
		import_free(&doc);
		return http_error(r, 400, "bad_request", "until", "until must come after from");
	}
	/* a dated membership travels as "CELL|FROM|UNTIL" (membership.h) */
	if ((from != 0 || until != 0) && (enc = membership_encode(a->cells[0], from, until)) != NULL) {
		free(a->cells[0]);
		a->cells[0] = enc;
	}
	return edit_run(r, &doc, "add", NULL);
}

/* "14d", "36h", "90m" or seconds; -1 when it is none of them. */
static long
duration(const char *s)
{
	char *end;
	long n = strtol(s, &end, 10);

	if (end == s || n < 0 || n > 3650L * 86400)
		return -1;
	if (*end == '\0' || strcmp(end, "s") == 0)
		return n;
	if (strcmp(end, "m") == 0)
		return n * 60;
	if (strcmp(end, "h") == 0)
		return n * 3600;
	if (strcmp(end, "d") == 0)
		return n * 86400;
	return -1;
}

static int
by_until(const void *a, const void *b)
{
	json_int_t x = json_integer_value(json_object_get(*(json_t *const *)a, "until_s"));
	json_int_t y = json_integer_value(json_object_get(*(json_t *const *)b, "until_s"));

	return x < y ? -1 : x > y;
}

enum MHD_Result
api_members_expiring(struct req *r)
{
	const char *ws = http_query(r, "within");
	long within = ws ? duration(ws) : 14 * 86400;
	const struct snap *s;
	const struct snap_account *sa;
	json_t **v = NULL, *arr;
	size_t i, k, n = 0, cap = 0, pos = 0;
	time_t now;
	int t;

	if (within < 0)
		return http_error(r, 400, "bad_request", "within",
		    "within is a duration: 14d, 36h, 90m or seconds");
	if ((s = snap_enter(&t)) == NULL) {
		snap_leave(t);
		return http_error(r, 503, "not_ready", NULL, "privd has not loaded the directory yet");
	}
	now = s->now;
	while ((sa = snap_next(s, &pos)) != NULL)
		for (k = 0; k < sa->ndated; k++) {
			char cell[MEMBERSHIP_MAX], ts[24];
			time_t from, until;
			json_t **nv;

			if (membership_split(sa->dated[k], cell, sizeof(cell), &from,
			    &until) != 0 || until == 0 || until <= now || until > now + within)
				continue;
			if (n == cap) {
				if ((nv = realloc(v, (cap ? cap * 2 : 16) * sizeof(*v))) == NULL)
					continue;	/* out of memory: the list is short */
				v = nv;
				cap = cap ? cap * 2 : 16;
			}
			membership_rfc3339(until, ts);
			v[n++] = json_pack("{s:s, s:s, s:s, s:I}", "account", sa->uid,
			    "cell", cell, "until", ts, "until_s", (json_int_t)until);
		}
	snap_leave(t);
	if (n)
		qsort(v, n, sizeof(*v), by_until);
	arr = json_array();
	for (i = 0; i < n; i++) {
		json_object_del(v[i], "until_s");
		json_array_append_new(arr, v[i]);
	}
	free(v);
	return http_json(r, 200, json_pack("{s:I, s:o}", "within_s", (json_int_t)within,
	    "memberships", arr));
}

/* Removes every dated membership that has ended (dry_run=1: says which). */
enum MHD_Result
api_members_purge(struct req *r)
{
	struct import_doc doc;
	const struct snap *s;
	const struct snap_account *sa;
	size_t k, pos = 0;
	time_t now;
	int t;

	memset(&doc, 0, sizeof(doc));
	if ((s = snap_enter(&t)) == NULL) {
		snap_leave(t);
		return http_error(r, 503, "not_ready", NULL, "privd has not loaded the directory yet");
	}
	now = s->now;
	if ((doc.accounts = calloc(s->naccounts + 1, sizeof(*doc.accounts))) == NULL)
		goto oom;
	while ((sa = snap_next(s, &pos)) != NULL) {
		struct import_account *a = &doc.accounts[doc.naccounts];

		for (k = 0; k < sa->ndated; k++) {
			char cell[MEMBERSHIP_MAX];
			time_t from, until;

			if (membership_split(sa->dated[k], cell, sizeof(cell), &from, &until) != 0 ||
			    until == 0 || until > now)
				continue;
			if (a->remove == NULL && ((a->remove = calloc(sa->ndated + 1,
			    sizeof(char *))) == NULL || (a->uid = strdup(sa->uid)) == NULL))
				goto oom;
			if ((a->remove[a->nremove++] = strdup(cell)) == NULL)
				goto oom;
		}
		if (a->remove != NULL) {
			a->merge = 1;
			doc.naccounts++;
		}
	}
	snap_leave(t);
	return edit_run(r, &doc, "purge-expired", NULL);
oom:
	snap_leave(t);
	import_free(&doc);
	return http_error(r, 500, "internal", NULL, "out of memory");
}

enum MHD_Result
api_member_remove(struct req *r)
{
	const char *uid = http_query(r, "account");
	char q[UID_MAX + CELL_MAX_LEN + 4];
	struct import_doc doc;
	enum MHD_Result ret;
	const struct snap *s;
	int t, known;

	memset(&doc, 0, sizeof(doc));
	if (edit_account(r, &doc, uid, http_query(r, "cell"), 0, &ret) == NULL) {
		import_free(&doc);
		return ret;
	}
	s = snap_enter(&t);
	known = s && snap_account(s, uid) != NULL;
	snap_leave(t);
	if (!known) {
		import_free(&doc);
		return http_error(r, 404, "unknown_account", "account", "no account '%.64s'", uid);
	}
	snprintf(q, sizeof(q), "%s\n%s", uid, http_query(r, "cell"));
	return edit_run(r, &doc, "remove", q);
}

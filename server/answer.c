/*
 * answer.c - the privileges answer from the snapshot, built with jansson
 * once per account and snapshot, then copied per request with the parts
 * that change between snapshots (usage, staleness) spliced in. The hot
 * read path of privd: no JSON building, no allocation but the answer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "answer.h"
#include "qwrite.h"
#include "membership.h"
#include "period.h"
#include "session.h"
#include "usage.h"

/* One block: this header, then off[] and len[] per privilege, then text. */
struct answer {
	size_t nprivs;
	size_t head;		/* text[0..head): {"account":..,"memberships":[..], */
	size_t *off, *len;	/* each privilege's "name":{...  (a quota's without '}') */
	long long *limit;	/* each quota's limit */
	size_t total;
	char *text;
};

/* A JSON value as compact text without its last character (an open object). */
static char *
dump_open(json_t *j)
{
	char *t = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);

	json_decref(j);
	if (t != NULL && *t)
		t[strlen(t) - 1] = '\0';
	return t;
}

static char *
quoted(const char *s)
{
	json_t *j = json_string(s);
	char *t = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;

	json_decref(j);
	return t;
}

json_t *
answer_value(const struct snap *s, const struct snap_account *a, int p,
    struct resolve_val *v)
{
	json_t *o = NULL, *set;
	size_t i;

	if (resolve_account(s, p, a, v) != 0)
		return NULL;
	switch (s->cfg->privs[p].type) {
	case PRIV_FLAG:
		o = json_pack("{s:s, s:b}", "type", "flag", "value", (int)v->num);
		break;
	case PRIV_NUMBER:
		o = json_pack("{s:s, s:I}", "type", "number", "value", (json_int_t)v->num);
		break;
	case PRIV_SET:
		set = json_array();
		for (i = 0; set && i < v->nelems; i++)
			json_array_append_new(set, json_string(v->elems[i]));
		o = json_pack("{s:s, s:o}", "type", "set", "value", set);
		break;
	case PRIV_QUOTA:
		o = json_pack("{s:s, s:I}", "type", "quota", "limit", (json_int_t)v->num);
		if (o != NULL && s->cfg->privs[p].currency[0])
			json_object_set_new(o, "currency", json_string(s->cfg->privs[p].currency));
		break;
	}
	return o;
}

static struct answer *
build(const struct snap *s, const struct snap_account *a)
{
	size_t n = s->cfg->nprivs, i, k, total;
	char **parts = calloc(2 * n + 1, sizeof(char *));
	long long *lim = calloc(n + 1, sizeof(*lim));
	struct answer *an = NULL;
	json_t *m;
	char *p;

	if (parts == NULL || lim == NULL) {
		free(parts);
		free(lim);
		return NULL;
	}
	m = json_array();
	for (k = 0; m && k < a->nm; k++)
		json_array_append_new(m, json_string(a->m[k]->cell));
	if (a->ndated > 0)
		parts[0] = dump_open(json_pack("{s:s, s:o, s:o*}", "account", a->uid,
		    "memberships", m, "dated_memberships", answer_dated(s, a)));
	else
		parts[0] = dump_open(json_pack("{s:s, s:o}", "account", a->uid, "memberships", m));
	total = parts[0] ? strlen(parts[0]) + 1 : 0;
	for (i = 0; parts[0] && i < n; i++) {
		struct resolve_val rv;
		json_t *v = answer_value(s, a, (int)i, &rv);

		lim[i] = rv.num;
		resolve_val_clear(&rv);

		if (v == NULL || (parts[1 + 2 * i] = quoted(s->cfg->privs[i].name)) == NULL)
			goto done;
		/* a quota stays open for its usage; the others are whole */
		parts[2 + 2 * i] = s->cfg->privs[i].type == PRIV_QUOTA ? dump_open(v) :
		    json_dumps(v, JSON_COMPACT);
		if (s->cfg->privs[i].type != PRIV_QUOTA)
			json_decref(v);
		if (parts[2 + 2 * i] == NULL)
			goto done;
		total += strlen(parts[1 + 2 * i]) + 1 + strlen(parts[2 + 2 * i]);
	}
	if (parts[0] == NULL)
		goto done;
	if ((an = malloc(sizeof(*an) + 2 * n * sizeof(size_t) + n * sizeof(long long) +
	    total + 1)) == NULL)
		goto done;
	an->nprivs = n;
	an->off = (size_t *)(an + 1);
	an->len = an->off + n;
	an->limit = (long long *)(an->len + n);
	an->text = (char *)(an->limit + n);
	memcpy(an->limit, lim, n * sizeof(*lim));
	p = an->text;
	p += sprintf(p, "%s,", parts[0]);
	an->head = (size_t)(p - an->text);
	for (i = 0; i < n; i++) {
		an->off[i] = (size_t)(p - an->text);
		p += sprintf(p, "%s:%s", parts[1 + 2 * i], parts[2 + 2 * i]);
		an->len[i] = (size_t)(p - an->text) - an->off[i];
	}
	an->total = (size_t)(p - an->text);
done:
	for (i = 0; i < 2 * n + 1; i++)
		free(parts[i]);
	free(parts);
	free(lim);
	return an;
}

static const struct answer *
cached(const struct snap *s, const struct snap_account *a)
{
	_Atomic(void *) *slot = snap_answer_slot(s, a);
	void *have = atomic_load(slot);
	struct answer *an;

	if (have != NULL)
		return have;
	if ((an = build(s, a)) == NULL)
		return NULL;
	/* another reader may have built it meanwhile: keep the first */
	if (!atomic_compare_exchange_strong(slot, &have, an)) {
		free(an);
		return have;
	}
	return an;
}

/* Appends v in decimal: the read path's numbers, without printf. */
static char *
put_num(char *p, long long v)
{
	char tmp[24];
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	int n = 0;

	do
		tmp[n++] = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (v < 0)
		*p++ = '-';
	while (n > 0)
		*p++ = tmp[--n];
	return p;
}

static char *
put_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

char *
answer_privileges(const struct snap *s, const struct snap_account *a, int stale)
{
	const struct answer *an = cached(s, a);
	char period[PERIOD_KEY_MAX], *out, *p;
	time_t now = period_now();
	size_t i, nq = 0;

	if (an == NULL)
		return NULL;
	for (i = 0; i < an->nprivs; i++)
		nq += s->cfg->privs[i].type == PRIV_QUOTA;
	/* each quota's usage: five numbers, a period or its error, a paid
	 * wallet's five; a number's open sessions */
	if ((out = malloc(an->total + nq * (320 + ERR_MSG_MAX * 2) + an->nprivs * 32 + 64)) == NULL)
		return NULL;
	memcpy(out, an->text, an->head);
	p = out + an->head;
	p = put_str(p, stale ? "\"stale\":true,\"privileges\":{" :
	    "\"stale\":false,\"privileges\":{");
	for (i = 0; i < an->nprivs; i++) {
		const struct cfg_priv *def = &s->cfg->privs[i];
		struct err e;

		if (i > 0)
			*p++ = ',';
		memcpy(p, an->text + an->off[i], an->len[i]);
		p += an->len[i];
		if (def->type == PRIV_NUMBER) {
			struct usage_val u;

			/* a number that counts sessions says how many are open */
			if (usage_get_for(a->uid, def->name, SESSION_PERIOD, &u) == 0) {
				p = put_num(put_str(p - 1, ",\"open\":"), u.used);
				*p++ = '}';
			}
			continue;
		}
		if (def->type != PRIV_QUOTA)
			continue;
		if (period_key(s->cfg, def->period, now, period, &e) == 0) {
			struct usage_val u, w;

			usage_get_for(a->uid, def->name, period, &u);
			p = put_num(put_str(p, ",\"credit\":"), u.credit);
			p = put_num(put_str(p, ",\"used\":"), u.used);
			p = put_num(put_str(p, ",\"held\":"), u.held);
			p = put_num(put_str(p, ",\"remaining\":"), usage_remaining(an->limit[i], &u));
			/* an account that was topped up has a paid wallet (wallet.h) */
			if (usage_any_paid() &&
			    usage_get_for(a->uid, def->name, QUOTA_PAID_PERIOD, &w) == 0) {
				p = put_num(put_str(p, ",\"paid\":{\"topped_up\":"), w.credit);
				p = put_num(put_str(p, ",\"used\":"), w.used);
				p = put_num(put_str(p, ",\"held\":"), w.held);
				p = put_num(put_str(p, ",\"remaining\":"), usage_remaining(0, &w));
				p = put_num(put_str(p, "},\"total_remaining\":"),
				    usage_remaining(an->limit[i], &u) + usage_remaining(0, &w));
			}
			p = put_str(put_str(p, ",\"period\":\""), period);
			p = put_str(p, "\"}");
		} else {
			char *msg = quoted(e.msg);

			p += sprintf(p, ",\"period\":null,\"period_error\":%s}", msg ? msg : "\"\"");
			free(msg);
		}
	}
	memcpy(p, "}}\n", 4);
	return out;
}

static json_t *
bound(time_t t)
{
	char buf[24];

	if (t == 0)
		return json_null();
	membership_rfc3339(t, buf);
	return json_string(buf);
}

json_t *
answer_dated(const struct snap *s, const struct snap_account *a)
{
	json_t *arr;
	size_t i;

	if (a->ndated == 0 || (arr = json_array()) == NULL)
		return NULL;
	for (i = 0; i < a->ndated; i++) {
		char cell[MEMBERSHIP_MAX];
		time_t from, until;

		if (membership_split(a->dated[i], cell, sizeof(cell), &from, &until) != 0)
			continue;
		json_array_append_new(arr, json_pack("{s:s, s:o, s:o, s:b}", "cell", cell,
		    "from", bound(from), "until", bound(until), "in_force",
		    membership_in_force(from, until, s->now)));
	}
	return arr;
}

void
answer_bounds(const struct snap_account *a, const char *cell, time_t *from, time_t *until)
{
	char name[MEMBERSHIP_MAX];
	size_t i;

	*from = *until = 0;
	for (i = 0; i < a->ndated; i++)
		if (membership_split(a->dated[i], name, sizeof(name), from, until) == 0 &&
		    strcmp(name, cell) == 0)
			return;
	*from = *until = 0;
}

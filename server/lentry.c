/*
 * lentry.c - the ledger entry: one privEntry value, a JSON object, as privd
 * writes it for every quota write and reads it for the ledger, replays and
 * the ledger check. Its fields are described in lentry.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <jansson.h>

#include "lentry.h"

void
lentry_time(time_t t, char out[32])
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
lentry_rfc3339(const char *gt, char out[40])
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

char *
lentry_format(const char *kind, const char *id, long long amount, const char *actor,
    const char *account, time_t now, const char *metadata, const char *fmt, ...)
{
	char gt[32], t[40];
	json_t *j, *m;
	char *s = NULL;
	va_list ap;

	lentry_time(now, gt);
	lentry_rfc3339(gt, t);
	if ((j = json_pack("{s:s, s:s, s:I, s:s, s:s}", "id", id, "kind", kind,
	    "amount", (json_int_t)amount, "time", t, "actor", actor)) == NULL)
		return NULL;
	/* a pool's entries name the account that drew on it */
	if (account != NULL)
		json_object_set_new(j, "account", json_string(account));
	/* extras: pairs of key and long long, or key "s" string */
	va_start(ap, fmt);
	for (; fmt && *fmt; fmt++) {
		const char *k = va_arg(ap, const char *);

		if (*fmt == 'I')
			json_object_set_new(j, k, json_integer(va_arg(ap, long long)));
		else
			json_object_set_new(j, k, json_string(va_arg(ap, const char *)));
	}
	va_end(ap);
	if (metadata && (m = json_loads(metadata, 0, NULL)) != NULL)
		json_object_set_new(j, "metadata", m);
	s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(j);
	return s;
}

void
lentry_clear(struct lentry *le)
{
	free(le->id);
	free(le->kind);
	free(le->time);
	free(le->actor);
	free(le->account);
	free(le->ref);
	free(le->metadata);
	free(le->expires);
	memset(le, 0, sizeof(*le));
}

void
lentry_free_all(struct lentry *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		lentry_clear(&v[i]);
	free(v);
}

static char *
jstr(json_t *j, const char *k)
{
	const char *s = json_string_value(json_object_get(j, k));

	return s ? strdup(s) : NULL;
}

int
lentry_parse(const char *text, struct lentry *le)
{
	json_t *j = json_loads(text, 0, NULL), *md;

	memset(le, 0, sizeof(*le));
	if (j == NULL)
		return 1;
	le->id = jstr(j, "id");
	le->kind = jstr(j, "kind");
	le->time = jstr(j, "time");
	le->actor = jstr(j, "actor");
	le->account = jstr(j, "account");
	le->ref = jstr(j, "ref");
	le->expires = jstr(j, "expires");
	le->amount = json_integer_value(json_object_get(j, "amount"));
	le->released = json_object_get(j, "released") ?
	    json_integer_value(json_object_get(j, "released")) : -1;
	le->paid = json_object_get(j, "paid") ?
	    json_integer_value(json_object_get(j, "paid")) : -1;
	le->voided = json_object_get(j, "void") != NULL;
	if ((md = json_object_get(j, "metadata")) != NULL)
		le->metadata = json_dumps(md, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(j);
	if (le->id == NULL || le->kind == NULL) {
		lentry_clear(le);
		return -1;
	}
	return 0;
}

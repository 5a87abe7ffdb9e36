/* membership.c - memberships with dates: the encoding privd passes around, and dates parsed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "membership.h"
#include "strv.h"

static time_t
days_to_time(long days, int h, int mi, int s)
{
	return (time_t)days * 86400 + h * 3600 + mi * 60 + s;
}

int
membership_date(const struct cfg *c, const char *s, int until, time_t *out, struct err *e)
{
	int y, mo, d, h = 0, mi = 0, sec = 0, n = 0;
	size_t i, len = strlen(s);

	for (i = 0; i < c->nterms; i++)
		if (strcmp(c->terms[i].name, s) == 0) {
			*out = days_to_time(until ? c->terms[i].end + 1 : c->terms[i].start, 0, 0, 0);
			return 0;
		}
	if (sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10 || mo < 1 || mo > 12 ||
	    d < 1 || d > 31)
		goto bad;
	if (len == 10) {
		/* a whole day: an until keeps its last day */
		*out = days_to_time(cfg_days_from_civil(y, mo, d) + (until ? 1 : 0), 0, 0, 0);
		return 0;
	}
	if (s[10] != 'T' || (sscanf(s + 11, "%2d:%2d%n", &h, &mi, &n) != 2 || n != 5))
		goto bad;
	i = 16;
	if (s[i] == ':') {
		if (sscanf(s + i + 1, "%2d%n", &sec, &n) != 1 || n != 2)
			goto bad;
		i += 3;
	}
	if (s[i] == 'Z')
		i++;
	if (s[i] != '\0' || h > 23 || mi > 59 || sec > 59)
		goto bad;
	*out = days_to_time(cfg_days_from_civil(y, mo, d), h, mi, sec);
	return 0;
bad:
	return err_set(e, ERR_INVALID, 0, until ? "until" : "from", "%s '%.40s' is not a date "
	    "(2026-09-01, 2026-09-01T08:30, or a term of the calendar)", until ? "until" : "from", s);
}

void
membership_gt(time_t t, char out[16])
{
	struct tm tm;

	if (t == 0 || gmtime_r(&t, &tm) == NULL || strftime(out, 16, "%Y%m%d%H%M%SZ", &tm) == 0)
		snprintf(out, 16, "-");
}

void
membership_rfc3339(time_t t, char out[24])
{
	struct tm tm;

	if (gmtime_r(&t, &tm) == NULL || strftime(out, 24, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		out[0] = '\0';
}

/* A GeneralizedTime of ours, or "-" (0). -1 when it is neither. */
static int
parse_gt(const char *s, size_t len, time_t *out)
{
	int y, mo, d, h, mi, sec;
	char buf[16];

	if (len == 1 && s[0] == '-') {
		*out = 0;
		return 0;
	}
	if (len != 15 || s[14] != 'Z')
		return -1;
	memcpy(buf, s, 15);
	buf[15] = '\0';
	if (sscanf(buf, "%4d%2d%2d%2d%2d%2d", &y, &mo, &d, &h, &mi, &sec) != 6)
		return -1;
	*out = days_to_time(cfg_days_from_civil(y, mo, d), h, mi, sec);
	return 0;
}

char *
membership_encode(const char *cell, time_t from, time_t until)
{
	char f[16], u[16], *s = NULL;

	if (from == 0 && until == 0)
		return strdup(cell);
	membership_gt(from, f);
	membership_gt(until, u);
	if (asprintf(&s, "%s|%s|%s", cell, f, u) < 0)
		return NULL;
	return s;
}

int
membership_split(const char *m, char *out, size_t n, time_t *from, time_t *until)
{
	const char *bar = strchr(m, '|'), *bar2;
	size_t len = bar ? (size_t)(bar - m) : strlen(m);

	*from = *until = 0;
	if (len >= n)
		return -1;
	memcpy(out, m, len);
	out[len] = '\0';
	if (bar == NULL)
		return 0;
	if ((bar2 = strchr(bar + 1, '|')) == NULL)
		return -1;
	return parse_gt(bar + 1, (size_t)(bar2 - bar - 1), from) != 0 ||
	    parse_gt(bar2 + 1, strlen(bar2 + 1), until) != 0 ? -1 : 0;
}

int
membership_same_cell(const char *a, const char *b)
{
	size_t la = strcspn(a, "|"), lb = strcspn(b, "|");

	return la == lb && strncmp(a, b, la) == 0;
}

int
membership_in_force(time_t from, time_t until, time_t now)
{
	return (from == 0 || now >= from) && (until == 0 || now < until);
}

int
membership_apply_dates(char **cells, size_t n, char *const *dates)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const char *d = strv_keyed(dates, cells[i]);
		char *enc, *p;

		if (d == NULL)
			continue;
		if ((enc = strdup(d)) == NULL)
			return -1;
		/* "CELL FROM UNTIL" -> "CELL|FROM|UNTIL" */
		for (p = enc; *p; p++)
			if (*p == ' ')
				*p = '|';
		free(cells[i]);
		cells[i] = enc;
	}
	return 0;
}

char *
membership_dates_value(const char *m, int *oom)
{
	char *v, *p;

	if (strchr(m, '|') == NULL)
		return NULL;
	if ((v = strdup(m)) == NULL) {
		*oom = 1;
		return NULL;
	}
	for (p = v; *p; p++)
		if (*p == '|')
			*p = ' ';
	return v;
}

void
membership_text(const char *m, char *out, size_t n)
{
	char cell[MEMBERSHIP_MAX], f[24], u[24];
	time_t from, until;

	if (membership_split(m, cell, sizeof(cell), &from, &until) != 0 ||
	    (from == 0 && until == 0)) {
		snprintf(out, n, "%s", from == 0 && until == 0 ? cell : m);
		return;
	}
	membership_rfc3339(from, f);
	membership_rfc3339(until, u);
	snprintf(out, n, "%s (%s%s%s%s%s)", cell, from ? "from " : "", from ? f : "",
	    from && until ? " " : "", until ? "until " : "", until ? u : "");
}

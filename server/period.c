/* period.c - period keys from the term calendar and the civil calendar. */
#include <stdio.h>
#include <string.h>

#include "period.h"

static long offset;

time_t
period_now(void)
{
	return time(NULL) + offset;
}

void
period_set_offset(long seconds)
{
	offset = seconds;
}

/* ISO 8601 week-numbering year and week of a day count (days since epoch). */
static void
iso_week(long days, int *year, int *week)
{
	/* 1970-01-01 was a Thursday; ISO weeks start on Monday */
	long wday = ((days % 7) + 7 + 3) % 7;	/* 0 = Monday */
	long thursday = days - wday + 3;	/* the Thursday of this week */
	struct tm tm;
	time_t t = (time_t)thursday * 86400;
	long jan1;

	gmtime_r(&t, &tm);
	*year = tm.tm_year + 1900;
	jan1 = cfg_days_from_civil(*year, 1, 1);
	*week = (int)((thursday - jan1) / 7 + 1);
}

int
period_key(const struct cfg *c, enum period_kind kind, time_t now,
    char out[PERIOD_KEY_MAX], struct err *e)
{
	struct tm tm;
	long days;
	size_t i;
	int y, w;

	gmtime_r(&now, &tm);
	days = cfg_days_from_civil(tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
	switch (kind) {
	case PERIOD_TERM:
		for (i = 0; i < c->nterms; i++)
			if (days >= c->terms[i].start && days <= c->terms[i].end) {
				size_t n = strnlen(c->terms[i].name, PERIOD_KEY_MAX - 1);

				memcpy(out, c->terms[i].name, n);
				out[n] = '\0';
				return 0;
			}
		out[0] = '\0';
		return err_set(e, ERR_CONFLICT, 0, "period",
		    "%04d-%02d-%02d is outside every term of the calendar",
		    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
	case PERIOD_WEEK:
		iso_week(days, &y, &w);
		snprintf(out, PERIOD_KEY_MAX, "%04dW%02d", y, w);
		return 0;
	case PERIOD_MONTH:
		snprintf(out, PERIOD_KEY_MAX, "%04d-%02d", tm.tm_year + 1900, tm.tm_mon + 1);
		return 0;
	case PERIOD_YEAR:
		snprintf(out, PERIOD_KEY_MAX, "%04d", tm.tm_year + 1900);
		return 0;
	case PERIOD_NEVER:
		snprintf(out, PERIOD_KEY_MAX, "all");
		return 0;
	case PERIOD_NONE:
		break;
	}
	out[0] = '\0';
	return err_set(e, ERR_INVALID, 0, "period", "not a quota");
}

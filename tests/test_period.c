/* test_period.c - period keys: terms, ISO weeks, months, years, never. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "config.h"
#include "period.h"

static const char text[] =
    "ldap: { uri: 'ldap://x/', base: 'dc=x', people: 'dc=y' }\n"
    "privileges: { p: { type: quota, period: term } }\n"
    "terms:\n"
    "  - { name: 2026T1, start: 2026-02-16, end: 2026-05-15 }\n"
    "  - { name: 2026T2, start: 2026-05-16, end: 2026-08-28 }\n";

static time_t
at(int y, int m, int d, int hh)
{
	return (time_t)cfg_days_from_civil(y, m, d) * 86400 + hh * 3600;
}

static const char *
key(const struct cfg *c, enum period_kind k, time_t t)
{
	static char out[PERIOD_KEY_MAX];
	static struct err e;

	if (period_key(c, k, t, out, &e) != 0)
		return e.msg;
	return out;
}

static void
periods(void **state)
{
	struct cfg *c;
	struct err e;

	(void)state;
	assert_int_equal(cfg_parse(text, sizeof(text) - 1, "t", &c, &e), 0);
	assert_string_equal(key(c, PERIOD_TERM, at(2026, 2, 16, 0)), "2026T1");
	assert_string_equal(key(c, PERIOD_TERM, at(2026, 5, 15, 23)), "2026T1");
	/* a charge across the boundary lands in the new term */
	assert_string_equal(key(c, PERIOD_TERM, at(2026, 5, 16, 0)), "2026T2");
	assert_non_null(strstr(key(c, PERIOD_TERM, at(2026, 12, 3, 0)),
	    "2026-12-03 is outside every term"));
	assert_string_equal(key(c, PERIOD_WEEK, at(2026, 12, 3, 0)), "2026W49");
	/* ISO years: 2027-01-01 is a Friday, still week 53 of 2026 */
	assert_string_equal(key(c, PERIOD_WEEK, at(2027, 1, 1, 0)), "2026W53");
	assert_string_equal(key(c, PERIOD_WEEK, at(2026, 1, 1, 0)), "2026W01");
	assert_string_equal(key(c, PERIOD_WEEK, at(2024, 12, 30, 0)), "2025W01");
	assert_string_equal(key(c, PERIOD_MONTH, at(2026, 12, 31, 23)), "2026-12");
	assert_string_equal(key(c, PERIOD_YEAR, at(2026, 12, 31, 23)), "2026");
	assert_string_equal(key(c, PERIOD_NEVER, at(2026, 12, 31, 23)), "all");
	assert_int_equal(cfg_days_from_civil(1970, 1, 1), 0);
	assert_int_equal(cfg_days_from_civil(2000, 3, 1), 11017);
	cfg_free(c);
}

FX_MAIN("period", cmocka_unit_test(periods))

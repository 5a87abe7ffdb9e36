/* test_retention.c - which usage periods ledger.retention counts as old, for each period kind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "fixture.h"
#include "config.h"
#include "retention.h"

static struct cfg *
cfg_with(int retention)
{
	char text[1024];
	struct cfg *c = NULL;
	struct err e;

	snprintf(text, sizeof(text),
	    "ldap:\n  uri: ldap://127.0.0.1/\n  base: ou=p,dc=x\n  people: ou=people,dc=x\n"
	    "ledger: { retention: %d }\n"
	    "privileges:\n"
	    "  t: { type: quota, period: term }\n  w: { type: quota, period: week }\n"
	    "  m: { type: quota, period: month }\n  y: { type: quota, period: year }\n"
	    "  n: { type: quota, period: never }\n  f: { type: flag }\n"
	    "terms:\n"
	    "  - { name: 2026T1, start: 2026-01-01, end: 2026-04-30 }\n"
	    "  - { name: 2026T2, start: 2026-05-01, end: 2026-08-31 }\n"
	    "  - { name: 2026T3, start: 2026-09-01, end: 2026-12-31 }\n", retention);
	memset(&e, 0, sizeof(e));
	if (cfg_parse(text, strlen(text), "t.yaml", &c, &e) != 0)
		fail_msg("%d: %s", e.line, e.msg);
	return c;
}

static time_t
at(int y, int m, int d)
{
	struct tm tm;

	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = m - 1;
	tm.tm_mday = d;
	tm.tm_hour = 12;
	return timegm(&tm);
}

static void
terms_months_weeks_years(void **state)
{
	struct cfg *c = cfg_with(2);
	time_t now = at(2026, 12, 4);	/* 2026T3, 2026-12, 2026W49 */

	(void)state;
	/* the newest two are kept: this one and the one before */
	assert_false(retention_old(c, "t@2026T3", now));
	assert_false(retention_old(c, "t@2026T2", now));
	assert_true(retention_old(c, "t@2026T1", now));
	assert_false(retention_old(c, "m@2026-12", now));
	assert_false(retention_old(c, "m@2026-11", now));
	assert_true(retention_old(c, "m@2026-10", now));
	assert_true(retention_old(c, "m@2025-12", now));
	assert_false(retention_old(c, "w@2026W48", now));
	assert_true(retention_old(c, "w@2026W47", now));
	assert_false(retention_old(c, "y@2025", now));
	assert_true(retention_old(c, "y@2024", now));
	/* a period that never ends, a flag, an unknown privilege or term: kept */
	assert_false(retention_old(c, "n@all", now));
	assert_false(retention_old(c, "f@2020", now));
	assert_false(retention_old(c, "nosuch@2020", now));
	assert_false(retention_old(c, "t@1999T9", now));
	/* a pool's entry has the same name form */
	assert_true(retention_old(c, "m@2026-01", now));
	cfg_free(c);
}

static void
between_terms_and_off(void **state)
{
	struct cfg *c = cfg_with(1);

	(void)state;
	/* after the last term ends the newest begun is still 2026T3 */
	assert_false(retention_old(c, "t@2026T3", at(2027, 1, 15)));
	assert_true(retention_old(c, "t@2026T2", at(2027, 1, 15)));
	cfg_free(c);
	c = cfg_with(0);
	assert_false(retention_old(c, "t@2026T1", at(2026, 12, 4)));
	assert_false(retention_old(c, "m@2000-01", at(2026, 12, 4)));
	cfg_free(c);
}

FX_MAIN("retention",
    cmocka_unit_test(terms_months_weeks_years),
    cmocka_unit_test(between_terms_and_off))

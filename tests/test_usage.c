/* test_usage.c - the pure parts of quota accounting: usage table, ids, periods, DNs, times. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dn.h"
#include "fixture.h"
#include "ledger.h"
#include "quota.h"
#include "uentry.h"
#include "usage.h"

#define ROOT "ou=usage,ou=privileges,dc=example,dc=edu"

static void
newer_csn_wins(void **state)
{
	struct usage_val v = { 10, 0, 0, 0, "20261203060000.000001Z#000000#000#000000" }, got;
	char key[USAGE_KEY_MAX];

	(void)state;
	usage_key(key, "jdoe", "print.pages", "2026T3");
	assert_string_equal(key, "jdoe/print.pages@2026T3");
	assert_int_equal(usage_get(key, &got), -1);
	assert_int_equal(got.used, 0);
	assert_int_equal(usage_put(key, &v), 0);
	/* an older value (a sync message overtaken by a read-back) is ignored */
	v.used = 5;
	strcpy(v.csn, "20261203055959.999999Z#000000#000#000000");
	usage_put(key, &v);
	assert_int_equal(usage_get_for("jdoe", "print.pages", "2026T3", &got), 0);
	assert_int_equal(got.used, 10);
	v.used = 12;
	v.held = 2;
	strcpy(v.csn, "20261203060000.000002Z#000000#000#000000");
	usage_put(key, &v);
	usage_get(key, &got);
	assert_int_equal(got.used, 12);
	assert_int_equal(got.held, 2);
	assert_int_equal(usage_count(), 1);
	usage_del(key);
	assert_int_equal(usage_get(key, &got), -1);
	usage_clear();
}

static void
request_ids(void **state)
{
	char long_id[REQID_MAX + 2];

	(void)state;
	assert_true(reqid_ok("job-881"));
	assert_true(reqid_ok("cups:eng-laser.881_2"));
	assert_false(reqid_ok(""));
	assert_false(reqid_ok("a b"));
	assert_false(reqid_ok("x,cn=y"));
	assert_false(reqid_ok("*)(uid=*"));
	assert_false(reqid_ok("caf\xc3\xa9"));
	memset(long_id, 'a', sizeof(long_id) - 1);
	long_id[REQID_MAX] = '\0';
	assert_true(reqid_ok(long_id));
	long_id[REQID_MAX] = 'a';
	long_id[REQID_MAX + 1] = '\0';
	assert_false(reqid_ok(long_id));
}

static void
named_periods(void **state)
{
	struct cfg c;
	struct cfg_term t[1] = { { "2026T3", 0, 0 } };

	(void)state;
	memset(&c, 0, sizeof(c));
	c.terms = t;
	c.nterms = 1;
	assert_true(quota_period_ok(&c, PERIOD_TERM, "2026T3"));
	assert_false(quota_period_ok(&c, PERIOD_TERM, "2026T4"));
	assert_true(quota_period_ok(&c, PERIOD_WEEK, "2026W49"));
	assert_true(quota_period_ok(&c, PERIOD_MONTH, "2026-12"));
	assert_true(quota_period_ok(&c, PERIOD_NEVER, "all"));
	assert_false(quota_period_ok(&c, PERIOD_MONTH, "2026-12)(x=*"));
	assert_false(quota_period_ok(&c, PERIOD_YEAR, ""));
}

static void
usage_dns(void **state)
{
	char uid[DN_VAL_MAX], name[DN_VAL_MAX];
	struct cfg c;
	char *dn;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.base_dn = "ou=privileges,dc=example,dc=edu";
	dn = uent_usage_dn(&c, "jdoe", "print.pages", "2026T3");
	assert_string_equal(dn, "cn=print.pages@2026T3,uid=jdoe," ROOT);
	assert_int_equal(dn_usage(dn, ROOT, uid, name), 0);
	assert_string_equal(uid, "jdoe");
	assert_string_equal(name, "print.pages@2026T3");
	free(dn);
	assert_int_equal(dn_usage("cn=q@all,uid=a.b," ROOT, ROOT, uid, name), 0);
	assert_string_equal(uid, "a.b");
	/* not usage entries: deeper, other RDN types, other depths, other containers */
	assert_int_equal(dn_usage("cn=job-1,cn=print.pages@2026T3,uid=jdoe," ROOT, ROOT, uid,
	    name), -1);
	assert_int_equal(dn_usage("privRef=h-1,cn=q@all,uid=a.b," ROOT, ROOT, uid, name), -1);
	assert_int_equal(dn_usage("uid=jdoe," ROOT, ROOT, uid, name), -1);
	assert_int_equal(dn_usage("ou=x,cn=q@all,uid=a," ROOT, ROOT, uid, name), -1);
	assert_int_equal(dn_usage("cn=q@all,ou=a," ROOT, ROOT, uid, name), -1);
	/* a pool's usage sits under cn=CELL; its holder is "pool:CELL" */
	dn = uent_usage_dn(&c, "pool:student@eng/cse", "print.pages", "2026T3");
	assert_string_equal(dn, "cn=print.pages@2026T3,cn=student@eng/cse," ROOT);
	assert_int_equal(dn_usage(dn, ROOT, uid, name), 0);
	assert_string_equal(uid, "pool:student@eng/cse");
	assert_string_equal(name, "print.pages@2026T3");
	free(dn);
	assert_int_equal(dn_usage("cn=q@all,uid=a,ou=people,dc=example,dc=edu", ROOT, uid,
	    name), -1);
}

static void
ledger_times(void **state)
{
	char gt[32], out[40];

	(void)state;
	lentry_time(1798761599, gt);	/* 2026-12-31T23:59:59Z */
	assert_int_equal(strlen(gt), 22);
	assert_memory_equal(gt, "20261231235959.", 15);
	assert_int_equal(gt[21], 'Z');
	lentry_rfc3339("20261231235959.123456Z", out);
	assert_string_equal(out, "2026-12-31T23:59:59.123456Z");
	lentry_rfc3339("20270101000000Z", out);
	assert_string_equal(out, "2027-01-01T00:00:00Z");
}

/* The table knows whether anyone has a paid wallet: reads skip the lookup when not. */
static void
paid_wallets_are_counted(void **state)
{
	struct usage_val v = { 1, 5, 0, 0, "20261204000000.000001Z#000000#000#000000" };
	char k1[USAGE_KEY_MAX], k2[USAGE_KEY_MAX];

	(void)state;
	usage_clear();
	usage_key(k1, "jdoe", "print.pages", "2026T3");
	usage_put(k1, &v);
	assert_false(usage_any_paid());
	usage_key(k2, "jdoe", "print.pages", USAGE_PAID_PERIOD);
	usage_put(k2, &v);
	usage_put(k2, &v);	/* again: one key */
	assert_true(usage_any_paid());
	usage_del(k2);
	assert_false(usage_any_paid());
	usage_put(k2, &v);
	usage_clear();
	assert_false(usage_any_paid());
}

FX_MAIN("usage",
    cmocka_unit_test(paid_wallets_are_counted),
    cmocka_unit_test(newer_csn_wins),
    cmocka_unit_test(request_ids),
    cmocka_unit_test(named_periods),
    cmocka_unit_test(usage_dns),
    cmocka_unit_test(ledger_times))

/*
 * test_notice.c - which notice thresholds a balance has crossed
 * (notice_due): N% of the allowance or N left in all, the lowest told.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "notice.h"

static struct cfg_priv pv;

static void
set(int n, ...)
{
	va_list ap;
	int i;

	memset(&pv, 0, sizeof(pv));
	va_start(ap, n);
	for (i = 0; i < n; i++) {
		pv.notify[i].value = va_arg(ap, int);
		pv.notify[i].percent = va_arg(ap, int);
	}
	va_end(ap);
	pv.nnotify = n;
}

static void
above_every_threshold_nothing_is_due(void **state)
{
	unsigned all;

	(void)state;
	set(2, 20, 1, 0, 0);
	assert_int_equal(notice_due(&pv, 100, 21, &all), -1);
	assert_int_equal(all, 0);
	/* no thresholds: never */
	set(0);
	assert_int_equal(notice_due(&pv, 100, 0, &all), -1);
}

static void
a_percent_is_of_the_allowance(void **state)
{
	unsigned all;

	(void)state;
	set(2, 20, 1, 0, 0);
	assert_int_equal(notice_due(&pv, 100, 20, &all), 0);
	assert_int_equal(all, 1u);
	/* the paid wallet counts in what is left, not in the allowance */
	assert_int_equal(notice_due(&pv, 10, 2, &all), 0);
	assert_int_equal(notice_due(&pv, 10, 3, &all), -1);
}

static void
the_lowest_crossed_is_the_one_told(void **state)
{
	unsigned all;

	(void)state;
	set(3, 50, 1, 0, 0, 20, 1);
	/* a jump to nothing crosses all three: 0 is told, the others recorded */
	assert_int_equal(notice_due(&pv, 100, 0, &all), 1);
	assert_int_equal(all, 7u);
	assert_int_equal(notice_due(&pv, 100, 15, &all), 2);
	assert_int_equal(all, 5u);
}

static void
an_amount_is_what_is_left_in_all(void **state)
{
	unsigned all;

	(void)state;
	set(1, 500, 0);		/* $5.00 left, whatever the allowance */
	assert_int_equal(notice_due(&pv, 0, 500, &all), 0);
	assert_int_equal(notice_due(&pv, 0, 501, &all), -1);
}

FX_GROUP("notice", NULL, NULL,
	cmocka_unit_test(above_every_threshold_nothing_is_due),
	cmocka_unit_test(a_percent_is_of_the_allowance),
	cmocka_unit_test(the_lowest_crossed_is_the_one_told),
	cmocka_unit_test(an_amount_is_what_is_left_in_all))

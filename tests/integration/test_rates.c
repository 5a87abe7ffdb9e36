/*
 * test_rates.c - money quotas and printers' rate cards against a real
 * slapd and privd: cards imported, listed and exported again unchanged; a
 * job priced by its printer's card (sides, duplex, copies, media), the
 * quote equal to the charge, a replay charging nothing, the breakdown in
 * the ledger, the balance refused with cost and remaining; bad cards and
 * bad jobs refused naming the field.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "harness.h"

#define BAL "/v1/accounts/s1/quotas/print.balance"
#define JOB10 "{\"printer\":\"eng-colour\",\"pages\":{\"mono\":7,\"colour\":3}}"

static const char model[] =
    "reasons: { student: { undergrad: {} } }\n"
    "organisations: { eng: {} }\n"
    "grants:\n"
    "  \"student@\": { print.balance: 1000, print.pages: 100, printer.access: [eng-colour] }\n"
    "printers:\n"
    "  eng-colour:\n"
    "    charge: print.balance\n"
    "    price: { mono: 10, colour: 40, duplex_mono: 7, duplex_colour: 35, job: 0 }\n"
    "    media: { A3: 2 }\n"
    "  eng-laser: { charge: print.balance, price: { mono: 5 } }\n"
    "accounts:\n"
    "  s1: [student/undergrad@eng]\n"
    "  s2: [student/undergrad@eng]\n";

static int
setup(void **state)
{
	return it_group_setup_model(state, model);
}

static void
cards_are_listed_with_their_currency(void **state)
{
	json_t *j = it_get("/v1/printers", 200), *c;

	(void)state;
	assert_int_equal(json_array_size(json_object_get(j, "printers")), 2);
	c = json_array_get(json_object_get(j, "printers"), 0);
	assert_string_equal(json_string_value(json_object_get(c, "name")), "eng-colour");
	assert_string_equal(json_string_value(json_object_get(c, "currency")), "AUD");
	json_decref(j);
	j = it_get("/v1/printers/eng-laser", 200);
	/* the card's defaults follow mono */
	assert_int_equal(it_num(json_object_get(j, "price"), "colour"), 5);
	assert_int_equal(it_num(json_object_get(j, "price"), "duplex_mono"), 5);
	json_decref(j);
	json_decref(it_get("/v1/printers/nope", 404));
	/* a money quota says its currency */
	j = it_get(BAL, 200);
	assert_string_equal(json_string_value(json_object_get(j, "currency")), "AUD");
	assert_int_equal(it_num(j, "remaining"), 1000);
	json_decref(j);
	/* privctl shows money as money */
	{
		char out[4096];

		assert_int_equal(it_privctl(out, sizeof(out), "quota s1 print.balance"), 0);
		if (strstr(out, "$10.00 of $10.00 left") == NULL)
			fail_msg("privctl quota does not show money: %s", out);
	}
}

static void
quote_equals_charge_and_replay_charges_nothing(void **state)
{
	json_t *q, *c, *l, *e;
	size_t i;
	int found = 0;

	(void)state;
	q = it_call("POST", "/v1/accounts/s1/quotes", READ_KEY, "{\"job\":" JOB10 "}", 200);
	assert_int_equal(it_num(q, "cost"), 7 * 10 + 3 * 40);
	assert_string_equal(json_string_value(json_object_get(q, "charge_to")), "personal");
	assert_string_equal(json_string_value(json_object_get(q, "quota")), "print.balance");
	assert_string_equal(json_string_value(json_object_get(q, "currency")), "AUD");
	assert_true(json_is_true(json_object_get(q, "allowed")));
	assert_int_equal(it_num(q, "remaining"), 1000);
	c = it_call("POST", BAL "/charges", CHARGE_KEY, "{\"request_id\":\"r-job-1\",\"job\":"
	    JOB10 ",\"metadata\":{\"title\":\"notes\"}}", 201);
	assert_int_equal(it_num(c, "charged"), it_num(q, "cost"));
	assert_int_equal(it_num(c, "remaining"), 1000 - 190);
	assert_int_equal(it_num(json_object_get(c, "job"), "colour_sides"), 3);
	json_decref(c);
	c = it_call("POST", BAL "/charges", CHARGE_KEY, "{\"request_id\":\"r-job-1\",\"job\":"
	    JOB10 "}", 200);
	assert_true(json_is_true(json_object_get(c, "replayed")));
	assert_int_equal(it_num(c, "remaining"), 1000 - 190);
	json_decref(c);
	json_decref(q);
	/* the ledger keeps the breakdown beside the caller's metadata */
	l = it_get(BAL "/ledger", 200);
	json_array_foreach(json_object_get(l, "entries"), i, e) {
		json_t *m = json_object_get(e, "metadata");

		if (strcmp(json_string_value(json_object_get(e, "request_id")), "r-job-1") != 0)
			continue;
		found++;
		assert_int_equal(it_num(json_object_get(m, "price"), "mono_sides"), 7);
		assert_int_equal(it_num(json_object_get(m, "price"), "cost"), 190);
		assert_non_null(json_object_get(m, "title"));
	}
	assert_int_equal(found, 1);
	json_decref(l);
}

static void
duplex_copies_media_hold_and_commit(void **state)
{
	json_t *q, *h, *c;

	(void)state;
	/* duplex sides 7 x 7 + 3 x 35 = 154, 2 copies, A3 x 2 */
	q = it_call("POST", "/v1/accounts/s2/quotes", READ_KEY, "{\"job\":{\"printer\":"
	    "\"eng-colour\",\"pages\":{\"mono\":7,\"colour\":3},\"sides\":\"two-sided-long-edge\","
	    "\"copies\":2,\"media\":\"iso_a3_297x420mm\"}}", 200);
	assert_int_equal(it_num(q, "cost"), 616);
	assert_int_equal(it_num(json_object_get(q, "job"), "sheets"), 10);
	h = it_call("POST", "/v1/accounts/s2/quotas/print.balance/holds", CHARGE_KEY,
	    "{\"request_id\":\"r-hold-1\",\"job\":{\"printer\":\"eng-colour\",\"pages\":"
	    "[\"mono\",\"mono\",\"mono\",\"mono\",\"mono\",\"mono\",\"mono\",\"colour\",\"colour\","
	    "\"colour\"],\"sides\":\"two-sided-short-edge\",\"copies\":2,\"media\":\"A3\"}}", 201);
	assert_int_equal(it_num(h, "amount"), it_num(q, "cost"));
	c = it_call("POST", "/v1/accounts/s2/quotas/print.balance/holds/r-hold-1/commit",
	    CHARGE_KEY, "{\"amount\":616}", 200);
	assert_int_equal(it_num(c, "committed"), 616);
	assert_int_equal(it_num(c, "remaining"), 1000 - 616);
	json_decref(c);
	json_decref(h);
	json_decref(q);
}

static void
over_balance_is_refused_with_cost_and_remaining(void **state)
{
	json_t *r;

	(void)state;
	/* s1 has 810 left; 30 colour sides cost 1200 */
	r = it_call("POST", BAL "/charges", CHARGE_KEY, "{\"request_id\":\"r-big\",\"job\":"
	    "{\"printer\":\"eng-colour\",\"pages\":{\"colour\":30}}}", 409);
	assert_string_equal(json_string_value(json_object_get(r, "error")), "quota_exceeded");
	assert_int_equal(it_num(r, "cost"), 1200);
	assert_int_equal(it_num(r, "remaining"), 810);
	assert_string_equal(json_string_value(json_object_get(r, "currency")), "AUD");
	json_decref(r);
	r = it_call("POST", "/v1/accounts/s1/quotes", READ_KEY, "{\"job\":{\"printer\":"
	    "\"eng-colour\",\"pages\":{\"colour\":30}}}", 200);
	assert_true(json_is_false(json_object_get(r, "allowed")));
	assert_true(json_is_null(json_object_get(r, "charge_to")) ||
	    json_object_get(r, "charge_to") == NULL);
	json_decref(r);
	assert_int_equal(it_number(BAL, "used"), 190);
}

static void
money_reads_as_money(void **state)
{
	char out[8192];
	long st;
	char *text;

	(void)state;
	/* usage by organisation: s1 190 + s2 616 in eng, as money */
	text = it_request("GET", "/v1/reports/usage?privilege=print.balance&format=csv",
	    ADMIN_KEY, NULL, 0, &st);
	assert_int_equal(st, 200);
	if (strstr(text, "eng,2,\"$8.06\",\"$20.00\"") == NULL)
		fail_msg("the CSV report does not show money: %s", text);
	free(text);
	/* privctl: the cards, and a credit typed as money */
	assert_int_equal(it_privctl(out, sizeof(out), "printer list"), 0);
	if (strstr(out, "eng-colour") == NULL || strstr(out, "colour $0.40") == NULL)
		fail_msg("privctl printer list: %s", out);
	assert_int_equal(it_privctl(out, sizeof(out), "printer show eng-colour"), 0);
	if (strstr(out, "media A3 x 2") == NULL)
		fail_msg("privctl printer show: %s", out);
	assert_int_equal(it_privctl(out, sizeof(out), "printer show nope"), 1);
	assert_int_equal(it_privctl(out, sizeof(out), "ledger s1 print.balance"), 0);
	if (strstr(out, "$1.90") == NULL)
		fail_msg("privctl ledger does not show money: %s", out);
	assert_int_equal(it_privctl(out, sizeof(out), "credit s2 print.balance 2.50"), 0);
	if (strstr(out, "credited $2.50") == NULL)
		fail_msg("privctl credit: %s", out);
	assert_int_equal(it_number("/v1/accounts/s2/quotas/print.balance", "credit"), 250);
	assert_int_equal(it_privctl(out, sizeof(out), "credit s2 print.balance 1.005"), 2);
	assert_int_equal(it_number("/v1/accounts/s2/quotas/print.balance", "credit"), 250);
}

/* The field a request is refused for with 400 (or 404 for a printer). */
static void
refused(const char *path, const char *key, const char *body, long want, const char *field)
{
	json_t *j = it_call("POST", path, key, body, want);

	assert_string_equal(json_string_value(json_object_get(j, "field")), field);
	json_decref(j);
}

static void
bad_jobs_name_the_field(void **state)
{
	(void)state;
	/* a card that draws on print.balance does not charge print.pages */
	refused("/v1/accounts/s1/quotas/print.pages/charges", CHARGE_KEY,
	    "{\"request_id\":\"b1\",\"job\":" JOB10 "}", 400, "job.printer");
	refused(BAL "/charges", CHARGE_KEY, "{\"request_id\":\"b2\",\"amount\":5,\"job\":"
	    JOB10 "}", 400, "amount");
	refused(BAL "/charges", CHARGE_KEY, "{\"request_id\":\"b3\",\"job\":{\"printer\":"
	    "\"nope\",\"pages\":{\"mono\":1}}}", 404, "job.printer");
	refused(BAL "/charges", CHARGE_KEY, "{\"request_id\":\"b4\",\"job\":{\"printer\":"
	    "\"eng-colour\",\"pages\":{\"mono\":1},\"copies\":100000000000}}", 400, "job.copies");
	refused(BAL "/holds", CHARGE_KEY, "{\"request_id\":\"b5\",\"job\":{\"printer\":"
	    "\"eng-colour\",\"pages\":{\"mono\":9223372036854775807}}}", 400, "job.pages.mono");
	refused("/v1/accounts/s1/quotes", READ_KEY, "{\"job\":{\"printer\":\"eng-colour\"}}",
	    400, "job.pages");
	assert_int_equal(it_number(BAL, "used"), 190);
}

static void
cards_round_trip_and_bad_cards_are_refused(void **state)
{
	char *text = NULL;
	long st;
	json_t *j;

	(void)state;
	text = it_request("GET", "/v1/export", ADMIN_KEY, NULL, 0, &st);
	assert_int_equal(st, 200);
	assert_non_null(strstr(text, "printers:"));
	assert_non_null(strstr(text, "eng-colour:"));
	j = it_call("POST", "/v1/import?dry_run=1", ADMIN_KEY, text, 200);
	/* no printer changes (people exported with [] become followed: not ours) */
	assert_int_equal(json_object_get(j, "printers_changed"), NULL);
	assert_int_equal(it_num(j, "cells_changed"), 0);
	json_decref(j);
	free(text);
	/* a changed price is one change */
	j = it_call("POST", "/v1/import", ADMIN_KEY, "printers:\n  eng-laser: { charge: "
	    "print.balance, price: { mono: 6 } }\n", 200);
	assert_int_equal(it_num(j, "printers_changed"), 1);
	json_decref(j);
	j = it_get("/v1/printers/eng-laser", 200);
	assert_int_equal(it_num(json_object_get(j, "price"), "mono"), 6);
	json_decref(j);
	/* bad cards: the line and the printer, nothing written */
	j = it_call("POST", "/v1/import", ADMIN_KEY, "printers:\n  p1: { charge: print.balance,"
	    " price: { mono: 5, toner: 3 } }\n", 400);
	assert_non_null(strstr(json_string_value(json_object_get(j, "message")), "toner"));
	assert_int_equal(it_num(j, "line"), 2);
	json_decref(j);
	j = it_call("POST", "/v1/import", ADMIN_KEY, "printers:\n  p1: { charge: login.hosts,"
	    " price: { mono: 5 } }\n", 400);
	assert_non_null(strstr(json_string_value(json_object_get(j, "message")), "login.hosts"));
	json_decref(j);
	j = it_call("POST", "/v1/import", ADMIN_KEY, "printers:\n  p1: { charge: print.balance,"
	    " price: { colour: 5 } }\n", 400);
	assert_non_null(strstr(json_string_value(json_object_get(j, "message")), "no mono"));
	json_decref(j);
	json_decref(it_get("/v1/printers/p1", 404));
	it_check_ledger();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cards_are_listed_with_their_currency),
		cmocka_unit_test(quote_equals_charge_and_replay_charges_nothing),
		cmocka_unit_test(duplex_copies_media_hold_and_commit),
		cmocka_unit_test(over_balance_is_refused_with_cost_and_remaining),
		cmocka_unit_test(bad_jobs_name_the_field),
		cmocka_unit_test(money_reads_as_money),
		cmocka_unit_test(cards_round_trip_and_bad_cards_are_refused),
	};

	return cmocka_run_group_tests_name("rates", tests, setup, it_group_teardown);
}

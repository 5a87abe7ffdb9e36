/*
 * test_contract.c - the routes the other tests reach only through privctl,
 * PAM or the browser, asked once each through the harness, so that with
 * PRIVD_API_RECORD every operation of doc/openapi.yaml has an answer to be
 * checked (tests/openapi/check.sh fails on an operation no test reached).
 * Each answer's status is asserted here; its shape is the spec's to judge.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

#define TOPUP_KEY "dev-topup-7e3b9c1f05"

static int
setup(void **state)
{
	char *model = it_slurp("config/demo.yaml", NULL);
	int rc;

	if (model == NULL)
		return -1;
	rc = it_group_setup_model(state, model);
	free(model);
	return rc;
}

static void
web_page_files(void **state)
{
	long st;
	char *t;

	(void)state;
	t = it_request("GET", "/ui", NULL, NULL, 0, &st);
	assert_int_equal(st, 301);
	free(t);
	t = it_request("GET", "/ui/", NULL, NULL, 0, &st);
	assert_int_equal(st, 200);
	assert_non_null(strstr(t, "<html"));
	free(t);
	t = it_request("GET", "/ui/app.js", NULL, NULL, 0, &st);
	assert_int_equal(st, 200);
	free(t);
	t = it_request("GET", "/ui/nothing.js", NULL, NULL, 0, &st);
	assert_int_equal(st, 404);
	free(t);
}

static void
sessions_open_renew_list_close(void **state)
{
	json_t *j;
	char path[160];

	(void)state;
	j = it_call("POST", "/v1/accounts/jdoe/sessions", CHARGE_KEY,
	    "{\"request_id\":\"ct-1\",\"host\":\"cse-lab1\",\"service\":\"sshd\"}", 201);
	snprintf(path, sizeof(path), "/v1/accounts/jdoe/sessions/%s",
	    json_string_value(json_object_get(j, "session_id")));
	json_decref(j);
	json_decref(it_call("GET", "/v1/accounts/jdoe/sessions", READ_KEY, NULL, 200));
	strcat(path, "/renew");
	json_decref(it_call("POST", path, CHARGE_KEY, "{\"ttl_s\":600}", 200));
	path[strlen(path) - strlen("/renew")] = '\0';
	json_decref(it_call("DELETE", path, CHARGE_KEY, NULL, 200));
	json_decref(it_call("DELETE", path, CHARGE_KEY, NULL, 404));
}

static void
pools_listed_and_a_pool_hold_released(void **state)
{
	(void)state;
	json_decref(it_call("GET", "/v1/pools", READ_KEY, NULL, 200));
	json_decref(it_call("POST", "/v1/pools/@engineering/cse/research/networks/quotas/"
	    "print.pages/holds", CHARGE_KEY,
	    "{\"request_id\":\"ct-h\",\"account\":\"tnguyen\",\"amount\":20}", 201));
	json_decref(it_call("DELETE", "/v1/pools/@engineering/cse/research/networks/quotas/"
	    "print.pages/holds/ct-h", CHARGE_KEY, NULL, 200));
}

static void
trees_cells_and_nodes(void **state)
{
	(void)state;
	json_decref(it_call("GET", "/v1/tree/organisations", READ_KEY, NULL, 200));
	json_decref(it_call("GET", "/v1/tree/reasons", READ_KEY, NULL, 200));
	json_decref(it_call("GET", "/v1/tree/nowhere", READ_KEY, NULL, 404));
	json_decref(it_call("GET", "/v1/cells?members=3", READ_KEY, NULL, 200));
	json_decref(it_call("POST", "/v1/nodes/organisations?dry_run=1", ADMIN_KEY,
	    "{\"path\":\"engineering/mech\"}", 200));
	json_decref(it_call("POST", "/v1/nodes/organisations", ADMIN_KEY,
	    "{\"path\":\"engineering/mech\"}", 200));
}

static void
dated_memberships_and_vouchers(void **state)
{
	(void)state;
	json_decref(it_call("POST", "/v1/memberships", ADMIN_KEY,
	    "{\"account\":\"vguest\",\"cell\":\"visitor@engineering/cse\",\"until\":\"2099-01-01\"}",
	    200));
	json_decref(it_call("GET", "/v1/memberships/expiring?within=100000d", READ_KEY, NULL,
	    200));
	json_decref(it_call("POST", "/v1/memberships/purge-expired?dry_run=1", ADMIN_KEY, NULL,
	    200));
	json_decref(it_call("POST", "/v1/vouchers", ADMIN_KEY,
	    "{\"quota\":\"print.balance\",\"value\":100,\"count\":2,\"batch\":\"ct\"}", 201));
	json_decref(it_call("GET", "/v1/vouchers?batch=ct", ADMIN_KEY, NULL, 200));
	json_decref(it_call("GET", "/v1/vouchers", TOPUP_KEY, NULL, 403));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(web_page_files),
		cmocka_unit_test(sessions_open_renew_list_close),
		cmocka_unit_test(pools_listed_and_a_pool_hold_released),
		cmocka_unit_test(trees_cells_and_nodes),
		cmocka_unit_test(dated_memberships_and_vouchers),
	};

	return cmocka_run_group_tests(tests, setup, it_group_teardown);
}

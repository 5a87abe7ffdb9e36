/*
 * test_clock.c - two privd on one directory, the second with its clock 25
 * days ahead (the clock test hook, PRIVD_CLOCK_OFFSET): it must learn its
 * offset from the directory, say so in /readyz, the log and /metrics,
 * release none of the first privd's live holds, and start no new period
 * for a charge; the first, whose clock is right, expires holds as before.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <curl/curl.h>
#include <jansson.h>

#include "harness.h"

#define AHEAD (25L * 86400)	/* into the next term from early December */
#define HOLDS 25

static char ahead_base[64];
static long ahead_pid = -1;

static int
setup(void **state)
{
	const char *bin = getenv("PRIVD_BIN") ? getenv("PRIVD_BIN") : "server/privd";
	int port;
	FILE *p;
	char cmd[1024];

	if (it_group_setup_model(state,
	    "reasons: { student: { undergrad: {} } }\norganisations: { lab: {} }\n"
	    "grants:\n  \"student@\": { print.pages: 1000 }\n"
	    "accounts:\n  jdoe: [student/undergrad@lab]\n  mwhite: [student/undergrad@lab]\n") != 0)
		return -1;
	/* the second privd, its clock ahead, on a port of its own */
	port = 20000 + (int)(getpid() % 20000);
	snprintf(ahead_base, sizeof(ahead_base), "http://127.0.0.1:%d", port);
	snprintf(cmd, sizeof(cmd), "PRIVD_CLOCK_OFFSET=%ld %s -c config/dev.yaml "
	    "-L ldap://127.0.0.1:%d/ -l 127.0.0.1:%d >> %s/ahead.log 2>&1 & echo $!", AHEAD, bin,
	    it_ldap_port, port, it_dir);
	if ((p = popen(cmd, "r")) == NULL || fscanf(p, "%ld", &ahead_pid) != 1)
		return -1;
	pclose(p);
	it_sh("for i in $(seq 1 200); do curl -sf %s/readyz >/dev/null && exit 0; sleep 0.05; "
	    "done; cat %s/ahead.log >&2; exit 1", ahead_base, it_dir);
	return 0;
}

static int
teardown(void **state)
{
	if (ahead_pid > 0)
		kill((pid_t)ahead_pid, SIGTERM);
	sleep(1);
	return it_group_teardown(state);
}

/* A request to the privd whose clock is ahead. */
static json_t *
ahead(const char *method, const char *path, const char *key, const char *body, long *st)
{
	char save[64], *text;
	json_t *j;

	snprintf(save, sizeof(save), "%s", it_http_base);
	snprintf(it_http_base, sizeof(it_http_base), "%s", ahead_base);
	text = it_request(method, path, key, body, body ? strlen(body) : 0, st);
	snprintf(it_http_base, sizeof(it_http_base), "%s", save);
	j = json_loads(text, 0, NULL);
	free(text);
	return j;
}

static int
ahead_knows(void)
{
	long st;
	json_t *j = ahead("GET", "/readyz", NULL, NULL, &st);
	json_t *c = json_object_get(j, "clock");
	int known = c != NULL && json_is_real(json_object_get(c, "offset_s"));

	json_decref(j);
	return known;
}

static void
a_clock_ahead_releases_no_live_hold(void **state)
{
	char body[256], path[256];
	json_t *j, *c;
	long st;
	int i;

	(void)state;
	/* holds made through the privd whose clock is right, for ten minutes */
	for (i = 0; i < HOLDS; i++) {
		snprintf(body, sizeof(body), "{\"request_id\":\"h-%d\",\"amount\":2,\"ttl_s\":600}", i);
		json_decref(it_call("POST", "/v1/accounts/jdoe/quotas/print.pages/holds", CHARGE_KEY,
		    body, 201));
	}
	/* the other learns its clock is 25 days ahead of the directory's */
	assert_true(it_within(10000, ahead_knows) >= 0);
	j = ahead("GET", "/readyz", NULL, NULL, &st);
	assert_int_equal(st, 200);
	c = json_object_get(j, "clock");
	assert_false(json_is_true(json_object_get(c, "trusted")));
	assert_true(json_real_value(json_object_get(c, "offset_s")) > AHEAD - 60);
	json_decref(j);
	it_sh("grep -q 'clock: this privd.s clock is .* ahead of the directory' %s/ahead.log",
	    it_dir);
	it_sh("curl -sf -H 'Authorization: Bearer %s' %s/metrics | grep -qx 'privd_clock_trusted 0'",
	    READ_KEY, ahead_base);
	/* its reaper has run many times meanwhile: every hold is still open */
	sleep(3);
	assert_int_equal(it_number("/v1/accounts/jdoe/quotas/print.pages", "held"), 2 * HOLDS);
	for (i = 0; i < HOLDS; i++) {
		snprintf(path, sizeof(path), "/v1/accounts/jdoe/quotas/print.pages/holds/h-%d/commit",
		    i);
		json_decref(it_call("POST", path, CHARGE_KEY, "{\"amount\":1}", 200));
	}
	assert_int_equal(it_number("/v1/accounts/jdoe/quotas/print.pages", "held"), 0);
	assert_int_equal(it_number("/v1/accounts/jdoe/quotas/print.pages", "used"), HOLDS);
	/* the privd whose clock is right trusts it */
	j = it_get("/readyz", 200);
	assert_true(json_is_true(json_object_get(json_object_get(j, "clock"), "trusted")));
	json_decref(j);
}

static void
a_clock_ahead_starts_no_period(void **state)
{
	json_t *j;
	long st;

	(void)state;
	/* the ahead privd's clock is in the next term, the directory's is not */
	j = ahead("POST", "/v1/accounts/mwhite/quotas/print.pages/charges", CHARGE_KEY,
	    "{\"request_id\":\"p-1\",\"amount\":5}", &st);
	assert_int_equal(st, 503);
	assert_string_equal(json_string_value(json_object_get(j, "error")), "clock_skew");
	json_decref(j);
	assert_int_equal(it_number("/v1/accounts/mwhite/quotas/print.pages", "used"), 0);
	/* reads go on there */
	j = ahead("GET", "/v1/accounts/mwhite/privileges", READ_KEY, NULL, &st);
	assert_int_equal(st, 200);
	json_decref(j);
	/* and the right clock charges the term it is in */
	j = it_call("POST", "/v1/accounts/mwhite/quotas/print.pages/charges", CHARGE_KEY,
	    "{\"request_id\":\"p-1\",\"amount\":5}", 201);
	json_decref(j);
}

static void
the_right_clock_still_expires(void **state)
{
	(void)state;
	json_decref(it_call("POST", "/v1/accounts/jdoe/quotas/print.pages/holds", CHARGE_KEY,
	    "{\"request_id\":\"short-1\",\"amount\":3,\"ttl_s\":1}", 201));
	assert_int_equal(it_number("/v1/accounts/jdoe/quotas/print.pages", "held"), 3);
	it_sh("for i in $(seq 1 100); do curl -s -H 'Authorization: Bearer %s' "
	    "%s/v1/accounts/jdoe/quotas/print.pages | grep -q '\"held\":0' && exit 0; sleep 0.1; "
	    "done; exit 1", READ_KEY, it_http_base);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_clock_ahead_releases_no_live_hold),
		cmocka_unit_test(a_clock_ahead_starts_no_period),
		cmocka_unit_test(the_right_clock_still_expires),
	};

	curl_global_init(CURL_GLOBAL_DEFAULT);
	return cmocka_run_group_tests(tests, setup, teardown);
}

/*
 * test_quota.c - quota accounting against a real slapd and privd: parallel
 * chargers against a limit, replays, refunds, holds, credits, a period
 * boundary, slapd going away mid-stream and privd killed mid-stream. After
 * each, `privd --check-ledger` must find every counter equal to its ledger.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "harness.h"

#define Q "/v1/accounts/%s/quotas/print.pages"

static const char model[] =
    "reasons: { test: { load: {}, solo: {} } }\n"
    "organisations: { lab: {} }\n"
    "grants:\n"
    "  \"test/load@lab\": { print.pages: 150 }\n"
    "  \"test/solo@lab\": { print.pages: 100 }\n"
    "accounts:\n"
    "  racer: [test/load@lab]\n"
    "  refunder: [test/solo@lab]\n"
    "  holder: [test/solo@lab]\n"
    "  creditee: [test/solo@lab]\n"
    "  crosser: [test/solo@lab]\n"
    "  streamer: [test/solo@lab]\n"
    "  killed: [test/solo@lab]\n"
    "  nogrant: []\n";

static char *
path(const char *uid, const char *tail)
{
	static __thread char buf[256];

	snprintf(buf, sizeof(buf), Q "%s", uid, tail);
	return buf;
}

/* POST body to the quota's sub-route tail with key; answers its status. */
static long
post(const char *uid, const char *tail, const char *key, json_t **out,
    const char *fmt, ...)
{
	char body[1024];
	va_list ap;
	long status;
	char *text;

	va_start(ap, fmt);
	vsnprintf(body, sizeof(body), fmt, ap);
	va_end(ap);
	text = it_request("POST", path(uid, tail), key, body, strlen(body), &status);
	if (out != NULL) {
		*out = json_loads(text, 0, NULL);
		if (*out == NULL)
			fail_msg("POST %s: not JSON: %s", path(uid, tail), text);
	}
	free(text);
	return status;
}

static const char *
str(json_t *j, const char *k)
{
	const char *s = json_string_value(json_object_get(j, k));

	return s ? s : "";
}

/* The quota as GET .../quotas/print.pages shows it. */
static json_int_t
used_of(const char *uid)
{
	json_t *j = it_get(path(uid, ""), 200);
	json_int_t n = it_num(j, "used");

	json_decref(j);
	return n;
}

static json_int_t
ledger_total(const char *uid, const char *period)
{
	char p[256];
	json_t *j;
	json_int_t n;

	snprintf(p, sizeof(p), Q "/ledger%s%s", uid, period ? "?period=" : "",
	    period ? period : "");
	j = it_get(p, 200);
	n = it_num(j, "total");
	json_decref(j);
	return n;
}

/* A charge from a thread: never fails the test (cmocka cannot from here). */
static long
try_post(const char *uid, const char *id)
{
	char body[128];
	long status = 0;
	char *text;

	snprintf(body, sizeof(body), "{\"request_id\":\"%s\",\"amount\":1}", id);
	text = it_try_request("POST", path(uid, "/charges"), CHARGE_KEY, body,
	    strlen(body), &status);
	free(text);
	return status;
}

static int
setup(void **state)
{
	return it_group_setup_model(state, model);
}

/* request i of racer t: one page */
static void
race_body(int t, int i, char *buf, size_t n)
{
	snprintf(buf, n, "{\"request_id\":\"race-%d-%d\",\"amount\":1}", t, i);
}

static void
parallel_charges_stop_at_the_limit(void **state)
{
	struct it_tally n;
	int i, replayed = 0;

	(void)state;
	n = it_race(10, 20, path("racer", "/charges"), CHARGE_KEY, race_body);
	fprintf(stderr, "parallel charges: %d accepted, %d refused, %d other\n",
	    n.ok, n.refused, n.other);
	assert_int_equal(n.other, 0);
	assert_int_equal(n.ok, 150);
	assert_int_equal(n.refused, 50);
	assert_int_equal(used_of("racer"), 150);
	assert_int_equal(ledger_total("racer", NULL), 150);

	/* every request again: the accepted ones are replays, nothing changes */
	for (i = 0; i < 200; i++) {
		json_t *j;
		long st = post("racer", "/charges", CHARGE_KEY, &j,
		    "{\"request_id\":\"race-%d-%d\",\"amount\":1}", i / 20, i % 20);

		if (st == 200) {
			assert_true(json_is_true(json_object_get(j, "replayed")));
			replayed++;
		} else
			assert_int_equal(st, 409);
		json_decref(j);
	}
	assert_int_equal(replayed, 150);
	assert_int_equal(used_of("racer"), 150);
	assert_int_equal(ledger_total("racer", NULL), 150);
	it_check_ledger();
	/* each write brought its counters back in its answer (post-read):
	 * none needed a second search */
	assert_int_equal(it_metric("privd_quota_read_backs_total "), 0);
}

static void
charge_answers_and_replays(void **state)
{
	json_t *j;

	(void)state;
	assert_int_equal(post("refunder", "/charges", CHARGE_KEY, &j,
	    "{\"request_id\":\"job-1\",\"amount\":30,\"metadata\":{\"printer\":\"eng-laser\"}}"), 201);
	assert_int_equal(it_num(j, "charged"), 30);
	assert_int_equal(it_num(j, "used"), 30);
	assert_int_equal(it_num(j, "limit"), 100);
	assert_int_equal(it_num(j, "remaining"), 70);
	assert_true(strlen(str(j, "period")) > 0);
	json_decref(j);
	/* read-your-writes: a read right after the answer shows it */
	assert_int_equal(used_of("refunder"), 30);
	j = it_get("/v1/accounts/refunder/privileges", 200);
	assert_int_equal(it_num(json_object_get(json_object_get(j, "privileges"), "print.pages"),
	    "used"), 30);
	json_decref(j);
	assert_int_equal(post("refunder", "/charges", CHARGE_KEY, &j,
	    "{\"request_id\":\"job-1\",\"amount\":30}"), 200);
	assert_true(json_is_true(json_object_get(j, "replayed")));
	assert_int_equal(it_num(j, "charged"), 30);
	json_decref(j);
	assert_int_equal(post("refunder", "/charges", CHARGE_KEY, &j,
	    "{\"request_id\":\"job-1\",\"amount\":31}"), 409);
	assert_string_equal(str(j, "error"), "request_id_reused");
	json_decref(j);
	/* over the limit: refused whole, nothing changes */
	assert_int_equal(post("refunder", "/charges", CHARGE_KEY, &j,
	    "{\"request_id\":\"job-2\",\"amount\":71}"), 409);
	assert_string_equal(str(j, "error"), "quota_exceeded");
	assert_int_equal(it_num(j, "remaining"), 70);
	json_decref(j);
	assert_int_equal(used_of("refunder"), 30);
	/* partial takes what remains */
	assert_int_equal(post("refunder", "/charges", CHARGE_KEY, &j,
	    "{\"request_id\":\"job-3\",\"amount\":80,\"partial\":true}"), 201);
	assert_int_equal(it_num(j, "charged"), 70);
	assert_int_equal(it_num(j, "remaining"), 0);
	json_decref(j);
	j = it_get("/v1/accounts/refunder/check?privilege=print.pages&value=1", 200);
	assert_false(json_is_true(json_object_get(j, "allowed")));
	json_decref(j);
	it_check_ledger();
}

static void
refunds_give_back_at_most_the_charge(void **state)
{
	json_t *j;

	(void)state;
	assert_int_equal(post("refunder", "/refunds", CHARGE_KEY, &j,
	    "{\"request_id\":\"ref-1\",\"charge_id\":\"job-1\",\"amount\":10}"), 201);
	assert_int_equal(it_num(j, "refunded"), 10);
	assert_int_equal(it_num(j, "used"), 90);
	json_decref(j);
	assert_int_equal(post("refunder", "/refunds", CHARGE_KEY, &j,
	    "{\"request_id\":\"ref-1\",\"charge_id\":\"job-1\",\"amount\":10}"), 200);
	assert_true(json_is_true(json_object_get(j, "replayed")));
	json_decref(j);
	/* a second, partial refund: 20 of the 30 are left */
	assert_int_equal(post("refunder", "/refunds", CHARGE_KEY, &j,
	    "{\"request_id\":\"ref-2\",\"charge_id\":\"job-1\",\"amount\":21}"), 409);
	assert_string_equal(str(j, "error"), "refund_exceeds_charge");
	assert_int_equal(it_num(j, "refundable"), 20);
	json_decref(j);
	assert_int_equal(post("refunder", "/refunds", CHARGE_KEY, &j,
	    "{\"request_id\":\"ref-2\",\"charge_id\":\"job-1\",\"amount\":20}"), 201);
	assert_int_equal(it_num(j, "used"), 70);
	json_decref(j);
	assert_int_equal(post("refunder", "/refunds", CHARGE_KEY, &j,
	    "{\"request_id\":\"ref-3\",\"charge_id\":\"job-1\",\"amount\":1}"), 409);
	json_decref(j);
	assert_int_equal(post("refunder", "/refunds", CHARGE_KEY, &j,
	    "{\"request_id\":\"ref-4\",\"charge_id\":\"no-such-job\",\"amount\":1}"), 404);
	assert_string_equal(str(j, "field"), "charge_id");
	json_decref(j);
	assert_int_equal(used_of("refunder"), 70);
	it_check_ledger();
}

static int
holder_released(void)
{
	json_t *j = it_get(path("holder", ""), 200);
	int yes = it_num(j, "held") == 0;

	json_decref(j);
	return yes;
}

static void
holds_reserve_commit_release_expire(void **state)
{
	json_t *j, *e;
	size_t i;
	int expired = 0;

	(void)state;
	assert_int_equal(post("holder", "/holds", CHARGE_KEY, &j,
	    "{\"request_id\":\"h-1\",\"amount\":60,\"ttl_s\":600}"), 201);
	assert_int_equal(it_num(j, "amount"), 60);
	assert_int_equal(it_num(j, "held"), 60);
	assert_int_equal(it_num(j, "remaining"), 40);
	/* the answer names the hold and where it settles */
	assert_string_equal(json_string_value(json_object_get(j, "hold_id")), "h-1");
	assert_string_equal(json_string_value(json_object_get(j, "commit")),
	    "/v1/accounts/holder/quotas/print.pages/holds/h-1/commit");
	json_decref(j);
	/* what is held counts as used: a job cannot take it */
	assert_int_equal(post("holder", "/charges", CHARGE_KEY, &j,
	    "{\"request_id\":\"c-1\",\"amount\":41}"), 409);
	json_decref(j);
	/* committed with less than it held: the rest comes back */
	assert_int_equal(post("holder", "/holds/h-1/commit", CHARGE_KEY, &j,
	    "{\"amount\":45}"), 200);
	assert_int_equal(it_num(j, "committed"), 45);
	assert_int_equal(it_num(j, "released"), 15);
	assert_int_equal(it_num(j, "used"), 45);
	assert_int_equal(it_num(j, "held"), 0);
	json_decref(j);
	assert_int_equal(post("holder", "/holds/h-1/commit", CHARGE_KEY, &j,
	    "{\"amount\":45}"), 200);
	assert_true(json_is_true(json_object_get(j, "replayed")));
	json_decref(j);
	assert_int_equal(post("holder", "/holds/h-1/commit", CHARGE_KEY, &j,
	    "{\"amount\":40}"), 409);
	assert_string_equal(str(j, "error"), "hold_settled");
	json_decref(j);
	/* more than held */
	assert_int_equal(post("holder", "/holds", CHARGE_KEY, NULL,
	    "{\"request_id\":\"h-2\",\"amount\":5}"), 201);
	assert_int_equal(post("holder", "/holds/h-2/commit", CHARGE_KEY, &j,
	    "{\"amount\":6}"), 400);
	assert_string_equal(str(j, "field"), "amount");
	json_decref(j);
	/* released: all of it back */
	j = it_call("DELETE", path("holder", "/holds/h-2"), CHARGE_KEY, NULL, 200);
	assert_int_equal(it_num(j, "released"), 5);
	assert_int_equal(it_num(j, "used"), 45);
	json_decref(j);
	/* expired: privd releases it and records the release */
	assert_int_equal(post("holder", "/holds", CHARGE_KEY, NULL,
	    "{\"request_id\":\"h-3\",\"amount\":10,\"ttl_s\":1}"), 201);
	assert_int_equal(used_of("holder"), 55);
	assert_true(it_within(5000, holder_released) >= 0);
	assert_int_equal(used_of("holder"), 45);
	assert_int_equal(post("holder", "/holds/h-3/commit", CHARGE_KEY, &j,
	    "{\"amount\":10}"), 409);
	assert_string_equal(str(j, "error"), "hold_expired");
	json_decref(j);
	j = it_get(path("holder", "/ledger"), 200);
	json_array_foreach(json_object_get(j, "entries"), i, e)
		if (strcmp(str(e, "kind"), "expire") == 0 && strcmp(str(e, "request_id"), "h-3") == 0)
			expired = 1;
	json_decref(j);
	assert_true(expired);
	/* a hold survives a privd restart */
	assert_int_equal(post("holder", "/holds", CHARGE_KEY, NULL,
	    "{\"request_id\":\"h-4\",\"amount\":7,\"ttl_s\":600}"), 201);
	it_sh("tests/integration/env.sh privd-restart %s/env", it_dir);
	assert_int_equal(post("holder", "/holds/h-4/commit", CHARGE_KEY, &j,
	    "{\"amount\":7}"), 200);
	assert_int_equal(it_num(j, "used"), 52);
	json_decref(j);
	it_check_ledger();
}

/* A replayed hold says where it stands; a commit carries the hold's metadata. */
static void
hold_replay_state_and_commit_metadata(void **state)
{
	const char *h5 = "{\"request_id\":\"h-5\",\"amount\":3,\"metadata\":{\"job\":\"7\"}}";
	const char *h6 = "{\"request_id\":\"h-6\",\"amount\":2}";
	json_t *j, *e, *want = json_pack("{s:s}", "job", "7");
	size_t i;
	int found = 0;

	(void)state;
	assert_int_equal(post("holder", "/holds", CHARGE_KEY, &j, "%s", h5), 201);
	assert_string_equal(str(j, "state"), "open");
	json_decref(j);
	assert_int_equal(post("holder", "/holds", CHARGE_KEY, &j, "%s", h5), 200);
	assert_true(json_is_true(json_object_get(j, "replayed")));
	assert_string_equal(str(j, "state"), "open");
	json_decref(j);
	assert_int_equal(post("holder", "/holds/h-5/commit", CHARGE_KEY, NULL,
	    "{\"amount\":3}"), 200);
	assert_int_equal(post("holder", "/holds", CHARGE_KEY, &j, "%s", h5), 200);
	assert_string_equal(str(j, "state"), "committed");
	json_decref(j);
	assert_int_equal(post("holder", "/holds", CHARGE_KEY, NULL, "%s", h6), 201);
	json_decref(it_call("DELETE", path("holder", "/holds/h-6"), CHARGE_KEY, NULL, 200));
	assert_int_equal(post("holder", "/holds", CHARGE_KEY, &j, "%s", h6), 200);
	assert_string_equal(str(j, "state"), "released");
	json_decref(j);
	j = it_get(path("holder", "/ledger"), 200);
	json_array_foreach(json_object_get(j, "entries"), i, e)
		if (strcmp(str(e, "kind"), "commit") == 0 && strcmp(str(e, "request_id"), "h-5") == 0)
			found = json_equal(json_object_get(e, "metadata"), want);
	json_decref(j);
	json_decref(want);
	assert_true(found);
	it_check_ledger();
}

static void
credit_raises_the_limit(void **state)
{
	json_t *j;

	(void)state;
	assert_int_equal(post("creditee", "/charges", CHARGE_KEY, NULL,
	    "{\"request_id\":\"c-1\",\"amount\":100}"), 201);
	assert_int_equal(post("creditee", "/charges", CHARGE_KEY, NULL,
	    "{\"request_id\":\"c-2\",\"amount\":1}"), 409);
	/* an administrator's act, not a print system's */
	assert_int_equal(post("creditee", "/credits", CHARGE_KEY, &j,
	    "{\"request_id\":\"cr-1\",\"amount\":25,\"reason\":\"thesis\"}"), 403);
	json_decref(j);
	assert_int_equal(post("creditee", "/credits", ADMIN_KEY, &j,
	    "{\"request_id\":\"cr-1\",\"amount\":25,\"reason\":\"thesis\"}"), 201);
	assert_int_equal(it_num(j, "credit"), 25);
	assert_int_equal(it_num(j, "remaining"), 25);
	json_decref(j);
	assert_int_equal(post("creditee", "/charges", CHARGE_KEY, &j,
	    "{\"request_id\":\"c-3\",\"amount\":25}"), 201);
	assert_int_equal(it_num(j, "remaining"), 0);
	json_decref(j);
	assert_int_equal(post("creditee", "/charges", CHARGE_KEY, NULL,
	    "{\"request_id\":\"c-4\",\"amount\":1}"), 409);
	/* a credit for a named period, and the ledger of that period */
	assert_int_equal(post("creditee", "/credits", ADMIN_KEY, &j,
	    "{\"request_id\":\"cr-2\",\"amount\":5,\"period\":\"2030T1\"}"), 201);
	assert_string_equal(str(j, "period"), "2030T1");
	json_decref(j);
	assert_int_equal(ledger_total("creditee", "2030T1"), 1);
	assert_int_equal(post("creditee", "/credits", ADMIN_KEY, &j,
	    "{\"request_id\":\"cr-3\",\"amount\":5,\"period\":\"1999T9\"}"), 400);
	assert_string_equal(str(j, "field"), "period");
	json_decref(j);
	it_check_ledger();
}

static void
bad_requests_name_the_field(void **state)
{
	static const struct { const char *body, *field; } bad[] = {
		{ "{\"request_id\":\"b-1\",\"amount\":0}", "amount" },
		{ "{\"request_id\":\"b-1\",\"amount\":-5}", "amount" },
		{ "{\"request_id\":\"b-1\",\"amount\":10000000000}", "amount" },
		{ "{\"request_id\":\"b-1\",\"amount\":\"12\"}", "amount" },
		{ "{\"request_id\":\"b-1\",\"amount\":1.5}", "amount" },
		{ "{\"amount\":1}", "request_id" },
		{ "{\"request_id\":\"a b\",\"amount\":1}", "request_id" },
		{ "{\"request_id\":\"x)(uid=*\",\"amount\":1}", "request_id" },
		{ "{\"request_id\":7,\"amount\":1}", "request_id" },
		{ "{\"request_id\":\"b-1\",\"amount\":1,\"colour\":true}", "colour" },
		{ "{\"request_id\":\"b-1\",\"amount\":1,\"partial\":\"yes\"}", "partial" },
		{ "{\"request_id\":\"b-1\",\"amount\":1,\"metadata\":[1]}", "metadata" },
		{ "[1,2]", "body" },
		{ "{\"request_id\":", "body" },
	};
	size_t i;
	json_t *j;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(post("creditee", "/charges", CHARGE_KEY, &j, "%s", bad[i].body), 400);
		if (strcmp(str(j, "field"), bad[i].field) != 0)
			fail_msg("%s: field '%s', want '%s'", bad[i].body, str(j, "field"), bad[i].field);
		json_decref(j);
	}
	j = it_call("POST", "/v1/accounts/nobody/quotas/print.pages/charges", CHARGE_KEY,
	    "{\"request_id\":\"b-2\",\"amount\":1}", 404);
	assert_string_equal(str(j, "error"), "unknown_account");
	json_decref(j);
	j = it_call("POST", "/v1/accounts/racer/quotas/printer.access/charges", CHARGE_KEY,
	    "{\"request_id\":\"b-2\",\"amount\":1}", 404);
	assert_string_equal(str(j, "error"), "unknown_quota");
	json_decref(j);
	j = it_call("POST", "/v1/accounts/racer/quotas/print.pages/charges", READ_KEY,
	    "{\"request_id\":\"b-2\",\"amount\":1}", 403);
	json_decref(j);
	/* no grant: a limit of 0 */
	assert_int_equal(post("nogrant", "/charges", CHARGE_KEY, &j,
	    "{\"request_id\":\"b-3\",\"amount\":1}"), 409);
	assert_string_equal(str(j, "error"), "quota_exceeded");
	assert_int_equal(it_num(j, "limit"), 0);
	json_decref(j);
	/* none of it was written */
	assert_int_equal(ledger_total("creditee", NULL), 3);
}

/* 2027-01-01T00:00:00Z, where 2026T3 ends and 2027T1 begins in dev.yaml */
#define BOUNDARY 1798761600L

static void
charge_across_a_term_boundary(void **state)
{
	char off[32];
	long t0;
	json_t *j;

	(void)state;
	/* privd's clock 10 s before the boundary: a restart under ASan on a
	 * loaded machine has taken more than 3 */
	t0 = (long)time(NULL);
	snprintf(off, sizeof(off), "%ld:site", BOUNDARY - 10 - t0);
	setenv("PRIVD_CLOCK_OFFSET", off, 1);
	it_sh("tests/integration/env.sh privd-restart %s/env", it_dir);
	unsetenv("PRIVD_CLOCK_OFFSET");
	assert_int_equal(post("crosser", "/charges", CHARGE_KEY, &j,
	    "{\"request_id\":\"x-1\",\"amount\":60}"), 201);
	assert_string_equal(str(j, "period"), "2026T3");
	json_decref(j);
	while ((long)time(NULL) < t0 + 11)
		usleep(100000);
	/* the new term starts at zero: 60 would not fit in the old one */
	assert_int_equal(post("crosser", "/charges", CHARGE_KEY, &j,
	    "{\"request_id\":\"x-2\",\"amount\":60}"), 201);
	assert_string_equal(str(j, "period"), "2027T1");
	assert_int_equal(it_num(j, "used"), 60);
	json_decref(j);
	assert_int_equal(ledger_total("crosser", "2026T3"), 1);
	assert_int_equal(ledger_total("crosser", "2027T1"), 1);
	it_sh("tests/integration/env.sh privd-restart %s/env", it_dir);
	it_check_ledger();
}

/* test/solo@lab: a limit the streams do not reach */
static int
solo_is_big(void)
{
	return it_limit_of("streamer", "print.pages") == 100000;
}

static void
big_limit(void)
{
	it_ldapmodify("dn: cn=test/solo@lab,ou=cells," BASE "\n"
	    "changetype: modify\nreplace: privGrant\nprivGrant: print.pages=100000\n");
	assert_true(it_within(2000, solo_is_big) >= 0);
}

struct stream {
	const char *uid;
	volatile int stop;
	int ok, unavailable, other, n;
	char ids[4000][24];	/* the accepted request ids */
};

static void *
stream(void *arg)
{
	struct stream *s = arg;
	int i;

	for (i = 0; !s->stop && s->ok < 4000; i++) {
		char id[24];
		long st;

		snprintf(id, sizeof(id), "s-%d", i);
		st = try_post(s->uid, id);
		if (st == 201)
			memcpy(s->ids[s->ok++], id, sizeof(id));
		else if (st == 503)
			s->unavailable++;
		else if (st != 0)
			s->other++;
		s->n++;
		if (st == 409)
			break;	/* the limit: the stream is over */
	}
	return NULL;
}

static int
streamer_charges(void)
{
	long st = post("streamer", "/charges", CHARGE_KEY, NULL,
	    "{\"request_id\":\"after-%ld\",\"amount\":1}", it_now_ms());

	return st == 201;
}

static void
slapd_away_during_a_charge_stream(void **state)
{
	static struct stream s;
	pthread_t t;
	int i, missing = 0;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.uid = "streamer";
	big_limit();
	assert_int_equal(pthread_create(&t, NULL, stream, &s), 0);
	usleep(500000);
	it_sh("tests/integration/env.sh slapd-stop %s/env", it_dir);
	usleep(1000000);
	it_sh("tests/integration/env.sh slapd-start %s/env", it_dir);
	/* privd reconnects by itself: charges succeed again */
	assert_true(it_within(10000, streamer_charges) >= 0);
	usleep(300000);
	s.stop = 1;
	pthread_join(t, NULL);
	fprintf(stderr, "charge stream with slapd stopped: %d requests, %d accepted, "
	    "%d unavailable (503), %d other\n", s.n, s.ok, s.unavailable, s.other);
	assert_int_equal(s.other, 0);
	assert_true(s.unavailable > 0);
	assert_true(s.ok > 0);
	/* every accepted charge is in the ledger */
	{
		json_t *j = it_get("/v1/accounts/streamer/quotas/print.pages/ledger?limit=1000", 200);
		json_t *entries = json_object_get(j, "entries"), *e;
		size_t k;

		for (i = 0; i < s.ok; i++) {
			int found = 0;

			json_array_foreach(entries, k, e)
				if (strcmp(str(e, "request_id"), s.ids[i]) == 0)
					found = 1;
			missing += !found;
		}
		json_decref(j);
	}
	assert_int_equal(missing, 0);
	it_check_ledger();
}

static void
sigkill_during_a_charge_stream(void **state)
{
	static struct stream s;
	pthread_t t;
	json_int_t used, entries;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.uid = "killed";
	big_limit();
	assert_int_equal(pthread_create(&t, NULL, stream, &s), 0);
	usleep(400000);
	assert_int_equal(kill(it_pid_of("privd.pid"), SIGKILL), 0);
	usleep(200000);
	s.stop = 1;
	pthread_join(t, NULL);
	it_sh("tests/integration/env.sh privd-restart %s/env", it_dir);
	used = used_of("killed");
	entries = ledger_total("killed", NULL);
	fprintf(stderr, "SIGKILL in a charge stream: %d accepted before the kill; "
	    "used %lld, ledger %lld\n", s.ok, (long long)used, (long long)entries);
	assert_true(s.ok > 0);
	assert_int_equal(used, entries);
	assert_true(entries >= s.ok);
	it_check_ledger();
}

/* The check is not a rubber stamp: a counter changed behind privd's back fails it. */
static void
check_ledger_finds_tampering(void **state)
{
	char cmd[512];
	const char *bin = getenv("PRIVD_BIN") ? getenv("PRIVD_BIN") : "server/privd";
	json_t *j = it_get(path("racer", ""), 200);
	char ldif[512];

	(void)state;
	snprintf(ldif, sizeof(ldif), "dn: cn=print.pages@%s,uid=racer,ou=usage," BASE "\n"
	    "changetype: modify\nincrement: privUsed\nprivUsed: 1\n", str(j, "period"));
	it_ldapmodify(ldif);
	snprintf(cmd, sizeof(cmd), "%s -c config/dev.yaml -L ldap://127.0.0.1:%d/ "
	    "--check-ledger >&2", bin, it_ldap_port);
	assert_int_equal(WEXITSTATUS(system(cmd)), 1);
	/* --repair sets the counter back to what the ledger says, and says so */
	snprintf(cmd, sizeof(cmd), "%s -c config/dev.yaml -L ldap://127.0.0.1:%d/ "
	    "--check-ledger --repair > %s/repair.out 2>&1", bin, it_ldap_port, it_dir);
	assert_int_equal(WEXITSTATUS(system(cmd)), 0);
	it_sh("grep -q '^racer/print.pages@[^:]*: repaired: privUsed [0-9]* -> [0-9]*$' "
	    "%s/repair.out && grep -q '1 usage entry repaired' %s/repair.out || "
	    "{ cat %s/repair.out >&2; exit 1; }", it_dir, it_dir, it_dir);
	it_check_ledger();
	/* a segment above privSegments holding a charge the window lacks (what
	 * a provider that lost window values looks like): counted and named */
	snprintf(ldif, sizeof(ldif), "dn: cn=999,cn=print.pages@%s,uid=racer,ou=usage," BASE "\n"
	    "changetype: add\nobjectClass: privLedgerSegment\ncn: 999\nprivArchived: 1\n"
	    "privEntry: {\"id\":\"lost-1\",\"kind\":\"charge\",\"amount\":5,"
	    "\"time\":\"20261204T000000Z\",\"actor\":\"x\"}\n", str(j, "period"));
	it_ldapmodify(ldif);
	snprintf(cmd, sizeof(cmd), "%s -c config/dev.yaml -L ldap://127.0.0.1:%d/ "
	    "--check-ledger > %s/above.out 2>&1", bin, it_ldap_port, it_dir);
	assert_int_equal(WEXITSTATUS(system(cmd)), 1);
	it_sh("grep -q 'segment 999, above privSegments [0-9]*, holds 1 entry not in the "
	    "window' %s/above.out && grep -q 'privUsed is [0-9]*, the ledger sums to' %s/above.out "
	    "|| { cat %s/above.out >&2; exit 1; }", it_dir, it_dir, it_dir);
	snprintf(ldif, sizeof(ldif), "dn: cn=999,cn=print.pages@%s,uid=racer,ou=usage," BASE "\n"
	    "changetype: delete\n", str(j, "period"));
	it_ldapmodify(ldif);
	json_decref(j);
	it_check_ledger();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parallel_charges_stop_at_the_limit),
		cmocka_unit_test(charge_answers_and_replays),
		cmocka_unit_test(refunds_give_back_at_most_the_charge),
		cmocka_unit_test(holds_reserve_commit_release_expire),
		cmocka_unit_test(hold_replay_state_and_commit_metadata),
		cmocka_unit_test(credit_raises_the_limit),
		cmocka_unit_test(bad_requests_name_the_field),
		cmocka_unit_test(charge_across_a_term_boundary),
		cmocka_unit_test(slapd_away_during_a_charge_stream),
		cmocka_unit_test(sigkill_during_a_charge_stream),
		cmocka_unit_test(check_ledger_finds_tampering),
	};

	return cmocka_run_group_tests_name("quota", tests, setup, it_group_teardown);
}

/*
 * test_wallets.c - the allowance and the paid balance (server/wallet.h)
 * against a real slapd and privd: top-ups (scope topup, idempotent,
 * reversed by an admin), charges drawn on the allowance first and split
 * when they need both, replays, refunds and holds going back to the
 * wallet each part came from, the ledger saying which; and the split's
 * guarantee under faults: privd SIGKILLed between the two parts, slapd
 * stopped between them, the paid wallet emptied between them. A checker
 * counts what each account's wallets hold against what was answered.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "harness.h"

#define TOPUP_KEY "dev-topup-7e3b9c1f05"

static const char model[] =
    "reasons: { student: { undergrad: {} } }\n"
    "organisations: { eng: {} }\n"
    "grants:\n"
    "  \"student@\": { print.pages: 10 }\n"
    "accounts:\n"
    "  w1: [student/undergrad@eng]\n"
    "  w2: [student/undergrad@eng]\n"
    "  w3: [student/undergrad@eng]\n"
    "  w4: [student/undergrad@eng]\n"
    "  w5: [student/undergrad@eng]\n"
    "  w6: [student/undergrad@eng]\n"
    "  w7: [student/undergrad@eng]\n";

static char term[32];	/* the allowance's period now (entries_with) */

static int
setup(void **state)
{
	json_t *j;

	if (it_group_setup_model(state, model) != 0)
		return -1;
	j = it_get("/v1/accounts/w1/quotas/print.pages", 200);
	snprintf(term, sizeof(term), "%s", json_string_value(json_object_get(j, "period")));
	json_decref(j);
	return 0;
}

static char *
qp(const char *uid, const char *tail)
{
	static char buf[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "/v1/accounts/%s/quotas/print.pages%s", uid, tail);
	return buf[i];
}

static json_t *
post(const char *uid, const char *tail, const char *key, long want, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static json_t *
post(const char *uid, const char *tail, const char *key, long want, const char *fmt, ...)
{
	char body[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(body, sizeof(body), fmt, ap);
	va_end(ap);
	return it_call("POST", qp(uid, tail), key, body, want);
}

static json_int_t
paid(json_t *j, const char *k)
{
	json_t *p = json_object_get(j, "paid");

	if (p == NULL)
		fail_msg("no paid wallet in the answer: %s", json_dumps(j, 0));
	return it_num(p, k);
}

static void
wallets(json_t *j, json_int_t allowance, json_int_t pd)
{
	json_t *w = json_object_get(j, "wallets");

	if (w == NULL)
		fail_msg("no wallets in the answer: %s", json_dumps(j, 0));
	assert_int_equal(it_num(w, "allowance"), allowance);
	assert_int_equal(it_num(w, "paid"), pd);
}

static void
topup(const char *uid, const char *rid, int amount)
{
	json_decref(post(uid, "/topups", TOPUP_KEY, 201,
	    "{\"request_id\":\"%s\",\"amount\":%d,\"reference\":\"desk 3\"}", rid, amount));
}

/*
 * The checker: an account's wallets as privd answers them must be what
 * the answered writes add up to: used of the allowance, used and topped
 * up of the paid wallet. Lost or doubled parts show here.
 */
static void
holds(const char *uid, json_int_t used, json_int_t paid_used, json_int_t topped)
{
	json_t *j = it_get(qp(uid, ""), 200);

	if (it_num(j, "used") != used || paid(j, "used") != paid_used ||
	    paid(j, "topped_up") != topped)
		fail_msg("%s: allowance used %lld (want %lld), paid used %lld (want %lld), "
		    "topped up %lld (want %lld)", uid, (long long)it_num(j, "used"),
		    (long long)used, (long long)paid(j, "used"), (long long)paid_used,
		    (long long)paid(j, "topped_up"), (long long)topped);
	assert_int_equal(it_num(j, "total_remaining"), 10 - used + topped - paid_used);
	json_decref(j);
}

static void
topups_are_scoped_idempotent_and_reversible(void **state)
{
	json_t *j;

	(void)state;
	j = it_get(qp("w1", ""), 200);
	assert_int_equal(paid(j, "remaining"), 0);
	assert_int_equal(it_num(j, "total_remaining"), 10);
	json_decref(j);
	/* only a topup (or admin) key tops up */
	json_decref(post("w1", "/topups", CHARGE_KEY, 403, "{\"request_id\":\"t-0\",\"amount\":5}"));
	json_decref(post("w1", "/topups", READ_KEY, 403, "{\"request_id\":\"t-0\",\"amount\":5}"));
	j = post("w1", "/topups", TOPUP_KEY, 400, "{\"request_id\":\"t-0\",\"amount\":0}");
	assert_string_equal(json_string_value(json_object_get(j, "field")), "amount");
	json_decref(j);
	j = post("w1", "/topups", TOPUP_KEY, 201, "{\"request_id\":\"t-1\",\"amount\":20}");
	assert_int_equal(it_num(j, "topped_up"), 20);
	assert_int_equal(paid(j, "remaining"), 20);
	assert_int_equal(it_num(j, "total_remaining"), 30);
	json_decref(j);
	/* the same top-up again adds nothing */
	j = post("w1", "/topups", TOPUP_KEY, 200, "{\"request_id\":\"t-1\",\"amount\":20}");
	assert_true(json_is_true(json_object_get(j, "replayed")));
	assert_int_equal(paid(j, "remaining"), 20);
	json_decref(j);
	json_decref(post("w1", "/topups", TOPUP_KEY, 409, "{\"request_id\":\"t-1\",\"amount\":25}"));
	/* a reversal is a ledger entry, once; only an admin makes one */
	topup("w1", "t-2", 7);
	json_decref(post("w1", "/topups/t-2/reversal", TOPUP_KEY, 403, "{}"));
	j = post("w1", "/topups/t-2/reversal", ADMIN_KEY, 201, "{\"reason\":\"typo\"}");
	assert_int_equal(it_num(j, "reversed"), 7);
	assert_int_equal(paid(j, "remaining"), 20);
	json_decref(j);
	j = post("w1", "/topups/t-2/reversal", ADMIN_KEY, 200, "{}");
	assert_true(json_is_true(json_object_get(j, "replayed")));
	json_decref(j);
	json_decref(post("w1", "/topups/t-9/reversal", ADMIN_KEY, 404, "{}"));
	j = it_get(qp("w1", "/ledger?wallet=paid"), 200);
	assert_string_equal(json_string_value(json_object_get(j, "wallet")), "paid");
	assert_int_equal(it_num(j, "total"), 3);	/* t-1, t-2 and its reversal */
	json_decref(j);
	holds("w1", 0, 0, 20);
	it_check_ledger();
}

static void
charges_draw_the_allowance_first_then_split(void **state)
{
	json_t *j, *l, *e;
	size_t i;
	int seen = 0;

	(void)state;
	topup("w2", "t-1", 20);
	j = post("w2", "/charges", CHARGE_KEY, 201, "{\"request_id\":\"c-1\",\"amount\":6}");
	wallets(j, 6, 0);
	json_decref(j);
	/* 4 left of the allowance: the charge of 8 is split */
	j = post("w2", "/charges", CHARGE_KEY, 201, "{\"request_id\":\"c-2\",\"amount\":8}");
	wallets(j, 4, 4);
	assert_int_equal(it_num(j, "charged"), 8);
	assert_int_equal(it_num(j, "remaining"), 0);
	assert_int_equal(paid(j, "remaining"), 16);
	json_decref(j);
	/* the allowance is spent: the paid wallet alone */
	j = post("w2", "/charges", CHARGE_KEY, 201, "{\"request_id\":\"c-3\",\"amount\":3}");
	wallets(j, 0, 3);
	json_decref(j);
	/* a replay of the split charges nothing and answers its parts */
	j = post("w2", "/charges", CHARGE_KEY, 200, "{\"request_id\":\"c-2\",\"amount\":8}");
	assert_true(json_is_true(json_object_get(j, "replayed")));
	wallets(j, 4, 4);
	json_decref(j);
	json_decref(post("w2", "/charges", CHARGE_KEY, 409, "{\"request_id\":\"c-2\",\"amount\":9}"));
	/* more than both hold: refused, naming both, and nothing changes */
	j = post("w2", "/charges", CHARGE_KEY, 409, "{\"request_id\":\"c-4\",\"amount\":14}");
	assert_string_equal(json_string_value(json_object_get(j, "error")), "quota_exceeded");
	assert_int_equal(it_num(j, "total_remaining"), 13);
	json_decref(j);
	/* partial: what both have */
	j = post("w2", "/charges", CHARGE_KEY, 201,
	    "{\"request_id\":\"c-5\",\"amount\":14,\"partial\":true}");
	assert_int_equal(it_num(j, "charged"), 13);
	wallets(j, 0, 13);
	json_decref(j);
	holds("w2", 10, 20, 20);
	/* the ledger says which wallet */
	l = it_get(qp("w2", "/ledger"), 200);
	assert_string_equal(json_string_value(json_object_get(l, "wallet")), "allowance");
	json_array_foreach(json_object_get(l, "entries"), i, e) {
		if (strcmp(json_string_value(json_object_get(e, "request_id")), "c-2") == 0) {
			wallets(e, 4, 4);
			seen++;
		} else if (strcmp(json_string_value(json_object_get(e, "request_id")), "c-1") == 0) {
			assert_string_equal(json_string_value(json_object_get(e, "wallet")),
			    "allowance");
			seen++;
		}
	}
	assert_int_equal(seen, 2);
	json_decref(l);
	it_check_ledger();
}

static void
refunds_and_holds_go_back_where_they_came_from(void **state)
{
	json_t *j;

	(void)state;
	topup("w3", "t-1", 10);
	j = post("w3", "/charges", CHARGE_KEY, 201, "{\"request_id\":\"c-1\",\"amount\":15}");
	wallets(j, 10, 5);
	json_decref(j);
	j = post("w3", "/refunds", CHARGE_KEY, 201,
	    "{\"request_id\":\"r-1\",\"charge_id\":\"c-1\",\"amount\":12}");
	wallets(j, 10, 2);
	assert_int_equal(it_num(j, "refunded"), 12);
	json_decref(j);
	holds("w3", 0, 3, 10);
	j = post("w3", "/refunds", CHARGE_KEY, 409,
	    "{\"request_id\":\"r-2\",\"charge_id\":\"c-1\",\"amount\":4}");
	assert_int_equal(it_num(j, "refundable"), 3);
	json_decref(j);
	j = post("w3", "/refunds", CHARGE_KEY, 200,
	    "{\"request_id\":\"r-1\",\"charge_id\":\"c-1\",\"amount\":12}");
	assert_true(json_is_true(json_object_get(j, "replayed")));
	json_decref(j);
	holds("w3", 0, 3, 10);
	/* a hold of 15 is split too; committing 12 takes the allowance first */
	j = post("w3", "/holds", CHARGE_KEY, 201, "{\"request_id\":\"h-1\",\"amount\":15}");
	wallets(j, 10, 5);
	json_decref(j);
	j = post("w3", "/holds/h-1/commit", CHARGE_KEY, 200, "{\"amount\":12}");
	assert_int_equal(it_num(j, "committed"), 12);
	assert_int_equal(it_num(j, "released"), 3);
	wallets(j, 10, 2);
	json_decref(j);
	holds("w3", 10, 5, 10);
	j = post("w3", "/holds/h-1/commit", CHARGE_KEY, 200, "{\"amount\":12}");
	assert_true(json_is_true(json_object_get(j, "replayed")));
	json_decref(j);
	/* a paid-only hold, released: all of it back */
	j = post("w3", "/holds", CHARGE_KEY, 201, "{\"request_id\":\"h-2\",\"amount\":4}");
	wallets(j, 0, 4);
	json_decref(j);
	json_decref(it_call("DELETE", qp("w3", "/holds/h-2"), CHARGE_KEY, NULL, 200));
	holds("w3", 10, 5, 10);
	it_check_ledger();
}

/* How many usage entries of uid's print.pages hold request id rid: the
 * allowance's as it is, the paid wallet's as rid@PERIOD (wallet.c) */
static int
entries_with(const char *uid, const char *rid)
{
	char base[256], filter[256];

	snprintf(base, sizeof(base), "uid=%s,ou=usage," BASE, uid);
	snprintf(filter, sizeof(filter), "(|(privRequest=%s)(privRequest=%s@%s))", rid, rid, term);
	return it_ldap_count(base, filter);
}

static void
privd_killed_between_the_parts(void **state)
{
	long status = 0;
	char *text;
	json_t *j;
	const char *body = "{\"request_id\":\"k-1\",\"amount\":15}";

	(void)state;
	topup("w4", "t-1", 50);
	it_sh("PRIVD_FAULT=wallet-split:kill tests/integration/env.sh privd-restart %s/env",
	    it_dir);
	text = it_try_request("POST", qp("w4", "/charges"), CHARGE_KEY, body, strlen(body),
	    &status);
	/* privd died with the allowance part in and the paid part not */
	assert_int_equal(status, 0);
	free(text);
	for (int i = 0; i < 40 && kill(it_pid_of("privd.pid"), 0) == 0; i++)
		usleep(50000);	/* until it is reaped */
	assert_int_not_equal(kill(it_pid_of("privd.pid"), 0), 0);
	assert_int_equal(entries_with("w4", "k-1"), 1);
	it_sh("tests/integration/env.sh privd-start %s/env", it_dir);
	/* the retry finishes the charge, once */
	j = post("w4", "/charges", CHARGE_KEY, 201, "%s", body);
	wallets(j, 10, 5);
	json_decref(j);
	assert_int_equal(entries_with("w4", "k-1"), 2);
	j = post("w4", "/charges", CHARGE_KEY, 200, "%s", body);
	assert_true(json_is_true(json_object_get(j, "replayed")));
	json_decref(j);
	holds("w4", 10, 5, 50);
	it_check_ledger();
}

struct bg {
	const char *uid, *body;
	long status;
	char *text;
};

static void *
bg_charge(void *arg)
{
	struct bg *b = arg;

	b->text = it_try_request("POST", qp(b->uid, "/charges"), CHARGE_KEY, b->body,
	    strlen(b->body), &b->status);
	return NULL;
}

static void
slapd_stopped_between_the_parts(void **state)
{
	struct bg b = { "w5", "{\"request_id\":\"s-1\",\"amount\":12}", 0, NULL };
	pthread_t t;
	json_t *j;

	(void)state;
	topup("w5", "t-1", 30);
	it_sh("PRIVD_FAULT=wallet-split:pause tests/integration/env.sh privd-restart %s/env",
	    it_dir);
	assert_int_equal(pthread_create(&t, NULL, bg_charge, &b), 0);
	usleep(1500000);	/* the allowance part is in; privd pauses */
	it_sh("tests/integration/env.sh slapd-stop %s/env", it_dir);
	pthread_join(t, NULL);
	/* the paid part could not be written: no answer of success */
	if (b.status != 503)
		fail_msg("a split with slapd gone answered %ld: %s", b.status, b.text);
	free(b.text);
	it_sh("tests/integration/env.sh slapd-start %s/env", it_dir);
	it_sh("tests/integration/env.sh privd-restart %s/env", it_dir);
	j = post("w5", "/charges", CHARGE_KEY, 201, "%s", b.body);
	wallets(j, 10, 2);
	json_decref(j);
	holds("w5", 10, 2, 30);
	it_check_ledger();
}

static void
paid_wallet_emptied_between_the_parts(void **state)
{
	struct bg b = { "w6", "{\"request_id\":\"e-1\",\"amount\":15}", 0, NULL };
	pthread_t t;
	json_t *j;

	(void)state;
	topup("w6", "t-1", 8);
	it_sh("PRIVD_FAULT=wallet-split:pause tests/integration/env.sh privd-restart %s/env",
	    it_dir);
	assert_int_equal(pthread_create(&t, NULL, bg_charge, &b), 0);
	usleep(1500000);
	/* while the split waits between its parts, the top-up is taken back */
	json_decref(post("w6", "/topups/t-1/reversal", ADMIN_KEY, 201, "{}"));
	pthread_join(t, NULL);
	/* the paid part cannot be had: refused, and the allowance part given back */
	if (b.status != 409 || strstr(b.text, "quota_exceeded") == NULL)
		fail_msg("the split answered %ld: %s", b.status, b.text);
	free(b.text);
	it_sh("tests/integration/env.sh privd-restart %s/env", it_dir);
	holds("w6", 0, 0, 0);
	/* and its retry says the same, changing nothing */
	j = post("w6", "/charges", CHARGE_KEY, 409, "%s", b.body);
	json_decref(j);
	holds("w6", 0, 0, 0);
	/* a new charge within the allowance still goes through */
	j = post("w6", "/charges", CHARGE_KEY, 201, "{\"request_id\":\"e-2\",\"amount\":10}");
	wallets(j, 10, 0);
	json_decref(j);
	it_check_ledger();
}

/*
 * Edits the ledger entry of uid's paid wallet whose id is id, from to to,
 * and runs --check-ledger, which must fail saying say; then puts it back.
 */
static void
swap_paid_entry(const char *uid, const char *id, const char *from, const char *to,
    const char *say)
{
	char path[300];
	FILE *f;

	snprintf(path, sizeof(path), "%s/swap.sh", it_dir);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "set -eu\n"
	    "L=\"-x -H ldap://127.0.0.1:%d/ -D cn=admin,dc=example,dc=edu -w secret\"\n"
	    "dn=\"cn=print.pages@paid,uid=%s,ou=usage,%s\"\n"
	    "v=$(ldapsearch $L -LLL -o ldif-wrap=no -b \"$dn\" -s base privEntry | "
	    "sed -n 's/^privEntry: //p' | grep -F '\"id\":\"%s\"')\n"
	    "w=$(printf '%%s' \"$v\" | sed 's/%s/%s/')\n"
	    "swap() { printf 'dn: %%s\\nchangetype: modify\\ndelete: privEntry\\nprivEntry: %%s\\n-\\n"
	    "add: privEntry\\nprivEntry: %%s\\n' \"$dn\" \"$1\" \"$2\" | ldapmodify $L >/dev/null; }\n"
	    "[ -n \"$v\" ] && [ \"$v\" != \"$w\" ]\n"
	    "swap \"$v\" \"$w\"\n"
	    "rc=0; \"$1\" -c config/dev.yaml -L ldap://127.0.0.1:%d/ --check-ledger > \"$2\" 2>&1 || rc=$?\n"
	    "swap \"$w\" \"$v\"\n"
	    "[ $rc != 0 ] && grep -qF \"$3\" \"$2\" || { cat \"$2\" >&2; exit 1; }\n",
	    it_ldap_port, uid, BASE, id, from, to, it_ldap_port);
	fclose(f);
	it_sh("sh %s %s %s/check.out '%s'", path, getenv("PRIVD_BIN") ? getenv("PRIVD_BIN") :
	    "server/privd", it_dir, say);
}

/*
 * A request id names one operation on one quota in one period: a split
 * under a top-up's id is refused whole with nothing taken or held, and a
 * job id that recurs in a later term (CUPS job numbers restart) is a new
 * charge on both wallets, not a replay of last term's paid part.
 */
static void
request_ids_mean_one_thing(void **state)
{
	char off[32];
	json_t *j;

	(void)state;
	topup("w7", "same-1", 20);
	j = post("w7", "/charges", CHARGE_KEY, 409, "{\"request_id\":\"same-1\",\"amount\":15}");
	assert_string_equal(json_string_value(json_object_get(j, "error")), "request_id_reused");
	json_decref(j);
	json_decref(post("w7", "/holds", CHARGE_KEY, 409,
	    "{\"request_id\":\"same-1\",\"amount\":15,\"ttl_s\":600}"));
	holds("w7", 0, 0, 20);
	j = it_get(qp("w7", ""), 200);
	assert_int_equal(it_num(j, "held"), 0);
	json_decref(j);
	/* under an id of its own the same split lands */
	j = post("w7", "/charges", CHARGE_KEY, 201, "{\"request_id\":\"cups:h:q:7\",\"amount\":15}");
	wallets(j, 10, 5);
	json_decref(j);
	holds("w7", 10, 5, 20);
	/* nor is a charge's id a top-up's */
	j = post("w7", "/topups", TOPUP_KEY, 409,
	    "{\"request_id\":\"cups:h:q:7\",\"amount\":5,\"reference\":\"desk 3\"}");
	assert_string_equal(json_string_value(json_object_get(j, "error")), "request_id_reused");
	json_decref(j);
	holds("w7", 10, 5, 20);
	/* next term, the same job id: charged in full, on both wallets */
	snprintf(off, sizeof(off), "%ld:site", 1798761600L + 3600 - (long)time(NULL));
	setenv("PRIVD_CLOCK_OFFSET", off, 1);
	it_sh("tests/integration/env.sh privd-restart %s/env", it_dir);
	unsetenv("PRIVD_CLOCK_OFFSET");
	j = post("w7", "/charges", CHARGE_KEY, 201, "{\"request_id\":\"cups:h:q:7\",\"amount\":15}");
	assert_string_equal(json_string_value(json_object_get(j, "period")), "2027T1");
	assert_false(json_is_true(json_object_get(j, "replayed")));
	wallets(j, 10, 5);
	json_decref(j);
	holds("w7", 10, 10, 20);
	/* and its retry is a replay, taking nothing more */
	j = post("w7", "/charges", CHARGE_KEY, 200, "{\"request_id\":\"cups:h:q:7\",\"amount\":15}");
	assert_true(json_is_true(json_object_get(j, "replayed")));
	json_decref(j);
	holds("w7", 10, 10, 20);
	/* --check-ledger reads both wallets: every split has its part, and a
	 * part that disagrees with its split, or one id as two operations, is
	 * named (edited behind privd's back, then put back) */
	it_check_ledger();
	swap_paid_entry("w7", "cups:h:q:7@2027T1", "\"amount\":5", "\"amount\":4",
	    "split cups:h:q:7 in 2027T1: the allowance says the paid wallet gave 5, its part "
	    "cups:h:q:7@2027T1 says 4");
	swap_paid_entry("w7", "same-1", "\"id\":\"same-1\"", "\"id\":\"cups:h:q:7\"",
	    "request id cups:h:q:7 is a topup of the paid wallet and a charge in 2026T3");
	it_check_ledger();
	it_sh("tests/integration/env.sh privd-restart %s/env", it_dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(topups_are_scoped_idempotent_and_reversible),
		cmocka_unit_test(charges_draw_the_allowance_first_then_split),
		cmocka_unit_test(refunds_and_holds_go_back_where_they_came_from),
		cmocka_unit_test(privd_killed_between_the_parts),
		cmocka_unit_test(slapd_stopped_between_the_parts),
		cmocka_unit_test(paid_wallet_emptied_between_the_parts),
		cmocka_unit_test(request_ids_mean_one_thing),
	};

	return cmocka_run_group_tests(tests, setup, it_group_teardown);
}

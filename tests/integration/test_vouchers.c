/*
 * test_vouchers.c - vouchers (server/voucher.h) against a real slapd and
 * privd: codes made in a batch and shown once, kept hashed (the directory
 * never holds a code), redeemed into the paid wallet once - a second
 * redemption by the same person adds nothing, by another is refused, and
 * of eight people redeeming one code at the same moment exactly one gets
 * it; expired codes refused; a person redeems with their own sign-in but
 * not for someone else; wrong codes count toward the sign-in rate limit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

#include <cmocka.h>
#include <jansson.h>

#include "harness.h"

#define TOPUP_KEY "dev-topup-7e3b9c1f05"

static const char model[] =
    "reasons: { student: { undergrad: {} } }\n"
    "organisations: { eng: {} }\n"
    "grants:\n"
    "  \"student@\": { print.balance: 300 }\n"
    "accounts:\n"
    "  v1: [student/undergrad@eng]\n"
    "  v2: [student/undergrad@eng]\n"
    "  v3: [student/undergrad@eng]\n"
    "  v4: [student/undergrad@eng]\n"
    "  v5: [student/undergrad@eng]\n"
    "  v6: [student/undergrad@eng]\n"
    "  v7: [student/undergrad@eng]\n"
    "  v8: [student/undergrad@eng]\n";

static int
setup(void **state)
{
	return it_group_setup_model(state, model);
}

/* n fresh codes of value (cents) in batch; codes[i] has room for 24. */
static void
make(const char *batch, int n, int value, const char *expires, char codes[][24])
{
	char body[256];
	json_t *j, *c;
	size_t i;

	snprintf(body, sizeof(body), "{\"quota\":\"print.balance\",\"value\":%d,\"count\":%d,"
	    "\"batch\":\"%s\"%s%s%s}", value, n, batch, expires ? ",\"expires\":\"" : "",
	    expires ? expires : "", expires ? "\"" : "");
	j = it_call("POST", "/v1/vouchers", ADMIN_KEY, body, 201);
	assert_int_equal(json_array_size(json_object_get(j, "codes")), (size_t)n);
	assert_string_equal(json_string_value(json_object_get(j, "currency")), "AUD");
	json_array_foreach(json_object_get(j, "codes"), i, c) {
		snprintf(codes[i], 24, "%s", json_string_value(c));
		assert_int_equal(strlen(codes[i]), 19);
	}
	json_decref(j);
}

static json_t *
redeem(const char *uid, const char *key, const char *code, long want)
{
	char path[128], body[128];

	snprintf(path, sizeof(path), "/v1/accounts/%s/vouchers", uid);
	snprintf(body, sizeof(body), "{\"code\":\"%s\"}", code);
	return it_call("POST", path, key, body, want);
}

static json_int_t
paid_of(const char *uid)
{
	char path[128];
	json_t *j;
	json_int_t n;

	snprintf(path, sizeof(path), "/v1/accounts/%s/quotas/print.balance", uid);
	j = it_get(path, 200);
	n = it_num(json_object_get(j, "paid"), "topped_up");
	json_decref(j);
	return n;
}

static void
codes_are_shown_once_and_kept_hashed(void **state)
{
	char codes[3][24], out[8192], cmd[1024], plain[24];
	size_t k = 0, i;

	(void)state;
	make("fair-2026", 3, 500, NULL, codes);
	/* the directory holds no code, with or without its dashes */
	for (i = 0; codes[0][i]; i++)
		if (codes[0][i] != '-')
			plain[k++] = codes[0][i];
	plain[k] = '\0';
	snprintf(cmd, sizeof(cmd), "ldapsearch -x -LLL -o ldif-wrap=no -H ldap://127.0.0.1:%d/ "
	    "-D cn=admin,dc=example,dc=edu -w secret -b dc=example,dc=edu > %s/dump.ldif",
	    it_ldap_port, it_dir);
	it_sh("%s", cmd);
	it_sh("! grep -q -e '%s' -e '%s' %s/dump.ldif", codes[0], plain, it_dir);
	it_sh("grep -q privVoucherCode %s/dump.ldif", it_dir);
	/* privctl lists them, unused */
	assert_int_equal(it_privctl(out, sizeof(out), "voucher list --batch fair-2026"), 0);
	if (strstr(out, "3 vouchers, 0 used") == NULL || strstr(out, "$5.00") == NULL)
		fail_msg("privctl voucher list: %s", out);
	/* privctl makes them too, printing the codes */
	assert_int_equal(it_privctl(out, sizeof(out), "voucher create --quota print.balance "
	    "--value 250 --count 2 --batch desk"), 0);
	if (strstr(out, "2 vouchers of print.balance worth $2.50") == NULL)
		fail_msg("privctl voucher create: %s", out);
}

static void
a_voucher_is_redeemed_once(void **state)
{
	char codes[1][24], out[8192];
	json_t *j;

	(void)state;
	make("once", 1, 500, NULL, codes);
	j = redeem("v1", TOPUP_KEY, codes[0], 201);
	assert_int_equal(it_num(j, "value"), 500);
	assert_int_equal(it_num(json_object_get(j, "paid"), "remaining"), 500);
	assert_int_equal(it_num(j, "total_remaining"), 800);
	json_decref(j);
	/* again by the same person: nothing more */
	j = redeem("v1", TOPUP_KEY, codes[0], 200);
	assert_true(json_is_true(json_object_get(j, "replayed")));
	json_decref(j);
	assert_int_equal(paid_of("v1"), 500);
	/* by another: refused */
	j = redeem("v2", TOPUP_KEY, codes[0], 409);
	assert_string_equal(json_string_value(json_object_get(j, "error")), "voucher_used");
	json_decref(j);
	assert_int_equal(paid_of("v2"), 0);
	/* in any case and without dashes it is the same code */
	{
		char low[24];
		size_t i, k = 0;

		for (i = 0; codes[0][i]; i++)
			if (codes[0][i] != '-')
				low[k++] = (char)(codes[0][i] >= 'A' && codes[0][i] <= 'Z' ?
				    codes[0][i] + 32 : codes[0][i]);
		low[k] = '\0';
		json_decref(redeem("v1", TOPUP_KEY, low, 200));
	}
	assert_int_equal(it_privctl(out, sizeof(out), "voucher list --batch once"), 0);
	if (strstr(out, "1 vouchers, 1 used") == NULL || strstr(out, "v1") == NULL)
		fail_msg("privctl voucher list: %s", out);
	it_check_ledger();
}

struct racer {
	char uid[16];
	const char *code;
	long status;
};

static void *
race_one(void *arg)
{
	struct racer *r = arg;
	char path[128], body[128], *text;

	snprintf(path, sizeof(path), "/v1/accounts/%s/vouchers", r->uid);
	snprintf(body, sizeof(body), "{\"code\":\"%s\"}", r->code);
	text = it_try_request("POST", path, TOPUP_KEY, body, strlen(body), &r->status);
	free(text);
	return NULL;
}

static void
eight_redeeming_one_code_at_once_one_gets_it(void **state)
{
	struct racer r[8];
	pthread_t t[8];
	char codes[1][24];
	json_int_t sum = 0;
	int i, won = 0, lost = 0;

	(void)state;
	make("race", 1, 700, NULL, codes);
	for (i = 0; i < 8; i++) {
		snprintf(r[i].uid, sizeof(r[i].uid), "v%d", i + 1);
		r[i].code = codes[0];
		assert_int_equal(pthread_create(&t[i], NULL, race_one, &r[i]), 0);
	}
	for (i = 0; i < 8; i++) {
		pthread_join(t[i], NULL);
		won += r[i].status == 201;
		lost += r[i].status == 409;
	}
	assert_int_equal(won, 1);
	assert_int_equal(lost, 7);
	for (i = 0; i < 8; i++)
		sum += paid_of(r[i].uid);
	/* v1 had 500 from before */
	assert_int_equal(sum, 500 + 700);
	it_check_ledger();
}

static void
expired_vouchers_are_refused(void **state)
{
	char codes[1][24];
	json_t *j;

	(void)state;
	/* none is made expired, nor expiring on a day the calendar lacks ... */
	json_decref(it_call("POST", "/v1/vouchers", ADMIN_KEY, "{\"quota\":\"print.balance\","
	    "\"value\":100,\"count\":1,\"expires\":\"2020-01-01\"}", 400));
	json_decref(it_call("POST", "/v1/vouchers", ADMIN_KEY, "{\"quota\":\"print.balance\","
	    "\"value\":100,\"count\":1,\"expires\":\"2099-02-30\"}", 400));
	json_decref(it_call("POST", "/v1/vouchers", ADMIN_KEY, "{\"quota\":\"print.balance\","
	    "\"value\":100,\"count\":1,\"expires\":\"2096-02-29\"}", 201));
	/* ... so one that has since expired is written behind privd's back */
	make("old", 1, 100, NULL, codes);
	it_sh("dn=$(ldapsearch -x -LLL -o ldif-wrap=no -H ldap://127.0.0.1:%d/ -D cn=admin,dc=example,dc=edu "
	    "-w secret -b %s '(objectClass=privVoucherCode)' privVoucher | "
	    "grep -B1 '^privVoucher: print.balance 100 - old$' | sed -n 's/^dn: //p'); [ -n \"$dn\" ] && "
	    "printf 'dn: %%s\\nchangetype: modify\\nreplace: privVoucher\\n"
	    "privVoucher: print.balance 100 2020-06-30 old\\n' \"$dn\" | ldapmodify -x -H "
	    "ldap://127.0.0.1:%d/ -D cn=admin,dc=example,dc=edu -w secret >/dev/null",
	    it_ldap_port, BASE, it_ldap_port);
	j = redeem("v3", TOPUP_KEY, codes[0], 409);
	assert_string_equal(json_string_value(json_object_get(j, "error")), "voucher_expired");
	json_decref(j);
	j = it_call("POST", "/v1/vouchers", ADMIN_KEY, "{\"quota\":\"print.balance\","
	    "\"value\":100,\"count\":1,\"expires\":\"June\"}", 400);
	assert_string_equal(json_string_value(json_object_get(j, "field")), "expires");
	json_decref(j);
	json_decref(it_call("POST", "/v1/vouchers", ADMIN_KEY, "{\"quota\":\"nope\","
	    "\"value\":100,\"count\":1}", 400));
	json_decref(it_call("POST", "/v1/vouchers", TOPUP_KEY, "{\"quota\":\"print.balance\","
	    "\"value\":100,\"count\":1}", 403));
}

static void
a_person_redeems_with_their_own_sign_in(void **state)
{
	char codes[2][24], tok[1024];
	json_int_t v4, v5;
	json_t *j;

	(void)state;
	make("self", 2, 300, NULL, codes);
	/* either may hold the race's voucher from the test before */
	v4 = paid_of("v4");
	v5 = paid_of("v5");
	it_ldapmodify("dn: uid=v4,ou=people,dc=example,dc=edu\nchangetype: modify\n"
	    "add: objectClass\nobjectClass: simpleSecurityObject\n-\n"
	    "add: userPassword\nuserPassword: v4-secret\n");
	j = it_call("POST", "/v1/tokens", NULL, "{\"uid\":\"v4\",\"password\":\"v4-secret\"}",
	    200);
	snprintf(tok, sizeof(tok), "%s", json_string_value(json_object_get(j, "token")));
	json_decref(j);
	json_decref(redeem("v4", tok, codes[0], 201));
	assert_int_equal(paid_of("v4"), v4 + 300);
	/* not for someone else, and a sign-in tops up nothing else */
	json_decref(redeem("v5", tok, codes[1], 403));
	json_decref(it_call("POST", "/v1/accounts/v4/quotas/print.balance/topups", tok,
	    "{\"request_id\":\"t\",\"amount\":5}", 403));
	json_decref(it_call("POST", "/v1/accounts/v4/quotas/print.balance/charges", tok,
	    "{\"request_id\":\"t\",\"amount\":5}", 403));
	assert_int_equal(paid_of("v5"), v5);
}

/* Last: it leaves 127.0.0.1 rate limited for a minute. */
static void
wrong_codes_count_toward_the_rate_limit(void **state)
{
	char codes[1][24];
	json_t *j;
	int i;

	json_int_t before = paid_of("v6");

	(void)state;
	make("late", 1, 100, NULL, codes);
	for (i = 0; i < 10; i++) {
		j = redeem("v6", TOPUP_KEY, "AAAA-BBBB-CCCC-DDDD", 404);
		assert_string_equal(json_string_value(json_object_get(j, "field")), "code");
		json_decref(j);
	}
	/* now even a right code waits, as a sign-in would */
	json_decref(redeem("v6", TOPUP_KEY, codes[0], 429));
	json_decref(it_call("POST", "/v1/tokens", NULL,
	    "{\"uid\":\"v4\",\"password\":\"v4-secret\"}", 429));
	assert_int_equal(paid_of("v6"), before);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(codes_are_shown_once_and_kept_hashed),
		cmocka_unit_test(a_voucher_is_redeemed_once),
		cmocka_unit_test(eight_redeeming_one_code_at_once_one_gets_it),
		cmocka_unit_test(expired_vouchers_are_refused),
		cmocka_unit_test(a_person_redeems_with_their_own_sign_in),
		cmocka_unit_test(wrong_codes_count_toward_the_rate_limit),
	};

	return cmocka_run_group_tests(tests, setup, it_group_teardown);
}

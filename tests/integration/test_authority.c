/*
 * test_authority.c - who may move money and read ledgers, from outside: every
 * operation of doc/openapi.yaml asked as a plain person (HTTP Basic with
 * their own directory password, and their sign-in token), on their own
 * account and on another's; the money routes a student's password once
 * opened; the directory's ACLs on usage entries for uids holding regular
 * expression and DN characters; and sign-ins that one person or address
 * cannot spend for everyone else.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <curl/curl.h>
#include <jansson.h>

#include "harness.h"

#define TOPUP_KEY "dev-topup-7e3b9c1f05"

/* The operations a plain person may use on their own account; every other
 * operation that needs credentials must answer them 403. */
static const char *const own[] = {
	"GET /v1/accounts/{uid}/privileges", "GET /v1/accounts/{uid}/privileges/{name}",
	"GET /v1/accounts/{uid}/check", "GET /v1/accounts/{uid}/quotas/{name}",
	"GET /v1/accounts/{uid}/quotas/{name}/ledger", "POST /v1/accounts/{uid}/vouchers",
	"GET /v1/accounts/{uid}/preferences", "POST /v1/accounts/{uid}/preferences",
	"POST /v1/accounts/{uid}/quotes", "GET /v1/accounts/{uid}/sessions",
	"GET /v1/accounts/{uid}/pools", NULL
};
/* The operations that take no credentials at all. */
static const char *const open_ops[] = {
	"GET /healthz", "GET /readyz", "GET /ui", "GET /ui/", "GET /ui/{file}", "POST /v1/tokens",
	NULL
};

static int
listed(const char *const *list, const char *op)
{
	for (; *list; list++)
		if (strcmp(*list, op) == 0)
			return 1;
	return 0;
}

static size_t
sink(char *p, size_t s, size_t n, void *u)
{
	FILE *f = u;

	return fwrite(p, s, n, f);
}

/*
 * One request with either Basic credentials (userpwd "uid:password") or a
 * bearer (a key or a token), optionally from a source address; the status,
 * and the body into *out when out is not NULL (caller frees).
 */
static long
ask(const char *method, const char *path, const char *userpwd, const char *bearer,
    const char *from, const char *body, char **out)
{
	CURL *c = curl_easy_init();
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	char url[1024], auth[400];
	long status = 0;
	char *text = NULL;
	size_t tlen = 0;
	FILE *mem = open_memstream(&text, &tlen);

	snprintf(url, sizeof(url), "%s%s", it_http_base, path);
	if (bearer) {
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s", bearer);
		h = curl_slist_append(h, auth);
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	if (userpwd) {
		curl_easy_setopt(c, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
		curl_easy_setopt(c, CURLOPT_USERPWD, userpwd);
	}
	if (from)
		curl_easy_setopt(c, CURLOPT_INTERFACE, from);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, mem);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
	if (body)
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	fclose(mem);
	if (out)
		*out = text;
	else
		free(text);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return status;
}

/* A sign-in token for uid (the test fails without one). */
static void
token_of(const char *uid, const char *pw, const char *from, char tok[256])
{
	char body[256], *text = NULL;
	json_t *j;

	snprintf(body, sizeof(body), "{\"uid\":\"%s\",\"password\":\"%s\"}", uid, pw);
	assert_int_equal(ask("POST", "/v1/tokens", NULL, NULL, from, body, &text), 200);
	j = json_loads(text, 0, NULL);
	assert_non_null(j);
	snprintf(tok, 256, "%s", json_string_value(json_object_get(j, "token")));
	json_decref(j);
	free(text);
}

static int
setup(void **state)
{
	return it_group_setup_model(state,
	    "reasons: { student: { undergrad: {} }, staff: { academic: {} } }\n"
	    "organisations: { lab: {} }\n"
	    "grants:\n  \"student@\": { print.pages: 1000, print.balance: 500 }\n"
	    "accounts:\n  jdoe: [student/undergrad@lab]\n  mwhite: [staff/academic@lab]\n"
	    "  bchen: [student/undergrad@lab]\n");
}

/* The operations of doc/openapi.yaml: "METHOD /path" each, n of them. */
static char **
spec_operations(size_t *n)
{
	FILE *f = fopen("doc/openapi.yaml", "r");
	char line[512], path[400] = "", **ops = NULL;
	int in_paths = 0;

	*n = 0;
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char m[16];

		line[strcspn(line, "\n")] = '\0';
		if (strcmp(line, "paths:") == 0) {
			in_paths = 1;
			continue;
		}
		if (in_paths && line[0] != ' ' && line[0] != '\0')
			break;	/* components: the paths are over */
		if (strncmp(line, "  /", 3) == 0 && line[strlen(line) - 1] == ':') {
			snprintf(path, sizeof(path), "%.*s", (int)strlen(line) - 3, line + 2);
			continue;
		}
		if (path[0] && sscanf(line, "    %15[a-z]:", m) == 1 && strlen(line) == strlen(m) + 5) {
			size_t k;

			for (k = 0; m[k]; k++)
				m[k] = (char)(m[k] - 'a' + 'A');
			ops = realloc(ops, (*n + 1) * sizeof(*ops));
			assert_non_null(ops);
			assert_true(asprintf(&ops[*n], "%s %s", m, path) > 0);
			(*n)++;
		}
	}
	fclose(f);
	return ops;
}

/* op's path with its parameters filled in, uid the account's. */
static void
fill(const char *op, const char *uid, char *method, char *out, size_t n)
{
	const char *p = strchr(op, ' ') + 1;
	size_t k = 0;

	snprintf(method, 8, "%.*s", (int)(p - op - 1), op);
	while (*p && k + 64 < n) {
		const char *v = NULL;
		size_t len;

		if (*p != '{') {
			out[k++] = *p++;
			continue;
		}
		len = strcspn(p, "}") + 1;
		if (strncmp(p, "{uid}", len) == 0)
			v = uid;
		else if (strncmp(p, "{name}", len) == 0)
			v = "print.pages";
		else if (strncmp(p, "{cell}", len) == 0)
			v = "student@lab";
		else if (strncmp(p, "{tree}", len) == 0)
			v = "organisations";
		else if (strncmp(p, "{file}", len) == 0)
			v = "app.js";
		else
			v = "x-1";
		k += (size_t)snprintf(out + k, n - k, "%s", v);
		p += len;
	}
	out[k] = '\0';
}

static void
every_operation_as_a_plain_person(void **state)
{
	size_t n, i, asked = 0, theirs = 0;
	char **ops = spec_operations(&n);
	char tok[256];
	int how;

	(void)state;
	assert_true(n >= 60);
	token_of("jdoe", "jdoe-dev-secret", NULL, tok);
	for (i = 0; i < n; i++) {
		const char *uids[] = { "jdoe", "bchen" };
		int u;

		if (listed(open_ops, ops[i]))
			continue;
		for (u = 0; u < 2; u++)
			for (how = 0; how < 2; how++) {
				char method[8], path[512], *text = NULL;
				int mine = u == 0 && listed(own, ops[i]);
				long st;

				fill(ops[i], uids[u], method, path, sizeof(path));
				st = ask(method, path, how == 0 ? "jdoe:jdoe-dev-secret" : NULL,
				    how == 1 ? tok : NULL, NULL, strcmp(method, "GET") ? "{}" : NULL,
				    &text);
				asked++;
				if (mine && (st == 401 || st == 403 || st == 0))
					fail_msg("%s as jdoe by %s: %ld, yet it is jdoe's own: %.300s",
					    path, how ? "token" : "Basic", st, text);
				if (!mine && st != 403)
					fail_msg("%s %s as jdoe by %s: %ld, not 403: %.300s", method, path,
					    how ? "token" : "Basic", st, text);
				theirs += mine;
				free(text);
			}
	}
	fprintf(stderr, "authority: %zu operations of the spec, %zu requests as a plain "
	    "person, %zu of them on routes of their own\n", n, asked, theirs);
	for (i = 0; i < n; i++)
		free(ops[i]);
	free(ops);
	/* nothing of the walk moved money or made a voucher */
	assert_int_equal(it_ldap_count(BASE, "(privVoucher=*)"), 0);
	assert_int_equal(it_ldap_count(BASE, "(privCredit=*)"), 0);
}

static void
money_is_not_a_persons_to_make(void **state)
{
	const char *voucher = "{\"quota\":\"print.balance\",\"value\":100000,\"count\":1}";
	const char *credit = "{\"request_id\":\"c-1\",\"amount\":500000}";
	char *text = NULL;
	long st;

	(void)state;
	assert_int_equal(ask("POST", "/v1/vouchers", "jdoe:jdoe-dev-secret", NULL, NULL, voucher,
	    NULL), 403);
	assert_int_equal(ask("POST", "/v1/accounts/jdoe/quotas/print.balance/credits",
	    "jdoe:jdoe-dev-secret", NULL, NULL, credit, &text), 403);
	assert_non_null(strstr(text, "administrators"));
	free(text);
	assert_int_equal(ask("GET", "/v1/reports/usage?privilege=print.pages", "jdoe:jdoe-dev-secret",
	    NULL, NULL, NULL, NULL), 403);
	/* the administrator's own password still administers, bound as themselves */
	st = ask("POST", "/v1/vouchers", "mwhite:hos-dev-secret", NULL, NULL,
	    "{\"quota\":\"print.balance\",\"value\":100,\"count\":1}", &text);
	if (st != 201 && st != 200)
		fail_msg("mwhite's voucher: %ld %s", st, text);
	free(text);
	/* the admin key is no top-up terminal: it redeems for nobody */
	assert_int_equal(ask("POST", "/v1/accounts/jdoe/vouchers", NULL, ADMIN_KEY, NULL,
	    "{\"code\":\"AAAA-BBBB-CCCC-DDDD\"}", NULL), 403);
	/* nor does an administrator redeem into someone else's account */
	assert_int_equal(ask("POST", "/v1/accounts/jdoe/vouchers", "mwhite:hos-dev-secret", NULL,
	    NULL, "{\"code\":\"AAAA-BBBB-CCCC-DDDD\"}", NULL), 403);
	assert_int_equal(it_ldap_count(BASE, "(privCredit=*)"), 0);
}

/* Polls GET path with tok until it answers want (up to ms): the answer's body. */
static char *
until_status(const char *path, const char *tok, long want, long ms)
{
	long end = it_now_ms() + ms, st = 0;
	char *text = NULL;

	for (;;) {
		free(text);
		text = NULL;
		st = ask("GET", path, NULL, tok, NULL, NULL, &text);
		if (st == want || it_now_ms() > end)
			break;
		usleep(100000);
	}
	if (st != want)
		fail_msg("%s answered %ld, not %ld, within %ld ms: %s", path, st, want, ms, text);
	return text;
}

static void
tokens_end_with_what_they_stood_for(void **state)
{
	const char *mine = "/v1/accounts/bchen/privileges";
	char tok[256], tok2[256], *text;
	long st;

	(void)state;
	it_ldapmodify("dn: uid=bchen,ou=people,dc=example,dc=edu\nchangetype: modify\n"
	    "replace: userPassword\nuserPassword: bchen-1\n");
	sleep(1);	/* entry times have seconds: sign in after the change */
	token_of("bchen", "bchen-1", NULL, tok);
	assert_int_equal(ask("GET", mine, NULL, tok, NULL, NULL, NULL), 200);
	/* privd's own write on the entry (a membership) ends nothing */
	json_decref(it_call("POST", "/v1/memberships", ADMIN_KEY,
	    "{\"account\":\"bchen\",\"cell\":\"staff/academic@lab\"}", 200));
	sleep(3);	/* past ui.token_recheck (2 s in config/dev.yaml) */
	assert_int_equal(ask("GET", mine, NULL, tok, NULL, NULL, NULL), 200);
	/* the password changes: the token ends within ui.token_recheck */
	it_ldapmodify("dn: uid=bchen,ou=people,dc=example,dc=edu\nchangetype: modify\n"
	    "replace: userPassword\nuserPassword: bchen-2\n");
	text = until_status(mine, tok, 401, 5000);
	assert_non_null(strstr(text, "password"));
	free(text);
	sleep(1);
	token_of("bchen", "bchen-2", NULL, tok2);
	assert_int_equal(ask("GET", mine, NULL, tok2, NULL, NULL, NULL), 200);
	/* every membership gone: the token ends */
	json_decref(it_call("DELETE", "/v1/memberships?account=bchen&cell=student/undergrad@lab",
	    ADMIN_KEY, NULL, 200));
	json_decref(it_call("DELETE", "/v1/memberships?account=bchen&cell=staff/academic@lab",
	    ADMIN_KEY, NULL, 200));
	free(until_status(mine, tok2, 401, 5000));
	/* an administrator ends every sign-in of a person at once */
	token_of("jdoe", "jdoe-dev-secret", NULL, tok);
	assert_int_equal(ask("GET", "/v1/accounts/jdoe/privileges", NULL, tok, NULL, NULL, NULL),
	    200);
	assert_int_equal(ask("DELETE", "/v1/accounts/jdoe/tokens", NULL, tok, NULL, NULL, NULL),
	    403);
	json_decref(it_call("DELETE", "/v1/accounts/jdoe/tokens", ADMIN_KEY, NULL, 200));
	assert_int_equal(ask("GET", "/v1/accounts/jdoe/privileges", NULL, tok, NULL, NULL, &text),
	    401);
	free(text);
	json_decref(it_call("DELETE", "/v1/accounts/nobody-here/tokens", ADMIN_KEY, NULL, 404));
	sleep(2);
	token_of("jdoe", "jdoe-dev-secret", NULL, tok);
	st = ask("GET", "/v1/accounts/jdoe/privileges", NULL, tok, NULL, NULL, NULL);
	assert_int_equal(st, 200);
}

/* uids that are regular expressions or DN specials, and their look-alikes:
 * the DN value as LDIF writes it (base64 when not ASCII) */
static const struct {
	const char *uid, *rdn, *b64person, *b64uid, *b64box, *b64usage;
} odd[] = {
	{ "a.b", "a.b", NULL, NULL, NULL, NULL }, { "axb", "axb", NULL, NULL, NULL, NULL },
	{ "a+b", "a\\+b", NULL, NULL, NULL, NULL }, { "aab", "aab", NULL, NULL, NULL, NULL },
	{ "a*b", "a*b", NULL, NULL, NULL, NULL }, { "b", "b", NULL, NULL, NULL, NULL },
	{ "a\\b", "a\\\\b", NULL, NULL, NULL, NULL }, { "a(b", "a(b", NULL, NULL, NULL, NULL },
	{ "a$b", "a$b", NULL, NULL, NULL, NULL }, { "u", "u", NULL, NULL, NULL, NULL },
	{ "\xc3\xbc", NULL, "dWlkPcO8LG91PXBlb3BsZSxkYz1leGFtcGxlLGRjPWVkdQ==", "w7w=",
	    "dWlkPcO8LG91PXVzYWdlLG91PXByaXZpbGVnZXMsZGM9ZXhhbXBsZSxkYz1lZHU=",
	    "Y249cHJpbnQucGFnZXNAMjAyNlQzLHVpZD3DvCxvdT11c2FnZSxvdT1wcml2aWxlZ2VzLGRjPWV4YW1wbGUs"
	    "ZGM9ZWR1" },
};
#define NODD (sizeof(odd) / sizeof(odd[0]))

static void
acls_match_exact_names(void **state)
{
	char path[300], ldif[8192];
	size_t i, j, k = 0;
	FILE *f;

	(void)state;
	k += (size_t)snprintf(ldif + k, sizeof(ldif) - k, "dn: ou=usage,%s\nchangetype: add\n"
	    "objectClass: organizationalUnit\nou: usage\n\n", BASE);
	for (i = 0; i < NODD; i++) {
		if (odd[i].rdn)
			k += (size_t)snprintf(ldif + k, sizeof(ldif) - k,
			    "dn: uid=%s,ou=people,dc=example,dc=edu\nchangetype: add\n"
			    "objectClass: inetOrgPerson\nuid: %s\ncn: odd %zu\nsn: odd\n"
			    "userPassword: pw-%zu\n\n"
			    "dn: uid=%s,ou=usage,%s\nchangetype: add\nobjectClass: privAccountUsage\n"
			    "uid: %s\n\n"
			    "dn: cn=print.pages@2026T3,uid=%s,ou=usage,%s\nchangetype: add\n"
			    "objectClass: privUsage\ncn: print.pages@2026T3\nprivUsed: %zu\n\n",
			    odd[i].rdn, odd[i].uid, i, i, odd[i].rdn, BASE, odd[i].uid, odd[i].rdn,
			    BASE, i + 1);
		else
			k += (size_t)snprintf(ldif + k, sizeof(ldif) - k,
			    "dn:: %s\nchangetype: add\nobjectClass: inetOrgPerson\nuid:: %s\n"
			    "cn: odd %zu\nsn: odd\nuserPassword: pw-%zu\n\n"
			    "dn:: %s\nchangetype: add\nobjectClass: privAccountUsage\nuid:: %s\n\n"
			    "dn:: %s\nchangetype: add\nobjectClass: privUsage\ncn: print.pages@2026T3\n"
			    "privUsed: %zu\n\n", odd[i].b64person, odd[i].b64uid, i, i, odd[i].b64box,
			    odd[i].b64uid, odd[i].b64usage, i + 1);
	}
	assert_true(k < sizeof(ldif) - 1);
	snprintf(path, sizeof(path), "%s/odd.ldif", it_dir);
	assert_non_null(f = fopen(path, "w"));
	fputs(ldif, f);
	fclose(f);
	/* -c: ou=usage may be there already */
	it_sh("ldapmodify -c -x -H ldap://127.0.0.1:%d/ -D cn=admin,dc=example,dc=edu -w secret "
	    "-f %s > %s/odd.out 2>&1; grep '^ldap_' %s/odd.out | grep -qv 'Already exists' && "
	    "{ cat %s/odd.out >&2; exit 1; }; exit 0", it_ldap_port, path, it_dir, it_dir, it_dir);
	/* bound as each, the usage entries of each that person reads: their own only */
	for (i = 0; i < NODD; i++)
		for (j = 0; j < NODD; j++) {
			char cmd[1024], line[512];
			FILE *p;
			int seen = 0;

			snprintf(path, sizeof(path), "%s/binddn", it_dir);
			assert_non_null(f = fopen(path, "w"));
			fprintf(f, "uid=%s,ou=people,dc=example,dc=edu\n",
			    odd[i].rdn ? odd[i].rdn : odd[i].uid);
			fprintf(f, "uid=%s,ou=usage,%s\n", odd[j].rdn ? odd[j].rdn : odd[j].uid, BASE);
			fclose(f);
			snprintf(cmd, sizeof(cmd), "ldapsearch -x -LLL -o ldif-wrap=no "
			    "-H ldap://127.0.0.1:%d/ -D \"$(sed -n 1p %s)\" -w pw-%zu "
			    "-b \"$(sed -n 2p %s)\" '(objectClass=privUsage)' privUsed 2>/dev/null",
			    it_ldap_port, path, i, path);
			assert_non_null(p = popen(cmd, "r"));
			while (fgets(line, sizeof(line), p)) {
				long used;

				if (sscanf(line, "privUsed: %ld", &used) == 1)
					seen += used == (long)j + 1 ? 1 : 100;
			}
			pclose(p);
			if (seen != (i == j))
				fail_msg("bound as %s, %s's usage: %d entries read (want %d)",
				    odd[i].uid, odd[j].uid, seen, i == j);
		}
	fprintf(stderr, "authority: %zu odd uids each read exactly their own usage entry\n", NODD);
}

/* ---- sign-ins ---- */

static volatile int flooding;
static int flood_ok, flood_limited;
static pthread_mutex_t flood_lock = PTHREAD_MUTEX_INITIALIZER;

static void *
flood(void *arg)
{
	(void)arg;
	while (flooding) {
		long st = ask("POST", "/v1/tokens", NULL, NULL, "127.0.5.1",
		    "{\"uid\":\"jdoe\",\"password\":\"jdoe-dev-secret\"}", NULL);

		pthread_mutex_lock(&flood_lock);
		flood_ok += st == 200;
		flood_limited += st == 429;
		pthread_mutex_unlock(&flood_lock);
	}
	return NULL;
}

static void
one_person_cannot_spend_everyones_sign_ins(void **state)
{
	pthread_t t[6];
	int i, refused = 0, victims = 68;
	char ldif[16384];
	size_t k = 0;

	(void)state;
	/* 68 people, each signing in once from an address of their own */
	for (i = 0; i < victims; i++)
		k += (size_t)snprintf(ldif + k, sizeof(ldif) - k,
		    "dn: uid=v%d,ou=people,dc=example,dc=edu\nchangetype: add\n"
		    "objectClass: inetOrgPerson\nuid: v%d\ncn: v\nsn: v\nuserPassword: vpw-%d\n\n",
		    i, i, i);
	assert_true(k < sizeof(ldif) - 1);
	it_ldapmodify(ldif);
	sleep(2);	/* the flood below starts with its budgets full, as the victims' do */
	flooding = 1;
	for (i = 0; i < 6; i++)
		assert_int_equal(pthread_create(&t[i], NULL, flood, NULL), 0);
	usleep(300000);
	for (i = 0; i < victims; i++) {
		char from[32], body[128];
		long st;

		snprintf(from, sizeof(from), "127.0.6.%d", i + 1);
		snprintf(body, sizeof(body), "{\"uid\":\"v%d\",\"password\":\"vpw-%d\"}", i, i);
		st = ask("POST", "/v1/tokens", NULL, NULL, from, body, NULL);
		refused += st != 200;
		usleep(60000);
	}
	flooding = 0;
	for (i = 0; i < 6; i++)
		pthread_join(t[i], NULL);
	fprintf(stderr, "authority: jdoe signing in on 6 connections: %d x 200, %d x 429; "
	    "68 others meanwhile: %d refused\n", flood_ok, flood_limited, refused);
	/* the flood is held to jdoe's own budget, and the others get in */
	assert_true(flood_limited > flood_ok);
	assert_true(refused <= 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_operation_as_a_plain_person),
		cmocka_unit_test(money_is_not_a_persons_to_make),
		cmocka_unit_test(tokens_end_with_what_they_stood_for),
		cmocka_unit_test(one_person_cannot_spend_everyones_sign_ins),
		cmocka_unit_test(acls_match_exact_names),
	};

	return cmocka_run_group_tests(tests, setup, it_group_teardown);
}

/*
 * test_api.c - integration tests: a real slapd and a real privd (started by
 * env.sh), spoken to over HTTP with libcurl and changed behind privd's back
 * with ldapmodify.
 */
#include <setjmp.h>
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

#define READ_KEY "dev-read-4d1c8e27b9"
#define ADMIN_KEY "dev-admin-5be71f0a48"
#define BASE "ou=privileges,dc=example,dc=edu"

static char dir[] = "/tmp/privd-it.XXXXXX";
static char http_base[64];
static int ldap_port;

struct buf {
	char *p;
	size_t len;
};

static size_t
on_data(char *ptr, size_t size, size_t n, void *arg)
{
	struct buf *b = arg;
	char *np = realloc(b->p, b->len + size * n + 1);

	if (np == NULL)
		return 0;
	b->p = np;
	memcpy(b->p + b->len, ptr, size * n);
	b->len += size * n;
	b->p[b->len] = '\0';
	return size * n;
}

/* One request; returns the body (caller frees) and sets *status. */
static char *
request(const char *method, const char *path, const char *key, const char *body,
    size_t body_len, long *status)
{
	CURL *c = curl_easy_init();
	struct curl_slist *h = NULL;
	struct buf b = { calloc(1, 1), 0 };
	char url[4096], auth[256];
	CURLcode rc;

	assert_non_null(c);
	snprintf(url, sizeof(url), "%s%s", http_base, path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
	if (key != NULL) {
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s", key);
		h = curl_slist_append(h, auth);
	}
	if (body != NULL) {
		h = curl_slist_append(h, "Content-Type: application/yaml");
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)body_len);
	}
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	rc = curl_easy_perform(c);
	if (rc != CURLE_OK)
		fail_msg("%s %s: %s", method, path, curl_easy_strerror(rc));
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return b.p;
}

/* A JSON request expected to answer want; returns the parsed body. */
static json_t *
call(const char *method, const char *path, const char *key, const char *body, long want)
{
	long status;
	char *text = request(method, path, key, body, body ? strlen(body) : 0, &status);
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);

	if (status != want)
		fail_msg("%s %s: status %ld, want %ld: %s", method, path, status, want, text);
	if (j == NULL)
		fail_msg("%s %s: not JSON: %s", method, path, text);
	free(text);
	return j;
}

static json_t *
get(const char *path, long want)
{
	return call("GET", path, READ_KEY, NULL, want);
}

static void
sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	if (rc != 0)
		fail_msg("command failed (%d): %s", rc, cmd);
}

/* Applies LDIF to the directory as its administrator, behind privd's back. */
static void
ldapmodify(const char *ldif)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/change.ldif", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(ldif, f);
	fclose(f);
	sh("ldapmodify -x -H ldap://127.0.0.1:%d/ -D cn=admin,dc=example,dc=edu -w secret "
	    "-f %s > /dev/null", ldap_port, path);
}

/* How many entries match filter under base (ldapsearch, as administrator). */
static int
ldap_count(const char *base, const char *filter)
{
	char cmd[1024];
	FILE *p;
	int n = 0;
	char line[1024];

	snprintf(cmd, sizeof(cmd), "ldapsearch -x -LLL -H ldap://127.0.0.1:%d/ "
	    "-D cn=admin,dc=example,dc=edu -w secret -b '%s' '%s' 1.1", ldap_port, base, filter);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p))
		n += strncmp(line, "dn:", 3) == 0;
	pclose(p);
	return n;
}

static long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static json_int_t
limit_of(const char *uid, const char *priv)
{
	char path[256];
	json_t *j;
	json_int_t n;

	snprintf(path, sizeof(path), "/v1/accounts/%s/privileges/%s", uid, priv);
	j = get(path, 200);
	n = json_integer_value(json_object_get(j, "limit"));
	json_decref(j);
	return n;
}

/* Polls until fn() is true or ms pass; returns the milliseconds it took, or -1. */
static long
within(long ms, int (*fn)(void))
{
	long t0 = now_ms();

	while (now_ms() - t0 <= ms) {
		if (fn())
			return now_ms() - t0;
		usleep(10000);
	}
	return -1;
}

/* The "allowed" answer of a check request (path under /v1/accounts/). */
static int
allowed(const char *path)
{
	char full[512];
	json_t *j;
	int yes;

	snprintf(full, sizeof(full), "/v1/accounts/%s", path);
	j = get(full, 200);
	yes = json_is_true(json_object_get(j, "allowed"));
	json_decref(j);
	return yes;
}

static int
ready(void)
{
	long status;
	char *t = request("GET", "/readyz", NULL, NULL, 0, &status);

	free(t);
	return status == 200;
}

static int
not_ready(void)
{
	return !ready();
}

static int
group_setup(void **state)
{
	FILE *f;
	char path[256];
	int port;

	(void)state;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (mkdtemp(dir) == NULL)
		return -1;
	sh("tests/integration/env.sh start %s/env", dir);
	snprintf(path, sizeof(path), "%s/env/http_port", dir);
	f = fopen(path, "r");
	if (f == NULL || fscanf(f, "%d", &port) != 1)
		return -1;
	fclose(f);
	snprintf(http_base, sizeof(http_base), "http://127.0.0.1:%d", port);
	snprintf(path, sizeof(path), "%s/env/ldap_port", dir);
	f = fopen(path, "r");
	if (f == NULL || fscanf(f, "%d", &ldap_port) != 1)
		return -1;
	fclose(f);
	return 0;
}

static int
group_teardown(void **state)
{
	char cmd[512];

	(void)state;
	snprintf(cmd, sizeof(cmd), "cat %s/env/privd.log >&2; tests/integration/env.sh stop %s/env; rm -rf %s",
	    dir, dir, dir);
	if (getenv("PRIVD_TEST_LOG") == NULL)
		snprintf(cmd, sizeof(cmd), "tests/integration/env.sh stop %s/env; rm -rf %s", dir, dir);
	if (system(cmd) != 0)
		return -1;
	curl_global_cleanup();
	return 0;
}

static void
schema_both_forms_load(void **state)
{
	(void)state;
	sh("tests/integration/schema.sh");
}

static void
health_and_auth(void **state)
{
	json_t *j;

	(void)state;
	j = call("GET", "/healthz", NULL, NULL, 200);
	assert_string_equal(json_string_value(json_object_get(j, "status")), "ok");
	json_decref(j);
	j = call("GET", "/v1/accounts/jdoe/privileges", NULL, NULL, 401);
	assert_string_equal(json_string_value(json_object_get(j, "error")), "unauthorized");
	json_decref(j);
	j = call("GET", "/v1/accounts/jdoe/privileges", "not-a-key", NULL, 401);
	json_decref(j);
	j = call("POST", "/v1/import", READ_KEY, "reasons: {}\n", 403);
	assert_string_equal(json_string_value(json_object_get(j, "error")), "forbidden");
	json_decref(j);
	j = call("GET", "/metrics", NULL, NULL, 401);
	json_decref(j);
	j = get("/v1/nothing/here", 404);
	assert_string_equal(json_string_value(json_object_get(j, "error")), "not_found");
	json_decref(j);
	j = call("DELETE", "/v1/import", ADMIN_KEY, NULL, 405);
	json_decref(j);
}

static void
bad_imports_write_nothing(void **state)
{
	int before = ldap_count(BASE, "(objectClass=*)");
	json_t *j;

	(void)state;
	j = call("POST", "/v1/import", ADMIN_KEY,
	    "reasons: { student: { undergrad: {} } }\n"
	    "grants:\n"
	    "  \"student@\":\n"
	    "    print.pages: 100\n"
	    "    print.page: 3\n", 400);
	assert_string_equal(json_string_value(json_object_get(j, "error")), "invalid_import");
	assert_int_equal(json_integer_value(json_object_get(j, "line")), 5);
	assert_string_equal(json_string_value(json_object_get(j, "field")), "print.page");
	json_decref(j);
	j = call("POST", "/v1/import", ADMIN_KEY,
	    "reasons: { student: { undergrad: {} } }\n"
	    "accounts:\n"
	    "  jdoe: [\"student@\"]\n", 400);
	assert_non_null(strstr(json_string_value(json_object_get(j, "message")), "not a leaf"));
	assert_int_equal(json_integer_value(json_object_get(j, "line")), 3);
	json_decref(j);
	j = call("POST", "/v1/import", ADMIN_KEY,
	    "reasons: { student: { undergrad: {} } }\n"
	    "accounts:\n"
	    "  jdoe: [\"student/undergrad@nowhere\"]\n", 400);
	assert_non_null(strstr(json_string_value(json_object_get(j, "message")),
	    "unknown organisation node 'nowhere'"));
	json_decref(j);
	j = call("POST", "/v1/import", ADMIN_KEY,
	    "grants:\n  \"student@\": { printer.access: [\"+a\", \"bad one\"] }\n", 400);
	json_decref(j);
	j = call("POST", "/v1/import", ADMIN_KEY, "reasons: [\n", 400);
	json_decref(j);
	/* every refusal came before a write */
	assert_int_equal(ldap_count(BASE, "(objectClass=*)"), before);
	assert_int_equal(ldap_count("ou=people,dc=example,dc=edu", "(objectClass=privAccount)"), 0);
}

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 20);

	assert_non_null(f);
	assert_non_null(buf);
	buf[fread(buf, 1, (1 << 20) - 1, f)] = '\0';
	fclose(f);
	return buf;
}

static int
jdoe_visible(void)
{
	long status;
	char *t = request("GET", "/v1/accounts/jdoe/privileges", READ_KEY, NULL, 0, &status);

	free(t);
	return status == 200;
}

static void
import_demo(void **state)
{
	char *demo = slurp("config/demo.yaml");
	json_t *j;

	(void)state;
	j = call("POST", "/v1/import?dry_run=1", ADMIN_KEY, demo, 200);
	assert_true(json_is_true(json_object_get(j, "dry_run")));
	assert_int_equal(json_integer_value(json_object_get(j, "cells_added")), 20);
	json_decref(j);
	assert_int_equal(ldap_count(BASE, "(objectClass=privCell)"), 0);	/* dry run */

	j = call("POST", "/v1/import", ADMIN_KEY, demo, 200);
	assert_int_equal(json_integer_value(json_object_get(j, "reasons_added")), 11);
	assert_int_equal(json_integer_value(json_object_get(j, "organisations_added")), 25);
	assert_int_equal(json_integer_value(json_object_get(j, "cells_added")), 20);
	/* jdoe, mwhite and bchen exist in the directory; the others are created */
	assert_int_equal(json_integer_value(json_object_get(j, "accounts_changed")), 3);
	assert_int_equal(json_integer_value(json_object_get(j, "accounts_created")), 6);
	json_decref(j);
	/* read-your-writes: the answer came once this privd's reads show it */
	assert_true(jdoe_visible());
	assert_int_equal(limit_of("bchen", "print.pages"), 5000);
	assert_int_equal(ldap_count(BASE, "(objectClass=privCell)"), 20);
	/* an existing person keeps its entry and gains the auxiliary class */
	assert_int_equal(ldap_count("uid=jdoe,ou=people,dc=example,dc=edu",
	    "(&(objectClass=inetOrgPerson)(objectClass=privAccount))"), 1);

	/* the same file again changes nothing */
	j = call("POST", "/v1/import", ADMIN_KEY, demo, 200);
	assert_int_equal(json_integer_value(json_object_get(j, "cells_added")), 0);
	assert_int_equal(json_integer_value(json_object_get(j, "cells_changed")), 0);
	assert_int_equal(json_integer_value(json_object_get(j, "accounts_changed")), 0);
	assert_int_equal(json_integer_value(json_object_get(j, "accounts_created")), 0);
	json_decref(j);
	free(demo);
}

static void
resolution_through_api(void **state)
{
	json_t *j, *p, *v;
	const char *s;

	(void)state;
	j = get("/v1/accounts/jdoe/privileges", 200);
	assert_string_equal(json_string_value(json_object_get(j, "account")), "jdoe");
	assert_false(json_is_true(json_object_get(j, "stale")));
	v = json_object_get(j, "memberships");
	assert_int_equal(json_array_size(v), 1);
	assert_string_equal(json_string_value(json_array_get(v, 0)),
	    "student/undergrad@engineering/cse/programs/compeng");
	p = json_object_get(j, "privileges");
	assert_int_equal(json_object_size(p), 6);	/* every declared privilege */
	v = json_object_get(p, "print.pages");
	assert_string_equal(json_string_value(json_object_get(v, "type")), "quota");
	assert_int_equal(json_integer_value(json_object_get(v, "limit")), 300);
	assert_int_equal(json_integer_value(json_object_get(v, "remaining")), 300);
	assert_non_null(json_string_value(json_object_get(v, "period")));
	v = json_object_get(json_object_get(p, "printer.access"), "value");
	assert_int_equal(json_array_size(v), 1);
	assert_string_equal(json_string_value(json_array_get(v, 0)), "eng-laser");
	assert_true(json_is_false(json_object_get(json_object_get(p, "print.colour"), "value")));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(p,
	    "login.max_sessions"), "value")), 3);
	json_decref(j);

	/* two memberships: the tutor's staff budget beats the student's */
	assert_int_equal(limit_of("bchen", "print.pages"), 5000);
	assert_int_equal(limit_of("bchen", "print.colour_pages"), 500);
	/* the Head of School, at the root of the organisation */
	assert_int_equal(limit_of("mwhite", "print.pages"), 5000);

	/* deny wins for the visitor; only the School Office has its printer */
	assert_false(allowed("vguest/check?privilege=printer.access&value=eng-laser"));
	assert_true(allowed("kpatel/check?privilege=printer.access&value=office-colour"));
	assert_false(allowed("jdoe/check?privilege=printer.access&value=office-colour"));
	assert_false(allowed("jdoe/check?privilege=print.colour"));
	assert_true(allowed("mwhite/check?privilege=print.colour"));
	assert_false(allowed("jdoe/check?privilege=login.max_sessions&value=4"));

	/* provenance: the winner and what it overrode */
	j = get("/v1/accounts/jdoe/privileges/print.pages?explain=1", 200);
	v = json_object_get(j, "sources");
	assert_int_equal(json_array_size(v), 3);
	for (size_t i = 0; i < 3; i++) {
		json_t *src = json_array_get(v, i);
		const char *cell = json_string_value(json_object_get(src, "cell"));

		s = json_string_value(json_object_get(src, "result"));
		if (strcmp(cell, "student@engineering/cse") == 0) {
			assert_string_equal(s, "applied");
			assert_string_equal(json_string_value(json_object_get(src, "grant")),
			    "print.pages=300");
		} else {
			assert_string_equal(s, "overridden");
			assert_string_equal(json_string_value(json_object_get(src, "overridden_by")),
			    "student@engineering/cse");
		}
	}
	json_decref(j);

	/* errors name what was wrong */
	j = get("/v1/accounts/nobody/privileges", 404);
	assert_string_equal(json_string_value(json_object_get(j, "error")), "unknown_account");
	json_decref(j);
	j = get("/v1/accounts/jdoe/privileges/print.nothing", 404);
	assert_string_equal(json_string_value(json_object_get(j, "error")), "unknown_privilege");
	json_decref(j);
	j = get("/v1/accounts/jdoe/check?privilege=printer.access", 400);
	assert_string_equal(json_string_value(json_object_get(j, "field")), "value");
	json_decref(j);
	j = get("/v1/accounts/jdoe/check", 400);
	assert_string_equal(json_string_value(json_object_get(j, "field")), "privilege");
	json_decref(j);
}

static json_int_t want_pages;

static int
jdoe_has_want_pages(void)
{
	return limit_of("jdoe", "print.pages") == want_pages;
}

static int
jdoe_has_colour(void)
{
	return allowed("jdoe/check?privilege=print.colour");
}

static void
ldap_change_reaches_api(void **state)
{
	long ms;

	(void)state;
	ldapmodify("dn: cn=student@engineering/cse,ou=cells," BASE "\n"
	    "changetype: modify\n"
	    "replace: privGrant\n"
	    "privGrant: print.pages=350\n"
	    "privGrant: login.max_sessions=3\n");
	want_pages = 350;
	ms = within(1000, jdoe_has_want_pages);
	print_message("grant change visible after %ld ms\n", ms);
	assert_true(ms >= 0);

	/* a membership added directly in LDAP: jdoe joins COMP3421 */
	ldapmodify("dn: uid=jdoe,ou=people,dc=example,dc=edu\n"
	    "changetype: modify\n"
	    "add: privMembership\n"
	    "privMembership: cn=student/undergrad@engineering/cse/courses/year3/comp3421,ou=cells," BASE "\n");
	ms = within(1000, jdoe_has_colour);
	print_message("membership change visible after %ld ms\n", ms);
	assert_true(ms >= 0);
}

static int
stale_answers(void)
{
	json_t *j = get("/v1/accounts/jdoe/privileges", 200);
	int stale = json_is_true(json_object_get(j, "stale"));

	json_decref(j);
	return stale;
}

static void
sync_drops_and_resyncs(void **state)
{
	json_t *j;
	char *text;
	long status;

	(void)state;
	sh("tests/integration/env.sh slapd-stop %s/env", dir);
	assert_true(within(3000, not_ready) >= 0);
	j = call("GET", "/readyz", NULL, NULL, 503);
	assert_true(json_is_true(json_object_get(j, "stale")));
	json_decref(j);
	/* reads go on from the snapshot, marked stale */
	assert_true(within(1000, stale_answers) >= 0);
	assert_int_equal(limit_of("jdoe", "print.pages"), 350);
	/* imports fail closed */
	j = call("POST", "/v1/import", ADMIN_KEY, "reasons: { extra: {} }\n", 503);
	assert_string_equal(json_string_value(json_object_get(j, "error")), "ldap_unavailable");
	json_decref(j);

	sh("tests/integration/env.sh slapd-start %s/env", dir);
	assert_true(within(5000, ready) >= 0);
	assert_false(stale_answers());
	/* and it follows changes again, without a restart */
	ldapmodify("dn: cn=student@engineering/cse,ou=cells," BASE "\n"
	    "changetype: modify\n"
	    "replace: privGrant\n"
	    "privGrant: print.pages=400\n");
	want_pages = 400;
	assert_true(within(1000, jdoe_has_want_pages) >= 0);
	text = request("GET", "/metrics", READ_KEY, NULL, 0, &status);
	assert_int_equal(status, 200);
	assert_null(strstr(text, "privd_ldap_reconnects_total 0\n"));
	assert_non_null(strstr(text, "privd_stale 0\n"));
	free(text);
}

static void
metrics_exposition(void **state)
{
	char *text;
	long status;

	(void)state;
	text = request("GET", "/metrics", READ_KEY, NULL, 0, &status);
	assert_int_equal(status, 200);
	assert_non_null(strstr(text, "privd_http_requests_total{route=\"privileges\",status=\"200\"}"));
	assert_non_null(strstr(text, "privd_http_requests_total{route=\"privileges\",status=\"404\"}"));
	assert_non_null(strstr(text, "privd_http_requests_total{route=\"import\",status=\"400\"}"));
	assert_non_null(strstr(text, "privd_http_request_duration_seconds_bucket{le=\"+Inf\"}"));
	assert_non_null(strstr(text, "privd_snapshot_accounts 9\n"));
	assert_non_null(strstr(text, "privd_snapshot_cells 20\n"));
	assert_non_null(strstr(text, "privd_snapshot_age_seconds"));
	free(text);
}

/* privd itself refuses to start on a bad file, naming file and line. */
static void
bad_config_stops_privd(void **state)
{
	const char *bin = getenv("PRIVD_BIN") ? getenv("PRIVD_BIN") : "server/privd";
	char path[256], cmd[1024], out[1024];
	size_t n;
	FILE *f, *p;
	int rc;

	(void)state;
	snprintf(path, sizeof(path), "%s/bad.yaml", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("ldap:\n  uri: ldap://127.0.0.1/\n  bsae: dc=x\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s -c %s 2>&1", bin, path);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	rc = pclose(p);
	assert_int_not_equal(rc, 0);
	snprintf(cmd, sizeof(cmd), "%s:3: unknown key 'bsae' in ldap", path);
	if (strstr(out, cmd) == NULL)
		fail_msg("privd said: %s", out);
}

static void
body_limit(void **state)
{
	size_t n = 3 << 20;
	char *big = malloc(n);
	long status;
	char *text;

	(void)state;
	assert_non_null(big);
	memset(big, '#', n);
	text = request("POST", "/v1/import", ADMIN_KEY, big, n, &status);
	assert_int_equal(status, 413);
	assert_non_null(strstr(text, "body_too_large"));
	free(text);
	free(big);
	assert_true(ready());
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(schema_both_forms_load),
		cmocka_unit_test(health_and_auth),
		cmocka_unit_test(bad_imports_write_nothing),
		cmocka_unit_test(import_demo),
		cmocka_unit_test(resolution_through_api),
		cmocka_unit_test(ldap_change_reaches_api),
		cmocka_unit_test(sync_drops_and_resyncs),
		cmocka_unit_test(metrics_exposition),
		cmocka_unit_test(body_limit),
		cmocka_unit_test(bad_config_stops_privd),
	};

	return cmocka_run_group_tests_name("integration", tests, group_setup, group_teardown);
}

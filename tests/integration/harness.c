/*
 * harness.c - what every integration test needs: its own slapd and privd
 * (tests/integration/env.sh), HTTP with libcurl, and LDAP behind privd's
 * back with the OpenLDAP command-line tools.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <curl/curl.h>
#include <jansson.h>

#include "harness.h"

char it_dir[] = "/tmp/privd-it.XXXXXX";
char it_http_base[64];
int it_ldap_port;
long it_timeout_s = 20;

struct buf {
	char *p;
	size_t len;
};

static size_t
it_on_data(char *ptr, size_t size, size_t n, void *arg)
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

/*
 * With PRIVD_API_RECORD=FILE every answer is appended to FILE, a JSON
 * object a line ({method, path, status, type, body}): tests/openapi checks
 * each against doc/openapi.yaml after the run.
 */
static void
record(const char *method, const char *path, long status, const char *type,
    const char *body)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	const char *file = getenv("PRIVD_API_RECORD");
	json_t *o;
	char *line;
	FILE *f;

	if (file == NULL || *file == '\0')
		return;
	o = json_pack("{s:s, s:s, s:I, s:s?, s:s?}", "method", method, "path", path,
	    "status", (json_int_t)status, "type", type, "body", body);
	if (o == NULL || (line = json_dumps(o, JSON_COMPACT)) == NULL) {
		/* a body that is not UTF-8 is not an answer the spec describes */
		json_decref(o);
		return;
	}
	pthread_mutex_lock(&lock);
	if ((f = fopen(file, "a")) != NULL) {
		fprintf(f, "%s\n", line);
		fclose(f);
	}
	pthread_mutex_unlock(&lock);
	free(line);
	json_decref(o);
}

/* One it_request; returns the body (caller frees) and sets *status. */
char *
it_try_request(const char *method, const char *path, const char *key, const char *body,
    size_t body_len, long *status)
{
	CURL *c = curl_easy_init();
	struct curl_slist *h = NULL;
	struct buf b = { calloc(1, 1), 0 };
	char url[4096], auth[256];
	CURLcode rc;

	if (c == NULL)
		return NULL;
	snprintf(url, sizeof(url), "%s%s", it_http_base, path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, it_on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, it_timeout_s);
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
	*status = 0;
	if (rc == CURLE_OK) {
		char *type = NULL;

		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
		curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &type);
		record(method, path, *status, type, b.p);
	}
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	if (rc != CURLE_OK) {
		free(b.p);
		return NULL;
	}
	return b.p;
}

char *
it_request(const char *method, const char *path, const char *key, const char *body,
    size_t body_len, long *status)
{
	char *text = it_try_request(method, path, key, body, body_len, status);

	if (text == NULL)
		fail_msg("%s %s: no answer (connection failed)", method, path);
	return text;
}

/* A JSON it_request expected to answer want; returns the parsed body. */
json_t *
it_call(const char *method, const char *path, const char *key, const char *body, long want)
{
	long status;
	char *text = it_request(method, path, key, body, body ? strlen(body) : 0, &status);
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);

	if (status != want)
		fail_msg("%s %s: status %ld, want %ld: %s", method, path, status, want, text);
	if (j == NULL)
		fail_msg("%s %s: not JSON: %s", method, path, text);
	free(text);
	return j;
}

json_t *
it_get(const char *path, long want)
{
	return it_call("GET", path, READ_KEY, NULL, want);
}

void
it_sh(const char *fmt, ...)
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
void
it_ldapmodify(const char *ldif)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/change.ldif", it_dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(ldif, f);
	fclose(f);
	it_sh("ldapmodify -x -H ldap://127.0.0.1:%d/ -D cn=admin,dc=example,dc=edu -w secret "
	    "-f %s > /dev/null", it_ldap_port, path);
}

/* How many entries match filter under base (ldapsearch, as administrator). */
int
it_ldap_count(const char *base, const char *filter)
{
	char cmd[1024];
	FILE *p;
	int n = 0;
	char line[1024];

	snprintf(cmd, sizeof(cmd), "ldapsearch -x -LLL -H ldap://127.0.0.1:%d/ "
	    "-D cn=admin,dc=example,dc=edu -w secret -b '%s' '%s' 1.1", it_ldap_port, base, filter);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p))
		n += strncmp(line, "dn:", 3) == 0;
	pclose(p);
	return n;
}

long
it_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

json_int_t
it_number(const char *path, const char *field)
{
	json_t *j = it_get(path, 200);
	json_int_t n = json_integer_value(json_object_get(j, field));

	json_decref(j);
	return n;
}

json_int_t
it_limit_of(const char *uid, const char *priv)
{
	char path[256];

	snprintf(path, sizeof(path), "/v1/accounts/%s/privileges/%s", uid, priv);
	return it_number(path, "limit");
}

/* Polls until fn() is true or ms pass; returns the milliseconds it took, or -1. */
long
it_within(long ms, int (*fn)(void))
{
	long t0 = it_now_ms();

	while (it_now_ms() - t0 <= ms) {
		if (fn())
			return it_now_ms() - t0;
		usleep(10000);
	}
	return -1;
}

/* The "allowed" answer of a check it_request (path under /v1/accounts/). */
int
it_allowed(const char *path)
{
	char full[512];
	json_t *j;
	int yes;

	snprintf(full, sizeof(full), "/v1/accounts/%s", path);
	j = it_get(full, 200);
	yes = json_is_true(json_object_get(j, "allowed"));
	json_decref(j);
	return yes;
}

int
it_ready(void)
{
	long status;
	char *t = it_request("GET", "/readyz", NULL, NULL, 0, &status);

	free(t);
	return status == 200;
}

int
it_not_ready(void)
{
	return !it_ready();
}

struct racer {
	int t, each;
	const char *path, *key;
	void (*body)(int, int, char *, size_t);
	struct it_tally tally;
};

static void *
race(void *arg)
{
	struct racer *r = arg;
	int i;

	for (i = 0; i < r->each; i++) {
		char buf[512];
		long st = 0;

		r->body(r->t, i, buf, sizeof(buf));
		free(it_try_request("POST", r->path, r->key, buf, strlen(buf), &st));
		if (st == 201)
			r->tally.ok++;
		else if (st == 409)
			r->tally.refused++;
		else
			r->tally.other++;
	}
	return NULL;
}

struct it_tally
it_race(int threads, int each, const char *path, const char *key,
    void (*body)(int t, int i, char *buf, size_t n))
{
	struct racer *r = calloc((size_t)threads, sizeof(*r));
	pthread_t *tid = calloc((size_t)threads, sizeof(*tid));
	struct it_tally sum = { 0, 0, 0 };
	int i;

	assert_non_null(r);
	assert_non_null(tid);
	for (i = 0; i < threads; i++) {
		r[i] = (struct racer){ i, each, path, key, body, { 0, 0, 0 } };
		assert_int_equal(pthread_create(&tid[i], NULL, race, &r[i]), 0);
	}
	for (i = 0; i < threads; i++) {
		pthread_join(tid[i], NULL);
		sum.ok += r[i].tally.ok;
		sum.refused += r[i].tally.refused;
		sum.other += r[i].tally.other;
	}
	free(r);
	free(tid);
	return sum;
}

int
it_privctl(char *out, size_t n, const char *fmt, ...)
{
	const char *bin = getenv("PRIVCTL_BIN") ? getenv("PRIVCTL_BIN") : "client/privctl";
	char args[1024], cmd[2048];
	va_list ap;
	size_t got;
	FILE *p;
	int st;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "PRIVD_URL=%s PRIVD_KEY=%s XDG_CONFIG_HOME=%s %s %s 2>&1",
	    it_http_base, ADMIN_KEY, it_dir, bin, args);
	assert_non_null(p = popen(cmd, "r"));
	got = fread(out, 1, n - 1, p);
	out[got] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int
it_group_setup(void **state)
{
	FILE *f;
	char path[256];
	int port;

	(void)state;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (mkdtemp(it_dir) == NULL)
		return -1;
	it_sh("tests/integration/env.sh start %s/env", it_dir);
	snprintf(path, sizeof(path), "%s/env/http_port", it_dir);
	f = fopen(path, "r");
	if (f == NULL || fscanf(f, "%d", &port) != 1)
		return -1;
	fclose(f);
	snprintf(it_http_base, sizeof(it_http_base), "http://127.0.0.1:%d", port);
	snprintf(path, sizeof(path), "%s/env/ldap_port", it_dir);
	f = fopen(path, "r");
	if (f == NULL || fscanf(f, "%d", &it_ldap_port) != 1)
		return -1;
	fclose(f);
	return 0;
}

int
it_group_setup_model(void **state, const char *model)
{
	if (it_group_setup(state) != 0)
		return -1;
	json_decref(it_call("POST", "/v1/import", ADMIN_KEY, model, 200));
	return 0;
}

int
it_group_teardown(void **state)
{
	char cmd[512];

	(void)state;
	/* env.sh's status, not rm's: it fails on a sanitizer report */
	snprintf(cmd, sizeof(cmd), "cat %s/env/privd.log >&2; tests/integration/env.sh stop %s/env; "
	    "rc=$?; rm -rf %s; exit $rc", it_dir, it_dir, it_dir);
	if (getenv("PRIVD_TEST_LOG") == NULL)
		snprintf(cmd, sizeof(cmd), "tests/integration/env.sh stop %s/env; rc=$?; rm -rf %s; "
		    "exit $rc", it_dir, it_dir);
	/* env.sh stop fails when a sanitizer reported in privd's log: cmocka
	 * does not count a failed group teardown, so the run fails here */
	if (system(cmd) != 0) {
		fprintf(stderr, "teardown: env.sh stop failed (a sanitizer report in privd's log?)\n");
		exit(1);
	}
	curl_global_cleanup();
	return 0;
}

long
it_metric(const char *line)
{
	long status, v = -1;
	char *text = it_request("GET", "/metrics", READ_KEY, NULL, 0, &status), *at, want[200];

	/* the sample's line, not its HELP line */
	snprintf(want, sizeof(want), "\n%s", line);
	if (text != NULL && (at = strstr(text, want)) != NULL)
		v = strtol(at + strlen(want), NULL, 10);
	free(text);
	return v;
}

char *
it_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)n;
	return buf;
}

json_int_t
it_num(json_t *j, const char *k)
{
	json_t *v = json_object_get(j, k);

	if (!json_is_integer(v))
		fail_msg("no integer '%s' in the answer", k);
	return json_integer_value(v);
}

void
it_check_ledger(void)
{
	it_sh("%s -c config/dev.yaml -L ldap://127.0.0.1:%d/ --check-ledger >&2",
	    getenv("PRIVD_BIN") ? getenv("PRIVD_BIN") : "server/privd", it_ldap_port);
}

int
it_pid_of(const char *name)
{
	char p[256];
	FILE *f;
	int pid = -1;

	snprintf(p, sizeof(p), "%s/env/%s", it_dir, name);
	if ((f = fopen(p, "r")) != NULL) {
		if (fscanf(f, "%d", &pid) != 1)
			pid = -1;
		fclose(f);
	}
	return pid;
}

/*
 * test_security.c - hostile and broken input against a running privd, and
 * faults: keys and scopes, HTTP Basic bound to LDAP, malformed and hostile
 * bodies and paths, overlong requests, a slowloris client, HTTPS, LDAP
 * StartTLS with certificate checks, and slapd stopped with SIGSTOP. After
 * each, privd must still be ready. Counts go to stderr.
 */
#include <arpa/inet.h>
#include <pthread.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <curl/curl.h>
#include <jansson.h>

#include "harness.h"

static int checks, passed;

/* One request that must answer one of the statuses (0-terminated list). */
static void
expect(const char *method, const char *path, const char *key, const char *body,
    size_t len, const char *what, ...)
{
	va_list ap;
	long status, want;
	char *text = it_request(method, path, key, body, len, &status);
	int ok = 0;

	va_start(ap, what);
	while ((want = va_arg(ap, long)) != 0)
		ok |= status == want;
	va_end(ap);
	checks++;
	if (!ok)
		fail_msg("%s: %s %s answered %ld: %.300s", what, method, path, status, text);
	passed++;
	free(text);
}

static void
still_ready(void)
{
	assert_true(it_ready());
}

static int
setup(void **state)
{
	json_t *j;

	if (it_group_setup(state) != 0)
		return -1;
	j = it_call("POST", "/v1/import", ADMIN_KEY,
	    "reasons: { student: { undergrad: {} }, staff: { academic: {} } }\n"
	    "organisations: { lab: {} }\n"
	    "grants:\n  \"student@\": { print.pages: 1000 }\n"
	    "accounts:\n  jdoe: [student/undergrad@lab]\n  mwhite: [staff/academic@lab]\n", 200);
	json_decref(j);
	return 0;
}

static void
keys_and_scopes(void **state)
{
	const char *charge = "/v1/accounts/jdoe/quotas/print.pages/charges";
	const char *body = "{\"request_id\":\"k-1\",\"amount\":1}";

	(void)state;
	expect("GET", "/v1/accounts/jdoe/privileges", NULL, NULL, 0, "no key", 401L, 0L);
	expect("GET", "/v1/accounts/jdoe/privileges", "wrong-key", NULL, 0, "wrong key", 401L, 0L);
	expect("POST", charge, READ_KEY, body, strlen(body), "read key charging", 403L, 0L);
	expect("POST", "/v1/import", CHARGE_KEY, "reasons: {}\n", 12, "charge key importing",
	    403L, 0L);
	expect("GET", "/v1/export", READ_KEY, NULL, 0, "read key exporting", 403L, 0L);
	expect("GET", "/healthz", NULL, NULL, 0, "healthz is open", 200L, 0L);
	expect("GET", "/readyz", NULL, NULL, 0, "readyz is open", 200L, 0L);
	expect("GET", "/metrics", NULL, NULL, 0, "metrics needs a key", 401L, 0L);
	still_ready();
}

/* A request with HTTP Basic credentials. */
static long
basic(const char *method, const char *path, const char *userpwd, const char *body)
{
	CURL *c = curl_easy_init();
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	char url[512];
	long status = 0;

	snprintf(url, sizeof(url), "%s%s", it_http_base, path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(c, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
	curl_easy_setopt(c, CURLOPT_USERPWD, userpwd);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, fwrite);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, stderr);
	if (body)
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return status;
}

static void
basic_logins_bound_to_ldap(void **state)
{
	const char *grant = "{\"cell\":\"staff@lab\",\"grants\":[\"print.pages=42\"]}";
	char log[256];
	int i;

	(void)state;
	/* mwhite administers (ui.admins): the grant lands, written as mwhite */
	assert_int_equal(basic("POST", "/v1/grants", "mwhite:hos-dev-secret", grant), 200);
	assert_int_equal(it_limit_of("mwhite", "print.pages"), 42);
	/* jdoe may log in, but privd refuses her an administrator's route */
	assert_int_equal(basic("POST", "/v1/grants", "jdoe:jdoe-dev-secret",
	    "{\"cell\":\"staff@lab\",\"grants\":[\"print.pages=43\"]}"), 403);
	assert_int_equal(it_limit_of("mwhite", "print.pages"), 42);
	assert_int_equal(basic("POST", "/v1/grants", "mwhite:wrong", grant), 401);
	assert_int_equal(basic("POST", "/v1/grants", "nobody:x", grant), 401);
	assert_int_equal(basic("POST", "/v1/grants", "*)(uid=*:x", grant), 401);
	/* Basic reads as a sign-in does: an administrator anyone's, a person their own */
	assert_int_equal(basic("GET", "/v1/accounts/jdoe/privileges", "mwhite:hos-dev-secret",
	    NULL), 200);
	assert_int_equal(basic("GET", "/v1/accounts/mwhite/privileges", "jdoe:jdoe-dev-secret",
	    NULL), 403);
	/* failed logins from one address are limited */
	for (i = 0; i < 12; i++)
		basic("POST", "/v1/grants", "mwhite:wrong-again", grant);
	assert_int_equal(basic("POST", "/v1/grants", "mwhite:hos-dev-secret", grant), 429);
	checks += 9;
	passed += 9;
	/* no secret in the log, and an audit line for the refusals */
	snprintf(log, sizeof(log), "%s/env/privd.log", it_dir);
	it_sh("! grep -q -e hos-dev-secret -e jdoe-dev-secret -e wrong-again -e %s %s",
	    ADMIN_KEY, log);
	usleep(200000);	/* the audit line is written once the answer is sent */
	it_sh("grep -q 'refused: POST grant from 127.0.0.1 by jdoe: 403' %s || "
	    "{ grep refused %s >&2; exit 1; }", log, log);
	it_sh("grep -q 'admin grant by mwhite from 127.0.0.1' %s", log);
	still_ready();
}

static void
bad_bodies(void **state)
{
	static const char *bodies[] = {
		"", "{", "[]", "null", "\"x\"", "{\"request_id\":\"a\",\"amount\":1,\"request_id\":\"b\"}",
		"{\"request_id\":1,\"amount\":1}", "{\"request_id\":\"a\",\"amount\":\"1\"}",
		"{\"request_id\":\"a\",\"amount\":-1}", "{\"request_id\":\"a\",\"amount\":0}",
		"{\"request_id\":\"a\",\"amount\":99999999999999999999}",
		"{\"request_id\":\"a\",\"amount\":1e3}", "{\"request_id\":\"a\",\"amount\":true}",
		"{\"request_id\":\"a b\",\"amount\":1}", "{\"request_id\":\"a\\u0000b\",\"amount\":1}",
		"{\"request_id\":\"*)(objectClass=*\",\"amount\":1}",
		"{\"request_id\":\"cn=x,dc=y\",\"amount\":1}",
		"{\"request_id\":\"a\",\"amount\":1,\"metadata\":\"x\"}",
		"{\"request_id\":\"a\",\"amount\":1,\"partial\":1}",
		"{\"request_id\":\"a\",\"amount\":1,\"extra\":1}",
		"\xff\xfe\x00{", NULL
	};
	size_t i;
	char *big;

	(void)state;
	for (i = 0; bodies[i]; i++)
		expect("POST", "/v1/accounts/jdoe/quotas/print.pages/charges", CHARGE_KEY,
		    bodies[i], strlen(bodies[i]), bodies[i], 400L, 0L);
	expect("POST", "/v1/grants", ADMIN_KEY, "{\"cell\":\"a@b\",\"grants\":[1]}", 28,
	    "grant of a number", 400L, 0L);
	expect("POST", "/v1/grants", ADMIN_KEY, "{\"cell\":\"A@b\",\"grants\":[\"print.pages=1\"]}",
	    41, "upper-case cell", 400L, 0L);
	expect("POST", "/v1/memberships", ADMIN_KEY, "{\"account\":\"a,b\",\"cell\":\"x@\"}", 30,
	    "DN special in a uid", 400L, 0L);
	expect("POST", "/v1/import", ADMIN_KEY, "reasons: !!binary AAAA\n", 23,
	    "hostile import", 400L, 0L);
	expect("POST", "/v1/import", ADMIN_KEY, "a: &x [*x, *x]\n", 15, "aliases", 400L, 0L);
	/* 3 MiB: refused before it is read */
	big = malloc(3 << 20);
	assert_non_null(big);
	memset(big, 'x', 3 << 20);
	expect("POST", "/v1/accounts/jdoe/quotas/print.pages/charges", CHARGE_KEY, big,
	    3 << 20, "3 MiB body", 413L, 0L);
	free(big);
	assert_int_equal(it_ldap_count(BASE, "(privRequest=*)"), 0);
	still_ready();
}

static void
hostile_path_parameters(void **state)
{
	static const char *evil[] = {
		"*", "*)(uid=*", "%2A%29%28uid%3D%2A", "a%2Cb%3Dc", "..", "%2e%2e",
		"a%00b", "cn%3Dadmin%2Cdc%3Dexample%2Cdc%3Dedu", "%5C2a", "%0d%0aX:%20y",
		"a+b", "%F0%9F%98%80", NULL
	};
	char path[512], longp[3100];
	size_t i;

	(void)state;
	for (i = 0; evil[i]; i++) {
		snprintf(path, sizeof(path), "/v1/accounts/%s/privileges", evil[i]);
		expect("GET", path, READ_KEY, NULL, 0, "uid", 400L, 404L, 0L);
		snprintf(path, sizeof(path), "/v1/accounts/jdoe/privileges/%s", evil[i]);
		expect("GET", path, READ_KEY, NULL, 0, "privilege", 400L, 404L, 0L);
		snprintf(path, sizeof(path), "/v1/accounts/jdoe/quotas/%s/charges", evil[i]);
		expect("POST", path, CHARGE_KEY, "{\"request_id\":\"p\",\"amount\":1}", 29,
		    "quota", 400L, 404L, 0L);
		snprintf(path, sizeof(path), "/v1/accounts/jdoe/quotas/print.pages/holds/%s/commit",
		    evil[i]);
		expect("POST", path, CHARGE_KEY, "{\"amount\":1}", 12, "hold id", 400L, 404L, 0L);
		snprintf(path, sizeof(path), "/v1/grants?cell=%s&privilege=print.pages", evil[i]);
		expect("DELETE", path, ADMIN_KEY, NULL, 0, "cell", 400L, 404L, 0L);
		snprintf(path, sizeof(path), "/v1/nodes/reasons?path=%s", evil[i]);
		expect("DELETE", path, ADMIN_KEY, NULL, 0, "node path", 400L, 404L, 0L);
		snprintf(path, sizeof(path), "/v1/who?privilege=%s", evil[i]);
		expect("GET", path, READ_KEY, NULL, 0, "who", 400L, 404L, 0L);
	}
	memset(longp, 'a', sizeof(longp) - 1);
	longp[0] = '/';
	longp[sizeof(longp) - 1] = '\0';
	expect("GET", longp, READ_KEY, NULL, 0, "overlong path", 414L, 0L);
	/* nothing was written by any of it */
	assert_int_equal(it_ldap_count(BASE, "(privRequest=*)"), 0);
	still_ready();
}

static int
connect_privd(void)
{
	struct sockaddr_in sa;
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	sscanf(it_http_base, "http://127.0.0.1:%d", &port);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		fail_msg("cannot connect to privd");
	return fd;
}

static void
overlong_headers_and_slowloris(void **state)
{
	static char hdr[70000];
	char buf[512];
	int fds[40], i, fd;
	ssize_t n;

	(void)state;
	/* a 70 kB header: refused (or the connection dropped), never served */
	fd = connect_privd();
	memset(hdr, 'a', sizeof(hdr));
	memcpy(hdr, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ", 39);
	memcpy(hdr + sizeof(hdr) - 4, "\r\n\r\n", 4);
	n = write(fd, hdr, sizeof(hdr));
	(void)n;
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	if (n > 0 && strstr(buf, " 200 ") != NULL)
		fail_msg("a 70 kB header was served: %s", buf);
	close(fd);
	checks++;
	passed++;
	/* slowloris: 40 clients each send half a request header and stall */
	for (i = 0; i < 40; i++) {
		fds[i] = connect_privd();
		n = write(fds[i], "GET /v1/accounts/jdoe/privileges HTTP/1.1\r\nHost: x\r\nX-a: ", 57);
	}
	/* the others are served all the same */
	for (i = 0; i < 20; i++)
		expect("GET", "/v1/accounts/jdoe/privileges", READ_KEY, NULL, 0,
		    "a read beside slowloris", 200L, 0L);
	for (i = 0; i < 40; i++)
		close(fds[i]);
	still_ready();
}

static const char *
bin(void)
{
	return getenv("PRIVD_BIN") ? getenv("PRIVD_BIN") : "server/privd";
}

static void
https_and_ldap_starttls(void **state)
{
	char d[300], cfg[400];
	long status;
	int port;

	(void)state;
	snprintf(d, sizeof(d), "%s/tls", it_dir);
	/* a throw-away CA and a certificate for 127.0.0.1, made here */
	it_sh("mkdir -p %s && cd %s && "
	    "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=test-ca "
	    "-keyout ca.key -out ca.pem 2>/dev/null && "
	    "openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -keyout key.pem "
	    "-out req.pem 2>/dev/null && "
	    "printf 'subjectAltName=IP:127.0.0.1\\n' > ext && "
	    "openssl x509 -req -in req.pem -CA ca.pem -CAkey ca.key -CAcreateserial -days 1 "
	    "-extfile ext -out cert.pem 2>/dev/null && "
	    "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=other-ca "
	    "-keyout other.key -out other.pem 2>/dev/null && chmod 644 key.pem", d, d);
	/* slapd with StartTLS on that certificate */
	it_sh("SLAPD_TLS_CERT=%s/cert.pem SLAPD_TLS_KEY=%s/key.pem deploy/slapd-dev.sh start "
	    "%s/slapd > %s/ldap_port", d, d, d, d);
	port = 20000 + (int)(getpid() % 12000);
	/* privd over HTTPS, following slapd over StartTLS with the right CA */
	snprintf(cfg, sizeof(cfg), "%s/privd.yaml", d);
	it_sh("sed -e 's|^  threads: 2|  threads: 2\\n  tls_cert: %s/cert.pem\\n  tls_key: %s/key.pem|' "
	    "-e 's|^  timeout: 5|  timeout: 5\\n  starttls: true\\n  ca_file: %s/ca.pem|' "
	    "config/dev.yaml > %s", d, d, d, cfg);
	it_sh("%s -c %s -L ldap://127.0.0.1:$(cat %s/ldap_port)/ -l 127.0.0.1:%d > %s/privd.log 2>&1 "
	    "& echo $! > %s/privd.pid", bin(), cfg, d, port, d, d);
	it_sh("for i in $(seq 1 100); do curl -sf --cacert %s/ca.pem https://127.0.0.1:%d/readyz "
	    ">/dev/null && exit 0; sleep 0.1; done; cat %s/privd.log >&2; exit 1", d, port, d);
	/* plain HTTP to the HTTPS port is not served */
	it_sh("! curl -sf http://127.0.0.1:%d/healthz > /dev/null", port);
	/* a certificate from another CA: refused by curl */
	it_sh("! curl -sf --cacert %s/other.pem https://127.0.0.1:%d/healthz > /dev/null", d, port);
	it_sh("kill $(cat %s/privd.pid); sleep 0.3", d);
	/* the wrong CA for slapd: privd never becomes ready, and says why */
	it_sh("sed -i 's|ca_file: .*|ca_file: %s/other.pem|' %s", d, cfg);
	it_sh("%s -c %s -L ldap://127.0.0.1:$(cat %s/ldap_port)/ -l 127.0.0.1:%d > %s/privd2.log 2>&1 "
	    "& echo $! > %s/privd.pid", bin(), cfg, d, port, d, d);
	sleep(2);
	status = 0;
	{
		char cmd[600];
		FILE *p;

		snprintf(cmd, sizeof(cmd), "curl -s -o /dev/null -w '%%{http_code}' --cacert %s/ca.pem "
		    "https://127.0.0.1:%d/readyz", d, port);
		p = popen(cmd, "r");
		assert_non_null(p);
		if (fscanf(p, "%ld", &status) != 1)
			status = -1;
		pclose(p);
	}
	assert_int_equal(status, 503);
	it_sh("grep -q 'TLS' %s/privd2.log", d);
	it_sh("kill $(cat %s/privd.pid); deploy/slapd-dev.sh stop %s/slapd", d, d);
	checks += 5;
	passed += 5;
}

static int
privd_threads(void)
{
	char p[256], line[256];
	FILE *f;
	int pid = -1, n = -1;

	snprintf(p, sizeof(p), "%s/env/privd.pid", it_dir);
	if ((f = fopen(p, "r")) != NULL) {
		if (fscanf(f, "%d", &pid) != 1)
			pid = -1;
		fclose(f);
	}
	snprintf(p, sizeof(p), "/proc/%d/status", pid);
	if ((f = fopen(p, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

struct slow {
	int i;
	long status;
	long ms;
};

static void *
slow_charge(void *arg)
{
	struct slow *s = arg;
	char body[96], *t;
	long t0 = it_now_ms();

	snprintf(body, sizeof(body), "{\"request_id\":\"stop-%d\",\"amount\":1}", s->i);
	t = it_try_request("POST", "/v1/accounts/jdoe/quotas/print.pages/charges", CHARGE_KEY,
	    body, strlen(body), &s->status);
	free(t);
	s->ms = it_now_ms() - t0;
	return NULL;
}

static int
charge_works(void)
{
	char body[96], *t;
	long status = 0;

	snprintf(body, sizeof(body), "{\"request_id\":\"after-%ld\",\"amount\":1}", it_now_ms());
	t = it_try_request("POST", "/v1/accounts/jdoe/quotas/print.pages/charges", CHARGE_KEY,
	    body, strlen(body), &status);
	free(t);
	return status == 201;
}

static void
slapd_stopped_with_sigstop(void **state)
{
	struct slow s[10];
	pthread_t th[10];
	int i, before, after, pid = it_pid_of("slapd/slapd.pid"), n503 = 0;
	long worst = 0, t0, read_ms;

	(void)state;
	before = privd_threads();
	assert_true(pid > 0);
	assert_int_equal(kill(pid, SIGSTOP), 0);
	for (i = 0; i < 10; i++) {
		s[i].i = i;
		assert_int_equal(pthread_create(&th[i], NULL, slow_charge, &s[i]), 0);
	}
	/* the charges wait on slapd on the writers, not on the HTTP threads:
	 * a read is answered from memory meanwhile, without waiting for them */
	usleep(500 * 1000);
	t0 = it_now_ms();
	expect("GET", "/v1/accounts/jdoe/privileges", READ_KEY, NULL, 0,
	    "read while charges wait on slapd", 200L, 0L);
	read_ms = it_now_ms() - t0;
	for (i = 0; i < 10; i++) {
		pthread_join(th[i], NULL);
		n503 += s[i].status == 503;
		if (s[i].ms > worst)
			worst = s[i].ms;
	}
	after = privd_threads();
	/* reads go on from memory meanwhile */
	expect("GET", "/v1/accounts/jdoe/privileges", READ_KEY, NULL, 0, "read while slapd stopped",
	    200L, 0L);
	assert_int_equal(kill(pid, SIGCONT), 0);
	fprintf(stderr, "slapd stopped: %d of 10 charges answered 503, slowest %ld ms "
	    "(ldap.timeout 5 s); privd threads %d before, %d during; a read meanwhile %ld ms\n",
	    n503, worst, before, after, read_ms);
	assert_true(read_ms < 1000);
	assert_int_equal(n503, 10);
	/* each within the LDAP timeout, plus the write ahead of it on its writer */
	assert_true(worst < 11000);
	assert_int_equal(after, before);
	checks += 10;
	passed += 10;
	assert_true(it_within(15000, it_ready) >= 0);
	/* and charges work again, without a restart */
	assert_true(it_within(5000, charge_works) >= 0);
	fprintf(stderr, "security checks: %d run, %d passed\n", checks, passed);
}

/* Whatever a failed test left running (the TLS test's own privd and slapd). */
static int
teardown(void **state)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "[ -f %s/tls/privd.pid ] && kill $(cat %s/tls/privd.pid) "
	    "2>/dev/null; deploy/slapd-dev.sh stop %s/tls/slapd 2>/dev/null; "
	    "kill -CONT $(cat %s/env/slapd/slapd.pid 2>/dev/null) 2>/dev/null; true",
	    it_dir, it_dir, it_dir, it_dir);
	if (system(cmd) != 0)
		return -1;
	return it_group_teardown(state);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(keys_and_scopes),
		cmocka_unit_test(basic_logins_bound_to_ldap),
		cmocka_unit_test(bad_bodies),
		cmocka_unit_test(hostile_path_parameters),
		cmocka_unit_test(overlong_headers_and_slowloris),
		cmocka_unit_test(https_and_ldap_starttls),
		cmocka_unit_test(slapd_stopped_with_sigstop),
	};

	return cmocka_run_group_tests_name("security", tests, setup, teardown);
}

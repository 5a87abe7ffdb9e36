/*
 * test_replica.c - scale-out on OpenLDAP's replication: privd A follows the
 * provider, privd B a consumer (syncrepl, refreshAndPersist) and writes to
 * the provider. Charges and admin changes through either reach the other
 * within a second, and B keeps serving reads while the provider is down.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "harness.h"

static char a_base[64], b_base[64];
static int b_port, consumer_port;

/* GET on privd B (or A) with the read key: the status, body into *out. */
static long
get_on(const char *base, const char *path, json_t **out)
{
	char saved[64];
	long status;
	char *t;

	snprintf(saved, sizeof(saved), "%s", it_http_base);
	snprintf(it_http_base, sizeof(it_http_base), "%s", base);
	t = it_try_request("GET", path, READ_KEY, NULL, 0, &status);
	snprintf(it_http_base, sizeof(it_http_base), "%s", saved);
	if (out)
		*out = t ? json_loads(t, 0, NULL) : NULL;
	free(t);
	return status;
}

static long
post_on(const char *base, const char *path, const char *key, const char *body)
{
	char saved[64];
	long status;
	char *t;

	snprintf(saved, sizeof(saved), "%s", it_http_base);
	snprintf(it_http_base, sizeof(it_http_base), "%s", base);
	t = it_try_request("POST", path, key, body, strlen(body), &status);
	snprintf(it_http_base, sizeof(it_http_base), "%s", saved);
	free(t);
	return status;
}

static json_int_t
field_on(const char *base, const char *path, const char *k)
{
	json_t *j = NULL;
	json_int_t n = -1;

	if (get_on(base, path, &j) == 200)
		n = json_integer_value(json_object_get(j, k));
	json_decref(j);
	return n;
}

static int
setup(void **state)
{
	char cmd[1024];
	FILE *f;
	int i;

	if (it_group_setup(state) != 0)
		return -1;
	snprintf(a_base, sizeof(a_base), "%s", it_http_base);
	snprintf(cmd, sizeof(cmd), "deploy/slapd-dev.sh start-consumer %s/consumer %d > %s/cport",
	    it_dir, it_ldap_port, it_dir);
	if (system(cmd) != 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "%s/cport", it_dir);
	if ((f = fopen(cmd, "r")) == NULL || fscanf(f, "%d", &consumer_port) != 1)
		return -1;
	fclose(f);
	/* a port nobody listens on: the fixed guess could meet another run's */
	for (i = 0; i < 50; i++) {
		struct sockaddr_in sa;
		int fd = socket(AF_INET, SOCK_STREAM, 0), ok;

		b_port = 20000 + (int)((getpid() * 31 + i * 7919) % 12000);
		memset(&sa, 0, sizeof(sa));
		sa.sin_family = AF_INET;
		sa.sin_port = htons((uint16_t)b_port);
		sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		ok = fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
		if (fd >= 0)
			close(fd);
		if (ok)
			break;
	}
	snprintf(b_base, sizeof(b_base), "http://127.0.0.1:%d", b_port);
	snprintf(cmd, sizeof(cmd), "%s -c config/dev.yaml -L ldap://127.0.0.1:%d/ "
	    "-W ldap://127.0.0.1:%d/ -l 127.0.0.1:%d > %s/privd-b.log 2>&1 & echo $! > %s/b.pid",
	    getenv("PRIVD_BIN") ? getenv("PRIVD_BIN") : "server/privd", consumer_port,
	    it_ldap_port, b_port, it_dir, it_dir);
	if (system(cmd) != 0)
		return -1;
	/* the consumer refreshes from the provider first; a sanitizer build on
	 * a busy machine takes a while */
	for (i = 0; i < 600; i++) {
		if (get_on(b_base, "/readyz", NULL) == 200)
			return 0;
		usleep(100000);
	}
	snprintf(cmd, sizeof(cmd), "tail -20 %s/privd-b.log >&2", it_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "replica: privd B never became ready\n");
	return -1;
}

static int
teardown(void **state)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "kill $(cat %s/b.pid) 2>/dev/null; sleep 0.3; "
	    "deploy/slapd-dev.sh stop %s/consumer", it_dir, it_dir);
	if (system(cmd) != 0)
		return -1;
	return it_group_teardown(state);
}

static int
b_sees_model(void)
{
	return get_on(b_base, "/v1/accounts/jdoe/privileges/print.pages", NULL) == 200;
}

static int
b_sees_used_12(void)
{
	return field_on(b_base, "/v1/accounts/jdoe/quotas/print.pages", "used") == 12;
}

static int
a_sees_used_15(void)
{
	return field_on(a_base, "/v1/accounts/jdoe/quotas/print.pages", "used") == 15;
}

static int
b_sees_limit_77(void)
{
	return field_on(b_base, "/v1/accounts/jdoe/privileges/print.pages", "limit") == 77;
}

static void
changes_cross_replicas(void **state)
{
	long ms;

	(void)state;
	/* an import through A reaches B through the consumer */
	json_decref(it_call("POST", "/v1/import", ADMIN_KEY,
	    "reasons: { student: { undergrad: {} } }\norganisations: { lab: {} }\n"
	    "grants:\n  \"student@\": { print.pages: 100 }\n"
	    "accounts:\n  jdoe: [student/undergrad@lab]\n", 200));
	assert_true((ms = it_within(1000, b_sees_model)) >= 0);
	fprintf(stderr, "import through A seen by B after %ld ms\n", ms);
	/* a charge through A: B shows the usage */
	assert_int_equal(post_on(a_base, "/v1/accounts/jdoe/quotas/print.pages/charges",
	    CHARGE_KEY, "{\"request_id\":\"a-1\",\"amount\":12}"), 201);
	assert_true((ms = it_within(1000, b_sees_used_12)) >= 0);
	fprintf(stderr, "charge through A seen by B after %ld ms\n", ms);
	/* a charge through B goes to the provider and reaches A */
	assert_int_equal(post_on(b_base, "/v1/accounts/jdoe/quotas/print.pages/charges",
	    CHARGE_KEY, "{\"request_id\":\"b-1\",\"amount\":3}"), 201);
	assert_true(it_within(1000, a_sees_used_15) >= 0);
	/* an admin change through A */
	assert_int_equal(post_on(a_base, "/v1/grants", ADMIN_KEY,
	    "{\"cell\":\"student@\",\"grants\":[\"print.pages=77\"]}"), 200);
	assert_true((ms = it_within(1000, b_sees_limit_77)) >= 0);
	fprintf(stderr, "grant through A seen by B after %ld ms\n", ms);
}

static void
b_serves_while_the_provider_is_down(void **state)
{
	(void)state;
	it_sh("tests/integration/env.sh slapd-stop %s/env", it_dir);
	/* reads from B go on; writes through B fail closed */
	assert_int_equal(get_on(b_base, "/v1/accounts/jdoe/privileges", NULL), 200);
	assert_int_equal(field_on(b_base, "/v1/accounts/jdoe/quotas/print.pages", "used"), 15);
	assert_int_equal(post_on(b_base, "/v1/accounts/jdoe/quotas/print.pages/charges",
	    CHARGE_KEY, "{\"request_id\":\"b-2\",\"amount\":1}"), 503);
	it_sh("tests/integration/env.sh slapd-start %s/env", it_dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(changes_cross_replicas),
		cmocka_unit_test(b_serves_while_the_provider_is_down),
	};

	return cmocka_run_group_tests_name("replica", tests, setup, teardown);
}

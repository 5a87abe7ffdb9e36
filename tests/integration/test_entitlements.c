/*
 * test_entitlements.c - effective privileges published into a real slapd
 * (server/publish.h) by a real privd with config/dev.yaml (printer.access
 * and login.hosts as groups and as privEntitlement values): the groups and
 * values match the model; a grant that gives 3 more people a host writes
 * those 3 members and 3 values only, in the directory within 1 s; a dated
 * membership's end takes them away by itself; what someone changed by hand
 * is found by --check-entitlements and put right when privd starts; a
 * privilege no longer published leaves the directory; of two privd exactly
 * one writes, and the other takes over when it is SIGKILLed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include <cmocka.h>
#include <jansson.h>

#include "harness.h"

#define GROUPS "ou=entitlements,dc=example,dc=edu"
#define PEOPLE "ou=people,dc=example,dc=edu"
#define URN "urn:mace:example.edu:privd:"

static char top[1024];
static int http2_port, second_pid;

static const char model[] =
    "reasons: { staff: { academic: {} }, student: { undergrad: {} }, visitor: {} }\n"
    "organisations: { eng: { cse: {} }, arts: {} }\n"
    "grants:\n"
    "  \"staff@eng\": { login.hosts: [eng-lab], printer.access: [eng-laser] }\n"
    "  \"student@eng\": { login.hosts: [eng-lab] }\n"
    "  \"@arts\": { printer.access: [arts-inkjet] }\n"
    "accounts:\n"
    "  e1: [staff/academic@eng/cse]\n"
    "  e2: [student/undergrad@eng/cse]\n"
    "  e3: [student/undergrad@eng]\n"
    "  e4: [student/undergrad@eng/cse]\n"
    "  e5: [visitor@arts]\n"
    "  e6:\n"
    "    - { cell: student/undergrad@eng, until: \"%s\" }\n";

/* whether dn of uid is a member of group cn */
static int
member(const char *cn, const char *uid)
{
	char base[256], f[256];

	snprintf(base, sizeof(base), "cn=%s," GROUPS, cn);
	snprintf(f, sizeof(f), "(member=uid=%s," PEOPLE ")", uid);
	return it_ldap_count(base, f);
}

static int
has_value(const char *uid, const char *val)
{
	char base[256], f[256];

	snprintf(base, sizeof(base), "uid=%s," PEOPLE, uid);
	snprintf(f, sizeof(f), "(privEntitlement=" URN "%s)", val);
	return it_ldap_count(base, f);
}

static const char *w_cn, *w_uid;
static int w_want;

static int
member_is(void)
{
	return member(w_cn, w_uid) == w_want;
}

/* ms until uid's membership of cn is want, or -1 after limit ms */
static long
until_member(const char *cn, const char *uid, int want, long limit)
{
	w_cn = cn;
	w_uid = uid;
	w_want = want;
	return it_within(limit, member_is);
}

/* a metric of the privd at base (http://127.0.0.1:PORT) */
static double
metric(const char *base, const char *name)
{
	char cmd[512], line[256];
	double v = -1;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "curl -sf -H 'Authorization: Bearer " READ_KEY "' %s/metrics | "
	    "awk '$1 == \"%s\" { print $2 }'", base, name);
	if ((p = popen(cmd, "r")) == NULL)
		return -1;
	if (fgets(line, sizeof(line), p) != NULL)
		v = atof(line);
	pclose(p);
	return v;
}

static int
check_at(const char *conf, int port)
{
	const char *bin = getenv("PRIVD_BIN") ? getenv("PRIVD_BIN") : "server/privd";
	char cmd[1024];
	int rc;

	snprintf(cmd, sizeof(cmd), "%s -c %s -L ldap://127.0.0.1:%d/ --check-entitlements "
	    "> %s/env/check.out 2>&1", bin, conf, port, it_dir);
	rc = system(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static int
check_entitlements(const char *conf)
{
	return check_at(conf, it_ldap_port);
}

static int
setup(void **state)
{
	char m[2048], until[32];
	time_t soon = time(NULL) + 15;	/* e6's membership ends in a few seconds */
	struct tm tm;
	int i;

	if (it_group_setup(state) != 0)
		return -1;
	for (i = 1; i <= 6; i++) {
		char ldif[512];

		snprintf(ldif, sizeof(ldif), "dn: uid=e%d," PEOPLE "\nchangetype: add\n"
		    "objectClass: inetOrgPerson\nuid: e%d\ncn: e%d\nsn: e%d\n", i, i, i, i);
		it_ldapmodify(ldif);
	}
	gmtime_r(&soon, &tm);
	strftime(until, sizeof(until), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(m, sizeof(m), model, until);
	json_decref(it_call("POST", "/v1/import", ADMIN_KEY, m, 200));
	return 0;
}

static int
teardown(void **state)
{
	if (second_pid > 0)
		kill(second_pid, SIGKILL);
	return it_group_teardown(state);
}

static void
groups_and_values_match_the_model(void **state)
{
	(void)state;
	assert_true(until_member("login.hosts=eng-lab", "e2", 1, 5000) >= 0);
	assert_int_equal(member("login.hosts=eng-lab", "e1"), 1);
	assert_int_equal(member("login.hosts=eng-lab", "e3"), 1);
	assert_int_equal(member("login.hosts=eng-lab", "e5"), 0);
	assert_int_equal(member("printer.access=eng-laser", "e1"), 1);
	assert_int_equal(member("printer.access=eng-laser", "e2"), 0);
	assert_int_equal(member("printer.access=arts-inkjet", "e5"), 1);
	assert_int_equal(has_value("e1", "login.hosts:eng-lab"), 1);
	assert_int_equal(has_value("e1", "printer.access:eng-laser"), 1);
	assert_int_equal(has_value("e5", "printer.access:arts-inkjet"), 1);
	assert_int_equal(has_value("e5", "login.hosts:eng-lab"), 0);
	/* privAccount allows the values: no class was added for them */
	assert_int_equal(it_ldap_count("uid=e1," PEOPLE, "(objectClass=privEntitled)"), 0);
	/* the groups are groupOfNames, found the way consumers look */
	assert_int_equal(it_ldap_count(GROUPS, "(&(objectClass=groupOfNames)"
	    "(cn=printer.access=arts-inkjet))"), 1);
	assert_int_equal(check_entitlements("config/dev.yaml"), 0);
}

static void
a_grant_writes_only_the_differences_within_a_second(void **state)
{
	double before, after, writes0, writes1;
	long ms, worst = 0;
	json_t *j;
	int i;

	(void)state;
	before = metric(it_http_base, "privd_entitlement_values_written_total");
	writes0 = metric(it_http_base, "privd_entitlement_writes_total");
	assert_true(before >= 0);
	/* the three students of eng/cse get the cse lab: e2 and e4 are
	 * undergrads of eng/cse, e6 is not there; e1 is staff */
	j = it_call("POST", "/v1/grants", ADMIN_KEY,
	    "{\"cell\":\"student@eng/cse\",\"grants\":[\"login.hosts+=cse-lab\"]}", 200);
	json_decref(j);
	ms = until_member("login.hosts=cse-lab", "e4", 1, 5000);
	assert_true(ms >= 0);
	assert_true(until_member("login.hosts=cse-lab", "e2", 1, 1000) >= 0);
	usleep(500000);
	after = metric(it_http_base, "privd_entitlement_values_written_total");
	writes1 = metric(it_http_base, "privd_entitlement_writes_total");
	/* 2 members of a new group and 2 values, in 3 writes: nobody else touched */
	assert_int_equal((int)(after - before), 4);
	assert_int_equal((int)(writes1 - writes0), 3);
	assert_int_equal(member("login.hosts=cse-lab", "e1"), 0);
	assert_int_equal(has_value("e4", "login.hosts:cse-lab"), 1);
	/* edits one after another: each in the directory within a second */
	for (i = 0; i < 10; i++) {
		char path[160];

		/* e5 in and out of the cse students: the cse lab comes and goes */
		if (i % 2 == 0)
			j = it_call("POST", "/v1/memberships", ADMIN_KEY,
			    "{\"account\":\"e5\",\"cell\":\"student/undergrad@eng/cse\"}", 200);
		else {
			snprintf(path, sizeof(path), "/v1/memberships?account=e5&"
			    "cell=student/undergrad@eng/cse");
			j = it_call("DELETE", path, ADMIN_KEY, NULL, 200);
		}
		json_decref(j);
		ms = until_member("login.hosts=cse-lab", "e5", i % 2 == 0, 2000);
		assert_true(ms >= 0);
		if (ms > worst)
			worst = ms;
	}
	printf("a change in the model to the directory: worst of 10 after the API answered "
	    "%ld ms\n", worst);
	assert_true(worst < 1000);
}

static void
a_dated_membership_ends_by_itself(void **state)
{
	(void)state;
	/* e6 is in the eng-lab group until its membership ends */
	assert_true(until_member("login.hosts=eng-lab", "e6", 0, 30000) >= 0);
	assert_int_equal(has_value("e6", "login.hosts:eng-lab"), 0);
}

static void
hand_changes_are_found_and_put_right(void **state)
{
	(void)state;
	assert_int_equal(check_entitlements("config/dev.yaml"), 0);
	it_ldapmodify("dn: cn=login.hosts=eng-lab," GROUPS "\nchangetype: modify\n"
	    "add: member\nmember: uid=e5," PEOPLE "\n-\ndelete: member\nmember: uid=e1," PEOPLE "\n");
	it_ldapmodify("dn: uid=e5," PEOPLE "\nchangetype: modify\nadd: privEntitlement\n"
	    "privEntitlement: " URN "login.hosts:eng-lab\n"
	    "privEntitlement: urn:mace:example.edu:other:kept\n");
	assert_int_equal(check_entitlements("config/dev.yaml"), 1);
	{
		char *out, path[300];

		snprintf(path, sizeof(path), "%s/env/check.out", it_dir);
		out = it_slurp(path, NULL);
		assert_non_null(strstr(out, "missing 1: uid=e1,ou=people,dc=example,dc=edu"));
		assert_non_null(strstr(out, "not entitled 1: uid=e5,ou=people,dc=example,dc=edu"));
		assert_non_null(strstr(out, "FAILED"));
		free(out);
	}
	/* a privd starting (here: after a crash) reconciles */
	it_sh("kill -9 %d; sleep 0.2; tests/integration/env.sh privd-start %s/env",
	    it_pid_of("privd.pid"), it_dir);
	assert_true(until_member("login.hosts=eng-lab", "e1", 1, 20000) >= 0);
	assert_true(until_member("login.hosts=eng-lab", "e5", 0, 5000) >= 0);
	assert_int_equal(has_value("e5", "login.hosts:eng-lab"), 0);
	/* a value outside privd's prefix is not privd's: it stays */
	assert_int_equal(it_ldap_count("uid=e5," PEOPLE,
	    "(privEntitlement=urn:mace:example.edu:other:kept)"), 1);
	assert_int_equal(check_entitlements("config/dev.yaml"), 0);
	/* no directory there: 3 */
	assert_int_equal(check_at("config/dev.yaml", 1), 3);
}

static void
a_privilege_no_longer_published_leaves(void **state)
{
	char conf[300];

	(void)state;
	snprintf(conf, sizeof(conf), "%s/env/nologin.yaml", it_dir);
	it_sh("sed 's/login.hosts: *{ type: set, publish: \\[groups, attribute\\] }/"
	    "login.hosts: { type: set }/' config/dev.yaml > %s && "
	    "! grep -q 'login.hosts:.*publish' %s", conf, conf);
	it_sh("PRIVD_CONFIG=%s tests/integration/env.sh privd-restart %s/env", conf, it_dir);
	assert_true(until_member("login.hosts=eng-lab", "e1", 0, 20000) >= 0);
	assert_int_equal(it_ldap_count(GROUPS, "(cn=login.hosts=*)"), 0);
	assert_int_equal(has_value("e1", "login.hosts:eng-lab"), 0);
	assert_int_equal(has_value("e1", "printer.access:eng-laser"), 1);
	assert_int_equal(member("printer.access=eng-laser", "e1"), 1);
	it_sh("tests/integration/env.sh privd-restart %s/env", it_dir);
	assert_true(until_member("login.hosts=eng-lab", "e1", 1, 20000) >= 0);
}

static int
e1_has_boot_value(void)
{
	return it_ldap_count("uid=e1," PEOPLE, "(&(objectClass=bootableDevice)"
	    "(bootFile=" URN "login.hosts:eng-lab))") == 1;
}

/* an attribute the people's classes do not allow (bootFile, of nis's
 * bootableDevice): a first value refused alone is sent again with the class */
static void
a_class_the_people_lack_goes_with_their_first_value(void **state)
{
	char conf[300];

	(void)state;
	snprintf(conf, sizeof(conf), "%s/env/boot.yaml", it_dir);
	it_sh("sed 's/^  prefix:/  attribute: bootFile\\n  object_class: bootableDevice\\n  prefix:/' "
	    "config/dev.yaml > %s && grep -q 'object_class: bootableDevice' %s", conf, conf);
	it_sh("PRIVD_CONFIG=%s tests/integration/env.sh privd-restart %s/env", conf, it_dir);
	assert_true(it_within(20000, e1_has_boot_value) >= 0);
	assert_int_equal(it_ldap_count("uid=e5," PEOPLE, "(&(objectClass=bootableDevice)"
	    "(bootFile=" URN "printer.access:arts-inkjet))"), 1);
	assert_int_equal(check_at(conf, it_ldap_port), 0);
	it_sh("tests/integration/env.sh privd-restart %s/env", it_dir);
	assert_int_equal(check_entitlements("config/dev.yaml"), 0);
}

static void
one_of_two_privd_writes_and_another_takes_over(void **state)
{
	const char *bin = getenv("PRIVD_BIN") ? getenv("PRIVD_BIN") : "server/privd";
	static const char grant_colour[] =
	    "{\"cell\":\"student@eng/cse\",\"grants\":[\"printer.access+=cse-colour\"]}";
	char cmd[2048], base2[64];
	long t0, ms;
	json_t *j;
	FILE *p;

	(void)state;
	snprintf(base2, sizeof(base2), "http://127.0.0.1:%d", http2_port);
	snprintf(cmd, sizeof(cmd), "%s -c config/dev.yaml -L ldap://127.0.0.1:%d/ -l 127.0.0.1:%d "
	    ">> %s/env/privd2.log 2>&1 & echo $!", bin, it_ldap_port, http2_port, it_dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%d", &second_pid), 1);
	pclose(p);
	it_sh("for i in $(seq 1 100); do curl -sf http://127.0.0.1:%d/readyz >/dev/null && "
	    "exit 0; sleep 0.1; done; exit 1", http2_port);
	usleep(2500000);
	/* exactly one writes */
	assert_int_equal((int)(metric(it_http_base, "privd_entitlement_writer") +
	    metric(base2, "privd_entitlement_writer")), 1);
	assert_int_equal((int)metric(it_http_base, "privd_entitlement_writer"), 1);
	/* the writer dies: the other takes over once its lease lapses (6 s) */
	it_sh("kill -9 %d", it_pid_of("privd.pid"));
	t0 = it_now_ms();
	j = NULL;
	{
		long status = 0;
		char *body = NULL, url[64];

		/* a change made through the survivor */
		snprintf(url, sizeof(url), "%s", it_http_base);
		snprintf(it_http_base, sizeof(it_http_base), "%s", base2);
		body = it_try_request("POST", "/v1/grants", ADMIN_KEY, grant_colour,
		    strlen(grant_colour), &status);
		free(body);
		assert_int_equal(status, 200);
		ms = until_member("printer.access=cse-colour", "e4", 1, 20000);
		assert_true(ms >= 0);
		assert_int_equal((int)metric(base2, "privd_entitlement_writer"), 1);
		printf("the survivor wrote a change %ld ms after the writer was killed\n",
		    it_now_ms() - t0);
		assert_true(it_now_ms() - t0 < 12000);
		snprintf(it_http_base, sizeof(it_http_base), "%s", url);
	}
	json_decref(j);
	/* a privd restarted beside it follows; the survivor keeps writing */
	it_sh("tests/integration/env.sh privd-start %s/env", it_dir);
	usleep(2000000);
	assert_int_equal((int)metric(it_http_base, "privd_entitlement_writer"), 0);
	assert_int_equal((int)metric(base2, "privd_entitlement_writer"), 1);
	/* stopped cleanly, the writer gives its lease back: the other at once */
	kill(second_pid, SIGTERM);
	second_pid = 0;
	t0 = it_now_ms();
	json_decref(it_call("POST", "/v1/grants", ADMIN_KEY,
	    "{\"cell\":\"student@eng/cse\",\"grants\":[\"printer.access+=cse-mono\"]}", 200));
	assert_true(until_member("printer.access=cse-mono", "e4", 1, 10000) >= 0);
	printf("after a clean stop the other wrote in %ld ms\n", it_now_ms() - t0);
	assert_true(it_now_ms() - t0 < 4000);
	assert_int_equal(check_entitlements("config/dev.yaml"), 0);
}

static void
nobody_else_writes_them(void **state)
{
	char cmd[1024];

	(void)state;
	/* jdoe (a person) reads the groups and their own values, writes neither */
	snprintf(cmd, sizeof(cmd), "ldapsearch -x -LLL -H ldap://127.0.0.1:%d/ "
	    "-D uid=jdoe," PEOPLE " -w jdoe-dev-secret -b " GROUPS
	    " '(cn=login.hosts=eng-lab)' member | grep -q '^member: uid=e1,'", it_ldap_port);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "printf 'dn: cn=login.hosts=eng-lab," GROUPS "\\nchangetype: "
	    "modify\\nadd: member\\nmember: uid=jdoe," PEOPLE "\\n' | ldapmodify -x -H "
	    "ldap://127.0.0.1:%d/ -D uid=jdoe," PEOPLE " -w jdoe-dev-secret 2>&1 | "
	    "grep -q 'Insufficient access'", it_ldap_port);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "printf 'dn: uid=jdoe," PEOPLE "\\nchangetype: "
	    "modify\\nadd: privEntitlement\\nprivEntitlement: " URN "login.hosts:admin-hosts\\n' | "
	    "ldapmodify -x -H ldap://127.0.0.1:%d/ -D uid=jdoe," PEOPLE " -w jdoe-dev-secret "
	    "2>&1 | grep -q 'Insufficient access'", it_ldap_port);
	assert_int_equal(system(cmd), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(groups_and_values_match_the_model),
		cmocka_unit_test(a_grant_writes_only_the_differences_within_a_second),
		cmocka_unit_test(a_dated_membership_ends_by_itself),
		cmocka_unit_test(hand_changes_are_found_and_put_right),
		cmocka_unit_test(a_privilege_no_longer_published_leaves),
		cmocka_unit_test(a_class_the_people_lack_goes_with_their_first_value),
		cmocka_unit_test(nobody_else_writes_them),
		cmocka_unit_test(one_of_two_privd_writes_and_another_takes_over),
	};

	if (getcwd(top, sizeof(top)) == NULL)
		return 1;
	http2_port = 20000 + (int)(getpid() % 9000);
	return cmocka_run_group_tests(tests, setup, teardown);
}

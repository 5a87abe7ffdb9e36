/*
 * test_notices.c - notices by email (server/notice.h) through a real SMTP
 * server on loopback (Debian's python3-aiosmtpd), a real slapd and privd:
 * a balance crossing 20% and 0 tells its person once per threshold, with
 * the template filled in; nobody without an address or who turned notices
 * off is mailed; privd SIGKILLed between the claim and the send still sends
 * it, once, after a restart; two privd on one directory send each crossing
 * and the weekly digest once.
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
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cmocka.h>
#include <jansson.h>

#include "harness.h"

static int smtp_port, http2_port;
static char conf[256], mailbox[256], top[1024];

static const char model[] =
    "reasons: { student: { undergrad: {} } }\n"
    "organisations: { eng: {} }\n"
    "grants:\n"
    "  \"student@\": { print.pages: 10 }\n"
    "pools:\n"
    "  \"@eng\": { print.pages: 10, contacts: [office@example.edu, head@example.edu] }\n"
    "accounts:\n"
    "  n1: [student/undergrad@eng]\n"
    "  n2: [student/undergrad@eng]\n"
    "  n3: [student/undergrad@eng]\n"
    "  n4: [student/undergrad@eng]\n"
    "  n5: [student/undergrad@eng]\n"
    "  n7: [student/undergrad@eng]\n"
    "  n6:\n"
    "    - { cell: student/undergrad@eng, until: %s }\n";

/* How many messages in the mailbox carry "X-Privd-Notice: key" (a prefix). */
static int
received(const char *key)
{
	char *text = it_slurp(mailbox, NULL), *p;
	char needle[512];
	int n = 0;

	if (text == NULL)
		return 0;
	snprintf(needle, sizeof(needle), "X-Privd-Notice: %s", key);
	for (p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	free(text);
	return n;
}

static const char *want_key, *want_filter;

static int
retried(void)
{
	return it_ldap_count("ou=notices,ou=usage," BASE, want_filter) == 1;
}

static int
arrived(void)
{
	return received(want_key) > 0;
}

/* Waits up to ms for a message of key; how many there are then. */
static int
wait_for(const char *key, long ms)
{
	want_key = key;
	it_within(ms, arrived);
	return received(key);
}

static char period[32];

static void
charge(const char *uid, const char *rid, int amount, long want)
{
	char path[128], body[128];
	json_t *j;

	snprintf(path, sizeof(path), "/v1/accounts/%s/quotas/print.pages/charges", uid);
	snprintf(body, sizeof(body), "{\"request_id\":\"%s\",\"amount\":%d}", rid, amount);
	j = it_call("POST", path, CHARGE_KEY, body, want);
	if (period[0] == '\0' && json_string_value(json_object_get(j, "period")))
		snprintf(period, sizeof(period), "%s", json_string_value(json_object_get(j, "period")));
	json_decref(j);
}

static void
person(const char *uid, const char *mail)
{
	char ldif[512];

	snprintf(ldif, sizeof(ldif), "dn: uid=%s,ou=people,dc=example,dc=edu\n"
	    "changetype: add\nobjectClass: inetOrgPerson\nuid: %s\ncn: %s\nsn: %s\n%s%s%s",
	    uid, uid, uid, uid, mail ? "mail: " : "", mail ? mail : "", mail ? "\n" : "");
	it_ldapmodify(ldif);
}

static int
setup(void **state)
{
	char m[2048], until[16];
	time_t soon = time(NULL) + 7 * 86400;
	struct tm tm;
	int i;

	if (it_group_setup(state) != 0)
		return -1;
	/* people as a directory has them, with mail, before privd knows them */
	person("n1", "n1@example.edu");
	person("n2", NULL);
	for (i = 3; i <= 7; i++) {
		char uid[16], mail[48];

		snprintf(uid, sizeof(uid), "n%d", i);
		snprintf(mail, sizeof(mail), "n%d@example.edu", i);
		person(uid, mail);
	}
	gmtime_r(&soon, &tm);
	strftime(until, sizeof(until), "%Y-%m-%d", &tm);
	snprintf(m, sizeof(m), model, until);
	json_decref(it_call("POST", "/v1/import", ADMIN_KEY, m, 200));
	return 0;
}

static void
a_crossing_tells_its_person_once_per_threshold(void **state)
{
	char key[128], *text;

	(void)state;
	charge("n1", "a", 7, 201);
	assert_int_equal(received("low|n1|"), 0);
	/* 2 left of 10: 20% */
	charge("n1", "b", 1, 201);
	snprintf(key, sizeof(key), "low|n1|print.pages@%s|20%%", period);
	assert_int_equal(wait_for(key, 10000), 1);
	charge("n1", "c", 1, 201);
	charge("n1", "b", 1, 200);	/* a replay: nothing new */
	/* 0 left */
	charge("n1", "d", 1, 201);
	snprintf(key, sizeof(key), "low|n1|print.pages@%s|0", period);
	assert_int_equal(wait_for(key, 10000), 1);
	usleep(1500000);
	assert_int_equal(received("low|n1|"), 2);
	/* the template, filled in, to the person's address */
	text = it_slurp(mailbox, NULL);
	assert_non_null(strstr(text, "To: n1@example.edu"));
	assert_non_null(strstr(text, "Subject: Your print.pages is running low: 2 left"));
	assert_non_null(strstr(text, "You have 0 of print.pages left in"));
	free(text);
}

static void
nobody_without_an_address_or_who_said_no_is_mailed(void **state)
{
	(void)state;
	json_decref(it_call("POST", "/v1/accounts/n3/preferences", ADMIN_KEY,
	    "{\"notices\":false}", 200));
	{
		json_t *j = it_get("/v1/accounts/n3/preferences", 200);

		assert_true(json_is_false(json_object_get(j, "notices")));
		json_decref(j);
	}
	charge("n2", "a", 10, 201);
	charge("n3", "a", 10, 201);
	/* the claims say why they were not sent */
	usleep(2000000);
	assert_int_equal(it_ldap_count("ou=notices,ou=usage," BASE,
	    "(privNoticeState=dropped no-address)"), 1);
	assert_int_equal(it_ldap_count("ou=notices,ou=usage," BASE,
	    "(privNoticeState=dropped opted-out)"), 1);
	assert_int_equal(received("low|n2|"), 0);
	assert_int_equal(received("low|n3|"), 0);
}

static void
privd_killed_between_claim_and_send_sends_it_once(void **state)
{
	char key[128], body[] = "{\"request_id\":\"k\",\"amount\":10}", *text;
	long status = 0;

	(void)state;
	it_sh("PRIVD_CONFIG=%s PRIVD_FAULT=notice-claimed:kill tests/integration/env.sh "
	    "privd-restart %s/env", conf, it_dir);
	text = it_try_request("POST", "/v1/accounts/n4/quotas/print.pages/charges", CHARGE_KEY,
	    body, strlen(body), &status);
	free(text);
	assert_int_equal(status, 0);	/* it died with the claim made */
	snprintf(key, sizeof(key), "low|n4|print.pages@%s|0", period);
	{
		char f[200];

		snprintf(f, sizeof(f), "(&(cn=%s)(privNoticeState=claimed *))", key);
		assert_int_equal(it_ldap_count("ou=notices,ou=usage," BASE, f), 1);
	}
	usleep(300000);
	it_sh("PRIVD_CONFIG=%s tests/integration/env.sh privd-start %s/env", conf, it_dir);
	/* its claim runs out (notify.retry: 2 s) and is taken over */
	assert_int_equal(wait_for(key, 20000), 1);
	it_sh("PRIVD_CONFIG=%s tests/integration/env.sh privd-restart %s/env", conf, it_dir);
	usleep(4000000);
	assert_int_equal(received(key), 1);
	charge("n4", "k", 10, 200);	/* the retry of the charge: a replay */
}

static void
a_pool_running_low_tells_its_contacts(void **state)
{
	char key[128], *text;
	json_t *j;

	(void)state;
	/* the contacts travel with the model */
	text = it_request("GET", "/v1/export", ADMIN_KEY, NULL, 0, &(long){ 0 });
	assert_non_null(strstr(text, "contacts: [office@example.edu, head@example.edu]"));
	free(text);
	j = it_get("/v1/pools/@eng", 200);
	assert_int_equal(json_array_size(json_object_get(j, "contacts")), 2);
	json_decref(j);
	json_decref(it_call("POST", "/v1/pools/@eng/quotas/print.pages/charges", CHARGE_KEY,
	    "{\"request_id\":\"pl-1\",\"amount\":8,\"account\":\"n6\"}", 201));
	snprintf(key, sizeof(key), "pool|@eng|print.pages@%s|20%%", period);
	assert_int_equal(wait_for(key, 10000), 1);
	text = it_slurp(mailbox, NULL);
	assert_non_null(strstr(text, "To: office@example.edu, head@example.edu"));
	assert_non_null(strstr(text, "The shared print.pages budget of @eng has 2 left of 10"));
	free(text);
	/* a bad contact is refused, naming it */
	j = it_call("POST", "/v1/import", ADMIN_KEY, "pools:\n  \"@eng\": { contacts: [nobody] }\n",
	    400);
	assert_string_equal(json_string_value(json_object_get(j, "field")), "contacts");
	json_decref(j);
}

static int second_pid, smtp_pid;

/* The SMTP server on smtp_port, its messages appended to the mailbox. */
static int
start_smtp(void)
{
	char cmd[1024];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 -u -m aiosmtpd -n -l 127.0.0.1:%d >> %s "
	    "2>&1 & echo $!", smtp_port, mailbox);
	if ((p = popen(cmd, "r")) == NULL || fscanf(p, "%d", &smtp_pid) != 1)
		return -1;
	pclose(p);
	/* until it listens */
	snprintf(cmd, sizeof(cmd), "bash -c 'for i in $(seq 1 100); do (exec 3<>/dev/tcp/"
	    "127.0.0.1/%d) 2>/dev/null && exit 0; sleep 0.1; done; exit 1'", smtp_port);
	return system(cmd) == 0 ? 0 : -1;
}

static void
a_notice_the_mail_server_refused_is_sent_later(void **state)
{
	char key[128], f[200];

	(void)state;
	kill(smtp_pid, SIGTERM);
	usleep(500000);
	charge("n7", "a", 10, 201);
	snprintf(key, sizeof(key), "low|n7|print.pages@%s|0", period);
	/* not lost: its claim waits to be tried again */
	snprintf(f, sizeof(f), "(&(cn=%s)(privNoticeState=retry *))", key);
	want_filter = f;
	assert_true(it_within(10000, retried) >= 0);
	assert_int_equal(start_smtp(), 0);
	assert_int_equal(wait_for(key, 20000), 1);
	usleep(3000000);
	assert_int_equal(received(key), 1);
}

static void
a_person_turns_notices_off_with_their_own_sign_in(void **state)
{
	char tok[1024];
	json_t *j;

	(void)state;
	it_ldapmodify("dn: uid=n5,ou=people,dc=example,dc=edu\nchangetype: modify\n"
	    "add: objectClass\nobjectClass: simpleSecurityObject\n-\n"
	    "add: userPassword\nuserPassword: n5-secret\n");
	j = it_call("POST", "/v1/tokens", NULL, "{\"uid\":\"n5\",\"password\":\"n5-secret\"}",
	    200);
	snprintf(tok, sizeof(tok), "%s", json_string_value(json_object_get(j, "token")));
	json_decref(j);
	j = it_call("POST", "/v1/accounts/n5/preferences", tok, "{\"notices\":false}", 200);
	assert_true(json_is_false(json_object_get(j, "notices")));
	json_decref(j);
	/* only their own */
	json_decref(it_call("POST", "/v1/accounts/n1/preferences", tok, "{\"notices\":false}",
	    403));
	json_decref(it_call("POST", "/v1/accounts/n5/preferences", tok, "{\"notices\":\"no\"}",
	    400));
	j = it_call("POST", "/v1/accounts/n5/preferences", tok, "{\"notices\":true}", 200);
	assert_true(json_is_true(json_object_get(j, "notices")));
	json_decref(j);
}

static void
start_second(void)
{
	const char *bin = getenv("PRIVD_BIN") ? getenv("PRIVD_BIN") : "server/privd";
	char cmd[2048];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "%s -c %s -L ldap://127.0.0.1:%d/ -l 127.0.0.1:%d "
	    ">> %s/env/privd2.log 2>&1 & echo $!", bin, conf, it_ldap_port, http2_port, it_dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%d", &second_pid), 1);
	pclose(p);
	it_sh("for i in $(seq 1 100); do curl -sf http://127.0.0.1:%d/readyz >/dev/null && "
	    "exit 0; sleep 0.1; done; exit 1", http2_port);
}

static void
two_privd_send_each_crossing_and_the_digest_once(void **state)
{
	char key[128], base2[64], week[32], dig[64];
	time_t now = time(NULL);
	struct tm tm;
	int i;

	(void)state;
	start_second();
	snprintf(base2, sizeof(base2), "http://127.0.0.1:%d", http2_port);
	/* one account charged through both, one page at a time, to the end */
	for (i = 0; i < 10; i++) {
		char path[128], body[64], save[64];
		json_t *j;

		snprintf(path, sizeof(path), "/v1/accounts/n5/quotas/print.pages/charges");
		snprintf(body, sizeof(body), "{\"request_id\":\"p%d\",\"amount\":1}", i);
		snprintf(save, sizeof(save), "%s", it_http_base);
		if (i % 2)
			snprintf(it_http_base, sizeof(it_http_base), "%s", base2);
		j = it_call("POST", path, CHARGE_KEY, body, 201);
		snprintf(it_http_base, sizeof(it_http_base), "%s", save);
		json_decref(j);
	}
	snprintf(key, sizeof(key), "low|n5|print.pages@%s|20%%", period);
	assert_int_equal(wait_for(key, 10000), 1);
	snprintf(key, sizeof(key), "low|n5|print.pages@%s|0", period);
	assert_int_equal(wait_for(key, 10000), 1);
	/* today is the digest's day: both privd try; one sends it */
	gmtime_r(&now, &tm);
	strftime(week, sizeof(week), "%G-W%V", &tm);
	snprintf(dig, sizeof(dig), "digest/%s", week);
	assert_int_equal(wait_for(dig, 15000), 1);
	usleep(3000000);
	assert_int_equal(received("low|n5|"), 2);
	assert_int_equal(received(dig), 1);
	{
		char *text = it_slurp(mailbox, NULL);

		/* the digest lists n6's membership that ends within two weeks */
		assert_non_null(strstr(text, "To: print-admins@example.edu"));
		assert_non_null(strstr(text, "  n6 "));
		free(text);
	}
	kill(second_pid, SIGTERM);
}

static int
teardown(void **state)
{
	if (second_pid > 0)
		kill(second_pid, SIGKILL);
	if (smtp_pid > 0)
		kill(smtp_pid, SIGTERM);
	return it_group_teardown(state);
}

/* A port nothing listens on now: the kernel's pick. */
static int
free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t n = sizeof(a);
	int s = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s >= 0 && bind(s, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    getsockname(s, (struct sockaddr *)&a, &n) == 0)
		port = ntohs(a.sin_port);
	if (s >= 0)
		close(s);
	return port;
}

/* The dev configuration with notices on, to this run's SMTP server. */
static void
write_config(void)
{
	static const char *const days[] = { "sunday", "monday", "tuesday", "wednesday",
	    "thursday", "friday", "saturday" };
	char *dev = it_slurp("config/dev.yaml", NULL), *p, *out;
	time_t now = time(NULL);
	struct tm tm;
	FILE *f;

	assert_non_null(dev);
	gmtime_r(&now, &tm);
	f = fopen(conf, "w");
	assert_non_null(f);
	/* the web files and templates by absolute path: the file lives elsewhere */
	p = strstr(dev, "dir: ../web");
	assert_non_null(p);
	fwrite(dev, 1, (size_t)(p - dev), f);
	fprintf(f, "dir: %s/web", top);
	out = p + strlen("dir: ../web");
	p = strstr(out, "print.pages:         { type: quota, period: term, combine: max }");
	assert_non_null(p);
	fwrite(out, 1, (size_t)(p - out), f);
	fprintf(f, "print.pages:         { type: quota, period: term, combine: max, "
	    "notify: [20%%, 0] }");
	fputs(p + strlen("print.pages:         { type: quota, period: term, combine: max }"), f);
	fprintf(f, "notify:\n  smtp: smtp://127.0.0.1:%d\n  from: print@example.edu\n"
	    "  templates: %s/deploy/notices\n  admins: [print-admins@example.edu]\n"
	    "  digest: %s\n  retry: 2\n", smtp_port, top, days[tm.tm_wday]);
	fclose(f);
	free(dev);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_crossing_tells_its_person_once_per_threshold),
		cmocka_unit_test(nobody_without_an_address_or_who_said_no_is_mailed),
		cmocka_unit_test(privd_killed_between_claim_and_send_sends_it_once),
		cmocka_unit_test(a_pool_running_low_tells_its_contacts),
		cmocka_unit_test(a_notice_the_mail_server_refused_is_sent_later),
		cmocka_unit_test(a_person_turns_notices_off_with_their_own_sign_in),
		cmocka_unit_test(two_privd_send_each_crossing_and_the_digest_once),
	};

	if (getcwd(top, sizeof(top)) == NULL)
		return 1;
	snprintf(conf, sizeof(conf), "/tmp/privd-notices-%d.yaml", (int)getpid());
	snprintf(mailbox, sizeof(mailbox), "/tmp/privd-notices-%d.mail", (int)getpid());
	if ((smtp_port = free_port()) < 0 || (http2_port = free_port()) < 0)
		return 1;
	write_config();
	/* a real SMTP server on loopback, each message it takes into the mailbox */
	if (start_smtp() != 0) {
		fprintf(stderr, "test_notices: the SMTP server did not start: %s\n", mailbox);
		return 1;
	}
	setenv("PRIVD_CONFIG", conf, 1);
	{
		int rc = cmocka_run_group_tests(tests, setup, teardown);

		unlink(conf);
		unlink(mailbox);
		return rc;
	}
}

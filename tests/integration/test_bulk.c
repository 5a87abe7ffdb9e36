/*
 * test_bulk.c - imports and edits that never crash the directory (no RFC
 * 5805 transaction anywhere): hundreds of edits and a 20,000-account
 * import while print jobs charge, readers that never see half an import,
 * and imports interrupted by a killed privd or a killed slapd, resumed or
 * aborted. Real slapd, real privd.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pthread.h>

#include <cmocka.h>

#include "harness.h"

/* 20,000 accounts (make torture); PRIVD_BULK_ACCOUNTS lowers it for make check and asan */
static int POP = 20000;
#define PEOPLE "ou=people,dc=example,dc=edu"

static const char *pop_bin;
static atomic_int stop;
static int round_no;		/* request ids stay unique across load rounds */
static int accounts_base;	/* accounts before the first population */

/* A population file of POP accounts named PREFIX..., student budgets PAGES. */
static char *
population(const char *prefix, int pages, size_t *len)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/pop-%s.yaml", it_dir, prefix);
	it_sh("%s %d %s %d > %s", pop_bin, POP, prefix, pages, path);
	return it_slurp(path, len);
}

static long
pid_of(const char *file)
{
	char path[256];
	FILE *f;
	long pid = -1;

	snprintf(path, sizeof(path), "%s/env/%s", it_dir, file);
	if ((f = fopen(path, "r")) != NULL) {
		if (fscanf(f, "%ld", &pid) != 1)
			pid = -1;
		fclose(f);
	}
	return pid;
}

static long
slapd_pid(void)
{
	return pid_of("slapd/slapd.pid");
}

static json_int_t
ready_accounts(void)
{
	long status;
	char *t = it_try_request("GET", "/readyz", NULL, NULL, 0, &status);
	json_t *j = t ? json_loads(t, 0, NULL) : NULL;
	json_int_t n = j ? json_integer_value(json_object_get(j, "accounts")) : -1;

	json_decref(j);
	free(t);
	return n;
}

static json_t *
readyz(void)
{
	long status;
	char *t = it_request("GET", "/readyz", NULL, NULL, 0, &status);
	json_t *j = json_loads(t, 0, NULL);

	free(t);
	assert_non_null(j);
	return j;
}

/* ---- load: print jobs charging and holding the whole time ---- */

struct charger {
	pthread_t t;
	const char *uid;
	int holds;		/* hold then commit, instead of charging */
	int id;
	long accepted;		/* pages the ledger must hold */
	long failed;		/* answers other than 201/200 */
	long last_status;
	char last[256];
};

static void
note_failure(struct charger *c, long status, const char *t)
{
	c->failed++;
	c->last_status = status;
	snprintf(c->last, sizeof(c->last), "%s", t ? t : "(no answer)");
}

static void *
charge_loop(void *arg)
{
	struct charger *c = arg;
	char path[256], body[256];
	long status, n = 0;

	while (!atomic_load(&stop)) {
		char *t;

		snprintf(body, sizeof(body), "{\"request_id\":\"bulk-%d-%d-%ld\",\"amount\":1,"
		    "\"metadata\":{\"printer\":\"eng-laser\"}}", round_no, c->id, n++);
		snprintf(path, sizeof(path), "/v1/accounts/%s/quotas/print.pages/%s", c->uid,
		    c->holds ? "holds" : "charges");
		t = it_try_request("POST", path, CHARGE_KEY, body, strlen(body), &status);
		if (status != 201) {
			note_failure(c, status, t);
			free(t);
			continue;
		}
		free(t);
		if (c->holds) {
			snprintf(path, sizeof(path), "/v1/accounts/%s/quotas/print.pages/holds/"
			    "bulk-%d-%d-%ld/commit", c->uid, round_no, c->id, n - 1);
			t = it_try_request("POST", path, CHARGE_KEY, "{\"amount\":1}", 12, &status);
			if (status != 200) {
				note_failure(c, status, t);
				free(t);
				continue;
			}
			free(t);
		}
		c->accepted++;
	}
	return NULL;
}

static struct charger chargers[4] = {
	{ .uid = "mwhite", .id = 1 }, { .uid = "mwhite", .id = 2 },
	{ .uid = "bchen", .id = 3 }, { .uid = "bchen", .holds = 1, .id = 4 },
};

static json_int_t
used_of(const char *uid)
{
	char path[256];

	snprintf(path, sizeof(path), "/v1/accounts/%s/quotas/print.pages", uid);
	return it_number(path, "used");
}

static json_int_t used0[2];

static void
load_start(void)
{
	int i;

	round_no++;
	used0[0] = used_of("mwhite");
	used0[1] = used_of("bchen");
	atomic_store(&stop, 0);
	for (i = 0; i < 4; i++) {
		chargers[i].accepted = chargers[i].failed = 0;
		assert_int_equal(pthread_create(&chargers[i].t, NULL, charge_loop, &chargers[i]), 0);
	}
}

/* Stops the load: every accepted page is counted, and the ledger agrees. */
static void
load_stop(int may_fail)
{
	long acc[2] = { 0, 0 }, failed = 0;
	int i;

	atomic_store(&stop, 1);
	for (i = 0; i < 4; i++) {
		pthread_join(chargers[i].t, NULL);
		acc[i < 2 ? 0 : 1] += chargers[i].accepted;
		failed += chargers[i].failed;
		if (chargers[i].failed)
			print_message("charger %d: %ld refused, the last %ld: %s\n", i,
			    chargers[i].failed, chargers[i].last_status, chargers[i].last);
	}
	print_message("load: %ld and %ld pages charged, %ld refused\n", acc[0], acc[1], failed);
	assert_true(acc[0] > 0 && acc[1] > 0);
	if (!may_fail)
		assert_int_equal(failed, 0);
	assert_int_equal(used_of("mwhite") - used0[0], acc[0]);
	assert_int_equal(used_of("bchen") - used0[1], acc[1]);
	it_sh("%s -c config/dev.yaml -L ldap://127.0.0.1:%d/ --check-ledger >&2",
	    getenv("PRIVD_BIN"), it_ldap_port);
}

/* ---- a reader that must never see half an import ---- */

struct watch {
	pthread_t t;
	json_int_t accounts[2];	/* the only counts allowed */
	json_int_t limit[2];	/* jdoe's print.pages before and after */
	long reads, bad;
	json_int_t bad_accounts, bad_limit;
};

static void *
watch_loop(void *arg)
{
	struct watch *w = arg;

	while (!atomic_load(&stop)) {
		long status;
		char *t = it_try_request("GET", "/v1/accounts/jdoe/privileges/print.pages", READ_KEY,
		    NULL, 0, &status);
		json_t *j = t && status == 200 ? json_loads(t, 0, NULL) : NULL;
		json_int_t n = ready_accounts(), lim;

		free(t);
		if (j == NULL || n < 0) {
			json_decref(j);
			continue;
		}
		lim = json_integer_value(json_object_get(j, "limit"));
		json_decref(j);
		w->reads++;
		if (n != w->accounts[0] && n != w->accounts[1]) {
			w->bad++;
			w->bad_accounts = n;
		}
		if (lim != w->limit[0] && lim != w->limit[1]) {
			w->bad++;
			w->bad_limit = lim;
		}
	}
	return NULL;
}

/* ---- the tests ---- */

static int
setup(void **state)
{
	char *demo;
	json_t *j;

	if (it_group_setup(state) != 0)
		return -1;
	it_timeout_s = 600;
	if (getenv("PRIVD_BULK_ACCOUNTS") != NULL && atoi(getenv("PRIVD_BULK_ACCOUNTS")) >= 300)
		POP = atoi(getenv("PRIVD_BULK_ACCOUNTS"));
	pop_bin = getenv("POPULATION_BIN");
	if (pop_bin == NULL)
		pop_bin = "build/release/bench/population";
	demo = it_slurp("config/demo.yaml", NULL);
	j = it_call("POST", "/v1/import", ADMIN_KEY, demo, 200);
	json_decref(j);
	free(demo);
	/* budgets that outlast the test */
	j = it_call("POST", "/v1/accounts/mwhite/quotas/print.pages/credits", ADMIN_KEY,
	    "{\"request_id\":\"bulk-credit-1\",\"amount\":100000000}", 201);
	json_decref(j);
	j = it_call("POST", "/v1/accounts/bchen/quotas/print.pages/credits", ADMIN_KEY,
	    "{\"request_id\":\"bulk-credit-2\",\"amount\":100000000}", 201);
	json_decref(j);
	return 0;
}

/* No code path sends the RFC 5805 controls or calls libldap's txn API. */
static void
no_transactions_in_the_code(void **state)
{
	(void)state;
	it_sh("! grep -rnE 'LDAP_CONTROL_TXN_SPEC|ldap_txn_|LDAP_EXOP_TXN_' server client "
	    "--include='*.c' --include='*.h'");
}

static void
edits_while_charging(void **state)
{
	long pid = slapd_pid();
	char body[256];
	int i;

	(void)state;
	assert_true(pid > 0);
	load_start();
	for (i = 0; i < 300; i++) {
		json_t *j;

		/* most edit one existing cell; every tenth makes a node and a cell */
		if (i % 10 == 9)
			snprintf(body, sizeof(body), "{\"cell\":\"visitor@engineering/bulk/n%d\","
			    "\"grants\":[\"print.pages=%d\"]}", i, 10 + i);
		else
			snprintf(body, sizeof(body), "{\"cell\":\"visitor@\",\"grants\":"
			    "[\"print.pages=%d\"]}", 10 + i);
		j = it_call("POST", "/v1/grants", ADMIN_KEY, body, 200);
		json_decref(j);
	}
	load_stop(0);
	assert_int_equal(slapd_pid(), pid);
	assert_int_equal(kill((pid_t)pid, 0), 0);
	assert_int_equal(it_limit_of("vguest", "print.pages"), 10 + 298);
}

static void
big_import_while_charging(void **state)
{
	struct watch w;
	long pid = slapd_pid(), t0;
	size_t len;
	char *pop = population("u", 100, &len);
	json_t *j, *r;

	(void)state;
	memset(&w, 0, sizeof(w));
	accounts_base = (int)ready_accounts();
	w.accounts[0] = accounts_base;
	w.accounts[1] = accounts_base + POP;
	w.limit[0] = it_limit_of("jdoe", "print.pages");
	w.limit[1] = 100;
	assert_int_not_equal(w.limit[0], w.limit[1]);
	load_start();
	assert_int_equal(pthread_create(&w.t, NULL, watch_loop, &w), 0);
	t0 = it_now_ms();
	j = it_call("POST", "/v1/import", ADMIN_KEY, pop, 200);
	print_message("import of %d accounts: %.1f s; %ld reads meanwhile\n", POP,
	    (it_now_ms() - t0) / 1000.0, w.reads);
	assert_string_not_equal(json_string_value(json_object_get(j, "import_id")), "");
	json_decref(j);
	usleep(300 * 1000);
	load_stop(0);
	pthread_join(w.t, NULL);
	assert_int_equal(slapd_pid(), pid);
	assert_int_equal(kill((pid_t)pid, 0), 0);
	if (w.bad)
		fail_msg("%ld reads saw half an import (accounts %lld, limit %lld)", w.bad,
		    (long long)w.bad_accounts, (long long)w.bad_limit);
	assert_true(w.reads > 10);
	assert_int_equal(ready_accounts(), accounts_base + POP);
	assert_int_equal(it_limit_of("jdoe", "print.pages"), 100);
	assert_int_equal(it_ldap_count(PEOPLE, "(uid=u*)"), POP);
	r = readyz();
	assert_null(json_object_get(r, "import"));
	json_decref(r);
	free(pop);
}

struct bg {
	pthread_t t;
	const char *body;
	size_t len;
	long status;
	char *answer;
	atomic_int done;
};

static void *
bg_import(void *arg)
{
	struct bg *b = arg;

	b->answer = it_try_request("POST", "/v1/import", ADMIN_KEY, b->body, b->len, &b->status);
	atomic_store(&b->done, 1);
	return NULL;
}

/* Starts an import in the background; returns once it has written `half` people. */
static void
import_until(struct bg *b, const char *body, size_t len, const char *filter, int half)
{
	long t0 = it_now_ms();

	memset(b, 0, sizeof(*b));
	b->body = body;
	b->len = len;
	assert_int_equal(pthread_create(&b->t, NULL, bg_import, b), 0);
	while (it_ldap_count(PEOPLE, filter) < half) {
		if (atomic_load(&b->done))
			fail_msg("the import ended before it was half-way: %ld %s", b->status,
			    b->answer ? b->answer : "(no answer)");
		if (it_now_ms() - t0 > 300000)
			fail_msg("the import did not get half-way in 300 s");
		usleep(20 * 1000);
	}
}

/* Exports must be equal; else the difference goes to stderr. */
static void
same_export(const char *a, const char *b)
{
	char pa[256], pb[256];
	FILE *f;

	if (strcmp(a, b) == 0)
		return;
	snprintf(pa, sizeof(pa), "%s/export-a.yaml", it_dir);
	snprintf(pb, sizeof(pb), "%s/export-b.yaml", it_dir);
	if ((f = fopen(pa, "w")) != NULL) {
		fputs(a, f);
		fclose(f);
	}
	if ((f = fopen(pb, "w")) != NULL) {
		fputs(b, f);
		fclose(f);
	}
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "diff -u %s %s | head -40 >&2", pa, pb);
		if (system(cmd) < 0)
			print_error("diff failed\n");
	}
	fail_msg("the exports differ");
}

static char *
export_now(void)
{
	long status;
	char *t = it_request("GET", "/v1/export", ADMIN_KEY, NULL, 0, &status);

	assert_int_equal(status, 200);
	return t;
}

/* The open import's id, from GET /v1/imports. */
static void
open_import(char *id, size_t n)
{
	json_t *j = it_call("GET", "/v1/imports", ADMIN_KEY, NULL, 200), *v;
	size_t i;

	id[0] = '\0';
	json_array_foreach(json_object_get(j, "imports"), i, v)
		if (strcmp(json_string_value(json_object_get(v, "state")), "open") == 0)
			snprintf(id, n, "%s", json_string_value(json_object_get(v, "id")));
	json_decref(j);
}

static void
privd_killed_then_resumed(void **state)
{
	size_t len;
	char *pop = population("qv", 200, &len), *e1, *e2;
	struct bg b;
	json_t *j, *r;
	char id[64];

	(void)state;
	import_until(&b, pop, len, "(uid=qv*)", POP / 3);
	kill((pid_t)pid_of("privd.pid"), SIGKILL);
	pthread_join(b.t, NULL);
	free(b.answer);
	/* restarted with imports.stale_after: 1, so the open import is reported */
	it_sh("sed 's/^model:/imports:\\n  stale_after: 1\\nmodel:/' config/dev.yaml > %s/stale.yaml && "
	    "PRIVD_CONFIG=%s/stale.yaml tests/integration/env.sh privd-restart %s/env", it_dir, it_dir,
	    it_dir);
	usleep(1500 * 1000);
	/* a privd started mid-import answers from the model before it */
	r = readyz();
	assert_non_null(json_object_get(r, "import"));
	assert_true(json_is_true(json_object_get(json_object_get(r, "import"), "stale")));
	{
		long st;
		char *m = it_request("GET", "/metrics", READ_KEY, NULL, 0, &st);

		assert_non_null(strstr(m, "\nprivd_import_open 1\n"));
		assert_non_null(strstr(m, "\nprivd_import_stale 1\n"));
		free(m);
	}
	it_sh("grep -q 'audit: import .* has been open for' %s/env/privd.log", it_dir);
	assert_int_equal(json_integer_value(json_object_get(r, "accounts")), accounts_base + POP);
	json_decref(r);
	assert_int_equal(it_limit_of("jdoe", "print.pages"), 100);
	open_import(id, sizeof(id));
	assert_string_not_equal(id, "");
	/* another import is refused while this one is open */
	j = it_call("POST", "/v1/grants", ADMIN_KEY,
	    "{\"cell\":\"visitor@engineering/bulk/other\",\"grants\":[\"print.pages=1\"]}", 409);
	assert_string_equal(json_string_value(json_object_get(j, "error")), "import_open");
	json_decref(j);
	/* the same import again finishes it */
	j = it_call("POST", "/v1/import", ADMIN_KEY, pop, 200);
	assert_true(json_is_true(json_object_get(j, "resumed")));
	assert_string_equal(json_string_value(json_object_get(j, "import_id")), id);
	json_decref(j);
	assert_int_equal(ready_accounts(), accounts_base + 2 * POP);
	assert_int_equal(it_limit_of("jdoe", "print.pages"), 200);
	assert_int_equal(it_ldap_count(PEOPLE, "(uid=qv*)"), POP);
	/* the directory holds what a clean import leaves: running it again changes nothing */
	j = it_call("POST", "/v1/import?dry_run=1", ADMIN_KEY, pop, 200);
	assert_int_equal(json_array_size(json_object_get(j, "changes")), 0);
	json_decref(j);
	/* and the snapshot equals the directory: a fresh privd exports the same */
	e1 = export_now();
	it_sh("tests/integration/env.sh privd-restart %s/env", it_dir);
	e2 = export_now();
	same_export(e1, e2);
	free(e1);
	free(e2);
	free(pop);
}

static void
slapd_killed_then_resumed_or_aborted(void **state)
{
	size_t len, len2;
	char *pop = population("qw", 150, &len), *pop2, *before, *after;
	struct bg b;
	json_t *j, *r;
	char id[64];

	(void)state;
	import_until(&b, pop, len, "(uid=qw*)", POP / 3);
	kill((pid_t)slapd_pid(), SIGKILL);
	pthread_join(b.t, NULL);
	/* the interrupted import says what to do, never "nothing was written" */
	assert_int_equal(b.status, 503);
	assert_non_null(strstr(b.answer, "run it again"));
	assert_null(strstr(b.answer, "nothing was written"));
	free(b.answer);
	it_sh("tests/integration/env.sh slapd-start %s/env", it_dir);
	assert_true(it_within(20000, it_ready) >= 0);
	r = readyz();
	assert_non_null(json_object_get(r, "import"));
	assert_int_equal(json_integer_value(json_object_get(r, "accounts")), accounts_base + 2 * POP);
	json_decref(r);
	j = it_call("POST", "/v1/import", ADMIN_KEY, pop, 200);
	assert_true(json_is_true(json_object_get(j, "resumed")));
	json_decref(j);
	assert_int_equal(ready_accounts(), accounts_base + 3 * POP);
	assert_int_equal(it_limit_of("jdoe", "print.pages"), 150);
	j = it_call("POST", "/v1/import?dry_run=1", ADMIN_KEY, pop, 200);
	assert_int_equal(json_array_size(json_object_get(j, "changes")), 0);
	json_decref(j);

	/* another import, interrupted, then aborted: the model before it is back */
	before = export_now();
	pop2 = population("qx", 250, &len2);
	import_until(&b, pop2, len2, "(uid=qx*)", POP / 3);
	kill((pid_t)slapd_pid(), SIGKILL);
	pthread_join(b.t, NULL);
	free(b.answer);
	it_sh("tests/integration/env.sh slapd-start %s/env", it_dir);
	assert_true(it_within(20000, it_ready) >= 0);
	open_import(id, sizeof(id));
	assert_string_not_equal(id, "");
	it_sh("%s --url %s --key %s import --abort %s >&2", getenv("PRIVCTL_BIN"), it_http_base,
	    ADMIN_KEY, id);
	r = readyz();
	assert_null(json_object_get(r, "import"));
	json_decref(r);
	after = export_now();
	same_export(before, after);
	assert_int_equal(it_ldap_count(PEOPLE, "(uid=qx*)"), 0);
	assert_int_equal(it_limit_of("jdoe", "print.pages"), 150);
	free(before);
	free(after);
	free(pop);
	free(pop2);
}

/* An abort while the import is still being written stops it and undoes it whole. */
static void
abort_while_importing(void **state)
{
	size_t len;
	char *pop = population("qy", 350, &len), *before = export_now(), *after;
	char id[64], path[128];
	struct bg b;
	json_t *j;

	(void)state;
	import_until(&b, pop, len, "(uid=qy*)", POP / 5);
	open_import(id, sizeof(id));
	assert_string_not_equal(id, "");
	snprintf(path, sizeof(path), "/v1/imports/%s/abort", id);
	j = it_call("POST", path, ADMIN_KEY, "{}", 200);
	json_decref(j);
	pthread_join(b.t, NULL);
	/* the import was told it stopped */
	assert_int_equal(b.status, 409);
	assert_non_null(strstr(b.answer, "no longer open"));
	free(b.answer);
	after = export_now();
	same_export(before, after);
	assert_int_equal(it_ldap_count(PEOPLE, "(uid=qy*)"), 0);
	free(before);
	free(after);
	free(pop);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_transactions_in_the_code),
		cmocka_unit_test(edits_while_charging),
		cmocka_unit_test(big_import_while_charging),
		cmocka_unit_test(privd_killed_then_resumed),
		cmocka_unit_test(slapd_killed_then_resumed_or_aborted),
		cmocka_unit_test(abort_while_importing),
	};

	return cmocka_run_group_tests(tests, setup, it_group_teardown);
}

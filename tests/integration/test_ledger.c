/*
 * test_ledger.c - one busy account against a real slapd and privd: 50,000
 * charges in make torture (PRIVD_BUSY_CHARGES lowers it for check, asan) with
 * refunds and a hold among them. Settled ledger entries move into segments
 * below the usage entry as they go; the test checks that the usage entry
 * stays small, that replays of moved request ids charge nothing (also while
 * entries are moving), that refunds find moved charges, that the ledger
 * pages across segments, and that `privd --check-ledger` balances. A usage
 * entry deleted and made again has segments of its own: what privd
 * remembers of the first one's ids must not let a replay of the second's
 * through.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "harness.h"

#define Q "/v1/accounts/busy/quotas/print.pages"
#define THREADS 8

static const char model[] =
    "reasons: { test: { busy: {} } }\n"
    "organisations: { lab: {} }\n"
    "grants:\n"
    "  \"test/busy@lab\": { print.pages: 1000000000 }\n"
    "accounts:\n"
    "  busy: [test/busy@lab]\n"
    "  again: [test/busy@lab]\n";

static int N = 50000;		/* charges */
static char period[32];

static int
setup(void **state)
{
	if (getenv("PRIVD_BUSY_CHARGES") != NULL && atoi(getenv("PRIVD_BUSY_CHARGES")) >= 2000)
		N = atoi(getenv("PRIVD_BUSY_CHARGES"));
	return it_group_setup_model(state, model);
}

static long
post(const char *tail, const char *fmt, ...)
{
	char body[512], p[256];
	long status = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(body, sizeof(body), fmt, ap);
	va_end(ap);
	snprintf(p, sizeof(p), Q "%s", tail);
	free(it_try_request("POST", p, CHARGE_KEY, body, strlen(body), &status));
	return status;
}

static json_int_t
used(void)
{
	return it_number(Q, "used");
}

/*
 * Reads attr of the usage entry as slapd has it: how many values it has,
 * and the last one as a number (0 when absent) into *last.
 */
static int
attr_of(const char *attr, long long *last)
{
	char cmd[1024], line[4096];
	size_t al = strlen(attr);
	FILE *p;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "ldapsearch -x -LLL -o ldif-wrap=no -H ldap://127.0.0.1:%d/ "
	    "-D cn=admin,dc=example,dc=edu -w secret -s base "
	    "-b 'cn=print.pages@%s,uid=busy,ou=usage," BASE "' '(objectClass=*)' %s",
	    it_ldap_port, period, attr);
	p = popen(cmd, "r");
	assert_non_null(p);
	*last = 0;
	while (fgets(line, sizeof(line), p))
		if (strncmp(line, attr, al) == 0 && line[al] == ':') {
			n++;
			*last = atoll(line + al + 1);
		}
	pclose(p);
	return n;
}

/* How many values of attr the usage entry holds. */
static int
values_of(const char *attr)
{
	long long last;

	return attr_of(attr, &last);
}

/* A number attribute of the usage entry (0 when absent). */
static long long
counter(const char *attr)
{
	long long last;

	attr_of(attr, &last);
	return last;
}

static int
segments(void)
{
	char base[256];

	snprintf(base, sizeof(base), "cn=print.pages@%s,uid=busy,ou=usage," BASE, period);
	return it_ldap_count(base, "(objectClass=privLedgerSegment)");
}

struct worker {
	int from, to, step;	/* request ids busy-{from, from+step, ...} below to */
	int fresh, replayed, other;
};

/* Charges one page as busy-i and counts the answer: 201, 200 or other. */
static void
charge_one(int i, int *fresh, int *replayed, int *other)
{
	long st = post("/charges", "{\"request_id\":\"busy-%d\",\"amount\":1}", i);

	if (st == 201)
		(*fresh)++;
	else if (st == 200)
		(*replayed)++;
	else
		(*other)++;
}

static void *
charge_range(void *arg)
{
	struct worker *w = arg;
	int i;

	for (i = w->from; i < w->to; i += w->step)
		charge_one(i, &w->fresh, &w->replayed, &w->other);
	return NULL;
}

/* THREADS threads charge ids [from, to); the counts of answers. */
static void
charge_all(int from, int to, int *fresh, int *replayed, int *other)
{
	struct worker w[THREADS];
	pthread_t t[THREADS];
	int i;

	*fresh = *replayed = *other = 0;
	for (i = 0; i < THREADS; i++) {
		w[i] = (struct worker){ from + i, to, THREADS, 0, 0, 0 };
		assert_int_equal(pthread_create(&t[i], NULL, charge_range, &w[i]), 0);
	}
	for (i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		*fresh += w[i].fresh;
		*replayed += w[i].replayed;
		*other += w[i].other;
	}
}

static void
a_busy_account_keeps_a_small_usage_entry(void **state)
{
	int fresh, replayed, other, i, window, segs;
	long t0 = it_now_ms();
	json_t *j;

	(void)state;
	/* a hold opened first stays open while everything around it moves */
	assert_int_equal(post("/holds", "{\"request_id\":\"long-hold\",\"amount\":7,\"ttl_s\":3600}"),
	    201);
	j = it_get(Q, 200);
	snprintf(period, sizeof(period), "%s", json_string_value(json_object_get(j, "period")));
	json_decref(j);
	charge_all(0, N, &fresh, &replayed, &other);
	fprintf(stderr, "busy: %d charges in %ld ms (%d fresh, %d replayed, %d other)\n", N,
	    it_now_ms() - t0, fresh, replayed, other);
	assert_int_equal(other, 0);
	assert_int_equal(replayed, 0);
	assert_int_equal(fresh, N);
	assert_int_equal(used(), N + 7);
	window = values_of("privEntry");
	segs = segments();
	fprintf(stderr, "busy: %d entries in the usage entry, %d segments\n", window, segs);
	/* the window is bounded by the move threshold plus what arrives
	 * between two looks, from any of the threads */
	assert_true(window <= 96 + 32 * 2 + THREADS);
	assert_true(segs >= N / 200);
	assert_true(values_of("privRequest") <= window);
	/* the hold is still open and commits as usual */
	assert_int_equal(post("/holds/long-hold/commit", "{\"amount\":5}"), 200);
	assert_int_equal(used(), N + 5);
	/* the answer of a read of the ledger counts every entry */
	j = it_get(Q "/ledger?limit=1", 200);
	assert_int_equal(it_num(j, "total"), N + 2);
	json_decref(j);
	for (i = 0; i < 3; i++)
		it_check_ledger();
}

static void
replays_of_moved_ids_charge_nothing(void **state)
{
	int i, n = 0;
	json_int_t before = used();

	(void)state;
	for (i = 0; i < N; i += 100) {
		char body[128], p[] = Q "/charges";
		long st;
		json_t *j;
		char *text;

		snprintf(body, sizeof(body), "{\"request_id\":\"busy-%d\",\"amount\":1}", i);
		text = it_request("POST", p, CHARGE_KEY, body, strlen(body), &st);
		assert_int_equal(st, 200);
		j = json_loads(text, 0, NULL);
		assert_true(json_is_true(json_object_get(j, "replayed")));
		assert_int_equal(it_num(j, "charged"), 1);
		json_decref(j);
		free(text);
		n++;
	}
	/* the same id with another amount is still known as used */
	assert_int_equal(post("/charges", "{\"request_id\":\"busy-100\",\"amount\":2}"), 409);
	fprintf(stderr, "busy: %d replays of moved request ids, all answered 200\n", n);
	assert_int_equal(used(), before);
}

struct mixed {
	int base, fresh_n;
	int fresh, replayed, other;
};

/* Replays old ids while other threads charge new ones: entries keep moving
 * under the replays. */
static void *
replay_old(void *arg)
{
	struct mixed *m = arg;
	int i;

	for (i = m->base; i < N; i += 37)
		charge_one(i, &m->fresh, &m->replayed, &m->other);
	return NULL;
}

static void *
charge_new(void *arg)
{
	struct mixed *m = arg;
	int i;

	for (i = 0; i < m->fresh_n; i++) {
		long st = post("/charges", "{\"request_id\":\"new-%d-%d\",\"amount\":1}", m->base, i);

		if (st == 201)
			m->fresh++;
		else
			m->other++;
	}
	return NULL;
}

static void
parallel_replays_while_entries_move(void **state)
{
	struct mixed m[8];
	pthread_t t[8];
	json_int_t before = used();
	int i, fresh = 0, replayed = 0, other = 0, segs = segments();

	(void)state;
	for (i = 0; i < 8; i++) {
		m[i] = (struct mixed){ i, N / 50, 0, 0, 0 };
		assert_int_equal(pthread_create(&t[i], NULL, i % 2 ? replay_old : charge_new,
		    &m[i]), 0);
	}
	for (i = 0; i < 8; i++) {
		pthread_join(t[i], NULL);
		if (i % 2) {
			replayed += m[i].replayed;
			/* a replay that charged would be a double charge */
			assert_int_equal(m[i].fresh, 0);
		} else
			fresh += m[i].fresh;
		other += m[i].other;
	}
	fprintf(stderr, "busy: %d replays and %d new charges at once; segments %d -> %d\n",
	    replayed, fresh, segs, segments());
	assert_int_equal(other, 0);
	assert_int_equal(fresh, 4 * (N / 50));
	assert_true(segments() > segs);
	assert_int_equal(used(), before + fresh);
	it_check_ledger();
}

static void
refunds_of_moved_charges(void **state)
{
	json_int_t before = used();

	(void)state;
	/* busy-5 moved long ago */
	assert_int_equal(post("/refunds", "{\"request_id\":\"rf-1\",\"charge_id\":\"busy-5\","
	    "\"amount\":1}"), 201);
	assert_int_equal(post("/refunds", "{\"request_id\":\"rf-1\",\"charge_id\":\"busy-5\","
	    "\"amount\":1}"), 200);
	assert_int_equal(post("/refunds", "{\"request_id\":\"rf-2\",\"charge_id\":\"busy-5\","
	    "\"amount\":1}"), 409);
	assert_int_equal(post("/refunds", "{\"request_id\":\"rf-3\",\"charge_id\":\"no-such\","
	    "\"amount\":1}"), 404);
	assert_int_equal(used(), before - 1);
	it_check_ledger();
}

static void
the_ledger_pages_across_segments(void **state)
{
	json_t *a, *b, *deep;
	char p[256];
	size_t i, k;
	json_int_t total;

	(void)state;
	a = it_get(Q "/ledger?limit=200", 200);
	b = it_get(Q "/ledger?limit=200&offset=200", 200);
	total = it_num(a, "total");
	assert_int_equal(json_array_size(json_object_get(a, "entries")), 200);
	assert_int_equal(json_array_size(json_object_get(b, "entries")), 200);
	/* the newest first, and no entry on both pages (a hold and its commit
	 * share a request id: an entry is its id and kind) */
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(a,
	    "entries"), 0), "request_id")), "rf-1");
	for (i = 0; i < 200; i++)
		for (k = 0; k < 200; k++) {
			json_t *x = json_array_get(json_object_get(a, "entries"), i);
			json_t *y = json_array_get(json_object_get(b, "entries"), k);

			assert_false(strcmp(json_string_value(json_object_get(x, "request_id")),
			    json_string_value(json_object_get(y, "request_id"))) == 0 &&
			    strcmp(json_string_value(json_object_get(x, "kind")),
			    json_string_value(json_object_get(y, "kind"))) == 0);
		}
	/* deep in the ledger, and its end */
	snprintf(p, sizeof(p), Q "/ledger?limit=100&offset=%lld", (long long)total / 2);
	deep = it_get(p, 200);
	assert_int_equal(json_array_size(json_object_get(deep, "entries")), 100);
	json_decref(deep);
	snprintf(p, sizeof(p), Q "/ledger?limit=100&offset=%lld", (long long)total - 10);
	deep = it_get(p, 200);
	assert_int_equal(json_array_size(json_object_get(deep, "entries")), 10);
	assert_true(json_is_null(json_object_get(deep, "next_offset")));
	json_decref(deep);
	/* a moved charge shows what was refunded of it */
	snprintf(p, sizeof(p), Q "/ledger?limit=1000&offset=%lld", (long long)total - 1000);
	deep = it_get(p, 200);
	for (i = 0; i < json_array_size(json_object_get(deep, "entries")); i++) {
		json_t *x = json_array_get(json_object_get(deep, "entries"), i);

		if (strcmp(json_string_value(json_object_get(x, "request_id")), "busy-5") == 0)
			assert_int_equal(it_num(x, "refunded"), 1);
	}
	json_decref(deep);
	json_decref(a);
	json_decref(b);
}

/*
 * A privd that died between a move's two writes leaves a segment numbered
 * past privSegments whose entries are still in the window. Readers and the
 * ledger check must ignore it, and the next move must adopt it as it is.
 */
static void
an_interrupted_move_is_adopted(void **state)
{
	json_t *j;
	json_int_t total, used0;
	long long nseg;
	int segs0, fresh, replayed, other;

	(void)state;
	j = it_get(Q "/ledger?limit=1", 200);
	total = it_num(j, "total");
	json_decref(j);
	used0 = used();
	segs0 = segments();
	nseg = counter("privSegments");
	/* the segment a dead mover added: five charges of the window */
	it_sh("set -e; D='cn=print.pages@%s,uid=busy,ou=usage," BASE "'; "
	    "S='ldapsearch -x -LLL -o ldif-wrap=no -H ldap://127.0.0.1:%d/ "
	    "-D cn=admin,dc=example,dc=edu -w secret -s base -b'; "
	    "E=$($S \"$D\" privSegments | awk '/^privSegments:/ { print $2 }'); K=$((E + 1)); "
	    "$S \"$D\" privEntry | awk '/^privEntry: .*\"kind\":\"charge\"/ && n < 5 { print; n++ }' > %s/moved; "
	    "[ $(wc -l < %s/moved) = 5 ]; "
	    "{ printf 'dn: cn=%%s,%%s\\nobjectClass: privLedgerSegment\\ncn: %%s\\nprivArchived: 5\\n' "
	    "\"$K\" \"$D\" \"$K\"; cat %s/moved; "
	    "sed 's/.*\"id\":\"\\([^\"]*\\)\".*/privRequest: \\1/' %s/moved; } > %s/orphan.ldif; "
	    "ldapadd -x -H ldap://127.0.0.1:%d/ -D cn=admin,dc=example,dc=edu -w secret "
	    "-f %s/orphan.ldif > /dev/null",
	    period, it_ldap_port, it_dir, it_dir, it_dir, it_dir, it_dir, it_ldap_port, it_dir);
	assert_int_equal(segments(), segs0 + 1);
	/* not committed: counted once, from the window */
	it_check_ledger();
	j = it_get(Q "/ledger?limit=1", 200);
	assert_int_equal(it_num(j, "total"), total);
	json_decref(j);
	/* charges go on; the next move adopts the segment, then moves on */
	charge_all(N + 100000, N + 100000 + 400, &fresh, &replayed, &other);
	assert_int_equal(fresh, 400);
	assert_int_equal(used(), used0 + 400);
	assert_true(segments() >= segs0 + 2);
	/* committed now: the usage entry counts it among its segments */
	assert_true(counter("privSegments") >= nseg + 2);
	it_check_ledger();
	j = it_get(Q "/ledger?limit=1", 200);
	assert_int_equal(it_num(j, "total"), total + 400);
	json_decref(j);
}

/* A charge of one page to account again as again-TAG-i: its status. */
static long
again(const char *tag, int i)
{
	char body[128];
	long status = 0;

	snprintf(body, sizeof(body), "{\"request_id\":\"again-%s-%d\",\"amount\":1}", tag, i);
	free(it_try_request("POST", "/v1/accounts/again/quotas/print.pages/charges", CHARGE_KEY,
	    body, strlen(body), &status));
	return status;
}

/*
 * privd remembers the ids of a usage entry's segments (segids.c) and asserts
 * the entry's entryUUID when it relies on them. The entry is deleted with
 * its segments and made again by the next charges, with fewer segments than
 * the first had: replays of the second entry's moved ids charge nothing.
 */
static void
an_entry_made_again_has_its_own_segments(void **state)
{
	char base[256];
	json_int_t before;
	int i, first, second;

	(void)state;
	snprintf(base, sizeof(base), "cn=print.pages@%s,uid=again,ou=usage," BASE, period);
	for (i = 0; i < 500; i++)
		assert_int_equal(again("a", i), 201);
	first = it_ldap_count(base, "(objectClass=privLedgerSegment)");
	/* replays of moved ids: their segments are read and remembered */
	for (i = 0; i < 20; i++)
		assert_int_equal(again("a", i), 200);
	it_sh("ldapdelete -r -x -H ldap://127.0.0.1:%d/ -D cn=admin,dc=example,dc=edu "
	    "-w secret '%s'", it_ldap_port, base);
	assert_int_equal(it_ldap_count(base, "(objectClass=privLedgerSegment)"), 0);
	for (i = 0; i < 250; i++)
		assert_int_equal(again("b", i), 201);
	second = it_ldap_count(base, "(objectClass=privLedgerSegment)");
	fprintf(stderr, "again: %d segments, then %d in the entry made again\n", first, second);
	assert_true(second >= 1 && second < first);
	before = it_number("/v1/accounts/again/quotas/print.pages", "used");
	assert_int_equal(before, 250);
	for (i = 0; i < 100; i++)
		assert_int_equal(again("b", i), 200);
	assert_int_equal(it_number("/v1/accounts/again/quotas/print.pages", "used"), before);
	it_check_ledger();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_busy_account_keeps_a_small_usage_entry),
		cmocka_unit_test(replays_of_moved_ids_charge_nothing),
		cmocka_unit_test(parallel_replays_while_entries_move),
		cmocka_unit_test(refunds_of_moved_charges),
		cmocka_unit_test(the_ledger_pages_across_segments),
		cmocka_unit_test(an_interrupted_move_is_adopted),
		cmocka_unit_test(an_entry_made_again_has_its_own_segments),
	};

	return cmocka_run_group_tests_name("ledger", tests, setup, it_group_teardown);
}

/* test_snapshot.c - publishing: readers always see a whole, live snapshot. */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "resolve.h"

static struct cfg *cfg;
static atomic_int done;
static atomic_long reads;

static void *
reader(void *arg)
{
	(void)arg;
	while (!atomic_load(&done)) {
		int t;
		const struct snap *s = snap_enter(&t);

		if (s != NULL) {
			/* touch the snapshot: ASan or valgrind would see a freed one */
			const struct snap_account *a = snap_account(s, "jdoe");

			if (a == NULL || a->nm != 1 || a->m[0]->pv[2].num != 300)
				abort();
			atomic_fetch_add(&reads, 1);
		}
		snap_leave(t);
		/* let the publisher in: under valgrind, which runs one thread at a
		 * time, a reader that never yields makes each publish wait out
		 * whole time slices (minutes for the test) */
		sched_yield();
	}
	return NULL;
}

static void
publish_under_readers(void **state)
{
	const char *cells[] = { "student@|n=300", NULL };
	const char *accts[] = { "jdoe|student/undergrad@engineering", NULL };
	pthread_t th[3];
	uint64_t last = 0;
	int i, t;

	(void)state;
	cfg = fx_cfg();
	for (i = 0; i < 3; i++)
		assert_int_equal(pthread_create(&th[i], NULL, reader, NULL), 0);
	for (i = 0; i < 300; i++) {
		struct snap *s = fx_snap(cfg, NULL, NULL, cells, accts);
		const struct snap *cur;
		long before = atomic_load(&reads);

		assert_non_null(s);
		snap_publish(s);
		cur = snap_enter(&t);
		assert_true(cur->gen > last);	/* the newest is what readers get */
		last = cur->gen;
		snap_leave(t);
		/* now and then, let the readers get at this one (valgrind runs
		 * one thread at a time) */
		while (i % 50 == 0 && atomic_load(&reads) == before)
			sched_yield();
	}
	atomic_store(&done, 1);
	for (i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	assert_true(atomic_load(&reads) > 0);
	snap_shutdown();
	assert_null(snap_enter(&t));
	snap_leave(t);
	cfg_free(cfg);
}

/* uid matches without case, as LDAP's caseIgnoreMatch; the stored spelling answers */
static void
accounts_found_without_case(void **state)
{
	const char *cells[] = { "student@|n=300", NULL };
	const char *accts[] = { "jdoe|student/undergrad@engineering",
	    "AdaL|student/undergrad@engineering", NULL };
	struct snap *s;
	const struct snap_account *a;

	(void)state;
	cfg = fx_cfg();
	s = fx_snap(cfg, NULL, NULL, cells, accts);
	assert_non_null(s);
	assert_non_null(a = snap_account(s, "JDOE"));
	assert_string_equal(a->uid, "jdoe");
	assert_non_null(a = snap_account(s, "adal"));
	assert_string_equal(a->uid, "AdaL");
	assert_ptr_equal(snap_account(s, "ADAL"), a);
	assert_null(snap_account(s, "ada"));
	assert_null(snap_account(s, "jdoe2"));
	snap_free(s);
	cfg_free(cfg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(accounts_found_without_case),
	    cmocka_unit_test(publish_under_readers) };

	return cmocka_run_group_tests_name("snapshot", tests, NULL, NULL);
}

/* fixture.h - shared helpers for the unit tests: a config and snapshots from strings. */
#ifndef PRIVD_FIXTURE_H
#define PRIVD_FIXTURE_H

#include "config.h"
#include "snapshot.h"

/*
 * A configuration with these privileges:
 *   f flag, s set, n number (max), nmin number (min), nsum number (sum),
 *   q quota (period never)
 */
struct cfg *fx_cfg(void);

/* cmocka group setup and teardown keeping an fx_cfg() in fx_config. */
extern struct cfg *fx_config;
int fx_setup(void **state);
int fx_teardown(void **state);

/*
 * A snapshot from specs: cells "name|grant|grant..." and accounts
 * "uid|cell|cell...", each list NULL-terminated; reasons and orgs are the
 * tree paths (NULL-terminated, may be NULL).
 */
struct snap *fx_snap(const struct cfg *c, const char *const *reasons,
    const char *const *orgs, const char *const *cells, const char *const *accounts);

/* A unit test file's main: its tests, run as one group called name
 * (FX_GROUP: with a group setup and teardown, such as fx_setup). */
#define FX_GROUP(name, setup, teardown, ...)				\
int									\
main(void)								\
{									\
	const struct CMUnitTest tests[] = { __VA_ARGS__ };		\
									\
	return cmocka_run_group_tests_name(name, tests, setup, teardown);	\
}
#define FX_MAIN(name, ...)	FX_GROUP(name, NULL, NULL, __VA_ARGS__)

#endif

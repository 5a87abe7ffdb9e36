/*
 * modeltest.h - privd test FILE: a model (an import file or an export) and
 * the effective privileges, check answers, explain winners and pools its
 * accounts should have, checked with no server and no LDAP, as a site runs
 * it in CI before privctl import (doc/model-tests.md).
 */
#ifndef PRIVD_MODELTEST_H
#define PRIVD_MODELTEST_H

#include <stdio.h>

/*
 * Runs the test at path; config is the privd configuration that declares
 * the privileges when the test names none. Each failure goes to out with
 * its line and the explain of what was found. 0 all passed, 1 some failed,
 * 2 the test, its model or the configuration is wrong (said on stderr
 * with file and line).
 */
int modeltest_run(const char *path, const char *config, FILE *out);

#endif

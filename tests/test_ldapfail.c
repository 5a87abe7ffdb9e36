/* test_ldapfail.c - LDAP result codes as the errors privd answers: a schema the directory lacks names its fix. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include <ldap.h>

#include "ldapconn.h"

static void
schema_errors_name_the_fix(void **state)
{
	static const int codes[] = { LDAP_UNDEFINED_TYPE, LDAP_INVALID_SYNTAX };
	struct err e;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		memset(&e, 0, sizeof(e));
		assert_int_equal(ldapc_fail(&e, codes[i], "cn=x"), -1);
		assert_int_equal(e.code, ERR_SCHEMA);
		assert_non_null(strstr(e.msg, "schema/privd.ldif"));
		assert_non_null(strstr(e.msg, "cn=x"));
	}
}

static void
the_others_as_before(void **state)
{
	struct err e;

	(void)state;
	ldapc_fail(&e, LDAP_SERVER_DOWN, "x");
	assert_int_equal(e.code, ERR_UNAVAILABLE);
	ldapc_fail(&e, LDAP_ASSERTION_FAILED, "x");
	assert_int_equal(e.code, ERR_CONFLICT);
	ldapc_fail(&e, LDAP_INSUFFICIENT_ACCESS, "x");
	assert_int_equal(e.code, ERR_FORBIDDEN);
	ldapc_fail(&e, LDAP_OTHER, "x");
	assert_int_equal(e.code, ERR_INTERNAL);
}

FX_MAIN("ldapfail",
    cmocka_unit_test(schema_errors_name_the_fix),
    cmocka_unit_test(the_others_as_before))

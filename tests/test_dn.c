/* test_dn.c - DNs built and read back through libldap, with escaping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "dn.h"

#define BASE "ou=reasons,ou=privileges,dc=example,dc=edu"

static void
node_round_trip(void **state)
{
	char *dn = dn_node("staff/academic", BASE);
	char path[256];

	(void)state;
	assert_string_equal(dn, "cn=academic,cn=staff," BASE);
	assert_int_equal(dn_path(dn, BASE, path, sizeof(path)), 0);
	assert_string_equal(path, "staff/academic");
	/* values compare without case, as LDAP does */
	assert_int_equal(dn_path("CN=Academic,cn=staff,OU=Reasons,ou=privileges,dc=example,dc=edu",
	    BASE, path, sizeof(path)), 0);
	assert_string_equal(path, "staff/Academic");
	assert_int_equal(dn_path(BASE, BASE, path, sizeof(path)), 0);
	assert_string_equal(path, "");
	assert_int_not_equal(dn_path("cn=x,ou=other,dc=example,dc=edu", BASE, path, sizeof(path)), 0);
	assert_int_not_equal(dn_path("uid=x," BASE, BASE, path, sizeof(path)), 0);
	free(dn);
}

static void
escaping(void **state)
{
	char *dn = dn_child("cn", "a,b+c=d\"e", "ou=cells,dc=x");
	char leaf[64];

	(void)state;
	assert_non_null(dn);
	assert_int_equal(dn_leaf_cn(dn, "ou=cells,dc=x", leaf, sizeof(leaf)), 0);
	assert_string_equal(leaf, "a,b+c=d\"e");
	free(dn);
	dn = dn_child("cn", "student/undergrad@engineering", "ou=cells,dc=x");
	assert_string_equal(dn, "cn=student/undergrad@engineering,ou=cells,dc=x");
	assert_true(dn_within(dn, "dc=x"));
	assert_false(dn_within(dn, "dc=y"));
	assert_int_not_equal(dn_leaf_cn("cn=a,cn=b,ou=cells,dc=x", "ou=cells,dc=x", leaf, sizeof(leaf)), 0);
	free(dn);
}

/* the unparsed path (a plain cn, then the container byte for byte) and the
 * parsed one must read every cell name alike */
static void
leaf_without_parsing(void **state)
{
	static const char *names[] = { "student/undergrad@engineering", "a b", "#x", " lead",
	    "trail ", "a=b", "a;b", "a<b>", "caf\xc3\xa9@o", "x", NULL };
	char leaf[64], *dn;
	size_t i;

	(void)state;
	for (i = 0; names[i]; i++) {
		dn = dn_child("cn", names[i], "ou=cells,dc=x");
		assert_non_null(dn);
		assert_int_equal(dn_leaf_cn(dn, "ou=cells,dc=x", leaf, sizeof(leaf)), 0);
		assert_string_equal(leaf, names[i]);
		free(dn);
	}
	assert_int_equal(dn_leaf_cn("CN=Ab,ou=cells,dc=x", "ou=cells,dc=x", leaf, sizeof(leaf)), 0);
	assert_string_equal(leaf, "Ab");
	/* the container in another case or spacing still parses */
	assert_int_equal(dn_leaf_cn("cn=ab,OU=Cells, dc=x", "ou=cells,dc=x", leaf, sizeof(leaf)), 0);
	assert_string_equal(leaf, "ab");
	/* a longer tail, a value too long for out, another attribute */
	assert_int_not_equal(dn_leaf_cn("cn=ab,xou=cells,dc=x", "ou=cells,dc=x", leaf, sizeof(leaf)), 0);
	assert_int_not_equal(dn_leaf_cn("cn=abcd,ou=cells,dc=x", "ou=cells,dc=x", leaf, 4), 0);
	assert_int_not_equal(dn_leaf_cn("uid=ab,ou=cells,dc=x", "ou=cells,dc=x", leaf, sizeof(leaf)), 0);
}

FX_MAIN("dn",
    cmocka_unit_test(node_round_trip),
    cmocka_unit_test(escaping),
    cmocka_unit_test(leaf_without_parsing))

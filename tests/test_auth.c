/* test_auth.c - API keys: SHA-256 (a known vector) and bearer matching. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "auth.h"
#include "fixture.h"

static void
hash_vector(void **state)
{
	char hex[65];

	(void)state;
	auth_hash_hex("abc", hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void
bearer(void **state)
{
	struct cfg *c = fx_cfg();
	struct cfg_key keys[2];
	char hex[65];
	int i;

	(void)state;
	memset(keys, 0, sizeof(keys));
	keys[0].name = "a";
	keys[1].name = "b";
	auth_hash_hex("key-one", hex);
	for (i = 0; i < 32; i++)
		sscanf(hex + 2 * i, "%2hhx", &keys[0].sha256[i]);
	auth_hash_hex("key-two", hex);
	for (i = 0; i < 32; i++)
		sscanf(hex + 2 * i, "%2hhx", &keys[1].sha256[i]);
	c->keys = keys;
	c->nkeys = 2;
	assert_ptr_equal(auth_bearer(c, "Bearer key-one"), &keys[0]);
	assert_ptr_equal(auth_bearer(c, "bearer  key-two "), &keys[1]);
	assert_null(auth_bearer(c, "Bearer key-three"));
	assert_null(auth_bearer(c, "Bearer key-on"));
	assert_null(auth_bearer(c, "Basic a2V5LW9uZQ=="));
	assert_null(auth_bearer(c, "Bearer "));
	assert_null(auth_bearer(c, NULL));
	c->keys = NULL;
	c->nkeys = 0;
	cfg_free(c);
}

FX_MAIN("auth",
    cmocka_unit_test(hash_vector),
    cmocka_unit_test(bearer))

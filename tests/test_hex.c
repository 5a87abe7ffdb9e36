/* test_hex.c - bytes to hex and back: the mirror keys entries by the
 * entryUUID's bytes decoded from the follower's hex. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "hex.h"

static void
round_trip(void **state)
{
	unsigned char in[16], out[16];
	char s[33];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(in); i++)
		in[i] = (unsigned char)(i * 37 + 250);
	hex_encode(in, sizeof(in), s);
	assert_int_equal(strlen(s), 32);
	assert_int_equal(hex_decode(s, out, sizeof(out)), 0);
	assert_memory_equal(in, out, sizeof(in));
	/* upper case reads the same */
	assert_int_equal(hex_decode("0A0b", out, 2), 0);
	assert_int_equal(out[0], 0x0a);
	assert_int_equal(out[1], 0x0b);
}

static void
short_input_is_zero_filled(void **state)
{
	unsigned char out[4];

	(void)state;
	memset(out, 0xff, sizeof(out));
	assert_int_equal(hex_decode("ab", out, sizeof(out)), 0);
	assert_int_equal(out[0], 0xab);
	assert_int_equal(out[1], 0);
	assert_int_equal(out[3], 0);
	assert_int_equal(hex_decode("", out, sizeof(out)), 0);
	assert_int_equal(out[0], 0);
}

static void
bad_input_is_refused(void **state)
{
	unsigned char out[2];

	(void)state;
	assert_int_equal(hex_decode("abc", out, sizeof(out)), -1);	/* odd */
	assert_int_equal(hex_decode("zz", out, sizeof(out)), -1);
	assert_int_equal(hex_decode("0g", out, sizeof(out)), -1);
	assert_int_equal(hex_decode("aabbcc", out, sizeof(out)), -1);	/* too long */
}

FX_MAIN("hex", cmocka_unit_test(round_trip), cmocka_unit_test(short_input_is_zero_filled),
    cmocka_unit_test(bad_input_is_refused))

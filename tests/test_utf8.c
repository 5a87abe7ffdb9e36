/* test_utf8.c - messages that echo input stay valid UTF-8 (server/utf8.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "err.h"
#include "utf8.h"

static void
check(const char *in, const char *want)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%s", in);
	utf8_clean(buf);
	assert_string_equal(buf, want);
}

static void
valid_text_stays(void **state)
{
	(void)state;
	check("plain", "plain");
	check("a\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e", "a\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e");
}

static void
a_character_cut_short_is_dropped(void **state)
{
	(void)state;
	check("a\xc3", "a");
	check("a\xe2\x82", "a");
	check("a\xf0\x9d\x84", "a");
	/* where a %.64s stopped inside a message */
	check("'a\xc3' is bad", "'a' is bad");
	check("x\xe2\x82y", "xy");
}

static void
bytes_of_no_character_become_marks(void **state)
{
	(void)state;
	check("a\xff" "b", "a?b");
	check("\x80" "a", "?a");
	check("\xc0\xaf", "??");		/* an overlong '/' */
	check("\xed\xa0\x80", "???");		/* a surrogate */
	check("\xf4\x90\x80\x80", "????");	/* past U+10FFFF */
	check("a\x01\x1b[2Jb\x7f", "a??[2Jb?");
}

/* every cut of a long name, by err_set's own buffer and by a precision,
 * gives text jansson takes */
static void
every_cut_is_json(void **state)
{
	static const char *const kinds[] = { "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9d\x84\x9e" };
	char name[700];
	struct err e;
	size_t k, len;
	int prec;

	(void)state;
	for (k = 0; k < 3; k++)
		for (len = 0; len < 200; len++) {
			size_t i, n = 0;

			name[n++] = 'a';
			name[n] = '\0';
			for (i = 0; i < len && n + 5 < sizeof(name); i++)
				n += (size_t)snprintf(name + n, sizeof(name) - n, "%s", kinds[k]);
			for (prec = 30; prec < 40; prec++) {
				json_t *s;

				err_set(&e, ERR_INVALID, 0, name, "bad name '%.*s' (a-z)", prec, name);
				assert_non_null(s = json_string(e.msg));
				json_decref(s);
				assert_non_null(s = json_string(e.key));
				json_decref(s);
			}
		}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(valid_text_stays),
		cmocka_unit_test(a_character_cut_short_is_dropped),
		cmocka_unit_test(bytes_of_no_character_become_marks),
		cmocka_unit_test(every_cut_is_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_price.c - rate cards, what a job costs by one, and money as text. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "fixture.h"
#include "money.h"
#include "price.h"

/* The card: mono 10, colour 40, duplex 7 / 35, A3 twice. */
static void
card(struct price_card *c, const char *extra)
{
	char *v[] = { "charge=print.balance", "mono=10", "colour=40", "duplex_mono=7",
	    "duplex_colour=35", "job=0", "media=A3:2", (char *)extra };
	struct err e;

	assert_int_equal(price_card_parse("eng-colour", v, extra ? 8 : 7, c, &e), 0);
}

/* The cost of the job described in JSON text by c. */
static long long
cost(const struct price_card *c, const char *job)
{
	json_t *o = json_loads(job, 0, NULL);
	struct price_job j;
	struct price_cost pc;
	struct err e;

	assert_non_null(o);
	assert_int_equal(price_job_parse(o, &j, &e), 0);
	json_decref(o);
	assert_int_equal(price_job_cost(c, &j, &pc, &e), 0);
	assert_int_equal(pc.mono_sides + pc.colour_sides, (j.mono + j.colour) * j.copies);
	return pc.cost;
}

/* The field a job is refused for, or "" when it parses and prices. */
static const char *
refused(const struct price_card *c, const char *job)
{
	static struct err e;
	json_t *o = json_loads(job, 0, NULL);
	struct price_job j;
	struct price_cost pc;

	memset(&e, 0, sizeof(e));
	assert_non_null(o);
	if (price_job_parse(o, &j, &e) != 0 || price_job_cost(c, &j, &pc, &e) != 0) {
		json_decref(o);
		assert_int_equal(e.code, ERR_INVALID);
		return e.key;
	}
	json_decref(o);
	return "";
}

static void
sides_at_their_price(void **state)
{
	struct price_card c;

	(void)state;
	card(&c, NULL);
	/* 7 mono + 3 colour sides, one-sided */
	assert_int_equal(cost(&c, "{\"printer\":\"eng-colour\",\"pages\":{\"mono\":7,\"colour\":3}}"),
	    7 * 10 + 3 * 40);
	/* the same as a list of pages */
	assert_int_equal(cost(&c, "{\"printer\":\"p\",\"pages\":[\"mono\",\"colour\",\"mono\","
	    "\"mono\",\"colour\",\"mono\",\"mono\",\"colour\",\"mono\",\"mono\"]}"), 190);
}

static void
duplex_charges_sides_not_sheets(void **state)
{
	struct price_card c;
	json_t *o = json_loads("{\"printer\":\"p\",\"pages\":{\"mono\":7,\"colour\":3},"
	    "\"sides\":\"two-sided-long-edge\"}", 0, NULL);
	struct price_job j;
	struct price_cost pc;
	struct err e;

	(void)state;
	card(&c, NULL);
	assert_int_equal(price_job_parse(o, &j, &e), 0);
	assert_int_equal(price_job_cost(&c, &j, &pc, &e), 0);
	/* every side at the duplex price; 10 sides on 5 sheets */
	assert_int_equal(pc.cost, 7 * 7 + 3 * 35);
	assert_int_equal(pc.sheets, 5);
	json_decref(o);
}

static void
copies_multiply_the_sides_not_the_job_fee(void **state)
{
	struct price_card c;

	(void)state;
	card(&c, NULL);
	c.job = 25;
	assert_int_equal(cost(&c, "{\"printer\":\"p\",\"pages\":{\"mono\":7,\"colour\":3},"
	    "\"copies\":2}"), 2 * 190 + 25);
}

static void
media_factor_by_name_or_pwg_size(void **state)
{
	struct price_card c;

	(void)state;
	card(&c, NULL);
	assert_int_equal(cost(&c, "{\"printer\":\"p\",\"pages\":{\"mono\":7,\"colour\":3},"
	    "\"media\":\"A3\"}"), 380);
	assert_int_equal(cost(&c, "{\"printer\":\"p\",\"pages\":{\"mono\":7,\"colour\":3},"
	    "\"media\":\"iso_a3_297x420mm\"}"), 380);
	/* a size the card does not name counts 1 */
	assert_int_equal(cost(&c, "{\"printer\":\"p\",\"pages\":{\"mono\":7,\"colour\":3},"
	    "\"media\":\"iso_a4_210x297mm\"}"), 190);
}

static void
fractional_factor_rounds_once_half_up(void **state)
{
	struct price_card c;
	char *v[] = { "charge=q", "mono=5", "media=A3:1.5" };
	struct err e;

	(void)state;
	assert_int_equal(price_card_parse("p", v, 3, &c, &e), 0);
	/* 3 x 5 x 1.5 = 22.5 -> 23 (not 3 x round(7.5) = 24) */
	assert_int_equal(cost(&c, "{\"printer\":\"p\",\"pages\":{\"mono\":3},\"media\":\"A3\"}"), 23);
	/* 1 x 5 x 1.5 = 7.5 -> 8 */
	assert_int_equal(cost(&c, "{\"printer\":\"p\",\"pages\":{\"mono\":1},\"media\":\"a3\"}"), 8);
}

static void
defaults_follow_mono(void **state)
{
	struct price_card c;
	char *v[] = { "charge=print.pages", "mono=1" };
	struct err e;

	(void)state;
	assert_int_equal(price_card_parse("mono-only", v, 2, &c, &e), 0);
	assert_int_equal(c.colour, 1);
	assert_int_equal(c.duplex_mono, 1);
	assert_int_equal(c.duplex_colour, 1);
	assert_int_equal(c.job, 0);
}

static void
bad_cards_name_the_value(void **state)
{
	struct price_card c;
	char *nocharge[] = { "mono=1" }, *nomono[] = { "charge=q", "colour=3" },
	    *neg[] = { "charge=q", "mono=-1" }, *unk[] = { "charge=q", "mono=1", "toner=3" },
	    *fac[] = { "charge=q", "mono=1", "media=A3:0" }, *dec[] = { "charge=q", "mono=1.5" };
	struct err e;

	(void)state;
	assert_int_equal(price_card_parse("p", nocharge, 1, &c, &e), -1);
	assert_non_null(strstr(e.msg, "no charge"));
	assert_int_equal(price_card_parse("p", nomono, 2, &c, &e), -1);
	assert_non_null(strstr(e.msg, "no mono"));
	assert_int_equal(price_card_parse("p", neg, 2, &c, &e), -1);
	assert_non_null(strstr(e.msg, "mono=-1"));
	assert_int_equal(price_card_parse("p", unk, 3, &c, &e), -1);
	assert_non_null(strstr(e.msg, "toner"));
	assert_int_equal(price_card_parse("p", fac, 3, &c, &e), -1);
	assert_int_equal(price_card_parse("p", dec, 2, &c, &e), -1);
	assert_int_equal(price_factor("1.5"), 1500);
	assert_int_equal(price_factor("1.2345"), -1);
	assert_int_equal(price_factor("101"), -1);
	assert_int_equal(price_factor("2."), -1);
}

static void
bad_jobs_name_the_field(void **state)
{
	struct price_card c;

	(void)state;
	card(&c, NULL);
	assert_string_equal(refused(&c, "{\"pages\":{\"mono\":1}}"), "job.printer");
	assert_string_equal(refused(&c, "{\"printer\":\"p\"}"), "job.pages");
	assert_string_equal(refused(&c, "{\"printer\":\"p\",\"pages\":[\"grey\"]}"), "job.pages");
	assert_string_equal(refused(&c, "{\"printer\":\"p\",\"pages\":{\"mono\":-2}}"),
	    "job.pages.mono");
	assert_string_equal(refused(&c, "{\"printer\":\"p\",\"pages\":{\"mono\":1},"
	    "\"sides\":\"both\"}"), "job.sides");
	assert_string_equal(refused(&c, "{\"printer\":\"p\",\"pages\":{\"mono\":1},"
	    "\"copies\":0}"), "job.copies");
	assert_string_equal(refused(&c, "{\"printer\":\"p\",\"pages\":{\"mono\":1},"
	    "\"price\":3}"), "job");
}

static void
huge_counts_are_refused_not_wrapped(void **state)
{
	struct price_card c;
	struct price_job j;
	struct price_cost pc;
	struct err e;

	(void)state;
	card(&c, NULL);
	/* beyond what a job may say */
	assert_string_equal(refused(&c, "{\"printer\":\"p\",\"pages\":{\"mono\":"
	    "9223372036854775807}}"), "job.pages.mono");
	assert_string_equal(refused(&c, "{\"printer\":\"p\",\"pages\":{\"colour\":1},"
	    "\"copies\":99999999999}"), "job.copies");
	/* the arithmetic itself refuses to wrap, whatever reaches it */
	memset(&j, 0, sizeof(j));
	j.mono = INT64_MAX / 2;
	j.copies = 3;
	assert_int_equal(price_job_cost(&c, &j, &pc, &e), -1);
	assert_string_equal(e.key, "job");
	c.mono = PRICE_MAX;
	j.mono = PRICE_PAGES_MAX;
	j.copies = PRICE_COPIES_MAX;
	c.media[0].milli = PRICE_FACTOR_MAX;
	snprintf(j.media, sizeof(j.media), "A3");
	assert_int_equal(price_job_cost(&c, &j, &pc, &e), -1);
}

static void
money_as_text(void **state)
{
	char b[MONEY_TEXT_MAX];
	long long v;

	(void)state;
	assert_string_equal(money_format(1240, "AUD", b, sizeof(b)), "$12.40");
	assert_string_equal(money_format(-130, "AUD", b, sizeof(b)), "-$1.30");
	assert_string_equal(money_format(5, "EUR", b, sizeof(b)), "\u20ac0.05");
	assert_string_equal(money_format(305, "CHF", b, sizeof(b)), "CHF 3.05");
	assert_string_equal(money_format(1200, "JPY", b, sizeof(b)), "\u00a51200");
	assert_string_equal(money_format(1234, "KWD", b, sizeof(b)), "KWD 1.234");
	assert_int_equal(money_parse("12.40", "AUD", 1000000, &v), 0);
	assert_int_equal(v, 1240);
	assert_int_equal(money_parse("$5", "AUD", 1000000, &v), 0);
	assert_int_equal(v, 500);
	assert_int_equal(money_parse("0.5", "AUD", 1000000, &v), 0);
	assert_int_equal(v, 50);
	assert_int_equal(money_parse("1.005", "AUD", 1000000, &v), -1);
	assert_int_equal(money_parse("12.", "AUD", 1000000, &v), -1);
	assert_int_equal(money_parse("-3", "AUD", 1000000, &v), -1);
	assert_int_equal(money_parse("10001", "AUD", 1000000, &v), -1);
	assert_int_equal(money_parse("99999999999999999999", "AUD", 1000000, &v), -1);
	assert_int_equal(money_code_ok("AUD"), 1);
	assert_int_equal(money_code_ok("aud"), 0);
	assert_int_equal(money_code_ok("AUDD"), 0);
}

FX_MAIN("price",
	cmocka_unit_test(sides_at_their_price),
	cmocka_unit_test(duplex_charges_sides_not_sheets),
	cmocka_unit_test(copies_multiply_the_sides_not_the_job_fee),
	cmocka_unit_test(media_factor_by_name_or_pwg_size),
	cmocka_unit_test(fractional_factor_rounds_once_half_up),
	cmocka_unit_test(defaults_follow_mono),
	cmocka_unit_test(bad_cards_name_the_value),
	cmocka_unit_test(bad_jobs_name_the_field),
	cmocka_unit_test(huge_counts_are_refused_not_wrapped),
	cmocka_unit_test(money_as_text))

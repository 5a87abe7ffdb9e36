/*
 * price.c - rate cards and the cost of a job by one. Every sum is checked
 * for overflow: a job too large to price is refused (400), never wrapped.
 * A media factor is kept in thousandths and the job's cost rounded once,
 * half up, so 3 sides at 5 cents by 1.5 cost 23, not 3 x 8 = 24.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "price.h"

const char *const price_keys[PRICE_NKEYS] = { "mono", "colour", "duplex_mono",
	"duplex_colour", "job" };

/* The field of c that holds price k. */
static long long *
slot(struct price_card *c, size_t k)
{
	long long *v[PRICE_NKEYS] = { &c->mono, &c->colour, &c->duplex_mono, &c->duplex_colour,
	    &c->job };

	return v[k];
}

long long
price_of(const struct price_card *c, size_t k)
{
	return *slot((struct price_card *)c, k);
}

int
price_key_ok(const char *k)
{
	size_t i;

	for (i = 0; i < PRICE_NKEYS; i++)
		if (strcmp(k, price_keys[i]) == 0)
			return 1;
	return 0;
}

/* A whole number of at most PRICE_MAX; -1 when s is not one. */
static long long
amount(const char *s)
{
	long long v = 0;

	if (!isdigit((unsigned char)*s))
		return -1;
	for (; isdigit((unsigned char)*s); s++)
		if ((v = v * 10 + (*s - '0')) > PRICE_MAX)
			return -1;
	return *s ? -1 : v;
}

long
price_factor(const char *s)
{
	long whole = 0, part = 0, digits = 0;

	if (!isdigit((unsigned char)*s))
		return -1;
	for (; isdigit((unsigned char)*s); s++)
		if ((whole = whole * 10 + (*s - '0')) > PRICE_FACTOR_MAX / 1000)
			return -1;
	if (*s == '.')
		for (s++; isdigit((unsigned char)*s); s++) {
			if (++digits > 3)
				return -1;
			part = part * 10 + (*s - '0');
		}
	if (*s || (digits == 0 && s[-1] == '.'))
		return -1;
	for (; digits < 3; digits++)
		part *= 10;
	whole = whole * 1000 + part;
	return whole > 0 && whole <= PRICE_FACTOR_MAX ? whole : -1;
}

static int
bad(struct err *e, const char *name, const char *v, const char *why)
{
	return err_set(e, ERR_INVALID, 0, name, "printer %s: '%.64s': %s", name, v, why);
}

int
price_card_parse(const char *name, char *const *vals, size_t n, struct price_card *c,
    struct err *e)
{
	size_t i, k;

	memset(c, 0, sizeof(*c));
	c->mono = c->colour = c->duplex_mono = c->duplex_colour = -1;
	if (strlen(name) > PRICE_NAME_MAX)
		return bad(e, name, name, "a printer's name has at most 64 characters");
	snprintf(c->name, sizeof(c->name), "%s", name);
	for (i = 0; i < n; i++) {
		const char *v = vals[i], *eq = strchr(v, '=');
		size_t kl = eq ? (size_t)(eq - v) : 0;

		if (eq == NULL)
			return bad(e, name, v, "expected KEY=VALUE");
		if (kl == 6 && strncmp(v, "charge", 6) == 0) {
			if (strlen(eq + 1) == 0 || strlen(eq + 1) > PRICE_NAME_MAX)
				return bad(e, name, v, "charge names a quota");
			snprintf(c->charge, sizeof(c->charge), "%s", eq + 1);
			continue;
		}
		if (kl == 5 && strncmp(v, "media", 5) == 0) {
			const char *colon = strrchr(eq + 1, ':');
			size_t ml = colon ? (size_t)(colon - eq - 1) : 0;

			if (colon == NULL || ml == 0 || ml >= PRICE_MEDIA_LEN)
				return bad(e, name, v, "expected media=SIZE:FACTOR");
			if (c->nmedia == PRICE_MEDIA_MAX)
				return bad(e, name, v, "at most 16 media factors");
			if ((c->media[c->nmedia].milli = price_factor(colon + 1)) < 0)
				return bad(e, name, v, "a media factor is a number above 0, at "
				    "most 100, with at most 3 decimals (1.5)");
			memcpy(c->media[c->nmedia].name, eq + 1, ml);
			c->media[c->nmedia++].name[ml] = '\0';
			continue;
		}
		for (k = 0; k < PRICE_NKEYS; k++)
			if (strlen(price_keys[k]) == kl && strncmp(v, price_keys[k], kl) == 0)
				break;
		if (k == PRICE_NKEYS)
			return bad(e, name, v, "unknown key (charge, mono, colour, duplex_mono, "
			    "duplex_colour, job, media)");
		if ((*slot(c, k) = amount(eq + 1)) < 0)
			return bad(e, name, v, "a price is a whole number of the quota's units "
			    "(cents), at most 100000000");
	}
	if (!c->charge[0])
		return err_set(e, ERR_INVALID, 0, name, "printer %s: no charge (the quota it "
		    "draws on)", name);
	if (c->mono < 0)
		return err_set(e, ERR_INVALID, 0, name, "printer %s: no mono price", name);
	if (c->colour < 0)
		c->colour = c->mono;
	if (c->duplex_mono < 0)
		c->duplex_mono = c->mono;
	if (c->duplex_colour < 0)
		c->duplex_colour = c->colour;
	return 0;
}

char *
price_factor_text(long milli, char *out, size_t n)
{
	size_t len;

	snprintf(out, n, "%ld.%03ld", milli / 1000, milli % 1000);
	len = strlen(out);
	while (out[len - 1] == '0')
		out[--len] = '\0';
	if (out[len - 1] == '.')
		out[--len] = '\0';
	return out;
}

char **
price_card_vals(const struct price_card *c, size_t *n)
{
	char **out = calloc(1 + PRICE_NKEYS + c->nmedia + 1, sizeof(*out)), f[24];
	size_t i, k = 0;
	int bad = out == NULL;

	if (!bad)
		bad = asprintf(&out[k++], "charge=%s", c->charge) < 0;
	for (i = 0; !bad && i < PRICE_NKEYS; i++)
		bad = asprintf(&out[k++], "%s=%lld", price_keys[i], price_of(c, i)) < 0;
	for (i = 0; !bad && i < c->nmedia; i++)
		bad = asprintf(&out[k++], "media=%s:%s", c->media[i].name,
		    price_factor_text(c->media[i].milli, f, sizeof(f))) < 0;
	if (bad) {
		if (out != NULL)
			out[k - 1] = NULL;	/* asprintf leaves it undefined */
		for (i = 0; out && out[i]; i++)
			free(out[i]);
		free(out);
		return NULL;
	}
	*n = k;
	return out;
}

json_t *
price_card_json(const struct price_card *c)
{
	json_t *media = json_object(), *price = json_object();
	size_t i;

	for (i = 0; price && i < PRICE_NKEYS; i++)
		json_object_set_new(price, price_keys[i], json_integer(price_of(c, i)));
	for (i = 0; media && i < c->nmedia; i++)
		json_object_set_new(media, c->media[i].name, c->media[i].milli % 1000 == 0 ?
		    json_integer(c->media[i].milli / 1000) : json_real(c->media[i].milli / 1000.0));
	return json_pack("{s:s, s:s, s:o, s:o}", "name", c->name, "charge", c->charge,
	    "price", price ? price : json_object(), "media", media ? media : json_object());
}

static int
field(struct err *e, const char *key, const char *msg)
{
	return err_set(e, ERR_INVALID, 0, key, "%s: %s", key, msg);
}

/* A count of pages from v into *n, at most max. */
static int
count(json_t *v, const char *key, long long max, long long *n, struct err *e)
{
	char msg[96];

	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > max) {
		snprintf(msg, sizeof(msg), "a whole number from 0 to %lld", max);
		return field(e, key, msg);
	}
	*n = json_integer_value(v);
	return 0;
}

/* "pages": ["mono","colour",...] or {"mono": N, "colour": M}. */
static int
pages(json_t *v, struct price_job *j, struct err *e)
{
	const char *k;
	json_t *x;
	size_t i;

	if (json_is_array(v)) {
		if (json_array_size(v) > PRICE_PAGES_MAX)
			return field(e, "job.pages", "more pages than privd prices in one job "
			    "(1000000)");
		json_array_foreach(v, i, x) {
			const char *s = json_string_value(x);

			if (s && strcmp(s, "mono") == 0)
				j->mono++;
			else if (s && (strcmp(s, "colour") == 0 || strcmp(s, "color") == 0))
				j->colour++;
			else
				return field(e, "job.pages", "each page is \"mono\" or \"colour\"");
		}
		return 0;
	}
	if (!json_is_object(v))
		return field(e, "job.pages", "a list of \"mono\"/\"colour\", or {\"mono\": N, "
		    "\"colour\": M}");
	json_object_foreach(v, k, x) {
		if (strcmp(k, "mono") == 0) {
			if (count(x, "job.pages.mono", PRICE_PAGES_MAX, &j->mono, e) != 0)
				return -1;
		} else if (strcmp(k, "colour") == 0 || strcmp(k, "color") == 0) {
			if (count(x, "job.pages.colour", PRICE_PAGES_MAX, &j->colour, e) != 0)
				return -1;
		} else
			return field(e, "job.pages", "keys are mono and colour");
	}
	return 0;
}

int
price_job_parse(json_t *o, struct price_job *j, struct err *e)
{
	const char *k, *s;
	json_t *v;

	memset(j, 0, sizeof(*j));
	j->copies = 1;
	snprintf(j->sides, sizeof(j->sides), "one-sided");
	if (!json_is_object(o))
		return field(e, "job", "an object: printer, pages[, sides, media, copies]");
	json_object_foreach(o, k, v) {
		if (strcmp(k, "printer") == 0) {
			if ((s = json_string_value(v)) == NULL || !*s || strlen(s) > PRICE_NAME_MAX)
				return field(e, "job.printer", "the printer's name");
			snprintf(j->printer, sizeof(j->printer), "%s", s);
		} else if (strcmp(k, "pages") == 0) {
			if (pages(v, j, e) != 0)
				return -1;
		} else if (strcmp(k, "sides") == 0) {
			s = json_string_value(v);
			if (s == NULL || (strcmp(s, "one-sided") != 0 &&
			    strcmp(s, "two-sided-long-edge") != 0 &&
			    strcmp(s, "two-sided-short-edge") != 0))
				return field(e, "job.sides", "one-sided, two-sided-long-edge or "
				    "two-sided-short-edge");
			snprintf(j->sides, sizeof(j->sides), "%s", s);
			j->duplex = s[1] == 'w';
		} else if (strcmp(k, "media") == 0) {
			if (json_is_null(v))
				continue;
			if ((s = json_string_value(v)) == NULL || !*s || strlen(s) >= PRICE_MEDIA_LEN)
				return field(e, "job.media", "a media size (A4, iso_a3_297x420mm), "
				    "at most 31 characters");
			snprintf(j->media, sizeof(j->media), "%s", s);
		} else if (strcmp(k, "copies") == 0) {
			if (!json_is_integer(v) || json_integer_value(v) < 1 ||
			    json_integer_value(v) > PRICE_COPIES_MAX)
				return field(e, "job.copies", "a whole number from 1 to 10000");
			j->copies = json_integer_value(v);
		} else
			return err_set(e, ERR_INVALID, 0, "job", "job: unknown key '%.64s' "
			    "(printer, pages, sides, media, copies)", k);
	}
	if (!j->printer[0])
		return field(e, "job.printer", "required: the printer's name");
	if (j->mono + j->colour == 0)
		return field(e, "job.pages", "required: at least one page");
	return 0;
}

/* The size in a PWG self-describing name: "iso_a3_297x420mm" -> "a3". */
static void
media_size(const char *m, char *out, size_t n)
{
	const char *a = strchr(m, '_'), *b = a ? strchr(a + 1, '_') : NULL;

	if (a && b && (size_t)(b - a - 1) < n) {
		memcpy(out, a + 1, (size_t)(b - a - 1));
		out[b - a - 1] = '\0';
	} else
		snprintf(out, n, "%s", m);
}

static const struct price_media *
media_of(const struct price_card *c, const char *m)
{
	char size[PRICE_MEDIA_LEN];
	size_t i;

	if (!*m)
		return NULL;
	media_size(m, size, sizeof(size));
	for (i = 0; i < c->nmedia; i++)
		if (strcasecmp(c->media[i].name, m) == 0 || strcasecmp(c->media[i].name, size) == 0)
			return &c->media[i];
	return NULL;
}

int
price_job_cost(const struct price_card *c, const struct price_job *j,
    struct price_cost *out, struct err *e)
{
	const struct price_media *m = media_of(c, j->media);
	long long a, b, sum, pages;

	memset(out, 0, sizeof(*out));
	out->factor_milli = m ? m->milli : 1000;
	out->media = m ? m->name : NULL;
	out->mono_price = j->duplex ? c->duplex_mono : c->mono;
	out->colour_price = j->duplex ? c->duplex_colour : c->colour;
	out->job_fee = c->job;
	if (__builtin_add_overflow(j->mono, j->colour, &pages) ||
	    __builtin_mul_overflow(j->mono, j->copies, &out->mono_sides) ||
	    __builtin_mul_overflow(j->colour, j->copies, &out->colour_sides) ||
	    __builtin_mul_overflow(j->duplex ? (pages + 1) / 2 : pages, j->copies, &out->sheets) ||
	    __builtin_mul_overflow(out->mono_sides, out->mono_price, &a) ||
	    __builtin_mul_overflow(out->colour_sides, out->colour_price, &b) ||
	    __builtin_add_overflow(a, b, &sum) ||
	    __builtin_mul_overflow(sum, (long long)out->factor_milli, &sum) ||
	    __builtin_add_overflow(sum, 500LL, &sum) ||
	    __builtin_add_overflow(sum / 1000, c->job, &out->cost))
		return err_set(e, ERR_INVALID, 0, "job", "job: too large to price (%lld pages x "
		    "%lld copies)", pages, j->copies);
	return 0;
}

json_t *
price_breakdown(const struct price_job *j, const struct price_cost *pc)
{
	json_t *o = json_pack("{s:s, s:I, s:I, s:s, s:I, s:I, s:I, s:I, s:I}",
	    "printer", j->printer, "mono_sides", (json_int_t)pc->mono_sides,
	    "colour_sides", (json_int_t)pc->colour_sides, "sides", j->sides,
	    "copies", (json_int_t)j->copies, "sheets", (json_int_t)pc->sheets,
	    "mono_price", (json_int_t)pc->mono_price, "colour_price",
	    (json_int_t)pc->colour_price, "cost", (json_int_t)pc->cost);

	if (o == NULL)
		return NULL;
	if (j->media[0])
		json_object_set_new(o, "media", json_string(j->media));
	if (pc->factor_milli != 1000)
		json_object_set_new(o, "media_factor", json_real(pc->factor_milli / 1000.0));
	if (pc->job_fee)
		json_object_set_new(o, "job_fee", json_integer(pc->job_fee));
	return o;
}

/*
 * money.c - amounts in minor units, shown and read as money. The symbols
 * are the few a campus meets; every other currency is shown by its code.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "money.h"

static const struct {
	const char *code, *sign;
} signs[] = {
	{ "AUD", "$" }, { "USD", "$" }, { "NZD", "$" }, { "CAD", "$" }, { "SGD", "$" },
	{ "HKD", "$" }, { "EUR", "\u20ac" }, { "GBP", "\u00a3" }, { "JPY", "\u00a5" },
};

/* ISO 4217 currencies whose minor unit is not a hundredth */
static const char *const digits0[] = { "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF",
	"KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF", "XOF", "XPF" };
static const char *const digits3[] = { "BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND" };

#define NITEMS(a) (sizeof(a) / sizeof((a)[0]))

int
money_code_ok(const char *s)
{
	return s && strlen(s) == 3 && isupper((unsigned char)s[0]) &&
	    isupper((unsigned char)s[1]) && isupper((unsigned char)s[2]);
}

static int
listed(const char *code, const char *const *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i], code) == 0)
			return 1;
	return 0;
}

int
money_digits(const char *code)
{
	if (listed(code, digits0, NITEMS(digits0)))
		return 0;
	if (listed(code, digits3, NITEMS(digits3)))
		return 3;
	return 2;
}

static const char *
sign_of(const char *code)
{
	size_t i;

	for (i = 0; i < NITEMS(signs); i++)
		if (strcmp(signs[i].code, code) == 0)
			return signs[i].sign;
	return NULL;
}

char *
money_format(long long amount, const char *code, char *out, size_t n)
{
	int d = money_digits(code);
	unsigned long long a = amount < 0 ? 0ULL - (unsigned long long)amount :
	    (unsigned long long)amount, unit = d == 0 ? 1 : d == 2 ? 100 : 1000;
	const char *sign = sign_of(code);
	char num[32];

	if (d == 0)
		snprintf(num, sizeof(num), "%llu", a);
	else
		snprintf(num, sizeof(num), "%llu.%0*llu", a / unit, d, a % unit);
	if (sign != NULL)
		snprintf(out, n, "%s%s%s", amount < 0 ? "-" : "", sign, num);
	else
		snprintf(out, n, "%s%s %s", amount < 0 ? "-" : "", code, num);
	return out;
}

int
money_parse(const char *text, const char *code, long long max, long long *out)
{
	const char *sign = sign_of(code), *p = text;
	int d = money_digits(code), frac = 0;
	long long whole = 0, part = 0, v;

	while (isspace((unsigned char)*p))
		p++;
	if (sign != NULL && strncmp(p, sign, strlen(sign)) == 0)
		p += strlen(sign);
	else if (strncmp(p, code, 3) == 0)
		for (p += 3; isspace((unsigned char)*p); p++)
			;
	if (!isdigit((unsigned char)*p))
		return -1;
	for (; isdigit((unsigned char)*p); p++) {
		if (whole > max)
			return -1;
		whole = whole * 10 + (*p - '0');
	}
	if (*p == '.' && d > 0) {
		for (p++; isdigit((unsigned char)*p); p++) {
			if (++frac > d)
				return -1;
			part = part * 10 + (*p - '0');
		}
		if (frac == 0)
			return -1;
	}
	while (isspace((unsigned char)*p))
		p++;
	if (*p != '\0')
		return -1;
	for (; frac < d; frac++)
		part *= 10;
	for (v = whole; d > 0; d--) {
		if (v > max)
			return -1;
		v *= 10;
	}
	v += part;
	if (v > max)
		return -1;
	*out = v;
	return 0;
}

/*
 * money.h - amounts of money as privd keeps them: integers in a currency's
 * minor units (cents), shown and read as money ("$12.40"). Pure; used by
 * the server (answers, CSV) and by privctl and privd-cups.
 */
#ifndef PRIVD_MONEY_H
#define PRIVD_MONEY_H

#include <stddef.h>

#define MONEY_CODE_MAX 4	/* "AUD" and its NUL */
#define MONEY_TEXT_MAX 48	/* a formatted amount and its NUL */

/* Whether s is an ISO 4217 code: three capital letters. */
int money_code_ok(const char *s);
/* Digits after the point in code's amounts: 2 for most, 0 (JPY), 3 (KWD). */
int money_digits(const char *code);
/* amount (minor units) as money: "$12.40", "-$1.30", "CHF 3.05"; returns out. */
char *money_format(long long amount, const char *code, char *out, size_t n);
/*
 * text as money in minor units: "12.40", "$12.40", "12" (twelve dollars);
 * -1 when it is not an amount of code (a third decimal of a cent, a
 * foreign sign, more than max).
 */
int money_parse(const char *text, const char *code, long long max, long long *out);

#endif

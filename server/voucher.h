/*
 * voucher.h - top-up codes sold or handed out in batches: each is worth a
 * value of one quota, redeemed once into a person's paid wallet (wallet.h).
 *
 * A code has 80 random bits (16 letters of a 32-letter alphabet, written
 * XXXX-XXXX-XXXX-XXXX): guessing one is hopeless, the more so as wrong
 * codes count toward the sign-in rate limit. LDAP keeps only the SHA-256
 * of a code, as the name of its entry under ou=vouchers,ou=usage (private
 * like the usage). Redeeming is one modify that adds privRedeemed under the
 * assertion that there is none: exactly one of two people redeeming at the
 * same moment wins, on the voucher's home provider. The top-up that
 * follows has the voucher's own request id, so a retry (of the same
 * person, after privd or slapd died in between) finishes it, once.
 */
#ifndef PRIVD_VOUCHER_H
#define PRIVD_VOUCHER_H

#include <stddef.h>
#include <time.h>

#include "config.h"
#include "err.h"

#define VOUCHER_CODE_MAX	20	/* XXXX-XXXX-XXXX-XXXX */
#define VOUCHER_BATCH_MAX	64
#define VOUCHER_COUNT_MAX	10000

/* A voucher as listed: never its code. */
struct voucher {
	char id[17];		/* the first 16 hex digits of its hash */
	char quota[PRIV_NAME_MAX + 1];
	long long value;
	char expires[11];	/* YYYY-MM-DD, or "" */
	char batch[VOUCHER_BATCH_MAX + 1];
	char redeemed_by[65];	/* "" while unused */
	char redeemed_at[40];
};

/*
 * Creates count vouchers of value on quota, valid until expires (a date,
 * or NULL), in batch (a name; NULL: one is made from the time). *codes
 * (count codes, VOUCHER_CODE_MAX + 1 bytes each, malloc'd) are the only
 * copy: 0, or -1 and e with nothing left behind.
 */
int voucher_create(const struct cfg *c, const char *quota, long long value, int count,
    const char *expires, const char *batch, char batch_out[VOUCHER_BATCH_MAX + 1],
    char **codes, struct err *e);

/*
 * Redeems code for account uid: claims it, then tops up uid's paid
 * wallet. 0 with *v (what it was worth) and *replayed (uid had redeemed
 * it before: nothing more added); -1 and e: ERR_NOT_FOUND (no such code),
 * ERR_CONFLICT (used by another, expired: e->key "code"), ERR_UNAVAILABLE.
 */
int voucher_redeem(const struct cfg *c, const char *code, const char *uid, const char *actor,
    struct voucher *v, int *replayed, struct err *e);

/* Every voucher (of batch, when not NULL), unused first; *out malloc'd. */
int voucher_list(const struct cfg *c, const char *batch, struct voucher **out, size_t *n,
    struct err *e);

/* Whether text looks like a code (letters and digits, dashes, any case). */
int voucher_code_ok(const char *text);

#endif

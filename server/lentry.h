/* lentry.h - one ledger entry (a privEntry value): its JSON, written and read. */
#ifndef PRIVD_LENTRY_H
#define PRIVD_LENTRY_H

#include <stddef.h>
#include <time.h>

#define LENTRY_META_MAX	4096	/* a request's metadata, as JSON text */

/*
 * The ledger of a usage entry is its privEntry values, one JSON object
 * each: {"id","kind","amount","time","actor"} and, by kind, "requested",
 * "ref" (the charge a refund gives back), "expires" (holds), "released"
 * (what a commit, release or expiry of a hold gave back), "metadata";
 * of a split across two wallets (wallet.h), "paid" on the allowance's
 * entry (the paid wallet's part) and "void" on a paid part not had.
 * amount is what the entry charged, refunded, held, committed or credited.
 */
struct lentry {
	char *id;		/* request id (the hold's, for commit/release/expire) */
	char *kind;		/* charge refund hold commit release expire credit */
	long long amount;
	char *time;		/* RFC 3339 */
	char *actor;
	char *account;		/* who drew on a pool, or NULL */
	char *ref;		/* the charge of a refund */
	char *metadata;		/* JSON text, or NULL */
	char *expires;		/* RFC 3339, holds still open */
	long long refunded;	/* charges */
	long long released;	/* commit, release, expire; -1 for others */
	long long paid;		/* a split's allowance part (wallet.h): the paid
				 * wallet's part; -1 when not split */
	int voided;		/* a split's paid part that could not be had */
};

/*
 * An entry as compact JSON with sorted keys (malloc'd, NULL when out of
 * memory): id, kind, amount, time (now), actor, account when not NULL,
 * metadata when it is JSON, then extras by fmt: 'I' a key and a long long,
 * 's' a key and a string.
 */
char *lentry_format(const char *kind, const char *id, long long amount, const char *actor,
    const char *account, time_t now, const char *metadata, const char *fmt, ...);
/* Reads one entry into le: 0, 1 when text is not JSON (not privd's), -1
 * when it lacks an id or kind or memory ran out (le then empty). */
int lentry_parse(const char *text, struct lentry *le);
/* Frees what le owns (not le). */
void lentry_clear(struct lentry *le);
/* Frees what v[0..n-1] own, and v. */
void lentry_free_all(struct lentry *v, size_t n);
/* t as GeneralizedTime with this moment's microseconds ("...SS.ffffffZ"). */
void lentry_time(time_t t, char out[32]);
/* GeneralizedTime as RFC 3339. */
void lentry_rfc3339(const char *gt, char out[40]);

#endif

/* usage.h - what each account has used of each quota, as privd last saw it in LDAP. */
#ifndef PRIVD_USAGE_H
#define PRIVD_USAGE_H

#include <stddef.h>

#define USAGE_CSN_MAX 64
#define USAGE_KEY_MAX 1056	/* uid, quota@period (DN_VAL_MAX each) */

struct usage_val {
	long long used;		/* includes held */
	long long credit;
	long long held;
	long long segments;	/* ledger segments moved out (archive.h) */
	char csn[USAGE_CSN_MAX];	/* entryCSN of the usage entry */
};

/*
 * A table keyed by "uid/quota@period", fed by the usage sync stream and by
 * this privd's own writes (each write reads its entry back). A value only
 * replaces one with an older CSN, so the two sources can race freely and
 * a read that starts after a write returned sees that write.
 * Locks are striped by key: readers of different accounts never meet.
 */
void usage_key(char out[USAGE_KEY_MAX], const char *uid, const char *quota,
    const char *period);
/* 0 and *v when known, -1 when privd has seen no usage (all zero). */
int usage_get(const char *key, struct usage_val *v);
/* Stores v unless the table holds a newer CSN; -1 when out of memory. */
int usage_put(const char *key, const struct usage_val *v);
/* What is left of limit: limit + credit - used, never below 0. */
long long usage_remaining(long long limit, const struct usage_val *u);
/* usage_get by parts. */
int usage_get_for(const char *uid, const char *quota, const char *period,
    struct usage_val *v);
void usage_del(const char *key);
/* fn on every entry of stripe i (of USAGE_STRIPES), its lock held (fn
 * must not call usage_*): for a pass over the whole table (a report),
 * stripe by stripe, instead of a lookup per account; two threads may share
 * a pass. Stops at fn's first nonzero, which it returns. */
#define USAGE_STRIPES 64
int usage_each_of(size_t stripe, int (*fn)(void *arg, const char *key,
    const struct usage_val *v), void *arg);
/* The period of the paid wallets' entries (wallet.h): the table counts them,
 * so that reads skip looking for a paid wallet where nobody has one. */
#define USAGE_PAID_PERIOD	"paid"
int usage_any_paid(void);
void usage_clear(void);
size_t usage_count(void);

#endif

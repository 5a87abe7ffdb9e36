/*
 * price.h - a printer's rate card and what a job costs by it. Prices are
 * per printed side in the charged quota's units (cents of a money quota):
 * mono and colour one-sided, duplex_* per side printed two-sided, job once
 * per job; a media size may carry a factor. privd prices every job here:
 * no front end sends a price. Pure, apart from reading jansson values.
 */
#ifndef PRIVD_PRICE_H
#define PRIVD_PRICE_H

#include <stddef.h>

#include <jansson.h>

#include "err.h"

#define PRICE_NAME_MAX	64	/* a printer's name: an element of printer.access */
#define PRICE_MEDIA_MAX	16
#define PRICE_MEDIA_LEN	32
#define PRICE_MAX	100000000LL	/* one side, or the job fee */
#define PRICE_FACTOR_MAX 100000	/* a media factor, in thousandths (100) */
#define PRICE_PAGES_MAX	1000000LL	/* pages of one copy */
#define PRICE_COPIES_MAX 10000LL

struct price_media {
	char name[PRICE_MEDIA_LEN];	/* as the card says it ("A3") */
	long milli;			/* factor in thousandths: 2 is 2000 */
};

struct price_card {
	char name[PRICE_NAME_MAX + 1];
	char charge[PRICE_NAME_MAX + 1];	/* the quota it draws on */
	long long mono, colour, duplex_mono, duplex_colour, job;
	struct price_media media[PRICE_MEDIA_MAX];
	size_t nmedia;
};

/* The prices of a card by name, in the order the import format and the
 * API list them: price_keys[k] is price_of(c, k). */
#define PRICE_NKEYS 5
extern const char *const price_keys[PRICE_NKEYS];
long long price_of(const struct price_card *c, size_t k);

/* A job as the backend counted it: pages of one copy after N-up. */
struct price_job {
	char printer[PRICE_NAME_MAX + 1];
	long long mono, colour;
	int duplex;		/* printed two-sided */
	char sides[32];		/* "one-sided", "two-sided-long-edge", ... */
	long long copies;
	char media[PRICE_MEDIA_LEN];	/* "" when not given */
};

/* What it costs, and how. */
struct price_cost {
	long long cost;
	long long mono_sides, colour_sides;	/* every copy */
	long long sheets;
	long long mono_price, colour_price;	/* per side, as charged */
	long factor_milli;
	const char *media;			/* the card's media name, or NULL */
	long long job_fee;
};

/*
 * The card's values as privd keeps them ("charge=print.balance",
 * "mono=10", "colour=40", "duplex_mono=7", "duplex_colour=35", "job=0",
 * "media=A3:2") into c; -1 and e naming the value when one is wrong.
 * colour defaults to mono, duplex_mono to mono, duplex_colour to colour.
 */
int price_card_parse(const char *name, char *const *vals, size_t n, struct price_card *c,
    struct err *e);
/* The card's values in their one canonical form (every price, factors
 * as "2" or "1.5"), as privd stores them; malloc'd strv, NULL when out of
 * memory. */
char **price_card_vals(const struct price_card *c, size_t *n);
/* A factor in thousandths as text: 2000 "2", 1500 "1.5"; returns out. */
char *price_factor_text(long milli, char *out, size_t n);
/* The card as the API shows it: charge, price, media. */
json_t *price_card_json(const struct price_card *c);
/* Whether k is one of price_keys. */
int price_key_ok(const char *k);
/* A media factor ("2", "1.5") in thousandths; -1 when it is not one. */
long price_factor(const char *s);

/* The API's "job" object into j; -1 and e naming the field ("job.pages"). */
int price_job_parse(json_t *o, struct price_job *j, struct err *e);
/* What j costs by c; -1 and e (400) when it is too large to price. */
int price_job_cost(const struct price_card *c, const struct price_job *j,
    struct price_cost *out, struct err *e);
/* The breakdown a ledger entry and an answer keep. */
json_t *price_breakdown(const struct price_job *j, const struct price_cost *pc);

#endif

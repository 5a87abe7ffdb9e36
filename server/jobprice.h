/*
 * jobprice.h - what a print job costs, from the printer's rate card in
 * the published snapshot: the "job" of a charge, hold or quote (price.h
 * does the arithmetic). Below the HTTP layer: api_quota.c asks, answers.
 */
#ifndef PRIVD_JOBPRICE_H
#define PRIVD_JOBPRICE_H

#include <jansson.h>

#include "err.h"
#include "price.h"

struct jobprice {
	struct price_job job;
	struct price_cost cost;
	char quota[PRICE_NAME_MAX + 1];	/* the quota the printer's card draws on */
	json_t *breakdown;		/* owned: json_decref */
};

/*
 * Prices job (the API's object) by its printer's card. quota, when not
 * NULL, is the quota the request names: a card that draws on another is
 * a 400. -1 and e: ERR_INVALID naming the field, ERR_NOT_FOUND for a
 * printer without a card, ERR_UNAVAILABLE before the first snapshot.
 */
int jobprice_of(json_t *job, const char *quota, struct jobprice *out, struct err *e);
/* The ledger's metadata (JSON text or NULL) with the breakdown under
 * "price" (a print system's own "job" is its job id); malloc'd, NULL when
 * out of memory. */
char *jobprice_meta(const char *meta, const struct jobprice *jp);

#endif

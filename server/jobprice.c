/*
 * jobprice.c - a job priced from the snapshot's rate cards. The card is
 * copied out, so the snapshot is left before any write.
 */
#include <stdlib.h>
#include <string.h>

#include "jobprice.h"
#include "snapshot.h"

int
jobprice_of(json_t *job, const char *quota, struct jobprice *out, struct err *e)
{
	const struct price_card *pc;
	const struct snap *s;
	struct price_card card;
	int t, found;

	memset(out, 0, sizeof(*out));
	if (price_job_parse(job, &out->job, e) != 0)
		return -1;
	if ((s = snap_enter(&t)) == NULL) {
		snap_leave(t);
		return err_set(e, ERR_UNAVAILABLE, 0, NULL, "privd has not loaded the directory yet");
	}
	if ((found = (pc = snap_printer(s, out->job.printer)) != NULL))
		card = *pc;
	snap_leave(t);
	if (!found)
		return err_set(e, ERR_NOT_FOUND, 0, "job.printer", "printer '%s' has no rate card "
		    "(GET /v1/printers lists those that have)", out->job.printer);
	if (quota != NULL && strcmp(quota, card.charge) != 0)
		return err_set(e, ERR_INVALID, 0, "job.printer", "printer %s charges %s, not %s",
		    card.name, card.charge, quota);
	snprintf(out->quota, sizeof(out->quota), "%s", card.charge);
	if (price_job_cost(&card, &out->job, &out->cost, e) != 0)
		return -1;
	if ((out->breakdown = price_breakdown(&out->job, &out->cost)) == NULL)
		return err_oom(e);
	return 0;
}

char *
jobprice_meta(const char *meta, const struct jobprice *jp)
{
	json_t *o = meta ? json_loads(meta, 0, NULL) : json_object();
	char *text;

	if (o == NULL)
		return NULL;
	json_object_set(o, "price", jp->breakdown);
	text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(o);
	return text;
}

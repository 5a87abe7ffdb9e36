/* api_printers.c - the printers' rate cards over REST, from the snapshot. */
#include "api.h"
#include "snapshot.h"

/* A card as the API shows it, with its quota's currency when money. */
static json_t *
card(const struct snap *s, const struct price_card *c)
{
	json_t *o = price_card_json(c);
	int p = cfg_priv_find(s->cfg, c->charge);

	if (o != NULL && p >= 0 && s->cfg->privs[p].currency[0])
		json_object_set_new(o, "currency", json_string(s->cfg->privs[p].currency));
	return o;
}

/* GET /v1/printers: every printer with a rate card, by name. */
enum MHD_Result
api_printers(struct req *r)
{
	const struct snap *s;
	enum MHD_Result ret;
	json_t *arr;
	size_t i;
	int t;

	if ((s = api_enter(r, &t, &ret)) == NULL)
		return ret;
	arr = json_array();
	for (i = 0; arr && i < s->nprinters; i++)
		json_array_append_new(arr, card(s, &s->printers[i]));
	snap_leave(t);
	return http_json(r, 200, json_pack("{s:o}", "printers", arr ? arr : json_array()));
}

/* GET /v1/printers/{name} */
enum MHD_Result
api_printer(struct req *r)
{
	const struct price_card *c;
	const struct snap *s;
	enum MHD_Result ret;
	json_t *o;
	int t;

	if ((s = api_enter(r, &t, &ret)) == NULL)
		return ret;
	if ((c = snap_printer(s, r->part[2])) == NULL) {
		snap_leave(t);
		return http_error(r, 404, "unknown_printer", "printer", "printer '%.64s' has no "
		    "rate card (its jobs are counted on page quotas)", r->part[2]);
	}
	o = card(s, c);
	snap_leave(t);
	return http_json(r, 200, o);
}

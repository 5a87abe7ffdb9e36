/* fuzz_body.c - libFuzzer target: request bodies as every handler checks them. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "body.h"
#include "quota.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const allowed[] = { "request_id", "charge_id", "amount", "metadata",
	    "partial", "ttl_s", "reason", "period", NULL };
	const char *id, *str;
	long long n;
	char *meta = NULL;
	int b;
	struct err e;
	json_t *o = body_object((const char *)data, size, allowed, &e);

	if (o == NULL)
		return 0;
	body_id(o, "request_id", 0, &id, &e);
	body_id(o, "charge_id", 1, &id, &e);
	body_int(o, "amount", 1, QUOTA_AMOUNT_MAX, -1, &n, &e);
	body_int(o, "ttl_s", 1, QUOTA_TTL_MAX, 600, &n, &e);
	body_bool(o, "partial", &b, &e);
	body_str(o, "reason", 512, 0, &str, &e);
	if (body_meta(o, &meta, &e) == 0)
		free(meta);
	json_decref(o);
	return 0;
}

/* qwrite.c - the API's names of a quota write's refusals (qwrite.h). */
#include <stddef.h>

#include "qwrite.h"

static const char *const why_codes[] = {
	[QUOTA_WHY_NONE] = NULL, [QUOTA_EXCEEDED] = "quota_exceeded",
	[QUOTA_NO_PERIOD] = "no_period", [QUOTA_ID_REUSED] = "request_id_reused",
	[QUOTA_UNKNOWN_CHARGE] = "unknown_charge",
	[QUOTA_REFUND_EXCEEDS_CHARGE] = "refund_exceeds_charge",
	[QUOTA_UNKNOWN_HOLD] = "unknown_hold", [QUOTA_HOLD_EXPIRED] = "hold_expired",
	[QUOTA_HOLD_SETTLED] = "hold_settled", [QUOTA_BAD_REQUEST] = "bad_request",
};

const char *
quota_why_code(enum quota_why why)
{
	return why_codes[why];
}

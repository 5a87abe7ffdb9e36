/* reqid.c - request ids: the key a client makes a charge, hold or session idempotent by. */
#include <stddef.h>

#include "reqid.h"

int
reqid_ok(const char *id)
{
	size_t n;

	for (n = 0; id[n]; n++) {
		char ch = id[n];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == ':' ||
		    ch == '-'))
			return 0;
	}
	return n >= 1 && n <= REQID_MAX;
}

/* holder.c - whose usage an entry counts: an account's uid, or a pool's "pool:CELL". */
#include <stdio.h>
#include <string.h>

#include "holder.h"

void
holder_pool(char *out, const char *cell)
{
	snprintf(out, HOLDER_MAX, HOLDER_POOL "%s", cell);
}

const char *
holder_cell(const char *holder)
{
	size_t n = strlen(HOLDER_POOL);

	return strncmp(holder, HOLDER_POOL, n) == 0 ? holder + n : NULL;
}

/*
 * holder.h - whose usage an entry counts. Usage keys, home providers and
 * the quota code name it by its holder: an account's uid, or "pool:CELL"
 * for a pool; no account's uid looks like that.
 */
#ifndef PRIVD_HOLDER_H
#define PRIVD_HOLDER_H

#define HOLDER_POOL	"pool:"
#define HOLDER_MAX	(sizeof(HOLDER_POOL) + 511)

/* "pool:CELL" into out (HOLDER_MAX). */
void holder_pool(char *out, const char *cell);
/* The cell of a pool's holder "pool:CELL"; NULL for an account's uid. */
const char *holder_cell(const char *holder);

#endif

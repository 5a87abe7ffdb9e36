/* apply.h - writing an import to LDAP: a diff against the directory, written as a change. */
#ifndef PRIVD_APPLY_H
#define PRIVD_APPLY_H

#include <stddef.h>

#include "config.h"
#include "err.h"
#include "change.h"
#include "import.h"

struct apply_summary {
	size_t reasons_added;
	size_t orgs_added;
	size_t cells_added;
	size_t cells_changed;
	size_t accounts_changed;
	size_t accounts_created;
	size_t printers_changed;	/* rate cards added or changed */
	/* entryCSN of the last entry written in each stream ("" when none),
	 * for sync_wait_csn */
	char csn_privileges[64];
	char csn_people[64];
	char import_id[48];	/* the change's record, "" when none was needed */
	int resumed;		/* it finished an interrupted import */
	/* one line per change ("+ reason staff", "~ cell x: +a -b"...) */
	char **changes;
	size_t nchanges;
};

void apply_summary_free(struct apply_summary *s);
/* Appends one change line to s; -1 when out of memory. */
int apply_note(struct apply_summary *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Reads what the directory holds, checks d against it (import_check), then
 * makes the directory match d: missing tree nodes and cells are created,
 * the grants of each cell d names and the memberships of each account d
 * names become exactly d's. Written by chg_run: entry by entry, never in
 * an LDAP transaction, readers seeing all of it or none; running the same
 * import (rq) again finishes an interrupted one. With dry_run nothing is
 * written.
 * As `who`/`password` (NULL: the configured bind DN). On success the
 * caller frees sum with apply_summary_free; on failure nothing is left.
 */
int apply_import(const struct cfg *c, const struct import_doc *d, int dry_run,
    const char *who, const char *password, const struct chg_req *rq,
    struct apply_summary *sum, struct err *e);

#endif

/* import.h - the YAML import format of DESIGN.md: parsed and checked whole. */
#ifndef PRIVD_IMPORT_H
#define PRIVD_IMPORT_H

#include <stddef.h>

#include "config.h"
#include "err.h"
#include "grant.h"

struct import_node {
	char *path;
	int line;
};

struct import_cell {
	char *name;
	char *reason, *org;
	struct grant *grants;	/* exactly the grants the cell is to hold */
	size_t ngrants;
	int line;
	/* which sections name the cell: a cell under grants only keeps its
	 * pools, one under pools only keeps its grants */
	int in_grants, in_pools;
	/* an edit, not an import: grants replace those of the same privilege
	 * (set element) and the others stay; revoke names privileges to drop */
	int merge;
	char **revoke;
	size_t nrevoke;
	char **contacts;	/* pools: {contacts: [ADDR, ...]}: told when they run low */
	size_t ncontacts;
};

struct import_account {
	char *uid;
	char **cells;		/* exactly the memberships the account is to have */
	size_t ncells;
	int line;
	/* an edit: cells are added to the memberships, remove taken away */
	int merge;
	char **remove;
	size_t nremove;
};

/* A printer's rate card, as privRate values (price.h). */
struct import_printer {
	char *name;
	char **vals;
	size_t nvals;
	int line;
};

struct import_doc {
	struct import_node *reasons;	/* parents before children */
	size_t nreasons;
	struct import_node *orgs;
	size_t norgs;
	struct import_cell *cells;
	size_t ncells;
	struct import_account *accounts;
	size_t naccounts;
	struct import_printer *printers;
	size_t nprinters;
};

/* Parses text; every fault is -1 with e->line and e->key naming it. */
int import_parse(const struct cfg *c, const char *text, size_t len,
    struct import_doc *d, struct err *e);
void import_free(struct import_doc *d);

/*
 * Checks d against what the directory already has (existing reason and
 * organisation paths): every cell and membership names known tree nodes
 * (from d or the directory), and memberships sit in leaf reasons when the
 * configuration says so.
 */
int import_check(const struct cfg *c, const struct import_doc *d,
    const char *const *reasons, size_t nreasons, const char *const *orgs,
    size_t norgs, struct err *e);

#endif

/*
 * dirview.h - what the directory holds of the model, read for a change:
 * the tree nodes, the cells and the people a change names. Imports, edits
 * and tree moves read through here, once per change (change.h plans from
 * the same view apply.h validated against).
 */
#ifndef PRIVD_DIRVIEW_H
#define PRIVD_DIRVIEW_H

#include <stddef.h>

#include <ldap.h>

#include "config.h"
#include "err.h"
#include "strmap.h"

#define DVIEW_CSN_MAX 64

/* One side's nodes: their paths, and a set of them. */
struct dview_nodes {
	char **path;
	size_t n;
	struct strmap has;	/* path -> (void *)1 */
};

struct dview_cell {
	char *name;
	char **grants;		/* privGrant, then privPool as "pool VALUE" (pool.h) */
	size_t ngrants;
	char csn[DVIEW_CSN_MAX];	/* entryCSN as read */
};

struct dview_person {
	char *uid;		/* as the directory stores it */
	char *dn;
	char csn[DVIEW_CSN_MAX];
	int has_class;		/* privAccount present */
	int foreign;		/* memberships that are not cells of ours */
	int dated;		/* it has privMembershipDates values */
	char **cells;		/* its memberships by cell name, "CELL|FROM|UNTIL" when
				 * dated, "" for one that is not a cell of ours */
	size_t ncells;
};

struct dview {
	struct dview_nodes reasons, orgs;
	struct strmap cells;	/* name -> struct dview_cell */
	struct strmap people;	/* uid -> struct dview_person */
	struct strmap absent;	/* uids looked up that have no entry (keys owned) */
	/* printers: name -> struct dview_cell, its privRate values in grants */
	struct strmap printers;
	int printers_ou;	/* ou=printers exists (a directory from before
				 * rate cards has none until the first printer) */
	char *cells_dn;
	char *printers_dn;
	int has_model;		/* nodes and cells read */
};

void dview_init(struct dview *v);
void dview_free(struct dview *v);

/* The reason and organisation trees and every cell. 0, or -1 and e. */
int dview_read_model(LDAP *ld, const struct cfg *c, struct dview *v, struct err *e);

/*
 * The person entries of uids (in batches of escaped filters) not in v
 * yet. stored, when not NULL, gets for each uid the uid as the directory
 * stores it (it matches without case), or NULL when there is no entry.
 * 0, or -1 and e (ERR_INVALID when a uid matches two entries).
 */
int dview_read_people(LDAP *ld, const struct cfg *c, const char *const *uids, size_t n,
    const char **stored, struct dview *v, struct err *e);

/* The privMembershipDates of person entry m laid over its memberships
 * cells (membership_apply_dates): how many values it has, or -1 when out
 * of memory. */
int dview_read_dates(LDAP *ld, LDAPMessage *m, char **cells, size_t n);

/* The members of the cells named (batches of privMembership filters). */
int dview_read_members(LDAP *ld, const struct cfg *c, const char *const *cells, size_t n,
    struct dview *v, struct err *e);

#endif

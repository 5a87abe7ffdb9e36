/*
 * chgrecord.h - a change's record under ou=imports,BASE: who, what, a
 * digest, its state, and each object's state before and after in parts
 * (entries of CHUNK states) while it is open. Readers lay the "before"
 * states over what they read while a record is open.
 */
#ifndef PRIVD_CHGRECORD_H
#define PRIVD_CHGRECORD_H

#include <stddef.h>

#include <ldap.h>

#include "chgstate.h"
#include "config.h"
#include "err.h"

enum chgrec_state {
	CHGREC_NONE,		/* no record, or a state privd does not know */
	CHGREC_PLANNING,	/* being written; nothing of the change yet */
	CHGREC_OPEN,		/* the change is being written */
	CHGREC_CLOSED,		/* written whole */
	CHGREC_ABORTING,	/* its "before" states are being written back */
	CHGREC_ABORTED,
};

struct chg_req {
	const char *what;	/* "import", "grant", "node delete", ... */
	const char *actor;	/* the key's name or the administrator's uid */
	const char *body;	/* the request, digested with what: the same */
	size_t len;		/* request again resumes an open record */
};

struct chg_record {
	char id[CHG_ID_MAX];
	char state[16];		/* its name, as the API shows it */
	enum chgrec_state st;
	char what[64];
	char actor[128];
	long started;		/* unix time */
	char digest[65];
};

/* A state's name in privImportState, and back (CHGREC_NONE when unknown). */
const char *chgrec_state_name(enum chgrec_state st);
enum chgrec_state chgrec_state_parse(const char *s);

/* The records, newest first; free *out. */
int chgrec_list(LDAP *ld, const struct cfg *c, struct chg_record **out, size_t *n,
    struct err *e);
/* Records matching filter, newest first; 0 with *out (maybe empty). */
int chgrec_find(LDAP *ld, const struct cfg *c, const char *filter, struct chg_record **out,
    size_t *n, struct err *e);
/* The filter of records planning, open or aborting. */
extern const char chgrec_in_progress[];
/* 0 while record id is in state, or cannot be read; else -1 and e (chgw_check). */
int chgrec_check(LDAP *ld, const struct cfg *c, const char *id, int state, struct err *e);
/* The DN of record id; malloc'd, NULL when out of memory. */
char *chgrec_dn(const struct cfg *c, const char *id);
/* The digest of a request (what and body), as hex. */
void chgrec_digest(const struct chg_req *rq, char out[65]);

/* Writes the record (planning, its parts, then open); fills res->id. */
int chgrec_begin(LDAP *ld, const struct cfg *c, const struct chg_req *rq, const char *digest,
    const struct chg_list *before, const struct chg_list *after,
    struct chg_result *res, struct err *e);
/* Sets record dn's state (with the people csn, and the time it ended). */
int chgrec_set_state(LDAP *ld, const char *dn, enum chgrec_state st, const char *csn,
    struct err *e);
/* The states in a record's parts (attr privBefore or privAfter). */
int chgrec_read_parts(LDAP *ld, const struct cfg *c, const char *rdn, char *attr,
    struct chg_list *out, struct err *e);
/* Deletes record dn: its parts, then itself. */
void chgrec_drop(LDAP *ld, const struct cfg *c, const char *dn);
/* Closes record id as st (closed or aborted), dropping its parts. */
int chgrec_finish(LDAP *ld, const struct cfg *c, const char *id, enum chgrec_state st,
    struct chg_result *res, struct err *e);

#endif

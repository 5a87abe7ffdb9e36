/* path.h - tree paths ("engineering/cse") and cell names ("reason@org"). */
#ifndef PRIVD_PATH_H
#define PRIVD_PATH_H

#include <stddef.h>

#include "err.h"

/*
 * A path is "" (the whole tree) or segments joined by '/'; a segment is
 * [a-z0-9][a-z0-9_-]* and at most PATH_SEG_MAX long; at most PATH_DEPTH_MAX
 * segments. Lower case only: LDAP compares cn without case, so "CSE" and
 * "cse" would be one entry.
 */
#define PATH_MAX_LEN	255
#define PATH_SEG_MAX	64
#define PATH_DEPTH_MAX	16
#define CELL_MAX_LEN	(2 * PATH_MAX_LEN + 1)

/* 0 when valid, else -1 and e names what is wrong (key: what). */
int path_check(const char *path, const char *what, struct err *e);
/* Whether a is an ancestor of b or b itself. */
int path_covers(const char *a, const char *b);
/* Number of segments ("" is 0). */
int path_depth(const char *path);
/* Length of the parent's prefix of path (0 for a top node or ""). */
size_t path_parent_len(const char *path);
/* The last segment of path. */
const char *path_leaf(const char *path);

/* Splits "reason@org" into the two buffers (PATH_MAX_LEN + 1 each) after
 * checking both sides; -1 and e on a bad name. */
int cell_split(const char *name, char *reason, char *org, struct err *e);
/* Writes "reason@org" to out (CELL_MAX_LEN + 1). */
void cell_join(char *out, const char *reason, const char *org);



/* An account uid: [A-Za-z0-9][A-Za-z0-9._-]*, at most UID_MAX. */
#define UID_MAX 64
int uid_check(const char *uid, struct err *e);

#endif

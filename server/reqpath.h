/* reqpath.h - a request's path segments against the route table's patterns. */
#ifndef PRIVD_REQPATH_H
#define PRIVD_REQPATH_H

/* Whether the segments match pattern ('*' is one non-empty segment). */
int reqpath_match(const char *pattern, char *const *part, int nparts);
/*
 * A pool's cell has slashes of its own (/v1/pools/student@eng/cse/quotas/
 * print.pages/charges, or %2F, which arrives unescaped): the segments
 * between "pools" and the longest known ending are put back together as
 * one, so the route table sees /v1/pools/CELL[/...]. The segments are
 * http.c's: pointers into one buffer, each one's NUL where a '/' was.
 */
void reqpath_join_cell(char **part, int *nparts);

#endif

/*
 * reqpath.c - matching a request's path against the route table
 * (reqpath.h): one non-empty segment for each '*', and a pool's cell,
 * slashes and all, as one segment.
 */
#include <string.h>

#include "reqpath.h"

int
reqpath_match(const char *pattern, char *const *part, int nparts)
{
	const char *p = pattern + 1;
	int i;

	for (i = 0; i < nparts; i++) {
		const char *end = strchr(p, '/');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (*p == '\0' && n == 0)
			return 0;	/* the pattern ended first */
		if (n == 1 && *p == '*') {
			if (part[i][0] == '\0')
				return 0;
		} else if (strlen(part[i]) != n || memcmp(part[i], p, n) != 0)
			return 0;
		if (end == NULL)
			return i == nparts - 1;
		p = end + 1;
	}
	return 0;
}

/* The cell put back together (reqpath.h). */
void
reqpath_join_cell(char **part, int *nparts)
{
	static const char *const ends[][5] = {
		{ "quotas", "*", "holds", "*", "commit" },
		{ "quotas", "*", "holds", "*", NULL },
		{ "quotas", "*", "charges", NULL }, { "quotas", "*", "refunds", NULL },
		{ "quotas", "*", "holds", NULL }, { "quotas", "*", "credits", NULL },
		{ "quotas", "*", "ledger", NULL },
		{ "quotas", "*", NULL }, { "members", NULL },
	};
	size_t e;
	int k = 0, i, j;

	if (*nparts < 4 || strcmp(part[0], "v1") != 0 || strcmp(part[1], "pools") != 0)
		return;
	for (e = 0; e < sizeof(ends) / sizeof(ends[0]) && k == 0; e++) {
		int n = 0, ok = 1;

		while (n < 5 && ends[e][n])
			n++;
		if (*nparts - 2 - n < 1)
			continue;
		for (j = 0; j < n && ok; j++) {
			const char *seg = part[*nparts - n + j];

			ok = strcmp(ends[e][j], "*") == 0 ? seg[0] != '\0' : strcmp(ends[e][j], seg) == 0;
		}
		if (ok)
			k = n;
	}
	/* parts 2 .. nparts-k-1 are the cell: one buffer, NULs where '/' was */
	for (i = 3; i < *nparts - k; i++)
		part[i][-1] = '/';
	for (j = 0; j < k; j++)
		part[3 + j] = part[*nparts - k + j];
	*nparts = 3 + k;
}

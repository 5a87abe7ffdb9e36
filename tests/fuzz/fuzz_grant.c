/* fuzz_grant.c - libFuzzer target: grant texts, cell names, paths, uids and request ids. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "grant.h"
#include "path.h"
#include "quota.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cfg *c;
	char reason[PATH_MAX_LEN + 1], org[PATH_MAX_LEN + 1], *s;
	struct grant g;
	struct err e;

	if (c == NULL && (c = fx_cfg()) == NULL)
		abort();
	if ((s = malloc(size + 1)) == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	memset(&g, 0, sizeof(g));
	if (grant_parse(c, s, &g, &e) == 0)
		grant_clear(&g);
	if (cell_split(s, reason, org, &e) == 0) {
		char name[CELL_MAX_LEN + 1];

		cell_join(name, reason, org);
	}
	path_check(s, "path", &e);
	uid_check(s, &e);
	reqid_ok(s);
	free(s);
	return 0;
}

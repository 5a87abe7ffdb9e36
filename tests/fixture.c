/* fixture.c - building test configs and snapshots from short strings. */
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

static const char cfg_text[] =
    "ldap:\n"
    "  uri: ldap://127.0.0.1:1/\n"
    "  base: ou=privileges,dc=example,dc=edu\n"
    "  people: ou=people,dc=example,dc=edu\n"
    "privileges:\n"
    "  f: { type: flag }\n"
    "  s: { type: set }\n"
    "  n: { type: number }\n"
    "  nmin: { type: number, combine: min }\n"
    "  nsum: { type: number, combine: sum }\n"
    "  q: { type: quota, period: never }\n";

struct cfg *
fx_cfg(void)
{
	struct cfg *c = NULL;
	struct err e;

	if (cfg_parse(cfg_text, sizeof(cfg_text) - 1, "fixture", &c, &e) != 0)
		abort();
	return c;
}

struct cfg *fx_config;

int
fx_setup(void **state)
{
	(void)state;
	fx_config = fx_cfg();
	return 0;
}

int
fx_teardown(void **state)
{
	(void)state;
	cfg_free(fx_config);
	fx_config = NULL;
	return 0;
}

static size_t
count(const char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

/* Splits "a|b|c" into a malloc'd copy and a NULL-terminated array of fields. */
static char **
fields(const char *spec, char **copy, size_t *n)
{
	char **out = calloc(strlen(spec) + 2, sizeof(char *));
	char *p;

	*copy = strdup(spec);
	*n = 0;
	for (p = *copy; out && p;) {
		char *bar = strchr(p, '|');

		out[(*n)++] = p;
		if (bar)
			*bar++ = '\0';
		p = bar;
	}
	return out;
}

struct snap *
fx_snap(const struct cfg *c, const char *const *reasons, const char *const *orgs,
    const char *const *cells, const char *const *accounts)
{
	size_t nc = count(cells), na = count(accounts), i, n;
	struct snap_in_cell *ic = calloc(nc + 1, sizeof(*ic));
	struct snap_in_account *ia = calloc(na + 1, sizeof(*ia));
	char **copies = calloc(nc + na + 1, sizeof(char *));
	char ***arrays = calloc(nc + na + 1, sizeof(*arrays));
	struct snap_input in;
	struct snap *s;
	struct err e;

	if (ic == NULL || ia == NULL || copies == NULL || arrays == NULL)
		abort();
	for (i = 0; i < nc; i++) {
		arrays[i] = fields(cells[i], &copies[i], &n);
		ic[i].name = arrays[i][0];
		ic[i].grants = (const char **)arrays[i] + 1;
		ic[i].ngrants = n - 1;
	}
	for (i = 0; i < na; i++) {
		arrays[nc + i] = fields(accounts[i], &copies[nc + i], &n);
		ia[i].uid = arrays[nc + i][0];
		ia[i].cells = (const char **)arrays[nc + i] + 1;
		ia[i].ncells = n - 1;
	}
	memset(&in, 0, sizeof(in));
	in.reasons = (const char **)reasons;
	in.nreasons = count(reasons);
	in.orgs = (const char **)orgs;
	in.norgs = count(orgs);
	in.cells = ic;
	in.ncells = nc;
	in.accounts = ia;
	in.naccounts = na;
	s = snap_build(c, &in, &e);
	for (i = 0; i < nc + na; i++) {
		free(arrays[i]);
		free(copies[i]);
	}
	free(copies);
	free(arrays);
	free(ic);
	free(ia);
	return s;
}

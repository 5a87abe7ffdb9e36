/*
 * gen.c - a synthetic directory at the scale of a big university, as LDIF
 * for slapadd: trees 5 deep (484 reasons, 1705 organisations), CELLS cells,
 * 5 grants per cell, ACCOUNTS accounts with 2 memberships each (or
 * MEMBERSHIPS) in cells of leaf reasons. Deterministic (a fixed seed). With
 * EVERY and PERIOD, every EVERY-th account has used some print.pages in
 * PERIOD (its usage entry as privd writes it), for reports that read usage.
 * Usage: gen ACCOUNTS CELLS [EVERY PERIOD [MEMBERSHIPS]] > big.ldif
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BASE "ou=privileges,dc=example,dc=edu"
#define PEOPLE "ou=people,dc=example,dc=edu"

static unsigned long long seed = 88172645463325252ULL;

static unsigned
rnd(unsigned n)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return (unsigned)(seed % n);
}

/* A set of cell names, so no name is made twice: open addressing, sized
 * at twice the cells asked for (a fixed 65,536 slots never finished 50,000
 * cells or more) */
static char **set;
static unsigned nset;

static int
seen(const char *s)
{
	unsigned h = 2166136261u;
	const char *p;

	for (p = s; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	for (h %= nset; set[h]; h = (h + 1) % nset)
		if (strcmp(set[h], s) == 0)
			return 1;
	set[h] = strdup(s);
	return 0;
}

/* Node paths of a tree: fan[d] children per node at depth d. */
static char **paths;
static int npaths;

static void
tree(const char *prefix, const char *name, const int *fan, int depth, const char *ou,
    const char *cls, char *dnsuffix)
{
	char path[256], dn[1024];
	int i;

	if (depth == 5)
		return;
	for (i = 0; i < fan[depth]; i++) {
		snprintf(path, sizeof(path), "%s%s%s%d", prefix, *prefix ? "/" : "", name, i);
		snprintf(dn, sizeof(dn), "cn=%s%d,%s", name, i, dnsuffix);
		printf("dn: %s\nobjectClass: %s\ncn: %s%d\n\n", dn, cls, name, i);
		paths = realloc(paths, (npaths + 1) * sizeof(*paths));
		paths[npaths++] = strdup(path);
		tree(path, name, fan, depth + 1, ou, cls, dn);
	}
}

int
main(int argc, char **argv)
{
	static const int rfan[5] = { 4, 3, 3, 3, 3 }, ofan[5] = { 5, 4, 4, 4, 4 };
	char **reasons, **orgs, **leaves, **cells, name[600];
	int nreasons, norgs, nleaves = 0, ncells, i, j, k, accounts, want, every = 0, nm = 2;
	int m[16];
	const char *period = NULL;
	char rs[128];

	if (argc != 3 && argc != 5 && argc != 6)
		return 2;
	accounts = atoi(argv[1]);
	want = atoi(argv[2]);
	if (argc >= 5) {
		every = atoi(argv[3]);
		period = argv[4];
	}
	if (argc == 6)
		nm = atoi(argv[5]);
	if (accounts < 1 || want < 2 || want > 10000000 || every < 0 || nm < 1 || nm > 16 ||
	    nm > want / 2)
		return 2;
	for (nset = 1024; nset < 2u * (unsigned)want; nset *= 2)
		;
	if ((set = calloc(nset, sizeof(*set))) == NULL)
		return 1;
	snprintf(rs, sizeof(rs), "ou=reasons,%s", BASE);
	tree("", "r", rfan, 0, "reasons", "privReason", rs);
	reasons = paths;
	nreasons = npaths;
	paths = NULL;
	npaths = 0;
	snprintf(rs, sizeof(rs), "ou=organisations,%s", BASE);
	tree("", "o", ofan, 0, "organisations", "privOrganisation", rs);
	orgs = paths;
	norgs = npaths;
	leaves = calloc(nreasons, sizeof(*leaves));
	for (i = 0; i < nreasons; i++) {
		int depth = 1;

		for (const char *p = reasons[i]; *p; p++)
			depth += *p == '/';
		if (depth == 5)
			leaves[nleaves++] = reasons[i];
	}
	/* half the cells on leaf reasons (members go there), half anywhere */
	cells = calloc(want, sizeof(*cells));
	for (ncells = 0; ncells < want; ncells++) {
		const char *r, *o;

		do {
			r = ncells % 2 ? reasons[rnd(nreasons)] : leaves[rnd(nleaves)];
			/* one in 50 on a whole reason (@), while reasons last */
			o = ncells % 50 == 1 && ncells / 50 < nreasons / 2 ? "" : orgs[rnd(norgs)];
			snprintf(name, sizeof(name), "%s@%s", r, o);
		} while (seen(name));
		cells[ncells] = strdup(name);
		printf("dn: cn=%s,ou=cells,%s\nobjectClass: privCell\ncn: %s\n"
		    "privCellReason: %.*s\n", name, BASE, name, (int)(strchr(name, '@') - name), name);
		if (*o)
			printf("privCellOrganisation: %s\n", o);
		printf("privGrant: print.pages=%u\nprivGrant: printer.access+=p%u\n"
		    "privGrant: print.colour=%s\nprivGrant: login.max_sessions=%u\n"
		    "privGrant: login.hosts+=h%u\n\n", 100 + rnd(900), rnd(50),
		    rnd(4) ? "false" : "true", 1 + rnd(5), rnd(30));
	}
	for (i = 0; i < accounts; i++) {
		/* distinct cells of even index; two are drawn as they always were,
		 * so the two-membership directories stay the same */
		m[0] = 2 * rnd(want / 2);
		for (j = 1; j < nm; j++) {
			m[j] = 2 * rnd(want / 2);
			for (k = 0; k < j; k++)
				if (m[k] == m[j]) {
					m[j] = (m[j] + 2) % (want - want % 2);
					k = -1;
				}
		}
		printf("dn: uid=u%06d,%s\nobjectClass: account\nobjectClass: privAccount\n"
		    "uid: u%06d\n", i, PEOPLE, i);
		for (j = 0; j < nm; j++)
			printf("privMembership: cn=%s,ou=cells,%s\n", cells[m[j]], BASE);
		printf("\n");
	}
	for (i = 0; every > 0 && i < accounts; i += every) {
		printf("dn: uid=u%06d,ou=usage,%s\nobjectClass: privAccountUsage\nuid: u%06d\n\n",
		    i, BASE, i);
		printf("dn: cn=print.pages@%s,uid=u%06d,ou=usage,%s\nobjectClass: privUsage\n"
		    "cn: print.pages@%s\nprivPeriod: %s\nprivUsed: %u\nprivCredit: 0\n\n",
		    period, i, BASE, period, period, 1 + rnd(500));
	}
	return 0;
}

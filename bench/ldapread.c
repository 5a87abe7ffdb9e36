/*
 * ldapread.c - the obvious alternative to privd: compute an account's
 * privileges from LDAP on every request, no cache. Per request: find the
 * account, read its memberships, then every cell covering each membership
 * (all prefixes of both sides): MODE "each" reads each candidate cell with
 * a search of its own, the way a script walks up the trees; "or" asks for
 * all of them in one search. CONC threads for SECONDS.
 * Usage: ldapread URI BINDDN PASSWORD PEOPLE CELLS UID SECONDS CONC MODE
 * Prints: requests/s.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ldap.h>

static char **av;
static volatile int stop;
static long done;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Appends (cn=R@O) for every prefix R of reason and O of org. */
static void
covering(char *f, size_t n, const char *cell)
{
	char r[512], o[512];
	const char *at = strchr(cell, '@');
	size_t i, j, rl, ol;

	if (at == NULL)
		return;
	snprintf(r, sizeof(r), "%.*s", (int)(at - cell), cell);
	snprintf(o, sizeof(o), "%s", at + 1);
	rl = strlen(r);
	ol = strlen(o);
	for (i = 0; i <= rl; i++) {
		if (i != 0 && i != rl && r[i] != '/')
			continue;
		for (j = 0; j <= ol; j++) {
			if (j != 0 && j != ol && o[j] != '/')
				continue;
			snprintf(f + strlen(f), n - strlen(f), "(cn=%.*s@%.*s)", (int)i, r, (int)j, o);
		}
	}
}

static void *
run(void *arg)
{
	char *uid_attrs[] = { "privMembership", NULL }, *cell_attrs[] = { "privGrant", NULL };
	struct berval cred = { strlen(av[3]), av[3] };
	char filter[256];
	long n = 0;
	LDAP *ld;
	int v = 3;

	(void)arg;
	if (ldap_initialize(&ld, av[1]) != LDAP_SUCCESS)
		return NULL;
	ldap_set_option(ld, LDAP_OPT_PROTOCOL_VERSION, &v);
	if (ldap_sasl_bind_s(ld, av[2], LDAP_SASL_SIMPLE, &cred, NULL, NULL, NULL) != LDAP_SUCCESS)
		return NULL;
	snprintf(filter, sizeof(filter), "(uid=%s)", av[6]);
	while (!stop) {
		LDAPMessage *res = NULL, *m, *cres = NULL;
		struct berval **ms;
		char big[8192] = "(|";
		size_t i;

		if (ldap_search_ext_s(ld, av[4], LDAP_SCOPE_SUBTREE, filter, uid_attrs, 0, NULL, NULL,
		    NULL, 1, &res) != LDAP_SUCCESS || (m = ldap_first_entry(ld, res)) == NULL)
			break;
		ms = ldap_get_values_len(ld, m, "privMembership");
		for (i = 0; ms && ms[i]; i++) {
			char cell[1024];
			LDAPDN dn;

			/* the cell name is the RDN value */
			if (ldap_bv2dn(ms[i], &dn, LDAP_DN_FORMAT_LDAP) != LDAP_SUCCESS)
				continue;
			snprintf(cell, sizeof(cell), "%.*s", (int)dn[0][0]->la_value.bv_len,
			    dn[0][0]->la_value.bv_val);
			ldap_dnfree(dn);
			covering(big, sizeof(big), cell);
		}
		ldap_value_free_len(ms);
		ldap_msgfree(res);
		strcat(big, ")");
		if (strcmp(av[9], "each") == 0) {
			/* one search per candidate cell: (cn=...) terms of the filter */
			char *p = big + 2, *q;

			while ((q = strstr(p, ")(")) != NULL || (q = strstr(p, "))")) != NULL) {
				char one[1100];

				snprintf(one, sizeof(one), "%.*s)", (int)(q - p), p);
				cres = NULL;
				if (ldap_search_ext_s(ld, av[5], LDAP_SCOPE_ONELEVEL, one, cell_attrs, 0,
				    NULL, NULL, NULL, 0, &cres) == LDAP_SUCCESS)
					for (m = ldap_first_entry(ld, cres); m; m = ldap_next_entry(ld, m)) {
						struct berval **g = ldap_get_values_len(ld, m, "privGrant");

						ldap_value_free_len(g);
					}
				ldap_msgfree(cres);
				p = q + 1;
				if (q[1] == ')')
					break;
			}
			n++;
			continue;
		}
		if (ldap_search_ext_s(ld, av[5], LDAP_SCOPE_ONELEVEL, big, cell_attrs, 0, NULL, NULL,
		    NULL, 0, &cres) != LDAP_SUCCESS)
			break;
		for (m = ldap_first_entry(ld, cres); m; m = ldap_next_entry(ld, m)) {
			struct berval **g = ldap_get_values_len(ld, m, "privGrant");

			ldap_value_free_len(g);
		}
		ldap_msgfree(cres);
		n++;
	}
	ldap_unbind_ext_s(ld, NULL, NULL);
	pthread_mutex_lock(&lock);
	done += n;
	pthread_mutex_unlock(&lock);
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t[64];
	int i, conc;
	struct timespec s = { 0, 0 };

	if (argc != 10) {
		fprintf(stderr, "usage: ldapread URI BINDDN PASSWORD PEOPLE CELLS UID SECONDS CONC MODE\n");
		return 2;
	}
	av = argv;
	conc = atoi(argv[8]);
	if (conc < 1 || conc > 64)
		return 2;
	for (i = 0; i < conc; i++)
		pthread_create(&t[i], NULL, run, NULL);
	s.tv_sec = atoi(argv[7]);
	nanosleep(&s, NULL);
	stop = 1;
	for (i = 0; i < conc; i++)
		pthread_join(t[i], NULL);
	printf("%.1f\n", done / (double)atoi(argv[7]));
	return 0;
}

/*
 * propagate.c - how long an LDAP change takes to show in privd's API: N
 * times, modify a grant (or a membership) with libldap, then poll privd
 * until the answer shows it. Prints p50 and p99 in ms.
 * grant: prop/a@'s print.pages (the prop account alone is in it); all: the
 * cell "@"'s login.max_sessions (every account inherits it); membership:
 * prop moves between prop/b@ and prop/c@.
 * Usage: propagate grant|all|membership URI BINDDN PASSWORD BASE PEOPLE PRIVD_URL KEY N
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <ldap.h>

struct buf {
	char p[65536];
	size_t n;
};

static size_t
on_data(char *ptr, size_t size, size_t n, void *arg)
{
	struct buf *b = arg;
	size_t k = size * n;

	if (b->n + k >= sizeof(b->p))
		k = sizeof(b->p) - 1 - b->n;
	memcpy(b->p + b->n, ptr, k);
	b->n += k;
	b->p[b->n] = '\0';
	return size * n;
}

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	struct berval cred;
	char url[512], auth[256], dn[512], want[128], val[128], *vals[2] = { val, NULL };
	struct curl_slist *h = NULL;
	double *ms;
	LDAP *ld;
	CURL *c;
	int i, n, v = 3, grant, all;

	if (argc != 10) {
		fprintf(stderr, "usage: propagate grant|all|membership URI BINDDN PASSWORD BASE PEOPLE URL KEY N\n");
		return 2;
	}
	all = strcmp(argv[1], "all") == 0;
	grant = all || strcmp(argv[1], "grant") == 0;
	n = atoi(argv[9]);
	if ((ms = calloc((size_t)n, sizeof(*ms))) == NULL)
		return 1;
	cred.bv_val = argv[4];
	cred.bv_len = strlen(argv[4]);
	if (ldap_initialize(&ld, argv[2]) != LDAP_SUCCESS)
		return 1;
	ldap_set_option(ld, LDAP_OPT_PROTOCOL_VERSION, &v);
	if (ldap_sasl_bind_s(ld, argv[3], LDAP_SASL_SIMPLE, &cred, NULL, NULL, NULL) != LDAP_SUCCESS)
		return 1;
	c = curl_easy_init();
	snprintf(url, sizeof(url), "%s/v1/accounts/prop/privileges/%s", argv[7],
	    all ? "login.max_sessions" : "print.pages");
	snprintf(auth, sizeof(auth), "Authorization: Bearer %s", argv[8]);
	h = curl_slist_append(h, auth);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	/* i -1: one change unmeasured, for slapd's first write after slapadd
	 * (100 ms and more, nothing of privd's) */
	for (i = -1; i < n; i++) {
		LDAPMod m = { LDAP_MOD_REPLACE, grant ? "privGrant" : "privMembership", { vals } };
		LDAPMod *mods[] = { &m, NULL };
		double t0;

		if (all) {
			/* the root cell: every account's answer changes */
			snprintf(dn, sizeof(dn), "cn=@,ou=cells,%s", argv[5]);
			snprintf(val, sizeof(val), "login.max_sessions=%d", 100 + i);
			snprintf(want, sizeof(want), "\"value\":%d", 100 + i);
		} else if (grant) {
			/* the prop account's cell gets a new limit each time */
			snprintf(dn, sizeof(dn), "cn=prop/a@,ou=cells,%s", argv[5]);
			snprintf(val, sizeof(val), "print.pages=%d", 1000 + i);
			snprintf(want, sizeof(want), "\"limit\":%d", 1000 + i);
		} else {
			/* the account moves between two cells with limits 1 and 2 */
			snprintf(dn, sizeof(dn), "uid=prop,%s", argv[6]);
			snprintf(val, sizeof(val), "cn=prop/%s@,ou=cells,%s", i % 2 ? "b" : "c", argv[5]);
			snprintf(want, sizeof(want), "\"limit\":%d", i % 2 ? 7 : 9);
		}
		t0 = now_ms();
		if (ldap_modify_ext_s(ld, dn, mods, NULL, NULL) != LDAP_SUCCESS) {
			fprintf(stderr, "propagate: modify %s failed\n", dn);
			return 1;
		}
		for (;;) {
			struct buf b = { "", 0 };

			curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
			if (curl_easy_perform(c) == CURLE_OK && strstr(b.p, want))
				break;
			if (now_ms() - t0 > 10000) {
				fprintf(stderr, "propagate: not seen after 10 s\n");
				return 1;
			}
		}
		if (i >= 0)
			ms[i] = now_ms() - t0;
	}
	qsort(ms, (size_t)n, sizeof(*ms), cmp);
	printf("%.1f %.1f\n", ms[n / 2], ms[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1]);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	ldap_unbind_ext_s(ld, NULL, NULL);
	return 0;
}

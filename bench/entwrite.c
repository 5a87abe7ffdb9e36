/*
 * entwrite.c - raw slapd taking what privd's first publish of entitlement
 * values writes: one modify per person adding VALUES privEntitlement values
 * (no class: privAccount allows them), WINDOW modifies in flight on one
 * connection, as privd's writer sends them. People uid=u%06d from FIRST,
 * COUNT of them; the values carry a prefix privd does not own, so a
 * publishing privd leaves them alone afterwards.
 * Usage: entwrite URI BINDDN PASSWORD PEOPLE_BASE FIRST COUNT VALUES WINDOW
 * Prints: modifies/s.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ldap.h>

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	char vbuf[64][96], *vals[65], dn[256];
	LDAPMod m = { LDAP_MOD_ADD, "privEntitlement", { vals } }, *mods[] = { &m, NULL };
	struct berval cred;
	LDAP *ld;
	int first, count, nv, window, sent = 0, got = 0, out = 0, bad = 0, v = 3, i;
	double t0;

	if (argc != 9) {
		fprintf(stderr, "usage: entwrite URI BINDDN PASSWORD PEOPLE_BASE FIRST COUNT VALUES WINDOW\n");
		return 2;
	}
	first = atoi(argv[5]);
	count = atoi(argv[6]);
	nv = atoi(argv[7]);
	window = atoi(argv[8]);
	if (count < 1 || nv < 1 || nv > 64 || window < 1)
		return 2;
	for (i = 0; i < nv; i++) {
		snprintf(vbuf[i], sizeof(vbuf[i]), "urn:bench:raw:login.hosts:h%d", i);
		vals[i] = vbuf[i];
	}
	vals[nv] = NULL;
	cred.bv_val = argv[3];
	cred.bv_len = strlen(argv[3]);
	if (ldap_initialize(&ld, argv[1]) != LDAP_SUCCESS)
		return 1;
	ldap_set_option(ld, LDAP_OPT_PROTOCOL_VERSION, &v);
	if (ldap_sasl_bind_s(ld, argv[2], LDAP_SASL_SIMPLE, &cred, NULL, NULL, NULL) != LDAP_SUCCESS)
		return 1;
	t0 = now();
	while (got < count) {
		LDAPMessage *res = NULL;
		int id, err = LDAP_OTHER;

		while (out < window && sent < count) {
			snprintf(dn, sizeof(dn), "uid=u%06d,%s", first + sent, argv[4]);
			if (ldap_modify_ext(ld, dn, mods, NULL, NULL, &id) != LDAP_SUCCESS)
				return 1;
			sent++;
			out++;
		}
		if (ldap_result(ld, LDAP_RES_ANY, 1, NULL, &res) <= 0)
			return 1;
		ldap_parse_result(ld, res, &err, NULL, NULL, NULL, NULL, 1);
		bad += err != LDAP_SUCCESS;
		got++;
		out--;
	}
	if (bad > 0) {
		fprintf(stderr, "entwrite: %d of %d modifies refused\n", bad, count);
		return 1;
	}
	printf("%.1f\n", count / (now() - t0));
	ldap_unbind_ext_s(ld, NULL, NULL);
	return 0;
}

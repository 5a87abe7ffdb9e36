/*
 * charge.c - raw slapd doing privd's charge: one modify of a usage entry
 * (increment privUsed, add the request id, the ledger entry and the refund
 * state) under the same assertion, CONC threads for SECONDS, spread over
 * ACCOUNTS usage entries (created first). The same work privd does per
 * charge, minus HTTP and privd.
 * Usage: charge URI BINDDN PASSWORD USAGE_BASE ACCOUNTS SECONDS CONC
 * Prints: accepted charges/s.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ldap.h>

#include "benchldap.h"

static char **av;
static volatile int stop;
static long done;
static int naccounts;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *
run(void *arg)
{
	long id = (long)arg, n = 0, i = 0;
	LDAP *ld = bench_bind(av[1], av[2], av[3]);

	while (ld && !stop) {
		char dn[512], rid[64], entry[512], refund[96], used[16] = "1", *v0[2] = { used, NULL };
		char *v1[2] = { rid, NULL }, *v2[2] = { entry, NULL }, *v3[2] = { refund, NULL };
		LDAPMod m0 = { LDAP_MOD_INCREMENT, "privUsed", { v0 } };
		LDAPMod m1 = { LDAP_MOD_ADD, "privRequest", { v1 } };
		LDAPMod m2 = { LDAP_MOD_ADD, "privEntry", { v2 } };
		LDAPMod m3 = { LDAP_MOD_ADD, "privRefund", { v3 } };
		LDAPMod *mods[] = { &m0, &m1, &m2, &m3, NULL };
		LDAPControl *ac = NULL, *ctrls[2] = { NULL, NULL };
		int rc;

		snprintf(dn, sizeof(dn), "cn=print.pages@all,uid=bench%03ld,%s",
		    (id * 7919 + i) % naccounts, av[4]);
		snprintf(rid, sizeof(rid), "raw-%ld-%ld", id, i);
		snprintf(entry, sizeof(entry), "{\"actor\":\"bench\",\"amount\":1,\"id\":\"%s\","
		    "\"kind\":\"charge\",\"requested\":1,\"time\":\"2026-12-03T00:00:00.%06ldZ\"}",
		    rid, i % 1000000);
		snprintf(refund, sizeof(refund), "%s 0", rid);
		i++;
		ldap_create_assertion_control(ld, "(&(privUsed<=999999999)(privCredit=0))", 1, &ac);
		ctrls[0] = ac;
		rc = ldap_modify_ext_s(ld, dn, mods, ctrls, NULL);
		ldap_control_free(ac);
		/* privd then reads the entry back: so does this */
		if (rc == LDAP_SUCCESS) {
			char *attrs[] = { "privUsed", "privCredit", "privHeld", "entryCSN", NULL };
			LDAPMessage *res = NULL;

			if (ldap_search_ext_s(ld, dn, LDAP_SCOPE_BASE, "(objectClass=privUsage)", attrs, 0,
			    NULL, NULL, NULL, 1, &res) == LDAP_SUCCESS)
				n++;
			ldap_msgfree(res);
		}
	}
	if (ld)
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
	struct timespec s = { 0, 0 };
	LDAP *ld;
	int i, conc;

	if (argc != 8) {
		fprintf(stderr, "usage: charge URI BINDDN PASSWORD USAGE_BASE ACCOUNTS SECONDS CONC\n");
		return 2;
	}
	av = argv;
	naccounts = atoi(argv[5]);
	conc = atoi(argv[7]);
	if ((ld = bench_bind(argv[1], argv[2], argv[3])) == NULL || conc < 1 || conc > 64 ||
	    naccounts < 1)
		return 1;
	/* the usage entries, as privd creates them on first use */
	for (i = 0; i < naccounts; i++) {
		char uid[32];

		snprintf(uid, sizeof(uid), "bench%03d", i);
		bench_usage_entry(ld, argv[4], uid);
	}
	ldap_unbind_ext_s(ld, NULL, NULL);
	for (i = 0; i < conc; i++)
		pthread_create(&t[i], NULL, run, (void *)(long)i);
	s.tv_sec = atoi(argv[6]);
	nanosleep(&s, NULL);
	stop = 1;
	for (i = 0; i < conc; i++)
		pthread_join(t[i], NULL);
	printf("%.1f\n", done / (double)atoi(argv[6]));
	return 0;
}

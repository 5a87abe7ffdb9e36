/*
 * chargefloor.c - the floor under privd's CPU per charge: the least a
 * server can spend on one, on this machine. One thread and one epoll loop
 * over libmicrohttpd (external epoll mode), a write connection and a usage
 * stream: a POST sends privd's modify of one usage entry (the same four
 * attributes under an assertion, with a post-read) without waiting, the
 * connection stays suspended until the result arrives, and the result is
 * answered 201; the echo of each write arrives on a refreshAndPersist
 * search of the usage subtree with the follower's attributes, read in the
 * same loop, as privd's follower must. No JSON, no ledger, no locks, no
 * thread hand-over: what is left is the system calls and wake-ups every
 * design pays.
 * Usage: chargefloor PORT URI BINDDN PASSWORD USAGE_BASE
 */
#include <sys/epoll.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lber.h>
#include <ldap.h>
#include <microhttpd.h>

#include "benchldap.h"

#define PENDING 1024

static LDAP *w, *s;
static char dn[600];
static long seq;
static struct MHD_Daemon *d;

/* a request: 0 new, 1 sent (suspended), 2 answered by slapd */
struct req {
	int state, code;
	int msgid;
	struct MHD_Connection *c;
};
static struct req *pending[PENDING];

static int
send_modify(struct req *q)
{
	char rid[64], entry[256], refund[96], used[] = "1", *v0[] = { used, NULL };
	char *v1[] = { rid, NULL }, *v2[] = { entry, NULL }, *v3[] = { refund, NULL };
	char *attrs[] = { "privUsed", "privCredit", "privHeld", "entryCSN", NULL };
	LDAPMod m0 = { LDAP_MOD_INCREMENT, "privUsed", { v0 } };
	/* replaced, not added: privd moves a busy account's ledger out in
	 * segments, so its entry stays small; this one must not grow either */
	LDAPMod m1 = { LDAP_MOD_REPLACE, "privRequest", { v1 } };
	LDAPMod m2 = { LDAP_MOD_REPLACE, "privEntry", { v2 } };
	LDAPMod m3 = { LDAP_MOD_REPLACE, "privRefund", { v3 } };
	LDAPMod *mods[] = { &m0, &m1, &m2, &m3, NULL };
	LDAPControl *ac = NULL, *rc = NULL, *ctrls[3] = { NULL, NULL, NULL };
	BerElement *ber = ber_alloc_t(LBER_USE_DER);
	struct berval bv;
	int r = -1;

	snprintf(rid, sizeof(rid), "floor-%ld", seq);
	snprintf(entry, sizeof(entry), "{\"actor\":\"bench\",\"amount\":1,\"id\":\"%s\","
	    "\"kind\":\"charge\",\"requested\":1,\"time\":\"2026-12-03T00:00:00.%06ldZ\"}",
	    rid, seq % 1000000);
	snprintf(refund, sizeof(refund), "%s 0", rid);
	seq++;
	if (ber == NULL || ber_printf(ber, "{v}", attrs) == -1 || ber_flatten2(ber, &bv, 0) != 0 ||
	    ldap_control_create(LDAP_CONTROL_POST_READ, 0, &bv, 1, &rc) != LDAP_SUCCESS ||
	    ldap_create_assertion_control(w, "(&(privUsed<=999999999)(privCredit=0))", 1,
	    &ac) != LDAP_SUCCESS)
		goto done;
	ctrls[0] = ac;
	ctrls[1] = rc;
	if (ldap_modify_ext(w, dn, mods, ctrls, NULL, &q->msgid) == LDAP_SUCCESS) {
		pending[q->msgid % PENDING] = q;
		r = 0;
	}
done:
	ldap_control_free(ac);
	ldap_control_free(rc);
	if (ber != NULL)
		ber_free(ber, 1);
	return r;
}

static enum MHD_Result
answer(void *cls, struct MHD_Connection *c, const char *url, const char *method,
    const char *version, const char *data, size_t *size, void **state)
{
	static char ok[] = "{\"request_id\":\"x\",\"charged\":1}\n";
	struct req *q = *state;
	struct MHD_Response *r;
	enum MHD_Result ret;

	(void)cls; (void)url; (void)method; (void)version; (void)data;
	if (q == NULL) {
		if ((q = calloc(1, sizeof(*q))) == NULL)
			return MHD_NO;
		q->c = c;
		*state = q;
		return MHD_YES;
	}
	if (*size != 0) {
		*size = 0;	/* the body is not read: every charge is the same */
		return MHD_YES;
	}
	if (q->state == 0) {
		if (send_modify(q) != 0)
			return MHD_NO;
		q->state = 1;
		MHD_suspend_connection(c);
		return MHD_YES;
	}
	r = MHD_create_response_from_buffer(sizeof(ok) - 1, ok, MHD_RESPMEM_PERSISTENT);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
	ret = MHD_queue_response(c, q->code == LDAP_SUCCESS ? 201 : 409, r);
	MHD_destroy_response(r);
	return ret;
}

static void
completed(void *cls, struct MHD_Connection *c, void **state, enum MHD_RequestTerminationCode t)
{
	(void)cls; (void)c; (void)t;
	free(*state);
	*state = NULL;
}

/* what slapd answered: each result resumes its request; 1 if one did */
static int
results(void)
{
	struct timeval zero = { 0, 0 };
	LDAPMessage *res;
	LDAPControl **ctrls;
	struct req *q;
	int err, resumed = 0;

	while (ldap_result(w, LDAP_RES_ANY, LDAP_MSG_ALL, &zero, &res) > 0) {
		q = pending[ldap_msgid(res) % PENDING];
		ctrls = NULL;
		err = LDAP_OTHER;
		ldap_parse_result(w, res, &err, NULL, NULL, NULL, &ctrls, 1);
		/* the post-read is what privd answers from */
		(void)ldap_control_find(LDAP_CONTROL_POST_READ, ctrls, NULL);
		ldap_controls_free(ctrls);
		if (q != NULL && q->state == 1) {
			pending[q->msgid % PENDING] = NULL;
			q->code = err;
			q->state = 2;
			MHD_resume_connection(q->c);
			resumed = 1;
		}
	}
	return resumed;
}

/* the usage stream: every message that has arrived, read and dropped */
static void
stream(void)
{
	struct timeval zero = { 0, 0 };
	LDAPMessage *res;

	while (ldap_result(s, LDAP_RES_ANY, LDAP_MSG_RECEIVED, &zero, &res) > 0)
		ldap_msgfree(res);
}

int
main(int argc, char **argv)
{
	struct epoll_event ev, got[8];
	const union MHD_DaemonInfo *di;
	struct berval bv;
	BerElement *ber;
	LDAPControl sync, *sc[2] = { &sync, NULL };
	char *attrs[] = { "privUsed", "privCredit", "privHeld", "privSegments", "entryCSN", NULL };
	MHD_UNSIGNED_LONG_LONG t;
	int ep, wfd, sfd, msgid, i, n, run;

	if (argc != 6) {
		fprintf(stderr, "usage: chargefloor PORT URI BINDDN PASSWORD USAGE_BASE\n");
		return 2;
	}
	if ((w = bench_bind(argv[2], argv[3], argv[4])) == NULL ||
	    (s = bench_bind(argv[2], argv[3], argv[4])) == NULL)
		return 1;
	bench_usage_entry(w, argv[5], "floor1");
	snprintf(dn, sizeof(dn), "cn=print.pages@all,uid=floor1,%s", argv[5]);
	/* the usage stream, refreshed before the first request is taken */
	if ((ber = ber_alloc_t(LBER_USE_DER)) == NULL ||
	    ber_printf(ber, "{eb}", (ber_int_t)LDAP_SYNC_REFRESH_AND_PERSIST, 0) < 0 ||
	    ber_flatten2(ber, &bv, 0) != 0)
		return 1;
	sync.ldctl_oid = LDAP_CONTROL_SYNC;
	sync.ldctl_value = bv;
	sync.ldctl_iscritical = 1;
	if (ldap_search_ext(s, argv[5], LDAP_SCOPE_SUBTREE, "(objectClass=privUsage)", attrs, 0,
	    sc, NULL, NULL, 0, &msgid) != LDAP_SUCCESS)
		return 1;
	ber_free(ber, 1);
	for (;;) {
		LDAPMessage *res;

		if (ldap_result(s, LDAP_RES_ANY, LDAP_MSG_ONE, NULL, &res) <= 0)
			return 1;
		n = ldap_msgtype(res) == LDAP_RES_INTERMEDIATE;
		ldap_msgfree(res);
		if (n)
			break;
	}
	d = MHD_start_daemon(MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME, (uint16_t)atoi(argv[1]),
	    NULL, NULL, answer, NULL, MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
	    MHD_OPTION_CONNECTION_LIMIT, 1024U, MHD_OPTION_END);
	if (d == NULL || (di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_EPOLL_FD)) == NULL)
		return 1;
	ldap_get_option(w, LDAP_OPT_DESC, &wfd);
	ldap_get_option(s, LDAP_OPT_DESC, &sfd);
	if ((ep = epoll_create1(0)) < 0)
		return 1;
	ev.events = EPOLLIN;
	ev.data.fd = di->epoll_fd;
	epoll_ctl(ep, EPOLL_CTL_ADD, di->epoll_fd, &ev);
	ev.data.fd = wfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, wfd, &ev);
	ev.data.fd = sfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev);
	for (;;) {
		/* libmicrohttpd may hold work its epoll no longer shows */
		if (MHD_get_timeout(d, &t) != MHD_YES || t > 1000)
			t = 1000;
		if ((n = epoll_wait(ep, got, 8, (int)t)) < 0)
			continue;
		/* libmicrohttpd runs when its epoll is ready, a request was
		 * resumed, or it asked for a time: fewer system calls a charge */
		run = n == 0;
		for (i = 0; i < n; i++)
			if (got[i].data.fd == wfd)
				run |= results();
			else if (got[i].data.fd == sfd)
				stream();
			else
				run = 1;
		if (run)
			MHD_run(d);
	}
}

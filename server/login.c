/*
 * login.c - HTTP Basic for administrators. privd keeps no passwords: it
 * binds as the person, and every admin write is made on that bind, so the
 * directory's own ACLs decide. Failures are counted per client address and
 * a burst of them is refused for a minute.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lber.h>
#include <ldap.h>
#include <nettle/base64.h>

#include "ldapconn.h"
#include "login.h"
#include "path.h"

/*
 * Failures are kept per exact address: a table full of addresses that
 * failed within the window takes no new one (the sign-in is refused), so
 * no address can push another's count out. Besides, all sign-ins share a
 * rate: each costs two LDAP operations, and a campus has many addresses.
 */
#define TRACKED 4096
#define MAX_FAILS 10		/* per address and window */
#define WINDOW_S 60
#define RATE_PER_S 20		/* sign-ins a second, from everyone together */
#define RATE_BURST 40

static struct {
	char addr[64];
	time_t since;
	int fails;
} seen[TRACKED];
static double tokens = RATE_BURST;
static struct timespec refilled;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Whether addr may try again; counts a failure when failed. */
static int
allowed(const char *addr, int failed)
{
	time_t now = time(NULL);
	int i, at = -1, spare = -1, ok;

	pthread_mutex_lock(&lock);
	for (i = 0; i < TRACKED && at < 0; i++) {
		if (seen[i].addr[0] != '\0' && strcmp(seen[i].addr, addr) == 0)
			at = i;
		else if (spare < 0 && (seen[i].addr[0] == '\0' || now - seen[i].since >= WINDOW_S))
			spare = i;
	}
	if (at >= 0 && now - seen[at].since >= WINDOW_S) {
		seen[at].since = now;
		seen[at].fails = 0;
	}
	if (at < 0 && failed && spare >= 0) {
		at = spare;
		snprintf(seen[at].addr, sizeof(seen[at].addr), "%s", addr);
		seen[at].since = now;
		seen[at].fails = 0;
	}
	if (at < 0)
		/* never failed here; or the table is full of recent failures, and
		 * a failure that cannot be counted is not allowed */
		ok = !failed && spare >= 0;
	else {
		if (failed)
			seen[at].fails++;
		ok = seen[at].fails < MAX_FAILS;
	}
	pthread_mutex_unlock(&lock);
	return ok;
}

/* Takes one sign-in from the rate everyone shares; 0 when there is none. */
static int
take_rate(void)
{
	struct timespec now;
	int ok;

	pthread_mutex_lock(&lock);
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (refilled.tv_sec == 0)
		refilled = now;
	tokens += ((double)(now.tv_sec - refilled.tv_sec) +
	    (now.tv_nsec - refilled.tv_nsec) / 1e9) * RATE_PER_S;
	if (tokens > RATE_BURST)
		tokens = RATE_BURST;
	refilled = now;
	ok = tokens >= 1;
	if (ok)
		tokens -= 1;
	pthread_mutex_unlock(&lock);
	return ok;
}

static int
find_dn(const struct cfg *c, const char *uid, char *out, size_t n, struct err *e)
{
	char *attrs[] = { "1.1", NULL }, filter[256];
	struct berval in = { strlen(uid), (char *)uid }, esc = { 0, NULL };
	LDAPMessage *res = NULL, *m;
	LDAP *ld;
	char *dn;
	int rc;

	if (ldap_bv2escaped_filter_value(&in, &esc) != 0)
		return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
	snprintf(filter, sizeof(filter), "(%s=%s)", c->uid_attr, esc.bv_val);
	ber_memfree(esc.bv_val);
	if (ldapc_open(c, NULL, NULL, &ld, e) != 0)
		return -1;
	rc = ldapc_search(ld, c, c->people_dn, LDAP_SCOPE_SUBTREE, filter, attrs, 2, &res, e);
	if (rc == 0 && ldap_count_entries(ld, res) == 1 && (m = ldap_first_entry(ld, res)) &&
	    (dn = ldap_get_dn(ld, m)) != NULL) {
		snprintf(out, n, "%s", dn);
		ldap_memfree(dn);
	} else if (rc >= 0)
		rc = err_set(e, ERR_FORBIDDEN, 0, NULL, "unknown user or wrong password");
	ldap_msgfree(res);
	ldapc_close(ld);
	return rc == 0 ? 0 : -1;
}

int
login_basic(const struct cfg *c, const char *header, const char *addr,
    struct login *l, struct err *e)
{
	struct base64_decode_ctx ctx;
	char buf[LOGIN_PW_MAX + 80], *colon;
	size_t n = sizeof(buf) - 1, len;
	int rc;

	memset(l, 0, sizeof(*l));
	if (!allowed(addr, 0))
		return err_set(e, ERR_CONFLICT, 0, NULL, "too many failed logins from %s; "
		    "wait a minute", addr);
	header += strlen("Basic ");
	len = strlen(header);
	base64_decode_init(&ctx);
	if (len > 4 * (sizeof(buf) - 1) / 3 ||
	    !base64_decode_update(&ctx, &n, (uint8_t *)buf, len, header) ||
	    !base64_decode_final(&ctx))
		return err_set(e, ERR_INVALID, 0, NULL, "malformed Basic credentials");
	buf[n] = '\0';
	if ((colon = strchr(buf, ':')) == NULL || strlen(buf) != n)
		return err_set(e, ERR_INVALID, 0, NULL, "malformed Basic credentials");
	*colon = '\0';
	rc = login_password(c, buf, colon + 1, addr, l, e);
	explicit_bzero(buf, sizeof(buf));
	return rc;
}

int
login_password(const struct cfg *c, const char *uid, const char *password,
    const char *addr, struct login *l, struct err *e)
{
	LDAP *ld;

	memset(l, 0, sizeof(*l));
	if (!allowed(addr, 0))
		return err_set(e, ERR_CONFLICT, 0, NULL, "too many failed logins from %s; "
		    "wait a minute", addr);
	if (!take_rate())
		return err_set(e, ERR_CONFLICT, 0, NULL, "more than %d sign-ins a second from "
		    "everyone together; try again in a second", RATE_PER_S);
	if (uid_check(uid, NULL) != 0 || password[0] == '\0' ||
	    strlen(password) >= sizeof(l->password)) {
		allowed(addr, 1);
		return err_set(e, ERR_FORBIDDEN, 0, NULL, "unknown user or wrong password");
	}
	/* both lengths were checked above */
	memcpy(l->uid, uid, strnlen(uid, sizeof(l->uid) - 1));
	memcpy(l->password, password, strnlen(password, sizeof(l->password) - 1));
	if (find_dn(c, l->uid, l->dn, sizeof(l->dn), e) != 0)
		goto fail;
	if (ldapc_open(c, l->dn, l->password, &ld, e) != 0) {
		if (e->code != ERR_UNAVAILABLE || strstr(e->msg, "refused") != NULL)
			err_set(e, ERR_FORBIDDEN, 0, NULL, "unknown user or wrong password");
		goto fail;
	}
	ldapc_close(ld);
	return 0;
fail:
	if (e->code == ERR_FORBIDDEN)
		allowed(addr, 1);
	memset(l->password, 0, sizeof(l->password));
	return -1;
}

int
login_allowed(const char *addr)
{
	return allowed(addr, 0);
}

void
login_failed(const char *addr)
{
	allowed(addr, 1);
}

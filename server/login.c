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

#define SLOTS 256
#define MAX_FAILS 10		/* per address and window */
#define WINDOW_S 60

static struct {
	char addr[64];
	time_t since;
	int fails;
} slots[SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned
slot_of(const char *addr)
{
	unsigned h = 2166136261u;

	while (*addr)
		h = (h ^ (unsigned char)*addr++) * 16777619u;
	return h % SLOTS;
}

/* Whether addr may try again; counts a failure when failed. */
static int
allowed(const char *addr, int failed)
{
	unsigned i = slot_of(addr);
	time_t now = time(NULL);
	int ok;

	pthread_mutex_lock(&lock);
	if (strcmp(slots[i].addr, addr) != 0 || now - slots[i].since >= WINDOW_S) {
		snprintf(slots[i].addr, sizeof(slots[i].addr), "%s", addr);
		slots[i].since = now;
		slots[i].fails = 0;
	}
	if (failed)
		slots[i].fails++;
	ok = slots[i].fails < MAX_FAILS;
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

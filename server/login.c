/*
 * login.c - people by HTTP Basic or the web page's sign-in. privd keeps no
 * passwords: it binds as the person to prove the password, and nothing
 * more; what they may then do is authz.c's. How often anyone may sign in is loginrate.c's.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lber.h>
#include <ldap.h>
#include <nettle/base64.h>
#include <nettle/memops.h>
#include <nettle/sha2.h>
#include <sys/random.h>

#include "ldapconn.h"
#include "login.h"
#include "loginrate.h"
#include "path.h"

/*
 * A person who sends Basic on every request signs in once: a successful
 * bind is remembered for CACHE_S by a salted SHA-256 of uid and password
 * (never the password), so later requests neither bind again nor spend the
 * sign-in budgets (loginrate.h). A changed password stops working within
 * CACHE_S; a wrong one is never remembered.
 */
#define CACHE_SLOTS 1024
#define CACHE_S 30

static struct {
	unsigned char digest[SHA256_DIGEST_SIZE];
	char dn[LOGIN_DN_MAX];
	time_t until;
} cache[CACHE_SLOTS];
static unsigned char salt[32];
static pthread_once_t salted = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void
make_salt(void)
{
	if (getrandom(salt, sizeof(salt), 0) != (ssize_t)sizeof(salt))
		memset(salt, 0, sizeof(salt));	/* still unguessable: never leaves privd */
}

static unsigned
digest_of(const char *uid, const char *password, unsigned char out[SHA256_DIGEST_SIZE])
{
	struct sha256_ctx h;
	unsigned slot;

	pthread_once(&salted, make_salt);
	sha256_init(&h);
	sha256_update(&h, sizeof(salt), salt);
	sha256_update(&h, strlen(uid) + 1, (const uint8_t *)uid);
	sha256_update(&h, strlen(password), (const uint8_t *)password);
	sha256_digest(&h, SHA256_DIGEST_SIZE, out);
	memcpy(&slot, out, sizeof(slot));
	return slot % CACHE_SLOTS;
}

/* 1 and l->dn when uid and password signed in within CACHE_S. */
static int
cached(struct login *l)
{
	unsigned char d[SHA256_DIGEST_SIZE];
	unsigned slot = digest_of(l->uid, l->password, d);
	int hit;

	pthread_mutex_lock(&lock);
	hit = cache[slot].until > time(NULL) && memeql_sec(cache[slot].digest, d, sizeof(d));
	if (hit)
		snprintf(l->dn, sizeof(l->dn), "%s", cache[slot].dn);
	pthread_mutex_unlock(&lock);
	return hit;
}

static void
remember(const struct login *l)
{
	unsigned char d[SHA256_DIGEST_SIZE];
	unsigned slot = digest_of(l->uid, l->password, d);

	pthread_mutex_lock(&lock);
	memcpy(cache[slot].digest, d, sizeof(d));
	snprintf(cache[slot].dn, sizeof(cache[slot].dn), "%s", l->dn);
	cache[slot].until = time(NULL) + CACHE_S;
	pthread_mutex_unlock(&lock);
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
	if (!loginrate_allowed(addr))
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
	rc = -1;
	if (uid_check(buf, NULL) == 0 && colon[1] != '\0' && strlen(colon + 1) < sizeof(l->password)) {
		memcpy(l->uid, buf, strnlen(buf, sizeof(l->uid) - 1));
		memcpy(l->password, colon + 1, strlen(colon + 1));
		rc = cached(l) ? 0 : -1;
	}
	if (rc != 0 && (rc = login_password(c, buf, colon + 1, addr, l, e)) == 0)
		remember(l);
	explicit_bzero(buf, sizeof(buf));
	return rc;
}

int
login_password(const struct cfg *c, const char *uid, const char *password,
    const char *addr, struct login *l, struct err *e)
{
	LDAP *ld;

	char why[160];

	memset(l, 0, sizeof(*l));
	if (!loginrate_allowed(addr))
		return err_set(e, ERR_CONFLICT, 0, NULL, "too many failed logins from %s; "
		    "wait a minute", addr);
	if (loginrate_take(addr, uid, why, sizeof(why)) != 0)
		return err_set(e, ERR_CONFLICT, 0, NULL, "%s", why);
	if (uid_check(uid, NULL) != 0 || password[0] == '\0' ||
	    strlen(password) >= sizeof(l->password)) {
		loginrate_failed(addr);
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
	loginrate_signed_in(l->uid);
	return 0;
fail:
	if (e->code == ERR_FORBIDDEN)
		loginrate_failed(addr);
	memset(l->password, 0, sizeof(l->password));
	return -1;
}

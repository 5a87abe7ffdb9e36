/* token.c - signing and checking the web page's sign-in tokens. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <nettle/hmac.h>
#include <nettle/memops.h>

#include "hex.h"
#include "path.h"
#include "token.h"

/*
 * The key and the administrators in force: the configuration's at start,
 * replaced by token_use on a reload, so that a new key ends every token
 * signed with the old one and a removed administrator stops being one.
 */
static pthread_rwlock_t live_lock = PTHREAD_RWLOCK_INITIALIZER;
static char *live_key;
static char **live_admins;
static size_t live_nadmins;
static int live_set;

static void
drop_live(void)
{
	size_t i;

	if (live_key != NULL)
		explicit_bzero(live_key, strlen(live_key));
	free(live_key);
	for (i = 0; i < live_nadmins; i++)
		free(live_admins[i]);
	free(live_admins);
	live_key = NULL;
	live_admins = NULL;
	live_nadmins = 0;
}

int
token_use(const struct cfg *c)
{
	char *key = c->ui_token_key ? strdup(c->ui_token_key) : NULL;
	char **admins = calloc(c->nui_admins + 1, sizeof(*admins));
	size_t i;

	if ((c->ui_token_key && key == NULL) || admins == NULL)
		goto fail;
	for (i = 0; i < c->nui_admins; i++)
		if ((admins[i] = strdup(c->ui_admins[i])) == NULL)
			goto fail;
	pthread_rwlock_wrlock(&live_lock);
	drop_live();
	live_key = key;
	live_admins = admins;
	live_nadmins = c->nui_admins;
	live_set = 1;
	pthread_rwlock_unlock(&live_lock);
	return 0;
fail:
	for (i = 0; admins && i < c->nui_admins; i++)
		free(admins[i]);
	free(admins);
	free(key);
	return -1;
}

void
token_forget(void)
{
	pthread_rwlock_wrlock(&live_lock);
	drop_live();
	live_set = 0;
	pthread_rwlock_unlock(&live_lock);
}

/* Called with live_lock held for reading. */
static const char *
key_of(const struct cfg *c)
{
	return live_set ? live_key : c->ui_token_key;
}

static void
sign(const char *key, const char *msg, size_t len, char hex[2 * SHA256_DIGEST_SIZE + 1])
{
	unsigned char d[SHA256_DIGEST_SIZE];
	struct hmac_sha256_ctx ctx;

	hmac_sha256_set_key(&ctx, strlen(key), (const uint8_t *)key);
	hmac_sha256_update(&ctx, len, (const uint8_t *)msg);
	hmac_sha256_digest(&ctx, SHA256_DIGEST_SIZE, d);
	hex_encode(d, SHA256_DIGEST_SIZE, hex);
}

int
token_make(const struct cfg *c, const char *uid, int admin, time_t now,
    char out[TOKEN_MAX], time_t *expires)
{
	char hex[2 * SHA256_DIGEST_SIZE + 1];
	const char *key;
	int n, rc = -1;

	pthread_rwlock_rdlock(&live_lock);
	if ((key = key_of(c)) == NULL || uid_check(uid, NULL) != 0)
		goto done;
	*expires = now + c->ui_token_ttl_s;
	n = snprintf(out, TOKEN_MAX, "pt1~%s~%d~%lld", uid, admin ? 1 : 0, (long long)*expires);
	if (n < 0 || n + 2 + 2 * SHA256_DIGEST_SIZE >= TOKEN_MAX)
		goto done;
	sign(key, out, (size_t)n, hex);
	snprintf(out + n, TOKEN_MAX - n, "~%s", hex);
	rc = 0;
done:
	pthread_rwlock_unlock(&live_lock);
	return rc;
}

int
token_check(const struct cfg *c, const char *text, time_t now, struct token *t)
{
	char hex[2 * SHA256_DIGEST_SIZE + 1], uid[65];
	const char *sig;
	long long exp;
	int admin, used = 0;
	size_t len;

	memset(t, 0, sizeof(*t));
	if ((len = strlen(text)) >= TOKEN_MAX || (sig = strrchr(text, '~')) == NULL ||
	    strlen(sig + 1) != 2 * SHA256_DIGEST_SIZE)
		return -1;
	pthread_rwlock_rdlock(&live_lock);
	if (key_of(c) == NULL) {
		pthread_rwlock_unlock(&live_lock);
		return -1;
	}
	sign(key_of(c), text, (size_t)(sig - text), hex);
	pthread_rwlock_unlock(&live_lock);
	if (!memeql_sec(hex, sig + 1, 2 * SHA256_DIGEST_SIZE))
		return -1;
	/* signed by privd: the fields are as token_make wrote them */
	if (sscanf(text, "pt1~%64[A-Za-z0-9._-]~%d~%lld%n", uid, &admin, &exp, &used) != 3 ||
	    text + used != sig || exp <= (long long)now)
		return -1;
	snprintf(t->uid, sizeof(t->uid), "%s", uid);
	t->admin = admin == 1;
	t->expires = (time_t)exp;
	t->issued = t->expires - c->ui_token_ttl_s;
	return 0;
}

int
token_admin(const struct cfg *c, const char *uid)
{
	size_t i;
	int found = 0;

	pthread_rwlock_rdlock(&live_lock);
	if (live_set) {
		for (i = 0; i < live_nadmins && !found; i++)
			found = strcasecmp(live_admins[i], uid) == 0;
	} else
		for (i = 0; i < c->nui_admins && !found; i++)
			found = strcasecmp(c->ui_admins[i], uid) == 0;
	pthread_rwlock_unlock(&live_lock);
	return found;
}

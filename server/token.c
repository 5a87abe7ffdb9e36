/* token.c - signing and checking the web page's sign-in tokens. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <nettle/hmac.h>
#include <nettle/memops.h>

#include "path.h"
#include "token.h"

static void
sign(const struct cfg *c, const char *msg, size_t len, char hex[2 * SHA256_DIGEST_SIZE + 1])
{
	static const char digits[] = "0123456789abcdef";
	unsigned char d[SHA256_DIGEST_SIZE];
	struct hmac_sha256_ctx ctx;
	int i;

	hmac_sha256_set_key(&ctx, strlen(c->ui_token_key), (const uint8_t *)c->ui_token_key);
	hmac_sha256_update(&ctx, len, (const uint8_t *)msg);
	hmac_sha256_digest(&ctx, SHA256_DIGEST_SIZE, d);
	for (i = 0; i < SHA256_DIGEST_SIZE; i++) {
		hex[2 * i] = digits[d[i] >> 4];
		hex[2 * i + 1] = digits[d[i] & 15];
	}
	hex[2 * SHA256_DIGEST_SIZE] = '\0';
}

int
token_make(const struct cfg *c, const char *uid, int admin, time_t now,
    char out[TOKEN_MAX], time_t *expires)
{
	char hex[2 * SHA256_DIGEST_SIZE + 1];
	int n;

	if (c->ui_token_key == NULL || uid_check(uid, NULL) != 0)
		return -1;
	*expires = now + c->ui_token_ttl_s;
	n = snprintf(out, TOKEN_MAX, "pt1~%s~%d~%lld", uid, admin ? 1 : 0, (long long)*expires);
	if (n < 0 || n + 2 + 2 * SHA256_DIGEST_SIZE >= TOKEN_MAX)
		return -1;
	sign(c, out, (size_t)n, hex);
	snprintf(out + n, TOKEN_MAX - n, "~%s", hex);
	return 0;
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
	if (c->ui_token_key == NULL || (len = strlen(text)) >= TOKEN_MAX ||
	    (sig = strrchr(text, '~')) == NULL || strlen(sig + 1) != 2 * SHA256_DIGEST_SIZE)
		return -1;
	sign(c, text, (size_t)(sig - text), hex);
	if (!memeql_sec(hex, sig + 1, 2 * SHA256_DIGEST_SIZE))
		return -1;
	/* signed by privd: the fields are as token_make wrote them */
	if (sscanf(text, "pt1~%64[A-Za-z0-9._-]~%d~%lld%n", uid, &admin, &exp, &used) != 3 ||
	    text + used != sig || exp <= (long long)now)
		return -1;
	snprintf(t->uid, sizeof(t->uid), "%s", uid);
	t->admin = admin == 1;
	t->expires = (time_t)exp;
	return 0;
}

int
token_admin(const struct cfg *c, const char *uid)
{
	size_t i;

	for (i = 0; i < c->nui_admins; i++)
		if (strcasecmp(c->ui_admins[i], uid) == 0)
			return 1;
	return 0;
}

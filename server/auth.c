/* auth.c - checking API keys without leaking which byte differed. */
#include <string.h>
#include <strings.h>

#include <nettle/memops.h>
#include <nettle/sha2.h>

#include "auth.h"
#include "hex.h"

static void
hash(const char *key, size_t len, unsigned char out[SHA256_DIGEST_SIZE])
{
	struct sha256_ctx ctx;

	sha256_init(&ctx);
	sha256_update(&ctx, len, (const uint8_t *)key);
	sha256_digest(&ctx, SHA256_DIGEST_SIZE, out);
}

const struct cfg_key *
auth_bearer(const struct cfg *c, const char *header)
{
	unsigned char digest[SHA256_DIGEST_SIZE];
	const struct cfg_key *found = NULL;
	const char *key;
	size_t i, len;

	if (header == NULL || strncasecmp(header, "Bearer ", 7) != 0)
		return NULL;
	key = header + 7;
	while (*key == ' ')
		key++;
	len = strlen(key);
	while (len > 0 && key[len - 1] == ' ')
		len--;
	if (len == 0 || len > 512)
		return NULL;
	hash(key, len, digest);
	/* look at every key so timing does not say which one matched */
	for (i = 0; i < c->nkeys; i++)
		if (memeql_sec(digest, c->keys[i].sha256, SHA256_DIGEST_SIZE) && found == NULL)
			found = &c->keys[i];
	return found;
}

void
auth_hash_hex(const char *key, char out[65])
{
	unsigned char d[SHA256_DIGEST_SIZE];

	hash(key, strlen(key), d);
	hex_encode(d, SHA256_DIGEST_SIZE, out);
}

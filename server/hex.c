/* hex.c - bytes as lower-case hex: key digests, nonces, ledger ids, entryUUIDs. */
#include "hex.h"

void
hex_encode(const unsigned char *d, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[d[i] >> 4];
		out[2 * i + 1] = digits[d[i] & 15];
	}
	out[2 * n] = '\0';
}

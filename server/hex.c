/* hex.c - bytes as lower-case hex: key digests, nonces, ledger ids, entryUUIDs. */
#include <string.h>

#include "hex.h"

static int
digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
hex_decode(const char *s, unsigned char *out, size_t n)
{
	size_t i;

	memset(out, 0, n);
	for (i = 0; s[2 * i] != '\0'; i++) {
		int hi = digit(s[2 * i]), lo;

		if (i >= n || hi < 0 || (lo = digit(s[2 * i + 1])) < 0)
			return -1;
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

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

/* hex.h - bytes as lower-case hex. */
#ifndef PRIVD_HEX_H
#define PRIVD_HEX_H

#include <stddef.h>

/* n bytes of d as 2n lower-case hex digits and a NUL into out. */
void hex_encode(const unsigned char *d, size_t n, char *out);
/* The hex digits of s (either case) as bytes into out[0..n-1], the rest
 * of out zeroed: 0, or -1 when s holds a non-digit, an odd count or more
 * than n bytes. */
int hex_decode(const char *s, unsigned char *out, size_t n);

#endif

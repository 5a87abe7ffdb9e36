/* hex.h - bytes as lower-case hex. */
#ifndef PRIVD_HEX_H
#define PRIVD_HEX_H

#include <stddef.h>

/* n bytes of d as 2n lower-case hex digits and a NUL into out. */
void hex_encode(const unsigned char *d, size_t n, char *out);

#endif

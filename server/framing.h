/*
 * framing.h - whether a request's headers can be read one way only, by a
 * proxy in front and by libmicrohttpd alike; checked before its body is read.
 */
#ifndef PRIVD_FRAMING_H
#define PRIVD_FRAMING_H

#include <microhttpd.h>

/* What makes conn's request readable two ways, for a 400 that closes the
 * connection; NULL when its framing is plain. line: the bytes of its request
 * line as sent, CRLF included (0: unknown, not counted). */
const char *framing_ambiguous(struct MHD_Connection *conn, size_t line);

#endif

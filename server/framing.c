/*
 * framing.c - the headers of a request, checked before its body is read
 * (framing.h): a request smuggled inside another's body would otherwise be
 * answered.
 */
#include <string.h>
#include <strings.h>

#include "framing.h"

struct framing {
	int content_length, transfer_encoding;
	const char *bad;	/* a header line that is not strictly "name: value" */
	size_t strict;		/* the bytes of the lines seen, each as "name: value\r\n" */
};

/* Whether c may stand in a header's name (RFC 9110's tchar). */
static int
tchar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

static enum MHD_Result
check_header(void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size,
    const char *value, size_t value_size)
{
	struct framing *f = cls;
	size_t i;

	(void)kind;
	if (key_size == 0)
		f->bad = "a header line with no name (a line folded onto the one before?)";
	for (i = 0; i < key_size && f->bad == NULL; i++)
		if (!tchar((unsigned char)key[i]))
			f->bad = key[i] == ' ' || key[i] == '\t' ?
			    "whitespace in a header's name (before its colon?)" :
			    "a header name with a character a name cannot hold";
	for (i = 0; value != NULL && i < value_size && f->bad == NULL; i++) {
		unsigned char c = (unsigned char)value[i];

		/* a NUL, a bare CR or LF (a folded line), any other control */
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			f->bad = "a control character (NUL, CR, LF) in a header's value";
	}
	/* libmicrohttpd joins a folded line onto the name before it: a framing
	 * header folded ("Transfer-Encoding:\r\n chunked") arrives inside one */
	if (f->bad == NULL && (strcasestr(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) != NULL ||
	    strcasestr(key, MHD_HTTP_HEADER_CONTENT_LENGTH) != NULL) &&
	    strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) != 0 &&
	    strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) != 0)
		f->bad = "a framing header folded onto another line";
	if (f->bad == NULL && strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0 &&
	    (value == NULL || value_size == 0 || strspn(value, "0123456789") != value_size))
		f->bad = "a Content-Length that is not a number";
	if (f->bad != NULL)
		return MHD_NO;
	f->strict += key_size + 2 + value_size + 2;
	if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0)
		f->content_length++;
	else if (strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0)
		f->transfer_encoding++;
	return MHD_YES;
}

/*
 * A request whose headers a proxy in front and libmicrohttpd could read
 * two ways is refused before its body is read, on a connection that then
 * closes: a request smuggled inside its body would otherwise be answered.
 * That is every header line that is not strictly "name: value" (whitespace
 * before the colon, a folded line, a NUL or other control byte), two
 * Content-Lengths, and any Transfer-Encoding: libmicrohttpd reads chunk
 * lines ended by a bare LF, and no proxy need agree, so privd reads bodies
 * framed by Content-Length only (as its clients, and curl, send them).
 * NULL when the framing is plain.
 */
const char *
framing_ambiguous(struct MHD_Connection *conn, size_t line)
{
	const union MHD_ConnectionInfo *ci;
	struct framing f = { 0, 0, NULL, 0 };

	MHD_get_connection_values_n(conn, MHD_HEADER_KIND, check_header, &f);
	if (f.bad != NULL)
		return f.bad;
	/*
	 * What libmicrohttpd hides: it cuts a value at a NUL and joins a folded
	 * line onto the name before it, and the bytes it read are then more
	 * than the lines it shows, written strictly, can hold.
	 */
	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
	if (line > 0 && ci != NULL && ci->header_size > line + f.strict + 2)
		return "header bytes privd cannot see (a NUL byte, a folded line, or more than "
		    "one space around a value)";
	if (f.content_length && f.transfer_encoding)
		return "both Content-Length and Transfer-Encoding";
	if (f.content_length > 1)
		return "more than one Content-Length";
	if (f.transfer_encoding)
		return "a Transfer-Encoding (privd reads bodies framed by Content-Length only)";
	return NULL;
}

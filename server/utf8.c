/*
 * utf8.c - the one place messages that echo input are made valid UTF-8
 * (utf8.h): jansson refuses a string that is not, and an answer built from
 * one came out as a 500 with no body.
 */
#include <stddef.h>
#include <string.h>

#include "utf8.h"

/* The length of the well-formed character at s (1-4); 0 when s starts
 * none; -k when s holds only the first k bytes of one (a cut). */
static int
char_len(const unsigned char *s)
{
	unsigned c = s[0];
	unsigned long cp;
	int n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -i;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void
utf8_clean(char *s)
{
	unsigned char *p = (unsigned char *)s;

	while (*p) {
		int n = char_len(p);

		if (n < 0) {
			/* the start of a character cut off (at the end, or where a
			 * %.64s stopped inside a message): dropped */
			memmove(p, p - n, strlen((char *)p - n) + 1);
			continue;
		}
		if (n == 0 || (n == 1 && (*p < 0x20 || *p == 0x7f))) {
			*p++ = '?';
			continue;
		}
		p += n;
	}
}

/* textbuf.c - a growing text for answers built line by line (metrics, CSV). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textbuf.h"

void
textbuf_add(struct textbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->failed)
		return;
	for (;;) {
		char *np;
		size_t nc;

		va_start(ap, fmt);
		n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->failed = 1;
			return;
		}
		if (b->p != NULL && (size_t)n < b->cap - b->len) {
			b->len += (size_t)n;
			return;
		}
		nc = (b->cap + (size_t)n + 1) * 2;
		if ((np = realloc(b->p, nc)) == NULL) {
			b->failed = 1;
			return;
		}
		b->p = np;
		b->cap = nc;
	}
}

char *
textbuf_take(struct textbuf *b)
{
	char *p = b->failed ? NULL : b->p;

	if (b->failed)
		free(b->p);
	memset(b, 0, sizeof(*b));
	return p;
}

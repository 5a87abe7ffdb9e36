/* textbuf.h - a text that grows as printf appends to it: answers built line by line. */
#ifndef PRIVD_TEXTBUF_H
#define PRIVD_TEXTBUF_H

#include <stddef.h>

struct textbuf {
	char *p;		/* NUL-terminated once anything was added */
	size_t len, cap;
	int failed;		/* out of memory: every later add does nothing */
};

/* Appends a formatted string. */
void textbuf_add(struct textbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The text (the caller frees it), or NULL when an add failed or none came;
 * b is empty afterwards. */
char *textbuf_take(struct textbuf *b);

#endif

/* err.c - filling a struct err, its text always valid UTF-8 (utf8.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "utf8.h"

int
err_set(struct err *e, enum err_code code, int line, const char *key,
    const char *fmt, ...)
{
	va_list ap;

	if (e == NULL)
		return -1;
	e->code = code;
	e->why = ERR_WHY_NONE;
	e->line = line;
	snprintf(e->key, sizeof(e->key), "%s", key ? key : "");
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	/* both may echo input, cut at their size: whole characters only */
	utf8_clean(e->key);
	utf8_clean(e->msg);
	return -1;
}

int
err_why(struct err *e, enum err_why why)
{
	if (e != NULL)
		e->why = why;
	return -1;
}

int
err_oom(struct err *e)
{
	return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
}

/* body.h - request bodies: a JSON object checked field by field (jansson). */
#ifndef PRIVD_BODY_H
#define PRIVD_BODY_H

#include <stddef.h>

#include <jansson.h>

#include "err.h"

/*
 * Each function checks one thing and, on failure, returns -1 (or NULL)
 * with e->key naming the field and e->msg saying what was expected; the
 * API answers that as 400.
 */

/* text as a JSON object whose keys are all in allowed (NULL-terminated). */
json_t *body_object(const char *text, size_t len, const char *const *allowed,
    struct err *e);
/* A request id field: 1 to 128 of [A-Za-z0-9._:-]; absent is fine when opt. */
int body_id(json_t *o, const char *name, int opt, const char **out, struct err *e);
/* An integer field in [min, max]; absent gives def, unless def < 0 (required). */
int body_int(json_t *o, const char *name, long long min, long long max,
    long long def, long long *out, struct err *e);
/* A boolean field; absent is false. */
int body_bool(json_t *o, const char *name, int *out, struct err *e);
/* A string field of at most max bytes; absent gives NULL unless required. */
int body_str(json_t *o, const char *name, size_t max, int required,
    const char **out, struct err *e);
/* "metadata": an object, as compact JSON text (malloc'd) or NULL. */
int body_meta(json_t *o, char **out, struct err *e);

#endif

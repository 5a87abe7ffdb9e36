/* body.c - checking JSON request bodies field by field, with errors naming the field. */
#include <stdlib.h>
#include <string.h>

#include "body.h"
#include "lentry.h"
#include "reqid.h"

json_t *
body_object(const char *text, size_t len, const char *const *allowed, struct err *e)
{
	json_error_t je;
	const char *k;
	json_t *o, *v;
	size_t i;

	if (len == 0) {
		err_set(e, ERR_INVALID, 0, "body", "the body must be a JSON object");
		return NULL;
	}
	if ((o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je)) == NULL) {
		err_set(e, ERR_INVALID, 0, "body", "the body is not JSON: %s (at %d:%d)",
		    je.text, je.line, je.column);
		return NULL;
	}
	if (!json_is_object(o)) {
		json_decref(o);
		err_set(e, ERR_INVALID, 0, "body", "the body must be a JSON object");
		return NULL;
	}
	json_object_foreach(o, k, v) {
		for (i = 0; allowed[i] && strcmp(allowed[i], k) != 0; i++)
			;
		if (allowed[i] == NULL) {
			err_set(e, ERR_INVALID, 0, k, "unknown field '%.64s'", k);
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

int
body_id(json_t *o, const char *name, int opt, const char **out, struct err *e)
{
	json_t *v = json_object_get(o, name);

	*out = NULL;
	if (v == NULL && opt)
		return 0;
	if (v == NULL || !json_is_string(v) || !reqid_ok(json_string_value(v)))
		return err_set(e, ERR_INVALID, 0, name,
		    "%s must be a string of 1 to %d letters, digits, '.', '_', ':' or '-'",
		    name, REQID_MAX);
	*out = json_string_value(v);
	return 0;
}

int
body_int(json_t *o, const char *name, long long min, long long max, long long def,
    long long *out, struct err *e)
{
	json_t *v = json_object_get(o, name);

	if (v == NULL && def >= 0) {
		*out = def;
		return 0;
	}
	if (v == NULL || !json_is_integer(v) || json_integer_value(v) < min ||
	    json_integer_value(v) > max)
		return err_set(e, ERR_INVALID, 0, name, "%s must be a whole number from %lld to %lld",
		    name, min, max);
	*out = json_integer_value(v);
	return 0;
}

int
body_bool(json_t *o, const char *name, int *out, struct err *e)
{
	json_t *v = json_object_get(o, name);

	*out = 0;
	if (v == NULL)
		return 0;
	if (!json_is_boolean(v))
		return err_set(e, ERR_INVALID, 0, name, "%s must be true or false", name);
	*out = json_is_true(v);
	return 0;
}

int
body_str(json_t *o, const char *name, size_t max, int required, const char **out,
    struct err *e)
{
	json_t *v = json_object_get(o, name);

	*out = NULL;
	if (v == NULL && !required)
		return 0;
	if (v == NULL || !json_is_string(v) || json_string_length(v) == 0 ||
	    json_string_length(v) > max || strlen(json_string_value(v)) != json_string_length(v))
		return err_set(e, ERR_INVALID, 0, name, "%s must be a string of 1 to %zu bytes",
		    name, max);
	*out = json_string_value(v);
	return 0;
}

int
body_meta(json_t *o, char **out, struct err *e)
{
	json_t *v = json_object_get(o, "metadata");

	*out = NULL;
	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_object(v))
		return err_set(e, ERR_INVALID, 0, "metadata", "metadata must be a JSON object");
	*out = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
	if (*out == NULL || strlen(*out) > LENTRY_META_MAX) {
		free(*out);
		*out = NULL;
		return err_set(e, ERR_INVALID, 0, "metadata",
		    "metadata must be at most %d bytes as JSON", LENTRY_META_MAX);
	}
	return 0;
}

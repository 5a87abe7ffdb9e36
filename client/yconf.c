/* yconf.c - YAML config files of privd's clients, read with libyaml. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rfile.h"
#include "ybound.h"
#include "yconf.h"

int
yconf_fail(struct yconf *y, const yaml_node_t *node, const char *fmt, ...)
{
	char msg[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(y->err, y->nerr, "%s:%zu: %s", y->path,
	    node ? node->start_mark.line + 1 : 1, msg);
	return -1;
}

int
yconf_load(struct yconf *y, const char *path, int missing_ok, char *err, size_t nerr)
{
	yaml_parser_t p;
	char *text = NULL, msg[200];
	size_t len = 0;
	int rc = -1, line;

	memset(y, 0, sizeof(*y));
	y->path = path;
	y->err = err;
	y->nerr = nerr;
	/* a configuration file is small: read whole, bounded before it is loaded */
	if (rfile_read(path, YCONF_MAX, &text, &len, msg, sizeof(msg)) != 0) {
		if (errno == ENOENT && missing_ok)
			return 1;
		snprintf(err, nerr, "%s: %s", path, msg);
		return -1;
	}
	if (ybound_check(text, len, &line, msg, sizeof(msg)) != 0) {
		free(text);
		snprintf(err, nerr, "%s:%d: %s", path, line, msg);
		return -1;
	}
	if (!yaml_parser_initialize(&p)) {
		free(text);
		snprintf(err, nerr, "%s: out of memory", path);
		return -1;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	if (!yaml_parser_load(&p, &y->doc)) {
		snprintf(err, nerr, "%s:%zu: %s", path, p.problem_mark.line + 1,
		    p.problem ? p.problem : "not YAML");
		goto out;
	}
	y->root = yaml_document_get_root_node(&y->doc);
	if (y->root != NULL && y->root->type != YAML_MAPPING_NODE) {
		yconf_fail(y, y->root, "expected a mapping of keys and values");
		yaml_document_delete(&y->doc);
		goto out;
	}
	rc = 0;
out:
	yaml_parser_delete(&p);
	free(text);
	if (rc != 0)
		memset(&y->doc, 0, sizeof(y->doc));
	return rc;
}

void
yconf_free(struct yconf *y)
{
	if (y->path != NULL && (y->doc.nodes.start != NULL))
		yaml_document_delete(&y->doc);
	memset(&y->doc, 0, sizeof(y->doc));
	y->root = NULL;
}

yaml_node_t *
yconf_node(struct yconf *y, int id)
{
	return yaml_document_get_node(&y->doc, id);
}

const char *
yconf_scalar(struct yconf *y, const yaml_node_t *v, const char *key)
{
	if (v == NULL || v->type != YAML_SCALAR_NODE) {
		yconf_fail(y, v, "%s: expected a single value", key);
		return NULL;
	}
	return (const char *)v->data.scalar.value;
}

int
yconf_long(struct yconf *y, const yaml_node_t *v, const char *key, long min,
    long max, long *out)
{
	const char *s = yconf_scalar(y, v, key);
	char *end;
	long n;

	if (s == NULL)
		return -1;
	errno = 0;
	n = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno != 0 || n < min || n > max)
		return yconf_fail(y, v, "%s: '%s' is not a whole number from %ld to %ld",
		    key, s, min, max);
	*out = n;
	return 0;
}

static int
add_url(struct yconf *y, const yaml_node_t *v, struct yconf_privd *p, size_t *n)
{
	const char *s = yconf_scalar(y, v, "urls");
	char **nu, *u;
	size_t l;

	if (s == NULL)
		return -1;
	if (strncmp(s, "http://", 7) != 0 && strncmp(s, "https://", 8) != 0)
		return yconf_fail(y, v, "urls: '%s' is not an http:// or https:// URL", s);
	if ((nu = realloc(p->urls, (*n + 2) * sizeof(*nu))) == NULL ||
	    (p->urls = nu, u = strdup(s)) == NULL)
		return yconf_fail(y, v, "out of memory");
	/* no trailing slash: paths start with one */
	for (l = strlen(u); l > 8 && u[l - 1] == '/'; l--)
		u[l - 1] = '\0';
	p->urls[(*n)++] = u;
	p->urls[*n] = NULL;
	return 0;
}

int
yconf_privd_key(struct yconf *y, const char *key, const yaml_node_t *v,
    struct yconf_privd *p)
{
	size_t n = 0;
	const char *s;

	if (strcmp(key, "url") == 0 || strcmp(key, "urls") == 0) {
		if (p->urls != NULL)
			return yconf_fail(y, v, "%s: privd's URLs are given twice", key);
		if (v != NULL && v->type == YAML_SEQUENCE_NODE) {
			yaml_node_item_t *it;

			for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++)
				if (add_url(y, yconf_node(y, *it), p, &n) != 0)
					return -1;
			if (n == 0)
				return yconf_fail(y, v, "%s: no URL in the list", key);
			return 1;
		}
		return add_url(y, v, p, &n) == 0 ? 1 : -1;
	}
	if (strcmp(key, "key_file") == 0) {
		if ((s = yconf_scalar(y, v, key)) == NULL)
			return -1;
		if (s[0] != '/')
			return yconf_fail(y, v, "key_file: '%s' is not an absolute path", s);
		free(p->key_file);
		if ((p->key_file = strdup(s)) == NULL)
			return yconf_fail(y, v, "out of memory");
		return 1;
	}
	if (strcmp(key, "timeout_ms") == 0)
		return yconf_long(y, v, key, 100, 600000, &p->timeout_ms) == 0 ? 1 : -1;
	return 0;
}

void
yconf_privd_free(struct yconf_privd *p)
{
	size_t i;

	for (i = 0; p->urls && p->urls[i]; i++)
		free(p->urls[i]);
	free(p->urls);
	free(p->key_file);
	memset(p, 0, sizeof(*p));
}

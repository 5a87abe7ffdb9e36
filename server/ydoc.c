/* ydoc.c - loading YAML with libyaml and reading its nodes safely. */
#include <string.h>

#include "strmap.h"
#include "ybound.h"
#include "ydoc.h"

int
ydoc_load(yaml_document_t *doc, const char *text, size_t len, struct err *e)
{
	yaml_parser_t p;
	char msg[200];
	int ok, line;

	if (ybound_check(text, len, &line, msg, sizeof(msg)) != 0)
		return err_set(e, ERR_INVALID, line, NULL, "%s", msg);
	if (!yaml_parser_initialize(&p))
		return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	ok = yaml_parser_load(&p, doc);
	if (!ok) {
		int line = (int)(p.problem_mark.line + 1);

		err_set(e, ERR_INVALID, line, NULL, "YAML syntax: %s%s%s",
		    p.problem ? p.problem : "error",
		    p.context ? " " : "", p.context ? p.context : "");
		yaml_parser_delete(&p);
		return -1;
	}
	yaml_parser_delete(&p);
	if (yaml_document_get_root_node(doc) == NULL) {
		yaml_document_delete(doc);
		return err_set(e, ERR_INVALID, 1, NULL, "empty document");
	}
	return 0;
}

int
ydoc_line(const yaml_node_t *n)
{
	return (int)n->start_mark.line + 1;
}

const char *
ydoc_str(const yaml_node_t *n)
{
	if (n == NULL || n->type != YAML_SCALAR_NODE)
		return NULL;
	return (const char *)n->data.scalar.value;
}

const char *
ydoc_quotable(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n > 48 || strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789_.-/@") != n)
		return "(not shown: is this a file of privd's?)";
	return s;
}

int
ydoc_is_null(const yaml_node_t *n)
{
	const char *s;

	if (n == NULL || n->type != YAML_SCALAR_NODE ||
	    n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	s = ydoc_str(n);
	return *s == '\0' || strcmp(s, "~") == 0 || strcmp(s, "null") == 0;
}

int
ydoc_is_map(const yaml_node_t *n)
{
	return n != NULL && n->type == YAML_MAPPING_NODE;
}

int
ydoc_is_seq(const yaml_node_t *n)
{
	return n != NULL && n->type == YAML_SEQUENCE_NODE;
}

yaml_node_t *
ydoc_get(yaml_document_t *doc, int id)
{
	return yaml_document_get_node(doc, id);
}

int
ydoc_check_map(yaml_document_t *doc, const yaml_node_t *map, const char *what,
    struct err *e)
{
	struct strmap seen;
	int rc = 0, failed;

	strmap_init(&seen);
	YDOC_PAIRS(map, p) {
		yaml_node_t *k = ydoc_get(doc, p->key);
		const char *ks = ydoc_str(k);

		if (ks == NULL) {
			rc = err_set(e, ERR_INVALID, ydoc_line(k), what,
			    "%s: keys must be plain strings", what);
			break;
		}
		if (strmap_put(&seen, ks, k, &failed) != NULL) {
			rc = err_set(e, ERR_INVALID, ydoc_line(k), ks,
			    "%s: key '%.100s' given twice", what, ks);
			break;
		}
		if (failed) {
			rc = err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
			break;
		}
	}
	strmap_free(&seen);
	return rc;
}

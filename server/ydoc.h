/* ydoc.h - a YAML document loaded with libyaml, walked with line numbers. */
#ifndef PRIVD_YDOC_H
#define PRIVD_YDOC_H

#include <stddef.h>
#include <yaml.h>

#include "err.h"

/* Loads the first document of text into doc (freed by yaml_document_delete).
 * A syntax error or an empty text is -1 with e->line set. */
int ydoc_load(yaml_document_t *doc, const char *text, size_t len,
    struct err *e);

/* 1-based line of a node. */
int ydoc_line(const yaml_node_t *n);
/* The scalar's text, or NULL when n is not a scalar. */
const char *ydoc_str(const yaml_node_t *n);
/*
 * An unknown key as an error may quote it: s when it is shaped like a key
 * someone wrote (1-48 of A-Z a-z 0-9 _ . - / @), else a placeholder. A file
 * that is no YAML of privd's (/etc/shadow named as a model) parses as keys
 * of its own lines, and an error must quote none of it.
 */
const char *ydoc_quotable(const char *s);
/* Whether a scalar was written without quotes and is empty or "~"/"null". */
int ydoc_is_null(const yaml_node_t *n);
int ydoc_is_map(const yaml_node_t *n);
int ydoc_is_seq(const yaml_node_t *n);
yaml_node_t *ydoc_get(yaml_document_t *doc, int id);

/*
 * Checks that a mapping has no key twice and that every key is a scalar;
 * -1 and e naming the key and line otherwise. what names the mapping.
 */
int ydoc_check_map(yaml_document_t *doc, const yaml_node_t *map,
    const char *what, struct err *e);

#define YDOC_PAIRS(n, p) \
	for (yaml_node_pair_t *p = (n)->data.mapping.pairs.start; \
	    p < (n)->data.mapping.pairs.top; p++)
#define YDOC_ITEMS(n, it) \
	for (yaml_node_item_t *it = (n)->data.sequence.items.start; \
	    it < (n)->data.sequence.items.top; it++)

#endif

/* ybound.c - bounds on a YAML text's depth and alias expansion, from libyaml's events. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "ybound.h"

struct anchor {
	char *name;
	unsigned long long size;	/* nodes, aliases expanded */
};

/* an open collection, and where the expanded count stood when it began */
struct frame {
	const char *anchor;	/* the collection's anchor, or NULL */
	unsigned long long start;
};

static int
too_much(int *line, char *msg, size_t n, const yaml_event_t *ev, const char *fmt,
    unsigned long long v)
{
	*line = (int)ev->start_mark.line + 1;
	snprintf(msg, n, fmt, v);
	return -1;
}

static int
add_anchor(struct anchor *a, size_t *na, const char *name, unsigned long long size)
{
	size_t i;

	for (i = 0; i < *na; i++)
		if (strcmp(a[i].name, name) == 0) {
			/* redefined: later aliases mean the new one */
			a[i].size = size;
			return 0;
		}
	if ((a[*na].name = strdup(name)) == NULL)
		return -1;
	a[(*na)++].size = size;
	return 0;
}

int
ybound_check(const char *text, size_t len, int *line, char *msg, size_t n)
{
	struct anchor *anchors = calloc(YBOUND_ANCHORS, sizeof(*anchors));
	struct frame stack[YBOUND_DEPTH + 1];
	unsigned long long written = 0, expanded = 0;
	size_t nanchors = 0, i;
	int depth = 0, rc = 0, done = 0;
	yaml_parser_t p;
	yaml_event_t ev;

	*line = 0;
	msg[0] = '\0';
	if (anchors == NULL || !yaml_parser_initialize(&p)) {
		free(anchors);
		snprintf(msg, n, "out of memory");
		return -1;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	while (!done && rc == 0) {
		const char *anchor = NULL;

		if (!yaml_parser_parse(&p, &ev))
			break;	/* a syntax error: the loader names it */
		switch (ev.type) {
		case YAML_SCALAR_EVENT:
			written++;
			expanded++;
			anchor = (const char *)ev.data.scalar.anchor;
			if (anchor && nanchors == YBOUND_ANCHORS)
				rc = too_much(line, msg, n, &ev, "more than %llu YAML anchors",
				    YBOUND_ANCHORS);
			else if (anchor && add_anchor(anchors, &nanchors, anchor, 1) != 0)
				rc = too_much(line, msg, n, &ev, "out of memory%.0llu", 0);
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (depth == YBOUND_DEPTH) {
				rc = too_much(line, msg, n, &ev, "YAML nested more than %llu deep",
				    YBOUND_DEPTH);
				break;
			}
			written++;
			expanded++;
			anchor = ev.type == YAML_SEQUENCE_START_EVENT ?
			    (const char *)ev.data.sequence_start.anchor :
			    (const char *)ev.data.mapping_start.anchor;
			if (anchor && nanchors == YBOUND_ANCHORS) {
				rc = too_much(line, msg, n, &ev, "more than %llu YAML anchors",
				    YBOUND_ANCHORS);
				break;
			}
			/* the event owns the name until it is deleted: keep a copy */
			stack[depth].anchor = anchor ? strdup(anchor) : NULL;
			stack[depth].start = expanded - 1;
			depth++;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			if (depth == 0)
				break;
			depth--;
			if (stack[depth].anchor != NULL) {
				if (add_anchor(anchors, &nanchors, stack[depth].anchor,
				    expanded - stack[depth].start) != 0)
					rc = too_much(line, msg, n, &ev, "out of memory%.0llu", 0);
				free((char *)stack[depth].anchor);
			}
			break;
		case YAML_ALIAS_EVENT:
			written++;
			for (i = 0; i < (size_t)depth; i++)
				if (stack[i].anchor && strcmp(stack[i].anchor,
				    (const char *)ev.data.alias.anchor) == 0)
					break;
			if (i < (size_t)depth) {
				/* libyaml would load a cycle, and a reader walk it for ever */
				rc = too_much(line, msg, n, &ev, "a YAML alias inside the node it "
				    "names%.0llu", 0);
				break;
			}
			for (i = 0; i < nanchors; i++)
				if (strcmp(anchors[i].name, (const char *)ev.data.alias.anchor) == 0)
					break;
			/* an unknown anchor: the loader names it */
			expanded += i < nanchors ? anchors[i].size : 1;
			break;
		case YAML_DOCUMENT_END_EVENT:
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		default:
			break;
		}
		if (rc == 0 && expanded > YBOUND_FACTOR * written + YBOUND_SLACK)
			rc = too_much(line, msg, n, &ev, "YAML aliases expand to more than %llu "
			    "nodes: write the values out, or use fewer aliases",
			    YBOUND_FACTOR * written + YBOUND_SLACK);
		yaml_event_delete(&ev);
	}
	while (depth > 0)
		free((char *)stack[--depth].anchor);
	for (i = 0; i < nanchors; i++)
		free(anchors[i].name);
	free(anchors);
	yaml_parser_delete(&p);
	return rc;
}

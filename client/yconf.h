/*
 * yconf.h - the YAML files of privd's clients (privctl's config, the CUPS
 * backend's and the PAM module's): loading with "file:line: reason"
 * errors, and the keys that say where privd is (urls, key_file, timeout_ms).
 */
#ifndef PRIVD_YCONF_H
#define PRIVD_YCONF_H

#include <stddef.h>

#include <yaml.h>

#define YCONF_MAX (1 << 20)	/* bytes of one configuration file */

struct yconf {
	const char *path;
	yaml_document_t doc;
	yaml_node_t *root;	/* a mapping, or NULL for an empty file */
	char *err;		/* where messages go */
	size_t nerr;
};

/* Where privd is. */
struct yconf_privd {
	char **urls;		/* NULL-terminated, malloc'd */
	char *key_file;
	long timeout_ms;	/* 0 when not given */
};

/*
 * Loads path; the top must be a mapping (or nothing). 0, 1 when the file
 * does not exist (only if missing_ok), or -1 with the message in err.
 */
int yconf_load(struct yconf *y, const char *path, int missing_ok, char *err,
    size_t nerr);
void yconf_free(struct yconf *y);

/* -1 after writing "path:LINE: message" (LINE of node) into y->err. */
int yconf_fail(struct yconf *y, const yaml_node_t *node, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

yaml_node_t *yconf_node(struct yconf *y, int id);
/* A scalar's text, or NULL (after yconf_fail naming key) for another node. */
const char *yconf_scalar(struct yconf *y, const yaml_node_t *v, const char *key);
/* A whole number in [min, max] (error names key). */
int yconf_long(struct yconf *y, const yaml_node_t *v, const char *key, long min,
    long max, long *out);

/*
 * If key is one of url, urls, key_file, timeout_ms: stores it in p and
 * returns 1 (or -1 on a bad value). 0 for any other key.
 */
int yconf_privd_key(struct yconf *y, const char *key, const yaml_node_t *v,
    struct yconf_privd *p);
void yconf_privd_free(struct yconf_privd *p);

#endif

/*
 * cfgread.h - reading YAML values into a configuration (config.c): typed
 * readers that name the key and its line on error, and a table of the
 * scalar settings, so a new one is a line in the table, not a parser.
 */
#ifndef PRIVD_CFGREAD_H
#define PRIVD_CFGREAD_H

#include <stddef.h>

#include <yaml.h>

#include "err.h"

struct cfg;

/* A configuration being read. */
struct cfgr {
	yaml_document_t *doc;
	struct cfg *c;
	struct err *e;
	/* the first of the repository's development secrets met, and where */
	int dev_line;
	const char *dev_what;
	/* a model test's reading (cfg_load_model): the files the settings name
	 * (secrets, certificates, templates) are not opened */
	int no_files;
};

/* e: ERR_INVALID at n's line for key, the message fmt with arg; -1. */
int cfgr_bad(struct cfgr *x, const yaml_node_t *n, const char *key, const char *fmt,
    const char *arg);
/* v as a string (borrowed), or NULL and an error naming key. */
const char *cfgr_str(struct cfgr *x, const yaml_node_t *v, const char *key);
/* v as a string copied into *out (freeing what it held). */
int cfgr_dup(struct cfgr *x, const yaml_node_t *v, const char *key, char **out);
/* v as a whole number in lo..hi. */
int cfgr_int(struct cfgr *x, const yaml_node_t *v, const char *key, long lo, long hi,
    long *out);
/* v as true/false (yes/no). */
int cfgr_bool(struct cfgr *x, const yaml_node_t *v, const char *key, int *out);
/* v as a DN libldap can parse, copied into *out. */
int cfgr_dn(struct cfgr *x, const yaml_node_t *v, const char *key, char **out);
/* Whether v is a mapping (the section key). */
int cfgr_map(struct cfgr *x, const yaml_node_t *v, const char *key);
/* The error for key k, unknown in section. */
int cfgr_unknown(struct cfgr *x, const yaml_node_t *k, const char *section);
/* v as the path of a readable file, copied into *out. */
int cfgr_file(struct cfgr *x, const yaml_node_t *v, const char *what, char **out);
/* v as one of names[0..n-1]: its index into *out. */
int cfgr_pick(struct cfgr *x, const yaml_node_t *v, const char *key, const char *const *names,
    int n, int *out);

enum cfgr_type {
	CFGR_INT, CFGR_LLONG, CFGR_SIZE, CFGR_BOOL, CFGR_DN, CFGR_FILE, CFGR_PICK,
};

/* Whether a running privd takes a setting's new value on a reload (SIGHUP). */
enum cfgr_when {
	CFGR_UNMARKED = 0,	/* a row that forgot to say: a unit test fails */
	CFGR_RELOADS,		/* the new value is used at once (numbers only) */
	CFGR_RESTART,		/* kept until a restart; a reload names it when it changed */
};

/* A scalar setting: one row of a table (config.c keeps privd's). */
struct cfgr_setting {
	const char *name;	/* "section.key" */
	enum cfgr_type type;
	size_t off;		/* where it goes in the structure being filled */
	long lo, hi;		/* numbers */
	const char *const *names;	/* CFGR_PICK: the words, in the order of their values */
	int nnames;
	enum cfgr_when when;
};

/*
 * Sets setting k of section (into base) from v when the table holds it,
 * range, type and all: 1 set, 0 not one of them, -1 and x->e.
 */
int cfgr_scalar(struct cfgr *x, const struct cfgr_setting *settings, size_t n_settings,
    void *base, const char *section, const yaml_node_t *k, const yaml_node_t *v);

#endif

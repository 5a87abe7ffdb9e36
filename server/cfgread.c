/*
 * cfgread.c - typed YAML readers and the table of scalar settings
 * (cfgread.h), in the manner of Redis's config.c: each setting a row of
 * name, type, place in struct cfg and bounds.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ldap.h>

#include "cfgread.h"
#include "ydoc.h"

int
cfgr_bad(struct cfgr *x, const yaml_node_t *n, const char *key, const char *fmt,
    const char *arg)
{
	char msg[ERR_MSG_MAX];

	snprintf(msg, sizeof(msg), fmt, arg);
	return err_set(x->e, ERR_INVALID, n ? ydoc_line(n) : 0, key, "%s", msg);
}

const char *
cfgr_str(struct cfgr *x, const yaml_node_t *v, const char *key)
{
	const char *s = ydoc_str(v);

	if (s == NULL || ydoc_is_null(v)) {
		cfgr_bad(x, v, key, "%s: expected a string", key);
		return NULL;
	}
	return s;
}

int
cfgr_dup(struct cfgr *x, const yaml_node_t *v, const char *key, char **out)
{
	const char *s = cfgr_str(x, v, key);

	if (s == NULL)
		return -1;
	free(*out);
	if ((*out = strdup(s)) == NULL)
		return err_set(x->e, ERR_INTERNAL, 0, NULL, "out of memory");
	return 0;
}

int
cfgr_int(struct cfgr *x, const yaml_node_t *v, const char *key, long lo,
    long hi, long *out)
{
	const char *s = ydoc_str(v);
	char *end;
	long n;

	if (s == NULL || v->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return cfgr_bad(x, v, key, "%s: expected a whole number", key);
	errno = 0;
	n = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0')
		return cfgr_bad(x, v, key, "%s: expected a whole number", key);
	if (n < lo || n > hi) {
		char msg[160];

		snprintf(msg, sizeof(msg), "%%s: %ld is out of range %ld..%ld", n, lo, hi);
		return cfgr_bad(x, v, key, msg, key);
	}
	*out = n;
	return 0;
}

int
cfgr_bool(struct cfgr *x, const yaml_node_t *v, const char *key, int *out)
{
	const char *s = ydoc_str(v);

	if (s != NULL && v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
		if (strcmp(s, "true") == 0 || strcmp(s, "yes") == 0) {
			*out = 1;
			return 0;
		}
		if (strcmp(s, "false") == 0 || strcmp(s, "no") == 0) {
			*out = 0;
			return 0;
		}
	}
	return cfgr_bad(x, v, key, "%s: expected true or false", key);
}

int
cfgr_dn(struct cfgr *x, const yaml_node_t *v, const char *key, char **out)
{
	LDAPDN dn = NULL;

	if (cfgr_dup(x, v, key, out) != 0)
		return -1;
	if (ldap_str2dn(*out, &dn, LDAP_DN_FORMAT_LDAPV3) != LDAP_SUCCESS)
		return cfgr_bad(x, v, key, "%s: not a valid DN", key);
	ldap_dnfree(dn);
	return 0;
}

int
cfgr_map(struct cfgr *x, const yaml_node_t *v, const char *key)
{
	if (!ydoc_is_map(v))
		return cfgr_bad(x, v, key, "%s: expected a mapping", key);
	return ydoc_check_map(x->doc, v, key, x->e);
}

int
cfgr_unknown(struct cfgr *x, const yaml_node_t *k, const char *section)
{
	char msg[300];

	snprintf(msg, sizeof(msg), "unknown key '%.100s' in %s", ydoc_str(k), section);
	return cfgr_bad(x, k, ydoc_str(k), "%s", msg);
}

/* A path to a readable file. */
int
cfgr_file(struct cfgr *x, const yaml_node_t *v, const char *what, char **out)
{
	FILE *f;

	if (cfgr_dup(x, v, what, out) != 0)
		return -1;
	if ((f = fopen(*out, "r")) == NULL) {
		char msg[400];

		snprintf(msg, sizeof(msg), "%s: cannot read '%.200s': %s", what, *out, strerror(errno));
		return cfgr_bad(x, v, what, "%s", msg);
	}
	fclose(f);
	return 0;
}

int
cfgr_pick(struct cfgr *x, const yaml_node_t *v, const char *key, const char *const *names,
    int n, int *out)
{
	const char *s = cfgr_str(x, v, key);
	char msg[200];
	int i;

	if (s == NULL)
		return -1;
	for (i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = i;
			return 0;
		}
	snprintf(msg, sizeof(msg), "%%s: unknown value '%.40s'", s);
	return cfgr_bad(x, v, key, msg, key);
}

enum type { T_INT, T_LLONG, T_SIZE, T_BOOL, T_DN, T_FILE, T_PICK };

struct setting {
	const char *name;	/* "section.key" */
	enum type type;
	size_t off;		/* in struct cfg */
	long lo, hi;		/* numbers */
	const char *const *names;	/* T_PICK: the words, in the order of their values */
	int nnames;
};

static const char *const titles_names[] = { "keep", "hash", "drop" };

#define AT(f)	offsetof(struct cfg, f)

static const struct setting settings[] = {
	{ "http.threads", T_INT, AT(threads), 1, 64, NULL, 0 },
	{ "http.max_body", T_SIZE, AT(max_body), 1024, 64L << 20, NULL, 0 },
	{ "http.connection_timeout", T_INT, AT(conn_timeout_s), 1, 3600, NULL, 0 },
	{ "http.connection_limit", T_INT, AT(conn_limit), 1, 100000, NULL, 0 },
	{ "http.connections_per_address", T_INT, AT(conns_per_addr), 1, 100000, NULL, 0 },
	{ "http.request_timeout", T_INT, AT(request_timeout_s), 1, 3600, NULL, 0 },
	{ "http.shutdown_grace", T_INT, AT(shutdown_grace_s), 1, 600, NULL, 0 },
	{ "http.metrics_public", T_BOOL, AT(metrics_public), 0, 0, NULL, 0 },
	{ "http.tls_cert", T_FILE, AT(tls_cert), 0, 0, NULL, 0 },
	{ "http.tls_key", T_FILE, AT(tls_key), 0, 0, NULL, 0 },
	{ "ldap.bind_dn", T_DN, AT(bind_dn), 0, 0, NULL, 0 },
	{ "ldap.base", T_DN, AT(base_dn), 0, 0, NULL, 0 },
	{ "ldap.people", T_DN, AT(people_dn), 0, 0, NULL, 0 },
	{ "ldap.create_people", T_BOOL, AT(create_people), 0, 0, NULL, 0 },
	{ "ldap.away_allowance", T_LLONG, AT(away_allowance), 0, 1000000000L, NULL, 0 },
	{ "ldap.timeout", T_INT, AT(ldap_timeout_s), 1, 300, NULL, 0 },
	{ "ldap.starttls", T_BOOL, AT(ldap_starttls), 0, 0, NULL, 0 },
	{ "ldap.ca_file", T_FILE, AT(ldap_ca_file), 0, 0, NULL, 0 },
	{ "ldap.tls_verify", T_BOOL, AT(ldap_tls_verify), 0, 0, NULL, 0 },
	{ "ldap.startup_timeout", T_INT, AT(startup_timeout_s), 0, 86400, NULL, 0 },
	{ "ldap.bulk_timeout", T_INT, AT(ldap_bulk_timeout_s), 1, 3600, NULL, 0 },
	{ "ldap.reconnect_max_ms", T_INT, AT(reconnect_max_ms), 10, 3600000, NULL, 0 },
	{ "model.reasons_leaf_only", T_BOOL, AT(reason_leaf_only), 0, 0, NULL, 0 },
	{ "ledger.titles", T_PICK, AT(ledger_titles), 0, 0, titles_names, 3 },
	{ "ledger.self_read", T_BOOL, AT(ledger_self_read), 0, 0, NULL, 0 },
	{ "ledger.retention", T_INT, AT(ledger_retention), 0, 1000, NULL, 0 },
	{ "imports.stale_after", T_INT, AT(import_stale_after_s), 1, 30 * 86400, NULL, 0 },
	{ "sessions.ttl", T_INT, AT(session_ttl_s), 60, 7 * 86400, NULL, 0 },
	{ "ui.token_ttl", T_INT, AT(ui_token_ttl_s), 60, 86400, NULL, 0 },
};

int
cfgr_scalar(struct cfgr *x, const char *section, const yaml_node_t *k, const yaml_node_t *v)
{
	const char *ks = ydoc_str(k);
	char name[128];
	char *at;
	size_t i;
	long n;

	if (ks == NULL || snprintf(name, sizeof(name), "%s.%s", section, ks) >= (int)sizeof(name))
		return 0;
	for (i = 0; i < sizeof(settings) / sizeof(settings[0]); i++)
		if (strcmp(settings[i].name, name) == 0)
			break;
	if (i == sizeof(settings) / sizeof(settings[0]))
		return 0;
	at = (char *)x->c + settings[i].off;
	switch (settings[i].type) {
	case T_INT:
	case T_LLONG:
	case T_SIZE:
		if (cfgr_int(x, v, settings[i].name, settings[i].lo, settings[i].hi, &n) != 0)
			return -1;
		if (settings[i].type == T_INT)
			*(int *)at = (int)n;
		else if (settings[i].type == T_LLONG)
			*(long long *)at = n;
		else
			*(size_t *)at = (size_t)n;
		return 1;
	case T_BOOL:
		return cfgr_bool(x, v, settings[i].name, (int *)at) != 0 ? -1 : 1;
	case T_DN:
		return cfgr_dn(x, v, settings[i].name, (char **)at) != 0 ? -1 : 1;
	case T_FILE:
		return cfgr_file(x, v, settings[i].name, (char **)at) != 0 ? -1 : 1;
	case T_PICK:
		return cfgr_pick(x, v, settings[i].name, settings[i].names, settings[i].nnames,
		    (int *)at) != 0 ? -1 : 1;
	}
	return 0;
}

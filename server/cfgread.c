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

	snprintf(msg, sizeof(msg), "unknown key '%.100s' in %s", ydoc_quotable(ydoc_str(k)),
	    section);
	return cfgr_bad(x, k, ydoc_quotable(ydoc_str(k)), "%s", msg);
}

/* A path to a readable file. */
int
cfgr_file(struct cfgr *x, const yaml_node_t *v, const char *what, char **out)
{
	FILE *f;

	if (cfgr_dup(x, v, what, out) != 0)
		return -1;
	if (x->no_files)
		return 0;
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
	char msg[400];
	size_t len;
	int i;

	if (s == NULL)
		return -1;
	for (i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = i;
			return 0;
		}
	/* say what it may be */
	len = (size_t)snprintf(msg, sizeof(msg), "%%s: unknown value '%.40s' (one of", s);
	for (i = 0; i < n && len < sizeof(msg); i++)
		len += (size_t)snprintf(msg + len, sizeof(msg) - len, "%s %s", i ? "," : "",
		    names[i]);
	if (len < sizeof(msg))
		snprintf(msg + len, sizeof(msg) - len, ")");
	return cfgr_bad(x, v, key, msg, key);
}

int
cfgr_scalar(struct cfgr *x, const struct cfgr_setting *settings, size_t n_settings,
    void *base, const char *section, const yaml_node_t *k, const yaml_node_t *v)
{
	const char *ks = ydoc_str(k);
	char name[128];
	char *at;
	size_t i;
	long n;

	if (ks == NULL || snprintf(name, sizeof(name), "%s.%s", section, ks) >= (int)sizeof(name))
		return 0;
	for (i = 0; i < n_settings; i++)
		if (strcmp(settings[i].name, name) == 0)
			break;
	if (i == n_settings)
		return 0;
	at = (char *)base + settings[i].off;
	switch (settings[i].type) {
	case CFGR_INT:
	case CFGR_LLONG:
	case CFGR_SIZE:
		if (cfgr_int(x, v, settings[i].name, settings[i].lo, settings[i].hi, &n) != 0)
			return -1;
		if (settings[i].type == CFGR_INT)
			*(int *)at = (int)n;
		else if (settings[i].type == CFGR_LLONG)
			*(long long *)at = n;
		else
			*(size_t *)at = (size_t)n;
		return 1;
	case CFGR_BOOL:
		return cfgr_bool(x, v, settings[i].name, (int *)at) != 0 ? -1 : 1;
	case CFGR_DN:
		return cfgr_dn(x, v, settings[i].name, (char **)at) != 0 ? -1 : 1;
	case CFGR_FILE:
		return cfgr_file(x, v, settings[i].name, (char **)at) != 0 ? -1 : 1;
	case CFGR_PICK:
		return cfgr_pick(x, v, settings[i].name, settings[i].names, settings[i].nnames,
		    (int *)at) != 0 ? -1 : 1;
	}
	return 0;
}

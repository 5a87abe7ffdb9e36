/* config.c - parsing and checking the YAML configuration with libyaml. */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ldap.h>

#include "hex.h"
#include "money.h"
#include "cfgread.h"
#include "cfgnotify.h"
#include "config.h"
#include "path.h"
#include "rfile.h"
#include "ydoc.h"

#define DEFAULT_MAX_BODY	(1024 * 1024)

/*
 * The secrets this repository publishes (config/dev.yaml, the README):
 * anyone can sign a token or call with them, so a configuration holding
 * one is refused unless it says development: true,
 * which in turn is only allowed on a loopback address.
 */
static const char *const dev_key_hashes[] = {
	"a76449cad3fedd4268b84c5c43e7e5fa6cf63096f6e057951a30f2a3a8d44f96",
	"260992d077ce7d7f4ce2a538a6cf52359570e1cf51da027fc5c5e8273c513083",
	"dfee8c6f066fd702cbd519d6d2612d9dcebb9799a46ce1f47a0a6a6a5e2b82c7",
	"9ccbefb574d7bba7bea3e320d3dfaaa63167461cff2bb215f77269bf7d494416",
};
static const char dev_token_key[] = "dev-ui-2f9c71e04ab85d63c1e7f0a94b2d8e56";
static const char dev_bind_password[] = "privd-dev-secret";

static void
dev_secret(struct cfgr *x, const yaml_node_t *v, const char *what)
{
	if (x->dev_what == NULL) {
		x->dev_what = what;
		x->dev_line = ydoc_line(v);
	}
}

/* The scalar settings, a row each (cfgread.h). */
static const char *const titles_names[] = { "keep", "hash", "drop" };
static const char *const level_names[] = { "info", "debug" };
static const char *const format_names[] = { "text", "json" };

#define AT(f)	offsetof(struct cfg, f)

static const struct cfgr_setting settings[] = {
	{ "http.threads", CFGR_INT, AT(threads), 1, 64, NULL, 0, CFGR_RESTART },
	{ "http.writers", CFGR_INT, AT(writers), 1, 256, NULL, 0, CFGR_RESTART },
	{ "http.max_body", CFGR_SIZE, AT(max_body), 1024, 64L << 20, NULL, 0, CFGR_RELOADS },
	{ "http.connection_timeout", CFGR_INT, AT(conn_timeout_s), 1, 3600, NULL, 0, CFGR_RELOADS },
	{ "http.connection_limit", CFGR_INT, AT(conn_limit), 1, 100000, NULL, 0, CFGR_RELOADS },
	{ "http.connections_per_address", CFGR_INT, AT(conns_per_addr), 1, 100000, NULL, 0, CFGR_RELOADS },
	{ "http.request_timeout", CFGR_INT, AT(request_timeout_s), 1, 3600, NULL, 0, CFGR_RELOADS },
	{ "http.shutdown_grace", CFGR_INT, AT(shutdown_grace_s), 1, 600, NULL, 0, CFGR_RESTART },
	{ "http.metrics_public", CFGR_BOOL, AT(metrics_public), 0, 0, NULL, 0, CFGR_RELOADS },
	{ "http.tls_cert", CFGR_FILE, AT(tls_cert), 0, 0, NULL, 0, CFGR_RESTART },
	{ "http.tls_key", CFGR_FILE, AT(tls_key), 0, 0, NULL, 0, CFGR_RESTART },
	{ "ldap.bind_dn", CFGR_DN, AT(bind_dn), 0, 0, NULL, 0, CFGR_RESTART },
	{ "ldap.base", CFGR_DN, AT(base_dn), 0, 0, NULL, 0, CFGR_RESTART },
	{ "ldap.people", CFGR_DN, AT(people_dn), 0, 0, NULL, 0, CFGR_RESTART },
	{ "ldap.create_people", CFGR_BOOL, AT(create_people), 0, 0, NULL, 0, CFGR_RESTART },
	{ "ldap.away_allowance", CFGR_LLONG, AT(away_allowance), 0, 1000000000L, NULL, 0, CFGR_RESTART },
	{ "ldap.timeout", CFGR_INT, AT(ldap_timeout_s), 1, 300, NULL, 0, CFGR_RESTART },
	{ "ldap.starttls", CFGR_BOOL, AT(ldap_starttls), 0, 0, NULL, 0, CFGR_RESTART },
	{ "ldap.ca_file", CFGR_FILE, AT(ldap_ca_file), 0, 0, NULL, 0, CFGR_RESTART },
	{ "ldap.tls_verify", CFGR_BOOL, AT(ldap_tls_verify), 0, 0, NULL, 0, CFGR_RESTART },
	{ "ldap.startup_timeout", CFGR_INT, AT(startup_timeout_s), 0, 86400, NULL, 0, CFGR_RESTART },
	{ "ldap.bulk_timeout", CFGR_INT, AT(ldap_bulk_timeout_s), 1, 3600, NULL, 0, CFGR_RESTART },
	{ "ldap.reconnect_max_ms", CFGR_INT, AT(reconnect_max_ms), 10, 3600000, NULL, 0, CFGR_RESTART },
	{ "model.reasons_leaf_only", CFGR_BOOL, AT(reason_leaf_only), 0, 0, NULL, 0, CFGR_RESTART },
	{ "ledger.titles", CFGR_PICK, AT(ledger_titles), 0, 0, titles_names, 3, CFGR_RESTART },
	{ "ledger.self_read", CFGR_BOOL, AT(ledger_self_read), 0, 0, NULL, 0, CFGR_RESTART },
	{ "ledger.retention", CFGR_INT, AT(ledger_retention), 0, 1000, NULL, 0, CFGR_RESTART },
	{ "imports.stale_after", CFGR_INT, AT(import_stale_after_s), 1, 30 * 86400, NULL, 0, CFGR_RESTART },
	{ "sessions.ttl", CFGR_INT, AT(session_ttl_s), 60, 7 * 86400, NULL, 0, CFGR_RESTART },
	{ "ui.token_ttl", CFGR_INT, AT(ui_token_ttl_s), 60, 86400, NULL, 0, CFGR_RELOADS },
	{ "ui.token_recheck", CFGR_INT, AT(ui_token_recheck_s), 1, 3600, NULL, 0, CFGR_RELOADS },
	{ "log.level", CFGR_PICK, AT(log_debug), 0, 0, level_names, 2, CFGR_RELOADS },
	{ "log.format", CFGR_PICK, AT(log_json), 0, 0, format_names, 2, CFGR_RELOADS },
};

const struct cfgr_setting *
cfg_settings(size_t *n)
{
	*n = sizeof(settings) / sizeof(settings[0]);
	return settings;
}

/* Setting k of section from v, when it is one of the table's. */
static int
scalar(struct cfgr *x, const char *section, const yaml_node_t *k, const yaml_node_t *v)
{
	return cfgr_scalar(x, settings, sizeof(settings) / sizeof(settings[0]), x->c, section,
	    k, v);
}

/* "money" is a quota with a currency */
static const char *type_names[] = { "flag", "set", "number", "quota", "money" };
static const char *period_names[] = { "none", "term", "week", "month", "year", "never" };
static const char *combine_names[] = { "max", "min", "sum" };

const char *
cfg_type_name(enum priv_type t)
{
	return type_names[t];
}

const char *
cfg_priv_type(const struct cfg_priv *pv)
{
	return pv->currency[0] ? "money" : type_names[pv->type];
}

const char *
cfg_period_name(enum period_kind p)
{
	return period_names[p];
}

long
cfg_days_from_civil(int y, int m, int d)
{
	/* Howard Hinnant's days_from_civil */
	long era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

int
cfg_name_ok(const char *s, size_t max)
{
	size_t n = 0;

	if (!isalnum((unsigned char)*s))
		return 0;
	for (; *s; s++, n++) {
		unsigned char ch = (unsigned char)*s;

		if (!(isalnum(ch) || ch == '.' || ch == '_' || ch == '-' || ch == ':'))
			return 0;
	}
	return n <= max;
}

int
cfg_publishes(const struct cfg *c)
{
	size_t i;
	int bits = 0;

	for (i = 0; i < c->nprivs; i++)
		bits |= c->privs[i].publish;
	return bits;
}

int
cfg_priv_find(const struct cfg *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nprivs; i++)
		if (strcmp(c->privs[i].name, name) == 0)
			return (int)i;
	return -1;
}

static int
parse_listen(struct cfgr *x, const yaml_node_t *v)
{
	const char *s = cfgr_str(x, v, "http.listen");
	const char *colon;
	char *end;
	long port;
	size_t hlen;

	if (s == NULL)
		return -1;
	colon = strrchr(s, ':');
	if (colon == NULL || colon == s)
		return cfgr_bad(x, v, "http.listen", "%s: expected HOST:PORT", "http.listen");
	port = strtol(colon + 1, &end, 10);
	if (*end != '\0' || port < 1 || port > 65535)
		return cfgr_bad(x, v, "http.listen", "%s: bad port", "http.listen");
	hlen = colon - s;
	if (s[0] == '[' && hlen >= 2 && s[hlen - 1] == ']') {
		s++;
		hlen -= 2;
	}
	free(x->c->listen_host);
	x->c->listen_host = strndup(s, hlen);
	x->c->listen_port = (int)port;
	return x->c->listen_host ? 0 : err_set(x->e, ERR_INTERNAL, 0, NULL, "out of memory");
}

static int
parse_http(struct cfgr *x, const yaml_node_t *m)
{
	if (cfgr_map(x, m, "http") != 0)
		return -1;
	YDOC_PAIRS(m, p) {
		yaml_node_t *k = ydoc_get(x->doc, p->key), *v = ydoc_get(x->doc, p->value);
		const char *ks = ydoc_str(k);
		int rc;

		if ((rc = scalar(x, "http", k, v)) != 0) {
			if (rc < 0)
				return -1;
			continue;
		}
		if (strcmp(ks, "listen") == 0) {
			if (parse_listen(x, v) != 0)
				return -1;
		} else
			return cfgr_unknown(x, k, "http");
	}
	if ((x->c->tls_cert == NULL) != (x->c->tls_key == NULL))
		return cfgr_bad(x, m, "http.tls_cert", "%s: give both tls_cert and tls_key, or neither", "http");
	return 0;
}

static int
read_secret_file(struct cfgr *x, const yaml_node_t *v, const char *what, const char *path,
    char **out)
{
	char *buf, why[200], msg[600];
	size_t n;

	if (x->no_files)
		return cfgr_dup(x, v, what, out) == 0 ? 0 : -1;
	if (rfile_read(path, RFILE_SECRET_MAX, &buf, &n, why, sizeof(why)) != 0) {
		snprintf(msg, sizeof(msg), "%s: cannot read '%.300s': %s", what, path,
		    strncmp(why, "cannot read: ", 13) == 0 ? why + 13 : why);
		return cfgr_bad(x, v, what, "%s", msg);
	}
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		buf[--n] = '\0';
	if (*out != NULL)
		explicit_bzero(*out, strlen(*out));
	free(*out);
	*out = buf;
	return 0;
}

static int
is_ldap_url(const char *u)
{
	return ldap_is_ldap_url(u) || ldap_is_ldaps_url(u) || ldap_is_ldapi_url(u);
}

/*
 * ldap.write_uri: one URI, or a list of providers (multi-provider): kept
 * as libldap's list form, the URIs separated by spaces. Writes of an
 * account go to its home provider among them (ldpool.h).
 */
static int
parse_write_uris(struct cfgr *x, yaml_node_t *v)
{
	size_t len = 0, n = 0;
	char *all;

	if (!ydoc_is_seq(v)) {
		if (cfgr_dup(x, v, "ldap.write_uri", &x->c->write_uri) != 0)
			return -1;
		if (!is_ldap_url(x->c->write_uri))
			return cfgr_bad(x, v, "ldap.write_uri", "%s: not an ldap://, ldaps:// or ldapi:// URI",
			    "ldap.write_uri");
		return 0;
	}
	YDOC_ITEMS(v, it) {
		yaml_node_t *u = ydoc_get(x->doc, *it);
		const char *us = ydoc_str(u);

		if (us == NULL || !is_ldap_url(us) || strpbrk(us, " ,") != NULL)
			return cfgr_bad(x, u, "ldap.write_uri", "%s: each provider must be one ldap://, "
			    "ldaps:// or ldapi:// URI", "ldap.write_uri");
		len += strlen(us) + 1;
		n++;
	}
	if (n == 0 || n > CFG_PROVIDERS_MAX)
		return cfgr_bad(x, v, "ldap.write_uri", "%s: give 1 to 8 providers", "ldap.write_uri");
	if ((all = calloc(1, len)) == NULL)
		return err_set(x->e, ERR_INTERNAL, 0, NULL, "out of memory");
	YDOC_ITEMS(v, it) {
		if (*all)
			strcat(all, " ");
		strcat(all, ydoc_str(ydoc_get(x->doc, *it)));
	}
	free(x->c->write_uri);
	x->c->write_uri = all;
	return 0;
}

static int
parse_ldap(struct cfgr *x, const yaml_node_t *m)
{
	int have_pw = 0;

	if (cfgr_map(x, m, "ldap") != 0)
		return -1;
	YDOC_PAIRS(m, p) {
		yaml_node_t *k = ydoc_get(x->doc, p->key), *v = ydoc_get(x->doc, p->value);
		const char *ks = ydoc_str(k);
		int rc;

		if ((rc = scalar(x, "ldap", k, v)) != 0) {
			if (rc < 0)
				return -1;
			continue;
		}
		if (strcmp(ks, "uri") == 0) {
			if (cfgr_dup(x, v, "ldap.uri", &x->c->ldap_uri) != 0)
				return -1;
			if (ldap_is_ldap_url(x->c->ldap_uri) == 0 &&
			    ldap_is_ldaps_url(x->c->ldap_uri) == 0 &&
			    ldap_is_ldapi_url(x->c->ldap_uri) == 0)
				return cfgr_bad(x, v, "ldap.uri", "%s: not an ldap://, ldaps:// or ldapi:// URI", "ldap.uri");
		} else if (strcmp(ks, "write_uri") == 0) {
			if (parse_write_uris(x, v) != 0)
				return -1;
		} else if (strcmp(ks, "bind_password") == 0) {
			if (have_pw++)
				return cfgr_bad(x, k, "ldap.bind_password", "%s: give bind_password or bind_password_file, not both", "ldap");
			if (cfgr_dup(x, v, "ldap.bind_password", &x->c->bind_password) != 0)
				return -1;
			if (strcmp(x->c->bind_password, dev_bind_password) == 0)
				dev_secret(x, v, "ldap.bind_password");
		} else if (strcmp(ks, "bind_password_file") == 0) {
			const char *path = cfgr_str(x, v, "ldap.bind_password_file");

			if (have_pw++)
				return cfgr_bad(x, k, "ldap.bind_password_file", "%s: give bind_password or bind_password_file, not both", "ldap");
			if (path == NULL || read_secret_file(x, v, "ldap.bind_password_file", path,
			    &x->c->bind_password) != 0)
				return -1;
		} else if (strcmp(ks, "uid_attribute") == 0) {
			if (cfgr_dup(x, v, "ldap.uid_attribute", &x->c->uid_attr) != 0)
				return -1;
			for (const char *s = x->c->uid_attr; *s; s++)
				if (!isalnum((unsigned char)*s) && *s != '-')
					return cfgr_bad(x, v, "ldap.uid_attribute", "%s: not an attribute name", "ldap.uid_attribute");
		} else
			return cfgr_unknown(x, k, "ldap");
	}
	if (x->c->ldap_uri == NULL)
		return cfgr_bad(x, m, "ldap.uri", "%s: missing (required)", "ldap.uri");
	if (x->c->base_dn == NULL)
		return cfgr_bad(x, m, "ldap.base", "%s: missing (required)", "ldap.base");
	if (x->c->people_dn == NULL)
		return cfgr_bad(x, m, "ldap.people", "%s: missing (required)", "ldap.people");
	if (x->c->bind_dn != NULL && x->c->bind_password == NULL)
		return cfgr_bad(x, m, "ldap.bind_password", "%s: bind_dn needs bind_password or bind_password_file", "ldap");
	return 0;
}

static int
parse_model(struct cfgr *x, const yaml_node_t *m)
{
	char reason[PATH_MAX_LEN + 1], org[PATH_MAX_LEN + 1];

	if (cfgr_map(x, m, "model") != 0)
		return -1;
	YDOC_PAIRS(m, p) {
		yaml_node_t *k = ydoc_get(x->doc, p->key), *v = ydoc_get(x->doc, p->value);
		int rc;

		if ((rc = scalar(x, "model", k, v)) != 0) {
			if (rc < 0)
				return -1;
			continue;
		}
		if (strcmp(ydoc_str(k), "default_cell") == 0) {
			struct err ce;

			if (cfgr_dup(x, v, "model.default_cell", &x->c->default_cell) != 0)
				return -1;
			if (cell_split(x->c->default_cell, reason, org, &ce) != 0)
				return cfgr_bad(x, v, "model.default_cell", "model.default_cell: %.200s", ce.msg);
		} else
			return cfgr_unknown(x, k, "model");
	}
	return 0;
}

/* A section of scalar settings only (ledger, imports, sessions, log): the table's. */
static int
parse_table(struct cfgr *x, const yaml_node_t *m, const char *section)
{
	if (cfgr_map(x, m, section) != 0)
		return -1;
	YDOC_PAIRS(m, p) {
		yaml_node_t *k = ydoc_get(x->doc, p->key), *v = ydoc_get(x->doc, p->value);
		int rc = scalar(x, section, k, v);

		if (rc <= 0)
			return rc < 0 ? -1 : cfgr_unknown(x, k, section);
	}
	return 0;
}

/* ui: {dir, token_key, token_ttl, admins}: the web page at /ui/. */
static int
parse_ui(struct cfgr *x, const yaml_node_t *m)
{
	struct cfg *c = x->c;
	const char *slash;

	if (cfgr_map(x, m, "ui") != 0)
		return -1;
	YDOC_PAIRS(m, p) {
		yaml_node_t *k = ydoc_get(x->doc, p->key), *v = ydoc_get(x->doc, p->value);
		const char *ks = ydoc_str(k);
		int rc;

		if ((rc = scalar(x, "ui", k, v)) != 0) {
			if (rc < 0)
				return -1;
			continue;
		}
		if (strcmp(ks, "dir") == 0) {
			const char *d = cfgr_str(x, v, "ui.dir");

			if (d == NULL)
				return -1;
			free(c->ui_dir);
			/* relative to the configuration file, wherever privd runs */
			slash = strrchr(c->path, '/');
			if (d[0] == '/' || slash == NULL)
				c->ui_dir = strdup(d);
			else if (asprintf(&c->ui_dir, "%.*s/%s", (int)(slash - c->path), c->path, d) < 0)
				c->ui_dir = NULL;
			if (c->ui_dir == NULL)
				return err_set(x->e, ERR_INTERNAL, 0, NULL, "out of memory");
		} else if (strcmp(ks, "token_key") == 0 || strcmp(ks, "token_key_file") == 0) {
			const char *what = ks[9] ? "ui.token_key_file" : "ui.token_key";
			const char *path;

			if (c->ui_token_key != NULL)
				return cfgr_bad(x, k, what, "%s: give token_key or token_key_file, not both",
				    "ui");
			if (ks[9] == '\0' && cfgr_dup(x, v, what, &c->ui_token_key) != 0)
				return -1;
			if (ks[9] != '\0' && ((path = cfgr_str(x, v, what)) == NULL ||
			    read_secret_file(x, v, what, path, &c->ui_token_key) != 0))
				return -1;
			if (strlen(c->ui_token_key) < 32)
				return cfgr_bad(x, v, what, "%s: use at least 32 random characters "
				    "(openssl rand -hex 32)", what);
			if (strcmp(c->ui_token_key, dev_token_key) == 0)
				dev_secret(x, v, what);
		} else if (strcmp(ks, "admins") == 0) {
			if (!ydoc_is_seq(v))
				return cfgr_bad(x, v, "ui.admins", "%s: expected a list of uids", "ui.admins");
			YDOC_ITEMS(v, it) {
				yaml_node_t *u = ydoc_get(x->doc, *it);
				const char *s = cfgr_str(x, u, "ui.admins");
				char **na;

				if (s == NULL)
					return -1;
				if (uid_check(s, NULL) != 0)
					return cfgr_bad(x, u, "ui.admins", "ui.admins: '%s' is not a uid", s);
				if ((na = realloc(c->ui_admins, (c->nui_admins + 1) * sizeof(*na))) == NULL)
					return err_set(x->e, ERR_INTERNAL, 0, NULL, "out of memory");
				c->ui_admins = na;
				if ((na[c->nui_admins] = strdup(s)) == NULL)
					return err_set(x->e, ERR_INTERNAL, 0, NULL, "out of memory");
				c->nui_admins++;
			}
		} else
			return cfgr_unknown(x, k, "ui");
	}
	if (c->ui_dir == NULL || c->ui_token_key == NULL)
		return cfgr_bad(x, m, "ui", "%s: needs dir and token_key (or token_key_file)", "ui");
	return 0;
}

static int
parse_priv(struct cfgr *x, const yaml_node_t *k, const yaml_node_t *m,
    struct cfg_priv *pv)
{
	const char *name = ydoc_str(k);
	static const char *const draw_names[] = { "allowance_first", "paid_first" };
	int have_type = 0, have_combine = 0, have_period = 0, money = 0, t = 0;
	const yaml_node_t *where = m, *cur = NULL, *drw = NULL, *ntf = NULL, *pub = NULL;

	if (!cfg_name_ok(name, PRIV_NAME_MAX))
		return cfgr_bad(x, k, name, "privilege name '%.64s': use letters, digits and . _ - :", name);
	if ((pv->name = strdup(name)) == NULL)
		return err_set(x->e, ERR_INTERNAL, 0, NULL, "out of memory");
	if (cfgr_map(x, m, name) != 0)
		return -1;
	YDOC_PAIRS(m, p) {
		yaml_node_t *pk = ydoc_get(x->doc, p->key), *v = ydoc_get(x->doc, p->value);
		const char *ks = ydoc_str(pk);

		if (strcmp(ks, "type") == 0) {
			if (cfgr_pick(x, v, "type", type_names, 5, &t) != 0)
				return -1;
			money = t == 4;
			pv->type = money ? PRIV_QUOTA : (enum priv_type)t;
			have_type = 1;
		} else if (strcmp(ks, "currency") == 0) {
			const char *code = ydoc_str(v);

			if (code == NULL || !money_code_ok(code))
				return cfgr_bad(x, v, "currency", "privilege %s: currency is an ISO "
				    "4217 code of three capital letters (AUD, EUR, USD)", name);
			snprintf(pv->currency, sizeof(pv->currency), "%s", code);
			cur = pk;
		} else if (strcmp(ks, "notify") == 0) {
			if (cfg_parse_thresholds(x, v, name, pv->notify, &pv->nnotify) != 0)
				return -1;
			ntf = pk;
		} else if (strcmp(ks, "publish") == 0) {
			if (cfg_parse_publish_as(x, v, name, &pv->publish) != 0)
				return -1;
			pub = pk;
		} else if (strcmp(ks, "draw") == 0) {
			if (cfgr_pick(x, v, "draw", draw_names, 2, &t) != 0)
				return -1;
			pv->paid_first = t == 1;
			drw = pk;
		} else if (strcmp(ks, "combine") == 0) {
			if (cfgr_pick(x, v, "combine", combine_names, 3, &t) != 0)
				return -1;
			pv->combine = (enum priv_combine)t;
			have_combine = 1;
			where = pk;
		} else if (strcmp(ks, "period") == 0) {
			/* "none" is internal, not a choice */
			if (cfgr_pick(x, v, "period", period_names + 1, 5, &t) != 0)
				return -1;
			pv->period = (enum period_kind)(t + 1);
			have_period = 1;
			where = pk;
		} else {
			char sect[120];

			snprintf(sect, sizeof(sect), "privilege %s", name);
			return cfgr_unknown(x, pk, sect);
		}
	}
	if (!have_type)
		return cfgr_bad(x, m, name, "privilege %s: missing type (flag, set, number, quota "
		    "or money)", name);
	if (money && !pv->currency[0])
		return cfgr_bad(x, m, name, "privilege %s: a money quota needs a currency (AUD, "
		    "EUR, USD, ...)", name);
	if (!money && pv->currency[0])
		return cfgr_bad(x, cur, name, "privilege %s: currency is only for type money", name);
	if (ntf != NULL && pv->type != PRIV_QUOTA)
		return cfgr_bad(x, ntf, name, "privilege %s: notify (thresholds such as [20%%, 0]) "
		    "is only for quotas and money", name);
	if (drw != NULL && pv->type != PRIV_QUOTA)
		return cfgr_bad(x, drw, name, "privilege %s: draw (allowance_first or paid_first) "
		    "is only for quotas and money", name);
	if (pub != NULL && pv->type != PRIV_FLAG && pv->type != PRIV_SET)
		return cfgr_bad(x, pub, name, "privilege %s: publish (groups, attribute) is only "
		    "for flags and sets", name);
	if (have_combine && (pv->type == PRIV_FLAG || pv->type == PRIV_SET))
		return cfgr_bad(x, where, name, "privilege %s: combine is only for number and quota", name);
	if (pv->type == PRIV_QUOTA && !have_period)
		return cfgr_bad(x, m, name, "privilege %s: a quota needs a period (term, week, month, year, never)", name);
	if (pv->type != PRIV_QUOTA && have_period)
		return cfgr_bad(x, where, name, "privilege %s: period is only for quotas (and money)", name);
	if (!have_period)
		pv->period = PERIOD_NONE;
	return 0;
}

static int
parse_privs(struct cfgr *x, const yaml_node_t *m)
{
	size_t n;

	if (cfgr_map(x, m, "privileges") != 0)
		return -1;
	n = m->data.mapping.pairs.top - m->data.mapping.pairs.start;
	x->c->privs = calloc(n ? n : 1, sizeof(*x->c->privs));
	if (x->c->privs == NULL)
		return err_set(x->e, ERR_INTERNAL, 0, NULL, "out of memory");
	YDOC_PAIRS(m, p) {
		struct cfg_priv *pv = &x->c->privs[x->c->nprivs++];

		if (parse_priv(x, ydoc_get(x->doc, p->key), ydoc_get(x->doc, p->value), pv) != 0)
			return -1;
	}
	return 0;
}

static int
want_date(struct cfgr *x, const yaml_node_t *v, const char *key, long *out)
{
	const char *s = ydoc_str(v);
	int y, mo, d, n = 0;
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	if (s == NULL || sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 ||
	    s[n] != '\0' || strlen(s) != 10 || mo < 1 || mo > 12 || d < 1 ||
	    d > mdays[mo - 1] || y < 1970 || y > 9999)
		return cfgr_bad(x, v, key, "%s: expected a date YYYY-MM-DD", key);
	if (mo == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return cfgr_bad(x, v, key, "%s: not a leap year", key);
	*out = cfg_days_from_civil(y, mo, d);
	return 0;
}

static int
parse_terms(struct cfgr *x, const yaml_node_t *s)
{
	size_t n, i;

	if (!ydoc_is_seq(s))
		return cfgr_bad(x, s, "terms", "%s: expected a list of {name, start, end}", "terms");
	n = s->data.sequence.items.top - s->data.sequence.items.start;
	x->c->terms = calloc(n ? n : 1, sizeof(*x->c->terms));
	if (x->c->terms == NULL)
		return err_set(x->e, ERR_INTERNAL, 0, NULL, "out of memory");
	YDOC_ITEMS(s, it) {
		yaml_node_t *m = ydoc_get(x->doc, *it);
		struct cfg_term *t = &x->c->terms[x->c->nterms++];
		int have_start = 0, have_end = 0;

		if (cfgr_map(x, m, "terms[]") != 0)
			return -1;
		YDOC_PAIRS(m, p) {
			yaml_node_t *k = ydoc_get(x->doc, p->key), *v = ydoc_get(x->doc, p->value);
			const char *ks = ydoc_str(k);

			if (strcmp(ks, "name") == 0) {
				if (cfgr_dup(x, v, "terms.name", &t->name) != 0)
					return -1;
				if (!cfg_name_ok(t->name, 32) || strchr(t->name, '@'))
					return cfgr_bad(x, v, "terms.name", "%s: use letters, digits and . _ -", "terms.name");
			} else if (strcmp(ks, "start") == 0) {
				if (want_date(x, v, "terms.start", &t->start) != 0)
					return -1;
				have_start = 1;
			} else if (strcmp(ks, "end") == 0) {
				if (want_date(x, v, "terms.end", &t->end) != 0)
					return -1;
				have_end = 1;
			} else
				return cfgr_unknown(x, k, "terms");
		}
		if (t->name == NULL || !have_start || !have_end)
			return cfgr_bad(x, m, "terms", "%s: each term needs name, start and end", "terms");
		if (t->end < t->start)
			return cfgr_bad(x, m, t->name, "term %s ends before it starts", t->name);
		for (i = 0; i + 1 < x->c->nterms; i++) {
			const struct cfg_term *o = &x->c->terms[i];

			if (strcmp(o->name, t->name) == 0)
				return cfgr_bad(x, m, t->name, "term %s is given twice", t->name);
			if (t->start <= o->end && o->start <= t->end)
				return cfgr_bad(x, m, t->name, "term %s overlaps another term", t->name);
		}
	}
	return 0;
}

static int
parse_key(struct cfgr *x, const yaml_node_t *m, struct cfg_key *key)
{
	int have_hash = 0;

	if (cfgr_map(x, m, "keys[]") != 0)
		return -1;
	YDOC_PAIRS(m, p) {
		yaml_node_t *k = ydoc_get(x->doc, p->key), *v = ydoc_get(x->doc, p->value);
		const char *ks = ydoc_str(k);

		if (strcmp(ks, "name") == 0) {
			if (cfgr_dup(x, v, "keys.name", &key->name) != 0)
				return -1;
			if (!cfg_name_ok(key->name, 64))
				return cfgr_bad(x, v, "keys.name", "%s: use letters, digits and . _ -", "keys.name");
		} else if (strcmp(ks, "sha256") == 0) {
			const char *h = cfgr_str(x, v, "keys.sha256");

			if (h == NULL)
				return -1;
			if (strlen(h) != 64)
				return cfgr_bad(x, v, "keys.sha256", "%s: expected 64 hex digits (privd hash-key prints them)", "keys.sha256");
			if (hex_decode(h, key->sha256, sizeof(key->sha256)) != 0)
				return cfgr_bad(x, v, "keys.sha256", "%s: expected 64 hex digits", "keys.sha256");
			have_hash = 1;
		} else if (strcmp(ks, "scopes") == 0) {
			if (!ydoc_is_seq(v))
				return cfgr_bad(x, v, "keys.scopes", "%s: expected a list of read, charge, admin, topup", "keys.scopes");
			YDOC_ITEMS(v, it) {
				yaml_node_t *sv = ydoc_get(x->doc, *it);
				static const char *scope_names[] = { "read", "charge", "admin", "topup" };
				int si = 0;

				if (cfgr_pick(x, sv, "keys.scopes", scope_names, 4, &si) != 0)
					return -1;
				key->scopes |= 1u << si;
			}
		} else
			return cfgr_unknown(x, k, "keys");
	}
	if (key->name == NULL || !have_hash || key->scopes == 0)
		return cfgr_bad(x, m, "keys", "%s: each key needs name, sha256 and scopes", "keys");
	return 0;
}

static int
parse_keys(struct cfgr *x, const yaml_node_t *s)
{
	size_t n, i;
	char hex[65];

	if (!ydoc_is_seq(s))
		return cfgr_bad(x, s, "keys", "%s: expected a list of {name, sha256, scopes}", "keys");
	n = s->data.sequence.items.top - s->data.sequence.items.start;
	x->c->keys = calloc(n ? n : 1, sizeof(*x->c->keys));
	if (x->c->keys == NULL)
		return err_set(x->e, ERR_INTERNAL, 0, NULL, "out of memory");
	YDOC_ITEMS(s, it) {
		yaml_node_t *m = ydoc_get(x->doc, *it);
		struct cfg_key *k = &x->c->keys[x->c->nkeys++];

		if (parse_key(x, m, k) != 0)
			return -1;
		hex_encode(k->sha256, sizeof(k->sha256), hex);
		for (i = 0; i < sizeof(dev_key_hashes) / sizeof(dev_key_hashes[0]); i++)
			if (strcmp(hex, dev_key_hashes[i]) == 0)
				dev_secret(x, m, "keys");
		for (i = 0; i + 1 < x->c->nkeys; i++)
			if (strcmp(x->c->keys[i].name, k->name) == 0)
				return cfgr_bad(x, m, k->name, "key name %s is given twice", k->name);
	}
	return 0;
}

static int
set_defaults(struct cfg *c)
{
	c->listen_host = strdup("127.0.0.1");
	c->listen_port = 8080;
	c->threads = 2;
	c->writers = 8;
	c->max_body = DEFAULT_MAX_BODY;
	c->conn_timeout_s = 30;
	c->conn_limit = 4096;
	c->conns_per_addr = 256;
	c->request_timeout_s = 30;
	c->shutdown_grace_s = 10;
	c->uid_attr = strdup("uid");
	c->ldap_timeout_s = 5;
	c->ldap_bulk_timeout_s = 300;
	c->startup_timeout_s = 30;
	c->import_stale_after_s = 3600;
	c->ledger_titles = CFG_TITLES_KEEP;
	c->ledger_self_read = 1;
	c->session_ttl_s = 12 * 3600;
	c->ui_token_ttl_s = 900;
	c->ui_token_recheck_s = 30;
	cfg_notify_defaults(&c->notify);
	cfg_publish_defaults(&c->publish);
	c->reconnect_max_ms = 30000;
	c->reason_leaf_only = 1;
	c->ldap_tls_verify = 1;
	return c->listen_host && c->uid_attr ? 0 : -1;
}

static int
parse_root(struct cfgr *x)
{
	yaml_node_t *root = yaml_document_get_root_node(x->doc);
	int have_ldap = 0, have_privs = 0;
	size_t i;

	if (cfgr_map(x, root, "configuration") != 0)
		return -1;
	YDOC_PAIRS(root, p) {
		yaml_node_t *k = ydoc_get(x->doc, p->key), *v = ydoc_get(x->doc, p->value);
		const char *ks = ydoc_str(k);
		int rc;

		if (strcmp(ks, "http") == 0)
			rc = parse_http(x, v);
		else if (strcmp(ks, "ldap") == 0) {
			rc = parse_ldap(x, v);
			have_ldap = 1;
		} else if (strcmp(ks, "model") == 0)
			rc = parse_model(x, v);
		else if (strcmp(ks, "imports") == 0 || strcmp(ks, "ledger") == 0 ||
		    strcmp(ks, "sessions") == 0 || strcmp(ks, "log") == 0)
			rc = parse_table(x, v, ks);
		else if (strcmp(ks, "ui") == 0)
			rc = parse_ui(x, v);
		else if (strcmp(ks, "notify") == 0)
			rc = cfg_parse_notify(x, v, x->c->path, &x->c->notify);
		else if (strcmp(ks, "publish") == 0)
			rc = cfg_parse_publish(x, v, &x->c->publish);
		else if (strcmp(ks, "privileges") == 0) {
			rc = parse_privs(x, v);
			have_privs = 1;
		} else if (strcmp(ks, "terms") == 0)
			rc = parse_terms(x, v);
		else if (strcmp(ks, "keys") == 0)
			rc = parse_keys(x, v);
		else if (strcmp(ks, "development") == 0)
			rc = cfgr_bool(x, v, "development", &x->c->development);
		else
			rc = cfgr_unknown(x, k, "the top level");
		if (rc != 0)
			return -1;
	}
	if (!have_ldap)
		return cfgr_bad(x, root, "ldap", "%s: missing section (required)", "ldap");
	if (x->dev_what != NULL && !x->c->development)
		return err_set(x->e, ERR_INVALID, x->dev_line, x->dev_what, "%s: this is one of the "
		    "development secrets published with privd (config/dev.yaml): anyone could use "
		    "it; make your own (privd hash-key, openssl rand -hex 32), or say "
		    "development: true for a private test instance on loopback", x->dev_what);
	if (x->c->development && cfg_loopback(x->c->listen_host) == 0)
		return cfgr_bad(x, root, "development", "development: true listens on loopback only, "
		    "not on %s", x->c->listen_host);
	if (!have_privs || x->c->nprivs == 0)
		return cfgr_bad(x, root, "privileges", "%s: missing section (declare at least one privilege)", "privileges");
	if (cfg_publish_finish(x, root, x->c->base_dn, cfg_publishes(x->c) & CFG_PUB_ATTRIBUTE,
	    &x->c->publish) != 0)
		return -1;
	for (i = 0; i < x->c->nprivs; i++)
		if (x->c->privs[i].period == PERIOD_TERM && x->c->nterms == 0)
			return cfgr_bad(x, root, x->c->privs[i].name,
			    "privilege %s has period term, but no terms are defined", x->c->privs[i].name);
	return 0;
}

int
cfg_loopback(const char *host)
{
	return strncmp(host, "127.", 4) == 0 || strcmp(host, "::1") == 0 ||
	    strcmp(host, "localhost") == 0;
}

static int
parse(const char *text, size_t len, const char *name, int no_files, struct cfg **out,
    struct err *e)
{
	yaml_document_t doc;
	struct cfg *c;
	struct cfgr x;
	int rc;

	*out = NULL;
	memset(&x, 0, sizeof(x));
	x.no_files = no_files;
	if ((c = calloc(1, sizeof(*c))) == NULL || set_defaults(c) != 0) {
		cfg_free(c);
		return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
	}
	if ((c->path = strdup(name)) == NULL) {
		cfg_free(c);
		return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
	}
	if (ydoc_load(&doc, text, len, e) != 0) {
		cfg_free(c);
		return -1;
	}
	x.doc = &doc;
	x.c = c;
	x.e = e;
	rc = parse_root(&x);
	yaml_document_delete(&doc);
	if (rc != 0) {
		cfg_free(c);
		return -1;
	}
	*out = c;
	return 0;
}

int
cfg_parse(const char *text, size_t len, const char *name, struct cfg **out,
    struct err *e)
{
	return parse(text, len, name, 0, out, e);
}

static int
load(const char *path, int no_files, struct cfg **out, struct err *e)
{
	char *buf, why[200];
	size_t len;
	int rc;

	*out = NULL;
	if (rfile_read(path, RFILE_CONFIG_MAX, &buf, &len, why, sizeof(why)) != 0)
		return err_set(e, ERR_INVALID, 0, NULL, "%s", why);
	rc = parse(buf, len, path, no_files, out, e);
	free(buf);
	return rc;
}

int
cfg_load(const char *path, struct cfg **out, struct err *e)
{
	return load(path, 0, out, e);
}

int
cfg_load_model(const char *path, struct cfg **out, struct err *e)
{
	return load(path, 1, out, e);
}

void
cfg_free_reloadable(struct cfg *c)
{
	size_t i;

	for (i = 0; i < c->nterms; i++)
		free(c->terms[i].name);
	free(c->terms);
	for (i = 0; i < c->nkeys; i++)
		free(c->keys[i].name);
	free(c->keys);
	free(c->ui_dir);
	if (c->ui_token_key) {
		explicit_bzero(c->ui_token_key, strlen(c->ui_token_key));
		free(c->ui_token_key);
	}
	for (i = 0; i < c->nui_admins; i++)
		free(c->ui_admins[i]);
	free(c->ui_admins);
}

void
cfg_free(struct cfg *c)
{
	size_t i;

	if (c == NULL)
		return;
	free(c->path);
	free(c->default_cell);
	free(c->listen_host);
	free(c->ldap_uri);
	free(c->write_uri);
	free(c->bind_dn);
	if (c->bind_password) {
		explicit_bzero(c->bind_password, strlen(c->bind_password));
		free(c->bind_password);
	}
	free(c->base_dn);
	free(c->people_dn);
	free(c->uid_attr);
	free(c->tls_cert);
	free(c->tls_key);
	free(c->ldap_ca_file);
	for (i = 0; i < c->nprivs; i++)
		free(c->privs[i].name);
	free(c->privs);
	cfg_free_reloadable(c);
	cfg_notify_free(&c->notify);
	cfg_publish_free(&c->publish);
	free(c);
}

/* config.h - privd's configuration: one YAML file, checked whole at start. */
#ifndef PRIVD_CONFIG_H
#define PRIVD_CONFIG_H

#include <stddef.h>

#include "cfgnotify.h"
#include "cfgpublish.h"
#include "err.h"

enum priv_type { PRIV_FLAG, PRIV_SET, PRIV_NUMBER, PRIV_QUOTA };
enum priv_combine { COMBINE_MAX, COMBINE_MIN, COMBINE_SUM };
enum period_kind {
	PERIOD_NONE,		/* not a quota */
	PERIOD_TERM, PERIOD_WEEK, PERIOD_MONTH, PERIOD_YEAR, PERIOD_NEVER
};

#define SCOPE_READ	1u
#define SCOPE_CHARGE	2u
#define SCOPE_ADMIN	4u
#define SCOPE_TOPUP	8u	/* top-ups of paid wallets (wallet.h) */

#define PRIV_NAME_MAX	64

struct cfg_priv {
	char *name;
	enum priv_type type;
	enum priv_combine combine;
	enum period_kind period;
	int paid_first;		/* draw: the paid wallet before the allowance (wallet.h) */
	struct cfg_threshold notify[CFG_THRESHOLDS_MAX];	/* notify: [20%, 0] */
	int nnotify;
	int publish;		/* CFG_PUB_* bits: flags and sets in the directory */
	char currency[4];	/* type money: a quota in this currency's minor
				 * units (money.h); "" for a quota of pages */
};

struct cfg_term {
	char *name;
	long start;		/* days since 1970-01-01, inclusive */
	long end;		/* inclusive */
};

struct cfg_key {
	char *name;
	unsigned char sha256[32];
	unsigned scopes;
};

#define CFG_PROVIDERS_MAX 8	/* URIs in ldap.write_uri */

/* ledger.titles: what a ledger line keeps of a job's title */
enum { CFG_TITLES_KEEP, CFG_TITLES_HASH, CFG_TITLES_DROP };

struct cfg {
	char *path;
	int development;	/* a private test instance: development keys allowed */

	char *listen_host;
	int listen_port;
	int threads;
	int writers;		/* threads that run writes (they wait on slapd) */
	size_t max_body;
	int conn_timeout_s;	/* a connection waiting for a request (whole time) */
	int conn_limit;
	int conns_per_addr;	/* connections one client address may hold */
	int request_timeout_s;	/* a request's headers and body, from its first line */
	int shutdown_grace_s;	/* SIGTERM: time for running admin writes to stop */
	int metrics_public;
	char *tls_cert;		/* PEM paths; both or neither: HTTPS */
	char *tls_key;

	char *ldap_uri;
	char *write_uri;	/* NULL: ldap_uri; else the provider(s) writes go to,
				 * space-separated (libldap's list form) */
	char *bind_dn;		/* NULL: anonymous */
	char *bind_password;
	char *base_dn;		/* the privilege subtree */
	char *people_dn;
	char *uid_attr;
	int create_people;
	int ldap_timeout_s;	/* one request's write or search */
	/* with several providers: what this privd may charge one account's
	 * quota at another provider while its home one is unreachable (0:
	 * nothing, its charges wait, never overspending) */
	long long away_allowance;
	int ldap_bulk_timeout_s;	/* one write of an import (each, not all) */
	int reconnect_max_ms;
	int startup_timeout_s;	/* a permanent LDAP error at start: exit after this */
	int ldap_starttls;	/* StartTLS on an ldap:// URI */
	char *ldap_ca_file;	/* CA certificates for ldaps:// and StartTLS */
	int ldap_tls_verify;	/* check the server's certificate (default) */

	int reason_leaf_only;
	char *default_cell;	/* the membership of people with none, or NULL */
	int ledger_titles;	/* CFG_TITLES_*: job titles in ledger lines */
	int ledger_self_read;	/* generated ACLs: a person reads their own usage */
	int ledger_retention;	/* periods whose ledgers are kept; 0: all */
	int import_stale_after_s;	/* an open import older than this is reported */
	int session_ttl_s;		/* a session not renewed ends after this */

	struct cfg_priv *privs;
	size_t nprivs;
	struct cfg_term *terms;
	size_t nterms;
	struct cfg_key *keys;
	size_t nkeys;

	/* the web page (ui.c): off unless ui_dir is set */
	char *ui_dir;		/* its static files */
	char *ui_token_key;	/* signs sign-in tokens (token.h) */
	int ui_token_ttl_s;
	int ui_token_recheck_s;	/* how often a token's person is asked about again (tokenlive.h) */
	char **ui_admins;	/* uids that see the administration pages */
	size_t nui_admins;

	struct cfg_notify notify;	/* notices by email: off unless notify.smtp */
	struct cfg_publish publish;	/* entitlements in the directory (publish.h) */

	int log_debug;		/* log.level: debug lines too */
	int log_json;		/* log.format: json, a JSON object a line */
};

/* Reads and checks path; on error e has the line and reason. */
int cfg_load(const char *path, struct cfg **out, struct err *e);
/* cfg_load as a model test reads it (privd test): the files settings name
 * (secrets, certificates, templates) are not opened, so a CI runner that
 * lacks them reads the privileges and terms all the same. */
int cfg_load_model(const char *path, struct cfg **out, struct err *e);
/* The same from text in memory; name is used as the path. */
int cfg_parse(const char *text, size_t len, const char *name,
    struct cfg **out, struct err *e);
void cfg_free(struct cfg *c);
/* Frees the terms, keys and ui settings only: what a reload's configuration
 * owns beside its notify settings (cfglive.c). */
void cfg_free_reloadable(struct cfg *c);

/* Whether host is a loopback address (127.0.0.0/8, ::1, localhost). */
int cfg_loopback(const char *host);

/* Index of the privilege called name, or -1. */
/* The table of scalar settings (cfgread.h), n rows: each says whether it reloads. */
struct cfgr_setting;
const struct cfgr_setting *cfg_settings(size_t *n);
int cfg_priv_find(const struct cfg *c, const char *name);
/* The CFG_PUB_* bits some privilege publishes with (0: none publishes). */
int cfg_publishes(const struct cfg *c);
/* Checks a privilege name or set element: [a-z0-9][a-z0-9._-]* style. */
int cfg_name_ok(const char *s, size_t max);

const char *cfg_type_name(enum priv_type t);
/* The type as the configuration says it: "money" for a quota in money. */
const char *cfg_priv_type(const struct cfg_priv *pv);
const char *cfg_period_name(enum period_kind p);

/* Days since 1970-01-01 of a civil date; used by terms and periods. */
long cfg_days_from_civil(int y, int m, int d);

#endif

/*
 * pam_privd.c - a PAM module that asks privd. account: may this account
 * log in to this host (its login.hosts holds the host's element)? session:
 * open a session against login.max_sessions, counted across every host of
 * the school, and end it at close. Arguments are parsed once into struct
 * args; the URL and key come from a small YAML file. A dead privd never
 * hangs a login (timeout_ms) and the outcome is the unreachable= setting.
 * Every message goes through pam_syslog or the conversation; never the key.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#define PAM_SM_ACCOUNT
#define PAM_SM_SESSION
#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include <jansson.h>

#include "keyfile.h"
#include "rest.h"
#include "yconf.h"

/* the only names the module exports: libpam looks them up (-fvisibility=hidden) */
#define ENTRY		PAM_EXTERN __attribute__((visibility("default")))

#define CONFIG_PATH	"/etc/privd/pam.yaml"
#define DATA_SESSION	"pam_privd_session"

struct args {
	char host[65];		/* host=NAME: this host's element (short host name) */
	const char *hosts;	/* hosts=PRIV: the set privilege (login.hosts) */
	const char *privilege;	/* privilege=PRIV: the session limit (login.max_sessions) */
	const char *config;	/* config=FILE */
	const char *ignore;	/* ignore_users=a,b,c */
	int allow;		/* unreachable=allow */
	long timeout_ms;	/* timeout_ms=N (2000) */
	long ttl;		/* ttl=SECONDS, 0: privd's sessions.ttl */
	int debug;
};

/* What one call needs: the settings, privd's location and key. */
struct ctx {
	pam_handle_t *pamh;
	struct args a;
	struct yconf_privd p;
	char *key;
	struct rest r;
	const char *user;
};

static int
parse_args(pam_handle_t *pamh, int argc, const char **argv, struct args *a)
{
	int i;

	memset(a, 0, sizeof(*a));
	a->hosts = "login.hosts";
	a->privilege = "login.max_sessions";
	a->config = CONFIG_PATH;
	a->ignore = "";
	a->timeout_ms = 2000;
	if (gethostname(a->host, sizeof(a->host) - 1) != 0)
		snprintf(a->host, sizeof(a->host), "localhost");
	a->host[strcspn(a->host, ".")] = '\0';
	for (i = 0; i < argc; i++) {
		const char *v = strchr(argv[i], '=');
		size_t kl = v ? (size_t)(v - argv[i]) : strlen(argv[i]);
		char *end;

		v = v ? v + 1 : "";
#define KEY(k) (kl == strlen(k) && strncmp(argv[i], k, kl) == 0)
		if (KEY("host") && *v)
			snprintf(a->host, sizeof(a->host), "%s", v);
		else if (KEY("hosts") && *v)
			a->hosts = v;
		else if (KEY("privilege") && *v)
			a->privilege = v;
		else if (KEY("config") && *v)
			a->config = v;
		else if (KEY("ignore_users"))
			a->ignore = v;
		else if (KEY("unreachable") && (strcmp(v, "deny") == 0 || strcmp(v, "allow") == 0))
			a->allow = strcmp(v, "allow") == 0;
		else if (KEY("timeout_ms") && (a->timeout_ms = strtol(v, &end, 10)) >= 100 &&
		    a->timeout_ms <= 60000 && *end == '\0')
			;
		else if (KEY("ttl") && (a->ttl = strtol(v, &end, 10)) >= 1 && a->ttl <= 7 * 86400 &&
		    *end == '\0')
			;
		else if (KEY("debug"))
			a->debug = 1;
		else {
			pam_syslog(pamh, LOG_ERR, "bad module argument '%s' (expected host=, hosts=, "
			    "privilege=, config=, ignore_users=, unreachable=deny|allow, "
			    "timeout_ms=100..60000, ttl=1..604800, debug)", argv[i]);
			return -1;
		}
#undef KEY
	}
	return 0;
}

static int
ignored(const struct args *a, const char *user)
{
	const char *p = a->ignore;
	size_t ul = strlen(user);

	while (*p) {
		size_t n = strcspn(p, ",");

		if (n == ul && strncmp(p, user, n) == 0)
			return 1;
		p += n;
		p += *p == ',';
	}
	return 0;
}

/* Reads the file and the key. 0, or -1 after logging why. */
static int
load(struct ctx *c)
{
	struct yconf y;
	char err[512];
	int rc;

	if (yconf_load(&y, c->a.config, 0, err, sizeof(err)) != 0) {
		pam_syslog(c->pamh, LOG_ERR, "%s", err);
		return -1;
	}
	rc = 0;
	for (yaml_node_pair_t *pr = y.root ? y.root->data.mapping.pairs.start : NULL;
	    pr && pr < y.root->data.mapping.pairs.top && rc == 0; pr++) {
		yaml_node_t *k = yconf_node(&y, pr->key), *v = yconf_node(&y, pr->value);
		const char *ks = yconf_scalar(&y, k, "key");

		if (ks == NULL || (rc = yconf_privd_key(&y, ks, v, &c->p)) < 0)
			rc = -1;
		else if (rc == 0)
			rc = yconf_fail(&y, k, "unknown key '%s' (expected urls, key_file, timeout_ms)", ks);
		else
			rc = 0;
	}
	if (rc == 0 && c->p.urls == NULL)
		rc = yconf_fail(&y, y.root, "no urls: where is privd? (urls: [http://HOST:PORT])");
	if (rc == 0 && c->p.key_file == NULL)
		rc = yconf_fail(&y, y.root, "no key_file: the file with an API key of scope charge");
	yconf_free(&y);
	if (rc != 0) {
		pam_syslog(c->pamh, LOG_ERR, "%s", err);
		return -1;
	}
	if (keyfile_read(c->p.key_file, &c->key, err, sizeof(err)) != 0) {
		pam_syslog(c->pamh, LOG_ERR, "%s", err);
		return -1;
	}
	c->r.urls = c->p.urls;
	c->r.key = c->key;
	c->r.prog = "pam_privd";
	c->r.quiet = 1;
	c->r.timeout_ms = c->a.timeout_ms;
	return 0;
}

static void
done(struct ctx *c)
{
	rest_free(&c->r);
	if (c->key != NULL) {
		explicit_bzero(c->key, strlen(c->key));
		free(c->key);
	}
	yconf_privd_free(&c->p);
}

/*
 * Sets up c for pamh; PAM_SUCCESS to go on, PAM_IGNORE for an ignored
 * user, or the code to return.
 */
static int
start(struct ctx *c, pam_handle_t *pamh, int argc, const char **argv)
{
	memset(c, 0, sizeof(*c));
	c->pamh = pamh;
	if (parse_args(pamh, argc, argv, &c->a) != 0)
		return PAM_SERVICE_ERR;
	if (pam_get_user(pamh, &c->user, NULL) != PAM_SUCCESS || c->user == NULL ||
	    *c->user == '\0')
		return PAM_USER_UNKNOWN;
	if (ignored(&c->a, c->user))
		return PAM_IGNORE;
	if (load(c) != 0)
		return PAM_SERVICE_ERR;
	return PAM_SUCCESS;
}

/* privd did not answer (or cannot reach LDAP): what unreachable= says. */
static int
unreachable(struct ctx *c, const char *what, int deny_code)
{
	pam_syslog(c->pamh, c->a.allow ? LOG_WARNING : LOG_ERR,
	    "%s for %s: %s: %s (unreachable=%s)", what, c->user,
	    c->r.error[0] ? c->r.error : "privd answered with an error",
	    c->a.allow ? "admitting" : "refusing", c->a.allow ? "allow" : "deny");
	return c->a.allow ? PAM_SUCCESS : deny_code;
}

static int
down(const struct ctx *c, int rc)
{
	return rc != 0 || c->r.status >= 500;
}

static const char *
jstr(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

ENTRY int
pam_sm_acct_mgmt(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	struct ctx c;
	char path[1024], *u = NULL, *p = NULL, *h = NULL;
	json_t *a = NULL;
	int rc, ret;

	(void)flags;
	if ((ret = start(&c, pamh, argc, argv)) != PAM_SUCCESS)
		goto out;
	u = rest_escape(c.user), p = rest_escape(c.a.hosts), h = rest_escape(c.a.host);
	if (u == NULL || p == NULL || h == NULL) {
		ret = PAM_BUF_ERR;
		goto out;
	}
	snprintf(path, sizeof(path), "/v1/accounts/%s/check?privilege=%s&value=%s", u, p, h);
	rc = rest_call(&c.r, "GET", path, NULL, NULL, 0);
	if (down(&c, rc)) {
		ret = unreachable(&c, "checking login access", PAM_AUTHINFO_UNAVAIL);
		goto out;
	}
	a = rest_json(&c.r);
	if (c.r.status == 404 && strcmp(jstr(a, "error"), "unknown_account") == 0) {
		if (c.a.debug)
			pam_syslog(pamh, LOG_DEBUG, "%s is not an account in privd", c.user);
		ret = PAM_USER_UNKNOWN;
	} else if (c.r.status != 200) {
		pam_syslog(pamh, LOG_ERR, "checking %s=%s for %s: %ld %s: %s", c.a.hosts, c.a.host,
		    c.user, c.r.status, jstr(a, "error"), jstr(a, "message"));
		ret = PAM_SERVICE_ERR;
	} else if (json_is_true(json_object_get(a, "allowed"))) {
		if (c.a.debug)
			pam_syslog(pamh, LOG_DEBUG, "%s may log in to %s", c.user, c.a.host);
		ret = PAM_SUCCESS;
	} else {
		pam_syslog(pamh, LOG_NOTICE, "%s may not log in to %s (no %s element %s)", c.user,
		    c.a.host, c.a.hosts, c.a.host);
		pam_error(pamh, "privd: %s may not log in to %s", c.user, c.a.host);
		ret = PAM_PERM_DENIED;
	}
out:
	json_decref(a);
	free(u), free(p), free(h);
	done(&c);
	return ret;
}

static void
free_data(pam_handle_t *pamh, void *data, int error_status)
{
	(void)pamh;
	(void)error_status;
	free(data);
}

/* "HOST since HH:MM, ..." of a too_many_sessions answer. */
static void
where(json_t *a, char *out, size_t n)
{
	json_t *s;
	size_t i, used = 0;

	out[0] = '\0';
	json_array_foreach(json_object_get(a, "sessions"), i, s) {
		const char *st = jstr(s, "started");
		int w = snprintf(out + used, n - used, "%s%s since %.5s UTC", i ? ", " : "",
		    jstr(s, "host"), strlen(st) >= 16 ? st + 11 : st);

		if (w < 0 || (size_t)w >= n - used)
			break;
		used += (size_t)w;
	}
}

ENTRY int
pam_sm_open_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	const void *service = NULL;
	char rid[128], svc[65], path[512], on[512], *u = NULL, *body = NULL, *id;
	struct timespec ts;
	struct ctx c;
	json_t *b = NULL, *a = NULL;
	int rc, ret;
	size_t i;

	(void)flags;
	if ((ret = start(&c, pamh, argc, argv)) != PAM_SUCCESS)
		goto out;
	pam_get_item(pamh, PAM_SERVICE, &service);
	snprintf(svc, sizeof(svc), "%s", service ? (const char *)service : "-");
	for (i = 0; svc[i]; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:@-", svc[i]))
			svc[i] = '-';
	/* unique per open: a retry of this request would carry the same id */
	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(rid, sizeof(rid), "pam:%.40s:%ld:%lld.%09ld", c.a.host, (long)getpid(),
	    (long long)ts.tv_sec, ts.tv_nsec);
	b = json_pack("{s:s, s:s, s:s, s:s}", "request_id", rid, "privilege", c.a.privilege,
	    "host", c.a.host, "service", svc);
	if (b != NULL && c.a.ttl > 0)
		json_object_set_new(b, "ttl_s", json_integer(c.a.ttl));
	if (b == NULL || (body = json_dumps(b, JSON_COMPACT)) == NULL ||
	    (u = rest_escape(c.user)) == NULL) {
		ret = PAM_BUF_ERR;
		goto out;
	}
	snprintf(path, sizeof(path), "/v1/accounts/%s/sessions", u);
	rc = rest_call(&c.r, "POST", path, "application/json", body, strlen(body));
	if (down(&c, rc)) {
		ret = unreachable(&c, "opening a session", PAM_SESSION_ERR);
		goto out;
	}
	a = rest_json(&c.r);
	if (c.r.status == 201 || c.r.status == 200) {
		if ((id = strdup(rid)) == NULL ||
		    pam_set_data(pamh, DATA_SESSION, id, free_data) != PAM_SUCCESS) {
			free(id);
			ret = PAM_BUF_ERR;
			goto out;
		}
		pam_syslog(pamh, LOG_INFO, "session %s of %s opened on %s (%lld of %lld open)", rid,
		    c.user, c.a.host, (long long)json_integer_value(json_object_get(a, "open")),
		    (long long)json_integer_value(json_object_get(a, "max")));
		ret = PAM_SUCCESS;
	} else if (strcmp(jstr(a, "error"), "too_many_sessions") == 0) {
		where(a, on, sizeof(on));
		pam_syslog(pamh, LOG_NOTICE, "%s refused a session on %s: %s", c.user, c.a.host,
		    jstr(a, "message"));
		pam_error(pamh, "privd: %s has %lld of %lld sessions open already (%s)", c.user,
		    (long long)json_integer_value(json_object_get(a, "open")),
		    (long long)json_integer_value(json_object_get(a, "max")), on);
		ret = PAM_PERM_DENIED;
	} else if (c.r.status == 404) {
		ret = PAM_USER_UNKNOWN;
	} else {
		pam_syslog(pamh, LOG_ERR, "opening a session for %s: %ld %s: %s", c.user,
		    c.r.status, jstr(a, "error"), jstr(a, "message"));
		ret = PAM_SESSION_ERR;
	}
out:
	json_decref(a);
	json_decref(b);
	free(body);
	free(u);
	done(&c);
	return ret;
}

ENTRY int
pam_sm_close_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	const void *data = NULL;
	char path[512], *u = NULL, *id = NULL, *p = NULL;
	struct ctx c;
	int rc, ret;

	(void)flags;
	if (pam_get_data(pamh, DATA_SESSION, &data) != PAM_SUCCESS || data == NULL) {
		memset(&c, 0, sizeof(c));
		return PAM_SUCCESS;	/* this module opened none */
	}
	if ((ret = start(&c, pamh, argc, argv)) != PAM_SUCCESS)
		goto out;
	if ((u = rest_escape(c.user)) == NULL || (id = rest_escape(data)) == NULL ||
	    (p = rest_escape(c.a.privilege)) == NULL) {
		ret = PAM_BUF_ERR;
		goto out;
	}
	snprintf(path, sizeof(path), "/v1/accounts/%s/sessions/%s?privilege=%s", u, id, p);
	rc = rest_call(&c.r, "DELETE", path, NULL, NULL, 0);
	if (down(&c, rc))
		pam_syslog(pamh, LOG_WARNING, "closing session %s of %s: %s: it ends at its TTL",
		    (const char *)data, c.user, c.r.error[0] ? c.r.error : "privd answered with an error");
	else if (c.r.status != 200 && c.r.status != 404)
		pam_syslog(pamh, LOG_ERR, "closing session %s of %s: %ld", (const char *)data, c.user,
		    c.r.status);
	else
		pam_syslog(pamh, LOG_INFO, "session %s of %s closed", (const char *)data, c.user);
	ret = PAM_SUCCESS;	/* a session that could not be ended ends at its TTL */
	pam_set_data(pamh, DATA_SESSION, NULL, NULL);
out:
	free(u);
	free(id);
	free(p);
	done(&c);
	return ret;
}

ENTRY int
pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	(void)pamh, (void)flags, (void)argc, (void)argv;
	return PAM_IGNORE;	/* privd decides where and how often, not who */
}

ENTRY int
pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	(void)pamh, (void)flags, (void)argc, (void)argv;
	return PAM_IGNORE;
}

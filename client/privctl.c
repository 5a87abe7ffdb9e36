/*
 * privctl.c - the administrator's command line for privd: each command is
 * one or two REST calls and a rendering of the answer (or the answer
 * itself with --json). Exit codes: 0 done, 1 refused or not found, 2 usage,
 * 3 privd unreachable.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <jansson.h>

#include "conf.h"
#include "money.h"
#include "rest.h"
#include "rfile.h"

#define PRIVCTL_VERSION "0.2.0"
#define WIDTH 80

struct cmd {
	const char *name;
	const char *args;
	const char *help;
	int (*fn)(struct rest *, int, char **);
	int min, max;		/* operands */
};

static int json_out, dry_run, force, abort_import, csv_out;
static const char *privd_config;	/* test --config: privd's configuration */
static const char *wallet, *v_quota, *v_value, *v_count, *v_expires, *v_batch;
static const char *period, *reason, *end_session, *session_priv, *report_by, *report_under;
static const char *report_depth, *report_top, *from_date, *until_date, *within, *pool_cell;

static const struct cmd cmds[];

static int
usage_of(const struct cmd *c, FILE *f)
{
	fprintf(f, "usage: privctl %s %s\n\n%s\n", c->name, c->args, c->help);
	return f == stdout ? EXIT_OK : EXIT_USAGE;
}

/* GET path: the JSON answer, or NULL with *rc set (message printed). */
static json_t *
get(struct rest *r, const char *path, const char *what, int *rc)
{
	json_t *j;

	if ((*rc = rest_call(r, "GET", path, NULL, NULL, 0)) != 0)
		return NULL;
	if ((*rc = rest_fail(r, what)) != 0)
		return NULL;
	if ((j = rest_json(r)) == NULL) {
		fprintf(stderr, "privctl: %s: the answer is not JSON\n", what);
		*rc = EXIT_DOWN;
	}
	return j;
}

/* Sends a write and prints its change lines (or the JSON). */
static int
write_call(struct rest *r, const char *method, const char *path, const char *what,
    json_t *body)
{
	char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
	json_t *j, *ch, *line;
	size_t i;
	int rc;

	json_decref(body);
	rc = rest_call(r, method, path, "application/json", text, text ? strlen(text) : 0);
	free(text);
	if (rc != 0 || (rc = rest_fail(r, what)) != 0)
		return rc;
	if (json_out) {
		fputs(r->body, stdout);
		return EXIT_OK;
	}
	j = rest_json(r);
	ch = json_object_get(j, "changes");
	if (json_array_size(ch) == 0)
		printf("%s: no change\n", what);
	json_array_foreach(ch, i, line)
		printf("%s%s\n", json_string_value(line), dry_run ? "   (dry run)" : "");
	json_decref(j);
	return EXIT_OK;
}

static char *
esc(const char *s)
{
	char *e = rest_escape(s);

	if (e == NULL) {
		fprintf(stderr, "privctl: out of memory\n");
		exit(EXIT_DOWN);
	}
	return e;
}

static const char *
tree_side(const char *s)
{
	if (strcmp(s, "reasons") == 0 || strcmp(s, "reason") == 0)
		return "reasons";
	if (strcmp(s, "organisations") == 0 || strcmp(s, "organisation") == 0 ||
	    strcmp(s, "org") == 0 || strcmp(s, "orgs") == 0)
		return "organisations";
	return NULL;
}

static void
draw(json_t *node, const char *prefix, int last, int root)
{
	char next[512];
	json_t *kids = json_object_get(node, "children"), *k;
	long long m = json_integer_value(json_object_get(node, "members"));
	long long g = json_integer_value(json_object_get(node, "grants"));
	size_t i, n = json_array_size(kids);

	if (!root)
		printf("%s%s%s  (%lld member%s, %lld grant%s)\n", prefix, last ? "└── " : "├── ",
		    json_string_value(json_object_get(node, "name")), m, m == 1 ? "" : "s",
		    g, g == 1 ? "" : "s");
	snprintf(next, sizeof(next), "%s%s", prefix, root ? "" : last ? "    " : "│   ");
	json_array_foreach(kids, i, k)
		draw(k, next, i == n - 1, 0);
}

static int
cmd_tree(struct rest *r, int argc, char **argv)
{
	const char *side = tree_side(argv[0]);
	char path[64];
	json_t *j;
	int rc;

	(void)argc;
	if (side == NULL)
		return usage_of(&cmds[0], stderr);
	snprintf(path, sizeof(path), "/v1/tree/%s", side);
	if ((j = get(r, path, "tree", &rc)) == NULL)
		return rc;
	if (json_out)
		fputs(r->body, stdout);
	else {
		printf("%s\n", side);
		draw(j, "", 1, 1);
	}
	json_decref(j);
	return EXIT_OK;
}

static int
cmd_grant(struct rest *r, int argc, char **argv)
{
	json_t *g = json_array();
	int i;

	for (i = 1; i < argc; i++)
		json_array_append_new(g, json_string(argv[i]));
	return write_call(r, "POST", dry_run ? "/v1/grants?dry_run=1" : "/v1/grants", "grant",
	    json_pack("{s:s, s:o}", "cell", argv[0], "grants", g));
}

/* DELETE route?k1=v1&k2=v2 (values escaped) as a write. */
static int
delete_call(struct rest *r, const char *route, const char *k1, const char *v1,
    const char *k2, const char *v2, const char *what)
{
	char *a = esc(v1), *b = esc(v2), *path;
	int rc;

	if (asprintf(&path, "%s?%s=%s&%s=%s%s", route, k1, a, k2, b,
	    dry_run ? "&dry_run=1" : "") < 0)
		path = NULL;
	rc = path ? write_call(r, "DELETE", path, what, NULL) : EXIT_DOWN;
	free(path);
	free(a);
	free(b);
	return rc;
}

static int
cmd_revoke(struct rest *r, int argc, char **argv)
{
	(void)argc;
	return delete_call(r, "/v1/grants", "cell", argv[0], "privilege", argv[1], "revoke");
}

static int
cmd_add(struct rest *r, int argc, char **argv)
{
	(void)argc;
	return write_call(r, "POST", dry_run ? "/v1/memberships?dry_run=1" : "/v1/memberships",
	    "add", json_pack("{s:s, s:s, s:s*, s:s*}", "account", argv[0], "cell", argv[1],
	    "from", from_date, "until", until_date));
}

static int
cmd_expiring(struct rest *r, int argc, char **argv)
{
	char path[256], *w = esc(within ? within : "14d");
	json_t *j, *e;
	size_t i;
	int rc;

	(void)argc;
	(void)argv;
	snprintf(path, sizeof(path), "/v1/memberships/expiring?within=%s", w);
	free(w);
	if ((j = get(r, path, "expiring", &rc)) == NULL)
		return rc;
	if (json_out) {
		fputs(r->body, stdout);
		json_decref(j);
		return EXIT_OK;
	}
	printf("memberships ending within %s: %zu\n", within ? within : "14d",
	    json_array_size(json_object_get(j, "memberships")));
	json_array_foreach(json_object_get(j, "memberships"), i, e)
		printf("  %-20s %-21s %s\n", json_string_value(json_object_get(e, "until")),
		    json_string_value(json_object_get(e, "account")),
		    json_string_value(json_object_get(e, "cell")));
	json_decref(j);
	return EXIT_OK;
}

static int
cmd_purge_expired(struct rest *r, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return write_call(r, "POST", dry_run ? "/v1/memberships/purge-expired?dry_run=1" :
	    "/v1/memberships/purge-expired", "purge-expired", NULL);
}

static int
cmd_remove(struct rest *r, int argc, char **argv)
{
	(void)argc;
	return delete_call(r, "/v1/memberships", "account", argv[0], "cell", argv[1], "remove");
}

static int
side_or_usage(const char *s, const char **side, const char *cmd)
{
	if ((*side = tree_side(s)) == NULL) {
		fprintf(stderr, "privctl: %s: the tree is 'reason' or 'organisation', not '%s'\n",
		    cmd, s);
		return EXIT_USAGE;
	}
	return 0;
}

static int
cmd_mkdir(struct rest *r, int argc, char **argv)
{
	char path[64];
	const char *side;
	int rc;

	(void)argc;
	if ((rc = side_or_usage(argv[0], &side, "mkdir")) != 0)
		return rc;
	snprintf(path, sizeof(path), "/v1/nodes/%s%s", side, dry_run ? "?dry_run=1" : "");
	return write_call(r, "POST", path, "mkdir", json_pack("{s:s}", "path", argv[1]));
}

static int
cmd_rmdir(struct rest *r, int argc, char **argv)
{
	const char *side;
	char *p, *path;
	int rc;

	(void)argc;
	if ((rc = side_or_usage(argv[0], &side, "rmdir")) != 0)
		return rc;
	p = esc(argv[1]);
	if (asprintf(&path, "/v1/nodes/%s?path=%s%s%s", side, p, force ? "&force=1" : "",
	    dry_run ? "&dry_run=1" : "") < 0)
		path = NULL;
	rc = path ? write_call(r, "DELETE", path, "rmdir", NULL) : EXIT_DOWN;
	free(path);
	free(p);
	return rc;
}

static int
cmd_mv(struct rest *r, int argc, char **argv)
{
	char path[96];
	const char *side;
	int rc;

	(void)argc;
	if ((rc = side_or_usage(argv[0], &side, "mv")) != 0)
		return rc;
	snprintf(path, sizeof(path), "/v1/nodes/%s/move%s", side, dry_run ? "?dry_run=1" : "");
	return write_call(r, "POST", path, "mv", json_pack("{s:s, s:s}", "from", argv[1],
	    "to", argv[2]));
}

/* An amount of quota v as text: money ("$12.40") when v has a currency. */
static const char *
amount(json_t *v, long long n, char *buf)
{
	const char *cur = json_string_value(json_object_get(v, "currency"));

	if (cur != NULL && money_code_ok(cur))
		return money_format(n, cur, buf, MONEY_TEXT_MAX);
	snprintf(buf, MONEY_TEXT_MAX, "%lld", n);
	return buf;
}

/*
 * POSTs body (taken over) to path: EXIT_OK and *out the answer to print,
 * or NULL when --json printed it already; else the failure's exit status.
 */
static int
post_json(struct rest *r, const char *path, const char *what, json_t *body, json_t **out)
{
	char *js = body ? json_dumps(body, JSON_COMPACT) : NULL;
	int rc;

	*out = NULL;
	json_decref(body);
	rc = rest_call(r, "POST", path, "application/json", js, js ? strlen(js) : 0);
	free(js);
	if (rc != 0 || (rc = rest_fail(r, what)) != 0)
		return rc;
	if (json_out)
		fputs(r->body, stdout);
	else
		*out = rest_json(r);
	return EXIT_OK;
}

/* A privilege's value as text: "true", "300 of 300 left", "a, b". */
static void
value_text(json_t *v, char *buf, size_t n)
{
	const char *type = json_string_value(json_object_get(v, "type"));
	json_t *val = json_object_get(v, "value"), *e;
	size_t i, len = 0;

	buf[0] = '\0';
	if (type == NULL)
		return;
	if (strcmp(type, "flag") == 0)
		snprintf(buf, n, "%s", json_is_true(val) ? "yes" : "no");
	else if (strcmp(type, "number") == 0)
		snprintf(buf, n, "%lld", (long long)json_integer_value(val));
	else if (strcmp(type, "quota") == 0) {
		char a[4][MONEY_TEXT_MAX];

		snprintf(buf, n, "%s of %s left (used %s, credit %s, %s)",
		    amount(v, json_integer_value(json_object_get(v, "remaining")), a[0]),
		    amount(v, json_integer_value(json_object_get(v, "limit")) +
		    json_integer_value(json_object_get(v, "credit")), a[1]),
		    amount(v, json_integer_value(json_object_get(v, "used")), a[2]),
		    amount(v, json_integer_value(json_object_get(v, "credit")), a[3]),
		    json_string_value(json_object_get(v, "period")) ?
		    json_string_value(json_object_get(v, "period")) : "no period");
		if (json_object_get(v, "paid") != NULL) {
			json_t *w = json_object_get(v, "paid");
			size_t len = strlen(buf);

			/* the paid wallet: top-ups that carry over, after the allowance */
			snprintf(buf + len, n - len, "; paid %s left (topped up %s, used %s); "
			    "%s in all",
			    amount(v, json_integer_value(json_object_get(w, "remaining")), a[0]),
			    amount(v, json_integer_value(json_object_get(w, "topped_up")), a[1]),
			    amount(v, json_integer_value(json_object_get(w, "used")), a[2]),
			    amount(v, json_integer_value(json_object_get(v, "total_remaining")),
			    a[3]));
		}
	}
	else {
		json_array_foreach(val, i, e)
			if (len < n)
				len += snprintf(buf + len, n - len, "%s%s", i ? ", " : "",
				    json_string_value(e));
		if (i == 0)
			snprintf(buf, n, "(none)");
	}
}

/* Prints text wrapped to WIDTH, continuation lines indented by indent. */
static void
wrapped(const char *text, int indent, int first)
{
	int col = first;
	const char *p = text;

	while (*p) {
		const char *sp = strchr(p, ' ');
		int wl = sp ? (int)(sp - p) : (int)strlen(p);

		if (col + wl > WIDTH && col > indent) {
			printf("\n%*s", indent, "");
			col = indent;
		}
		printf("%.*s", wl, p);
		col += wl;
		p += wl;
		if (*p == ' ') {
			putchar(' ');
			col++;
			p++;
		}
	}
	putchar('\n');
}

/* A pool's quotas: "QUOTA  used/limit  (remaining left, period)" lines. */
static void
pool_quotas(json_t *quotas, const char *indent)
{
	const char *k;
	json_t *q;

	char a[3][MONEY_TEXT_MAX];

	json_object_foreach(quotas, k, q)
		printf("%s%-22s %s used of %s%s, %s left in %s\n", indent, k,
		    amount(q, json_integer_value(json_object_get(q, "used")), a[0]),
		    amount(q, json_integer_value(json_object_get(q, "limit")), a[1]),
		    json_integer_value(json_object_get(q, "credit")) ? " (and credit)" : "",
		    amount(q, json_integer_value(json_object_get(q, "remaining")), a[2]),
		    json_string_value(json_object_get(q, "period")) ?
		    json_string_value(json_object_get(q, "period")) : "no period");
}

static int
cmd_show(struct rest *r, int argc, char **argv)
{
	char path[256], val[4096];
	char *u = esc(argv[0]);
	const char *k;
	json_t *j, *v, *m;
	size_t i;
	int rc;

	(void)argc;
	snprintf(path, sizeof(path), "/v1/accounts/%s/privileges", u);
	free(u);
	if ((j = get(r, path, "show", &rc)) == NULL)
		return rc;
	if (json_out) {
		fputs(r->body, stdout);
		json_decref(j);
		return EXIT_OK;
	}
	printf("account %s%s\n", json_string_value(json_object_get(j, "account")),
	    json_is_true(json_object_get(j, "stale")) ? "   (stale: privd cannot reach LDAP)" : "");
	json_array_foreach(json_object_get(j, "memberships"), i, m)
		printf("  member of %s\n", json_string_value(m));
	printf("\n%-22s %-7s %s\n", "PRIVILEGE", "TYPE", "VALUE");
	json_object_foreach(json_object_get(j, "privileges"), k, v) {
		value_text(v, val, sizeof(val));
		printf("%-22s %-7s ", k, json_string_value(json_object_get(v, "type")));
		wrapped(val, 31, 31);
	}
	json_decref(j);
	/* the pools it may draw on, most specific first */
	u = esc(argv[0]);
	snprintf(path, sizeof(path), "/v1/accounts/%s/pools", u);
	free(u);
	if ((j = get(r, path, "show", &rc)) == NULL)
		return rc;
	if (json_array_size(json_object_get(j, "pools")) > 0)
		printf("\npools it may draw on (most specific first):\n");
	json_array_foreach(json_object_get(j, "pools"), i, m) {
		printf("  %s (via %s)\n", json_string_value(json_object_get(m, "cell")),
		    json_string_value(json_object_get(m, "via")));
		pool_quotas(json_object_get(m, "quotas"), "    ");
	}
	json_decref(j);
	return EXIT_OK;
}

static void
explain_one(const char *name, json_t *v)
{
	char val[4096];
	json_t *s;
	size_t i;

	value_text(v, val, sizeof(val));
	printf("%s = ", name);
	wrapped(val, 4, (int)strlen(name) + 3);
	if (json_array_size(json_object_get(v, "sources")) == 0)
		printf("    no grant applies (the default: no, none or 0)\n");
	json_array_foreach(json_object_get(v, "sources"), i, s) {
		const char *res = json_string_value(json_object_get(s, "result"));
		const char *by = json_string_value(json_object_get(s, "overridden_by"));
		char line[1024];

		snprintf(line, sizeof(line), "%-10s %s on %s (membership %s)%s%s", res,
		    json_string_value(json_object_get(s, "grant")),
		    json_string_value(json_object_get(s, "cell")),
		    json_string_value(json_object_get(s, "membership")),
		    by ? ", overridden by " : "", by ? by : "");
		printf("    ");
		wrapped(line, 15, 4);
	}
}

/* explain ACCOUNT --pool CELL */
static int
explain_pool(struct rest *r, const char *uid, const char *cell)
{
	char path[1024], *u = esc(uid), *c = esc(cell);
	json_t *j, *m;
	size_t i;
	int rc;

	snprintf(path, sizeof(path), "/v1/accounts/%s/pools?cell=%s", u, c);
	free(u);
	free(c);
	if ((j = get(r, path, "explain --pool", &rc)) == NULL)
		return rc;
	if (json_out)
		fputs(r->body, stdout);
	else {
		printf("%s %s draw on the pools of %s\n", uid,
		    json_is_true(json_object_get(j, "may_draw")) ? "may" : "may not", cell);
		if (json_array_size(json_object_get(j, "memberships")) == 0)
			printf("    it has no membership in force\n");
		json_array_foreach(json_object_get(j, "memberships"), i, m)
			printf("    %-10s %s: %s\n", json_is_true(json_object_get(m, "covered")) ?
			    "covered" : "not", json_string_value(json_object_get(m, "membership")),
			    json_string_value(json_object_get(m, "why")));
	}
	json_decref(j);
	return EXIT_OK;
}

static int
cmd_explain(struct rest *r, int argc, char **argv)
{
	char path[512];
	char *u, *p;
	const char *k;
	json_t *j, *v;
	int rc;

	if (pool_cell != NULL)
		return argc > 1 ? (fprintf(stderr, "privctl: explain: give PRIV or --pool, "
		    "not both\n"), EXIT_USAGE) : explain_pool(r, argv[0], pool_cell);
	u = esc(argv[0]);
	p = argc > 1 ? esc(argv[1]) : NULL;

	if (p)
		snprintf(path, sizeof(path), "/v1/accounts/%s/privileges/%s?explain=1", u, p);
	else
		snprintf(path, sizeof(path), "/v1/accounts/%s/privileges?explain=1", u);
	free(u);
	free(p);
	if ((j = get(r, path, "explain", &rc)) == NULL)
		return rc;
	if (json_out)
		fputs(r->body, stdout);
	else if (argc > 1)
		explain_one(argv[1], j);
	else
		json_object_foreach(json_object_get(j, "privileges"), k, v)
			explain_one(k, v);
	json_decref(j);
	return EXIT_OK;
}

static int
cmd_who(struct rest *r, int argc, char **argv)
{
	char *p = esc(argv[0]), *v = argc > 1 ? esc(argv[1]) : NULL, *path;
	json_t *j, *e;
	size_t i, n;
	int rc;

	if (asprintf(&path, "/v1/who?privilege=%s%s%s", p, v ? "&value=" : "", v ? v : "") < 0)
		path = NULL;
	free(p);
	free(v);
	j = path ? get(r, path, "who", &rc) : NULL;
	free(path);
	if (j == NULL)
		return path ? rc : EXIT_DOWN;
	if (json_out) {
		fputs(r->body, stdout);
		json_decref(j);
		return EXIT_OK;
	}
	printf("cells granting %s%s%s:\n", argv[0], argc > 1 ? " " : "", argc > 1 ? argv[1] : "");
	json_array_foreach(json_object_get(j, "cells"), i, e)
		printf("  %-44s %s\n", json_string_value(json_object_get(e, "cell")),
		    json_string_value(json_object_get(e, "grant")));
	n = json_array_size(json_object_get(j, "accounts"));
	printf("accounts that have it (%zu):\n", n);
	json_array_foreach(json_object_get(j, "accounts"), i, e)
		printf("  %s\n", json_string_value(e));
	json_decref(j);
	return EXIT_OK;
}

static int
cmd_quota(struct rest *r, int argc, char **argv)
{
	char path[512], val[1024];
	char *u = esc(argv[0]);
	const char *k;
	json_t *j, *v;
	int rc;

	if (argc > 1) {
		char *p = esc(argv[1]);

		snprintf(path, sizeof(path), "/v1/accounts/%s/quotas/%s", u, p);
		free(p);
	} else
		snprintf(path, sizeof(path), "/v1/accounts/%s/privileges", u);
	free(u);
	if ((j = get(r, path, "quota", &rc)) == NULL)
		return rc;
	if (json_out)
		fputs(r->body, stdout);
	else if (argc > 1) {
		json_object_set_new(j, "type", json_string("quota"));
		value_text(j, val, sizeof(val));
		printf("%s %s: %s\n", argv[0], argv[1], val);
	} else
		json_object_foreach(json_object_get(j, "privileges"), k, v)
			if (strcmp(json_string_value(json_object_get(v, "type")), "quota") == 0) {
				value_text(v, val, sizeof(val));
				printf("%-22s %s\n", k, val);
			}
	json_decref(j);
	return EXIT_OK;
}

/* The ledger of who's quota: who is "accounts" or "pools" and a name. */
static int
ledger_of(struct rest *r, const char *kind, const char *who, const char *quota)
{
	char path[1024];
	char *u = esc(who), *p = esc(quota), *per = period ? esc(period) : NULL;
	json_t *j, *e;
	size_t i;
	int rc, pool = strcmp(kind, "pools") == 0;

	snprintf(path, sizeof(path), "/v1/%s/%s/quotas/%s/ledger?limit=1000%s%s%s%s", kind, u, p,
	    per ? "&period=" : "", per ? per : "", wallet ? "&wallet=" : "",
	    wallet ? wallet : "");
	free(u);
	free(p);
	free(per);
	if ((j = get(r, path, "ledger", &rc)) == NULL)
		return rc;
	if (json_out) {
		fputs(r->body, stdout);
		json_decref(j);
		return EXIT_OK;
	}
	if (wallet != NULL && strcmp(wallet, "paid") == 0)
		printf("%s %s, paid wallet: %lld entries\n", who, quota,
		    (long long)json_integer_value(json_object_get(j, "total")));
	else
		printf("%s%s %s, period %s: %lld entries\n", pool ? "pool " : "", who, quota,
		    json_string_value(json_object_get(j, "period")),
		    (long long)json_integer_value(json_object_get(j, "total")));
	printf("%-20s %-8s %7s  %-24s %-16s%s\n", "TIME", "KIND", "AMOUNT", "REQUEST", "ACTOR",
	    pool ? " ACCOUNT" : "");
	json_array_foreach(json_object_get(j, "entries"), i, e) {
		const char *t = json_string_value(json_object_get(e, "time"));
		const char *a = json_string_value(json_object_get(e, "actor"));
		const char *acc = json_string_value(json_object_get(e, "account"));
		json_t *ws = json_object_get(e, "wallets");
		char am[MONEY_TEXT_MAX], pd[MONEY_TEXT_MAX], kind[24];

		/* a split's allowance part, and the paid wallet's part beside it */
		snprintf(kind, sizeof(kind), "%s%s", json_string_value(json_object_get(e, "kind")),
		    json_is_true(json_object_get(e, "void")) ? "(void)" : "");
		printf("%-20.19s %-8s %7s  %-24.24s ", t ? t : "", kind,
		    amount(j, json_integer_value(json_object_get(e, "amount")), am),
		    json_string_value(json_object_get(e, "request_id")));
		if (ws != NULL)
			printf("(+%s paid) ", amount(j, json_integer_value(json_object_get(ws,
			    "paid")), pd));
		if (pool)	/* and who drew */
			printf("%-16.16s %s\n", a ? a : "", acc ? acc : "");
		else
			printf("%.16s\n", a ? a : "");
	}
	json_decref(j);
	return EXIT_OK;
}

static int
cmd_ledger(struct rest *r, int argc, char **argv)
{
	(void)argc;
	return ledger_of(r, "accounts", argv[0], argv[1]);
}

static int
cmd_sessions(struct rest *r, int argc, char **argv)
{
	char path[512], *u = esc(argv[0]), *p = esc(session_priv ? session_priv : "login.max_sessions");
	json_t *j, *e;
	size_t i;
	int rc;

	(void)argc;
	if (end_session != NULL) {
		char *id = esc(end_session);

		snprintf(path, sizeof(path), "/v1/accounts/%s/sessions/%s?privilege=%s", u, id, p);
		free(id);
		free(u);
		free(p);
		rc = rest_call(r, "DELETE", path, NULL, NULL, 0);
		if (rc != 0 || (rc = rest_fail(r, "sessions --end")) != 0)
			return rc;
		if (json_out)
			fputs(r->body, stdout);
		else {
			j = rest_json(r);
			printf("ended session %s of %s: %lld of %lld open\n", end_session, argv[0],
			    (long long)json_integer_value(json_object_get(j, "open")),
			    (long long)json_integer_value(json_object_get(j, "max")));
			json_decref(j);
		}
		return EXIT_OK;
	}
	snprintf(path, sizeof(path), "/v1/accounts/%s/sessions?privilege=%s", u, p);
	free(u);
	free(p);
	if ((j = get(r, path, "sessions", &rc)) == NULL)
		return rc;
	if (json_out) {
		fputs(r->body, stdout);
		json_decref(j);
		return EXIT_OK;
	}
	printf("%s %s: %lld of %lld open\n", argv[0],
	    json_string_value(json_object_get(j, "privilege")),
	    (long long)json_integer_value(json_object_get(j, "open")),
	    (long long)json_integer_value(json_object_get(j, "max")));
	printf("%-40s %-16s %-10s %-20s %s\n", "SESSION", "HOST", "SERVICE", "STARTED", "EXPIRES");
	json_array_foreach(json_object_get(j, "sessions"), i, e)
		printf("%-40s %-16s %-10s %-20s %s\n",
		    json_string_value(json_object_get(e, "session_id")),
		    json_string_value(json_object_get(e, "host")),
		    json_string_value(json_object_get(e, "service")),
		    json_string_value(json_object_get(e, "started")),
		    json_string_value(json_object_get(e, "expires")));
	json_decref(j);
	return EXIT_OK;
}

/* Credits amount (text) to who's quota; kind "accounts" or "pools". */
static int
credit_of(struct rest *r, const char *kind, const char *who, const char *quota,
    const char *text)
{
	char path[1024], id[96], cur[MONEY_CODE_MAX] = "", *end;
	char *u = esc(who), *p = esc(quota);
	long long n = strtoll(text, &end, 10);
	json_t *body, *j;
	int rc;

	/* a money quota takes money ("5", "5.50", "$5.50": dollars, not cents) */
	snprintf(path, sizeof(path), "/v1/%s/%s/quotas/%s", kind, u, p);
	if ((j = get(r, path, "credit", &rc)) == NULL) {
		free(u);
		free(p);
		return rc;
	}
	if (money_code_ok(json_string_value(json_object_get(j, "currency"))))
		snprintf(cur, sizeof(cur), "%s", json_string_value(json_object_get(j, "currency")));
	json_decref(j);
	if (*cur ? money_parse(text, cur, 1000000000LL, &n) != 0 || n <= 0 :
	    *text == '\0' || *end != '\0' || n <= 0) {
		free(u);
		free(p);
		if (*cur)
			fprintf(stderr, "privctl: credit: %s is money in %s: give an amount such as "
			    "5 or 5.50, not '%s'\n", quota, cur, text);
		else
			fprintf(stderr, "privctl: credit: the amount must be a positive whole number, "
			    "not '%s'\n", text);
		return EXIT_USAGE;
	}
	snprintf(path, sizeof(path), "/v1/%s/%s/quotas/%s/credits", kind, u, p);
	free(u);
	free(p);
	/* a fresh request id: a retried command is a new credit */
	snprintf(id, sizeof(id), "privctl-%ld-%d-%04x", (long)time(NULL), (int)getpid(),
	    (unsigned)(clock() ^ (unsigned long)&id) & 0xffff);
	body = json_pack("{s:s, s:I}", "request_id", id, "amount", (json_int_t)n);
	if (reason)
		json_object_set_new(body, "reason", json_string(reason));
	if (period)
		json_object_set_new(body, "period", json_string(period));
	if ((rc = post_json(r, path, "credit", body, &j)) != 0 || j == NULL)
		return rc;
	{
		char a[3][MONEY_TEXT_MAX];

		printf("credited %s to %s%s %s for %s: %s left of %s\n", amount(j, n, a[0]),
		    strcmp(kind, "pools") == 0 ? "the pool of " : "", who, quota,
		    json_string_value(json_object_get(j, "period")),
		    amount(j, json_integer_value(json_object_get(j, "remaining")), a[1]),
		    amount(j, json_integer_value(json_object_get(j, "limit")) +
		    json_integer_value(json_object_get(j, "credit")), a[2]));
	}
	json_decref(j);
	return EXIT_OK;
}

/* "privctl topup ACCOUNT PRIV N | reverse ID": the paid wallet (top-ups carry over). */
static int
cmd_topup(struct rest *r, int argc, char **argv)
{
	char path[1024], id[96], cur[MONEY_CODE_MAX] = "", a[2][MONEY_TEXT_MAX], *end;
	char *u = esc(argv[0]), *p = esc(argv[1]);
	int rev = argc == 4 && strcmp(argv[2], "reverse") == 0, rc;
	long long n = 0;
	json_t *j, *body;

	if (argc == 4 && !rev) {
		fprintf(stderr, "privctl: topup: ACCOUNT PRIV N, or ACCOUNT PRIV reverse ID\n");
		rc = EXIT_USAGE;
		goto out;
	}
	snprintf(path, sizeof(path), "/v1/accounts/%s/quotas/%s", u, p);
	if ((j = get(r, path, "topup", &rc)) == NULL)
		goto out;
	if (money_code_ok(json_string_value(json_object_get(j, "currency"))))
		snprintf(cur, sizeof(cur), "%s", json_string_value(json_object_get(j, "currency")));
	json_decref(j);
	if (rev) {
		char *t = esc(argv[3]);

		snprintf(path, sizeof(path), "/v1/accounts/%s/quotas/%s/topups/%s/reversal", u, p, t);
		free(t);
		body = reason ? json_pack("{s:s}", "reason", reason) : json_object();
	} else {
		n = strtoll(argv[2], &end, 10);
		if (*cur ? money_parse(argv[2], cur, 1000000000LL, &n) != 0 || n <= 0 :
		    *argv[2] == '\0' || *end != '\0' || n <= 0) {
			fprintf(stderr, "privctl: topup: the amount must be %s, not '%s'\n", *cur ?
			    "money such as 5 or 5.50" : "a positive whole number", argv[2]);
			rc = EXIT_USAGE;
			goto out;
		}
		snprintf(path, sizeof(path), "/v1/accounts/%s/quotas/%s/topups", u, p);
		/* a fresh request id: a retried command is a new top-up */
		snprintf(id, sizeof(id), "privctl-%ld-%d-%04x", (long)time(NULL), (int)getpid(),
		    (unsigned)(clock() ^ (unsigned long)&id) & 0xffff);
		body = json_pack("{s:s, s:I}", "request_id", id, "amount", (json_int_t)n);
		if (reason && body)
			json_object_set_new(body, "reference", json_string(reason));
	}
	if ((rc = post_json(r, path, "topup", body, &j)) != 0 || j == NULL)
		goto out;
	if (rev)
		printf("reversed top-up %s of %s %s (%s)", argv[3], argv[0], argv[1],
		    amount(j, json_integer_value(json_object_get(j, "reversed")), a[0]));
	else
		printf("topped up %s %s by %s", argv[0], argv[1], amount(j, n, a[0]));
	printf(": %s paid left\n", amount(j, json_integer_value(json_object_get(
	    json_object_get(j, "paid"), "remaining")), a[1]));
	json_decref(j);
out:
	free(u);
	free(p);
	return rc;
}

static int
cmd_credit(struct rest *r, int argc, char **argv)
{
	(void)argc;
	return credit_of(r, "accounts", argv[0], argv[1], argv[2]);
}

/*
 * "privctl voucher create --quota Q --value V --count N [--expires DATE]
 * [--batch NAME]" prints the codes (the only copy: LDAP keeps their
 * hashes); "privctl voucher list [--batch NAME]" which are used, by whom.
 */
static int
cmd_voucher(struct rest *r, int argc, char **argv)
{
	char path[256], a[MONEY_TEXT_MAX], *b;
	json_t *j, *v, *body;
	size_t i;
	int rc;

	(void)argc;
	if (strcmp(argv[0], "create") == 0) {
		char *end;
		long long value = v_value ? strtoll(v_value, &end, 10) : 0;
		long long count = v_count ? strtoll(v_count, &end, 10) : 0;

		if (v_quota == NULL || value <= 0 || count <= 0) {
			fprintf(stderr, "privctl: voucher create needs --quota QUOTA, --value N (in "
			    "the quota's units: cents for money) and --count N\n");
			return EXIT_USAGE;
		}
		body = json_pack("{s:s, s:I, s:I}", "quota", v_quota, "value", (json_int_t)value,
		    "count", (json_int_t)count);
		if (body && v_expires)
			json_object_set_new(body, "expires", json_string(v_expires));
		if (body && v_batch)
			json_object_set_new(body, "batch", json_string(v_batch));
		if ((rc = post_json(r, "/v1/vouchers", "voucher create", body, &j)) != 0 ||
		    j == NULL)
			return rc;
		fprintf(stderr, "batch %s: %lld vouchers of %s worth %s each%s%s; the codes are "
		    "shown only now\n", json_string_value(json_object_get(j, "batch")),
		    (long long)json_integer_value(json_object_get(j, "count")),
		    json_string_value(json_object_get(j, "quota")),
		    amount(j, json_integer_value(json_object_get(j, "value")), a),
		    v_expires ? ", until " : "", v_expires ? v_expires : "");
		json_array_foreach(json_object_get(j, "codes"), i, v)
			printf("%s\n", json_string_value(v));
		json_decref(j);
		return EXIT_OK;
	}
	if (strcmp(argv[0], "list") != 0) {
		fprintf(stderr, "privctl: voucher: create or list, not '%s'\n", argv[0]);
		return EXIT_USAGE;
	}
	b = v_batch ? esc(v_batch) : NULL;
	snprintf(path, sizeof(path), "/v1/vouchers%s%s", b ? "?batch=" : "", b ? b : "");
	free(b);
	if ((j = get(r, path, "voucher list", &rc)) == NULL)
		return rc;
	if (json_out) {
		fputs(r->body, stdout);
		json_decref(j);
		return EXIT_OK;
	}
	printf("%lld vouchers, %lld used\n", (long long)json_integer_value(json_object_get(j,
	    "total")), (long long)json_integer_value(json_object_get(j, "used")));
	printf("%-16s %-20s %-16s %10s %-10s %-12s %s\n", "ID", "BATCH", "QUOTA", "VALUE",
	    "EXPIRES", "REDEEMED BY", "AT");
	json_array_foreach(json_object_get(j, "vouchers"), i, v) {
		const char *ex = json_string_value(json_object_get(v, "expires"));
		const char *by = json_string_value(json_object_get(v, "redeemed_by"));
		const char *at = json_string_value(json_object_get(v, "redeemed_at"));

		printf("%-16s %-20.20s %-16.16s %10s %-10s %-12.12s %s\n",
		    json_string_value(json_object_get(v, "id")),
		    json_string_value(json_object_get(v, "batch")),
		    json_string_value(json_object_get(v, "quota")),
		    amount(v, json_integer_value(json_object_get(v, "value")), a),
		    ex ? ex : "-", by ? by : "-", at ? at : "");
	}
	json_decref(j);
	return EXIT_OK;
}

/* One rate card: "NAME  charges QUOTA: mono $0.10, colour $0.40, ..." */
static void
printer_line(json_t *p, int long_form)
{
	static const char *const keys[] = { "mono", "colour", "duplex_mono", "duplex_colour",
	    "job" };
	json_t *price = json_object_get(p, "price"), *f;
	char a[MONEY_TEXT_MAX];
	const char *k;
	size_t i;

	printf("%-20s charges %s:", json_string_value(json_object_get(p, "name")),
	    json_string_value(json_object_get(p, "charge")));
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		printf("%s %s %s", i ? "," : "", keys[i],
		    amount(p, json_integer_value(json_object_get(price, keys[i])), a));
	printf("%s\n", long_form ? " (a side; job: once a job)" : "");
	json_object_foreach(json_object_get(p, "media"), k, f)
		printf("  media %s x %g\n", k, json_number_value(f));
}

/* privctl printer list | show NAME: the printers' rate cards. */
static int
cmd_printer(struct rest *r, int argc, char **argv)
{
	char path[512], *c;
	json_t *j, *p;
	size_t i;
	int rc, show = strcmp(argv[0], "show") == 0;

	if (!(strcmp(argv[0], "list") == 0 && argc == 1) && !(show && argc == 2)) {
		fprintf(stderr, "privctl: printer list | printer show NAME\n");
		return EXIT_USAGE;
	}
	if (show) {
		c = esc(argv[1]);
		snprintf(path, sizeof(path), "/v1/printers/%s", c);
		free(c);
	} else
		snprintf(path, sizeof(path), "/v1/printers");
	if ((j = get(r, path, show ? "printer show" : "printer list", &rc)) == NULL)
		return rc;
	if (json_out)
		fputs(r->body, stdout);
	else if (show)
		printer_line(j, 1);
	else if (json_array_size(json_object_get(j, "printers")) == 0)
		printf("no printer has a rate card (jobs count pages)\n");
	else
		json_array_foreach(json_object_get(j, "printers"), i, p)
			printer_line(p, 0);
	json_decref(j);
	return EXIT_OK;
}

/* privctl pool list|show|members|grant|revoke|credit|ledger ... */
static int
cmd_pool(struct rest *r, int argc, char **argv)
{
	const char *verb = argv[0];
	char path[1024], *c;
	json_t *j, *p;
	size_t i;
	int rc;

	if (strcmp(verb, "list") == 0 && argc == 1) {
		if ((j = get(r, "/v1/pools", "pool list", &rc)) == NULL)
			return rc;
		if (json_out)
			fputs(r->body, stdout);
		else if (json_array_size(json_object_get(j, "pools")) == 0)
			printf("no pools\n");
		json_array_foreach(json_object_get(j, "pools"), i, p) {
			if (json_out)
				break;
			printf("%s\n", json_string_value(json_object_get(p, "cell")));
			pool_quotas(json_object_get(p, "quotas"), "  ");
		}
		json_decref(j);
		return EXIT_OK;
	}
	if ((strcmp(verb, "show") == 0 || strcmp(verb, "members") == 0) && argc == 2) {
		int members = verb[0] == 'm';

		c = esc(argv[1]);
		snprintf(path, sizeof(path), "/v1/pools/%s%s", c, members ? "/members" : "");
		free(c);
		if ((j = get(r, path, members ? "pool members" : "pool show", &rc)) == NULL)
			return rc;
		if (json_out)
			fputs(r->body, stdout);
		else if (members) {
			printf("%lld accounts may draw on the pools of %s\n",
			    (long long)json_integer_value(json_object_get(j, "total")), argv[1]);
			json_array_foreach(json_object_get(j, "accounts"), i, p)
				printf("  %-16s via %s\n", json_string_value(json_object_get(p, "account")),
				    json_string_value(json_object_get(p, "via")));
		} else {
			printf("pool %s: %lld accounts may draw on it\n", argv[1],
			    (long long)json_integer_value(json_object_get(j, "members")));
			pool_quotas(json_object_get(j, "quotas"), "  ");
		}
		json_decref(j);
		return EXIT_OK;
	}
	if (strcmp(verb, "grant") == 0 && argc >= 3) {
		json_t *body = json_pack("{s:s, s:[]}", "cell", argv[1], "pools");

		for (i = 2; body && i < (size_t)argc; i++)
			json_array_append_new(json_object_get(body, "pools"), json_string(argv[i]));
		return write_call(r, "POST", dry_run ? "/v1/pools?dry_run=1" : "/v1/pools",
		    "pool grant", body);
	}
	if (strcmp(verb, "revoke") == 0 && argc == 3)
		return delete_call(r, "/v1/pools", "cell", argv[1], "quota", argv[2], "pool revoke");
	if (strcmp(verb, "credit") == 0 && argc == 4)
		return credit_of(r, "pools", argv[1], argv[2], argv[3]);
	if (strcmp(verb, "ledger") == 0 && argc == 3)
		return ledger_of(r, "pools", argv[1], argv[2]);
	fprintf(stderr, "privctl: pool: unknown subcommand or operands: %s (see privctl help pool)\n", verb);
	return EXIT_USAGE;
}

/* An import file, or stdin for "-": bounded, and a file must be a regular one
 * (rfile.h); NULL with why (n bytes). */
static char *
slurp(const char *path, size_t *len, char *why, size_t n)
{
	char *buf = NULL, *nb;
	size_t cap = 0, got;

	*len = 0;
	if (strcmp(path, "-") != 0)
		return rfile_read(path, RFILE_IMPORT_MAX, &buf, len, why, n) == 0 ? buf : NULL;
	for (;;) {
		if (*len + 65536 + 1 > cap) {
			cap = (*len + 65536 + 1) * 2;
			if (cap > (size_t)RFILE_IMPORT_MAX + 65537 || (nb = realloc(buf, cap)) == NULL) {
				snprintf(why, n, "larger than %u bytes, or out of memory",
				    RFILE_IMPORT_MAX);
				free(buf);
				return NULL;
			}
			buf = nb;
		}
		got = fread(buf + *len, 1, 65536, stdin);
		*len += got;
		if (got == 0)
			break;
	}
	buf[*len] = '\0';
	return buf;
}

/* privctl import --abort ID: writes back what an unfinished import changed. */
static int
import_abort(struct rest *r, const char *id)
{
	char *eid = rest_escape(id), *path = NULL;
	int rc;

	if (eid == NULL || asprintf(&path, "/v1/imports/%s/abort", eid) < 0) {
		free(eid);
		return EXIT_USAGE;
	}
	free(eid);
	rc = rest_call(r, "POST", path, "application/json", "{}", 2);
	free(path);
	if (rc != 0 || (rc = rest_fail(r, "import --abort")) != 0)
		return rc;
	if (json_out)
		fputs(r->body, stdout);
	else
		printf("import %s aborted: the model is as it was before it\n", id);
	return EXIT_OK;
}

static int
cmd_imports(struct rest *r, int argc, char **argv)
{
	json_t *j, *v;
	size_t i;
	int rc;

	(void)argc;
	(void)argv;
	if ((rc = rest_call(r, "GET", "/v1/imports", NULL, NULL, 0)) != 0 ||
	    (rc = rest_fail(r, "imports")) != 0)
		return rc;
	if (json_out) {
		fputs(r->body, stdout);
		return EXIT_OK;
	}
	j = rest_json(r);
	json_array_foreach(json_object_get(j, "imports"), i, v)
		printf("%-32s %-8s %-10s %s\n", json_string_value(json_object_get(v, "id")),
		    json_string_value(json_object_get(v, "state")),
		    json_string_value(json_object_get(v, "what")),
		    json_string_value(json_object_get(v, "actor")));
	json_decref(j);
	return EXIT_OK;
}

static int
cmd_import(struct rest *r, int argc, char **argv)
{
	size_t len;
	char *text, why[200];
	json_t *j, *ch, *line;
	size_t i;
	int rc;

	(void)argc;
	if (abort_import)
		return import_abort(r, argv[0]);
	r->no_timeout = 1;
	if ((text = slurp(argv[0], &len, why, sizeof(why))) == NULL) {
		fprintf(stderr, "privctl: import: %s: %s\n", argv[0], why);
		return EXIT_USAGE;
	}
	rc = rest_call(r, "POST", dry_run ? "/v1/import?dry_run=1" : "/v1/import",
	    "application/yaml", text, len);
	free(text);
	if (rc != 0)
		return rc;
	if (r->status == 400) {
		j = rest_json(r);
		fprintf(stderr, "privctl: import: %s:%lld: %s\n", argv[0],
		    (long long)json_integer_value(json_object_get(j, "line")),
		    json_string_value(json_object_get(j, "message")));
		json_decref(j);
		return EXIT_REFUSED;
	}
	if ((rc = rest_fail(r, "import")) != 0)
		return rc;
	if (json_out) {
		fputs(r->body, stdout);
		return EXIT_OK;
	}
	j = rest_json(r);
	ch = json_object_get(j, "changes");
	json_array_foreach(ch, i, line)
		printf("%s\n", json_string_value(line));
	printf("%s%zu change%s\n", dry_run ? "dry run, nothing written: " : "",
	    json_array_size(ch), json_array_size(ch) == 1 ? "" : "s");
	if (json_is_true(json_object_get(j, "resumed")))
		printf("finished the interrupted import %s\n",
		    json_string_value(json_object_get(j, "import_id")));
	json_decref(j);
	return EXIT_OK;
}

/*
 * privctl test FILE: a model test runs where the model is checked, with no
 * server and no directory, so it is privd's own (privd test, the same
 * resolution code); privctl runs it: $PRIVD_BIN, the privd beside privctl
 * or under ../sbin, or privd on PATH.
 */
static int
cmd_test(struct rest *r, int argc, char **argv)
{
	char self[4096], cand[4200], *slash;
	const char *args[6], *env = getenv("PRIVD_BIN");
	ssize_t n;
	int k = 0;

	(void)r;
	(void)argc;
	args[k++] = "privd";
	if (privd_config != NULL) {
		args[k++] = "-c";
		args[k++] = privd_config;
	}
	args[k++] = "test";
	args[k++] = argv[0];
	args[k] = NULL;
	if (env != NULL && *env != '\0')
		execv(env, (char *const *)args);
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL) {
			*slash = '\0';
			snprintf(cand, sizeof(cand), "%s/privd", self);
			execv(cand, (char *const *)args);
			snprintf(cand, sizeof(cand), "%s/../sbin/privd", self);
			execv(cand, (char *const *)args);
		}
	}
	execvp("privd", (char *const *)args);
	execv("/usr/sbin/privd", (char *const *)args);
	fprintf(stderr, "privctl: test: cannot run privd (set PRIVD_BIN to its path): %s\n",
	    strerror(errno));
	return EXIT_USAGE;
}

static int
cmd_export(struct rest *r, int argc, char **argv)
{
	FILE *f = stdout;
	int rc;

	if ((rc = rest_call(r, "GET", "/v1/export", NULL, NULL, 0)) != 0 ||
	    (rc = rest_fail(r, "export")) != 0)
		return rc;
	if (argc > 0 && strcmp(argv[0], "-") != 0 && (f = fopen(argv[0], "w")) == NULL) {
		fprintf(stderr, "privctl: export: cannot write %s\n", argv[0]);
		return EXIT_USAGE;
	}
	fwrite(r->body, 1, r->len, f);
	if (f != stdout && fclose(f) != 0) {
		fprintf(stderr, "privctl: export: cannot write %s\n", argv[0]);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/* A bar of width cells for share (0..1), in eighths of a block. */
static void
bar(double share, int width)
{
	static const char *eighths[] = { "", "\u258f", "\u258e", "\u258d", "\u258c", "\u258b",
	    "\u258a", "\u2589" };
	int e = (int)(share * width * 8 + 0.5), i;

	if (e > width * 8)
		e = width * 8;
	for (i = 0; i < e / 8; i++)
		fputs("\u2588", stdout);
	fputs(eighths[e % 8], stdout);
}

static int
cmd_report(struct rest *r, int argc, char **argv)
{
	char path[1024];
	char *p = esc(argv[0]), *by = report_by ? esc(report_by) : NULL;
	char *under = report_under ? esc(report_under) : NULL, *per = period ? esc(period) : NULL;
	json_t *j, *e;
	size_t i;
	int rc;

	(void)argc;
	snprintf(path, sizeof(path), "/v1/reports/usage?privilege=%s%s%s%s%s%s%s%s%s%s%s%s", p,
	    by ? "&by=" : "", by ? by : "", report_depth ? "&depth=" : "",
	    report_depth ? report_depth : "", under ? "&under=" : "", under ? under : "",
	    per ? "&period=" : "", per ? per : "", report_top ? "&top=" : "",
	    report_top ? report_top : "", csv_out ? "&format=csv" : "");
	free(p);
	free(by);
	free(under);
	free(per);
	if (csv_out) {
		if ((rc = rest_call(r, "GET", path, NULL, NULL, 0)) != 0 ||
		    (rc = rest_fail(r, "report")) != 0)
			return rc;
		fwrite(r->body, 1, r->len, stdout);
		return EXIT_OK;
	}
	if ((j = get(r, path, "report", &rc)) == NULL)
		return rc;
	if (json_out) {
		fputs(r->body, stdout);
		json_decref(j);
		return EXIT_OK;
	}
	printf("%s by %s, period %s: %lld used by %lld accounts\n", argv[0],
	    json_string_value(json_object_get(j, "by")),
	    json_string_value(json_object_get(j, "period")),
	    (long long)json_integer_value(json_object_get(j, "used")),
	    (long long)json_integer_value(json_object_get(j, "accounts")));
	/* 80 columns: 24 + 1 + 8 + 1 + 9 + 1 + 9 + 1 + 9 + 1 + 6 + 1 + 9 */
	printf("%-24s %8s %9s %9s %9s %6s %s\n", "NODE", "ACCOUNTS", "USED", "OWN", "LIMIT",
	    "SHARE", "");
	json_array_foreach(json_object_get(j, "rows"), i, e) {
		const char *node = json_string_value(json_object_get(e, "path"));
		double share = json_real_value(json_object_get(e, "share"));
		char a[3][MONEY_TEXT_MAX];

		printf("%-24.24s %8lld %9s %9s %9s %5.1f%% ", node && *node ? node : "/",
		    (long long)json_integer_value(json_object_get(e, "accounts")),
		    amount(j, json_integer_value(json_object_get(e, "used")), a[0]),
		    amount(j, json_integer_value(json_object_get(e, "own_used")), a[1]),
		    amount(j, json_integer_value(json_object_get(e, "limit")), a[2]), share * 100);
		bar(share, 9);
		putchar('\n');
	}
	printf("A row counts its whole subtree; OWN is what its own members used.\n");
	if (json_integer_value(json_object_get(j, "multi_node_accounts")) > 0)
		printf("%lld accounts have memberships in rows apart and count in each.\n",
		    (long long)json_integer_value(json_object_get(j, "multi_node_accounts")));
	if (json_integer_value(json_object_get(j, "topped_up")) > 0) {
		char a[2][MONEY_TEXT_MAX];

		printf("paid wallets (all periods): %s topped up, %s used\n",
		    amount(j, json_integer_value(json_object_get(j, "topped_up")), a[0]),
		    amount(j, json_integer_value(json_object_get(j, "paid_used")), a[1]));
	}
	if (json_array_size(json_object_get(j, "top")) > 0) {
		printf("heaviest accounts:\n");
		json_array_foreach(json_object_get(j, "top"), i, e)
			printf("  %-24.24s %9lld of %lld\n",
			    json_string_value(json_object_get(e, "account")),
			    (long long)json_integer_value(json_object_get(e, "used")),
			    (long long)json_integer_value(json_object_get(e, "limit")));
	}
	json_decref(j);
	return EXIT_OK;
}

static const struct cmd cmds[] = {
	{ "tree", "reasons|organisations",
	  "Draws the tree with each node's member and grant counts.", cmd_tree, 1, 1 },
	{ "grant", "CELL PRIV=VALUE|PRIV+=ELEM|PRIV-=ELEM ... [--dry-run]",
	  "Sets grants on a cell (REASON@ORGANISATION), creating the cell and any\n"
	  "missing tree nodes. A grant replaces the cell's grant of the same privilege\n"
	  "(or set element); the others stay.", cmd_grant, 2, 64 },
	{ "revoke", "CELL PRIV [--dry-run]", "Removes every grant of PRIV from a cell.",
	  cmd_revoke, 2, 2 },
	{ "add", "ACCOUNT CELL [--from DATE] [--until DATE] [--dry-run]",
	  "Makes ACCOUNT a member of CELL (its reason must be a leaf); creates missing\n"
	  "nodes and the cell. --from and --until bound it in time (2026-09-01,\n"
	  "2026-09-01T08:30, or a term: its start, or its end); privd switches at\n"
	  "the bound by itself. Adding the cell again sets new bounds.", cmd_add, 2, 2 },
	{ "expiring", "[--within 14d] [--json]",
	  "Dated memberships that end within the time given (14d, 36h, 90m).",
	  cmd_expiring, 0, 0 },
	{ "purge-expired", "[--dry-run]",
	  "Removes every dated membership that has ended.", cmd_purge_expired, 0, 0 },
	{ "remove", "ACCOUNT CELL [--dry-run]", "Ends ACCOUNT's membership of CELL.",
	  cmd_remove, 2, 2 },
	{ "mkdir", "reason|organisation PATH [--dry-run]",
	  "Creates a tree node and any missing parents.", cmd_mkdir, 2, 2 },
	{ "rmdir", "reason|organisation PATH [--force] [--dry-run]",
	  "Deletes a node and its subtree. A node whose cells have members or grants\n"
	  "is refused (and named) unless --force, which removes them too.", cmd_rmdir, 2, 2 },
	{ "mv", "reason|organisation FROM TO [--dry-run]",
	  "Moves or renames a node with its subtree; its cells and their memberships\n"
	  "follow.", cmd_mv, 3, 3 },
	{ "show", "ACCOUNT [--json]", "The account's effective privileges.", cmd_show, 1, 1 },
	{ "explain", "ACCOUNT [PRIV] [--pool CELL] [--json]",
	  "For each privilege: the grants that decide it, with their cell and\n"
	  "membership, and the grants they overrode or outweighed. With --pool CELL:\n"
	  "whether ACCOUNT may draw on CELL's pools, membership by membership.", cmd_explain, 1, 2 },
	{ "who", "PRIV [VALUE] [--json]",
	  "The cells that grant PRIV (VALUE: that set element, or at least that number)\n"
	  "and the accounts that have it.", cmd_who, 1, 2 },
	{ "quota", "ACCOUNT [PRIV] [--json]", "Limit, credit, used and what remains.",
	  cmd_quota, 1, 2 },
	{ "ledger", "ACCOUNT PRIV [--period P | --wallet paid] [--json]",
	  "Every charge, refund, hold, commit, release and credit of a period\n"
	  "(default: the current one), newest first; with --wallet paid, the paid\n"
	  "wallet's top-ups, reversals and what was drawn on it.", cmd_ledger, 2, 2 },
	{ "sessions", "ACCOUNT [--end ID] [--privilege PRIV] [--json]",
	  "The account's open sessions (of login.max_sessions, or PRIV): host, service,\n"
	  "start and expiry. --end ID ends one.", cmd_sessions, 1, 1 },
	{ "credit", "ACCOUNT PRIV N [--reason TEXT] [--period P]",
	  "Adds N to the account's limit for the current (or a named) period.",
	  cmd_credit, 3, 3 },
	{ "topup", "ACCOUNT PRIV N [--reason REF] | ACCOUNT PRIV reverse ID [--reason TEXT]",
	  "Adds N to the account's paid wallet, which carries across periods and is\n"
	  "drawn on after the allowance; reverse takes top-up ID back (a ledger entry).",
	  cmd_topup, 3, 4 },
	{ "pool", "list | show CELL | members CELL | grant CELL QUOTA=N ... [--dry-run]\n"
	  "               | revoke CELL QUOTA | credit CELL QUOTA N | ledger CELL QUOTA",
	  "Shared budgets held by cells: every account with a membership the cell\n"
	  "covers may draw on them. list and show give used and left; members who may\n"
	  "draw and through which membership; grant sets limits, revoke drops one.",
	  cmd_pool, 1, 258 },
	{ "voucher", "create --quota Q --value N --count N [--expires DATE] [--batch NAME]\n"
	  "               | list [--batch NAME] [--json]",
	  "Vouchers that top up a paid wallet once: create prints the codes (the only\n"
	  "copy; LDAP keeps their hashes), N in the quota's units (cents for money);\n"
	  "list shows which are used, by whom and when.", cmd_voucher, 1, 1 },
	{ "printer", "list | show NAME [--json]",
	  "The printers' rate cards: the quota each draws on, its prices per side\n"
	  "(mono, colour, two-sided) and per job, and its media factors.",
	  cmd_printer, 1, 2 },
	{ "report", "QUOTA [--by organisation|reason] [--depth N] [--under PATH] [--period P]\n"
	  "               [--top N] [--csv] [--json]",
	  "Usage of QUOTA summed per node of a tree (default: the organisation tree,\n"
	  "its top nodes), with a bar per row; --top N lists the heaviest accounts.\n"
	  "An account with memberships in several rows counts once in each.",
	  cmd_report, 1, 1 },
	{ "import", "FILE.yaml [--dry-run] | --abort ID",
	  "Makes the directory match the file (man privd-import). With --dry-run, prints\n"
	  "what would change and changes nothing. An interrupted import (privd or\n"
	  "slapd killed, LDAP gone) is finished by running the same file again, or\n"
	  "undone with --abort ID (privctl imports lists them).", cmd_import, 1, 1 },
	{ "imports", "[--json]", "Recorded imports and multi-entry edits: id, state, what, who.",
	  cmd_imports, 0, 0 },
	{ "export", "[FILE]", "Writes the whole model in the import format (default: stdout).",
	  cmd_export, 0, 1 },
	{ "test", "FILE.yaml [--config PRIVD.yaml]",
	  "A model test, with no server and no directory: the model file (an import\n"
	  "file or an export) and what its accounts should have; each failure with\n"
	  "the explain of what was found. Exit 0 all pass, 1 a failure, 2 a bad test\n"
	  "file (line and key). Runs privd test (doc/model-tests.md).", cmd_test, 1, 1 },
	{ NULL, NULL, NULL, NULL, 0, 0 }
};

static void
usage(FILE *f)
{
	const struct cmd *c;

	fprintf(f,
	    "usage: privctl [--url URL] [--key KEY] [--user UID:PASSWORD] [--json]\n"
	    "               COMMAND [ARGS]\n"
	    "       privctl COMMAND --help\n\n"
	    "URL and KEY come from the flags, else PRIVD_URL and PRIVD_KEY (PRIVD_USER for\n"
	    "HTTP Basic), else ~/.config/privctl/config.yaml (url:, key:).\n"
	    "Exit status: 0 done, 1 refused or not found, 2 usage, 3 privd unreachable.\n\n"
	    "commands:\n");
	for (c = cmds; c->name; c++)
		fprintf(f, "  %-8s %s\n", c->name, c->args);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "url", required_argument, NULL, 'u' },
		{ "key", required_argument, NULL, 'k' },
		{ "user", required_argument, NULL, 'U' },
		{ "json", no_argument, NULL, 'j' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "force", no_argument, NULL, 'f' },
		{ "abort", no_argument, NULL, 'a' },
		{ "period", required_argument, NULL, 'p' },
		{ "reason", required_argument, NULL, 'r' },
		{ "wallet", required_argument, NULL, 'X' },
		{ "quota", required_argument, NULL, 'Q' },
		{ "value", required_argument, NULL, 'A' },
		{ "count", required_argument, NULL, 'N' },
		{ "expires", required_argument, NULL, 'Y' },
		{ "batch", required_argument, NULL, 'B' },
		{ "end", required_argument, NULL, 'E' },
		{ "privilege", required_argument, NULL, 'P' },
		{ "by", required_argument, NULL, 'b' },
		{ "depth", required_argument, NULL, 'D' },
		{ "under", required_argument, NULL, 'w' },
		{ "top", required_argument, NULL, 't' },
		{ "csv", no_argument, NULL, 'c' },
		{ "from", required_argument, NULL, 'F' },
		{ "until", required_argument, NULL, 'T' },
		{ "within", required_argument, NULL, 'W' },
		{ "pool", required_argument, NULL, 'O' },
		{ "config", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct conf cf = { NULL, NULL, NULL };
	struct rest r;
	const struct cmd *c = NULL;
	int ch, help = 0, rc, n;

	/* GNU getopt moves the operands after the flags: flags may come anywhere */
	while ((ch = getopt_long(argc, argv, "hj", opts, NULL)) != -1) {
		switch (ch) {
		case 'u': free(cf.url); cf.url = strdup(optarg); break;
		case 'k': free(cf.key); cf.key = strdup(optarg); break;
		case 'U': free(cf.user); cf.user = strdup(optarg); break;
		case 'j': json_out = 1; break;
		case 'n': dry_run = 1; break;
		case 'f': force = 1; break;
		case 'a': abort_import = 1; break;
		case 'p': period = optarg; break;
		case 'r': reason = optarg; break;
		case 'X': wallet = optarg; break;
		case 'Q': v_quota = optarg; break;
		case 'A': v_value = optarg; break;
		case 'N': v_count = optarg; break;
		case 'Y': v_expires = optarg; break;
		case 'B': v_batch = optarg; break;
		case 'E': end_session = optarg; break;
		case 'P': session_priv = optarg; break;
		case 'b': report_by = optarg; break;
		case 'D': report_depth = optarg; break;
		case 'w': report_under = optarg; break;
		case 't': report_top = optarg; break;
		case 'c': csv_out = 1; break;
		case 'F': from_date = optarg; break;
		case 'T': until_date = optarg; break;
		case 'W': within = optarg; break;
		case 'O': pool_cell = optarg; break;
		case 'C': privd_config = optarg; break;
		case 'h': help = 1; break;
		case 'V': printf("privctl %s\n", PRIVCTL_VERSION); conf_free(&cf); return EXIT_OK;
		default: usage(stderr); conf_free(&cf); return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		for (c = cmds; c->name && strcmp(c->name, argv[optind]) != 0; c++)
			;
		if (c->name == NULL) {
			fprintf(stderr, "privctl: unknown command '%s'\n", argv[optind]);
			usage(stderr);
			conf_free(&cf);
			return EXIT_USAGE;
		}
		optind++;
	}
	if (c == NULL) {
		usage(help ? stdout : stderr);
		conf_free(&cf);
		return help ? EXIT_OK : EXIT_USAGE;
	}
	n = argc - optind;
	if (help || n < c->min || n > c->max) {
		conf_free(&cf);
		return usage_of(c, help ? stdout : stderr);
	}
	/* a model test needs no privd to talk to */
	if (c->fn == cmd_test) {
		conf_free(&cf);
		return cmd_test(NULL, n, argv + optind);
	}
	if (conf_load(&cf) != 0) {
		conf_free(&cf);
		return EXIT_USAGE;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	memset(&r, 0, sizeof(r));
	r.url = cf.url;
	r.key = cf.key;
	r.user = cf.user;
	rc = c->fn(&r, n, argv + optind);
	rest_free(&r);
	curl_global_cleanup();
	conf_free(&cf);
	return rc;
}

/* cfgnotify.c - the notify section and privileges' thresholds (cfgnotify.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfgnotify.h"
#include "err.h"
#include "ydoc.h"

const char *const cfg_notice_templates[3] = { "low.txt", "pool-low.txt", "digest.txt" };

static const char *const days[] = { "sunday", "monday", "tuesday", "wednesday", "thursday",
    "friday", "saturday", "off" };

/* path relative to the configuration file at conf, wherever privd runs; malloc'd */
static char *
beside(const char *conf, const char *path)
{
	const char *slash = strrchr(conf, '/');
	char *out;

	if (path[0] == '/' || slash == NULL)
		return strdup(path);
	if (asprintf(&out, "%.*s/%s", (int)(slash - conf), conf, path) < 0)
		return NULL;
	return out;
}

void
cfg_notify_defaults(struct cfg_notify *n)
{
	memset(n, 0, sizeof(*n));
	n->digest_wday = -1;
	n->retry_s = 60;
}

void
cfg_notify_free(struct cfg_notify *n)
{
	size_t i;

	for (i = 0; i < n->nadmins; i++)
		free(n->admins[i]);
	free(n->admins);
	free(n->smtp);
	free(n->from);
	free(n->templates);
	memset(n, 0, sizeof(*n));
}

static int
address_ok(const char *a)
{
	const char *at = strchr(a, '@');

	return at != NULL && at != a && at[1] != '\0' && strpbrk(a, " \t\r\n<>,;") == NULL &&
	    strlen(a) < 256;
}

int
cfg_parse_notify(struct cfgr *x, const yaml_node_t *m, const char *path, struct cfg_notify *c)
{
	size_t i;
	int d;

	if (cfgr_map(x, m, "notify") != 0)
		return -1;
	YDOC_PAIRS(m, p) {
		yaml_node_t *k = ydoc_get(x->doc, p->key), *v = ydoc_get(x->doc, p->value);
		const char *ks = ydoc_str(k);

		if (strcmp(ks, "smtp") == 0) {
			if (cfgr_dup(x, v, "notify.smtp", &c->smtp) != 0)
				return -1;
			if (strncmp(c->smtp, "smtp://", 7) != 0 &&
			    strncmp(c->smtp, "smtps://", 8) != 0)
				return cfgr_bad(x, v, "notify.smtp", "%s: an SMTP URL, smtp://host[:port] "
				    "or smtps://host[:port]", "notify.smtp");
		} else if (strcmp(ks, "from") == 0) {
			if (cfgr_dup(x, v, "notify.from", &c->from) != 0)
				return -1;
			if (!address_ok(c->from))
				return cfgr_bad(x, v, "notify.from", "%s: an address, such as "
				    "print@example.edu", "notify.from");
		} else if (strcmp(ks, "templates") == 0) {
			const char *t = cfgr_str(x, v, "notify.templates");

			if (t == NULL)
				return -1;
			free(c->templates);
			if ((c->templates = beside(path, t)) == NULL)
				return err_set(x->e, ERR_INTERNAL, 0, NULL, "out of memory");
			for (i = 0; i < 3 && !x->no_files; i++) {
				char path[1200];

				snprintf(path, sizeof(path), "%s/%s", c->templates,
				    cfg_notice_templates[i]);
				if (access(path, R_OK) != 0)
					return err_set(x->e, ERR_INVALID, (int)v->start_mark.line + 1,
					    "notify.templates", "notify.templates: cannot read %s "
					    "(the directory holds low.txt, pool-low.txt and digest.txt; "
					    "deploy/notices has privd's)", path);
			}
		} else if (strcmp(ks, "admins") == 0) {
			if (!ydoc_is_seq(v))
				return cfgr_bad(x, v, "notify.admins", "%s: a list of addresses",
				    "notify.admins");
			YDOC_ITEMS(v, it) {
				yaml_node_t *u = ydoc_get(x->doc, *it);
				const char *s = cfgr_str(x, u, "notify.admins");
				char **na;

				if (s == NULL)
					return -1;
				if (!address_ok(s))
					return cfgr_bad(x, u, "notify.admins", "notify.admins: '%s' is not "
					    "an address", s);
				na = realloc(c->admins, (c->nadmins + 1) * sizeof(*na));
				if (na == NULL)
					return err_set(x->e, ERR_INTERNAL, 0, NULL, "out of memory");
				c->admins = na;
				if ((na[c->nadmins] = strdup(s)) == NULL)
					return err_set(x->e, ERR_INTERNAL, 0, NULL, "out of memory");
				c->nadmins++;
			}
		} else if (strcmp(ks, "digest") == 0) {
			if (cfgr_pick(x, v, "notify.digest", days, 8, &d) != 0)
				return -1;
			c->digest_wday = d == 7 ? -1 : d;
		} else if (strcmp(ks, "retry") == 0) {
			long n;

			if (cfgr_int(x, v, "notify.retry", 1, 86400, &n) != 0)
				return -1;
			c->retry_s = (int)n;
		} else
			return cfgr_unknown(x, k, "notify");
	}
	if (c->smtp == NULL || c->from == NULL || c->templates == NULL)
		return cfgr_bad(x, m, "notify", "%s: needs smtp, from and templates", "notify");
	if (c->digest_wday >= 0 && c->nadmins == 0)
		return cfgr_bad(x, m, "notify.admins", "%s: a digest needs admins to send it to",
		    "notify");
	return 0;
}

int
cfg_parse_thresholds(struct cfgr *x, const yaml_node_t *v, const char *name,
    struct cfg_threshold *t, int *n)
{
	char msg[160];

	snprintf(msg, sizeof(msg), "privilege %s: notify is a list of thresholds, such as "
	    "[20%%, 0] (%% of the allowance, or what is left in all)", name);
	if (!ydoc_is_seq(v))
		return cfgr_bad(x, v, "notify", "%s", msg);
	YDOC_ITEMS(v, it) {
		yaml_node_t *y = ydoc_get(x->doc, *it);
		const char *s = ydoc_str(y);
		struct cfg_threshold *th;
		char *end;

		if (s == NULL || *s == '\0')
			return cfgr_bad(x, y, "notify", "%s", msg);
		if (*n == CFG_THRESHOLDS_MAX)
			return cfgr_bad(x, y, "notify", "privilege %s: at most 4 thresholds", name);
		th = &t[(*n)++];
		th->value = strtoll(s, &end, 10);
		th->percent = *end == '%';
		if (end == s || (th->percent ? end[1] != '\0' : *end != '\0') || th->value < 0 ||
		    (th->percent && th->value > 100))
			return cfgr_bad(x, y, "notify", "%s", msg);
	}
	return 0;
}

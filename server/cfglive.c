/*
 * cfglive.c - the configuration in force (cfglive.h). A reload makes a new
 * struct cfg: a shallow copy of the one privd started with (whose strings
 * and privileges it borrows: they never change until a restart) into which
 * the reloadable settings are moved from the new file. Every configuration
 * once in force stays allocated until exit: a request or a background pass
 * may still read one, and reloads are few.
 */
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cfglive.h"
#include "cfgread.h"

static _Atomic(const struct cfg *) live;
static struct cfg *started;
static struct made {
	struct cfg *c;
	int notify;		/* owns its notify settings (else the started one's) */
} *made;			/* by reloads, to free at exit */
static size_t nmade;

const struct cfg *
cfglive_get(void)
{
	return atomic_load(&live);
}

void
cfglive_start(struct cfg *c)
{
	started = c;
	atomic_store(&live, c);
}

/*
 * The settings outside the table of scalar settings (config.c, each row
 * of which says whether it reloads) that wait for a restart, as the
 * configuration names them.
 */
enum kind { STR, INT, LLONG };

#define AT(f)	offsetof(struct cfg, f)

static const struct {
	const char *name;
	size_t off;
	enum kind kind;
} fixed[] = {
	{ "http.listen (host)", AT(listen_host), STR },
	{ "http.listen (port)", AT(listen_port), INT },
	{ "ldap.uri", AT(ldap_uri), STR },
	{ "ldap.write_uri", AT(write_uri), STR },
	{ "ldap.bind_password", AT(bind_password), STR },
	{ "ldap.uid_attribute", AT(uid_attr), STR },
	{ "model.default_cell", AT(default_cell), STR },
	{ "publish.groups", AT(publish.groups_dn), STR },
	{ "publish.attribute", AT(publish.attribute), STR },
	{ "publish.object_class", AT(publish.object_class), STR },
	{ "publish.prefix", AT(publish.prefix), STR },
	{ "publish.lease", AT(publish.lease_s), INT },
};

static int
strings_differ(const char *pa, const char *pb)
{
	const char *sa, *sb;

	memcpy(&sa, pa, sizeof(sa));
	memcpy(&sb, pb, sizeof(sb));
	return (sa == NULL) != (sb == NULL) || (sa != NULL && strcmp(sa, sb) != 0);
}

static int
differs(const struct cfg *a, const struct cfg *b, size_t i)
{
	const char *pa = (const char *)a + fixed[i].off, *pb = (const char *)b + fixed[i].off;

	switch (fixed[i].kind) {
	case STR:
		return strings_differ(pa, pb);
	case INT:
		return memcmp(pa, pb, sizeof(int)) != 0;
	case LLONG:
		return memcmp(pa, pb, sizeof(long long)) != 0;
	}
	return 0;
}

/* The size of a scalar setting of type t, as struct cfg holds it. */
static size_t
scalar_size(enum cfgr_type t)
{
	switch (t) {
	case CFGR_LLONG:
		return sizeof(long long);
	case CFGR_SIZE:
		return sizeof(size_t);
	case CFGR_DN:
	case CFGR_FILE:
		return 0;	/* a string */
	default:
		return sizeof(int);
	}
}

/*
 * The table of scalar settings (cfg_settings) decides: a row that reloads
 * has n's value copied into m (numbers only: a string would need its
 * owner moved); a row that waits for a restart is named when n's differs.
 */
static void
scalars(struct cfg *m, const struct cfg *n, void (*said)(const char *what))
{
	const struct cfgr_setting *t;
	size_t i, count, sz;

	t = cfg_settings(&count);
	for (i = 0; i < count; i++) {
		const char *pn = (const char *)n + t[i].off, *ps = (const char *)started + t[i].off;

		sz = scalar_size(t[i].type);
		if (t[i].when == CFGR_RELOADS && sz > 0)
			memcpy((char *)m + t[i].off, pn, sz);
		else if (sz > 0 ? memcmp(pn, ps, sz) != 0 : strings_differ(ps, pn))
			said(t[i].name);
	}
}

/* A privilege as it decides answers: all but its notices, which reload. */
static int
priv_differs(const struct cfg_priv *a, const struct cfg_priv *b)
{
	return strcmp(a->name, b->name) != 0 || a->type != b->type ||
	    a->combine != b->combine || a->period != b->period ||
	    a->paid_first != b->paid_first || a->publish != b->publish ||
	    strcmp(a->currency, b->currency) != 0;
}

/* What a configuration made by a reload owns (the rest is borrowed). */
static void
free_made(struct cfg *m, int notify)
{
	free(m->privs);
	cfg_free_reloadable(m);
	if (notify)
		cfg_notify_free(&m->notify);
	free(m);
}

int
cfglive_reload(struct cfg *n, void (*said)(const char *what), struct err *e)
{
	struct made *grown;
	struct cfg *m = NULL;
	size_t i;
	int p, notify = 1;

	if (n->development != started->development) {
		cfg_free(n);
		return err_set(e, ERR_INVALID, 0, "development",
		    "development: changes only with a restart");
	}
	if ((grown = realloc(made, (nmade + 1) * sizeof(*made))) == NULL)
		goto oom;
	made = grown;
	if ((m = malloc(sizeof(*m))) == NULL)
		goto oom;
	*m = *started;
	if ((m->privs = malloc(started->nprivs * sizeof(*m->privs))) == NULL) {
		free(m);
		goto oom;
	}
	memcpy(m->privs, started->privs, started->nprivs * sizeof(*m->privs));

	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (differs(started, n, i))
			said(fixed[i].name);
	scalars(m, n, said);
	/* a privilege's notices reload; anything else about it waits */
	for (i = 0; i < started->nprivs; i++) {
		struct cfg_priv *pv = &m->privs[i];

		if ((p = cfg_priv_find(n, pv->name)) < 0)
			continue;
		memcpy(pv->notify, n->privs[p].notify, sizeof(pv->notify));
		pv->nnotify = n->privs[p].nnotify;
	}
	if (n->nprivs != started->nprivs)
		said("privileges (added or removed)");
	else
		for (i = 0; i < n->nprivs; i++)
			if (priv_differs(&started->privs[i], &n->privs[i])) {
				said("privileges (a type, period, combine, draw, publish or currency)");
				break;
			}
	/* the thread that sends notices starts with privd or never */
	if ((started->notify.smtp == NULL) != (n->notify.smtp == NULL)) {
		said("notify (notices turned on or off)");
		notify = 0;
	}

	/* moved, not copied: n is freed below without them */
	m->keys = n->keys;
	m->nkeys = n->nkeys;
	n->keys = NULL;
	n->nkeys = 0;
	m->terms = n->terms;
	m->nterms = n->nterms;
	n->terms = NULL;
	n->nterms = 0;
	m->ui_dir = n->ui_dir;
	m->ui_token_key = n->ui_token_key;
	m->ui_admins = n->ui_admins;
	m->nui_admins = n->nui_admins;
	n->ui_dir = n->ui_token_key = NULL;
	n->ui_admins = NULL;
	n->nui_admins = 0;
	if (notify) {
		m->notify = n->notify;
		cfg_notify_defaults(&n->notify);
	}
	/* libmicrohttpd's own limit and the open files were sized at start */
	if (n->conn_limit > started->conn_limit) {
		said("http.connection_limit (raised above the one started with)");
		m->conn_limit = started->conn_limit;
	}
	cfg_free(n);

	made[nmade].c = m;
	made[nmade++].notify = notify;
	atomic_store(&live, m);
	return 0;
oom:
	cfg_free(n);
	return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
}

void
cfglive_stop(void)
{
	size_t i;

	atomic_store(&live, started);
	for (i = 0; i < nmade; i++)
		free_made(made[i].c, made[i].notify);
	free(made);
	made = NULL;
	nmade = 0;
}

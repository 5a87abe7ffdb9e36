/* grant.c - parsing and checking grants; the only place that knows their syntax. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grant.h"

static int
parse_num(const char *s, long long *out)
{
	char *end;
	long long n;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	n = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0' || n > GRANT_NUM_MAX)
		return -1;
	*out = n;
	return 0;
}

static int
fill(const struct cfg *c, int priv, enum grant_op op, int pool, const char *value,
    struct grant *g, struct err *e)
{
	const struct cfg_priv *pv = &c->privs[priv];
	char text[PRIV_NAME_MAX + GRANT_ELEM_MAX + 16];

	memset(g, 0, sizeof(*g));
	g->priv = priv;
	g->op = op;
	if (pool) {
		if (pv->type != PRIV_QUOTA || op != GRANT_SET)
			return err_set(e, ERR_INVALID, 0, pv->name,
			    "%s is a %s: only quotas have pools", pv->name,
			    cfg_type_name(pv->type));
		if (parse_num(value, &g->num) != 0)
			return err_set(e, ERR_INVALID, 0, pv->name,
			    "pool %s: the limit must be a whole number 0..%lld, not '%.40s'",
			    pv->name, GRANT_NUM_MAX, value);
		g->pool = 1;
		snprintf(text, sizeof(text), GRANT_POOL "%s=%lld", pv->name, g->num);
		goto done;
	}
	switch (pv->type) {
	case PRIV_FLAG:
		if (op != GRANT_SET)
			return err_set(e, ERR_INVALID, 0, pv->name,
			    "%s is a flag: grant it with %s=true or %s=false",
			    pv->name, pv->name, pv->name);
		if (strcmp(value, "true") == 0)
			g->num = 1;
		else if (strcmp(value, "false") == 0)
			g->num = 0;
		else
			return err_set(e, ERR_INVALID, 0, pv->name,
			    "%s is a flag: value must be true or false, not '%.40s'",
			    pv->name, value);
		snprintf(text, sizeof(text), "%s=%s", pv->name, g->num ? "true" : "false");
		break;
	case PRIV_NUMBER:
	case PRIV_QUOTA:
		if (op != GRANT_SET)
			return err_set(e, ERR_INVALID, 0, pv->name,
			    "%s is a %s: grant it with %s=N", pv->name,
			    cfg_type_name(pv->type), pv->name);
		if (parse_num(value, &g->num) != 0)
			return err_set(e, ERR_INVALID, 0, pv->name,
			    "%s is a %s: value must be a whole number 0..%lld, not '%.40s'",
			    pv->name, cfg_type_name(pv->type), GRANT_NUM_MAX, value);
		snprintf(text, sizeof(text), "%s=%lld", pv->name, g->num);
		break;
	case PRIV_SET:
		if (op == GRANT_SET)
			return err_set(e, ERR_INVALID, 0, pv->name,
			    "%s is a set: grant elements with %s+=X, deny with %s-=X",
			    pv->name, pv->name, pv->name);
		if (!cfg_name_ok(value, GRANT_ELEM_MAX))
			return err_set(e, ERR_INVALID, 0, pv->name,
			    "%s: bad element '%.40s' (letters, digits and . _ - :)",
			    pv->name, value);
		if ((g->elem = strdup(value)) == NULL)
			return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
		snprintf(text, sizeof(text), "%s%s=%s", pv->name,
		    op == GRANT_ADD ? "+" : "-", value);
		break;
	}
done:
	if ((g->text = strdup(text)) == NULL) {
		grant_clear(g);
		return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
	}
	return 0;
}

const char *
grant_pool_text(const char *text)
{
	size_t n = strlen(GRANT_POOL);

	return strncmp(text, GRANT_POOL, n) == 0 ? text + n : NULL;
}

const char *
grant_contact_text(const char *text)
{
	size_t n = strlen(GRANT_CONTACT);

	return strncmp(text, GRANT_CONTACT, n) == 0 ? text + n : NULL;
}

int
grant_parse(const struct cfg *c, const char *s, struct grant *g, struct err *e)
{
	const char *eq = strchr(s, '=');
	char name[PRIV_NAME_MAX + 1];
	enum grant_op op = GRANT_SET;
	size_t nlen;
	int priv, rc, pool = 0;

	memset(g, 0, sizeof(*g));
	if (grant_pool_text(s) != NULL) {
		pool = 1;
		s = grant_pool_text(s);
		eq = strchr(s, '=');
	}
	if (eq == NULL || eq == s)
		return err_set(e, ERR_INVALID, 0, "grant",
		    "grant '%.80s' is not PRIV=VALUE, PRIV+=ELEM or PRIV-=ELEM", s);
	nlen = eq - s;
	if (eq[-1] == '+' || eq[-1] == '-') {
		op = eq[-1] == '+' ? GRANT_ADD : GRANT_DEL;
		nlen--;
	}
	if (nlen == 0 || nlen > PRIV_NAME_MAX)
		return err_set(e, ERR_INVALID, 0, "grant", "grant '%.80s': bad privilege name", s);
	memcpy(name, s, nlen);
	name[nlen] = '\0';
	if ((priv = cfg_priv_find(c, name)) < 0)
		return err_set(e, ERR_NOT_FOUND, 0, name, "unknown privilege '%s'", name);
	rc = fill(c, priv, op, pool, eq + 1, g, e);
	return rc;
}

int
grant_make(const struct cfg *c, int priv, const char *value, struct grant *g,
    struct err *e)
{
	enum grant_op op = GRANT_SET;

	if (c->privs[priv].type == PRIV_SET) {
		op = GRANT_ADD;
		if (*value == '+' || *value == '-')
			op = *value++ == '+' ? GRANT_ADD : GRANT_DEL;
	}
	return fill(c, priv, op, 0, value, g, e);
}

int
grant_make_pool(const struct cfg *c, int priv, const char *value, struct grant *g,
    struct err *e)
{
	return fill(c, priv, GRANT_SET, 1, value, g, e);
}

void
grant_clear(struct grant *g)
{
	free(g->elem);
	free(g->text);
	g->elem = g->text = NULL;
}

/* cupsconf.c - reading cups.yaml: where privd is, and what each queue checks and charges. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cupsconf.h"

static int
set_str(struct yconf *y, const yaml_node_t *v, const char *key, char **dst)
{
	const char *s = yconf_scalar(y, v, key);

	if (s == NULL)
		return -1;
	if (*s == '\0')
		return yconf_fail(y, v, "%s: empty", key);
	free(*dst);
	if ((*dst = strdup(s)) == NULL)
		return yconf_fail(y, v, "out of memory");
	return 0;
}

/* One queue's (or the defaults') mapping. */
static int
queue_keys(struct yconf *y, const yaml_node_t *m, struct cupsconf_queue *q)
{
	yaml_node_pair_t *pr;

	if (m->type != YAML_MAPPING_NODE)
		return yconf_fail(y, m, "expected a mapping of settings for %s",
		    q->name ? q->name : "defaults");
	for (pr = m->data.mapping.pairs.start; pr < m->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = yconf_node(y, pr->key), *v = yconf_node(y, pr->value);
		const char *ks = yconf_scalar(y, k, "key"), *s;
		int rc;

		if (ks == NULL)
			return -1;
		if (strcmp(ks, "access_privilege") == 0)
			rc = set_str(y, v, ks, &q->access_privilege);
		else if (strcmp(ks, "access") == 0)
			rc = set_str(y, v, ks, &q->access);
		else if (strcmp(ks, "pages") == 0)
			rc = set_str(y, v, ks, &q->pages);
		else if (strcmp(ks, "colour") == 0 || strcmp(ks, "color") == 0)
			rc = set_str(y, v, ks, &q->colour);
		else if (strcmp(ks, "colour_pages") == 0 || strcmp(ks, "color_pages") == 0)
			rc = set_str(y, v, ks, &q->colour_pages);
		else if (strcmp(ks, "unreachable") == 0) {
			if ((s = yconf_scalar(y, v, ks)) == NULL)
				return -1;
			q->unreachable = strcmp(s, "retry") == 0 ? CUPSCONF_RETRY :
			    strcmp(s, "hold") == 0 ? CUPSCONF_HOLD :
			    strcmp(s, "allow") == 0 ? CUPSCONF_ALLOW : CUPSCONF_UNSET;
			rc = q->unreachable == CUPSCONF_UNSET ? yconf_fail(y, v,
			    "unreachable: '%s' is not retry, hold or allow", s) : 0;
		} else if (strcmp(ks, "uncountable") == 0) {
			if ((s = yconf_scalar(y, v, ks)) == NULL)
				return -1;
			if (strcmp(s, "deny") == 0) {
				q->uncountable = -1;
				rc = 0;
			} else if (yconf_long(y, v, ks, 1, 100000, &q->uncountable) != 0)
				rc = yconf_fail(y, v, "uncountable: '%s' is not deny or a page count "
				    "from 1 to 100000", s);
			else
				rc = 0;
		} else if (strcmp(ks, "fallback") == 0) {
			if ((s = yconf_scalar(y, v, ks)) == NULL)
				return -1;
			q->fallback = strcmp(s, "pools") == 0 ? CUPSCONF_POOLS :
			    strcmp(s, "none") == 0 ? CUPSCONF_OWN : 0;
			rc = q->fallback == 0 ? yconf_fail(y, v,
			    "fallback: '%s' is not pools or none", s) : 0;
		} else if (strcmp(ks, "colour_unknown") == 0 || strcmp(ks, "color_unknown") == 0) {
			if ((s = yconf_scalar(y, v, ks)) == NULL)
				return -1;
			q->colour_unknown = strcmp(s, "colour") == 0 || strcmp(s, "color") == 0 ?
			    CUPSCONF_COLOUR : strcmp(s, "deny") == 0 ? CUPSCONF_DENY : 0;
			rc = q->colour_unknown == 0 ? yconf_fail(y, v,
			    "colour_unknown: '%s' is not colour or deny", s) : 0;
		} else
			rc = yconf_fail(y, k, "unknown key '%s' (expected access, access_privilege, "
			    "pages, colour, colour_pages, unreachable, uncountable, fallback or "
			    "colour_unknown)", ks);
		if (rc != 0)
			return -1;
	}
	return 0;
}

static int
queues(struct yconf *y, const yaml_node_t *m, struct cupsconf *c)
{
	yaml_node_pair_t *pr;
	size_t n, i;

	if (m->type != YAML_MAPPING_NODE)
		return yconf_fail(y, m, "queues: expected a mapping of queue names to settings");
	n = (size_t)(m->data.mapping.pairs.top - m->data.mapping.pairs.start);
	if ((c->queues = calloc(n + 1, sizeof(*c->queues))) == NULL)
		return yconf_fail(y, m, "out of memory");
	for (pr = m->data.mapping.pairs.start; pr < m->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = yconf_node(y, pr->key), *v = yconf_node(y, pr->value);
		const char *ks = yconf_scalar(y, k, "queue name");
		struct cupsconf_queue *q = &c->queues[c->nqueues];

		if (ks == NULL)
			return -1;
		for (i = 0; i < c->nqueues; i++)
			if (strcmp(c->queues[i].name, ks) == 0)
				return yconf_fail(y, k, "queue '%s' is configured twice", ks);
		if ((q->name = strdup(ks)) == NULL)
			return yconf_fail(y, k, "out of memory");
		c->nqueues++;
		if (queue_keys(y, v, q) != 0)
			return -1;
	}
	return 0;
}

int
cupsconf_load(struct cupsconf *c, const char *path, char *err, size_t nerr)
{
	struct yconf y;
	yaml_node_pair_t *pr;
	int rc = 0;

	memset(c, 0, sizeof(*c));
	c->hold_ttl = 86400;
	c->colour_threshold = 0.001;
	if (yconf_load(&y, path, 0, err, nerr) != 0)
		return -1;
	for (pr = y.root ? y.root->data.mapping.pairs.start : NULL;
	    pr && pr < y.root->data.mapping.pairs.top && rc == 0; pr++) {
		yaml_node_t *k = yconf_node(&y, pr->key), *v = yconf_node(&y, pr->value);
		const char *ks = yconf_scalar(&y, k, "key");

		if (ks == NULL)
			rc = -1;
		else if ((rc = yconf_privd_key(&y, ks, v, &c->privd)) != 0)
			rc = rc < 0 ? -1 : 0;
		else if (strcmp(ks, "host") == 0)
			rc = set_str(&y, v, ks, &c->host);
		else if (strcmp(ks, "hold_ttl") == 0)
			rc = yconf_long(&y, v, ks, 60, 7 * 86400, &c->hold_ttl);
		else if (strcmp(ks, "colour_threshold") == 0 || strcmp(ks, "color_threshold") == 0) {
			const char *s = yconf_scalar(&y, v, ks);
			char *end = NULL;

			if (s != NULL)
				c->colour_threshold = strtod(s, &end);
			rc = s == NULL || end == s || *end || c->colour_threshold < 0 ||
			    c->colour_threshold >= 1 ? yconf_fail(&y, v, "colour_threshold: '%s' is "
			    "not a share of a page's pixels from 0 to 1 (0.001)", s ? s : "") : 0;
		} else if (strcmp(ks, "defaults") == 0)
			rc = queue_keys(&y, v, &c->defaults);
		else if (strcmp(ks, "queues") == 0)
			rc = queues(&y, v, c);
		else
			rc = yconf_fail(&y, k, "unknown key '%s' (expected urls, key_file, timeout_ms, "
			    "host, hold_ttl, colour_threshold, defaults or queues)", ks);
	}
	if (rc == 0 && c->privd.urls == NULL)
		rc = yconf_fail(&y, y.root, "no urls: where is privd? (urls: [http://HOST:PORT])");
	if (rc == 0 && c->privd.key_file == NULL)
		rc = yconf_fail(&y, y.root, "no key_file: the file with an API key of scope charge");
	yconf_free(&y);
	if (rc == 0 && c->host == NULL) {
		char h[256] = "";

		gethostname(h, sizeof(h) - 1);
		h[strcspn(h, ".")] = '\0';
		if ((c->host = strdup(h[0] ? h : "localhost")) == NULL)
			rc = -1;
	}
	if (rc != 0)
		cupsconf_free(c);
	return rc;
}

static const char *
pick(const char *q, const char *d, const char *dflt)
{
	return q ? q : d ? d : dflt;
}

void
cupsconf_queue(const struct cupsconf *c, const char *queue, struct cupsconf_queue *out)
{
	const struct cupsconf_queue *d = &c->defaults, *q = NULL;
	size_t i;

	for (i = 0; i < c->nqueues; i++)
		if (strcmp(c->queues[i].name, queue) == 0)
			q = &c->queues[i];
	if (q == NULL)
		q = d;
	out->name = (char *)queue;
	out->access_privilege = (char *)pick(q->access_privilege, d->access_privilege,
	    "printer.access");
	out->access = (char *)pick(q->access, NULL, queue);
	out->pages = (char *)pick(q->pages, d->pages, "print.pages");
	out->colour = (char *)pick(q->colour, d->colour, "print.colour");
	out->colour_pages = (char *)pick(q->colour_pages, d->colour_pages, "print.colour_pages");
	out->unreachable = q->unreachable ? q->unreachable :
	    d->unreachable ? d->unreachable : CUPSCONF_RETRY;
	out->uncountable = q->uncountable ? q->uncountable :
	    d->uncountable ? d->uncountable : -1;
	out->fallback = q->fallback ? q->fallback : d->fallback ? d->fallback : CUPSCONF_OWN;
	out->colour_unknown = q->colour_unknown ? q->colour_unknown :
	    d->colour_unknown ? d->colour_unknown : CUPSCONF_COLOUR;
}

static void
queue_free(struct cupsconf_queue *q)
{
	free(q->name);
	free(q->access_privilege);
	free(q->access);
	free(q->pages);
	free(q->colour);
	free(q->colour_pages);
}

void
cupsconf_free(struct cupsconf *c)
{
	size_t i;

	yconf_privd_free(&c->privd);
	free(c->host);
	queue_free(&c->defaults);
	for (i = 0; i < c->nqueues; i++)
		queue_free(&c->queues[i]);
	free(c->queues);
	memset(c, 0, sizeof(*c));
}

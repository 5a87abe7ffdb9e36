/* conf.c - privctl's settings; the config file is YAML, read with libyaml. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "yconf.h"

static int
from_file(struct conf *c, const char *path)
{
	struct yconf y;
	char err[512];
	int rc;

	if ((rc = yconf_load(&y, path, 1, err, sizeof(err))) != 0) {
		if (rc < 0)
			fprintf(stderr, "privctl: %s\n", err);
		return rc < 0 ? -1 : 0;	/* no file: fine */
	}
	rc = 0;
	for (yaml_node_pair_t *pr = y.root ? y.root->data.mapping.pairs.start : NULL;
	    pr && pr < y.root->data.mapping.pairs.top && rc == 0; pr++) {
		yaml_node_t *k = yconf_node(&y, pr->key), *v = yconf_node(&y, pr->value);
		const char *ks = k && k->type == YAML_SCALAR_NODE ? (char *)k->data.scalar.value : "";
		char **dst = strcmp(ks, "url") == 0 ? &c->url : strcmp(ks, "key") == 0 ? &c->key : NULL;
		const char *vs;

		if (dst == NULL)
			rc = yconf_fail(&y, k, "unknown key '%s' (expected url: or key:)", ks);
		else if ((vs = yconf_scalar(&y, v, ks)) == NULL)
			rc = -1;
		else if (*dst == NULL && (*dst = strdup(vs)) == NULL)
			rc = yconf_fail(&y, v, "out of memory");
	}
	if (rc != 0)
		fprintf(stderr, "privctl: %s\n", err);
	yconf_free(&y);
	return rc;
}

static int
from_env(char **dst, const char *name)
{
	const char *v = getenv(name);

	if (*dst == NULL && v != NULL && *v && (*dst = strdup(v)) == NULL)
		return -1;
	return 0;
}

int
conf_load(struct conf *c)
{
	char path[4096];
	const char *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");

	if (from_env(&c->url, "PRIVD_URL") != 0 || from_env(&c->key, "PRIVD_KEY") != 0 ||
	    from_env(&c->user, "PRIVD_USER") != 0)
		return -1;
	if (xdg && *xdg)
		snprintf(path, sizeof(path), "%s/privctl/config.yaml", xdg);
	else
		snprintf(path, sizeof(path), "%s/.config/privctl/config.yaml", home ? home : ".");
	if ((c->url == NULL || c->key == NULL) && from_file(c, path) != 0)
		return -1;
	if (c->url == NULL && (c->url = strdup("http://127.0.0.1:8080")) == NULL)
		return -1;
	/* no trailing slash: paths start with one */
	while (strlen(c->url) > 1 && c->url[strlen(c->url) - 1] == '/')
		c->url[strlen(c->url) - 1] = '\0';
	return 0;
}

void
conf_free(struct conf *c)
{
	free(c->url);
	free(c->key);
	free(c->user);
}

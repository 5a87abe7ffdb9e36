/* conf.c - privctl's settings; the config file is YAML, read with libyaml. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "conf.h"

static int
from_file(struct conf *c, const char *path)
{
	yaml_parser_t p;
	yaml_document_t doc;
	yaml_node_t *root;
	FILE *f = fopen(path, "r");
	int rc = -1;

	if (f == NULL)
		return 0;	/* no file: fine */
	if (!yaml_parser_initialize(&p)) {
		fclose(f);
		return -1;
	}
	yaml_parser_set_input_file(&p, f);
	if (!yaml_parser_load(&p, &doc)) {
		fprintf(stderr, "privctl: %s:%zu: %s\n", path, p.problem_mark.line + 1,
		    p.problem ? p.problem : "not YAML");
		goto out;
	}
	root = yaml_document_get_root_node(&doc);
	if (root == NULL) {
		rc = 0;
		goto done;
	}
	if (root->type != YAML_MAPPING_NODE) {
		fprintf(stderr, "privctl: %s:%zu: expected a mapping with url and key\n", path,
		    root->start_mark.line + 1);
		goto done;
	}
	for (yaml_node_pair_t *pr = root->data.mapping.pairs.start;
	    pr < root->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = yaml_document_get_node(&doc, pr->key);
		yaml_node_t *v = yaml_document_get_node(&doc, pr->value);
		const char *ks = k && k->type == YAML_SCALAR_NODE ? (char *)k->data.scalar.value : "";
		char **dst = strcmp(ks, "url") == 0 ? &c->url : strcmp(ks, "key") == 0 ? &c->key : NULL;

		if (dst == NULL || v == NULL || v->type != YAML_SCALAR_NODE) {
			fprintf(stderr, "privctl: %s:%zu: %s '%s' (expected url: or key: with a value)\n",
			    path, (k ? k->start_mark.line : 0) + 1, dst ? "no value for" : "unknown key", ks);
			goto done;
		}
		if (*dst == NULL && (*dst = strdup((char *)v->data.scalar.value)) == NULL)
			goto done;
	}
	rc = 0;
done:
	yaml_document_delete(&doc);
out:
	yaml_parser_delete(&p);
	fclose(f);
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

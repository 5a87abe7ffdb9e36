/* cfgpublish.c - the publish section and privileges' publish: lists (cfgpublish.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfgpublish.h"
#include "dn.h"
#include "err.h"
#include "ydoc.h"

void
cfg_publish_defaults(struct cfg_publish *p)
{
	memset(p, 0, sizeof(*p));
	p->lease_s = 6;
}

void
cfg_publish_free(struct cfg_publish *p)
{
	free(p->groups_dn);
	free(p->attribute);
	free(p->object_class);
	free(p->prefix);
	memset(p, 0, sizeof(*p));
}

/* an attribute or class name: a letter, then letters, digits and - */
static int
descr_ok(const char *s)
{
	size_t i;

	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
		return 0;
	for (i = 1; s[i]; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return 0;
	return i < 64;
}

int
cfg_parse_publish(struct cfgr *x, const yaml_node_t *m, struct cfg_publish *p)
{
	if (cfgr_map(x, m, "publish") != 0)
		return -1;
	YDOC_PAIRS(m, pr) {
		yaml_node_t *k = ydoc_get(x->doc, pr->key), *v = ydoc_get(x->doc, pr->value);
		const char *ks = ydoc_str(k);

		if (strcmp(ks, "groups") == 0) {
			if (cfgr_dn(x, v, "publish.groups", &p->groups_dn) != 0)
				return -1;
		} else if (strcmp(ks, "attribute") == 0 || strcmp(ks, "object_class") == 0) {
			char key[40];

			snprintf(key, sizeof(key), "publish.%s", ks);
			if (cfgr_dup(x, v, key, ks[0] == 'a' ? &p->attribute : &p->object_class) != 0)
				return -1;
			if (!descr_ok(ks[0] == 'a' ? p->attribute : p->object_class))
				return cfgr_bad(x, v, key, "%s: an attribute or class name, such as "
				    "privEntitlement or eduPersonEntitlement", key);
		} else if (strcmp(ks, "prefix") == 0) {
			if (cfgr_dup(x, v, "publish.prefix", &p->prefix) != 0)
				return -1;
			if (strchr(p->prefix, ':') == NULL || strpbrk(p->prefix, " \t\r\n") != NULL ||
			    strlen(p->prefix) > 200)
				return cfgr_bad(x, v, "publish.prefix", "%s: a URI prefix without spaces, "
				    "such as urn:mace:example.edu:privd:", "publish.prefix");
		} else if (strcmp(ks, "lease") == 0) {
			long n;

			if (cfgr_int(x, v, "publish.lease", 2, 300, &n) != 0)
				return -1;
			p->lease_s = (int)n;
		} else
			return cfgr_unknown(x, k, "publish");
	}
	return 0;
}

int
cfg_parse_publish_as(struct cfgr *x, const yaml_node_t *v, const char *name, int *out)
{
	char msg[160];

	snprintf(msg, sizeof(msg), "privilege %s: publish is a list of groups and attribute, "
	    "such as [groups, attribute]", name);
	*out = 0;
	if (!ydoc_is_seq(v))
		return cfgr_bad(x, v, "publish", "%s", msg);
	YDOC_ITEMS(v, it) {
		yaml_node_t *y = ydoc_get(x->doc, *it);
		const char *s = ydoc_str(y);

		if (s != NULL && strcmp(s, "groups") == 0)
			*out |= CFG_PUB_GROUPS;
		else if (s != NULL && strcmp(s, "attribute") == 0)
			*out |= CFG_PUB_ATTRIBUTE;
		else
			return cfgr_bad(x, y, "publish", "%s", msg);
	}
	return 0;
}

int
cfg_publish_finish(struct cfgr *x, const yaml_node_t *root, const char *base_dn,
    int any_attribute, struct cfg_publish *p)
{
	const char *comma;

	if (p->groups_dn == NULL && base_dn != NULL) {
		/* ou=entitlements beside privd's subtree: consumers name it
		 * without knowing where privd keeps its model */
		comma = strchr(base_dn, ',');
		if ((p->groups_dn = dn_join("ou=entitlements", comma ? comma + 1 : base_dn)) == NULL)
			return err_set(x->e, ERR_INTERNAL, 0, NULL, "out of memory");
	}
	if (p->attribute == NULL && (p->attribute = strdup("privEntitlement")) == NULL)
		return err_set(x->e, ERR_INTERNAL, 0, NULL, "out of memory");
	if (p->object_class == NULL) {
		/* eduPerson is the class of eduPersonEntitlement */
		const char *oc = strcasecmp(p->attribute, "eduPersonEntitlement") == 0 ? "eduPerson" :
		    strcasecmp(p->attribute, "privEntitlement") == 0 ? "privEntitled" : NULL;

		if (oc == NULL)
			return cfgr_bad(x, root, "publish.object_class", "%s: say which auxiliary "
			    "class allows publish.attribute on a person", "publish.object_class");
		if ((p->object_class = strdup(oc)) == NULL)
			return err_set(x->e, ERR_INTERNAL, 0, NULL, "out of memory");
	}
	if (any_attribute && p->prefix == NULL)
		return cfgr_bad(x, root, "publish.prefix", "%s: a privilege publishes an attribute: "
		    "set publish.prefix, such as urn:mace:example.edu:privd:", "publish.prefix");
	return 0;
}

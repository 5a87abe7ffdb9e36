/*
 * cfgpublish.h - the configuration of entitlements published into the
 * directory (publish.h): the publish section, and what a privilege says
 * it is published as (publish: [groups, attribute]).
 */
#ifndef PRIVD_CFGPUBLISH_H
#define PRIVD_CFGPUBLISH_H

#include "cfgread.h"

/* a privilege's publish: bits */
enum { CFG_PUB_GROUPS = 1, CFG_PUB_ATTRIBUTE = 2 };

struct cfg_publish {
	char *groups_dn;	/* the container of the groups; NULL: ou=entitlements
				 * beside ldap.base (cfg_publish_finish) */
	char *attribute;	/* privEntitlement, or eduPersonEntitlement */
	char *object_class;	/* the auxiliary class that allows it on a person */
	char *prefix;		/* of every value, e.g. urn:mace:example.edu:privd: */
	int lease_s;		/* one privd writes; another takes over after this */
};

void cfg_publish_defaults(struct cfg_publish *p);
void cfg_publish_free(struct cfg_publish *p);
/* publish: {groups, attribute, object_class, prefix, lease} into p. */
int cfg_parse_publish(struct cfgr *x, const yaml_node_t *m, struct cfg_publish *p);
/* A privilege's publish: [groups, attribute]: the bits into *out. */
int cfg_parse_publish_as(struct cfgr *x, const yaml_node_t *v, const char *name, int *out);
/*
 * After the whole file: the groups' default place (beside base_dn), and a
 * prefix when some privilege publishes an attribute. -1 and e.
 */
int cfg_publish_finish(struct cfgr *x, const yaml_node_t *root, const char *base_dn,
    int any_attribute, struct cfg_publish *p);

#endif

/*
 * entitle.h - the entitlements a model gives, as the directory publishes
 * them (publish.h): for each published flag and set element a group of the
 * accounts that have it, and for each account its URI values. Pure: built
 * from a snapshot, or filled from what the directory holds, and compared.
 */
#ifndef PRIVD_ENTITLE_H
#define PRIVD_ENTITLE_H

#include <stddef.h>

#include "snapshot.h"
#include "strmap.h"

/* Strings, malloc'd, sorted once filled (ent_sort). */
struct ent_list {
	char **v;
	size_t n, cap;
};

struct ent_person {
	char *dn;
	struct ent_list vals;	/* its URI values, compared exactly */
};

struct ent_state {
	struct strmap groups;	/* cn ("login.hosts=cse-lab", "print.colour") ->
				 * struct ent_list * of member DNs (case ignored) */
	struct strmap people;	/* uid in lower case -> struct ent_person * */
	size_t values;		/* group members and URI values in all */
};

void ent_init(struct ent_state *st);
void ent_free(struct ent_state *st);
/* A member of group cn; -1 when out of memory. */
int ent_add_member(struct ent_state *st, const char *cn, const char *dn);
/* A URI value of the person uid whose entry is dn. */
int ent_add_value(struct ent_state *st, const char *uid, const char *dn, const char *val);
/* Sorts every list and drops duplicates (after filling from the directory). */
void ent_sort(struct ent_state *st);

/*
 * What s gives now, for the privileges c publishes (cfg_priv.publish): the
 * groups and values of every account; sorted. -1 when out of memory.
 */
int ent_from_snap(const struct cfg *c, const struct snap *s, struct ent_state *out);

/* The group name of a flag (elem NULL) or a set element, into out; -1 when too long. */
int ent_group_cn(const char *priv, const char *elem, char *out, size_t n);

/* One entry to change: a group (uid NULL) or a person. */
struct ent_change {
	const char *group;	/* the group's cn, or NULL */
	const char *uid;	/* the person's uid (lower case), or NULL */
	const char *dn;		/* the person's entry */
	char **add;		/* borrowed from the states */
	size_t nadd;
	char **del;
	size_t ndel;
	int create;		/* a group that does not exist yet */
	int remove;		/* a group left with no member */
	int fresh;		/* a person holding no value of privd's yet */
};

/*
 * Calls fn for each group and person whose values differ between have and
 * want (both sorted), with only the differences. Stops at the first fn
 * that returns non-zero and returns that; -1 when out of memory.
 */
int ent_diff(const struct ent_state *have, const struct ent_state *want,
    int (*fn)(const struct ent_change *, void *), void *arg);

#endif

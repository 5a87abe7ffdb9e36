/*
 * test_entitle.c - the entitlements a model gives (server/entitle.h): who
 * is in each published group and holds each URI value, and the differences
 * the writer sends; the publish configuration's errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config.h"
#include "entitle.h"
#include "fixture.h"

static const char text[] =
    "ldap:\n"
    "  uri: ldap://127.0.0.1:1/\n"
    "  base: ou=privileges,dc=example,dc=edu\n"
    "  people: ou=people,dc=example,dc=edu\n"
    "publish: { prefix: \"urn:x:\" }\n"
    "privileges:\n"
    "  f: { type: flag, publish: [groups] }\n"
    "  s: { type: set, publish: [groups, attribute] }\n"
    "  t: { type: set }\n"
    "  n: { type: number }\n";

static struct cfg *
conf(void)
{
	struct cfg *c = NULL;
	struct err e;

	memset(&e, 0, sizeof(e));
	if (cfg_parse(text, sizeof(text) - 1, "t.yaml", &c, &e) != 0)
		fail_msg("%s", e.msg);
	return c;
}

static int
in(const struct ent_state *st, const char *cn, const char *dn)
{
	const struct ent_list *l = strmap_get(&st->groups, cn);
	size_t i;

	for (i = 0; l && i < l->n; i++)
		if (strcmp(l->v[i], dn) == 0)
			return 1;
	return 0;
}

static size_t
nvals(const struct ent_state *st, const char *uid)
{
	const struct ent_person *p = strmap_get(&st->people, uid);

	return p ? p->vals.n : 0;
}

#define DN(u) "uid=" u ",ou=people,dc=example,dc=edu"

/* A group per published flag and set element, exactly its holders; values for attribute. */
static void
groups_and_values_from_a_model(void **state)
{
	struct cfg *c = conf();
	const char *cells[] = { "staff@|f=true|s+=lab|t+=x", "student@|s+=lab|s+=gpu",
	    "student/undergrad@eng|f=false", NULL };
	const char *accts[] = { "ann|staff/academic@eng", "bob|student/undergrad@eng",
	    "cat|student/undergrad@arts", "dan|visitor@eng", NULL };
	struct snap *s = fx_snap(c, NULL, NULL, cells, accts);
	struct ent_state st;
	const struct ent_person *p;

	(void)state;
	assert_non_null(s);
	assert_int_equal(ent_from_snap(c, s, &st), 0);
	assert_true(in(&st, "f", DN("ann")));
	assert_false(in(&st, "f", DN("bob")));		/* false on a more specific cell */
	assert_true(in(&st, "s=lab", DN("ann")));
	assert_true(in(&st, "s=lab", DN("bob")));
	assert_true(in(&st, "s=gpu", DN("cat")));
	assert_false(in(&st, "s=gpu", DN("ann")));
	assert_false(in(&st, "s=lab", DN("dan")));
	assert_null(strmap_get(&st.groups, "t=x"));	/* t is not published */
	/* f publishes groups only: no value; s both */
	p = strmap_get(&st.people, "ann");
	assert_non_null(p);
	assert_int_equal(p->vals.n, 1);
	assert_string_equal(p->vals.v[0], "urn:x:s:lab");
	assert_string_equal(p->dn, DN("ann"));
	assert_int_equal(nvals(&st, "bob"), 2);
	assert_int_equal(nvals(&st, "dan"), 0);
	assert_null(strmap_get(&st.people, "dan"));
	/* 6 members (f: ann; s=lab: ann, bob, cat; s=gpu: bob, cat) and 5 values */
	assert_true(in(&st, "s=lab", DN("cat")));
	assert_int_equal(st.values, 11);
	ent_free(&st);
	snap_free(s);
	cfg_free(c);
}

struct seen {
	int changes, creates, removes;
	size_t adds, dels;
	char last[128];
};

static int
count(const struct ent_change *ch, void *arg)
{
	struct seen *w = arg;

	w->changes++;
	w->creates += ch->create;
	w->removes += ch->remove;
	w->adds += ch->nadd;
	w->dels += ch->ndel;
	snprintf(w->last, sizeof(w->last), "%s", ch->group ? ch->group : ch->uid);
	return 0;
}

/* Only differences: a new member is one add, nothing else is touched. */
static void
diff_sends_only_differences(void **state)
{
	struct ent_state have, want;
	struct seen w;

	(void)state;
	ent_init(&have);
	ent_init(&want);
	assert_int_equal(ent_add_member(&have, "s=lab", DN("ann")), 0);
	assert_int_equal(ent_add_member(&have, "s=lab", DN("bob")), 0);
	assert_int_equal(ent_add_member(&have, "s=old", DN("bob")), 0);
	assert_int_equal(ent_add_value(&have, "ann", DN("ann"), "urn:x:s:lab"), 0);
	assert_int_equal(ent_add_value(&have, "Bob", DN("bob"), "urn:x:s:old"), 0);
	/* the directory's form of a DN: other case, same entry */
	assert_int_equal(ent_add_member(&want, "s=lab", "UID=ann,ou=People,dc=example,dc=edu"), 0);
	assert_int_equal(ent_add_member(&want, "s=lab", DN("bob")), 0);
	assert_int_equal(ent_add_member(&want, "s=lab", DN("cat")), 0);
	assert_int_equal(ent_add_member(&want, "s=new", DN("cat")), 0);
	assert_int_equal(ent_add_value(&want, "ann", DN("ann"), "urn:x:s:lab"), 0);
	assert_int_equal(ent_add_value(&want, "cat", DN("cat"), "urn:x:s:lab"), 0);
	ent_sort(&have);
	ent_sort(&want);

	memset(&w, 0, sizeof(w));
	assert_int_equal(ent_diff(&have, &want, count, &w), 0);
	/* s=lab +cat; s=new made with cat; s=old removed; cat +1 value; bob -1 value */
	assert_int_equal(w.changes, 5);
	assert_int_equal(w.creates, 1);
	assert_int_equal(w.removes, 1);
	assert_int_equal(w.adds, 3);
	assert_int_equal(w.dels, 2);

	/* the same state again: nothing to write */
	memset(&w, 0, sizeof(w));
	assert_int_equal(ent_diff(&want, &want, count, &w), 0);
	assert_int_equal(w.changes, 0);
	ent_free(&have);
	ent_free(&want);
}

static int
stop(const struct ent_change *ch, void *arg)
{
	(void)ch;
	(*(int *)arg)++;
	return 7;
}

/* A failed write stops the pass (the writer then reads the directory again). */
static void
diff_stops_at_a_failure(void **state)
{
	struct ent_state have, want;
	int calls = 0;

	(void)state;
	ent_init(&have);
	ent_init(&want);
	assert_int_equal(ent_add_member(&want, "a", DN("ann")), 0);
	assert_int_equal(ent_add_member(&want, "b", DN("ann")), 0);
	ent_sort(&want);
	assert_int_equal(ent_diff(&have, &want, stop, &calls), 7);
	assert_int_equal(calls, 1);
	ent_free(&have);
	ent_free(&want);
}

/* Duplicates the directory may hold count once. */
static void
sort_drops_duplicates(void **state)
{
	struct ent_state st;

	(void)state;
	ent_init(&st);
	assert_int_equal(ent_add_member(&st, "g", DN("ann")), 0);
	assert_int_equal(ent_add_member(&st, "g", "uid=ANN,ou=people,dc=example,dc=edu"), 0);
	assert_int_equal(ent_add_value(&st, "ann", DN("ann"), "urn:x:a"), 0);
	assert_int_equal(ent_add_value(&st, "ann", DN("ann"), "urn:x:a"), 0);
	ent_sort(&st);
	assert_int_equal(((struct ent_list *)strmap_get(&st.groups, "g"))->n, 1);
	assert_int_equal(nvals(&st, "ann"), 1);
	assert_int_equal(st.values, 2);
	ent_free(&st);
}

static void
bad(const char *privs, const char *extra, const char *key, const char *words)
{
	char t[1024];
	struct cfg *c = NULL;
	struct err e;

	snprintf(t, sizeof(t), "ldap:\n  uri: ldap://127.0.0.1:1/\n"
	    "  base: ou=privileges,dc=example,dc=edu\n  people: ou=people,dc=example,dc=edu\n"
	    "%sprivileges:\n%s", extra, privs);
	memset(&e, 0, sizeof(e));
	assert_int_not_equal(cfg_parse(t, strlen(t), "t.yaml", &c, &e), 0);
	if (strstr(e.msg, words) == NULL || (key && strcmp(e.key, key) != 0))
		fail_msg("for %s: %s (key %s)", privs, e.msg, e.key);
	assert_true(e.line > 0);
}

/* The configuration names what is wrong; defaults beside the base. */
static void
publish_configuration(void **state)
{
	struct cfg *c = conf();

	(void)state;
	assert_string_equal(c->publish.groups_dn, "ou=entitlements,dc=example,dc=edu");
	assert_string_equal(c->publish.attribute, "privEntitlement");
	assert_string_equal(c->publish.object_class, "privEntitled");
	assert_int_equal(c->privs[cfg_priv_find(c, "s")].publish, CFG_PUB_GROUPS | CFG_PUB_ATTRIBUTE);
	assert_int_equal(c->privs[cfg_priv_find(c, "t")].publish, 0);
	cfg_free(c);
	bad("  n: { type: number, publish: [groups] }\n", "", "n", "only for flags and sets");
	bad("  s: { type: set, publish: [members] }\n", "", "publish", "groups and attribute");
	bad("  s: { type: set, publish: [attribute] }\n", "", "publish.prefix", "set publish.prefix");
	bad("  s: { type: set }\n", "publish: { attribute: \"two words\" }\n", "publish.attribute",
	    "an attribute or class name");
	bad("  s: { type: set }\n", "publish: { attribute: myEntitlement }\n",
	    "publish.object_class", "auxiliary class");
	bad("  s: { type: set }\n", "publish: { lease: 1 }\n", "publish.lease", "publish.lease");
	bad("  s: { type: set }\n", "publish: { group: x }\n", NULL, "unknown key 'group'");
}

FX_MAIN("entitle",
    cmocka_unit_test(groups_and_values_from_a_model),
    cmocka_unit_test(diff_sends_only_differences),
    cmocka_unit_test(diff_stops_at_a_failure),
    cmocka_unit_test(sort_drops_duplicates),
    cmocka_unit_test(publish_configuration))

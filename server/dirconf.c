/* dirconf.c - slapd's side of privd from one list: config text, subtree, preflight. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <lber.h>
#include <ldap.h>

#include "dirconf.h"
#include "dn.h"
#include "ldapconn.h"

/* What privd's searches and writes filter on. uid stands for ldap.uid_attribute. */
static const struct {
	const char *attr, *type, *why;
} indexes[] = {
	{ "objectClass", "eq", "every sync search filters on it" },
	{ "uid", "eq", "accounts are looked up by uid" },
	{ "cn", "eq", "tree nodes and cells are found by cn" },
	{ "privMembership", "eq", "the members of a cell (node delete and move)" },
	{ "privRequest", "eq", "request ids of charges" },
	{ "privHold", "pres", "the hold-expiry search every second" },
	{ "privSession", "pres", "the session-expiry search every second" },
	{ "privImportState", "eq", "the open import" },
	{ "entryUUID", "eq", "syncprov" },
	{ "entryCSN", "eq", "syncprov" },
	{ "member", "eq", "consumers look a person up in the entitlement groups" },
};
#define NINDEXES (sizeof(indexes) / sizeof(indexes[0]))

static const char *const subtree[] = {
	NULL, "ou=reasons", "ou=organisations", "ou=cells", "ou=printers", "ou=usage", "ou=imports"
};
#define NSUBTREE (sizeof(subtree) / sizeof(subtree[0]))

static const char *
attr_of(const struct cfg *c, size_t i)
{
	return strcmp(indexes[i].attr, "uid") == 0 ? c->uid_attr : indexes[i].attr;
}

void
dirconf_defaults(const struct cfg *c, struct dirconf_site *s, char *buf, size_t n)
{
	const char *comma = strchr(c->people_dn, ',');

	if (s->database == NULL)
		s->database = "olcDatabase={1}mdb,cn=config";
	if (s->admins == NULL) {
		snprintf(buf, n, "cn=privd-admins,ou=groups,%s", comma ? comma + 1 : c->people_dn);
		s->admins = buf;
	}
}

/* A DN as a POSIX extended regular expression matching itself. */
static void
regex_of(const char *dn, char *out, size_t n)
{
	size_t k = 0;

	for (; *dn && k + 3 < n; dn++) {
		if (strchr(".[]()*+?^$\\|{}", *dn))
			out[k++] = '\\';
		out[k++] = *dn;
	}
	out[k] = '\0';
}

#define NACLS 10

/*
 * privd's ACLs, placed before the directory's own (i: 0..NACLS-1; 0 when
 * rule i is printed, -1 when it is left out). privd and the administrators
 * write all of privd's data. Everyone else:
 * - an account's usage and ledger (job titles, times, printers): its own
 *   person only, and not even that with ledger.self_read: false;
 * - pools' usage (who drew on them) and import records (whole imports,
 *   memberships included): nobody;
 * - the model (trees, cells, grants): any bound user, as before;
 * - privMembership on the person entries: the person only (or nobody);
 * - the published entitlements (groups and the attribute on people): read
 *   by any bound user (SSSD, nslcd, Apache and the IdP bind as one), written
 *   by privd alone, not even by the administrators: they change the model.
 * The objectClass rule leaves everyone else's reads of it to the rules that
 * were there, so anonymous NSS lookups keep working.
 *
 * The order is for speed as much as for meaning. slapd matches the usage
 * rule's regular expression (it names the owner) against the DN of every
 * entry at every attribute it checks, until some rule decides: at a
 * million people that was 15 of the 20 s of CPU slapd spent on privd's
 * first refresh. So privd's own reads are decided first, by rules that
 * compare DN suffixes and give privd nothing it did not have (rule 0 is
 * rule 9's first clause; rule 5 grants read of what privd must read to
 * follow the people), and the rules for the people's attributes come
 * before the expression, which no person entry matches. With
 * ldap.create_people privd adds person entries, which takes more than
 * read of entry and uid, so rule 5 is left to the directory's own rules.
 */
static int
acl(const struct cfg *c, const struct dirconf_site *s, int i, char *out, size_t n)
{
	const char *who = c->bind_dn ? c->bind_dn : "cn=privd,dc=example,dc=edu";
	char base[400], self[600];

	regex_of(c->base_dn, base, sizeof(base));
	/* the owner by exact DN, the uid expanded as a DN value: put into a
	 * regular expression, its '.' would match anyone's (axb reading a.b's) */
	if (c->ledger_self_read)
		snprintf(self, sizeof(self), "by dn.exact,expand=\"%s=$2,%s\" read ",
		    c->uid_attr, c->people_dn);
	else
		self[0] = '\0';
	switch (i) {
	case 0:
		snprintf(out, n, "to dn.subtree=\"%s\" by dn.exact=\"%s\" write by * break",
		    c->base_dn, who);
		break;
	case 1:
		snprintf(out, n, "to dn.subtree=\"%s\" by dn.exact=\"%s\" write by users read "
		    "by * none", c->publish.groups_dn, who);
		break;
	case 2:
		snprintf(out, n, "to dn.subtree=\"%s\" attrs=%s by dn.exact=\"%s\" write "
		    "by users read by * none", c->people_dn, c->publish.attribute, who);
		break;
	case 3:
		snprintf(out, n, "to dn.subtree=\"%s\" attrs=privMembership,privMembershipDates "
		    "by dn.exact=\"%s\" write by group.exact=\"%s\" write %sby * none",
		    c->people_dn, who, s->admins, c->ledger_self_read ? "by self read " : "");
		break;
	case 4:
		snprintf(out, n, "to dn.subtree=\"%s\" attrs=objectClass by dn.exact=\"%s\" write "
		    "by group.exact=\"%s\" write by * break", c->people_dn, who, s->admins);
		break;
	case 5:
		if (c->create_people)
			return -1;
		snprintf(out, n, "to dn.subtree=\"%s\" attrs=entry,%s,entryCSN "
		    "by dn.exact=\"%s\" read by * break", c->people_dn, c->uid_attr, who);
		break;
	case 6:
		snprintf(out, n, "to dn.regex=\"^(.+,)?uid=([^,]+),ou=usage,%s$\" "
		    "by dn.exact=\"%s\" write by group.exact=\"%s\" write %sby * none",
		    base, who, s->admins, self);
		break;
	case 7:
	case 8:
		snprintf(out, n, "to dn.subtree=\"%s,%s\" by dn.exact=\"%s\" write "
		    "by group.exact=\"%s\" write by * none", i == 7 ? "ou=usage" : "ou=imports",
		    c->base_dn, who, s->admins);
		break;
	default:
		snprintf(out, n, "to dn.subtree=\"%s\" by dn.exact=\"%s\" write "
		    "by group.exact=\"%s\" write by users read by * none", c->base_dn, who, s->admins);
	}
	return 0;
}

/* How many of the rules acl() prints for this configuration. */
static int
acl_count(const struct cfg *c, const struct dirconf_site *s)
{
	char a[1024];
	int k, n = 0;

	for (k = 0; k < NACLS; k++)
		n += acl(c, s, k, a, sizeof(a)) == 0;
	return n;
}

/* What privd's preflight reads of cn=config (the databases' suffixes and
 * indexes), and nothing else: olcRootPW stays unreadable. */
static void
config_acl(const struct cfg *c, char *out, size_t n)
{
	/* cn=config itself too: a one-level search needs its base */
	snprintf(out, n, "to dn.regex=\"^(olcDatabase=[^,]+,)?cn=config$\" "
	    "attrs=entry,objectClass,olcSuffix,olcDbIndex by dn.exact=\"%s\" read by * break",
	    c->bind_dn ? c->bind_dn : "cn=privd,dc=example,dc=edu");
}

static void
print_conf(const struct cfg *c, const struct dirconf_site *s, FILE *f)
{
	char a[1024];
	size_t i;
	int k;

	fprintf(f, "# privd's part of slapd.conf (privd --directory-config slapd.conf).\n"
	    "# Global section:\ninclude /etc/ldap/schema/privd.schema\nmoduleload syncprov\n"
	    "# published entitlement groups hold thousands of members: kept sorted\n"
	    "sortvals member\n\n"
	    "# In the database section holding %s and %s,\n"
	    "# the access lines before the database's own:\n", c->base_dn, c->people_dn);
	for (i = 0; i < NINDEXES; i++)
		fprintf(f, "index %s %s\n", attr_of(c, i), indexes[i].type);
	fprintf(f, "limits dn.exact=\"%s\" size=unlimited time=unlimited\n",
	    c->bind_dn ? c->bind_dn : "cn=privd,dc=example,dc=edu");
	for (k = 0; k < NACLS; k++)
		if (acl(c, s, k, a, sizeof(a)) == 0)
			fprintf(f, "access %s\n", a);
	fprintf(f, "overlay syncprov\nsyncprov-checkpoint 100 10\nsyncprov-sessionlog 10000\n");
	config_acl(c, a, sizeof(a));
	fprintf(f, "\n# Optional, in the config database's section (database config): privd\n"
	    "# reads the suffixes and indexes for --check-directory, and not olcRootPW:\n"
	    "# access %s\n", a);
}

static void
print_ldif(const struct cfg *c, const struct dirconf_site *s, FILE *f)
{
	char a[1024];
	size_t i;
	int k, printed;

	fprintf(f, "# privd's part of cn=config (privd --directory-config ldif), after the schema\n"
	    "# (ldapadd -Y EXTERNAL -H ldapi:/// -f schema/privd.ldif). Apply as root with\n"
	    "#   ldapmodify -c -Y EXTERNAL -H ldapi:/// -f THIS.ldif\n"
	    "# -c goes on past a module or index the directory has already (\"Type or value\n"
	    "# exists\"). Database: %s.\n\n", s->database);
	fprintf(f, "# 1. the syncprov module\ndn: cn=module{0},cn=config\nchangetype: modify\n"
	    "add: olcModuleLoad\nolcModuleLoad: syncprov\n\n");
	fprintf(f, "# 1b. published entitlement groups hold thousands of members: kept sorted\n"
	    "#     (where olcSortVals is set already, add member to its list by hand)\n"
	    "dn: cn=config\nchangetype: modify\nadd: olcSortVals\nolcSortVals: member\n\n");
	for (i = 0; i < NINDEXES; i++)
		fprintf(f, "# 2.%zu index: %s\ndn: %s\nchangetype: modify\nadd: olcDbIndex\n"
		    "olcDbIndex: %s %s\n\n", i + 1, indexes[i].why, s->database, attr_of(c, i),
		    indexes[i].type);
	fprintf(f, "# 3. no size or time limit for privd's bind (it reads the whole subtree)\n"
	    "dn: %s\nchangetype: modify\nadd: olcLimits\nolcLimits: dn.exact=\"%s\" "
	    "size=unlimited time=unlimited\n\n", s->database,
	    c->bind_dn ? c->bind_dn : "cn=privd,dc=example,dc=edu");
	fprintf(f, "# 4. privd's ACLs, inserted before the database's own ({0}..{%d}): a person\n"
	    "#    reads only their own usage, ledger and memberships%s; pools' usage\n"
	    "#    and import records only privd and the administrators; the directory's\n"
	    "#    own rules still decide every other read\n"
	    "dn: %s\nchangetype: modify\nadd: olcAccess\n", acl_count(c, s) - 1,
	    c->ledger_self_read ? "" : " (here: not even those, ledger.self_read: false)",
	    s->database);
	for (k = 0, printed = 0; k < NACLS; k++)
		if (acl(c, s, k, a, sizeof(a)) == 0)
			fprintf(f, "olcAccess: {%d}%s\n", printed++, a);
	fprintf(f, "\n# 5. the syncprov overlay privd follows the directory with\n"
	    "dn: olcOverlay=syncprov,%s\nchangetype: add\nobjectClass: olcOverlayConfig\n"
	    "objectClass: olcSyncProvConfig\nolcOverlay: syncprov\nolcSpCheckpoint: 100 10\n"
	    "olcSpSessionlog: 10000\n", s->database);
	config_acl(c, a, sizeof(a));
	fprintf(f, "\n# 6. optional: privd reads the databases' suffixes and indexes in cn=config,\n"
	    "#    so that --check-directory checks the indexes; nothing else of cn=config\n"
	    "#    (not olcRootPW). Without it the preflight says it could not check them.\n"
	    "dn: olcDatabase={0}config,cn=config\nchangetype: modify\nadd: olcAccess\n"
	    "olcAccess: {0}%s\n", a);
}

int
dirconf_print(const struct cfg *c, const struct dirconf_site *s, const char *form, FILE *f)
{
	if (strcmp(form, "slapd.conf") == 0)
		print_conf(c, s, f);
	else if (strcmp(form, "ldif") == 0)
		print_ldif(c, s, f);
	else
		return -1;
	return 0;
}

/* ---- setup-directory ---- */

int
dirconf_add_ou(LDAP *ld, const char *dn, int dry_run)
{
	LDAPDN parsed = NULL;
	char *oc[] = { "organizationalUnit", NULL }, *ou[] = { NULL, NULL };
	LDAPMod m1 = { LDAP_MOD_ADD, "objectClass", { oc } }, m2 = { LDAP_MOD_ADD, "ou", { ou } };
	LDAPMod *mods[] = { &m1, &m2, NULL };
	char val[256];

	if (ldap_str2dn(dn, &parsed, LDAP_DN_FORMAT_LDAPV3) != LDAP_SUCCESS ||
	    parsed == NULL || parsed[0] == NULL ||
	    strncasecmp(parsed[0][0]->la_attr.bv_val, "ou", parsed[0][0]->la_attr.bv_len) != 0 ||
	    parsed[0][0]->la_attr.bv_len != 2) {
		ldap_dnfree(parsed);
		return LDAP_INVALID_DN_SYNTAX;
	}
	snprintf(val, sizeof(val), "%.*s", (int)parsed[0][0]->la_value.bv_len,
	    parsed[0][0]->la_value.bv_val);
	ldap_dnfree(parsed);
	ou[0] = val;
	return dry_run ? LDAP_SUCCESS : ldap_add_ext_s(ld, dn, mods, NULL, NULL);
}

int
dirconf_setup(LDAP *ld, const struct cfg *c, int dry_run, FILE *out, struct err *e)
{
	size_t i;

	/* and the entitlements' container, privd's to write, beside the base */
	for (i = 0; i < NSUBTREE + (cfg_publishes(c) != 0); i++) {
		char *dn = i == NSUBTREE ? strdup(c->publish.groups_dn) :
		    subtree[i] ? dn_join(subtree[i], c->base_dn) : strdup(c->base_dn);
		const char *key = i == NSUBTREE ? "publish.groups" : "ldap.base";
		int rc;

		if (dn == NULL)
			return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
		rc = dirconf_add_ou(ld, dn, dry_run);
		if (rc == LDAP_INVALID_DN_SYNTAX) {
			err_set(e, ERR_INVALID, 0, key, "%s %s: privd creates an ou=NAME entry; "
			    "create this one yourself, then run setup-directory again", key, dn);
			free(dn);
			return -1;
		}
		if (rc == LDAP_ALREADY_EXISTS)
			fprintf(out, "= %s (there already)\n", dn);
		else if (rc == LDAP_SUCCESS)
			fprintf(out, "+ %s%s\n", dn, dry_run ? " (dry run)" : "");
		else {
			ldapc_fail(e, rc, dn);
			if (rc == LDAP_NO_SUCH_OBJECT)
				snprintf(e->msg + strlen(e->msg), sizeof(e->msg) - strlen(e->msg),
				    " (its parent must exist first)");
			free(dn);
			return -1;
		}
		free(dn);
	}
	return 0;
}

/* ---- the preflight ---- */

struct check {
	FILE *out;
	int failed;
};

static void __attribute__((format(printf, 3, 4)))
result(struct check *k, int ok, const char *fmt, ...)
{
	va_list ap;

	fprintf(k->out, "%s ", ok ? "ok:  " : "FAIL:");
	va_start(ap, fmt);
	vfprintf(k->out, fmt, ap);
	va_end(ap);
	fputc('\n', k->out);
	if (!ok)
		k->failed = 1;
}

static int
has_class(LDAP *ld, const char *name)
{
	char *attrs[] = { "objectClasses", NULL }, needle[96];
	LDAPMessage *res = NULL, *m;
	struct berval **v;
	int found = 0;
	size_t i;

	snprintf(needle, sizeof(needle), "NAME '%s'", name);
	if (ldap_search_ext_s(ld, "cn=Subschema", LDAP_SCOPE_BASE, "(objectClass=subschema)",
	    attrs, 0, NULL, NULL, NULL, 0, &res) == LDAP_SUCCESS &&
	    (m = ldap_first_entry(ld, res)) != NULL &&
	    (v = ldap_get_values_len(ld, m, "objectClasses")) != NULL) {
		for (i = 0; v[i] && !found; i++)
			found = memmem(v[i]->bv_val, v[i]->bv_len, needle, strlen(needle)) != NULL;
		ldap_value_free_len(v);
	}
	ldap_msgfree(res);
	return found;
}

const char *
dirconf_schema_missing(LDAP *ld)
{
	/* privNotice is the newest: an older schema lacks it */
	static const char *const classes[] = { "privCell", "privImport", "privPoolUsage",
	    "privPrinter", "privVoucherCode", "privNotice" };
	size_t i;

	for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (!has_class(ld, classes[i]))
			return classes[i];
	return NULL;
}

static int
exists(LDAP *ld, const char *dn)
{
	char *attrs[] = { "1.1", NULL };
	LDAPMessage *res = NULL;
	int rc = ldap_search_ext_s(ld, dn, LDAP_SCOPE_BASE, "(objectClass=*)", attrs, 0,
	    NULL, NULL, NULL, 0, &res);

	ldap_msgfree(res);
	return rc == LDAP_SUCCESS;
}

/* A refreshOnly sync search of the base: what syncprov answers. */
static int
sync_answer(LDAP *ld, const struct cfg *c)
{
	char *attrs[] = { "1.1", NULL };
	LDAPControl ctrl, *ctrls[] = { &ctrl, NULL };
	LDAPMessage *res = NULL;
	BerElement *ber = ber_alloc_t(LBER_USE_DER);
	int rc;

	if (ber == NULL || ber_printf(ber, "{e}", (ber_int_t)LDAP_SYNC_REFRESH_ONLY) < 0 ||
	    ber_flatten2(ber, &ctrl.ldctl_value, 0) < 0) {
		ber_free(ber, 1);
		return LDAP_NO_MEMORY;
	}
	ctrl.ldctl_oid = LDAP_CONTROL_SYNC;
	ctrl.ldctl_iscritical = 1;
	rc = ldap_search_ext_s(ld, c->base_dn, LDAP_SCOPE_BASE, "(objectClass=*)", attrs, 0,
	    ctrls, NULL, NULL, 0, &res);
	ber_free(ber, 1);
	ldap_msgfree(res);
	return rc;
}

/* A modify that changes nothing: attr replaced by the values it has. */
static int
noop_modify(LDAP *ld, const char *dn, char *attr)
{
	char *attrs[] = { attr, NULL };
	LDAPMessage *res = NULL, *m;
	struct berval **v = NULL;
	LDAPMod mod, *mods[] = { &mod, NULL };
	int rc;

	rc = ldap_search_ext_s(ld, dn, LDAP_SCOPE_BASE, "(objectClass=*)", attrs, 0, NULL, NULL,
	    NULL, 0, &res);
	if (rc != LDAP_SUCCESS) {
		ldap_msgfree(res);
		return rc;
	}
	if ((m = ldap_first_entry(ld, res)) != NULL)
		v = ldap_get_values_len(ld, m, attr);
	mod.mod_op = LDAP_MOD_REPLACE | LDAP_MOD_BVALUES;
	mod.mod_type = attr;
	mod.mod_bvalues = v;
	rc = ldap_modify_ext_s(ld, dn, mods, NULL, NULL);
	ldap_value_free_len(v);
	ldap_msgfree(res);
	return rc;
}

/* A person under ldap.people, for the membership write check; NULL when none. */
static char *
some_person(LDAP *ld, const struct cfg *c)
{
	char *attrs[] = { "1.1", NULL }, filter[96], *dn = NULL;
	LDAPMessage *res = NULL, *m;

	snprintf(filter, sizeof(filter), "(%s=*)", c->uid_attr);
	ldap_search_ext_s(ld, c->people_dn, LDAP_SCOPE_SUBTREE, filter, attrs, 0, NULL, NULL,
	    NULL, 1, &res);
	if (res && (m = ldap_first_entry(ld, res)) != NULL) {
		char *d = ldap_get_dn(ld, m);

		dn = d ? strdup(d) : NULL;
		ldap_memfree(d);
	}
	ldap_msgfree(res);
	return dn;
}

/* Whether an olcDbIndex value ("cn,uid eq,sub") indexes attr for type. */
static int
index_covers(const char *val, const char *attr, const char *type)
{
	char buf[512], *sp, *a, *t, *save;
	int attr_ok = 0, type_ok = 0;

	snprintf(buf, sizeof(buf), "%s", val);
	if ((sp = strpbrk(buf, " \t")) == NULL)
		return 0;
	*sp++ = '\0';
	for (a = strtok_r(buf, ",", &save); a; a = strtok_r(NULL, ",", &save))
		attr_ok |= strcasecmp(a, attr) == 0 || strcasecmp(a, "default") == 0;
	while (*sp == ' ' || *sp == '\t')
		sp++;
	for (t = strtok_r(sp, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save))
		type_ok |= strcasecmp(t, type) == 0;
	return attr_ok && type_ok;
}

static void
check_indexes(LDAP *ld, const struct cfg *c, struct check *k)
{
	char *attrs[] = { "olcSuffix", "olcDbIndex", NULL };
	LDAPMessage *res = NULL, *m;
	struct berval **idx = NULL;
	size_t i, j;
	int rc;

	rc = ldap_search_ext_s(ld, "cn=config", LDAP_SCOPE_ONELEVEL,
	    "(objectClass=olcDatabaseConfig)", attrs, 0, NULL, NULL, NULL, 0, &res);
	for (m = rc == LDAP_SUCCESS ? ldap_first_entry(ld, res) : NULL; m && !idx;
	    m = ldap_next_entry(ld, m)) {
		struct berval **sfx = ldap_get_values_len(ld, m, "olcSuffix");

		for (i = 0; sfx && sfx[i] && !idx; i++) {
			char *s = strndup(sfx[i]->bv_val, sfx[i]->bv_len);

			if (s && dn_within(c->base_dn, s))
				idx = ldap_get_values_len(ld, m, "olcDbIndex");
			free(s);
		}
		ldap_value_free_len(sfx);
	}
	ldap_msgfree(res);
	if (idx == NULL) {
		fprintf(k->out, "?     indexes: could not check (cn=config is not readable by this "
		    "bind); see privd --directory-config ldif, part 2\n");
		return;
	}
	for (i = 0; i < NINDEXES; i++) {
		int found = 0;

		for (j = 0; idx[j] && !found; j++) {
			char *v = strndup(idx[j]->bv_val, idx[j]->bv_len);

			found = v && index_covers(v, attr_of(c, i), indexes[i].type);
			free(v);
		}
		result(k, found, "index %s %s (%s)%s", attr_of(c, i), indexes[i].type,
		    indexes[i].why, found ? "" : ": missing; add it (privd --directory-config ldif, part 2)");
	}
	ldap_value_free_len(idx);
}

int
dirconf_check(const struct cfg *c, FILE *out)
{
	struct check k = { out, 0 };
	LDAP *ld = NULL;
	struct err e;
	size_t i;
	char *person, *dn;
	int rc;

	memset(&e, 0, sizeof(e));
	if (ldapc_open_write(c, NULL, NULL, &ld, &e) != 0) {
		if (strstr(e.msg, "refused") != NULL) {
			result(&k, 0, "bind as %s: %s; check ldap.bind_dn and its password",
			    c->bind_dn ? c->bind_dn : "(anonymous)", e.msg);
			return 1;
		}
		fprintf(out, "FAIL: %s\n", e.msg);
		return 3;
	}
	result(&k, 1, "bind as %s", c->bind_dn ? c->bind_dn : "(anonymous)");
	rc = dirconf_schema_missing(ld) == NULL;
	result(&k, rc, "schema%s", rc ? "" : ": privd's object classes are missing (or old): load "
	    "schema/privd.ldif (ldapadd -Y EXTERNAL -H ldapi:/// -f schema/privd.ldif), or "
	    "include schema/privd.schema in slapd.conf");
	for (i = 0; i < NSUBTREE; i++) {
		dn = subtree[i] ? dn_join(subtree[i], c->base_dn) : strdup(c->base_dn);
		rc = dn && exists(ld, dn);
		result(&k, rc, "%s%s", dn ? dn : "?", rc ? "" :
		    ": missing; run privd -c FILE setup-directory");
		free(dn);
	}
	rc = exists(ld, c->people_dn);
	result(&k, rc, "ldap.people %s%s", c->people_dn, rc ? "" : ": missing; check ldap.people");
	rc = sync_answer(ld, c);
	result(&k, rc == LDAP_SUCCESS, "content sync (syncprov)%s%s",
	    rc == LDAP_SUCCESS ? "" : ": ", rc == LDAP_SUCCESS ? "" :
	    rc == LDAP_UNAVAILABLE_CRITICAL_EXTENSION ? "\"Critical extension is unavailable\": "
	    "load and add the syncprov overlay (privd --directory-config ldif, parts 1 and 5)" :
	    ldap_err2string(rc));
	if ((dn = dn_join("ou=cells", c->base_dn)) != NULL) {
		rc = noop_modify(ld, dn, "description");
		result(&k, rc == LDAP_SUCCESS, "privd may write %s%s%s", c->base_dn,
		    rc == LDAP_SUCCESS ? "" : ": ", rc == LDAP_SUCCESS ? "" :
		    rc == LDAP_INSUFFICIENT_ACCESS ? "the directory refused: add privd's ACLs "
		    "(privd --directory-config ldif, part 4)" : ldap_err2string(rc));
		free(dn);
	}
	if ((person = some_person(ld, c)) != NULL) {
		rc = noop_modify(ld, person, "privMembership");
		result(&k, rc == LDAP_SUCCESS, "privd may write privMembership (tried on %s)%s%s",
		    person, rc == LDAP_SUCCESS ? "" : ": ", rc == LDAP_SUCCESS ? "" :
		    rc == LDAP_INSUFFICIENT_ACCESS ? "the directory refused: add privd's ACLs "
		    "(privd --directory-config ldif, part 4)" : ldap_err2string(rc));
		free(person);
	} else
		fprintf(out, "?     privMembership writes: no person under %s to try on\n",
		    c->people_dn);
	{
		char *attrs[] = { "1.1", NULL };
		LDAPMessage *res = NULL;

		rc = ldap_search_ext_s(ld, c->people_dn, LDAP_SCOPE_SUBTREE, "(objectClass=*)", attrs,
		    0, NULL, NULL, NULL, 0, &res);
		ldap_msgfree(res);
		result(&k, rc == LDAP_SUCCESS, "no size limit on privd's searches%s",
		    rc == LDAP_SUCCESS ? "" : rc == LDAP_SIZELIMIT_EXCEEDED ? ": the bind's size "
		    "limit cuts searches short; add the olcLimits line (privd --directory-config "
		    "ldif, part 3)" : ": the search failed");
	}
	check_indexes(ld, c, &k);
	ldapc_close(ld);
	return k.failed ? 1 : 0;
}

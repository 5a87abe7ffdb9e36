/* merge.c - each provider given the ledger values another holds and it lacks (merge.h). */
#include <stdlib.h>
#include <string.h>

#include "dn.h"
#include "ldapconn.h"
#include "merge.h"
#include "strv.h"

/* The values that only ever come to a usage entry: their union is the truth. */
static const char *const grows[] = { "privEntry", "privRequest" };
#define NGROWS (sizeof(grows) / sizeof(grows[0]))

struct walk {
	const struct cfg *c;
	LDAP **ld;
	const char *const *uris;
	size_t n, self;		/* the providers; the one walked */
	FILE *out;
	int faults;
};

/* dn at ld: its growing values and segments; 1, 0 when absent, -1. */
static int
read_at(LDAP *ld, const struct cfg *c, const char *dn, char **v[NGROWS], long long *seg)
{
	char *attrs[] = { (char *)grows[0], (char *)grows[1], "privSegments", NULL };
	LDAPMessage *res = NULL, *m;
	struct err e;
	size_t i;
	int rc;

	memset(&e, 0, sizeof(e));
	rc = ldapc_search(ld, c, dn, LDAP_SCOPE_BASE, "(objectClass=privUsage)", attrs, 1, &res,
	    &e);
	if (rc != 0 || (m = ldap_first_entry(ld, res)) == NULL) {
		ldap_msgfree(res);
		return rc == 1 || rc == 0 ? 0 : -1;
	}
	*seg = 0;
	ldapc_get_ll(ld, m, "privSegments", seg);
	for (i = 0; i < NGROWS; i++)
		v[i] = ldapc_get_strv(ld, m, grows[i]);
	ldap_msgfree(res);
	return v[0] && v[1] ? 1 : -1;
}

/* One usage entry of the walked provider, against each other one. */
static int
one(LDAP *ld, LDAPMessage *m, void *arg)
{
	struct walk *w = arg;
	char *dn = ldap_get_dn(ld, m), **mine[NGROWS] = { NULL, NULL };
	long long seg = 0;
	size_t j, i;
	int rc = 0;

	if (dn == NULL)
		return -1;
	ldapc_get_ll(ld, m, "privSegments", &seg);
	for (i = 0; i < NGROWS; i++)
		if ((mine[i] = ldapc_get_strv(ld, m, grows[i])) == NULL)
			rc = -1;
	for (j = 0; rc == 0 && j < w->n; j++) {
		char **theirs[NGROWS] = { NULL, NULL }, **add[NGROWS] = { NULL, NULL };
		LDAPMod mod[NGROWS], *mods[NGROWS + 1];
		long long tseg = 0;
		int k = 0, r;

		if (j == w->self)
			continue;
		if ((r = read_at(w->ld[j], w->c, dn, theirs, &tseg)) <= 0) {
			if (r == 0)
				fprintf(w->out, "%s: on %s, not on %s: not merged\n", dn,
				    w->uris[w->self], w->uris[j]);
			w->faults++;
		} else if (tseg != seg) {
			fprintf(w->out, "%s: %lld ledger segments on %s, %lld on %s: not merged\n", dn,
			    seg, w->uris[w->self], tseg, w->uris[j]);
			w->faults++;
		} else {
			for (i = 0; i < NGROWS; i++) {
				if ((add[i] = strv_lacking(mine[i], theirs[i])) == NULL) {
					rc = -1;
					break;
				}
				if (add[i][0] != NULL) {
					mod[k] = (LDAPMod){ LDAP_MOD_ADD, (char *)grows[i], { add[i] } };
					mods[k] = &mod[k];
					k++;
				}
			}
			mods[k] = NULL;
			if (rc == 0 && k > 0) {
				r = ldap_modify_ext_s(w->ld[j], dn, mods, NULL, NULL);
				fprintf(w->out, "%s: %zu ledger entries and %zu request ids of %s "
				    "added at %s%s%s\n", dn, strv_len(add[0]), strv_len(add[1]),
				    w->uris[w->self], w->uris[j], r == LDAP_SUCCESS ? "" : ": ",
				    r == LDAP_SUCCESS ? "" : ldap_err2string(r));
				if (r != LDAP_SUCCESS)
					w->faults++;
			}
		}
		for (i = 0; i < NGROWS; i++) {
			free(add[i]);
			strv_free(theirs[i]);
		}
	}
	for (i = 0; i < NGROWS; i++)
		strv_free(mine[i]);
	ldap_memfree(dn);
	return rc;
}

int
merge_ledgers(const struct cfg *c, const char *const *uris, size_t n, FILE *out,
    struct err *e)
{
	char *attrs[] = { (char *)grows[0], (char *)grows[1], "privSegments", NULL };
	char *root = dn_join("ou=usage", c->base_dn);
	LDAP **ld = calloc(n, sizeof(*ld));
	struct walk w = { .c = c, .ld = ld, .uris = uris, .n = n, .out = out };
	int rc = -1;
	size_t i;

	if (root == NULL || ld == NULL) {
		err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
		goto done;
	}
	for (i = 0; i < n; i++)
		if (ldapc_open_uri(c, uris[i], &ld[i], e) != 0)
			goto done;
	for (i = 0; i < n; i++) {
		w.self = i;
		if (ldapc_paged(ld[i], c, root, LDAP_SCOPE_SUBTREE, "(objectClass=privUsage)",
		    attrs, 100, one, &w, e) < 0)
			goto done;
	}
	rc = w.faults;
done:
	for (i = 0; ld && i < n; i++)
		ldapc_close(ld[i]);
	free(ld);
	free(root);
	return rc;
}

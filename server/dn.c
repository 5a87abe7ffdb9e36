/* dn.c - DN building and parsing with libldap's own escaping and parsing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ldap.h>

#include "dn.h"
#include "path.h"
#include "holder.h"

char *
dn_join(const char *rdn, const char *base)
{
	size_t n = strlen(rdn) + strlen(base) + 2;
	char *s = malloc(n);

	if (s != NULL)
		snprintf(s, n, "%s,%s", rdn, base);
	return s;
}

/* Formats `n` cn RDNs (values[0] leftmost) followed by parent. */
static char *
build(const char *attr, const char *const *values, size_t n, const char *parent)
{
	LDAPAVA *avas = NULL;
	LDAPAVA **avp = NULL;
	LDAPRDN *rdns = NULL;
	char *str = NULL, *out = NULL;
	size_t i;

	if (n == 0)
		return parent ? strdup(parent) : NULL;
	avas = calloc(n, sizeof(*avas));
	avp = calloc(2 * n, sizeof(*avp));
	rdns = calloc(n + 1, sizeof(*rdns));
	if (avas == NULL || avp == NULL || rdns == NULL)
		goto done;
	for (i = 0; i < n; i++) {
		avas[i].la_attr.bv_val = (char *)attr;
		avas[i].la_attr.bv_len = strlen(attr);
		avas[i].la_value.bv_val = (char *)values[i];
		avas[i].la_value.bv_len = strlen(values[i]);
		avas[i].la_flags = LDAP_AVA_STRING;
		avp[2 * i] = &avas[i];
		avp[2 * i + 1] = NULL;
		rdns[i] = &avp[2 * i];
	}
	rdns[n] = NULL;
	if (ldap_dn2str(rdns, &str, LDAP_DN_FORMAT_LDAPV3) != LDAP_SUCCESS)
		goto done;
	out = parent ? dn_join(str, parent) : strdup(str);
done:
	if (str != NULL)
		ldap_memfree(str);
	free(rdns);
	free(avp);
	free(avas);
	return out;
}

char *
dn_child(const char *attr, const char *value, const char *parent)
{
	return build(attr, &value, 1, parent);
}

char *
dn_node(const char *path, const char *container)
{
	char buf[PATH_MAX_LEN + 1];
	const char *segs[PATH_DEPTH_MAX];
	size_t n = 0;
	char *p, *save = NULL;

	if (*path == '\0')
		return strdup(container);
	snprintf(buf, sizeof(buf), "%s", path);
	for (p = strtok_r(buf, "/", &save); p && n < PATH_DEPTH_MAX;
	    p = strtok_r(NULL, "/", &save))
		segs[n++] = p;
	/* leaf first */
	for (size_t i = 0; i < n / 2; i++) {
		const char *t = segs[i];

		segs[i] = segs[n - 1 - i];
		segs[n - 1 - i] = t;
	}
	return build("cn", segs, n, container);
}

static int
rdn_eq(LDAPRDN a, LDAPRDN b)
{
	size_t i;

	for (i = 0; a[i] && b[i]; i++) {
		if (a[i]->la_attr.bv_len != b[i]->la_attr.bv_len ||
		    strncasecmp(a[i]->la_attr.bv_val, b[i]->la_attr.bv_val,
		    a[i]->la_attr.bv_len) != 0 ||
		    a[i]->la_value.bv_len != b[i]->la_value.bv_len ||
		    strncasecmp(a[i]->la_value.bv_val, b[i]->la_value.bv_val,
		    a[i]->la_value.bv_len) != 0)
			return 0;
	}
	return a[i] == NULL && b[i] == NULL;
}

/* Number of leading RDNs of dn above container, or -1 when not below it. */
static int
below(LDAPDN dn, LDAPDN cont)
{
	int nd = 0, nc = 0, i;

	while (dn && dn[nd])
		nd++;
	while (cont && cont[nc])
		nc++;
	if (nd < nc)
		return -1;
	for (i = 0; i < nc; i++)
		if (!rdn_eq(dn[nd - nc + i], cont[i]))
			return -1;
	return nd - nc;
}

static int
parse2(const char *dn, const char *container, LDAPDN *d, LDAPDN *c)
{
	*d = *c = NULL;
	if (ldap_str2dn(dn, d, LDAP_DN_FORMAT_LDAP) != LDAP_SUCCESS)
		return -1;
	if (ldap_str2dn(container, c, LDAP_DN_FORMAT_LDAP) != LDAP_SUCCESS) {
		ldap_dnfree(*d);
		*d = NULL;
		return -1;
	}
	return 0;
}

static int
is_cn(LDAPRDN r)
{
	return r[0] != NULL && r[1] == NULL && r[0]->la_attr.bv_len == 2 &&
	    strncasecmp(r[0]->la_attr.bv_val, "cn", 2) == 0;
}

int
dn_path(const char *dn, const char *container, char *out, size_t n)
{
	LDAPDN d, c;
	size_t len = 0;
	int k, i, rc = -1;

	if (parse2(dn, container, &d, &c) != 0)
		return -1;
	if ((k = below(d, c)) < 0)
		goto done;
	out[0] = '\0';
	for (i = k - 1; i >= 0; i--) {
		struct berval *v = &d[i][0]->la_value;

		if (!is_cn(d[i]) || len + v->bv_len + 2 > n)
			goto done;
		if (len > 0)
			out[len++] = '/';
		memcpy(out + len, v->bv_val, v->bv_len);
		len += v->bv_len;
		out[len] = '\0';
	}
	rc = 0;
done:
	ldap_dnfree(d);
	ldap_dnfree(c);
	return rc;
}

/* Whether v needs no escaping in a DN string (RFC 4514, and "=" too). */
static int
plain_value(const char *v, size_t vl)
{
	size_t i;

	if (vl == 0 || v[0] == '#' || v[0] == ' ' || v[vl - 1] == ' ')
		return 0;
	for (i = 0; i < vl; i++)
		if (strchr("\\,+\"<>;=", v[i]) != NULL || (unsigned char)v[i] < 0x20)
			return 0;
	return 1;
}

int
dn_is_child(const char *dn, const char *attr, const char *value, const char *parent)
{
	size_t al = strlen(attr), vl = strlen(value), pl = strlen(parent);
	char *usual;
	int same;

	/* the common case compares strings: a refresh asks once per person */
	if (plain_value(value, vl) && strlen(dn) == al + vl + pl + 2 &&
	    strncasecmp(dn, attr, al) == 0 && dn[al] == '=' &&
	    memcmp(dn + al + 1, value, vl) == 0 && dn[al + 1 + vl] == ',' &&
	    strcasecmp(dn + al + vl + 2, parent) == 0)
		return 1;
	if ((usual = dn_child(attr, value, parent)) == NULL)
		return -1;
	same = strcasecmp(usual, dn) == 0;
	free(usual);
	return same;
}

/*
 * dn_leaf_cn's common case without parsing: "cn=VALUE," then the container
 * byte for byte, VALUE with nothing a DN string escapes. A sync refresh
 * reads two of these per person; parsing both DNs took a tenth of a
 * million-account load. 1: out holds VALUE; 0: parse it.
 */
static int
leaf_plain(const char *dn, const char *container, char *out, size_t n)
{
	size_t cl = strlen(container), dl = strlen(dn), vl;
	const char *v = dn + 3;

	if (dl < 4 + cl || strncasecmp(dn, "cn=", 3) != 0 ||
	    strcmp(dn + dl - cl, container) != 0 || dn[dl - cl - 1] != ',')
		return 0;
	vl = dl - cl - 4;
	if (vl >= n || !plain_value(v, vl))
		return 0;
	memcpy(out, v, vl);
	out[vl] = '\0';
	return 1;
}

int
dn_leaf_cn(const char *dn, const char *container, char *out, size_t n)
{
	LDAPDN d, c;
	int rc = -1;

	if (leaf_plain(dn, container, out, n))
		return 0;
	if (parse2(dn, container, &d, &c) != 0)
		return -1;
	if (below(d, c) == 1 && is_cn(d[0]) && d[0][0]->la_value.bv_len < n) {
		memcpy(out, d[0][0]->la_value.bv_val, d[0][0]->la_value.bv_len);
		out[d[0][0]->la_value.bv_len] = '\0';
		rc = 0;
	}
	ldap_dnfree(d);
	ldap_dnfree(c);
	return rc;
}

int
dn_within(const char *dn, const char *container)
{
	LDAPDN d, c;
	int rc;

	if (parse2(dn, container, &d, &c) != 0)
		return 0;
	rc = below(d, c) >= 0;
	ldap_dnfree(d);
	ldap_dnfree(c);
	return rc;
}

static int
rdn_value(LDAPRDN r, const char *attr, char *out, size_t n)
{
	size_t al = strlen(attr);

	if (r[0] == NULL || r[1] != NULL || r[0]->la_attr.bv_len != al ||
	    strncasecmp(r[0]->la_attr.bv_val, attr, al) != 0 ||
	    r[0]->la_value.bv_len >= n)
		return -1;
	memcpy(out, r[0]->la_value.bv_val, r[0]->la_value.bv_len);
	out[r[0]->la_value.bv_len] = '\0';
	return 0;
}

int
dn_usage(const char *dn, const char *container, char uid[DN_VAL_MAX],
    char name[DN_VAL_MAX])
{
	char cell[CELL_MAX_LEN + 1];
	LDAPDN d, c;
	int rc = -1;

	if (parse2(dn, container, &d, &c) != 0)
		return -1;
	/* an account's usage sits under uid=UID, a pool's under cn=CELL: its
	 * holder is then "pool:CELL" (holder.h) */
	if (below(d, c) == 2 && rdn_value(d[0], "cn", name, DN_VAL_MAX) == 0) {
		if (rdn_value(d[1], "uid", uid, DN_VAL_MAX) == 0)
			rc = 0;
		else if (rdn_value(d[1], "cn", cell, sizeof(cell)) == 0) {
			holder_pool(uid, cell);
			rc = 0;
		}
	}
	ldap_dnfree(d);
	ldap_dnfree(c);
	return rc;
}

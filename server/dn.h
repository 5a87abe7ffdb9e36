/* dn.h - privd's DNs: tree paths and names to DNs and back, escaped by libldap. */
#ifndef PRIVD_DN_H
#define PRIVD_DN_H

#include <stddef.h>

/* "ou=reasons,BASE" etc.; malloc'd, the caller frees. */
char *dn_join(const char *rdn, const char *base);
/* attr=value,parent with value escaped; malloc'd, NULL when out of memory. */
char *dn_child(const char *attr, const char *value, const char *parent);
/* Whether dn is attr=value directly under parent (as dn_child would
 * write it, in any case); -1 when out of memory. */
int dn_is_child(const char *dn, const char *attr, const char *value, const char *parent);
/* The DN of tree node path under container: cn=leaf,...,cn=top,container. */
char *dn_node(const char *path, const char *container);

/*
 * The path of dn below container (cn RDNs only, top first, joined by '/')
 * into out (size n); "" for container itself. -1 when dn is not below
 * container, has another RDN type, or does not fit.
 */
int dn_path(const char *dn, const char *container, char *out, size_t n);
/* The value of the cn of a DN exactly one level below container. */
int dn_leaf_cn(const char *dn, const char *container, char *out, size_t n);
/* Whether dn equals or sits below container (case-insensitive values). */
int dn_within(const char *dn, const char *container);

/*
 * A usage entry's DN, "cn=NAME,uid=UID,container": 0 with uid and name
 * filled, -1 for any other DN.
 */
#define DN_VAL_MAX 520	/* a pool's holder, "pool:" and a cell name (pool.h) */
int dn_usage(const char *dn, const char *container, char uid[DN_VAL_MAX],
    char name[DN_VAL_MAX]);

#endif

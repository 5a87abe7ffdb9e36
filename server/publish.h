/*
 * publish.h - effective privileges written into the directory for what only
 * speaks LDAP (SSSD, nslcd, Apache, RADIUS, Shibboleth): a groupOfNames per
 * published flag and set element, and URI values on each person. One privd
 * writes, holding a lease entry; it writes only differences from what the
 * directory holds, read once when it takes the lease (reconcile).
 */
#ifndef PRIVD_PUBLISH_H
#define PRIVD_PUBLISH_H

#include <stdio.h>

#include "config.h"

/* Starts the publisher thread when a privilege publishes; 0 when none does. */
int publish_start(const struct cfg *c);
/* Stops it, giving the lease back so another privd takes over at once. */
void publish_stop(void);
/* For /metrics: the privd_entitlement_* lines appended to out. */
void publish_metrics(char *out, size_t n);
/*
 * privd --check-entitlements: the model (followed until its first
 * snapshot) against what the directory holds; each difference said on
 * out. 0 agreeing, 1 differences, 3 the directory unreachable.
 */
int publish_check(const struct cfg *c, FILE *out);

#endif

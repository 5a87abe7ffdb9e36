/*
 * cfgnotify.h - the configuration of notices by email (notice.h): the
 * notify section, and the thresholds a privilege gives (notify: [20%, 0]).
 */
#ifndef PRIVD_CFGNOTIFY_H
#define PRIVD_CFGNOTIFY_H

#include <stddef.h>

#include "cfgread.h"

#define CFG_THRESHOLDS_MAX 4

/* A notice threshold: N% of the allowance left, or N left in all. */
struct cfg_threshold {
	long long value;
	int percent;
};

struct cfg_notify {
	char *smtp;		/* a libcurl URL, smtp://host[:port]; NULL: no notices */
	char *from;
	char *templates;	/* a directory of low.txt, pool-low.txt, digest.txt */
	char **admins;		/* the weekly digest's addresses */
	size_t nadmins;
	int digest_wday;	/* 0 Sunday .. 6, -1 no digest */
	int retry_s;		/* a notice not sent is tried again after this */
};

/* The templates a notify.templates directory must hold. */
extern const char *const cfg_notice_templates[3];

void cfg_notify_defaults(struct cfg_notify *n);
void cfg_notify_free(struct cfg_notify *n);
/*
 * notify: {smtp, from, templates, admins, digest, retry} into n. The
 * templates directory is relative to the configuration file at path and
 * must hold each of cfg_notice_templates.
 */
int cfg_parse_notify(struct cfgr *x, const yaml_node_t *m, const char *path,
    struct cfg_notify *n);
/* A privilege's notify: [20%, 0]: up to CFG_THRESHOLDS_MAX into t, *n of them. */
int cfg_parse_thresholds(struct cfgr *x, const yaml_node_t *v, const char *name,
    struct cfg_threshold *t, int *n);

#endif

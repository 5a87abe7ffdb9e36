/* cfgnotify.h - the configuration of notices by email (notice.h): its section and thresholds. */
#ifndef PRIVD_CFGNOTIFY_H
#define PRIVD_CFGNOTIFY_H

#include "cfgread.h"
#include "config.h"

/* The templates a notify.templates directory must hold. */
extern const char *const cfg_notice_templates[3];

/*
 * notify: {smtp, from, templates, admins, digest, retry}: where notices go
 * and what they say. The templates directory is relative to the file and
 * must hold each of cfg_notice_templates.
 */
int cfg_parse_notify(struct cfgr *x, const yaml_node_t *m);
/* A privilege's notify: [20%, 0]: up to CFG_THRESHOLDS_MAX thresholds. */
int cfg_parse_thresholds(struct cfgr *x, const yaml_node_t *v, const char *name,
    struct cfg_priv *pv);

#endif

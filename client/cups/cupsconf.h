/* cupsconf.h - the CUPS backend's configuration, /etc/privd/cups.yaml. */
#ifndef PRIVD_CUPSCONF_H
#define PRIVD_CUPSCONF_H

#include <stddef.h>

#include "yconf.h"

#define CUPSCONF_PATH	"/etc/privd/cups.yaml"

/* When privd cannot be reached before a job prints. */
enum cupsconf_unreachable {
	CUPSCONF_UNSET = 0,
	CUPSCONF_RETRY,		/* cupsd tries the job again later */
	CUPSCONF_HOLD,		/* the job is held until an operator releases it */
	CUPSCONF_ALLOW,		/* printed uncharged, and logged as such */
};

/* What one queue checks and charges; NULL/0 fields take the defaults'. */
struct cupsconf_queue {
	char *name;
	char *access_privilege;	/* a set privilege (printer.access) */
	char *access;		/* its element for this queue (the queue name) */
	char *pages;		/* quota of monochrome pages (print.pages) */
	char *colour;		/* flag that allows colour (print.colour) */
	char *colour_pages;	/* quota of colour pages (print.colour_pages) */
	enum cupsconf_unreachable unreachable;
	long uncountable;	/* pages per copy of a format it cannot count;
				   -1 deny (the default), 0 unset */
	int fallback;		/* CUPSCONF_POOLS: what the user's own quota cannot
				   take goes to a pool they may draw on */
	int colour_unknown;	/* a priced colour job whose pages cannot be
				   classified: CUPSCONF_COLOUR (all colour, the
				   default) or CUPSCONF_DENY; 0 unset */
};

enum { CUPSCONF_COLOUR = 1, CUPSCONF_DENY = 2 };	/* colour_unknown */

enum { CUPSCONF_OWN = 1, CUPSCONF_POOLS = 2 };	/* fallback; 0 unset */

struct cupsconf {
	struct yconf_privd privd;
	char *host;		/* in request ids (the short host name) */
	long hold_ttl;		/* seconds a job may take to print (86400) */
	double colour_threshold;	/* a page is colour when more than this share
					   of its pixels carry colour (0.001) */
	struct cupsconf_queue defaults;
	struct cupsconf_queue *queues;
	size_t nqueues;
};

/* Reads path. 0, or -1 with "path:line: reason" in err. */
int cupsconf_load(struct cupsconf *c, const char *path, char *err, size_t nerr);
/* The settings of queue, the defaults filled in; pointers borrowed from c. */
void cupsconf_queue(const struct cupsconf *c, const char *queue,
    struct cupsconf_queue *out);
void cupsconf_free(struct cupsconf *c);

#endif

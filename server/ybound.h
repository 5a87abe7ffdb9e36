/*
 * ybound.h - what a YAML text may cost before it is loaded: nesting depth,
 * anchors, and the size it has once its aliases are expanded. libyaml's
 * loader keeps an alias as a reference, but every reader walks it as a
 * copy, so nine levels of nine aliases ("a billion laughs") in 819 bytes
 * would be walked 387 million times. Used by privd's configuration and
 * imports and by the clients' configuration files; depends on libyaml only.
 */
#ifndef PRIVD_YBOUND_H
#define PRIVD_YBOUND_H

#include <stddef.h>

#define YBOUND_DEPTH 64		/* collections inside collections */
#define YBOUND_ANCHORS 1000
/* nodes once aliases are expanded: at most this many times the nodes
 * written, plus YBOUND_SLACK (a configuration's few shared lists) */
#define YBOUND_FACTOR 4
#define YBOUND_SLACK 10000

/*
 * Scans text without building it: 0 when it is within the bounds (or has
 * a syntax error, which the loader reports), else -1 with *line (1-based)
 * and msg saying which bound it passed.
 */
int ybound_check(const char *text, size_t len, int *line, char *msg, size_t n);

#endif

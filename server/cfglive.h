/*
 * cfglive.h - the configuration in force, and its reload (SIGHUP). A
 * reload reads the file whole; a file that does not load changes nothing.
 * Keys, terms, the HTTP limits, the web page's settings, notices and the
 * log's level and format come from the new file; every other setting keeps
 * its value until a restart and is named when the file changed it.
 */
#ifndef PRIVD_CFGLIVE_H
#define PRIVD_CFGLIVE_H

#include "config.h"
#include "err.h"

/* The configuration requests and background passes read now. Before
 * cfglive_start, NULL. A configuration once in force is freed at exit
 * (cfglive_stop), never while a thread may still hold it. */
const struct cfg *cfglive_get(void);

/* c (the one privd started with, the caller's to free after cfglive_stop)
 * is in force. */
void cfglive_start(struct cfg *c);

/*
 * n, read from the file again with the command line's overrides applied,
 * becomes the configuration in force as far as it may (above); n is
 * consumed. said(what) is called for each setting that changed but waits
 * for a restart. 0; -1 (e says why: nothing changed) when the change
 * cannot be made while running.
 */
int cfglive_reload(struct cfg *n, void (*said)(const char *what), struct err *e);

/* Frees the configurations reloads made (not the one started with). */
void cfglive_stop(void);

#endif

/*
 * rfile.h - reading a file privd or privctl was told to read (a model, an
 * import, a test file, a secret, a template): a regular file only, whole,
 * bounded. /dev/zero, a FIFO or a directory named in a configuration is an
 * error at once, not gigabytes or a hang.
 */
#ifndef PRIVD_RFILE_H
#define PRIVD_RFILE_H

#include <stddef.h>

#define RFILE_CONFIG_MAX (16u << 20)	/* configurations, test files, templates */
#define RFILE_IMPORT_MAX (1u << 30)	/* an import: a million accounts fit */
#define RFILE_SECRET_MAX 4096		/* a key or password file */

/*
 * Reads path, a regular file of at most max bytes, into *buf (malloc'd,
 * NUL-terminated, caller frees) and *len. 0, or -1 with what was wrong in
 * why (n bytes; the caller names the path); errno is kept for a file that
 * could not be opened.
 */
int rfile_read(const char *path, size_t max, char **buf, size_t *len, char *why, size_t n);

#endif

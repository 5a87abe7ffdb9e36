/* keyfile.h - reading an API key from a file only its owner can read. */
#ifndef PRIVD_KEYFILE_H
#define PRIVD_KEYFILE_H

#include <stddef.h>

/*
 * The key in path (its first line, blanks trimmed), malloc'd into *key.
 * Refuses a file that is not a regular file, not owned by the caller's
 * effective user, or that group or others may read or write: a key the
 * print system or login stack holds must stay root's. 0, or -1 with why
 * (naming the file) in err.
 */
int keyfile_read(const char *path, char **key, char *err, size_t nerr);

#endif

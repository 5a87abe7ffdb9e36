/* export.h - the model of a snapshot written in the import format (YAML). */
#ifndef PRIVD_EXPORT_H
#define PRIVD_EXPORT_H

#include "snapshot.h"

/* The whole model as import YAML, malloc'd; NULL when out of memory.
 * Importing it into the same directory changes nothing. */
char *export_yaml(const struct snap *s);

#endif

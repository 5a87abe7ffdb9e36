/* pages.h - counting the pages of a print job's data, by its MIME type. */
#ifndef PRIVD_PAGES_H
#define PRIVD_PAGES_H

#include <stddef.h>

/*
 * The number of pages of the document at path, of MIME type type: PDF
 * (libqpdf), CUPS and PWG raster (libcupsimage), PostScript (its DSC
 * comments). 0 and *pages; 1 when the type is not one it counts; -1 with
 * why in err when the data is not what its type says.
 */
int pages_count(const char *path, const char *type, long *pages, char *err,
    size_t nerr);

#endif

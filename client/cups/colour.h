/*
 * colour.h - which pages of a print job carry colour: PDF and PostScript
 * through Ghostscript's inkcov device (the gs program), CUPS and PWG
 * raster from their pixels (libcupsimage). A page is colour when its
 * cyan, magenta or yellow coverage passes a threshold; black made as
 * grey counts as black.
 */
#ifndef PRIVD_COLOUR_H
#define PRIVD_COLOUR_H

#include <stddef.h>

/*
 * The pages of the document at path (MIME type type) as a string of 'c'
 * (colour) and 'm' (mono), malloc'd into *kinds. 0; 1 when the type is
 * not one it classifies; -1 with why in err when it cannot.
 */
int colour_pages(const char *path, const char *type, double threshold, char **kinds,
    char *err, size_t nerr);

#endif

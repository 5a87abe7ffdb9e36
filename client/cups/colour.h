/*
 * colour.h - which pages of a print job carry colour: PDF and PostScript
 * rendered by Ghostscript (the gs program), CUPS and PWG raster read with
 * libcupsimage. A page is colour when more than a threshold of its pixels
 * (a fraction, 0.001 by default) carry colour; grey, however it was
 * drawn (DeviceGray, RGB with equal channels), is not colour.
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

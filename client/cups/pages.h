/* pages.h - counting the pages of a print job's data, by its MIME type. */
#ifndef PRIVD_PAGES_H
#define PRIVD_PAGES_H

#include <stddef.h>

#include <cups/raster.h>

/* The formats the backend reads, by MIME type ("; charset=..." ignored). */
enum pages_format { PAGES_OTHER, PAGES_PDF, PAGES_POSTSCRIPT, PAGES_RASTER };
enum pages_format pages_format(const char *type);

/*
 * What a walk of a CUPS or PWG raster file does with each page (either
 * may be NULL): start before its lines, returning -1 with why in err to
 * stop the walk; line for each of its lines, as read.
 */
struct pages_raster_fn {
	int (*start)(void *arg, const cups_page_header2_t *h, long page, char *err, size_t nerr);
	void (*line)(void *arg, const cups_page_header2_t *h, const unsigned char *line);
	void *arg;
};

/* Reads the raster file at path page by page (fn may be NULL): 0 and its
 * pages in *pages, or -1 with why in err. */
int pages_raster(const char *path, const struct pages_raster_fn *fn, long *pages, char *err,
    size_t nerr);

/*
 * The number of pages of the document at path, of MIME type type: PDF
 * (libqpdf), CUPS and PWG raster (libcupsimage), PostScript (its DSC
 * comments). 0 and *pages; 1 when the type is not one it counts; -1 with
 * why in err when the data is not what its type says.
 */
int pages_count(const char *path, const char *type, long *pages, char *err,
    size_t nerr);

#endif

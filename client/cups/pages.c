/*
 * pages.c - page counts for the CUPS backend. Each format is read with
 * the library made for it, so a count is what the printer will print,
 * not a guess from the file size.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cups/raster.h>
#include <qpdf/qpdf-c.h>

#include "pages.h"

static int
pdf_pages(const char *path, long *pages, char *err, size_t nerr)
{
	qpdf_data q = qpdf_init();
	int n, rc = -1;

	qpdf_silence_errors(q);
	qpdf_set_suppress_warnings(q, QPDF_TRUE);
	if ((qpdf_read(q, path, NULL) & QPDF_ERRORS) != 0 || (n = qpdf_get_num_pages(q)) < 0) {
		qpdf_error e = qpdf_has_error(q) ? qpdf_get_error(q) : NULL;

		snprintf(err, nerr, "not a PDF that can be read: %s",
		    e ? qpdf_get_error_full_text(q, e) : "no pages");
	} else {
		*pages = n;
		rc = 0;
	}
	qpdf_cleanup(&q);
	return rc;
}

int
pages_raster(const char *path, const struct pages_raster_fn *fn, long *pages, char *err,
    size_t nerr)
{
	cups_raster_t *r;
	cups_page_header2_t h;
	unsigned char *line = NULL;
	long n = 0;
	int fd, rc = -1;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		snprintf(err, nerr, "cannot open the job's data");
		return -1;
	}
	if ((r = cupsRasterOpen(fd, CUPS_RASTER_READ)) == NULL) {
		snprintf(err, nerr, "not CUPS or PWG raster");
		close(fd);
		return -1;
	}
	while (cupsRasterReadHeader2(r, &h)) {
		unsigned y;
		unsigned char *nl;

		/* the pixels of a page must be read to reach the next header */
		if (h.cupsBytesPerLine == 0 || h.cupsBytesPerLine > (1u << 24) ||
		    (nl = realloc(line, h.cupsBytesPerLine)) == NULL) {
			snprintf(err, nerr, "raster page %ld has a bad line length", n + 1);
			goto done;
		}
		line = nl;
		if (fn && fn->start && fn->start(fn->arg, &h, n + 1, err, nerr) != 0)
			goto done;
		for (y = 0; y < h.cupsHeight; y++) {
			if (cupsRasterReadPixels(r, line, h.cupsBytesPerLine) != h.cupsBytesPerLine) {
				snprintf(err, nerr, "raster page %ld ends early", n + 1);
				goto done;
			}
			if (fn && fn->line)
				fn->line(fn->arg, &h, line);
		}
		n++;
	}
	*pages = n;
	rc = 0;
done:
	free(line);
	cupsRasterClose(r);
	close(fd);
	return rc;
}

/*
 * DSC: "%%Pages: N" in the header (or in the trailer after "(atend)"),
 * else the number of "%%Page:" comments.
 */
static int
ps_pages(const char *path, long *pages, char *err, size_t nerr)
{
	FILE *f = fopen(path, "r");
	char buf[512];
	long declared = -1, counted = 0;
	int first = 1, nested = 0;

	if (f == NULL) {
		snprintf(err, nerr, "cannot open the job's data");
		return -1;
	}
	while (fgets(buf, sizeof(buf), f) != NULL) {
		if (first && strncmp(buf, "%!", 2) != 0) {
			fclose(f);
			snprintf(err, nerr, "not PostScript (no %%! at the start)");
			return -1;
		}
		first = 0;
		/* an embedded EPS has page comments of its own */
		if (strncmp(buf, "%%BeginDocument", 15) == 0)
			nested++;
		else if (strncmp(buf, "%%EndDocument", 13) == 0 && nested > 0)
			nested--;
		else if (nested > 0)
			;
		else if (strncmp(buf, "%%Pages:", 8) == 0) {
			char *end;
			long n = strtol(buf + 8, &end, 10);

			if (end != buf + 8 && n >= 0)
				declared = n;	/* the trailer's wins over "(atend)" */
		} else if (strncmp(buf, "%%Page:", 7) == 0)
			counted++;
		/* a long line: skip to its end without counting it twice */
		while (strchr(buf, '\n') == NULL && fgets(buf, sizeof(buf), f) != NULL)
			;
	}
	fclose(f);
	if (first) {
		snprintf(err, nerr, "the job's data is empty");
		return -1;
	}
	if (declared < 0 && counted == 0) {
		snprintf(err, nerr, "PostScript without DSC page comments");
		return -1;
	}
	*pages = declared >= 0 ? declared : counted;
	return 0;
}

enum pages_format
pages_format(const char *type)
{
	char t[128];
	size_t l;

	/* "application/pdf; charset=..." counts as application/pdf */
	snprintf(t, sizeof(t), "%s", type ? type : "");
	l = strcspn(t, "; ");
	t[l] = '\0';
	if (strcmp(t, "application/pdf") == 0 || strcmp(t, "application/vnd.cups-pdf") == 0)
		return PAGES_PDF;
	if (strcmp(t, "application/vnd.cups-raster") == 0 || strcmp(t, "image/pwg-raster") == 0)
		return PAGES_RASTER;
	if (strcmp(t, "application/postscript") == 0 ||
	    strcmp(t, "application/vnd.cups-postscript") == 0)
		return PAGES_POSTSCRIPT;
	return PAGES_OTHER;
}

int
pages_count(const char *path, const char *type, long *pages, char *err, size_t nerr)
{
	switch (pages_format(type)) {
	case PAGES_PDF:
		return pdf_pages(path, pages, err, nerr);
	case PAGES_RASTER:
		return pages_raster(path, NULL, pages, err, nerr);
	case PAGES_POSTSCRIPT:
		return ps_pages(path, pages, err, nerr);
	default:
		return 1;
	}
}
